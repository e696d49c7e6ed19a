"""A program test's verdict from its checked output: pure, no sandbox.

Two sources decide whether a candidate's output is right:

- the judge's own checkers (``tokens``, ``exact``, ``lines``: ``judge.engine.output_check``),
  run here on the candidate's (bounded) output and the expected output;
- a custom output validator, a program run in a sandbox of its own; the sandbox reports how
  that run ended (``ValidatorRun``) and ``validator_verdict`` reads it as the Kattis/ICPC
  format says: exit 42 accepts, 43 rejects, ``judgemessage.txt`` explains.

A validator that crashes, hangs, floods or exits with any other code has *failed*: the test
is ``wrong_answer`` with the message "output validator failed: ...", and the failure is
reported apart as a problem error (``ProgramCheck.problem_error``). Whatever the candidate's
output does to a validator, it can never turn into a pass or into an excluded verdict
(``sandbox_error``).
"""

from __future__ import annotations

import base64
import math
import re
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.engine.classify import runtime_out_of_memory, signal_verdict
from judge.engine.checkers.base import ProgramCheck
from judge.problem.package_files import program_sources
from judge.engine.verdicts import TestResult, Verdict, overall
from judge.sandbox import records
from judge.sandbox.base import JobReport, Limits

#: exit codes of the output validator protocol
ACCEPT, REJECT = 42, 43
#: characters of a validator's message kept in a test's message
MESSAGE_CHARS = 300


@dataclass(frozen=True)
class ValidatorRun:
    """How one run of an output validator ended, as its sandbox reports it."""

    exit_code: int | None
    signal: int | None = None
    timed_out: bool = False
    memory_exceeded: bool = False
    output_exceeded: bool = False
    time_s: float = 0.0
    #: the feedback files and standard error, already bounded by the caller
    judge_message: str = ""
    team_message: str = ""
    stderr: str = ""
    #: a scoring problem's feedback files (None: not written): ``score.txt`` (the test's
    #: absolute score) or ``score_multiplier.txt`` (a fraction of its maximum)
    score_file: str | None = None
    score_multiplier_file: str | None = None


def cut(text: str, limit: int = MESSAGE_CHARS) -> str:
    """One readable paragraph: whitespace runs collapsed, cut to ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _failure(run: ValidatorRun) -> str | None:
    """Why a validator run is not a judgement, or None when it is one."""
    if run.timed_out:
        return "timed out after %.1f s" % run.time_s
    if run.memory_exceeded:
        return "went over its memory limit"
    if run.output_exceeded:
        return "wrote more than its output limit"
    if run.signal is not None:
        return "killed by signal %d" % run.signal
    if run.exit_code in (ACCEPT, REJECT):
        return None
    detail = cut(run.stderr or run.judge_message, 160)
    return "exit code %s (the protocol has 42 and 43)%s" % (
        run.exit_code, ": " + detail if detail else "")


def validator_verdict(run: ValidatorRun, test: str = "") -> ProgramCheck:
    """The test's verdict from its output validator's run."""
    where = "test %s: " % test if test else ""
    failure = _failure(run)
    if failure is not None:
        message = "output validator failed: " + failure
        return ProgramCheck(Verdict.WRONG_ANSWER, where + message, where + message)
    if run.exit_code == ACCEPT:
        return _scored_pass(run, where)
    said = cut(run.judge_message or run.team_message)
    return ProgramCheck(Verdict.WRONG_ANSWER, where + (
        "wrong answer (output validator): " + said if said else
        "wrong answer: rejected by the output validator"))


def _scored_pass(run: ValidatorRun, where: str) -> ProgramCheck:
    """An accepted test with the score its validator wrote (Kattis: ``score.txt`` an
    absolute score, ``score_multiplier.txt`` a fraction in [0, 1], never both); a file that
    breaks those rules is the problem's error, and the test keeps its plain pass."""
    if run.score_file is None and run.score_multiplier_file is None:
        return ProgramCheck(Verdict.PASS)
    if run.score_file is not None and run.score_multiplier_file is not None:
        return ProgramCheck(Verdict.PASS, problem_error=where + "the output validator wrote "
                            "both score.txt and score_multiplier.txt")
    name, text = ("score.txt", run.score_file) if run.score_file is not None else \
        ("score_multiplier.txt", run.score_multiplier_file)
    words = str(text).split()
    try:
        value = float(words[0]) if len(words) == 1 else None
    except ValueError:
        value = None
    top = None if name == "score.txt" else 1.0
    if value is None or not math.isfinite(value) or value < 0 or \
            (top is not None and value > top):
        return ProgramCheck(Verdict.PASS, problem_error=where + "the output validator's %s "
                            "holds %r, not a number %s" % (name, cut(str(text), 40),
                                                           "in [0, 1]" if top else ">= 0"))
    if name == "score.txt":
        return ProgramCheck(Verdict.PASS, points=value)
    return ProgramCheck(Verdict.PASS, score=value)


