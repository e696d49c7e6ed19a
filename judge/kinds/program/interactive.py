"""Interactive and multi-pass program problems: each test's candidate run joined to the
problem's validator (``judge.engine.interaction``), pass after pass.

- **interactive**: the candidate and the interactor run at once, joined by the judge's relay;
  the candidate gets nothing of the test (no input file, no arguments), the interactor gets
  ``input answer feedback_dir/ [flags]``.
- **multi-pass**: a pass that the validator accepts while it leaves ``nextpass.in`` in its
  feedback folder asks for another pass, with that file as the next input (the candidate's
  standard input, or the interactor's input file), up to ``validation_passes``; the feedback
  folder is kept from one pass to the next (the validator's state). A validator that still
  asks for a pass after the last one is a problem error, as in problemtools.

A test's time is its slowest pass's CPU time. Under the contest rule the tests after the
first failure are not run.
"""

from __future__ import annotations

import base64
import time
from dataclasses import replace
from typing import Any

from judge import languages
from judge.engine.checkers.base import ProgramCheck
from judge.engine.checkers.validator import (ANSWER, DEFAULT_OUTPUT_KB, FEEDBACK, INPUT,
                                             VALIDATOR_MEMORY_MB, VALIDATOR_TIME_S)
from judge.engine.checkers.testlib_interactor import TestlibInteractor, tout_too_large
from judge.engine.compile_step import finish_compile, sandbox_job
from judge.engine.interaction import (interact, interactor_run, kattis_reading, kept_files,
                                      run_unadmitted, verdict)
from judge.engine.program_inputs import _file_stream, _test_spec
from judge.engine.program_verdicts import (cut, program_output, run_verdict, validator_run,
                                           validator_sources, validator_verdict)
from judge.engine.verdicts import CandidateResult, TestResult, Verdict, overall
from judge.kinds.program.scoring import add_score
from judge.languages.programs import SCRIPT, program_language
from judge.sandbox.base import JobReport, Limits
from judge.sandbox.streams import InputStream

NEXTPASS = "nextpass.in"


class _Validator:
    """The problem's validator (interactor), its language, sources and limits."""

    #: how its exit reads (Kattis: 42 accepts, 43 rejects); no checker reads what it wrote
    read = staticmethod(kattis_reading)
    checks_tout = False

    def __init__(self, engine: Any, problem: Any) -> None:
        self.error: str | None = None
        path = problem.validator_path()
        if path is None or not path.exists():
            self.error = "not found (%s)" % path
            return
        language = problem.checker.validator_language or program_language(path)
        try:
            self.lang = languages.named_in("kattis", language) \
                if language not in (None, SCRIPT) else None
        except ValueError:
            self.lang = None
        if self.lang is None:
            self.error = "cannot run a validator in %s" % (language or "an unknown language")
            return
        own, run = problem.validator_limits, engine.limits
        output_kb = min(own.output_kb or DEFAULT_OUTPUT_KB,
                        max(DEFAULT_OUTPUT_KB, run.max_problem_output_kb))
        self.limits = replace(run, memory_mb=min(own.memory_mb or VALIDATOR_MEMORY_MB,
                                                 max(VALIDATOR_MEMORY_MB,
                                                     run.max_problem_memory_mb)),
                              output_kb=output_kb, value_kb=max(run.value_kb, output_kb + 64),
                              nproc=max(run.nproc, self.lang.nproc), budget_s=None)
        self.time_s = min(own.time_limit_s or VALIDATOR_TIME_S,
                          max(VALIDATOR_TIME_S, run.max_problem_time_s)) + self.lang.startup_s
        try:
            self.sources = validator_sources(path)
        except (OSError, ValueError) as exc:
            self.error = "cannot be built: %s" % exc

    def job(self, engine: Any, problem: Any, specs: list[dict[str, Any]],
            streams: list[InputStream]) -> Any:
        return sandbox_job("validator-" + problem.identifier, self.lang, self.sources, specs,
                           self.limits, self.time_s, engine.compile_cache, engine.sandbox.name,
                           confidential=True, streams=streams)

    def spec(self, problem: Any, test: Any, given: bytes | None, feedback: dict[str, bytes],
             streams: list[InputStream], relay: bool, output: bytes | None = None
             ) -> dict[str, Any]:
        """A validator run on one pass: the pass's input (``given``, else the test's), the
        answer, the feedback folder as the last pass left it."""
        files: dict[str, int] = {}
        input_path = test.input_path()
        if given is None and input_path is not None:
            files[INPUT] = _file_stream(input_path, streams)
        else:
            data = given if given is not None else test.run_input().stdin
            streams.append(InputStream(len(data), data=data))
            files[INPUT] = len(streams) - 1
        answer = test.answer_path()
        if answer is not None:
            files[ANSWER] = _file_stream(answer, streams)
        else:
            data = test.expected_output() or b""
            streams.append(InputStream(len(data), data=data))
            files[ANSWER] = len(streams) - 1
        flags = problem.checker_for(test).validator_flags
        spec: dict[str, Any] = {"file_streams": files, "feedback": FEEDBACK,
                                "argv": [INPUT, ANSWER, FEEDBACK + "/", *flags]}
        if relay:
            spec["relay"] = True
        else:
            spec["stdin"] = base64.b64encode(output or b"").decode("ascii")
        if problem.multi_pass:
            spec["feedback_keep"] = True
            spec["feedback_files"] = {name: base64.b64encode(data).decode("ascii")
                                      for name, data in feedback.items()}
        return spec


