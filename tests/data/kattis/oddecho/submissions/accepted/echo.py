n = int(input())
words = [input() for _ in range(n)]
print("\n".join(words[::2]))
