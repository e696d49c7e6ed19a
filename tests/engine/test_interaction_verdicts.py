"""The verdict rules of an interactive test (problemtools'), as a pure function."""

from __future__ import annotations

import pytest

from judge.engine.interaction import CANDIDATE, INTERACTOR, verdict
from judge.engine.program_verdicts import ValidatorRun
from judge.engine.verdicts import Verdict

pytestmark = pytest.mark.pure

TLE = (Verdict.TIMEOUT, "over the time limit")
RTE = (Verdict.RUNTIME_ERROR, "exit code 3")


@pytest.mark.parametrize("end, run, first, killed, expected, problem", [
    # the interactor rejects first: wrong answer, whatever the candidate did next
    (TLE, ValidatorRun(43, judge_message="no"), INTERACTOR, False, Verdict.WRONG_ANSWER, False),
    (RTE, ValidatorRun(43), INTERACTOR, False, Verdict.WRONG_ANSWER, False),
    # the candidate's own end came first: its verdict
    (TLE, ValidatorRun(43), CANDIDATE, False, Verdict.TIMEOUT, False),
    (RTE, ValidatorRun(42), CANDIDATE, False, Verdict.RUNTIME_ERROR, False),
    (RTE, ValidatorRun(1), CANDIDATE, False, Verdict.RUNTIME_ERROR, False),
    # the interactor fails first, or never ends after the candidate: a problem error
    (RTE, ValidatorRun(1), INTERACTOR, False, Verdict.WRONG_ANSWER, True),
    (TLE, ValidatorRun(None, timed_out=True), CANDIDATE, False, Verdict.WRONG_ANSWER, True),
    (TLE, ValidatorRun(None, signal=9), CANDIDATE, True, Verdict.WRONG_ANSWER, True),
    (None, ValidatorRun(0), CANDIDATE, False, Verdict.WRONG_ANSWER, True),
    (None, ValidatorRun(None, signal=11), INTERACTOR, False, Verdict.WRONG_ANSWER, True),
    # both ended normally: the interactor's exit
    (None, ValidatorRun(42), CANDIDATE, False, Verdict.PASS, False),
    (None, ValidatorRun(42), INTERACTOR, False, Verdict.PASS, False),
    (None, ValidatorRun(43), CANDIDATE, False, Verdict.WRONG_ANSWER, False),
])
def test_verdict_rules(end, run, first, killed, expected, problem):
    check = verdict(end, run, first, killed, "1")
    assert check.verdict is expected
    assert bool(check.problem_error) is problem
    if problem:
        assert "interactor failed" in check.message
