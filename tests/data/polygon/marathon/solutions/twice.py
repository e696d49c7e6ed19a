n = int(input())
print(1, 1)
