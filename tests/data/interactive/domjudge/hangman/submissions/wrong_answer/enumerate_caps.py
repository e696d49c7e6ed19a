import sys

# Guesses uppercase letters which are not allowed.

cntr = len(input())
print(chr(cntr+ord('A')))
