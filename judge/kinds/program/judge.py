"""Judging program problems: a whole program per candidate, its standard output checked here.

A candidate's program is compiled once (its language's ``program_build``; the executor's
compile cache keeps the products for its duplicates and retries) and run once per test in
the sandbox, with the test's standard input, arguments and input files, under the test's
limits (``sandbox_job``). Only the inputs go into the sandbox: the candidate's output comes
back bounded and is checked on the judge's side, by the problem's checker
(``judge.engine.output_check``) or by its output validator, a program compiled once per
problem and run in a sandbox job of its own with the validator's limits, as
``validator input answer feedback_dir [flags] < candidate_output`` (the input and answer
files go to the validator's job, never the candidate's). How a run or a validator's run
becomes a verdict is ``judge.engine.program_verdicts``.

With the contest rule (``contest.stop_at_first_failure``, the default of imported contest
packages) the candidate's verdict is its first failing test's and the sandbox stops at the
first run that fails (crash, limit); a wrong answer is only known here, so the tests after
it are reported as not run. ``Executor.all_tests`` runs every test anyway (partial credit).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import replace
from typing import Any

from judge import languages
from judge.engine.program_inputs import (CHUNK_BYTES, SERIES_CHUNK_TESTS, STOP_CHUNK_TESTS,
                                            _test_spec, chunks,
                                            inputs_refused)
from judge.kinds.program.scoring import add_score
from judge.kinds.program.series import confirm, series_wanted
from judge.engine.checkers.base import CHECKERS, ProgramCheck, output_verdict
from judge.engine.checkers.validator import DEFAULT_OUTPUT_KB
from judge.engine.program_verdicts import cut, program_output, run_verdict
from judge.engine.engine import Engine
from judge.engine.verdicts import CandidateResult, TestResult, Verdict, overall
from judge.kinds.base import KindJudge
from judge.engine.compile_step import finish_compile, sandbox_job
from judge.problem.program import ProgramProblem
from judge.sandbox import records
from judge.sandbox.base import JobReport, Limits
from judge.sandbox.streams import InputStream

#: Kattis default: the memory limit of a program (when the problem gives none, and the run's
#: is smaller); the output limit's is the validator module's DEFAULT_OUTPUT_KB
DEFAULT_MEMORY_MB = 1024


# ---- jobs -------------------------------------------------------------------------------------

def program_limits(problem: ProgramProblem, base: Limits, lang: Any) -> tuple[Limits, float]:
    """The candidate's limits (the problem's, else the run's but at least the Kattis
    defaults for memory and output; a runtime's headroom on top of the memory) and its
    per-test CPU seconds."""
    own = problem.limits
    # the problem's own limits (else the run's, at least Kattis's defaults), never past the
    # run's ceilings for what a problem may ask (``max_problem_*``: the operator's)
    time_s = min(own.time_limit_s if own.time_limit_s is not None else base.time_limit_s,
                 base.max_problem_time_s)
    output_kb = min(own.output_kb if own.output_kb is not None else max(base.output_kb,
                                                                         DEFAULT_OUTPUT_KB),
                    base.max_problem_output_kb)
    memory_mb = min(own.memory_mb or max(base.memory_mb, DEFAULT_MEMORY_MB),
                    base.max_problem_memory_mb) + lang.memory_headroom_mb
    limits = replace(base, memory_mb=memory_mb, output_kb=output_kb,
                     value_kb=max(base.value_kb, output_kb + 64),
                     nproc=max(base.nproc, lang.nproc), nofile=max(base.nofile, lang.nofile))
    return limits, time_s + lang.startup_s


class ProgramJudge(KindJudge):
    """Judges program problems on one engine (its sandbox, compile cache and limits)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sandbox = engine.sandbox
        self.limits = engine.limits
        self.cache = engine.compile_cache
        #: every test, whatever the problem's contest rule says (partial credit)
        self.all_tests = engine.options.all_tests
        #: stop at the first failure whatever the problem says (``--fail-fast``)
        self.fail_fast = engine.options.stop_on_failure

    # ---- candidates -----------------------------------------------------------------------

    def judge(self, problem: ProgramProblem, submission: Any, time_limit_s: float | None = None,
              sources: dict[str, str] | None = None, **meta: Any) -> CandidateResult:
        """``sources``: a multi-file program's files (name -> text; a package's submission
        folder), compiled together instead of the submission's one file."""
        started = time.monotonic()
        lang = languages.get(submission.language)
        refused = inputs_refused(problem)
        if refused is not None:
            return self._refused(problem, refused, started, **meta)
        limits, time_s = program_limits(problem, self.limits, lang)
        if time_limit_s is not None:
            time_s = time_limit_s + lang.startup_s
        # a scored problem judges every test its groups score (unless --fail-fast)
        stop = self.fail_fast or (problem.contest.stop_at_first_failure and not self.all_tests
                                  and problem.scoring is None)
        if not sources:
            sources = {lang.program_file(submission.code): submission.code}
        digest = hashlib.sha256(json.dumps(sources, sort_keys=True).encode(
            "utf-8", "surrogatepass")).hexdigest()[:16]
        if problem.interactive or problem.multi_pass:  # judge.kinds.program.interactive
            from judge.kinds.program.interactive import judge_passes
            result = judge_passes(self, problem, submission, lang, sources, digest, limits,
                                  time_s, stop, started, **meta)
            if submission.note:
                result.note = submission.note
            return result
        retried = False
        for attempt in range(2):
            report = self._run_chunks(problem, lang, sources, digest, limits, time_s, stop)
            tests, problem_errors = self.verdicts(problem, report, limits, time_s, stop)
            # a worker that died under a test is charged to the candidate only if it dies
            # again: once may be ours (killed from outside), and a reward must not be 0 then
            if (overall(tests) is not Verdict.SANDBOX_ERROR and report.died_during is None) \
                    or attempt:
                break
            retried = True
        verdict = overall(tests)
        message = next((t.message for t in tests if t.verdict is verdict and t.message), None)
        result = CandidateResult(problem.identifier, verdict, tests, report.sandbox,
                                 time.monotonic() - started, message=message, **meta)
        result.set(language=lang.name, kind="program",
                            time_limit_s=round(time_s, 3), contest_rule=stop)
        info = report.compile_info or {}
        if "compile_s" in info:
            result.compile_s = info["compile_s"]
            result.compile_cached = bool(info.get("cached"))
        if submission.note:
            result.note = submission.note
        if retried:
            result.retried = True
        if problem_errors:
            result.problem_errors = problem_errors
        add_score(problem, result)
        return result

    def _run_chunks(self, problem: ProgramProblem, lang: Any, sources: dict[str, str],
                    digest: str, limits: Limits, time_s: float, stop: bool) -> JobReport:
        """Run the candidate's tests in jobs of at most ``CHUNK_BYTES`` of input (a big
        package's data never travels in one line), and, under the contest rule, at most
        ``STOP_CHUNK_TESTS`` tests: after each job a failed run, or a wrong answer the
        judge's own checker sees, ends the candidate's run. The reports are merged into one
        whose indices are the problem's."""
        merged = JobReport(sandbox=self.sandbox.name)
        budget = self.limits.budget_s
        in_series = series_wanted(problem, lang, self.limits)

        def run(indices: list[int], one_stop: bool, series: bool = False) -> JobReport:
            streams: list[InputStream] = []
            specs = [_test_spec(problem.tests[i], streams) for i in indices]
            job, build, key = sandbox_job(digest, lang, sources, specs, limits, time_s,
                                          self.cache, self.sandbox.name, one_stop, budget,
                                          series=series, streams=streams)
            return finish_compile(lang, build, key, self.sandbox.run(job), self.cache)

        size = SERIES_CHUNK_TESTS if in_series else STOP_CHUNK_TESTS
        for chunk in chunks(problem.tests, CHUNK_BYTES, size if stop else None):
            report = run(chunk, stop, in_series)
            if in_series:
                report = confirm(self, problem, chunk, report, run, limits, time_s, stop)
            merged.sandbox = report.sandbox
            if report.infra_error:
                merged.infra_error = report.infra_error
                return merged
            if merged.compile_info is None:
                merged.compiled, merged.compile_info = report.compiled, report.compile_info
                merged.compile_error, merged.compile_line = (report.compile_error,
                                                             report.compile_line)
            if not report.compiled:
                if merged.compiled:  # it compiled before: our failure, not the candidate's
                    merged.infra_error = "the program did not compile again: %s" % (
                        report.compile_error)
                return merged
            merged.oom_killed = merged.oom_killed or report.oom_killed
            for position, record in report.records.items():
                merged.records[chunk[position]] = dict(record, index=chunk[position])
            if report.died_during is not None:
                merged.died_during = chunk[min(report.died_during, len(chunk) - 1)]
                merged.died_reason = report.died_reason
                return merged
            if budget is not None:
                budget -= sum(float(r.get("cpu_s") or 0.0) for r in report.records.values())
                if budget <= 0:
                    for index in range(chunk[-1] + 1, len(problem.tests)):
                        merged.records[index] = {"index": index, "status": records.BUDGET_SPENT,
                                                 "budget_s": self.limits.budget_s}
                    return merged
            if stop and self._failed(problem, chunk, report, limits, time_s):
                return merged
        return merged

    def _failed(self, problem: ProgramProblem, chunk: list[int], report: JobReport,
                limits: Limits, time_s: float) -> bool:
        """Whether a job's tests hold a failure already: a run that ended badly or a record
        missing, or an output the judge's own checker rejects (a validator's verdict is left
        for the end: it runs once per candidate)."""
        for position in range(len(chunk)):
            record = report.records.get(position)
            if record is None or run_verdict(record, limits, time_s, report) is not None:
                return True
            if CHECKERS.get(problem.checker.type).in_process:
                test = problem.tests[chunk[position]]
                answer = test.answer_path() or test.expected_output() or b""
                if output_verdict(answer, program_output(record), problem.checker_for(test)).verdict \
                        is not Verdict.PASS:
                    return True
        return False

    def _refused(self, problem: ProgramProblem, why: str, started: float,
                 **meta: Any) -> CandidateResult:
        tests = [TestResult(i, Verdict.SANDBOX_ERROR, 0.0, why) for i in range(len(problem.tests))]
        result = CandidateResult(problem.identifier, Verdict.SANDBOX_ERROR, tests, "none",
                                 time.monotonic() - started, message=why, **meta)
        result.kind = "program"
        if why.startswith("problem error: "):
            result.problem_errors = [why]
        return result

    def verdicts(self, problem: ProgramProblem, report: JobReport, limits: Limits,
                 time_s: float, stop: bool) -> tuple[list[TestResult], list[str]]:
        total = len(problem.tests)
        if report.infra_error:
            return [TestResult(i, Verdict.SANDBOX_ERROR, 0.0, cut(report.infra_error, 2000))
                    for i in range(total)], []
        if not report.compiled:
            where = " (line %s)" % report.compile_line if report.compile_line else ""
            message = "%s%s" % (cut(str(report.compile_error or "compilation failed"), 2000),
                                where)
            return [TestResult(i, Verdict.COMPILE_ERROR, 0.0, message) for i in range(total)], []
        results: dict[int, TestResult] = {}
        outputs: dict[int, bytes] = {}
        for index, test in enumerate(problem.tests):
            record = report.records.get(index)
            if record is None:
                continue
            seconds = float(record.get("cpu_s") or 0.0)
            ended = run_verdict(record, limits, time_s, report)
            if ended is not None:
                results[index] = TestResult(index, ended[0], seconds, ended[1])
            else:
                outputs[index] = program_output(record)
                results[index] = TestResult(index, Verdict.PASS, seconds)
        problem_errors = self._check(problem, outputs, results, stop)
        final: list[TestResult] = []
        failed: TestResult | None = None
        for index in range(total):
            if failed is not None and stop:
                final.append(TestResult(index, failed.verdict, 0.0, "not run: test %d failed "
                                        "(%s)" % (failed.index + 1, failed.verdict.value)))
                continue
            result = results.get(index)
            if result is None:
                if report.died_during == index:
                    result = TestResult(index, Verdict.RUNTIME_ERROR, 0.0,
                                        "the sandbox worker died during this test: %s"
                                        % cut(str(report.died_reason or "no reason given")))
                else:
                    result = TestResult(index, Verdict.RUNTIME_ERROR, 0.0,
                                        "no result was reported")
            final.append(result)
            if result.verdict is not Verdict.PASS and failed is None:
                failed = result
        return final, problem_errors

    # ---- output checking --------------------------------------------------------------------

    def _check(self, problem: ProgramProblem, outputs: dict[int, bytes],
               results: dict[int, TestResult], stop: bool = False) -> list[str]:
        """Check every output that came back, by the problem's checker; returns the problem
        errors (a checker's failures: the problem's fault, never the candidate's)."""
        if not outputs:
            return []
        checks = CHECKERS.get(problem.checker.type).check(self.engine, problem, outputs, stop)
        errors = []
        for index, check in checks.items():
            self._apply(results, index, check)
            if check.problem_error:
                errors.append(check.problem_error)
        return errors

    @staticmethod
    def _apply(results: dict[int, TestResult], index: int, check: ProgramCheck) -> None:
        old = results[index]
        results[index] = TestResult(index, check.verdict, old.time_s, check.message,
                                    score=check.score, points=check.points)


__all__ = ["DEFAULT_MEMORY_MB", "ProgramJudge", "program_limits"]
