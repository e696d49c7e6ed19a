import sys
print(open(sys.argv[1]).read(), end='')
print(sys.stdin.read(), end='')
