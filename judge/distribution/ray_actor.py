"""The judge's actor on a Ray node, leased to one run at a time, kept warm between runs.

A :class:`JudgeActor` is a Python process on one node that opens, for each run that leases
it, a warm sandbox of that run's jobs and an Executor over it, as ``judge.Judge`` builds
locally (:meth:`JudgeActor.acquire`), judges that run's chunks of candidates
(:meth:`JudgeActor.judge_chunk`) and closes the sandbox when the run ends
(:meth:`JudgeActor.release`): no worker or container survives a run. The process itself,
which has imported the judge and walked the host once (the process sandbox's search for
world-writable places), stays for the next run.

On a cluster that outlives the driver the actor is *detached* and *named*
(:mod:`judge.distribution.ray_session`): a new driver process finds it by name and leases it.

- **One run at a time**: :meth:`acquire` takes a lease (a token of the run and its driver's
  Ray job) or answers ``busy``; every later call carries the token, and a call with another
  token is refused (:class:`LeaseLost`). A lease whose driver's job has ended (a driver
  killed mid-run) is taken back: the sandbox is closed and the actor is free again.
- **Its code**: :meth:`acquire` answers ``stale`` when a module of the judge the actor has
  loaded differs from the driver's file of it (:func:`source_hashes`: a hash of each module's
  source; the judge's version is in the actors' namespace); an idle stale actor then ends
  itself and the driver starts a new one. Modules not loaded yet, and the worker
  (``runners/``, copied into each new sandbox), are read from the node's disk anyway.
- **Its time**: an actor with no run for ``keep_s`` seconds (the last run's
  ``JUDGE_RAY_KEEP_S``) closes and ends itself; :meth:`stop` ends it now. Idle, it holds no
  CPU of the cluster (placed with ``num_cpus=0``) and sleeps: only its memory is kept.

Layering: the actor builds its sandbox and Executor itself (what ``judge.Judge`` does) so
this module stays below the public API.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

# judge.problem first: importing judge.kinds.function.judge before it is an import cycle
from judge.errors import InfrastructureFault
from judge.problem.model import Problem
from judge.candidates.submission import Submission
from judge.distribution.ray_dispatch import NEED_PROBLEM, ItemError
from judge.engine.verdicts import CandidateResult
from judge.sandbox.base import Limits

#: how long an actor waits for a problem sent with an earlier chunk that has not reached it
PROBLEM_WAIT_S = 10.0
#: how often a leased actor asks whether its driver's job is still alive
LEASE_CHECK_S = 10.0


class LeaseLost(InfrastructureFault, RuntimeError):
    """A call of a run that does not hold this actor's lease (any more)."""

    code = "ray_lease_lost"


_SOURCES: dict[str, str] = {}


def _root() -> Path:
    import judge

    return Path(judge.__file__).resolve().parent


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return "unreadable"


def source_hashes() -> dict[str, str]:
    """The judge's modules on this machine, as a driver sends them to :meth:`acquire`:
    path in the package -> hash of the source (read once per process)."""
    if not _SOURCES:
        root = _root()
        _SOURCES.update({path.relative_to(root).as_posix(): _digest(path)
                         for path in sorted(root.rglob("*.py"))
                         if "__pycache__" not in path.parts})
    return _SOURCES


def short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, text[0][:200] if text else "")


