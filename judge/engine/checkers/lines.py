"""The ``lines`` checker: line by line, ``\\r\\n`` as ``\\n``, trailing spaces and tabs of each
line and blank lines at the end ignored; case and inner spacing count."""

from __future__ import annotations

from judge.engine.checkers.base import Checker
from judge.engine.output_check import Difference, Source, read_all, show
from judge.problem.program import OutputChecker


class Lines(Checker):
    name = "lines"
    description = "line by line, trailing spaces and final blank lines ignored"

    def difference(self, answer: Source, output: Source,
                   options: OutputChecker) -> Difference | None:
        return _by_line(answer, output)


def _lines(data: bytes) -> list[bytes]:
    lines = [line.rstrip(b" \t\r") for line in data.split(b"\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _by_line(answer: Source, output: Source) -> Difference | None:
    expected, got = _lines(read_all(answer)), _lines(read_all(output))
    for number, (want, have) in enumerate(zip(expected, got), start=1):
        if want != have:
            return Difference("wrong answer on line %d: expected %s, got %s" % (
                number, show(want), show(have)), number, number, None, show(want), show(have))
    if len(expected) == len(got):
        return None
    number = min(len(expected), len(got)) + 1
    if len(got) < len(expected):
        return Difference("wrong answer: the output ended before line %d; expected %s" % (
            number, show(expected[number - 1])), number, number, None,
            show(expected[number - 1]), show(None))
    return Difference("wrong answer: trailing output on line %d: %s" % (
        number, show(got[number - 1])), number, number, None, show(None), show(got[number - 1]))


__all__ = ["Lines"]
