import sys

# Guesses numbers, which are not allowed.

cntr = len(input())
print(chr(cntr+ord('1')))
