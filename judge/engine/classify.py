"""Raw records to verdicts: what a sandbox worker reported about each test, and what it
measured, turned into the verdict that says what happened (design principle 5).

Pure: no sandbox, no process, no clock. A record's ``status`` is one of the worker
protocol's vocabulary (:mod:`judge.sandbox.records`); the measurements beside it (``cpu_s``,
``maxrss_bytes``, ``tasks_peak``, ``oom_kill``...) are the worker's, never the candidate's
(the worker drops any field a child writes about itself). A verdict of a limit is decided
from a measurement: memory from the watcher, the kernel's OOM kill or the measured peak;
CPU time from the clock. What a candidate printed never decides one: it only names, beside a
measurement, which kind of death it was.

Returned values are compared by the executor (:mod:`judge.kinds.function.judge`), which holds
the problem's checkers: :func:`classify` answers ``None`` for them.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from judge import languages
from judge.candidates.extract import escape_surrogates
from judge.engine.verdicts import TestResult, Verdict
from judge.sandbox import records as R
from judge.sandbox.base import Job, JobReport

#: every string taken from a sandbox record is cut to this (an exception type name of
#: megabytes must not be copied into every result)
TEXT_CAP = 500

#: The exception types a runtime raises when an allocation fails, as each language's harness
#: reports them, and what a runtime prints when it dies out of memory without a catchable
#: error (V8's heap cap, Go's runtime, Rust's alloc error handler, the JVM outside the
#: harness): each language declares its own (``Language.allocation_errors``,
#: ``Language.oom_markers``). A marker is only read beside a measurement: a death with one
#: of them while the candidate held at least ``RUNTIME_HEAP_SHARE`` of the memory limit (the
#: runtimes' heaps are capped a little below it) is memory_limit; the same text printed by a
#: program using little memory is not.
RUNTIME_HEAP_SHARE = 0.5

_OUTPUT_STATUSES = frozenset({R.RETURNED, R.RAISED, R.EXITED, R.UNENCODABLE, R.MALFORMED})


def text(value: Any, cap: int = TEXT_CAP) -> str:
    """A string from a record, as text that can be written anywhere: capped, lone
    surrogates escaped, and anything that is not a string shown by type."""
    if value is None:
        return ""
    if not isinstance(value, str):
        value = "<%s>" % type(value).__name__ if not isinstance(value, (int, float)) else \
            ("%d" % value if isinstance(value, int) and value.bit_length() < 64 else
             repr(value) if isinstance(value, float) else "<int>")
    value = escape_surrogates(value[: cap * 2])
    return value if len(value) <= cap else value[: cap - 3] + "..."


def int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and \
        abs(value) < 1 << 62 else None


def number(value: Any) -> float:
    """A measurement from a record as a float (0.0 when it is missing or not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value)


def budget_message(job: Job) -> str:
    return ("not run: the candidate's time budget (%.3gs of CPU over its tests) was spent"
            % (job.budget_s or 0.0))


def own_record(record: Mapping[str, Any] | None) -> bool:
    """Did the batch's record arise while its own test ran (the worker's word)?"""
    return bool(record and record.get("own") is True)


def load_failure(record: Mapping[str, Any]) -> bool:
    """Loading is deterministic: a module that failed to load fails every test the same way."""
    return record.get("status") == R.MISSING_FUNCTION or (
        record.get("status") == R.RAISED and record.get("stage") == R.STAGE_LOAD)


def not_run(index: int, earlier: list[TestResult]) -> TestResult:
    """A test with no record: a failure, never a pass (principle 1)."""
    cause = next((t for t in reversed(earlier) if t.verdict is not Verdict.PASS), None)
    if cause is None:
        return TestResult(index, Verdict.RUNTIME_ERROR, 0.0, "no result was reported")
    return TestResult(index, cause.verdict, 0.0, "not run: test %d failed (%s)"
                      % (cause.index, cause.verdict.value))


