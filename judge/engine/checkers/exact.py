"""The ``exact`` checker: the output must equal the expected one byte for byte."""

from __future__ import annotations

from judge.engine.checkers.base import Checker
from judge.engine.output_check import SHOW, Difference, Source, first_difference, read_all, show
from judge.problem.program import OutputChecker


class Exact(Checker):
    name = "exact"
    description = "byte for byte"

    def difference(self, answer: Source, output: Source,
                   options: OutputChecker) -> Difference | None:
        return _exact(answer, output)


def _exact(answer: Source, output: Source) -> Difference | None:
    expected, got = read_all(answer), read_all(output)
    if expected == got:
        return None
    at = first_difference(expected, got)
    line = expected.count(b"\n", 0, at) + 1
    column = at - (expected.rfind(b"\n", 0, at) + 1) + 1
    want, have = expected[at:at + SHOW] or None, got[at:at + SHOW] or None
    if have is None:
        what = "the output ended early; expected %s" % show(want)
    elif want is None:
        what = "trailing output %s" % show(have)
    else:
        what = "expected %s, got %s" % (show(want), show(have))
    return Difference("wrong answer at line %d, column %d (byte %d): %s" % (
        line, column, at + 1, what), line, line, None, show(want), show(have))


__all__ = ["Exact"]
