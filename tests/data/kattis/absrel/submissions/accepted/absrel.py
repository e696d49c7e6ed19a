x = float(input())
print(x * x)