def budget_spent(index: int, job: Job, spender: bool = False) -> TestResult:
    if spender:
        return TestResult(index, Verdict.TIMEOUT, 0.0, (
            "not run alone: the candidate's time budget (%.3gs of CPU over its tests) was "
            "spent while this test ran after the earlier ones in one child"
            % (job.budget_s or 0.0)))
    return TestResult(index, Verdict.TIMEOUT, 0.0, budget_message(job))


Classified = tuple[Verdict, "str | None"]


def classify(record: Mapping[str, Any], index: int, job: Job,
             oom_killed: bool = False) -> Classified | None:
    """The verdict and message of one test's record, or None when the test returned a value
    the judge must compare. ``oom_killed``: the engine saw an out-of-memory kill during the
    job (a container's)."""
    status = record.get("status")
    limits = job.limits
    if record.get("output_capped") and status in _OUTPUT_STATUSES:
        # the output cap was reached, whatever the test did after (ignored SIGXFSZ and
        # raised on EFBIG, or tried to truncate its output away): that is what happened
        return Verdict.OUTPUT_LIMIT, "printed more than %d KiB" % limits.output_kb
    if status == R.RETURNED:
        return None
    if status == R.RAISED:
        return _raised(record, job)
    if status == R.MISSING_FUNCTION:
        defined = record.get("defined")
        defined = defined[:8] if isinstance(defined, list) else []
        hint = " (defined: %s)" % ", ".join(text(d, 80) for d in defined) if defined else ""
        return Verdict.COMPILE_ERROR, "function %r is not defined%s" % (job.function, hint)
    if status == R.UNENCODABLE:
        return (Verdict.WRONG_ANSWER, "returned a value that cannot be judged: %s"
                % text(record.get("message")))
    if status == R.VALUE_TOO_LARGE:
        return (Verdict.OUTPUT_LIMIT, "returned a value of %s bytes, over the %d KiB cap"
                % (int_or_none(record.get("size")), limits.value_kb))
    if status == R.BUDGET_SPENT:
        return Verdict.TIMEOUT, budget_message(job)
    if status == R.TIMEOUT:
        return _timeout(record, index, job)
    if status == R.MEMORY:
        return Verdict.MEMORY_LIMIT, "used more than %d MiB" % limits.memory_mb
    if status == R.SIGNALED:
        return _signaled(record, index, job, oom_killed)
    if status == R.EXITED:
        died = _runtime_out_of_memory(record, job)
        if died is not None:
            return died
        return (Verdict.RUNTIME_ERROR, "the process exited (status %s) before returning a "
                "result%s" % (int_or_none(record.get("exit_code")), _said(record)))
    if status == R.MALFORMED:
        return Verdict.RUNTIME_ERROR, text(record.get("message")) or "malformed result"
    if status == R.SPOILED:  # set-up failed after the candidate's earlier tests ran
        return Verdict.RUNTIME_ERROR, text(record.get("message"))
    if status == R.SETUP_ERROR:
        return Verdict.SANDBOX_ERROR, "sandbox setup failed: %s" % text(record.get("message"))
    return Verdict.SANDBOX_ERROR, "unknown record status %r" % (text(status, 40),)


def _timeout(record: Mapping[str, Any], index: int, job: Job) -> Classified:
    limits = job.limits
    if record.get("starved") and record.get("limit") == R.LIMIT_WALL:
        # stopped by the wall clock's hard cap while its own time (less the time it waited
        # for a CPU) was within the limit: the machine's load, not the candidate (retried)
        return (Verdict.SANDBOX_ERROR, "the machine was too loaded to judge this test (it "
                "waited %.3gs for a CPU)" % float(record.get("waited_s") or 0.0))
    if record.get("budget_s") is not None:
        if record.get("limit") == R.LIMIT_WALL:
            wall = limits.budget_wall(job.budget_s or 0.0)
            return (Verdict.TIMEOUT, "exceeded the candidate's wall-clock budget (%.3gs "
                    "computing or blocked over its tests)" % wall)
        return (Verdict.TIMEOUT, "exceeded the candidate's time budget (%.3gs of CPU over its "
                "tests)" % (job.budget_s or 0.0))
    spec = job.tests[index]
    if record.get("limit") == R.LIMIT_CPU:
        return Verdict.TIMEOUT, "exceeded the CPU time limit of %.3gs" % spec.time_limit_s
    return Verdict.TIMEOUT, "exceeded the wall-clock limit of %.3gs" % spec.wall_limit_s


