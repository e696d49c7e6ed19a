#!/usr/bin/env python3
"""Output validator: any proper divisor of n is accepted (exit 42), anything else is
rejected (exit 43) with a message in feedback_dir/judgemessage.txt."""
import sys


def reject(feedback: str, message: str) -> None:
    with open(feedback + "/judgemessage.txt", "w") as out:
        out.write(message[:200] + "\n")
    sys.exit(43)


def main() -> None:
    input_file, _answer_file, feedback = sys.argv[1:4]
    allow_one = "allow_one" in sys.argv[4:]
    with open(input_file) as handle:
        n = int(handle.read())
    tokens = sys.stdin.read(1 << 16).split()
    if len(tokens) != 1:
        reject(feedback, "expected one token, got %d" % len(tokens))
    try:
        d = int(tokens[0])
    except ValueError:
        reject(feedback, "not an integer: %r" % tokens[0][:40])
    if d == 1 and allow_one and all(n % k for k in range(2, int(n ** 0.5) + 1)):
        sys.exit(42)
    if 1 < d < n and n % d == 0:
        sys.exit(42)
    reject(feedback, "%d is not a proper divisor of %d" % (d, n))


main()
