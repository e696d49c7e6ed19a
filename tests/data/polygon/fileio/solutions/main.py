n = int(open('input.txt').read())
open('output.txt', 'w').write(str(2 * n) + '\n')
