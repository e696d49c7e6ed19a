import sys
for line in sys.stdin:
    a, b = map(int, line.split())
    d = 0
    while min(a, b) + d != max(a, b):
        d += 1
    print(d)
