"""Records to verdicts (judge.engine.classify), table-tested: for each record a worker can
send (or a hostile child can get through it), the verdict that says what happened and the
words its message must hold. Limits are decided by measurements (the worker's status, the
OOM kill, the measured peak, the CPU clock, the process count), never by printed text."""

from __future__ import annotations

import pytest

from judge.engine import classify as C
from judge.engine.verdicts import TestResult as Result
from judge.engine.verdicts import Verdict
from judge.sandbox import records as R
from judge.sandbox.base import Job, JobReport, Limits
from judge.sandbox.base import TestInput as Input

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

LIMITS = Limits(time_limit_s=1.0, memory_mb=256, output_kb=64)
MIB = 1 << 20


def _job(budget_s: float | None = None) -> Job:
    return Job(id="j", code="", function="solve",
               tests=[Input(args=[], time_limit_s=1.0, wall_limit_s=3.0),
                      Input(args=[], time_limit_s=2.0, wall_limit_s=5.0)],
               limits=LIMITS, budget_s=budget_s)


V = Verdict
CASES = [
    # (record, verdict, words in the message); test 0 unless "index" says otherwise
    ({"status": R.RETURNED, "value": 1}, None, []),
    ({"status": R.RETURNED, "value": 1, "output_capped": True}, V.OUTPUT_LIMIT, ["64 KiB"]),
    ({"status": R.RAISED, "exc_type": "ValueError", "message": "bad", "line": 3},
     V.RUNTIME_ERROR, ["ValueError at line 3: bad"]),
    ({"status": R.RAISED, "exc_type": "ValueError", "output_capped": True}, V.OUTPUT_LIMIT, []),
    ({"status": R.RAISED, "stage": R.STAGE_LOAD, "exc_type": "ModuleNotFoundError",
      "import_error": True, "message": "numpyy"}, V.COMPILE_ERROR, ["import failed", "numpyy"]),
    ({"status": R.RAISED, "stage": R.STAGE_LOAD, "exc_type": "ZeroDivisionError"},
     V.RUNTIME_ERROR, ["while loading the module"]),
    # allocation failures the runtime raised: memory_limit (a single huge request included)
    ({"status": R.RAISED, "exc_type": "MemoryError", "maxrss_bytes": 9 * MIB},
     V.MEMORY_LIMIT, ["MemoryError"]),
    ({"status": R.RAISED, "exc_type": "OutOfMemoryError", "message": "Java heap space",
      "maxrss_bytes": 100 * MIB}, V.MEMORY_LIMIT, ["OutOfMemoryError"]),
    ({"status": R.RAISED, "exc_type": "std::bad_alloc"}, V.MEMORY_LIMIT, []),
    # ... but a thread the process limit refused is not memory (issue 22, item 5)
    ({"status": R.RAISED, "exc_type": "OutOfMemoryError", "process_limit": True,
      "message": "unable to create native thread", "tasks_peak": 96},
     V.RUNTIME_ERROR, ["limit of processes", "unable to create native thread"]),
    ({"status": R.MISSING_FUNCTION, "defined": ["helper", "main"]}, V.COMPILE_ERROR,
     ["'solve' is not defined", "helper, main"]),
    ({"status": R.MISSING_FUNCTION, "defined": "not a list"}, V.COMPILE_ERROR, ["'solve'"]),
    ({"status": R.UNENCODABLE, "message": "cannot encode a value of type object"},
     V.WRONG_ANSWER, ["cannot be judged", "object"]),
    ({"status": R.VALUE_TOO_LARGE, "size": 99999999}, V.OUTPUT_LIMIT, ["99999999 bytes"]),
    ({"status": R.BUDGET_SPENT}, V.TIMEOUT, ["budget"]),
    ({"status": R.TIMEOUT, "limit": R.LIMIT_CPU}, V.TIMEOUT, ["CPU time limit of 1s"]),
    ({"status": R.TIMEOUT, "limit": R.LIMIT_CPU, "index": 1}, V.TIMEOUT, ["limit of 2s"]),
    ({"status": R.TIMEOUT, "limit": R.LIMIT_WALL}, V.TIMEOUT, ["wall-clock limit of 3s"]),
    ({"status": R.TIMEOUT, "limit": R.LIMIT_CPU, "budget_s": 4.0}, V.TIMEOUT, ["time budget"]),
    ({"status": R.TIMEOUT, "limit": R.LIMIT_WALL, "budget_s": 4.0}, V.TIMEOUT,
     ["wall-clock budget"]),
    ({"status": R.MEMORY, "maxrss_bytes": 300 * MIB}, V.MEMORY_LIMIT, ["256 MiB"]),
    # signals: the clock decides SIGXCPU (issue 22, item 6)
    ({"status": R.SIGNALED, "signal": "SIGXCPU", "cpu_s": 3.0}, V.TIMEOUT, ["CPU time limit"]),
    ({"status": R.SIGNALED, "signal": "SIGXCPU", "cpu_s": 0.002}, V.RUNTIME_ERROR,
     ["SIGXCPU", "sent it"]),
    ({"status": R.SIGNALED, "signal": "SIGXCPU"}, V.RUNTIME_ERROR, ["SIGXCPU"]),
    ({"status": R.SIGNALED, "signal": "SIGXCPU", "cpu_s": "3.0"}, V.RUNTIME_ERROR, []),
    ({"status": R.SIGNALED, "signal": "SIGXCPU", "cpu_s": 1.5, "index": 1}, V.RUNTIME_ERROR,
     []),
    # the rlimit's clock ran ahead of the measured time (a loaded VM): still the kernel's
    ({"status": R.SIGNALED, "signal": "SIGXCPU", "cpu_s": 1.85, "index": 1}, V.TIMEOUT,
     ["CPU time limit"]),
    ({"status": R.SIGNALED, "signal": "SIGXFSZ", "file_capped": True}, V.OUTPUT_LIMIT,
     ["64 KiB"]),
    ({"status": R.SIGNALED, "signal": "SIGXFSZ", "output_capped": True}, V.OUTPUT_LIMIT, []),
    ({"status": R.SIGNALED, "signal": "SIGXFSZ"}, V.RUNTIME_ERROR, ["SIGXFSZ", "sent it"]),
    ({"status": R.SIGNALED, "signal": "SIGKILL", "oom_kill": True}, V.MEMORY_LIMIT,
     ["out-of-memory killer"]),
    ({"status": R.SIGNALED, "signal": "SIGKILL"}, V.RUNTIME_ERROR, ["SIGKILL"]),
    ({"status": R.SIGNALED, "signal": "SIGSEGV", "stderr_head": "boom\n"}, V.RUNTIME_ERROR,
     ["SIGSEGV: boom"]),
    # a runtime's out-of-memory death, measured: memory_limit only at its share of the limit
    ({"status": R.SIGNALED, "signal": "SIGABRT", "maxrss_bytes": 200 * MIB,
      "stderr_head": "FATAL ERROR: Reached heap limit JavaScript heap out of memory"},
     V.MEMORY_LIMIT, ["ran out of memory", "200 MiB"]),
    ({"status": R.EXITED, "exit_code": 2, "maxrss_bytes": 250 * MIB,
      "stderr_head": "fatal error: runtime: out of memory"}, V.MEMORY_LIMIT, []),
    # ... the same words printed by a program that holds little are not (issue 22, item 5)
    ({"status": R.EXITED, "exit_code": 1, "maxrss_bytes": 3 * MIB,
      "stderr_head": "std::bad_alloc"}, V.RUNTIME_ERROR, ["status 1", "std::bad_alloc"]),
    ({"status": R.SIGNALED, "signal": "SIGABRT", "maxrss_bytes": 3 * MIB,
      "stderr_head": "terminate called after throwing an instance of 'std::bad_alloc'"},
     V.RUNTIME_ERROR, ["SIGABRT"]),
    ({"status": R.EXITED, "exit_code": 1, "maxrss_bytes": 250 * MIB,
      "stderr_head": "all good"}, V.RUNTIME_ERROR, []),
    ({"status": R.EXITED, "exit_code": 1, "maxrss_bytes": 250 * MIB,
      "stderr_head": 12}, V.RUNTIME_ERROR, []),
    ({"status": R.EXITED, "exit_code": 0}, V.RUNTIME_ERROR, ["exited (status 0)"]),
    ({"status": R.EXITED, "exit_code": 1 << 70}, V.RUNTIME_ERROR, ["status None"]),
    ({"status": R.EXITED, "output_capped": True}, V.OUTPUT_LIMIT, []),
    ({"status": R.MALFORMED, "message": "malformed result: nope"}, V.RUNTIME_ERROR,
     ["malformed"]),
    ({"status": R.MALFORMED}, V.RUNTIME_ERROR, ["malformed result"]),
    ({"status": R.SPOILED, "message": "could not be set up"}, V.RUNTIME_ERROR, ["set up"]),
    ({"status": R.SETUP_ERROR, "message": "no such file"}, V.SANDBOX_ERROR, ["no such file"]),
    ({"status": "pass"}, V.SANDBOX_ERROR, ["unknown record status"]),
    ({}, V.SANDBOX_ERROR, ["unknown record status"]),
    ({"status": ["returned"]}, V.SANDBOX_ERROR, ["unknown"]),
    # text from a record is capped and safe to write anywhere
    ({"status": R.RAISED, "exc_type": "E" * 10000, "message": "\ud800" * 3},
     V.RUNTIME_ERROR, ["...", "\\ud800"]),
]


