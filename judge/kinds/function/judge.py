"""The function kind's judge: one candidate's function against a problem's tests, on the engine.

Builds the job (inputs only: expected outputs never leave this process), runs it (the
strategy: one child per test, or all tests in one child first and the failures again alone),
maps each raw record to a verdict that says what happened (:mod:`judge.engine.classify`,
pure), and compares returned values here, on the judge's side, by the declared type.
Per-test time limits come from the reference solution's time on this machine when the
problem has one (``max(floor, factor x reference)``), measured once per run, and only when a
candidate needs it: until then a candidate is judged under the least limits the reference
could give, and judged again under the reference's own only when one of its tests was
stopped at a limit and those limits are larger (see :meth:`FunctionJudge.judge`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import replace
from typing import Any

from judge import languages
from judge.sandbox import records, wire
from judge.candidates.submission import Submission
from judge.engine import classify, compile_step
from judge.engine.check_pool import CheckerPool, CheckOutcome
from judge.engine.engine import Engine
from judge.kinds.base import KindJudge
from judge.engine.compare import compare, python_equal
from judge.engine.reference_cache import ReferenceTimes, for_sandbox
from judge.languages import BLOCKING
from judge.problem.model import PreparedTest, Problem, require_tests
from judge.sandbox.base import Job, JobReport, Limits, TestInput
from judge.problem.types import Tolerance, ValueTypeError, from_json, to_json
from judge.engine.verdicts import CandidateResult, TestResult, Verdict, overall

_OUTPUT_SHOWN = 300


def problem_limits(problem: Problem, base: Limits) -> Limits:
    """Per-problem overrides (the ``limits`` extension) on top of the run's limits, each at
    most the run's ceiling for it (``max_problem_*``: a problem cannot raise the limits the
    operator set)."""
    if problem.limits is None:
        return base
    changes: dict[str, Any] = {}
    if problem.limits.time_limit_s is not None:
        changes["time_limit_s"] = min(problem.limits.time_limit_s, base.max_problem_time_s)
        changes["time_floor_s"] = changes["time_limit_s"]
    if problem.limits.memory_mb is not None:
        changes["memory_mb"] = min(problem.limits.memory_mb, base.max_problem_memory_mb)
    if problem.limits.output_kb is not None:
        changes["output_kb"] = min(problem.limits.output_kb, base.max_problem_output_kb)
    if problem.limits.budget_s is not None:
        changes["budget_s"] = min(problem.limits.budget_s, base.max_problem_budget_s)
    return replace(base, **changes)


class Checkers:
    """A problem's ``check`` tests, evaluated in bounded helper processes
    (:mod:`judge.engine.check_pool`), never in the thread that serves candidates."""

    def __init__(self, pool: CheckerPool) -> None:
        self.pool = pool

    def run(self, problem: Problem, test: PreparedTest, output: Any) -> CheckOutcome:
        return self.pool.check(problem.checker, test.check or "False", dict(test.inputs), output)

    def check(self, problem: Problem, test: PreparedTest, output: Any) -> str | None:
        """None when the check holds; else why not (trusted callers: the importer)."""
        outcome = self.run(problem, test, output)
        if outcome.ok:
            return None
        if outcome.problem_error or outcome.raised:
            return "check %r raised %s" % (test.check, outcome.problem_error or outcome.raised)
        return outcome.why or "check failed: %s" % test.check

def _conforms(value: Any, spec: Any) -> bool:
    """Does a decoded value have the declared type? (A check that raises on a value of the
    declared type is the checker's bug; on any other value, the candidate's.)"""
    if spec is None or spec.kind == "any":
        return False
    try:
        from_json(to_json(value), spec)
    except (ValueTypeError, ValueError, TypeError, RecursionError):
        return False
    return True


def equal(problem: Problem, expected: Any, actual: Any,
          tolerance: Tolerance | None = None) -> str | None:
    """The problem's equality: by declared type (native problems) or the benchmark's own
    ``==`` on data values (imported suites: ``"equality": "python"``). ``tolerance`` replaces
    the problem's when the candidate chose a narrower float (32 bits) than ours."""
    tolerance = tolerance or problem.float_tolerance
    if problem.equality == "python":
        return python_equal(expected, actual, tolerance)
    return compare(expected, actual, problem.return_spec, tolerance)


