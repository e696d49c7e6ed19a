n = int(input())
print(n, 0)