@pytest.mark.parametrize("record, verdict, words", CASES,
                         ids=[str(i) for i in range(len(CASES))])
def test_classify(record, verdict, words):
    record = dict(record)
    index = record.pop("index", 0)
    found = C.classify(record, index, _job(4.0 if "budget_s" in record else None))
    if verdict is None:
        assert found is None
        return
    assert found is not None and found[0] is verdict, found
    for word in words:
        assert word in found[1], (word, found[1])
    found[1].encode("utf-8")
    assert len(found[1]) < 1200


def test_an_oom_kill_the_engine_saw_is_memory_limit():
    record = {"status": R.SIGNALED, "signal": "SIGKILL"}
    assert C.classify(record, 0, _job(), oom_killed=True)[0] is V.MEMORY_LIMIT
    assert C.classify(record, 0, _job(), oom_killed=False)[0] is V.RUNTIME_ERROR


def _report(**records) -> JobReport:
    report = JobReport(sandbox="test", compiled=True)
    report.records = {int(k[1:]): v for k, v in records.items()}
    return report


def _compared(index, record):
    return Result(index, V.PASS if record.get("value") == 1 else V.WRONG_ANSWER, 0.1)


def test_verdicts_of_a_job():
    report = _report(t0={"status": R.RETURNED, "value": 1, "cpu_s": 0.25},
                     t1={"status": R.TIMEOUT, "limit": R.LIMIT_CPU, "cpu_s": 2.5})
    tests = C.verdicts(3, report, _job(), _compared)
    assert [t.verdict for t in tests] == [V.PASS, V.TIMEOUT, V.TIMEOUT]
    assert tests[1].time_s == 2.5
    assert tests[2].message == "not run: test 1 failed (timeout)"


