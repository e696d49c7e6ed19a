import sys
v = sys.stdin.read().split()
s = sum(map(int, v[1:])) % 2**32
print(s - 2**32 if s >= 2**31 else s)
