"""Judging test programs: the candidate's code and the problem's tests assembled in the
problem's language (:func:`judge.languages.frameworks.assemble`), compiled once and run once
in the sandbox with the usual limits, no input.

The verdict: ``compile_error`` when it does not compile; the run's own verdict when it ended
badly (``timeout``, ``memory``, ``output_limit``, a crash); a run that exited non-zero is
``wrong_answer`` (a test failed: the failing assertion or test name from its output in the
message); a run that exited 0 passes only when the guard's line (a nonce made for this run,
printed by the judge's code after the last test or by the framework's hook) is in its output,
else ``wrong_answer`` ("the tests did not finish"). A framework's per-test results go into the
result's ``test_results``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import time
from dataclasses import replace
from typing import Any

from judge import languages
from judge.engine.compile_step import finish_compile, sandbox_job
from judge.engine.engine import Engine
from judge.engine.program_verdicts import cut, program_output, run_verdict
from judge.engine.verdicts import CandidateResult, TestResult, Verdict
from judge.kinds.base import KindJudge
from judge.languages.frameworks import assemble, test_results
from judge.problem.test_program import TestProgramProblem
from judge.sandbox import records

#: the default memory and output of a test program's run (the run's own when larger)
DEFAULT_MEMORY_MB = 1024
DEFAULT_OUTPUT_KB = 8192
#: characters of a failure's output quoted in the message
QUOTE = 600

#: lines that say what failed, best first: an exception's own line, then an assertion's
_RAISED = re.compile(r"^(?:Exception in thread \S+ )?(?:[\w.$]*(?:Error|Exception|Failure)\b"
                     r"(?::.*)?|thread '.*' panicked at .*|panic: .*|Error: .*)$")
_FAILED = re.compile(r".*(?:Assertion .*failed|assertion failed|Error Trace:|Not equal|"
                     r"--- FAIL: |FAILED |expected|Expected).*", re.I)
_VALUES = re.compile(r"expected|but was|actual", re.I)
_HEADER = re.compile(r"^(?:failed tests:?|failures?:?|=+ ?failures ?=+)$", re.I)
_ASSERT_LINE = re.compile(r"^\s*(?:assert\b|console\.assert\b|assert_eq!|assert!).*")


def failure_message(stdout: str, stderr: str, code: int | None) -> str:
    """What failed: the exception's line (with a Python traceback's failing ``assert``
    line), else the first line that says an assertion failed, else the output's tail."""
    how = "exit code %s" % code if code is not None else "aborted"
    for text in (stderr, stdout):
        lines = [line.strip() for line in text.splitlines() if line.strip()
                 and "JUDGE-TESTS-DONE" not in line]
        raised = [line for line in lines if _RAISED.match(line)]
        failed = [line for line in lines if _FAILED.match(line)]
        # a framework's header ("Failed tests:", LuaUnit's) after the line with the values
        failed.sort(key=lambda line: _HEADER.match(line) is not None)
        if "Traceback (most recent call last)" in text and raised:
            source = [line for line in lines if _ASSERT_LINE.match(line)]
            said = raised[-1] + (" in: %s" % source[-1] if source else "")
        elif raised:
            said = raised[0]
            values = [line for line in failed if _VALUES.search(line) and line != said]
            if values:  # Test::Unit's "Failure: test_x(...)" and its "<1> expected but was <2>"
                said += " (%s)" % values[0]
        elif failed:
            said = failed[0]
        else:
            continue
        return cut("test failed (%s): %s" % (how, said), QUOTE)
    tail = (stderr.strip() or stdout.strip())[-QUOTE:]
    return cut("test failed (%s)%s" % (how, ": " + tail if tail else ""), QUOTE)


