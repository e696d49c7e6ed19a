"""The public Python API: one object that owns a warm sandbox and judges candidates.

Everything that judges code goes through :class:`Judge`: the CLI, the HTTP service and the Ray
executor are thin layers over it, so there is one path and one result type
(:class:`~judge.engine.verdicts.CandidateResult`, whose ``to_dict()`` is the results-file
line).

    import judge
    suite = judge.load_suite("problems/basics")
    with judge.Judge(sandbox="process", jobs=2) as j:
        r = j.judge(suite["basics_digital_root"], code)
        print(r.verdict, r.passed, r.total)
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, Union

from judge.candidates.extract import Candidate
from judge.errors import Issue, JudgeError
from judge.running.batch import BatchRunner, Progress, RunOutcome, WorkItem, submission_for
from judge.engine.cache import VerdictCache
# what Judge.run_program takes and returns (and the most compile seconds a RunSpec may ask),
# importable from here by the surfaces above the API
from judge.engine.program_runs import (MAX_COMPILE_S, CompileOutcome, ProgramRun,  # noqa: F401
                                       ProgramRuns, RunSpec)
from judge.engine.program_runs import run_program as _run_program
from judge.running.executor import TEST_ISOLATION, Executor
from judge.engine.verdicts import CandidateResult
from judge import languages
from judge.languages import normalize
from judge.kinds.base import kind_of
from judge.kinds.lookup import find_problem, suites_of
from judge.problem.model import Problem
from judge.distribution.executors import EXECUTORS as EXECUTOR_KINDS
from judge.sandbox import BACKENDS, Limits, Sandbox, kinds

#: what ``judge_many`` takes per item: (problem, code) or (problem, code, metadata dict)
Item = Union[tuple[Problem, str], tuple[Problem, str, dict[str, Any]], Candidate]

_LIMIT_FIELDS = {f.name for f in dataclasses.fields(Limits)}
#: where candidates are judged: this machine's sandbox, or actors on a Ray cluster (the
#: built-in names of judge.distribution.executors.EXECUTORS)
EXECUTORS = ("local", "ray")


def make_limits(limits: Limits | None = None, **overrides: Any) -> Limits:
    """Limits from keyword arguments (``time_limit_s=2, memory_mb=256``) on top of ``limits``
    (or the defaults). A given ``time_limit_s``, ``memory_mb``, ``output_kb`` or
    ``budget_s`` is also the most a problem's own limit may be, unless the matching
    ``max_problem_*`` is given too. An unknown name is a ``TypeError`` naming the known
    ones."""
    unknown = sorted(set(overrides) - _LIMIT_FIELDS)
    if unknown:
        raise TypeError("unknown limit%s %s (known: %s)" % (
            "s" if len(unknown) > 1 else "", ", ".join(unknown), ", ".join(sorted(_LIMIT_FIELDS))))
    base = limits or Limits()
    if not overrides:
        return base
    # an explicitly given limit is also the most a problem may ask for it (Limits.with_ceilings)
    return dataclasses.replace(base, **overrides).with_ceilings(set(overrides))


class Judge:
    """Judges candidates against problems in a sandbox opened once and kept warm.

    ``sandbox`` is ``auto`` (Docker when an engine answers, else the process sandbox),
    ``process``, ``docker``, or an already open :class:`~judge.sandbox.Sandbox` (then the
    caller keeps ownership). ``jobs`` candidates run at once; ``isolation="fresh"`` starts
    a new worker per candidate instead of reusing warm ones. As root, the process sandbox
    refuses to run unisolated unless ``allow_unisolated=True`` (every result then says so).
    Limits are keyword arguments
    (``time_limit_s``, ``memory_mb``, ``output_kb``...: see :class:`~judge.sandbox.Limits`)
    or a ``limits=`` object. ``suite`` (a suite, a path, or a list of them; default: the
    shipped suites) is where a problem given by identifier is looked up:
    ``j.judge("basics_digital_root", code)``. Use it as a context manager, or call
    :meth:`close`: the sandbox
    (its processes and containers) is closed on exit, also after an exception.

    ``executor="ray"`` (with ``ray_address``, else ``RAY_ADDRESS`` or a private local Ray)
    judges on a Ray cluster instead: one actor per node owns a sandbox of ``jobs`` workers
    (see :mod:`judge.distribution.ray_executor`); everything else works the same.

    :meth:`judge_many` and :meth:`run` judge identical candidates once (``dedup=True``): a
    candidate with the same code, function, language, problem and limits as an earlier one
    of the same call gets its result, with ``duplicate_of`` naming that one. ``dedup=False``
    runs every candidate.

    ``cache=DIR`` remembers verdicts across runs and processes (content-addressed: the judge's
    code, the problem, the limits, the options and the candidate's code; never a
    ``sandbox_error``): a candidate judged before gets the stored result, ``cached: true``.

    :meth:`run_program` runs a whole program once per input and says how each run ended
    (no expected output, no verdict of the whole: the SandboxFusion routes of ``judge
    serve`` answer ``/run_code`` and check outputs with it). It runs on this machine's
    sandbox: with ``executor="ray"`` it is not offered (a :class:`~judge.errors.JudgeError`
    says so).
    """

    def __init__(self, sandbox: str | Sandbox = "auto", jobs: int = 1, *,
                 limits: Limits | None = None, test_isolation: str = "on-failure",
                 fail_fast: bool = False, all_tests: bool = False,
                 reference_timing: bool = True,
                 isolation: str = "warm", allow_unisolated: bool = False,
                 dedup: bool = True, executor: str = "local", ray_address: str | None = None,
                 notice: Callable[[str], None] | None = None, suite: Any = None,
                 cache: "str | os.PathLike[str] | VerdictCache | None" = None,
                 **limit_overrides: Any) -> None:
        if isinstance(sandbox, str) and sandbox != "auto" and sandbox not in BACKENDS:
            raise ValueError("sandbox must be one of %s or a Sandbox" % ", ".join(kinds()))
        if test_isolation not in TEST_ISOLATION:
            raise ValueError("test_isolation must be one of %s" % ", ".join(TEST_ISOLATION))
        if jobs < 1:
            raise ValueError("jobs must be at least 1")
        kind = EXECUTOR_KINDS.get(executor)  # UnknownName (a ValueError) names the known ones
        if kind.remote and not isinstance(sandbox, str):
            raise ValueError("executor=%r opens a sandbox on each node: give its kind"
                             % executor)
        self.executor_kind = EXECUTOR_KINDS.canonical(executor)
        self.ray_address = ray_address
        self.jobs = jobs
        self.limits = make_limits(limits, **limit_overrides)
        self.test_isolation = test_isolation
        self.fail_fast = fail_fast
        self.all_tests = all_tests
        self.reference_timing = reference_timing
        self.isolation = isolation
        self.allow_unisolated = allow_unisolated
        self.dedup = dedup
        #: verdicts remembered across runs (opt-in; judge.engine.cache)
        self.cache = (cache if isinstance(cache, VerdictCache) or cache is None
                      else VerdictCache(cache))
        # problems given by identifier are looked up here (default: the shipped suites)
        self.suites = suites_of(suite)
        self._notice = notice or (lambda message: print(message, file=sys.stderr))
        self._kind = sandbox if isinstance(sandbox, str) else None
        self._sandbox: Sandbox | None = None if isinstance(sandbox, str) else sandbox
        self._owns_sandbox = isinstance(sandbox, str)
        self._executor: Executor | None = None
        self._lock = threading.Lock()
        self._async_pool: ThreadPoolExecutor | None = None
        self._closed = False

    # ---- life cycle ------------------------------------------------------------------------

    def open(self) -> "Judge":
        """Open the sandbox now (otherwise the first call does). Idempotent."""
        self._ensure()
        return self

    def _ensure(self) -> Executor:
        with self._lock:
            if self._closed:
                raise RuntimeError("this Judge is closed")
            if self._executor is None:
                kind = EXECUTOR_KINDS.get(self.executor_kind)
                sandbox = self._sandbox if self._sandbox is not None else self._kind
                self._executor = kind.open(
                    sandbox, self.jobs, self.limits, notice=self._notice,
                    address=self.ray_address, options=dict(
                        test_isolation=self.test_isolation, fail_fast=self.fail_fast,
                        all_tests=self.all_tests,
                        reference_timing=self.reference_timing, isolation=self.isolation,
                        allow_unisolated=self.allow_unisolated))
                if not kind.remote and self._sandbox is None:
                    # opened by the executor (under Docker: the Python image, and the
                    # native image for the other languages); closed by this Judge
                    self._sandbox = self._executor.sandbox
            return self._executor

    @property
    def sandbox(self) -> Sandbox:
        """The open sandbox (opening it if needed). With ``executor="ray"`` each node owns
        its own, so there is none here: see :meth:`describe`."""
        self._ensure()
        if self._sandbox is None:
            raise RuntimeError("executor='ray': the sandboxes are on the nodes (describe())")
        return self._sandbox

    @property
    def executor(self) -> Executor:
        return self._ensure()

    def close(self) -> None:
        """Close the sandbox (when this Judge opened it): no worker or container survives."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            pool, self._async_pool = self._async_pool, None
            sandbox, owns = self._sandbox, self._owns_sandbox
            executor, self._executor = self._executor, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        if executor is not None:
            executor.close()
        if sandbox is not None and owns:
            sandbox.close()

    def __enter__(self) -> "Judge":
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- judging ---------------------------------------------------------------------------

    def problem(self, problem: Problem | str) -> Problem:
        """A problem, or the one with that identifier in ``suite=`` (default: the shipped
        suites); an unknown identifier is an ``UnknownName`` with a did-you-mean."""
        return find_problem(problem, self.suites)

    def judge(self, problem: Problem | str, solution: str, *, model: str | None = None,
              prompt_id: str | None = None, sample: int | None = None,
              language: str | None = None) -> CandidateResult:
        """Judge one candidate: ``solution`` is code or a raw model reply (prose and fences
        are stripped) in ``language`` (``python``, ``js``, ``cpp``, ``go``, ``rust``,
        ``java``; default python). Blocking; thread-safe (up to ``jobs`` calls run at once)."""
        problem = self.problem(problem)
        kind_of(problem).require_judgeable(problem)  # no tests: NoTests, no verdict
        executor = self._ensure()
        language = normalize(language)
        candidate = Candidate(problem.identifier, solution, model, prompt_id, sample,
                              language=language)
        lang = languages.get(language)
        if not solution.strip() or not lang.default or self.cache is not None:
            # through the batch path: the problem as judged in that language (typed, or
            # not expressible), the empty solution's compile_error
            for result in self._runner(executor).results([(problem, candidate, None)]):
                return result
            kind_of(problem).in_language(problem, lang)  # no result: not expressible (raises why)
            raise RuntimeError("no result for %s in %s" % (problem.identifier, language))
        # the default language's fast path: its problems are judged as they are
        return executor.judge(problem, submission_for(problem, candidate), model=model,
                              prompt_id=prompt_id, sample=sample)

    def judge_many(self, items: Iterable[Item], *, progress: bool | str | Progress = False,
                   total: int | None = None) -> Iterator[CandidateResult]:
        """Judge many candidates, ``jobs`` at a time; results come back in input order as
        they are ready. Items are ``(problem, code)``, ``(problem, code, {"model": ...,
        "prompt_id": ..., "sample": ..., "language": ...})``. Stopping the iteration early
        cancels what has not started.

        ``progress=True`` shows a bar with the total (``len(items)``, or ``total=``), ETA and
        verdicts so far on stderr: a notebook bar in Jupyter, a live bar on a terminal,
        a plain line every 10 s elsewhere (a log); or name one: ``"bar"``, ``"lines"``,
        ``"notebook"``; or pass a :class:`~judge.running.progress.Progress`."""
        executor = self._ensure()
        if total is None and hasattr(items, "__len__"):
            total = len(items)  # type: ignore[arg-type]
        if isinstance(progress, Progress):
            shown: Progress | None = progress
        elif progress:
            shown = Progress(total, mode="auto" if progress is True else str(progress))
        else:
            shown = None
        runner = self._runner(executor, shown)
        return runner.results(_work_items(items, self.problem))

    async def ajudge(self, problem: Problem | str, solution: str, **meta: Any
                     ) -> CandidateResult:
        """:meth:`judge` for asyncio callers: runs on a thread pool of ``jobs`` threads, so
        the event loop never blocks on a candidate."""
        self._ensure()
        with self._lock:
            if self._async_pool is None:
                self._async_pool = ThreadPoolExecutor(max_workers=self.jobs,
                                                      thread_name_prefix="judge-async")
            pool = self._async_pool
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(pool, lambda: self.judge(problem, solution, **meta))

    def run_program(self, language: Any, code: str, inputs: Sequence[bytes], spec: RunSpec,
                    *, files: Mapping[str, str] | None = None) -> ProgramRuns:
        """Run a whole program once per input and say what happened: ``code`` in
        ``language`` (a name or a :class:`~judge.languages.Language`) compiled once, then run
        once per input (bytes of standard input) with ``files`` (path -> base64 content) in
        its work directory, as ``spec`` (:class:`~judge.engine.program_runs.RunSpec`: wall
        clock and memory of each run, compile wall clock, build flags, budget...) says.
        Returns a :class:`~judge.engine.program_runs.ProgramRuns`: the compile's outcome and
        each run's (status, exit code or signal, standard output and error, times, and the
        judge's verdict of how it ended). Our failure, or a run the machine's load starved,
        is retried once. Blocking; thread-safe. Not offered with ``executor="ray"`` (the
        sandboxes are on the nodes): a :class:`~judge.errors.JudgeError`."""
        if EXECUTOR_KINDS.get(self.executor_kind).remote:
            raise JudgeError("Judge.run_program runs on this machine's sandbox; "
                             "executor=%r judges on the cluster's nodes (use a Judge with "
                             "executor='local')" % self.executor_kind)
        lang = language if isinstance(language, languages.Language) else \
            languages.get(language)
        engine = self._ensure().engine
        return _run_program(engine, lang, code, list(inputs), dict(files or {}), spec)

    def run(self, items: Iterable[WorkItem], *, output: Any | None = None,
            previous: dict[str, dict[str, Any]] | None = None,
            progress: Progress | None = None, on_issue: Callable[[Issue], None] | None = None,
            source: str = "<solutions>", metadata: dict[str, Any] | bool | None = None,
            on_note: Callable[[Issue], None] | None = None) -> RunOutcome:
        """Judge a stream of (problem, candidate, issue) work items, as ``judge run`` does:
        results written to ``output`` (a :class:`judge.jsonl.Writer`) as they come, in order;
        candidates already in ``previous`` (key -> results line) with the same problem and
        limits are skipped. The run metadata (``metadata``, by default :meth:`run_metadata`;
        ``False``: none) is written on every line as its ``run`` object. ``on_issue`` hears
        each input error, ``on_note`` each remark that is not one (an empty reply)."""
        executor = self._ensure()
        if output is not None and metadata is not False:
            from judge.running.metadata import Stamped

            output = Stamped(output, metadata if isinstance(metadata, dict)
                             else self.run_metadata())
        runner = BatchRunner(executor, self._slots(executor), output, previous, progress,
                             on_issue, dedup=self.dedup, cache=self.cache)
        runner.on_note = on_note
        return runner.run(items, source)

    def run_metadata(self, *, suite: str | None = None,
                     problems: Iterable[Problem] | None = None,
                     command: str | None = None) -> dict[str, Any]:
        """How this Judge judges (version, limits, sandbox, image, isolation, dedup, date,
        and the suite's fingerprint when given its problems): the ``run`` object of a results
        line (see :mod:`judge.running.metadata`)."""
        from judge.running.metadata import for_judge

        return for_judge(self, suite=suite, problems=problems, command=command)

    def _runner(self, executor: Executor, progress: Progress | None = None) -> BatchRunner:
        return BatchRunner(executor, self._slots(executor), progress=progress, dedup=self.dedup,
                           cache=self.cache)

    def _slots(self, executor: Executor) -> int:
        """Candidates judged at once: ``jobs`` locally; every node's jobs with Ray."""
        return int(getattr(executor, "slots", self.jobs))

    @property
    def backend_name(self) -> str:
        """What judges: the sandbox's name, or ``ray (...)`` with the nodes' sandboxes."""
        if self.executor_kind == "ray":
            return self._ensure().name  # type: ignore[attr-defined]
        return self.sandbox.name

    def isolation_facts(self) -> dict[str, Any]:
        """The isolation in force (what every result's ``sandbox_isolation`` says); with Ray,
        the weakest node's."""
        if self.executor_kind == "ray":
            return self._ensure().isolation()  # type: ignore[attr-defined]
        return self.sandbox.isolation()

    def describe(self) -> dict[str, Any]:
        """The sandbox in force (back end and its isolation facts); with Ray, the nodes."""
        if self.executor_kind == "ray":
            return self._ensure().describe()  # type: ignore[attr-defined]
        return self.sandbox.describe()


def _work_items(items: Iterable[Item], lookup: Callable[[Any], Problem] = lambda p: p
                ) -> Iterator[WorkItem]:
    for index, item in enumerate(items):
        if isinstance(item, Candidate) or not isinstance(item, tuple) or len(item) not in (2, 3):
            raise TypeError("judge_many item %d: expected (problem, code) or "
                            "(problem, code, metadata), got %r" % (index, type(item).__name__))
        problem, code = item[0], item[1]
        if isinstance(problem, str):
            problem = lookup(problem)
        meta = item[2] if len(item) == 3 else {}  # type: ignore[misc]
        if not hasattr(problem, "kind") or not isinstance(code, str):
            raise TypeError("judge_many item %d: expected (Problem, str, ...)" % index)
        candidate = Candidate(problem.identifier, code, meta.get("model"), meta.get("prompt_id"),
                              meta.get("sample"), line=index + 1 if meta.get("sample") is None
                              else None, language=normalize(meta.get("language")))
        yield problem, candidate, None