def _raised(record: Mapping[str, Any], job: Job) -> Classified:
    exc_type = text(record.get("exc_type"), 100)
    line = int_or_none(record.get("line"))
    where = " at line %s" % line if line else ""
    detail = text(record.get("message"))
    said = "%s%s%s" % (exc_type, where, ": %s" % detail if detail else "")
    if record.get("stage") == R.STAGE_LOAD:
        if record.get("import_error"):
            return Verdict.COMPILE_ERROR, "import failed: " + said
        return Verdict.RUNTIME_ERROR, "while loading the module: " + said
    if exc_type in languages.allocation_errors():
        if record.get("process_limit"):
            # the runtime calls a thread it could not start "out of memory" (the JVM's
            # "unable to create native thread"): the sandbox counted the processes
            return (Verdict.RUNTIME_ERROR, "could not start a thread or process: the limit "
                    "of processes was reached (%s)" % said)
        return Verdict.MEMORY_LIMIT, "%s%s" % (exc_type, where)
    return Verdict.RUNTIME_ERROR, said


#: the share of the CPU limit a SIGXCPU death must have measured to be the kernel's: the
#: rlimit's clock can run ahead of the measured CPU time on a loaded VM (a C++ program killed
#: at its 25 s rlimit measured 23.5 s, for a 24 s limit); a program that sends itself the
#: signal later than this gains a timeout instead of a runtime_error, never a pass
KERNEL_CPU_DRIFT = 0.9


def signal_verdict(record: Mapping[str, Any], output_kb: int, time_limit_s: float,
                   oom_killed: bool) -> Classified | None:
    """The verdict of a death by a signal that a limit may have sent (an OOM kill, SIGXFSZ,
    SIGXCPU), decided from what was measured, never from the signal alone: a program can send
    itself any of them. The same rule for a function's test and a whole program's run; None
    for any other signal."""
    name = text(record.get("signal"), 40)
    if name == "SIGKILL" and (record.get("oom_kill") or oom_killed):
        return Verdict.MEMORY_LIMIT, "killed by the out-of-memory killer"
    if name == "SIGXFSZ":
        # the kernel sends it to a write past the file size limit, a process can send it to
        # itself: only output or a file at the limit (the worker looked) says which
        if record.get("output_capped") or record.get("file_capped"):
            return (Verdict.OUTPUT_LIMIT, "wrote more than %d KiB (output or file size limit)"
                    % output_kb)
        return (Verdict.RUNTIME_ERROR, "killed by SIGXFSZ with no output or file at the %d KiB "
                "limit (the program sent it)" % output_kb)
    if name == "SIGXCPU":
        # the kernel sends it past the CPU rlimit (above the test's limit); a process can
        # also send it to itself: only the clock says which
        cpu = number(record.get("cpu_s"))
        if cpu >= time_limit_s * KERNEL_CPU_DRIFT:
            return (Verdict.TIMEOUT, "exceeded the CPU time limit of %.3gs (SIGXCPU)"
                    % time_limit_s)
        return (Verdict.RUNTIME_ERROR, "killed by SIGXCPU after %.3gs of CPU, under the "
                "%.3gs limit (the program sent it)" % (cpu, time_limit_s))
    return None


def _signaled(record: Mapping[str, Any], index: int, job: Job,
              oom_killed: bool) -> Classified:
    name = text(record.get("signal"), 40)
    decided = signal_verdict(record, job.limits.output_kb, job.tests[index].time_limit_s,
                             oom_killed)
    if decided is not None:
        return decided
    died = _runtime_out_of_memory(record, job)
    if died is not None:
        return died
    return Verdict.RUNTIME_ERROR, "killed by %s%s" % (name, _said(record))


