print(input().upper())
