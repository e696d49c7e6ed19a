n = int(input())
for _ in range(n):
    print(' '.join('.' * n))
