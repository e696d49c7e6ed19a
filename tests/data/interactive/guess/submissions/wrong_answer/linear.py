# guesses 1, 2, 3, ...: ten guesses are not enough
for guess in range(1, 1001):
    print(guess, flush=True)
    if input().strip() == "correct":
        break