def _shown(value: Any) -> Any:
    """The returned value as shown in results: the data when short, else its text cut short.
    Never fails: an int past Python's digit limit or a lone surrogate is shown as text."""
    try:
        data = to_json(value)
        text = repr(data)
    except ValueError:  # an int too long for decimal text
        return "<value too large to show>"
    if len(text) > _OUTPUT_SHOWN:
        return text[: _OUTPUT_SHOWN - 3] + "..."
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (ValueError, TypeError):  # a lone surrogate, say: repr escapes it
        return text
    return data


#: below this many CPU seconds left, a candidate's budget is spent (as in the worker)
BUDGET_EPSILON_S = 0.005


def _ranges(indices: tuple[int, ...]) -> str:
    """``(1, 2, 3, 7)`` -> ``"tests 1-3, 7"``: which tests ran alone, short."""
    spans: list[list[int]] = []
    for index in sorted(indices):
        if spans and spans[-1][1] == index - 1:
            spans[-1][1] = index
        else:
            spans.append([index, index])
    text = ", ".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in spans)
    return ("test " if len(indices) == 1 else "tests ") + text


#: exceptions whose batch verdict never stands: the memory an earlier test left may have
#: caused them (the worker's batch stops at them too; every call starts at the same depth,
#: so a RecursionError is the test's own)
_STOPPING = ("MemoryError",)


def _own_failure(test: TestResult, record: dict[str, Any] | None) -> bool:
    """A batch test of code that carries no state whose failure is its own: a value the
    judge found wrong, or an exception its call raised (not one a limit or the memory an
    earlier test left could cause, nor a record that is not the test's own)."""
    if not isinstance(record, dict) or not record.get("own"):
        return False
    if test.verdict is Verdict.WRONG_ANSWER:
        return record.get("status") == records.RETURNED
    return test.verdict is Verdict.RUNTIME_ERROR and record.get("status") == records.RAISED \
        and record.get("stage") == "call" and record.get("exc_type") not in _STOPPING


