print('hello jury')
