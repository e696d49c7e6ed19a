for g in range(1, 1001):
    print(g, flush=True)
    if input().strip() == "correct":
        break