# ---- example submissions of a package (``judge verify``) --------------------------------------

#: a package's submission folder -> the candidate verdicts that agree with it (a memory
#: limit is a run-time error in the Kattis and ICPC verdict sets)
FOLDER_VERDICTS: dict[str, tuple[Verdict, ...]] = {
    "accepted": (Verdict.PASS,),
    "wrong_answer": (Verdict.WRONG_ANSWER,),
    "time_limit_exceeded": (Verdict.TIMEOUT,),
    "run_time_error": (Verdict.RUNTIME_ERROR, Verdict.MEMORY_LIMIT),
    # 2023-07: any verdict but a pass
    "rejected": (Verdict.WRONG_ANSWER, Verdict.TIMEOUT, Verdict.RUNTIME_ERROR,
                 Verdict.MEMORY_LIMIT, Verdict.OUTPUT_LIMIT),
}


@dataclass(frozen=True)
class SubmissionCheck:
    """Whether an example submission got its folder's verdict."""

    folder: str
    verdict: Verdict
    #: None when it cannot be told: the judge failed (sandbox_error) or the folder has no
    #: single verdict (partially_accepted, brute_force, ...)
    agrees: bool | None
    message: str


def check_submission(folder: str, tests: list[TestResult],
                     expected: tuple[str, ...] | None = None) -> SubmissionCheck:
    """An example submission's verdict is its first failing test's (the contest rule), and
    it must be one its folder allows (or, given, one of ``expected``: the verdicts an
    ``@EXPECTED_RESULTS@`` comment names)."""
    verdict = overall(tests)
    first = next((t for t in tests if t.verdict is not Verdict.PASS), None)
    detail = ""
    if first is not None:
        detail = " on test %d%s" % (first.index + 1, ": " + cut(first.message, 160)
                                    if first.message else "")
    if verdict is Verdict.SANDBOX_ERROR:
        return SubmissionCheck(folder, verdict, None, "not judged (sandbox_error)%s" % detail)
    allowed = tuple(Verdict(v) for v in expected) if expected else FOLDER_VERDICTS.get(folder)
    if allowed is None:
        return SubmissionCheck(folder, verdict, None, "got %s%s (the folder %s has no single "
                               "verdict)" % (verdict, detail, folder))
    if verdict in allowed:
        return SubmissionCheck(folder, verdict, True, "got %s%s, as expected" % (verdict, detail))
    return SubmissionCheck(folder, verdict, False, "expected %s, got %s%s" % (
        " or ".join(v.value for v in allowed), verdict, detail))


def _shown_score(value: float | None) -> str:
    return "unbounded" if value is None else "%g" % round(value, 6)


def check_scored_submission(folder: str, tests: list[TestResult], score: float | None,
                            max_score: float | None,
                            expected: tuple[str, ...] | None = None,
                            expected_score: tuple[float, float] | None = None
                            ) -> SubmissionCheck:
    """An example submission of a scored problem: ``partially_accepted`` (problemtools) must
    score more than 0 and less than the maximum, every other folder gets its verdict as
    in :func:`check_submission`; a score ``submissions.yaml`` gives (low, high) must hold
    too, whatever the folder."""
    verdict = overall(tests)
    if verdict is Verdict.SANDBOX_ERROR or score is None:
        return check_submission(folder, tests, expected)
    got = "scored %s of %s" % (_shown_score(score), _shown_score(max_score))
    if expected_score is not None:
        low, high = expected_score
        wanted = _shown_score(low) if low == high else "%s to %s" % (_shown_score(low),
                                                                      _shown_score(high))
        if not low - 1e-6 <= score <= high + 1e-6:
            return SubmissionCheck(folder, verdict, False, "expected a score of %s, %s (%s)"
                                   % (wanted, got, verdict))
    if folder == "partially_accepted" and not expected:
        full = max_score is not None and score >= max_score - 1e-9
        if score > 1e-9 and not full:
            return SubmissionCheck(folder, verdict, True, "%s, as expected (%s)" % (
                got, verdict))
        if expected_score is not None:
            return SubmissionCheck(folder, verdict, True, "%s, as submissions.yaml says"
                                   % got)
        return SubmissionCheck(folder, verdict, False, "expected a partial score (more than "
                               "0, less than the maximum), %s" % got)
    base = check_submission(folder, tests, expected)
    return SubmissionCheck(folder, verdict, base.agrees, "%s; %s" % (got, base.message))


def _signal_number(name: Any) -> int | None:
    try:
        return int(signal.Signals[str(name)])
    except (KeyError, ValueError):
        return None


# ---- output validators --------------------------------------------------------------------