def _runtime_out_of_memory(record: Mapping[str, Any], job: Job) -> Classified | None:
    return runtime_out_of_memory(record, job.limits.memory_mb)


def runtime_out_of_memory(record: Mapping[str, Any], memory_mb: int) -> Classified | None:
    """memory_limit for a runtime that died out of memory, measured: it held at least its
    share of the limit when it died, and said why; None otherwise (a function's test or a
    whole program's run: the JVM's OutOfMemoryError, V8's heap limit...)."""
    said = record.get("stderr_head")  # the head of what it printed (8 KiB)
    if not isinstance(said, str):
        return None
    peak = number(record.get("maxrss_bytes"))
    if peak < RUNTIME_HEAP_SHARE * memory_mb * (1 << 20):
        return None
    if not any(marker in said for marker in languages.oom_markers()):
        return None
    return (Verdict.MEMORY_LIMIT, "ran out of memory (%d MiB of the %d MiB limit)"
            % (peak // (1 << 20), memory_mb))


def _said(record: Mapping[str, Any]) -> str:
    said = record.get("stderr_head")
    if not isinstance(said, str) or not said.strip():
        return ""
    return ": " + text(said.strip()[-300:], 300)


def verdicts(total: int, report: JobReport, job: Job,
             returned: Callable[[int, Mapping[str, Any]], TestResult],
             earlier: list[TestResult] | dict[int, TestResult] | None = None
             ) -> list[TestResult]:
    """One verdict per test, from the report's records. ``returned`` judges a record whose
    test returned a value (the comparison). ``earlier`` are verdicts judged already (taken
    as they are): a list for the tests before ``job.first_test``, or a dict by index for
    every test the job does not run (``job.only``)."""
    if report.infra_error:
        return [TestResult(i, Verdict.SANDBOX_ERROR, 0.0, text(report.infra_error, 2000))
                for i in range(total)]
    if not report.compiled:
        line = int_or_none(report.compile_line)
        where = " (line %s)" % line if line else ""
        message = "%s%s" % (text(report.compile_error), where)
        return [TestResult(i, Verdict.COMPILE_ERROR, 0.0, message) for i in range(total)]
    taken = earlier if isinstance(earlier, dict) else dict(enumerate(earlier or []))
    results: list[TestResult] = []
    for index in range(total):
        if index in taken:
            results.append(taken[index])
            continue
        record = report.records.get(index)
        if record is not None:
            found = classify(record, index, job, bool(report.oom_killed))
            if found is None:
                results.append(returned(index, record))
            else:
                results.append(TestResult(index, found[0], number(record.get("cpu_s")),
                                          found[1]))
        elif report.died_during == index:
            results.append(TestResult(index, Verdict.RUNTIME_ERROR, 0.0,
                                      "the sandbox worker died during this test: %s"
                                      % (text(report.died_reason, 2000) or "no reason given")))
        else:
            results.append(not_run(index, results))
    return results


def describe_status(status: str) -> str | None:
    """What a record status means, in a few words (None for a status outside the
    vocabulary)."""
    return _MEANINGS.get(status)


_MEANINGS = {
    R.RETURNED: "returned a value (compared by the judge)",
    R.RAISED: "raised an exception",
    R.MISSING_FUNCTION: "the function is not defined",
    R.UNENCODABLE: "returned a value that cannot cross the sandbox boundary",
    R.VALUE_TOO_LARGE: "returned a value over the value cap",
    R.SETUP_ERROR: "the sandbox could not set the test up",
    R.EXITED: "the process exited without a result",
    R.SIGNALED: "the process was killed by a signal",
    R.TIMEOUT: "stopped at a time limit",
    R.MEMORY: "stopped over the memory limit",
    R.MALFORMED: "wrote something that is not a result record",
    R.SPOILED: "set-up failed after the candidate's earlier tests ran",
    R.BUDGET_SPENT: "not run: the candidate's time budget was spent",
}
