"""The guessing game's interactor: validator input answer feedback_dir < guesses > replies."""
import os
import sys


def wa(why):
    with open(os.path.join(sys.argv[3], "judgemessage.txt"), "w") as handle:
        handle.write(why)
    sys.exit(43)


def main():
    with open(sys.argv[1]) as handle:
        secret = int(handle.read())
    for _ in range(10):
        line = sys.stdin.readline(64)
        if not line:
            wa("the guesser stopped before guessing it")
        try:
            guess = int(line)
        except ValueError:
            wa("not a number: %r" % line[:20])
        if guess == secret:
            print("correct", flush=True)
            sys.exit(42)
        print("lower" if guess > secret else "higher", flush=True)
    wa("ten guesses, no luck")


main()
