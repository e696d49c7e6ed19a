"""The one small interface every reward policy implements.

A policy turns a judged candidate into the number a trainer's reward rule would give it. It
has two halves:

- :meth:`RewardPolicy.prepare` chooses what is judged: which of a problem's tests run (verl's
  first ten, DeepCoder's fifteen longest inputs) and how outputs are compared (INTELLECT-3's
  numeric tolerance). It returns the problem to judge (the same one when nothing changes);
  running only the tests the rule looks at gives the rule's number at a fraction of the cost;
- :meth:`RewardPolicy.score` maps the judged result to the number.

An infrastructure failure (``sandbox_error``) never reaches :meth:`score`: the caller raises
"not judged" (:class:`judge.integrations.common.NotJudged`) or gives ``None`` first, under
every policy.
"""

from __future__ import annotations

from typing import Any, ClassVar

from judge.engine.verdicts import CandidateResult, Verdict


class RewardPolicy:
    """Judged candidate -> reward. Subclasses set ``name``, ``reproduces`` (the trainer and
    the code whose rule it follows) and override what differs."""

    name: ClassVar[str] = ""
    #: the trainer whose reward rule this is, and where that rule is written
    reproduces: ClassVar[str] = ""
    #: the number of tests the rule looks at (None: all); set by ``policy("name:N")``
    count: int | None = None

    def __init__(self, count: int | None = None) -> None:
        if count is not None:
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise ValueError("%s: the number of tests must be a positive integer, got %r"
                                 % (self.name, count))
            self.count = count

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__name__, "" if self.count is None else self.count)

    @property
    def spec(self) -> str:
        """The name that makes this policy again (``first-n:10``)."""
        return self.name if self.count is None else "%s:%d" % (self.name, self.count)

    # ---- what is judged ---------------------------------------------------------------

    def prepare(self, problem: Any) -> Any:
        """The problem as this rule judges it (default: as it is)."""
        return problem

    # ---- the number -------------------------------------------------------------------

    def score(self, result: CandidateResult, problem: Any = None, code: str = "") -> float:
        """The reward of ``result``, judged on ``problem`` (as :meth:`prepare` returned it)
        from ``code`` (the candidate's code as extracted from its reply)."""
        raise NotImplementedError


# ---- helpers the policies share -------------------------------------------------------------

def passed(result: CandidateResult) -> bool:
    return result.verdict is Verdict.PASS and result.total > 0


def fraction(result: CandidateResult) -> float:
    return result.passed / result.total if result.total else 0.0


def test_count(problem: Any) -> int:
    return problem.test_count()


def input_size(problem: Any, index: int) -> int:
    """How long test ``index``'s input is (the problem's kind says how)."""
    return problem.input_size(index)


def with_tests(problem: Any, indices: list[int]) -> Any:
    """A copy of ``problem`` judged on the tests at ``indices`` only, in that order (the
    problem itself when that is all of them, in order)."""
    if indices == list(range(problem.test_count())):
        return problem
    return problem.with_tests(indices)


def with_tolerance(problem: Any, tolerance: float) -> Any:
    """A copy of ``problem`` whose numbers compare within ``tolerance`` (absolute or
    relative); an output validator's own judgement is left as it is."""
    return problem.with_float_tolerance(tolerance)