def judge_passes(judge: Any, problem: Any, submission: Any, lang: Any,
                 sources: dict[str, str], digest: str, limits: Limits, time_s: float,
                 stop: bool, started: float, **meta: Any) -> CandidateResult:
    """Judge an interactive or multi-pass problem (see the module doc)."""
    engine = judge.engine
    total = len(problem.tests)

    def result(tests: list[TestResult], errors: list[str], info: dict[str, Any] | None = None
               ) -> CandidateResult:
        final = overall(tests)
        message = next((t.message for t in tests if t.verdict is final and t.message), None)
        out = CandidateResult(problem.identifier, final, tests, engine.sandbox.name,
                              time.monotonic() - started, message=message, **meta)
        out.set(language=lang.name, kind="program", time_limit_s=round(time_s, 3),
                contest_rule=stop)
        if info and "compile_s" in info:
            out.compile_s = info["compile_s"]
            out.compile_cached = bool(info.get("cached"))
        if errors:
            out.problem_errors = errors
        add_score(problem, out)
        return out

    def all_tests(verdict_: Verdict, message: str) -> list[TestResult]:
        return [TestResult(i, verdict_, 0.0, message) for i in range(total)]

    # compile both first: neither waits, its wall clock running, for the other's compiler
    job, build, key = sandbox_job(digest, lang, sources, [], limits, time_s, judge.cache,
                                  engine.sandbox.name)
    compiled = finish_compile(lang, build, key, engine.sandbox.run(job), judge.cache)
    if compiled.infra_error:
        return result(all_tests(Verdict.SANDBOX_ERROR, cut(compiled.infra_error, 2000)), [])
    if not compiled.compiled:
        where = " (line %s)" % compiled.compile_line if compiled.compile_line else ""
        return result(all_tests(Verdict.COMPILE_ERROR, "%s%s" % (
            cut(str(compiled.compile_error or "compilation failed"), 2000), where)), [])
    info = compiled.compile_info
    # a testlib interactor (judge.engine.checkers.testlib_interactor), else the Kattis one
    validator: Any = TestlibInteractor(engine, problem) if problem.checker.type == "testlib" \
        else _Validator(engine, problem)
    what = "interactor" if problem.interactive else "output validator"
    if validator.error is None:
        vjob, vbuild, vkey = validator.job(engine, problem, [], [])
        vreport = finish_compile(validator.lang, vbuild, vkey, run_unadmitted(engine.sandbox,
                                                                              vjob),
                                 engine.compile_cache)
        if vreport.infra_error:
            return result(all_tests(Verdict.SANDBOX_ERROR, "%s not built: %s" % (
                what, cut(vreport.infra_error, 300))), [], info)
        if not vreport.compiled:
            validator.error = "does not compile: %s" % cut(str(vreport.compile_error), 300)
    if validator.error is not None:
        message = "%s failed: %s" % (what, validator.error)
        return result(all_tests(Verdict.WRONG_ANSWER, message), [message], info)

    tests: list[TestResult] = []
    errors: list[str] = []
    failed: TestResult | None = None
    touts: dict[int, bytes] = {}  # what accepting testlib interactors wrote, for the checker
    for index, test in enumerate(problem.tests):
        if failed is not None and stop:
            tests.append(TestResult(index, failed.verdict, 0.0, "not run: test %d failed (%s)"
                                    % (failed.index + 1, failed.verdict.value)))
            continue
        name = test.name or str(index + 1)
        kept: list[bytes] = []
        check, seconds = _one_test(judge, problem, test, name, lang, sources, digest, limits,
                                   time_s, validator, kept)
        if check.problem_error:
            errors.append(check.problem_error)
        tests.append(TestResult(index, check.verdict, seconds, check.message,
                                score=check.score, points=check.points))
        if kept:
            touts[index] = kept[0]
        if check.verdict is not Verdict.PASS and failed is None:
            failed = tests[-1]
    if touts:  # the testlib checker on each tout (Polygon: checker input tout answer)
        for index, check in sorted(validator.check_touts(engine, problem, touts, stop).items()):
            if check.problem_error:
                errors.append(check.problem_error)
            tests[index] = TestResult(index, check.verdict, tests[index].time_s, check.message,
                                      score=check.score, points=check.points)
    return result(tests, errors, info)