class FunctionJudge(KindJudge):
    """Judges function problems on one engine. Thread-safe."""

    def __init__(self, engine: Engine) -> None:
        options = engine.options
        self.engine = engine
        self.sandbox = engine.sandbox
        self.limits = engine.limits
        self.reference_timing = options.reference_timing
        #: reference timings remembered across runs (judge.engine.reference_cache): the
        #: configured folder, a given store, or none
        cache = options.reference_cache
        self.reference_cache: ReferenceTimes | None = (
            (cache if isinstance(cache, ReferenceTimes)
             else for_sandbox(engine.sandbox) if cache else None)
            if self.reference_timing else None)
        self.stop_on_failure = options.stop_on_failure
        self.test_isolation = options.test_isolation
        self.checkers = Checkers(engine.check_pool)
        self.isolation = engine.isolation
        self.compile_cache = engine.compile_cache
        self._reference: dict[str, list[float] | None] = {}
        self._reference_locks: dict[str, threading.Lock] = {}
        #: problems whose reference times are not remembered on disk (looked up once)
        self._not_remembered: set[str] = set()
        self._lock = threading.Lock()

    # ---- time limits ----------------------------------------------------------------------

    def reference_times(self, problem: Problem) -> list[float] | None:
        """Per-test CPU seconds of the reference solution on this machine, measured once."""
        if not self.reference_timing or not problem.optimal_solution:
            return None
        with self._lock:
            lock = self._reference_locks.setdefault(problem.identifier, threading.Lock())
        with lock:
            if problem.identifier not in self._reference:
                self._reference[problem.identifier] = self._measure_reference(problem)
            return self._reference[problem.identifier]

    def _reference_job(self, problem: Problem) -> Job:
        limits = problem_limits(problem, self.limits)
        generous = [max(10.0, limits.time_limit_s)] * len(problem.tests)
        job = self._job(problem, Submission(problem.optimal_solution or "", problem.function_name),
                        limits, generous, "reference")
        # trusted code: timed, not budgeted; the problem's candidates wait for it, so it
        # does not queue behind candidates computing on every core (Admission.enter)
        return replace(job, budget_s=None, urgent=True)

    def _measure_reference(self, problem: Problem) -> list[float] | None:
        """The reference is trusted code, so its tests run in one child and report their own
        CPU time (per test, without fork and load overhead); if that run is not clean, once
        more with one child per test."""
        job = self._reference_job(problem)
        store, key = self.reference_cache, None
        if store is not None:
            key = store.key(job.to_wire())
            remembered = store.get(key, [t.time_limit_s for t in job.tests])
            if remembered is not None:
                return remembered
        times = self._returned_times(self.sandbox.run(replace(job, batch=True)), len(job.tests))
        if times is None:
            times = self._returned_times(self.sandbox.run(job), len(job.tests))
        if times is not None and store is not None and key is not None:
            store.put(key, times)  # an unusable reference is measured again next time
        return times

    def _known_reference(self, problem: Problem) -> bool:
        """Whether the reference's times are known without running it: measured in this
        run, or remembered (then taken into this run's memory). Looks on disk once per
        problem and run."""
        identifier = problem.identifier
        if identifier in self._reference:
            return True
        if self.reference_cache is None or identifier in self._not_remembered:
            return False
        job = self._reference_job(problem)
        remembered = self.reference_cache.get(self.reference_cache.key(job.to_wire()),
                                              [t.time_limit_s for t in job.tests])
        with self._lock:
            if remembered is None:
                self._not_remembered.add(identifier)
                return False
            self._reference.setdefault(identifier, remembered)
        return True

    @staticmethod
    def _returned_times(report: JobReport, count: int) -> list[float] | None:
        times = []
        for index in range(count):
            record = report.records.get(index)
            if record is None or record.get("status") != records.RETURNED:
                return None  # an unusable reference gives no timing, not a wrong one
            times.append(float(record.get("cpu_s", 0.0)))
        return times

    def test_limits(self, problem: Problem) -> tuple[Limits, list[float]]:
        """The problem's limits and each test's CPU-time limit (timing the reference if it
        is not known yet)."""
        limits = problem_limits(problem, self.limits)
        reference = self.reference_times(problem)
        if reference is None:
            return limits, [limits.time_limit_s] * len(problem.tests)
        return limits, [limits.test_time_limit(t) for t in reference]

    def least_limits(self, problem: Problem) -> tuple[Limits, list[float], bool]:
        """``(limits, time limits, settled)``: :meth:`test_limits` when they are known
        without running anything (``settled``); else the least per-test limits the
        reference's timing could give (the floor, or the plain limit if lower: what an
        unusable reference gives), not settled."""
        if (not self.reference_timing or not problem.optimal_solution
                or self._known_reference(problem)):
            limits, time_limits = self.test_limits(problem)
            return limits, time_limits, True
        limits = problem_limits(problem, self.limits)
        least = min(limits.time_floor_s, limits.time_limit_s)
        return limits, [least] * len(problem.tests), False

    # ---- jobs -----------------------------------------------------------------------------

    def _job(self, problem: Problem, submission: Submission, limits: Limits,
             time_limits: list[float], job_id: str) -> Job:
        tests = []
        for test, seconds in zip(problem.tests, time_limits):
            tests.append(TestInput(args=wire.encode(list(test.args)), time_limit_s=seconds,
                                   wall_limit_s=limits.wall_limit(seconds)))
        return Job(id=job_id, code=submission.code, function=submission.function, tests=tests,
                   limits=limits, stop_on_failure=self.stop_on_failure,
                   budget_s=limits.budget(time_limits))

    def judge(self, problem: Problem, submission: Submission, **meta: Any) -> CandidateResult:
        """Judge one submission. A sandbox_error is retried once, then reported as such."""
        require_tests(problem)  # no tests: NoTests, never a made-up verdict
        # The reference is timed only when a verdict depends on it. Until then a candidate
        # is judged under the least limits its timing could give: a test that ends within
        # them ends the same way within any larger ones (the same CPU time, more room), so
        # only a test stopped at a limit needs the real ones. Then the reference is timed
        # (once per problem); when its limits are the same, the verdicts stand (the same
        # job), else the candidate is judged again under them.
        limits, time_limits, settled = self.least_limits(problem)
        started = time.monotonic()
        result = self._judge_under(problem, submission, limits, time_limits, meta)
        if not settled and any(t.verdict is Verdict.TIMEOUT for t in result.tests):
            limits, real = self.test_limits(problem)
            if real != time_limits:
                result = self._judge_under(problem, submission, limits, real, meta)
                result.time_s = time.monotonic() - started
        return result

    def _judge_under(self, problem: Problem, submission: Submission, limits: Limits,
                     time_limits: list[float], meta: dict[str, Any]) -> CandidateResult:
        """Judge one submission under these per-test time limits."""
        digest = hashlib.sha256(submission.code.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        job = self._job(problem, submission, limits, time_limits, digest)
        native = None
        if languages.get(submission.language).worker_native:
            native = compile_step.prepare(job, submission.language, problem.param_specs, problem.return_spec,
                                  self.compile_cache, self.sandbox.name)
            job = native.job
        risk = submission.stall_risk  # the batch's guess, made when it ordered the run
        if risk is None:
            risk = languages.get(submission.language).stall_risk(submission.code)
        if risk >= BLOCKING:
            # likely to sleep or wait: admitted without waiting for a busy core, as the
            # run's order started it first (judge.running.schedule); never a verdict
            job = replace(job, likely_blocked=True)
        started = time.monotonic()
        if self.test_isolation == "on-failure" and len(job.tests) > 1 and native is None:
            report, tests, isolation = self._batch_then_isolated(problem, job)
        else:
            report = self._run(job, native)
            tests = self.verdicts(problem, report, job)
            isolation = "per-test"
        retried = False
        if overall(tests) is Verdict.SANDBOX_ERROR:
            retried = True
            if native is not None:
                native = compile_step.prepare(self._job(problem, submission, limits, time_limits, digest),
                                      submission.language, problem.param_specs, problem.return_spec,
                                      self.compile_cache, self.sandbox.name)
                job = native.job
            report = self._run(job, native)
            tests = self.verdicts(problem, report, job)
        verdict = overall(tests)
        message = next((t.message for t in tests if t.verdict is verdict and t.message), None)
        result = CandidateResult(problem_id=problem.identifier, verdict=verdict, tests=tests,
                                 sandbox=report.sandbox, time_s=time.monotonic() - started,
                                 message=message, **meta)
        result.sandbox_isolation = self.isolation
        if submission.note:
            result.note = submission.note
        if retried:
            result.retried = True
        if native is not None:
            result.language = submission.language
            info = report.compile_info or {}
            if "compile_s" in info:
                result.compile_s = info["compile_s"]
                result.compile_cached = bool(info.get("cached"))
        if self.test_isolation != "per-test":
            result.isolation = isolation
        return result

    def _batch_then_isolated(self, problem: Problem, job: Job
                             ) -> tuple[JobReport, list[TestResult], str]:
        """``on-failure``: all tests run one after another in one child (the child goes on
        past a wrong value, which only the judge can see, and stops at a test that raises or
        hits a limit). Every test that did not pass there runs again in a child of its own,
        and so does every test the batch did not reach; passes stand. A child's first test
        is as isolated as any (loaded fresh, nothing ran before it), so a failure of the
        batch's first test with a record of its own stands too. So every failing verdict
        comes from an isolated test, a candidate that passes costs one child, and one that
        fails costs one child more per failing (or unreached) test.

        One exception, for code that provably cannot carry state from one call to the next
        (:meth:`Language.carries_no_state`, for Python the static check of
        :mod:`judge.languages.python_state`): a value it returned wrong in the batch is the
        value it returns alone, so that verdict stands (``isolation`` says "no state
        carried"). Tests it raised on or was stopped in, and those never reached, still run
        alone. Letting a failure stand can never help a candidate: a rerun may only turn a
        failure into a pass."""
        # code that provably carries no state from one call to the next: what it returned or
        # raised in the batch is what it returns or raises alone (judge.languages.python_state)
        stateless = languages.get(job.language).carries_no_state(job.code)
        batch = replace(job, batch=True, batch_acks=False, past_raises=stateless)
        report = self.sandbox.run(batch)
        tests = self.verdicts(problem, report, batch)
        first = next((t.index for t in tests if t.verdict is not Verdict.PASS), None)
        if first is None or overall(tests) in (Verdict.COMPILE_ERROR, Verdict.SANDBOX_ERROR):
            return report, tests, "batch"
        first_stands = first == 0 and classify.own_record(report.records.get(0))
        if first_stands and (classify.load_failure(report.records[0]) or self.stop_on_failure):
            return report, tests[:1] + [classify.not_run(i, tests[:1])
                                        for i in range(1, len(tests))], "batch"
        # the batch's tests share one capture file: once it overflowed, which of them printed
        # is not known, so no verdict of that child stands, passes included
        shared_flood = any(r.get("output_capped") for r in report.records.values())
        stands = stateless and not shared_flood
        rerun = tuple(t.index for t in tests
                      if (shared_flood or t.verdict is not Verdict.PASS)
                      and not (first_stands and t.index == 0)
                      and not (stands and _own_failure(t, report.records.get(t.index))))
        kept = {t.index: t for t in tests if t.index not in rerun}
        how = "batch (no state carried)" if stands and any(
            t.verdict is not Verdict.PASS and t.index not in rerun
            and not (first_stands and t.index == 0) for t in tests) else "batch"
        if not rerun:
            return report, tests, how
        tail = replace(job, only=rerun)
        if job.budget_s is not None:
            tail = self._within_budget(tail, report, first, kept)
            if tail is None:  # the batch spent it: nothing is run twice past the budget
                return report, [kept.get(t.index) or classify.budget_spent(t.index, job,
                                                                      t.index == first)
                                for t in tests], "batch"
        tail_report = self.sandbox.run(tail)
        # messages name the candidate's whole budget, not what was left of it for the tail
        named = replace(tail, budget_s=job.budget_s)
        return tail_report, self.verdicts(problem, tail_report, named, kept), \
            "%s, isolated: %s" % (how, _ranges(rerun))

    @staticmethod
    def _within_budget(tail: Job, report: JobReport, first: int,
                       kept: dict[int, TestResult]) -> Job | None:
        """The tail job with what the batch left of the candidate's budget, or None when
        nothing is left. Charged: the CPU of every batch test whose verdict stands (the
        passes) and of its first failing test (so a candidate that loops from its second
        test on costs its budget once, not twice), and the wall-clock time of a batch
        stopped while that test ran. The batch's other failing tests run again alone and
        are charged then, not twice."""
        budget = tail.budget_s or 0.0
        stopped = report.records.get(first, {})
        if "wall_s" in stopped:  # the batch was stopped during that test: its whole child's
            cpu = float(stopped.get("cpu_s") or 0.0)
            blocked = (float(stopped.get("wall_s") or 0.0) - float(stopped.get("waited_s") or 0.0)
                       - cpu - tail.limits.wall_extra_s)
        else:
            cpu = sum(float(report.records.get(i, {}).get("cpu_s") or 0.0)
                      for i in set(kept) | {first})
            blocked = 0.0
        wall = cpu + max(0.0, blocked)
        left_cpu = budget - cpu
        left_wall = tail.limits.budget_wall(budget) - wall
        if min(left_cpu, left_wall) < BUDGET_EPSILON_S:
            return None
        return replace(tail, budget_s=left_cpu, budget_wall_s=left_wall)

    def _run(self, job: Job, native: Any = None) -> JobReport:
        report = self.sandbox.run(job)
        if native is not None:
            report = compile_step.finish(native, report, self.compile_cache)
        return report

    # ---- records -> verdicts --------------------------------------------------------------

    def verdicts(self, problem: Problem, report: JobReport, job: Job,
                 earlier: list[TestResult] | dict[int, TestResult] | None = None
                 ) -> list[TestResult]:
        """One verdict per test, from the report's records (:func:`classify.verdicts`);
        returned values are compared here."""
        def returned(index: int, record: Any) -> TestResult:
            verdict, message, output = self._compare(problem, problem.tests[index], record)
            return TestResult(index, verdict, classify.number(record.get("cpu_s")), message,
                              output)

        return classify.verdicts(len(problem.tests), report, job, returned, earlier)

    def _compare(self, problem: Problem, test: PreparedTest,
                 record: dict[str, Any]) -> tuple[Verdict, str | None, Any]:
        try:
            actual = wire.decode(record.get("value"))
        except (wire.WireError, RecursionError, TypeError, ValueError) as exc:
            # our encoder never writes this: the record was forged or damaged
            return Verdict.RUNTIME_ERROR, "malformed result: %s" % classify.text(str(exc), 300), None
        if test.check is not None:
            outcome = self.checkers.run(problem, test, actual)
            if outcome.problem_error:
                return Verdict.SANDBOX_ERROR, "problem error: %s" % outcome.problem_error, None
            if outcome.raised and _conforms(actual, problem.return_spec):
                return Verdict.SANDBOX_ERROR, ("problem error: the check %r raised on a value "
                                               "of the declared type: %s" % (test.check,
                                                                             outcome.raised)), None
            why = None if outcome.ok else (
                "check %r raised %s" % (test.check, outcome.raised) if outcome.raised
                else outcome.why or "check failed: %s" % test.check)
        else:
            tolerance = problem.float_tolerance
            if record.get("narrow"):  # the candidate chose 32-bit floats: their precision
                tolerance = replace(tolerance, rel=max(tolerance.rel, 1e-6),
                                    abs=max(tolerance.abs, 1e-5))
            why = equal(problem, test.expected, actual, tolerance)
        if why is None:
            return Verdict.PASS, None, None
        return Verdict.WRONG_ANSWER, classify.text(why, 2000), _shown(actual)
