y = 1
while True:
    print('?', y, flush=True)
    if input().strip() == '=':
        print('!', y, flush=True)
        break
    y += 1
