words = [input() for _ in range(6)][1:]
print("\n".join(words[::2]))
