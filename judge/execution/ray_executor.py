"""The Ray executor: judging spread over a Ray cluster, one warm sandbox pool per node.

    judge run SUITE --solutions FILE --executor ray [--ray-address ADDR]
    judge.Judge(executor="ray", ray_address="ray://...")

One :class:`JudgeActor` per node owns a :class:`judge.Judge` (so a warm sandbox: Docker where
the node has an engine, else the process sandbox, as ``--sandbox`` says) and judges as many
candidates at once as that sandbox takes (its slots). Candidates travel in chunks, one actor
call per chunk, several chunks in flight per actor, problems sent once per actor: which
candidates go where, and how many per call, is :mod:`judge.execution.ray_dispatch`. The driver keeps everything else of a run
where it is: :class:`judge.execution.batch.BatchRunner` reads the candidates, bounds the work
in flight, writes results in input order and skips what ``--resume`` already holds; it only
sees :class:`RayExecutor` in place of the local :class:`~judge.execution.executor.Executor`.

A node lost mid-run: its actor's calls fail with a Ray error, the actor is dropped and each
of its candidates (those of its chunks in flight, and those queued for it) is sent to another
actor (up to ``retries`` times); only when every retry
failed is the candidate written as ``sandbox_error`` (our failure, never the candidate's).
Each candidate is written exactly once because the writing stays on the driver.

Process sandbox user ids: several nodes may share one machine (a laptop cluster); each
actor's process sandbox leases its candidate uids under the host-wide lock
(:class:`judge.sandbox.process.UidLease`), so no two actors share a uid and one actor's
cleanup never kills another's candidates.

Layering: the actor builds its sandbox and :class:`Executor` itself (what ``judge.Judge``
does locally) instead of importing the public API, so this module stays below it and
``judge.Judge(executor="ray")`` can use it.
"""

from __future__ import annotations

import os
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

# judge.problem first: importing judge.execution.executor before it is an import cycle
from judge.problem.model import Problem
from judge.execution import ray_session
from judge.execution.executor import Submission
from judge.execution.ray_dispatch import (CHUNKS_IN_FLIGHT, MAX_CHUNK, NEED_PROBLEM, PIPELINE,
                                          Dispatcher, ItemError, Job, Member)
from judge.execution.verdicts import CandidateResult
from judge.sandbox.admission import OVERCOMMIT
from judge.sandbox.base import Limits

DEFAULT_RETRIES = 3
START_TIMEOUT_S = 180.0
#: how long an actor waits for a problem sent with an earlier chunk that has not reached it
PROBLEM_WAIT_S = 10.0


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        from judge.sandbox.base import SandboxUnavailable

        raise SandboxUnavailable("the Ray executor needs the 'ray' extra: "
                                 "pip install 'judge[ray]'") from None
    return ray