class TestProgramJudge(KindJudge):
    """Judges test programs on one engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def judge(self, problem: TestProgramProblem, submission: Any,
              **meta: Any) -> CandidateResult:
        started = time.monotonic()
        nonce = secrets.token_hex(12)
        assembly = assemble(problem.language, problem.framework, submission.code,
                            problem.tests, nonce, problem.test_file)
        lang = languages.get(assembly.language)
        sources = {(lang.program_file(text) if name == "__main__" else name): text
                   for name, text in assembly.sources.items()}
        base = self.engine.limits
        own = problem.limits
        time_s = min(own.time_limit_s or base.time_limit_s, base.max_problem_time_s)
        output_kb = min(own.output_kb or max(base.output_kb, DEFAULT_OUTPUT_KB),
                        base.max_problem_output_kb)
        memory_mb = min(own.memory_mb or max(base.memory_mb, DEFAULT_MEMORY_MB),
                        base.max_problem_memory_mb) + lang.memory_headroom_mb
        limits = replace(base, memory_mb=memory_mb, output_kb=output_kb,
                         value_kb=max(base.value_kb, output_kb + 64),
                         nproc=max(base.nproc, lang.nproc), nofile=max(base.nofile, lang.nofile))
        time_s += lang.startup_s
        flags = dict(assembly.build_flags, **({"libraries": True} if problem.libraries else {}))
        built = _Flagged(lang, flags) if flags else lang
        digest = hashlib.sha256(json.dumps(sources, sort_keys=True).encode(
            "utf-8", "surrogatepass")).hexdigest()[:16]
        spec = {"stdin": base64.b64encode(b"").decode("ascii"), "argv": [], "files": {}}
        report = None
        for attempt in range(2):  # our failure is retried once
            job, build, key = sandbox_job(digest, built, sources, [spec], limits, time_s,
                                          self.engine.compile_cache, self.engine.sandbox.name)
            report = finish_compile(built, build, key, self.engine.sandbox.run(job),
                                    self.engine.compile_cache)
            if report.infra_error is None and report.died_during is None:
                break
        assert report is not None
        test, details = self._verdict(problem, assembly, report, limits, time_s)
        result = CandidateResult(problem.identifier, test.verdict, [test], report.sandbox,
                                 time.monotonic() - started, message=test.message, **meta)
        result.set(language=problem.language, kind="test_program",
                   framework=problem.framework, time_limit_s=round(time_s, 3))
        if details:
            result.set(test_results=[{"name": n, "passed": p, **({"message": m} if m else {})}
                                     for n, p, m in details[:1000]])
        notes = [n for n in (submission.note, assembly.unguarded and
                             "unguarded: " + assembly.unguarded) if n]
        if notes:
            result.note = "; ".join(notes)
        info = report.compile_info or {}
        if "compile_s" in info:
            result.compile_s = info["compile_s"]
            result.compile_cached = bool(info.get("cached"))
        return result

    def _verdict(self, problem: TestProgramProblem, assembly: Any, report: Any, limits: Any,
                 time_s: float) -> tuple[TestResult, list[tuple[str, bool, str]]]:
        if report.infra_error:
            return TestResult(0, Verdict.SANDBOX_ERROR, 0.0, cut(report.infra_error, 2000)), []
        if not report.compiled:
            where = " (line %s)" % report.compile_line if report.compile_line else ""
            return TestResult(0, Verdict.COMPILE_ERROR, 0.0, "%s%s" % (
                cut(str(report.compile_error or "compilation failed"), 2000), where)), []
        record = report.records.get(0)
        if record is None:
            why = report.died_reason or "no result was reported"
            return TestResult(0, Verdict.RUNTIME_ERROR, 0.0,
                              "the sandbox worker died during the tests: %s" % cut(str(why))), []
        seconds = float(record.get("cpu_s") or 0.0)
        stdout = program_output(record).decode("utf-8", "replace")
        stderr = str(record.get("stderr_head") or "") + str(record.get("stderr_tail") or "")
        details = test_results(problem.framework, stdout)
        ended = run_verdict(record, limits, time_s, report)
        exited = record.get("status") == records.EXITED
        code = record.get("exit_code")
        if ended is not None and _assertion_abort(record, stderr):
            # a C/C++/D assert(): the test failed, in its own words
            return TestResult(0, Verdict.WRONG_ANSWER, seconds,
                              failure_message(stdout, stderr, None)), details
        if ended is not None and not (exited and ended[0] is Verdict.RUNTIME_ERROR):
            return TestResult(0, ended[0], seconds, ended[1]), details
        if not exited or code != 0:
            failed = [name for name, passed, _ in details if not passed]
            message = failure_message(stdout, stderr, code)
            if failed:
                message = cut("failed: %s; %s" % (", ".join(failed[:5]), message), QUOTE)
            return TestResult(0, Verdict.WRONG_ANSWER, seconds, message), details
        if assembly.marker is not None and not _marker_line(assembly.marker, stdout):
            return TestResult(0, Verdict.WRONG_ANSWER, seconds,
                              "the tests did not finish: the program exited 0 before the "
                              "judge's check after the last test (an early exit?)"), details
        if problem.framework and details and not all(passed for _, passed, _ in details):
            failed = [name for name, passed, _ in details if not passed]
            return TestResult(0, Verdict.WRONG_ANSWER, seconds,
                              cut("failed: %s" % ", ".join(failed[:5]), QUOTE)), details
        return TestResult(0, Verdict.PASS, seconds), details


def _assertion_abort(record: dict[str, Any], stderr: str) -> bool:
    """A run killed by SIGABRT after an ``assert`` said it failed."""
    return str(record.get("signal") or "") in ("SIGABRT", "6") and \
        bool(re.search(r"Assertion .*failed|assertion failed", stderr, re.I))


def _marker_line(marker: str, stdout: str) -> bool:
    """The guard's line (a framework's hook adds its counts: pytest's must say every test
    passed)."""
    for line in stdout.splitlines():
        line = line.strip()
        if line == marker or line.endswith(marker):
            return True
        if line.startswith(marker + " "):
            fields = dict(part.split("=", 1) for part in line[len(marker) + 1:].split()
                          if "=" in part)
            return fields.get("exit") == "0" and fields.get("failed") == "0" and \
                fields.get("passed", "0") != "0"
    return False


class _Flagged:
    """A language built with the assembly's flags (Java with assertions on)."""

    def __init__(self, lang: Any, flags: dict[str, Any]) -> None:
        self._lang, self._flags = lang, dict(flags)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lang, name)

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Any:
        return self._lang.program_build(sources, memory_mb, **self._flags)


__all__ = ["TestProgramJudge", "failure_message"]
