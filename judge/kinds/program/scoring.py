"""A scored program problem's result: its tests' verdicts (and their checkers' partial
scores) added up by the problem's groups (``judge.problem.scoring``) into the candidate's
score, the most it could score and each group's score, on the results line."""

from __future__ import annotations

from judge.engine.verdicts import CandidateResult, TestResult, Verdict
from judge.problem.program import ProgramProblem
from judge.problem.scoring import Scored, TestOutcome, score_tests


def outcomes(tests: list[TestResult]) -> dict[int, TestOutcome]:
    """What the scoring needs of each judged test: passed, a checker's fraction (testlib's
    partial points, a validator's ``score_multiplier.txt``), a validator's ``score.txt``."""
    return {t.index: TestOutcome(t.verdict is Verdict.PASS, t.score, t.points) for t in tests}


def score(problem: ProgramProblem, tests: list[TestResult]) -> Scored | None:
    if problem.scoring is None:
        return None
    return score_tests(problem.scoring, problem.tests, outcomes(tests))


def add_score(problem: ProgramProblem, result: CandidateResult) -> None:
    """Put a scored problem's score and groups on ``result`` (nothing for another problem,
    nor for a result no test of which was judged: a sandbox_error scores nothing)."""
    if problem.scoring is None or result.verdict is Verdict.SANDBOX_ERROR:
        return
    scored = score(problem, result.tests)
    assert scored is not None
    result.score = scored.score
    result.max_score = scored.max_score
    result.groups = [g.to_json() for g in scored.groups]
    if scored.problem_errors:
        result.problem_errors = (result.problem_errors or []) + scored.problem_errors


__all__ = ["add_score", "outcomes", "score"]