def test_a_missing_record_is_never_a_pass():
    tests = C.verdicts(2, _report(), _job(), _compared)
    assert [t.verdict for t in tests] == [V.RUNTIME_ERROR] * 2


def test_the_worker_dying_during_a_test():
    report = _report(t0={"status": R.RETURNED, "value": 1})
    report.died_during, report.died_reason = 1, "killed by the engine"
    tests = C.verdicts(2, report, _job(), _compared)
    assert tests[1].verdict is V.RUNTIME_ERROR and "killed by the engine" in tests[1].message


def test_infrastructure_and_compile_failures_cover_every_test():
    report = _report()
    report.infra_error = "the engine went away"
    assert {t.verdict for t in C.verdicts(3, report, _job(), _compared)} == {V.SANDBOX_ERROR}
    report = _report()
    report.compiled, report.compile_error, report.compile_line = False, "SyntaxError: x", 4
    tests = C.verdicts(2, report, _job(), _compared)
    assert {t.verdict for t in tests} == {V.COMPILE_ERROR}
    assert tests[0].message == "SyntaxError: x (line 4)"


def test_earlier_verdicts_are_taken_as_they_are():
    kept = {0: Result(0, V.PASS, 0.1)}
    report = _report(t1={"status": R.RAISED, "exc_type": "KeyError"})
    tests = C.verdicts(2, report, _job(), _compared, kept)
    assert tests[0] is kept[0] and tests[1].verdict is V.RUNTIME_ERROR


def test_helpers():
    assert C.load_failure({"status": R.MISSING_FUNCTION})
    assert C.load_failure({"status": R.RAISED, "stage": R.STAGE_LOAD})
    assert not C.load_failure({"status": R.RAISED, "stage": R.STAGE_CALL})
    assert C.own_record({"own": True}) and not C.own_record({"own": 1}) and not C.own_record(None)
    assert C.text(None) == "" and C.text(3) == "3" and C.text(1 << 80) == "<int>"
    assert C.text([1]) == "<list>" and C.text("x" * 900).endswith("...")
    assert C.number(True) == 0.0 and C.number("1") == 0.0 and C.number(2) == 2.0
    assert C.budget_spent(1, _job(4.0)).verdict is V.TIMEOUT
    assert "while this test ran" in C.budget_spent(1, _job(4.0), spender=True).message