def _one_test(judge: Any, problem: Any, test: Any, name: str, lang: Any,
              sources: dict[str, str], digest: str, limits: Limits, time_s: float,
              validator: Any, kept: list[bytes]) -> tuple[ProgramCheck, float]:
    """One test's verdict and time; ``kept`` gets the tout of an accepting testlib
    interactor whose problem has a checker (the checker decides the test later)."""
    engine = judge.engine
    passes = problem.validation_passes if problem.multi_pass else 1
    given: bytes | None = None
    feedback: dict[str, bytes] = {}
    slowest = 0.0
    for number in range(1, passes + 1):
        streams: list[InputStream] = []
        if problem.interactive:
            spec: dict[str, Any] = {"relay": True}
        elif given is None:
            spec = _test_spec(test, streams)
        else:
            spec = {"stdin": base64.b64encode(given).decode("ascii")}
        cjob, build, key = sandbox_job(digest, lang, sources, [spec], limits, time_s,
                                       judge.cache, engine.sandbox.name, streams=streams)
        vstreams: list[InputStream] = []
        if problem.interactive:
            vspec = validator.spec(problem, test, given, feedback, vstreams, relay=True)
            vjob, _, _ = validator.job(engine, problem, [vspec], vstreams)
            grace = min(validator.time_s, 2 * time_s + 1.0)
            creport, vreport, relay = interact(engine.sandbox, cjob, vjob, grace)
            creport = finish_compile(lang, build, key, creport, judge.cache)
            first = relay.order[0] if relay.order else None
            killed = relay.killed_interactor
        else:
            creport = finish_compile(lang, build, key, engine.sandbox.run(cjob), judge.cache)
            vreport, first, killed = JobReport(sandbox=engine.sandbox.name), None, False
        for report, who in ((creport, "the candidate"), (vreport, "the " + (
                "interactor" if problem.interactive else "output validator"))):
            if report.infra_error:
                return ProgramCheck(Verdict.SANDBOX_ERROR, "test %s: %s not run: %s" % (
                    name, who, cut(report.infra_error, 300))), slowest
        record = creport.records.get(0)
        if record is None:
            why = creport.died_reason if creport.died_during == 0 else "no result was reported"
            return ProgramCheck(Verdict.RUNTIME_ERROR, "test %s: %s" % (
                name, cut(str(why or "no result was reported")))), slowest
        slowest = max(slowest, float(record.get("cpu_s") or 0.0))
        ended = run_verdict(record, limits, time_s, creport)
        if problem.interactive:
            run = interactor_run(vreport)
            check = verdict(ended, run, first, killed, name, validator.read)
            if validator.checks_tout and check.verdict is Verdict.PASS and check.score is None:
                tout = validator.tout(vreport)
                if tout is None:
                    return tout_too_large(name), slowest
                kept.append(tout)
        else:
            if ended is not None:
                return ProgramCheck(ended[0], "test %s: %s" % (name, ended[1])), slowest
            vspec = validator.spec(problem, test, given, feedback, vstreams, relay=False,
                                   output=program_output(record))
            vjob, vbuild, vkey = validator.job(engine, problem, [vspec], vstreams)
            vreport = finish_compile(validator.lang, vbuild, vkey,
                                     run_unadmitted(engine.sandbox, vjob), engine.compile_cache)
            if vreport.infra_error:
                return ProgramCheck(Verdict.SANDBOX_ERROR, "test %s: output validator not "
                                    "run: %s" % (name, cut(vreport.infra_error, 300))), slowest
            died = vreport.died_reason if vreport.died_during == 0 else None
            check = validator_verdict(validator_run(vreport.records.get(0), died), name)
        if check.verdict is not Verdict.PASS or check.problem_error or not problem.multi_pass:
            return check, slowest
        kept = kept_files(vreport)
        if kept is None:
            message = "test %s: validator failed: its feedback folder is larger than its " \
                      "output limit" % name
            return ProgramCheck(Verdict.WRONG_ANSWER, message, message), slowest
        if NEXTPASS not in kept:
            return check, slowest
        given = kept.pop(NEXTPASS)
        feedback = kept
    message = "test %s: validator failed: no verdict within %d passes (it still wrote %s)" % (
        name, passes, NEXTPASS)
    return ProgramCheck(Verdict.WRONG_ANSWER, message, message), slowest


__all__ = ["judge_passes"]
