n = int(open('input.txt').read())
print(2 * n)
