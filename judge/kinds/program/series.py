"""Python programs in series: taking a test's result from the worker's series child, or
rerunning it alone.

The worker runs a Python program's tests one after another in one forked child
(``runners/python/judge_worker/program_batch.py``: a fresh ``__main__`` and fresh standard
streams per test, each test's input handed over only when the previous one has ended, each
test timed on its own). What stands from there:

- a pass, and a timeout at the test's own CPU limit (measured exactly: the child was
  stopped while that test ran);
- a child stopped (a limit but the wall clock, a signal) while its first test ran: no other
  test had run in that interpreter and no line had come, so it is a process of its own, as
  a function batch's first test is.

Any other failure is rerun with one process per test and the rerun's record is the test's.
Under the contest rule a failure the rerun confirms ends the candidate's run; one it does
not (the program failed only after an earlier test) lets the remaining tests run one
process each.
"""

from __future__ import annotations

from typing import Any

from judge.engine.checkers.base import CHECKERS, output_verdict
from judge.engine.program_verdicts import program_output, run_verdict
from judge.engine.verdicts import Verdict
from judge.problem.program import ProgramProblem
from judge.sandbox import records
from judge.sandbox.base import JobReport, Limits


def series_wanted(problem: ProgramProblem, lang: Any, limits: Limits) -> bool:
    """Whether to ask the worker for a series: a Python program run by the worker, checked
    here (an output validator's verdict comes too late to decide a rerun), no time budget,
    and tests without files or arguments."""
    if not lang.program_in_worker or not CHECKERS.get(problem.checker.type).in_process or \
            limits.budget_s is not None:
        return False
    return all(not test.files and not test.args for test in problem.tests)


def stands(problem: ProgramProblem, index: int, record: dict[str, Any], limits: Limits,
           time_s: float, report: JobReport) -> bool:
    """Whether a series record is the test's verdict as it is."""
    if record.get("first") and record.get("status") in (
            records.TIMEOUT, records.MEMORY, records.SIGNALED) and \
            record.get("limit") != records.LIMIT_WALL:
        # a fresh interpreter stopped while its first test ran (no line had come: nothing the
        # program wrote could have moved it): as a process of its own
        return True
    ended = run_verdict(record, limits, time_s, report)
    if ended is not None:
        # only a CPU timeout: a wall-clock one may come from waiting on what only a series
        # child has (its socket), which a process of its own would not find
        return ended[0] is Verdict.TIMEOUT and record.get("status") == records.TIMEOUT and \
            record.get("limit") == records.LIMIT_CPU and bool(record.get("own")) and \
            not record.get("budget_s")
    test = problem.tests[index]
    answer = test.answer_path() or test.expected_output() or b""
    return output_verdict(answer, program_output(record), problem.checker_for(test)).verdict \
        is Verdict.PASS


def confirm(judge: Any, problem: ProgramProblem, chunk: list[int], report: JobReport,
            run: Any, limits: Limits, time_s: float, stop: bool) -> JobReport:
    """The series report with every record that does not stand replaced by an isolated
    run's. ``run(indices, stop)`` runs those tests of the problem, one process each, and
    returns the report (its record positions are those of ``indices``)."""
    if report.infra_error or not report.compiled:
        return report
    if not stop:
        return _confirm_together(problem, chunk, report, run, limits, time_s)
    for position in sorted(report.records):
        record = report.records[position]
        if not record.get("series") or \
                stands(problem, chunk[position], record, limits, time_s, report):
            continue
        again = run([chunk[position]], True)
        if again.infra_error or not again.compiled:
            report.infra_error = again.infra_error or "the program did not compile again"
            return report
        alone = again.records.get(0)
        if alone is None:
            report.died_during = position
            report.died_reason = again.died_reason
            report.records = {p: r for p, r in report.records.items() if p < position}
            return report
        report.records[position] = dict(alone, index=position, confirmed=True)
        report.oom_killed = report.oom_killed or again.oom_killed
        if not stop:
            continue
        report.records = {p: r for p, r in report.records.items() if p <= position}
        failed = not stands(problem, chunk[position], dict(alone, series=True, own=False),
                            limits, time_s, again)
        rest = list(range(position + 1, len(chunk)))
        if failed or not rest:
            return report
        tail = run([chunk[p] for p in rest], True)  # the rest alone, one process each
        if tail.infra_error:
            report.infra_error = tail.infra_error
            return report
        for offset, found in tail.records.items():
            report.records[rest[offset]] = dict(found, index=rest[offset])
        if tail.died_during is not None:
            report.died_during = rest[min(tail.died_during, len(rest) - 1)]
            report.died_reason = tail.died_reason
        return report
    return report


def _confirm_together(problem: ProgramProblem, chunk: list[int], report: JobReport, run: Any,
                      limits: Limits, time_s: float) -> JobReport:
    """Without the contest rule every record that does not stand is rerun, whatever the
    others do: all of them in one job of one process per test (each run as alone as in a job
    of its own: a fresh process and work directory), not a job each."""
    pending = [p for p in sorted(report.records) if report.records[p].get("series") and
               not stands(problem, chunk[p], report.records[p], limits, time_s, report)]
    if not pending:
        return report
    again = run([chunk[p] for p in pending], False)
    if again.infra_error or not again.compiled:
        report.infra_error = again.infra_error or "the program did not compile again"
        return report
    report.oom_killed = report.oom_killed or again.oom_killed
    for offset, position in enumerate(pending):
        alone = again.records.get(offset)
        if alone is None:  # the worker died under this rerun (or before it)
            report.died_during = position
            report.died_reason = again.died_reason
            report.records = {p: r for p, r in report.records.items() if p < position}
            return report
        report.records[position] = dict(alone, index=position, confirmed=True)
    return report


__all__ = ["confirm", "series_wanted", "stands"]
