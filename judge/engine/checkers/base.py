"""Output checkers: how a program's output is judged, each one module behind
:class:`Checker`, found by name in :data:`CHECKERS`.

A problem names its checker (``"checker": {"type": "tokens", ...}``; the options are
:class:`judge.problem.program.OutputChecker`). A checker that compares bytes on the judge's
side (``tokens``, ``exact``, ``lines``) implements :meth:`Checker.difference`; one that runs
a program (the problem's output validator) sets ``in_process = False`` and implements
:meth:`Checker.check` over all of a candidate's outputs at once, on the engine's sandbox.
An external package adds a checker with an entry point in the group ``judge.checkers``
(``name = "package.module:Checker"``).
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.engine.output_check import Difference, Source, as_bytes
from judge.engine.verdicts import Verdict
from judge.problem.program import OutputChecker
from judge.registry import Registry

#: the output checkers by name (external ones: entry points in ``judge.checkers``)
CHECKERS: Registry = Registry("output checker", group="judge.checkers", factory=True)
CHECKERS.add("tokens", "judge.engine.checkers.tokens:Tokens")
CHECKERS.add("exact", "judge.engine.checkers.exact:Exact")
CHECKERS.add("lines", "judge.engine.checkers.lines:Lines")
CHECKERS.add("validator", "judge.engine.checkers.validator:Validator")
CHECKERS.add("testlib", "judge.engine.checkers.testlib:Testlib")


@dataclass(frozen=True)
class ProgramCheck:
    """A test's verdict from its output, and a problem error to report apart."""

    verdict: Verdict
    message: str | None = None
    #: the checker failed (the problem's fault, not the candidate's)
    problem_error: str | None = None
    #: the test's score, a fraction in [0, 1], when the checker gave points (a testlib
    #: checker's ``quitp`` or ``_pc``); None: the verdict says it all
    score: float | None = None
    #: the test's absolute score (a Kattis output validator's ``score.txt``)
    points: float | None = None


class Checker:
    """One way to judge a program's output."""

    name = ""
    description = ""
    #: it judges bytes in the judge's process, test by test (False: it runs a program the
    #: problem ships, in the sandbox, once per candidate after every run)
    in_process = True

    def difference(self, answer: Source, output: Source,
                   options: OutputChecker) -> Difference | None:
        """None when ``output`` is accepted against ``answer``; else where it first differs."""
        raise NotImplementedError("the %s checker runs a program: see check()" % self.name)

    def check(self, engine: Any, problem: Any, outputs: dict[int, bytes],
              stop: bool = False) -> dict[int, ProgramCheck]:
        """Every output of a candidate (test index -> output), judged: by default each with
        :meth:`difference` against its test's answer."""
        checks = {}
        for index, output in outputs.items():
            test = problem.tests[index]
            answer = test.answer_path() or test.expected_output() or b""
            checks[index] = output_verdict(answer, output, problem.checker_for(test),
                                           test.name or str(index + 1))
        return checks


def check_output(answer: Source, output: Source,
                 options: OutputChecker | None = None) -> Difference | None:
    """None when ``output`` is accepted against ``answer`` by the checker ``options`` name
    (default: ``tokens``); else where it first differs. Either side may be bytes, text, a
    binary file or a ``Path`` (read in chunks). A checker that runs a program refuses."""
    options = options or OutputChecker()
    checker = CHECKERS.get(options.type)
    if not checker.in_process:
        raise ValueError("a %s checker is a program: it runs in a sandbox, not here"
                         % checker.name)
    with ExitStack() as files:
        answer, output = (files.enter_context(side.open("rb")) if isinstance(side, Path)
                          else as_bytes(side) for side in (answer, output))
        return checker.difference(answer, output, options)


def output_verdict(answer: Source, output: Source, options: OutputChecker,
                   test: str = "") -> ProgramCheck:
    """The test's verdict from a checker that judges in the judge's process."""
    difference = check_output(answer, output, options)
    if difference is None:
        return ProgramCheck(Verdict.PASS)
    return ProgramCheck(Verdict.WRONG_ANSWER,
                        ("test %s: " % test if test else "") + difference.message)


__all__ = ["CHECKERS", "Checker", "ProgramCheck", "check_output", "output_verdict"]
