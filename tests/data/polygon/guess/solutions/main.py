lo, hi = 1, 100
while True:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    r = input().strip()
    if r == "=":
        print("!", mid, flush=True)
        break
    if r == "<":
        lo = mid + 1
    else:
        hi = mid - 1