class JudgeActor:
    """Runs on one node (made a Ray actor by the driver, so importing this module does not
    need Ray). ``detached``: it outlives its driver and ends itself after ``keep_s`` with
    no run; otherwise its driver kills it."""

    def __init__(self, sandbox: str, keep_s: float = 0.0, detached: bool = False) -> None:
        from judge.distribution.executors import open_local  # noqa: F401 - the code it runs

        self.kind = sandbox
        #: the judge's modules this process has loaded: path -> hash of the source when the
        #: actor first saw it loaded (now, after opening a sandbox and after each run)
        self._loaded: dict[str, str] = {}
        self._see_loaded()
        self._state = threading.Condition()
        self._lease: str | None = None
        self._lease_job: str | None = None
        self._keep_s = keep_s
        self._idle_since = time.monotonic()
        self._exiting = False
        self._runs = 0
        self.executor: Any = None
        self.sandbox: Any = None
        self.notes: list[str] = []
        self.jobs = 0
        self.slots = 1
        self._pool: ThreadPoolExecutor | None = None
        #: this run's problems (each run's keys carry a token of their own)
        self._problems: dict[str, Problem] = {}
        self._arrived = threading.Condition()
        #: a detached actor ends itself after keep_s with no run; another one, its driver
        self._detached = detached
        threading.Thread(target=self._watch, name="judge-actor-watch", daemon=True).start()

    # ---- leases ---------------------------------------------------------------------------

    def acquire(self, lease: str, job: str | None, sources: dict[str, str], strict: bool,
                jobs: int, limits: Limits, options: dict[str, Any], keep_s: float
                ) -> dict[str, Any]:
        """Lease this actor to a run and open a fresh sandbox with its jobs, limits and
        options. Answers ``{"state": "ok", ...}`` with :meth:`info` (``changed``: the
        modules it runs that differ from the driver's ``sources``), or ``busy`` (another
        live run holds it), ``stale`` (``strict`` and a module differs; an idle stale actor
        ends itself) or ``gone`` (ending). Not ``strict``: an actor the driver has just
        started, which runs the node's own judge."""
        with self._state:
            if self._exiting:
                return {"state": "gone"}
            changed = self._changed(sources)
            if strict and changed:
                if self._lease is None:
                    self._exit()
                return {"state": "stale", "changed": changed}
            if self._lease is not None:
                if self._lease_job == job or self._job_alive(self._lease_job):
                    return {"state": "busy"}
                self._close()  # its driver is gone
            self._lease, self._lease_job, self._keep_s = lease, job, keep_s
            self._runs += 1
        started = time.perf_counter()
        try:
            self._open(jobs, limits, options)
        except BaseException:
            with self._state:
                self._close()
                self._lease, self._idle_since = None, time.monotonic()
                self._state.notify_all()
            raise
        self._see_loaded()
        return dict(self.info(), state="ok", changed=changed,
                    open_s=round(time.perf_counter() - started, 3))

    def _see_loaded(self) -> None:
        """Hash the judge's modules loaded since the last look."""
        root = str(_root())
        for name, module in list(sys.modules.items()):
            if name != "judge" and not name.startswith("judge."):
                continue
            path = getattr(module, "__file__", None)
            if path and path.startswith(root + os.sep):
                relative = Path(path).relative_to(root).as_posix()
                if relative not in self._loaded:
                    self._loaded[relative] = _digest(Path(path))

    def _changed(self, sources: dict[str, str]) -> list[str]:
        """The loaded modules whose source differs from the driver's (at most 5 named)."""
        return sorted(path for path, digest in self._loaded.items()
                      if sources.get(path) != digest)[:5]

    def release(self, lease: str, keep_s: float | None = None) -> bool:
        """End the run on this actor: stop the checker helpers, then the sandbox (no worker
        or container survives) and drop the run's problems. The process stays for the next
        run, ``keep_s`` at most. False when ``lease`` is not (any more) this actor's."""
        with self._state:
            if lease != self._lease:
                return False
            try:
                self._close()
                self._see_loaded()
            finally:
                self._lease, self._lease_job = None, None
                if keep_s is not None:
                    self._keep_s = keep_s
                self._idle_since = time.monotonic()
                self._state.notify_all()
        return True

    def stop(self, force: bool = False) -> bool:
        """End this actor now (after closing its sandbox): when idle, or always with
        ``force`` (a run holding it then loses it, and retries its candidates elsewhere)."""
        with self._state:
            if self._lease is not None and not force:
                return False
            self._exit()
            return True

    def state(self) -> dict[str, Any]:
        """What :func:`judge.distribution.ray_session.kept_actors` lists."""
        with self._state:
            return {"pid": os.getpid(), "kind": self.kind, "version": self.version(),
                    "leased": self._lease is not None, "runs": self._runs,
                    "keep_s": self._keep_s, "exiting": self._exiting,
                    "idle_s": (None if self._lease is not None
                               else round(time.monotonic() - self._idle_since, 3))}

    def version(self) -> str:
        """The judge's version and a hash of the modules this actor has loaded."""
        import judge

        digest = hashlib.sha256(repr(sorted(self._loaded.items())).encode()).hexdigest()
        return "%s+%s" % (judge.__version__, digest[:12])

    def _job_alive(self, job: str | None) -> bool:
        """Whether the driver job ``job`` is still running (unknown: alive)."""
        if not job:
            return True
        try:
            import ray

            client = ray._private.worker.global_worker.gcs_client
            infos = client.get_all_job_info(skip_submission_job_info_field=True,
                                            skip_is_running_tasks_field=True, timeout=10)
            for job_id, info in infos.items():
                if job_id.hex() == job:
                    return not info.is_dead
            return False
        except Exception:  # noqa: BLE001 - cannot tell: the lease stands
            return True

    def _watch(self) -> None:
        """The actor's clock: take back the lease of a driver that is gone; end the actor
        after ``keep_s`` with no run, or when :meth:`stop` asked."""
        with self._state:
            while not self._exiting:
                if self._lease is None:
                    left = (self._idle_since + self._keep_s - time.monotonic()
                            if self._detached else 3600.0)
                    if left <= 0:
                        self._exit()
                        break
                    self._state.wait(min(left, 3600.0))
                    continue
                lease, job = self._lease, self._lease_job
                self._state.wait(LEASE_CHECK_S)
                if self._lease != lease or self._exiting:
                    continue
                self._state.release()  # asking the GCS may take a while: not under the lock
                try:
                    alive = self._job_alive(job)
                finally:
                    self._state.acquire()
                if self._lease == lease and not alive:
                    self._close()
                    self._lease, self._idle_since = None, time.monotonic()
        self._end()

    def _exit(self) -> None:
        """(Under the state lock.) Close the sandbox and have the process end."""
        self._exiting = True
        self._close()
        self._state.notify_all()

    def _end(self) -> None:
        import ray

        try:
            ray.kill(ray.get_runtime_context().current_actor, no_restart=True)
        except Exception:  # noqa: BLE001 - then the process ends by itself
            pass
        time.sleep(5)
        os._exit(0)

    # ---- the run's sandbox ------------------------------------------------------------------

    def _open(self, jobs: int, limits: Limits, options: dict[str, Any]) -> None:
        from judge.distribution.executors import open_local

        self.notes = []
        self.jobs = jobs
        # as judge.Judge does: the local executor (under Docker, the other languages go to
        # the native image)
        options = {"test_isolation": "per-test", **options}
        self.executor = open_local(self.kind, jobs, limits, notice=self.notes.append,
                                   options=options)
        self.sandbox = self.executor.sandbox
        #: candidates judged at once: the executor's slots (its sandbox's capacity)
        self.slots = max(1, int(getattr(self.executor, "slots", jobs)))
        self._pool = ThreadPoolExecutor(max_workers=self.slots, thread_name_prefix="judge")
        with self._arrived:
            self._problems = {}

    def _close(self) -> None:
        """Close the run's sandbox, if one is open (idempotent)."""
        pool, executor, sandbox = self._pool, self.executor, self.sandbox
        self._pool, self.executor, self.sandbox = None, None, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        try:
            if executor is not None:
                executor.close()
        finally:
            if sandbox is not None:
                sandbox.close()
            with self._arrived:
                self._problems.clear()

    def info(self) -> dict[str, Any]:
        import ray

        sandbox = self.sandbox
        return {"node_id": ray.get_runtime_context().get_node_id(), "pid": os.getpid(),
                "actor_id": ray.get_runtime_context().get_actor_id(),
                "version": self.version(), "runs": self._runs, "jobs": self.jobs,
                "slots": self.slots, "notes": self.notes,
                "sandbox": sandbox.describe() if sandbox is not None else {},
                "isolation": sandbox.isolation() if sandbox is not None else {}}

    def judge_chunk(self, lease: str, problems: dict[str, Problem],
                    items: list[tuple[str, Submission, dict[str, Any]]]) -> list[Any]:
        """Judge a chunk of candidates, ``slots`` at a time (with the candidates of the
        other chunks in flight), and answer one entry per candidate, in order: its
        CandidateResult, an :class:`ItemError` when judging it raised, or
        :data:`NEED_PROBLEM`. The driver sends each problem to an actor once (in
        ``problems``, with the first chunk that needs it) and afterwards only its key; a
        chunk may overtake the one carrying its problem, so a missing one is waited for.
        No ObjectRef travels inside the arguments: a nested one makes every call a
        reference-counting round trip with the driver."""
        pool = self._pool
        if lease != self._lease or pool is None:
            raise LeaseLost("this actor is not leased to the run (any more)")
        if problems:
            with self._arrived:
                for key, problem in problems.items():
                    self._problems.setdefault(key, problem)
                self._arrived.notify_all()
        pending: list[Any] = []
        for key, submission, meta in items:
            problem = self._problem(key)
            pending.append(NEED_PROBLEM if problem is None else pool.submit(
                self._judge, problem, submission, meta))
        return [entry if isinstance(entry, str) else entry.result() for entry in pending]

    def _problem(self, key: str) -> Problem | None:
        with self._arrived:
            self._arrived.wait_for(lambda: key in self._problems, timeout=PROBLEM_WAIT_S)
            return self._problems.get(key)

    def _judge(self, problem: Problem, submission: Submission,
               meta: dict[str, Any]) -> CandidateResult | ItemError:
        try:
            return self.executor.judge(problem, submission, **meta)
        except Exception as exc:  # noqa: BLE001 - the driver retries it elsewhere
            return ItemError(short(exc))
