n = int(input())
print(*range(1, n // 2 + 1))