def validator_sources(path: Path) -> dict[str, str]:
    """An output validator's files to compile (name -> text), read by the package reader's
    rules (``package_files.program_sources``): nothing may lead outside the folder the
    validator is in, no special file, sizes bounded; InputError (a ValueError) naming the
    file otherwise."""
    return program_sources(path)


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def validator_run(record: dict[str, Any] | None, died: str | None = None) -> ValidatorRun:
    """A validator's run as ``program_verdicts`` reads it."""
    if record is None:
        return ValidatorRun(exit_code=None, stderr=died or "no result was reported")
    feedback = record.get("feedback") if isinstance(record.get("feedback"), dict) else {}
    status = record.get("status")
    return ValidatorRun(
        exit_code=record.get("exit_code") if status == records.EXITED else None,
        signal=_signal_number(record.get("signal")) if status == records.SIGNALED else None,
        timed_out=status == records.TIMEOUT or status == records.BUDGET_SPENT,
        memory_exceeded=status == records.MEMORY,
        output_exceeded=bool(record.get("output_capped")),
        time_s=float(record.get("wall_s") or 0.0),
        judge_message=str(feedback.get("judgemessage.txt") or ""),
        team_message=str(feedback.get("teammessage.txt") or ""),
        score_file=_text_or_none(feedback.get("score.txt")),
        score_multiplier_file=_text_or_none(feedback.get("score_multiplier.txt")),
        stderr=str(record.get("stderr_head") or record.get("message") or status or ""))
# ---- a run's record -> verdict ------------------------------------------------------------

_EXCEPTION = re.compile(r"^(?:[\w$]+\.)*[\w$]*(?:Error|Exception)\b")


def _stderr(record: dict[str, Any]) -> str:
    """The telling line of what a program printed as it died: a Python traceback's last
    line, else the first line naming an error or exception, else the first line."""
    head = str(record.get("stderr_head") or "")
    tail = str(record.get("stderr_tail") or head)
    lines = [line for line in head.splitlines() if line.strip()]
    if not lines:
        return ""
    picked = None
    if "Traceback (most recent call last)" in head:
        last = [line for line in tail.splitlines()
                if line.strip() and not line.startswith((" ", "\t"))]
        picked = last[-1] if last else None
    if picked is None:
        picked = next((line for line in lines if _EXCEPTION.match(line.strip())), lines[0])
    return ": " + cut(picked, 200)


def run_verdict(record: dict[str, Any], limits: Limits, time_s: float, report: JobReport
                ) -> tuple[Verdict, str] | None:
    """How a candidate's run ended, or None when it exited normally (its output decides)."""
    status = record.get("status")
    if status == records.BUDGET_SPENT:
        return Verdict.TIMEOUT, "not run: the candidate's time budget (%s s) was spent" % (
            record.get("budget_s"))
    if record.get("output_capped") or record.get("file_capped"):
        # the cap was reached first, whatever came after (a runtime that ignores SIGXFSZ
        # and goes on failing to write until its time is up, or queues what it could not
        # write until its memory is full)
        return Verdict.OUTPUT_LIMIT, "wrote more than %d KiB" % limits.output_kb
    if status == records.MEMORY or (record.get("oom_kill") and status != records.EXITED):
        return Verdict.MEMORY_LIMIT, "over the memory limit (%d MiB)" % limits.memory_mb
    if status == records.TIMEOUT:
        which = "wall-clock" if record.get("limit") == records.LIMIT_WALL else "CPU"
        return Verdict.TIMEOUT, "over the time limit (%.2f s %s)" % (time_s, which)
    if status == records.SIGNALED:
        name = str(record.get("signal"))[:40]
        decided = signal_verdict(record, limits.output_kb, time_s, report.oom_killed) or \
            runtime_out_of_memory(record, limits.memory_mb)
        if decided is not None:
            return decided
        return Verdict.RUNTIME_ERROR, "killed by %s%s" % (name, _stderr(record))
    if status == records.SETUP_ERROR:
        return Verdict.SANDBOX_ERROR, "the test could not be set up: %s" % cut(
            str(record.get("message")), 200)
    if status == records.EXITED:
        code = record.get("exit_code")
        if code == 0:
            return None
        # a runtime that died out of memory, measured (the JVM's OutOfMemoryError, V8's heap)
        return runtime_out_of_memory(record, limits.memory_mb) or (
            Verdict.RUNTIME_ERROR, "exit code %s%s" % (code, _stderr(record)))
    return Verdict.RUNTIME_ERROR, "%s%s" % (cut(str(record.get("message") or status), 200),
                                            _stderr(record))


def program_output(record: dict[str, Any]) -> bytes:
    try:
        return base64.b64decode(record.get("stdout") or "", validate=True)
    except (ValueError, TypeError):
        return b""