class JudgeActor:
    """Runs on one node: a warm sandbox of ``jobs`` workers and an Executor over it, as
    ``judge.Judge`` builds locally. Made a Ray actor by :func:`_actor_class` (so importing
    this module does not need Ray)."""

    def __init__(self, sandbox: str, jobs: int, limits: Limits,
                 options: dict[str, Any]) -> None:
        self.kind = sandbox
        self._open(jobs, limits, options)

    def _open(self, jobs: int, limits: Limits, options: dict[str, Any]) -> None:
        from judge.execution.executors import open_local

        self.notes: list[str] = []
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
        #: this run's problems (each run's keys carry a token of their own)
        self._problems: dict[str, Problem] = {}
        self._arrived = threading.Condition()
        self._released = False

    def reopen(self, jobs: int, limits: Limits, options: dict[str, Any]) -> dict[str, Any]:
        """A kept actor taken by a new run (:mod:`judge.execution.ray_session`): a fresh
        sandbox and executor with that run's jobs, limits and options; nothing of the
        earlier run is left (its problems are dropped). Answers :meth:`info`."""
        if not self._released:
            self.release()
        self._open(jobs, limits, options)
        return self.info()

    def info(self) -> dict[str, Any]:
        import ray

        return {"node_id": ray.get_runtime_context().get_node_id(), "pid": os.getpid(),
                "jobs": self.jobs, "slots": self.slots, "sandbox": self.sandbox.describe(),
                "isolation": self.sandbox.isolation(), "notes": self.notes}

    def judge_chunk(self, problems: dict[str, Problem],
                    items: list[tuple[str, Submission, dict[str, Any]]]) -> list[Any]:
        """Judge a chunk of candidates, ``slots`` at a time (with the candidates of the
        other chunks in flight), and answer one entry per candidate, in order: its
        CandidateResult, an :class:`ItemError` when judging it raised, or
        :data:`NEED_PROBLEM`. The driver sends each problem to an actor once (in
        ``problems``, with the first chunk that needs it) and afterwards only its key; a
        chunk may overtake the one carrying its problem, so a missing one is waited for.
        No ObjectRef travels inside the arguments: a nested one makes every call a
        reference-counting round trip with the driver."""
        if problems:
            with self._arrived:
                for key, problem in problems.items():
                    self._problems.setdefault(key, problem)
                self._arrived.notify_all()
        pending: list[Any] = []
        for key, submission, meta in items:
            problem = self._problem(key)
            pending.append(NEED_PROBLEM if problem is None else self._pool.submit(
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
            return ItemError(_short(exc))

    def release(self) -> bool:
        """End the run on this actor: stop the checker helpers, then the sandbox (no worker
        or container survives), and drop the run's problems. The process stays, for
        :meth:`reopen` or to be killed."""
        self._released = True
        self._pool.shutdown(wait=False, cancel_futures=True)
        try:
            self.executor.close()
        finally:
            self.sandbox.close()
            with self._arrived:
                self._problems.clear()
        return True


_ACTOR: Any = None


def _actor_class() -> Any:
    global _ACTOR
    if _ACTOR is None:
        _ACTOR = _ray().remote(JudgeActor)
    return _ACTOR


class RayExecutor:
    """Stands in for the local Executor inside BatchRunner: ``judge()`` queues a candidate
    for an actor (sent in a chunk) and blocks for its result; infrastructure failures are
    retried on another actor. Thread-safe; ``slots`` is how many candidates may be on their
    way at once (BatchRunner's ``jobs``)."""

    def __init__(self, *, address: str | None = None, sandbox: str = "auto",
                 jobs: int | None = None, limits: Limits | None = None,
                 options: dict[str, Any] | None = None, retries: int = DEFAULT_RETRIES,
                 notice: Callable[[str], None] = lambda message: None) -> None:
        ray = _ray()
        self.limits = limits or Limits()
        self.sandbox_kind = sandbox
        self.jobs = jobs
        self.options = options or {}
        self.retries = retries
        self.notice = notice

        def init() -> None:
            kwargs: dict[str, Any] = {"log_to_driver": False}
            if address is None and not os.environ.get("RAY_ADDRESS"):
                kwargs["include_dashboard"] = False  # a private Ray for this run
            _check_reachable(address or os.environ.get("RAY_ADDRESS"))
            ray.init(address=address, **kwargs)

        try:
            ray_session.connect(ray, address, init)
        except Exception as exc:  # noqa: BLE001 - no cluster there: say so, exit 3
            from judge.sandbox.base import SandboxUnavailable

            raise SandboxUnavailable("cannot reach a Ray cluster at %s: %s" % (
                address or os.environ.get("RAY_ADDRESS") or "(local)", _short(exc))
            ) from None
        #: this run's problem keys carry it: a kept actor never takes an earlier run's
        self._token = secrets.token_hex(4)
        #: actors taken from the ones kept by an earlier run, and started for this one
        self.reused_actors = 0
        self.started_actors = 0
        self._lock = threading.Lock()
        self._members: list[Member] = []
        self._numbers = 0
        self._problem_keys: dict[int, tuple[Problem, str]] = {}
        self._closed = False
        try:
            self._start_actors()
        except BaseException:
            ray_session.disconnect(ray)
            raise
        self._dispatch = Dispatcher(self._members, self._send, retries, notice)
        #: one thread per chunk in flight (started as needed): it waits for the answers
        self._calls = ThreadPoolExecutor(max_workers=sum(m.max_chunks for m in self._members),
                                         thread_name_prefix="ray-chunk")

    # ---- actors --------------------------------------------------------------------------

    def _nodes(self) -> list[dict[str, Any]]:
        ray = _ray()
        return [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU")]

    def _start_actors(self) -> None:
        """One actor per node: one the driver kept from its last run, with a fresh sandbox
        (:mod:`judge.execution.ray_session`), else a new one; a node that cannot judge is
        skipped, with a notice."""
        pending = []
        for node in self._nodes():
            jobs = self.jobs or max(1, int(node["Resources"]["CPU"]))
            key = self._actor_key(node["NodeID"], jobs)
            handle = ray_session.take(key)
            if handle is not None:
                pending.append((self._member(handle, node["NodeID"], jobs),
                                handle.reopen.remote(jobs, self.limits, self.options), True))
            else:
                handle = self._new_actor(node["NodeID"], jobs, key)
                pending.append((self._member(handle, node["NodeID"], jobs),
                                handle.info.remote(), False))
        for member, info, reused in pending:
            detail, problem = self._started(member, info)
            if detail is None and reused:  # a kept actor that is gone: a new one there
                member.handle = self._new_actor(member.node_id, member.jobs,
                                                self._actor_key(member.node_id, member.jobs))
                detail, problem = self._started(member, member.handle.info.remote())
            elif reused:
                self.reused_actors += 1
            if detail is None:
                self.notice("ray: node %s cannot judge (%s); skipped" % (
                    member.node_id[:12], problem))
                continue
            for note in detail.get("notes", []):
                self.notice("ray node %s: %s" % (member.node_id[:12], note))
            member.slots = max(1, int(detail.get("slots", member.jobs)))
            member.sandbox = detail.get("sandbox", {})
            member.isolation = detail.get("isolation", {})
            member.pid = detail.get("pid")
            self._members.append(member)
        if not self._members:
            from judge.sandbox.base import SandboxUnavailable

            raise SandboxUnavailable("no Ray node could open a sandbox")

    def _started(self, member: Member, info: Any) -> tuple[dict[str, Any] | None, str]:
        """The actor's :meth:`JudgeActor.info` once it is up, or (None, why) and the actor
        killed."""
        ray = _ray()
        try:
            return ray.get(info, timeout=START_TIMEOUT_S), ""
        except Exception as exc:  # noqa: BLE001 - a node that cannot judge is skipped
            try:
                ray.kill(member.handle)
            except Exception:  # noqa: BLE001 - gone already
                pass
            return None, _short(exc)

    def _actor_key(self, node_id: str, jobs: int) -> tuple[Any, ...]:
        """What a kept actor must match to be taken: its node, sandbox kind and the
        concurrency it was made with (jobs, limits and options are the new run's)."""
        return (node_id, self.sandbox_kind, _concurrency(jobs))

    def _member(self, handle: Any, node_id: str, jobs: int) -> Member:
        self._numbers += 1
        return Member(handle, node_id, jobs, self._numbers)

    def _new_actor(self, node_id: str, jobs: int, key: tuple[Any, ...]) -> Any:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self.started_actors += 1
        return _actor_class().options(
            # the chunks in flight (Member.max_chunks of a sandbox with the default
            # overcommit), and info/release beside them; no CPU of the cluster held, so
            # an idle kept actor holds none
            num_cpus=0, max_concurrency=key[2], max_restarts=0,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
        ).remote(self.sandbox_kind, jobs, self.limits, self.options)

    @property
    def slots(self) -> int:
        """Candidates in flight across the cluster (at start), the bound BatchRunner keeps:
        what every actor may have in flight (its ``depth``) and a chunk more, so that a
        full chunk is queued whenever an actor can take one."""
        return sum(m.depth for m in self._members) + MAX_CHUNK

    def describe(self) -> dict[str, Any]:
        members = [m for m in self._members if m.alive]
        kinds = sorted({m.sandbox.get("kind", "?") for m in members})
        return {"kind": "ray", "nodes": len(members), "jobs": sum(m.jobs for m in members),
                "sandboxes": kinds, "retried": self.retried, "lost_actors": self.lost_actors,
                "chunks": self._dispatch.chunks, "reused_actors": self.reused_actors,
                "started_actors": self.started_actors,
                "node_sandboxes": [dict(m.sandbox, node_id=m.node_id, pid=m.pid)
                                   for m in members]}

    def isolation(self) -> dict[str, Any]:
        """The isolation facts of the nodes: the weakest one's (``isolated`` false when any
        node runs unisolated), with ``backend`` naming every node's sandbox."""
        facts = [m.isolation for m in self._members if m.alive and m.isolation]
        if not facts:
            return {"backend": self.name, "isolated": False}
        weakest = dict(min(facts, key=lambda f: bool(f.get("isolated"))))
        weakest["backend"] = "ray: %d node%s, %s" % (
            len(facts), "" if len(facts) == 1 else "s",
            ", ".join(sorted({str(f.get("backend")) for f in facts})))
        return weakest

    @property
    def name(self) -> str:
        return "ray (%s)" % ", ".join(self.describe()["sandboxes"])

    @property
    def retried(self) -> int:
        return self._dispatch.retried

    @property
    def lost_actors(self) -> int:
        return self._dispatch.lost_actors

    def _problem_key(self, problem: Problem) -> str:
        """A key for a problem, unique in this run (the problem object is kept with it, so
        its ``id`` cannot be reused by another)."""
        entry = self._problem_keys.get(id(problem))
        if entry is None:
            with self._lock:
                entry = self._problem_keys.setdefault(
                    id(problem), (problem, "%s-%x-%s" % (self._token, id(problem),
                                                         problem.identifier)))
        return entry[1]

    def _send(self, member: Member, jobs: list[Job], problems: dict[str, Problem]) -> None:
        try:
            self._calls.submit(self._call, member, jobs, problems)
        except RuntimeError as exc:  # closed meanwhile: every job is still answered
            self._dispatch.finished(member, jobs, problems, None, _short(exc))

    def _call(self, member: Member, jobs: list[Job], problems: dict[str, Problem]) -> None:
        """One chunk on one actor (in a thread of its own): its answers, or the failure,
        go back to the dispatcher, which hands out results and sends what is next."""
        ray = _ray()
        answers, error, lost = None, None, False
        try:
            ref = member.handle.judge_chunk.remote(
                problems, [(job.key, job.submission, job.meta) for job in jobs])
        except Exception as exc:  # noqa: BLE001 - not sent (its arguments): not the actor's fault
            self._dispatch.finished(member, jobs, problems, None, _short(exc))
            return
        try:
            answers = ray.get(ref)
        except ray.exceptions.RayTaskError as exc:  # the chunk's call raised on the node
            error = _short(exc)
        except ray.exceptions.RayError as exc:  # actor, worker or node lost
            error, lost = _short(exc), True
        except Exception as exc:  # noqa: BLE001 - Ray itself gone (shut down): the actor too
            error, lost = _short(exc), True
        self._dispatch.finished(member, jobs, problems, answers, error, lost)

    # ---- judging -------------------------------------------------------------------------

    def judge(self, problem: Problem, submission: Submission, **meta: Any) -> CandidateResult:
        """Judge one candidate: queued for an actor, sent in a chunk with others (see
        :mod:`judge.execution.ray_dispatch`); blocks for its result. Thread-safe."""
        job = Job(problem, self._problem_key(problem), submission, meta)
        self._dispatch.submit(job)
        return job.future.result()

    def close(self) -> None:
        """Close every actor's sandbox (no worker or container survives); keep each actor
        that had nothing in flight for the driver's next run (:mod:`ray_session`), end the
        others; disconnect (a private Ray stops)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            members = list(self._members)
        self._dispatch.close()
        ray = _ray()
        # in flight after the queue is answered: a run given up mid-way; such an actor is
        # ended, not kept (its calls may still be judging)
        quiet = {id(m) for m in members if m.alive and not m.in_flight and not m.chunks}
        releasing = [(m, m.handle.release.remote()) for m in members if m.alive]
        for member, ref in releasing:
            try:
                ray.get(ref, timeout=60)
            except Exception:  # noqa: BLE001 - a lost node has nothing left to close
                quiet.discard(id(member))
        for member in members:
            key = self._actor_key(member.node_id, member.jobs)
            if id(member) in quiet and ray_session.keep(key, member.handle):
                continue
            try:
                ray.kill(member.handle)
            except Exception:  # noqa: BLE001
                pass
        self._calls.shutdown(wait=True)
        self._problem_keys.clear()
        ray_session.disconnect(ray)


def _concurrency(jobs: int) -> int:
    """An actor's ``max_concurrency``: the chunks in flight of a sandbox of ``jobs`` with
    the default overcommit (Member.max_chunks), and two calls beside them."""
    return max(CHUNKS_IN_FLIGHT, PIPELINE * OVERCOMMIT * jobs) + 2


def _check_reachable(address: str | None, timeout: float = 5.0) -> None:
    """A ``host:port`` cluster address must accept a connection: ``ray.init`` would retry a
    dead address for minutes. (``ray://``, ``auto`` and ``local`` are left to Ray.)"""
    if not address or "://" in address or address in ("auto", "local"):
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError("a Ray address is host:port or ray://host:port, got %r" % address)
    import socket

    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ConnectionError("nothing answers at %s (%s)" % (address, exc.strerror or exc)
                              ) from None


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, text[0][:200] if text else "")


class RayExecutorKind:
    """``ray`` in :data:`judge.execution.executors.EXECUTORS`."""

    name = "ray"
    description = "one warm sandbox per node of a Ray cluster (the 'ray' extra)"
    remote = True

    def open(self, sandbox: Any, jobs: int, limits: Limits, *, notice: Callable[[str], None],
             options: dict[str, Any], address: str | None = None) -> "RayExecutor":
        return RayExecutor(address=address, sandbox=sandbox or "auto", jobs=jobs,
                           limits=limits, notice=notice, options=options)

    def prerequisites(self) -> list[Any]:
        from judge.execution.executors import ray_prerequisites

        return ray_prerequisites()
