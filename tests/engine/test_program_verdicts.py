"""A program test's verdict from its checked output: the judge's checkers, and the output
validator protocol read so that no validator failure is ever a pass or an excluded verdict."""

from __future__ import annotations

import pytest

from judge.engine.checkers.base import ProgramCheck, output_verdict
from judge.engine.program_verdicts import ValidatorRun, check_submission, cut, validator_verdict
from judge.engine.verdicts import TestResult as Result
from judge.engine.verdicts import Verdict
from judge.problem.program import OutputChecker

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure


def test_accept_and_reject():
    assert validator_verdict(ValidatorRun(42)) == ProgramCheck(Verdict.PASS)
    rejected = validator_verdict(ValidatorRun(43, judge_message="line 3: expected 7, got 8\n"),
                                 "secret/03")
    assert rejected.verdict is Verdict.WRONG_ANSWER and rejected.problem_error is None
    assert rejected.message == ("test secret/03: wrong answer (output validator): line 3: "
                                "expected 7, got 8")
    silent = validator_verdict(ValidatorRun(43))
    assert silent.message == "wrong answer: rejected by the output validator"
    team = validator_verdict(ValidatorRun(43, team_message="too slow"))
    assert "too slow" in team.message


@pytest.mark.parametrize("run,reason", [
    (ValidatorRun(None, timed_out=True, time_s=30), "timed out after 30.0 s"),
    (ValidatorRun(42, timed_out=True, time_s=30), "timed out"),  # late 42 is no pass
    (ValidatorRun(None, memory_exceeded=True), "went over its memory limit"),
    (ValidatorRun(42, output_exceeded=True), "wrote more than its output limit"),
    (ValidatorRun(None, signal=11), "killed by signal 11"),
    (ValidatorRun(0), "exit code 0 (the protocol has 42 and 43)"),
    (ValidatorRun(1, stderr="Traceback ...\nValueError: bad\n"),
     "exit code 1 (the protocol has 42 and 43): Traceback ... ValueError: bad"),
    (ValidatorRun(139), "exit code 139"),
])
def test_validator_failures_are_wrong_answer_and_a_problem_error(run, reason):
    check = validator_verdict(run, "t1")
    assert check.verdict is Verdict.WRONG_ANSWER  # never pass, never sandbox_error
    assert check.message.startswith("test t1: output validator failed: ")
    assert reason in check.message
    assert check.problem_error == check.message


def test_messages_are_bounded():
    flood = "x" * 100_000
    check = validator_verdict(ValidatorRun(43, judge_message=flood))
    assert len(check.message) < 400 and check.message.endswith("...")
    failed = validator_verdict(ValidatorRun(2, stderr=flood))
    assert len(failed.message) < 300
    assert cut("a \n\n b\t c") == "a b c"


def test_output_verdict_uses_the_judges_checkers():
    assert output_verdict(b"1 2\n", b"1  2", OutputChecker()) == ProgramCheck(Verdict.PASS)
    wrong = output_verdict(b"1 2\n", b"1 3\n", OutputChecker(), "secret/1")
    assert wrong.verdict is Verdict.WRONG_ANSWER and wrong.problem_error is None
    assert wrong.message.startswith("test secret/1: wrong answer on line 1")
    assert output_verdict("3.14", "3.1416", OutputChecker(float_tolerance=1e-2)).verdict \
        is Verdict.PASS
    with pytest.raises(ValueError, match="sandbox"):
        output_verdict("1", "1", OutputChecker(type="validator", validator="v.py"))


def _results(*verdicts, message=None):
    return [Result(i, Verdict(v), message=message if v != "pass" else None)
            for i, v in enumerate(verdicts)]


@pytest.mark.parametrize("folder,verdicts,agrees,verdict", [
    ("accepted", ["pass", "pass"], True, "pass"),
    ("accepted", ["pass", "wrong_answer"], False, "wrong_answer"),
    ("wrong_answer", ["pass", "wrong_answer", "timeout"], True, "wrong_answer"),
    ("wrong_answer", ["pass", "pass"], False, "pass"),
    ("time_limit_exceeded", ["pass", "timeout"], True, "timeout"),
    ("time_limit_exceeded", ["wrong_answer", "timeout"], False, "wrong_answer"),
    ("run_time_error", ["runtime_error"], True, "runtime_error"),
    ("run_time_error", ["pass", "memory_limit"], True, "memory_limit"),
    ("run_time_error", ["output_limit"], False, "output_limit"),
    ("accepted", ["compile_error"], False, "compile_error"),
    ("accepted", ["pass", "sandbox_error"], None, "sandbox_error"),
    ("partially_accepted", ["pass", "wrong_answer"], None, "wrong_answer"),
])
def test_example_submissions_get_their_folders_verdict(folder, verdicts, agrees, verdict):
    check = check_submission(folder, _results(*verdicts, message="line 1: expected 2, got 3"))
    assert (check.agrees, check.verdict.value) == (agrees, verdict)
    if agrees is False:
        assert check.message.startswith("expected ")
    if verdict != "pass":
        assert "on test" in check.message


def test_submission_messages():
    check = check_submission("time_limit_exceeded", _results("pass", "wrong_answer",
                                                              message="x" * 1000))
    assert check.message.startswith("expected timeout, got wrong_answer on test 2: xxx")
    assert len(check.message) < 250
    assert check_submission("run_time_error", _results("pass")).message == \
        "expected runtime_error or memory_limit, got pass"
