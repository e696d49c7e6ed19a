import sys
v = sys.stdin.read().split()
print(sum(map(int, v[1:])))
