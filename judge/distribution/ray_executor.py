"""The Ray executor: judging spread over a Ray cluster, one warm sandbox pool per node.

    judge run SUITE --solutions FILE --executor ray [--ray-address ADDR]
    judge.Judge(executor="ray", ray_address="ray://...")

One :class:`~judge.distribution.ray_actor.JudgeActor` per node, leased to the run, opens a warm
sandbox for it (Docker where the node has an engine, else the process sandbox, as
``--sandbox`` says) and judges as many candidates at once as that sandbox takes (its slots).
On a cluster the actors are detached and named, and kept warm for the next driver
(:mod:`judge.distribution.ray_session`). Candidates travel in chunks, one actor
call per chunk, several chunks in flight per actor, problems sent once per actor: which
candidates go where, and how many per call, is :mod:`judge.distribution.ray_dispatch`. The
driver keeps everything else of a run where it is: :class:`judge.running.batch.BatchRunner` reads the candidates, bounds the work
in flight, writes results in input order and skips what ``--resume`` already holds; it only
sees :class:`RayExecutor` in place of the local :class:`~judge.kinds.function.judge.Executor`.

A node lost mid-run: its actor's calls fail with a Ray error, the actor is dropped and each
of its candidates (those of its chunks in flight, and those queued for it) is sent to another
actor (up to ``retries`` times); only when every retry
failed is the candidate written as ``sandbox_error`` (our failure, never the candidate's).
Each candidate is written exactly once because the writing stays on the driver.

Process sandbox user ids: several nodes may share one machine (a laptop cluster); each
actor's process sandbox leases its candidate uids under the host-wide lock
(:class:`judge.sandbox.backends.process.sandbox.UidLease`), so no two actors share a uid and one actor's
cleanup never kills another's candidates.

Layering: the actor builds its sandbox and :class:`Executor` itself (what ``judge.Judge``
does locally) instead of importing the public API, so this module stays below it and
``judge.Judge(executor="ray")`` can use it. ``JudgeActor`` is re-exported here.
"""

from __future__ import annotations

import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

# judge.problem first: importing judge.kinds.function.judge before it is an import cycle
from judge.problem.model import Problem
from judge.distribution import ray_session
from judge.candidates.submission import Submission
from judge.distribution.ray_actor import JudgeActor, LeaseLost, source_hashes
from judge.distribution.ray_actor import short as _short
from judge.distribution.ray_dispatch import (CHUNKS_IN_FLIGHT, MAX_CHUNK, PIPELINE, Dispatcher,
                                          Job, Member)
from judge.engine.verdicts import CandidateResult
from judge.sandbox.admission import OVERCOMMIT
from judge.sandbox.base import Limits
from judge.settings import settings

DEFAULT_RETRIES = 3
START_TIMEOUT_S = 180.0
#: named actors tried per node (busy, stale or dead ones skipped) before a run's own one
MAX_SLOTS = 8


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        from judge.sandbox.base import SandboxUnavailable

        raise SandboxUnavailable("the Ray executor needs the 'ray' extra: "
                                 "pip install 'judge[ray]'") from None
    return ray


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

        # RAY_ADDRESS (Ray reads it too: an address left None is Ray's to take from there)
        env_address = settings().ray_address

        def init() -> None:
            kwargs: dict[str, Any] = {"log_to_driver": False}
            target = address
            if address is None and not env_address:
                # a private Ray for this run: "local" starts one, where a bare ray.init()
                # would join any cluster already running on this machine
                target, kwargs["include_dashboard"] = "local", False
            _check_reachable(address or env_address)
            ray.init(address=target, **kwargs)

        try:
            ray_session.connect(ray, address, init)
        except Exception as exc:  # noqa: BLE001 - no cluster there: say so, exit 3
            from judge.sandbox.base import SandboxUnavailable

            raise SandboxUnavailable("cannot reach a Ray cluster at %s: %s" % (
                address or env_address or "(local)", _short(exc))
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
        """One actor per node, leased to this run with a fresh sandbox: on a cluster, the
        node's kept actor found by name (:mod:`judge.distribution.ray_session`; a busy, stale or
        dead one is skipped for the next name), else a new one under that name; with a
        private Ray, a new actor of this run. A node that cannot judge is skipped, with a
        notice."""
        ray = _ray()
        self._detached = ray_session.keeps_actors()
        self._keep_s = ray_session.keep_seconds()
        self._lease = secrets.token_hex(8)
        self._job = ray_session.driver_job(ray)
        sources = source_hashes()
        #: node id -> (jobs, slot tried next)
        wanted = {}
        for node in self._nodes():
            wanted[node["NodeID"]] = (self.jobs or max(1, int(node["Resources"]["CPU"])), 0)
        while wanted:
            pending = []
            for node_id, (jobs, slot) in wanted.items():
                handle, new = self._actor_for(node_id, jobs, slot)
                member = self._member(handle, node_id, jobs)
                pending.append((member, slot, new, handle.acquire.remote(
                    self._lease, self._job, sources, not new, jobs, self.limits,
                    self.options, self._keep_s)))
            wanted = {}
            for member, slot, new, ref in pending:
                detail, problem = self._leased(member, ref, new)
                if detail is None and not new:  # busy, stale or gone: the next name
                    wanted[member.node_id] = (member.jobs, slot + 1)
                    continue
                if detail is None:
                    self.notice("ray: node %s cannot judge (%s); skipped" % (
                        member.node_id[:12], problem))
                    continue
                if new:
                    self.started_actors += 1
                else:
                    self.reused_actors += 1
                if detail.get("changed"):
                    self.notice("ray node %s runs other judge code than the driver's (%s)" % (
                        member.node_id[:12], ", ".join(detail["changed"])))
                for note in detail.get("notes", []):
                    self.notice("ray node %s: %s" % (member.node_id[:12], note))
                member.slots = max(1, int(detail.get("slots", member.jobs)))
                member.sandbox = detail.get("sandbox", {})
                member.isolation = detail.get("isolation", {})
                member.pid = detail.get("pid")
                member.actor_id = detail.get("actor_id")
                member.kept = self._detached and slot < MAX_SLOTS
                self._members.append(member)
        if not self._members:
            from judge.sandbox.base import SandboxUnavailable

            raise SandboxUnavailable("no Ray node could open a sandbox")

    def _actor_for(self, node_id: str, jobs: int, slot: int) -> tuple[Any, bool]:
        """(the actor of ``slot`` on the node, whether it was started just now): the kept
        one under that name, else a new one under it (another driver starting the same
        name at once gets the same actor, and one of them finds it busy); past
        :data:`MAX_SLOTS`, or with nothing to keep, a new actor of this run alone."""
        ray = _ray()
        concurrency = _concurrency(jobs)
        if not self._detached or slot >= MAX_SLOTS:
            return self._new_actor(node_id, jobs, concurrency), True
        name = ray_session.actor_name(node_id, self.sandbox_kind, concurrency, slot)
        try:
            return ray.get_actor(name, namespace=ray_session.namespace()), False
        except ValueError:  # none (or a dead one) under that name
            return self._new_actor(node_id, jobs, concurrency, name), True

    def _leased(self, member: Member, ref: Any, new: bool) -> tuple[dict[str, Any] | None, str]:
        """The actor's answer to :meth:`JudgeActor.acquire` when it is this run's, or (None,
        why); a new actor that cannot judge is killed."""
        ray = _ray()
        try:
            answer = ray.get(ref, timeout=START_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - a node that cannot judge is skipped
            answer, problem = None, _short(exc)
        else:
            if answer.get("state") == "ok":
                return answer, ""
            problem = "actor %s" % answer.get("state")
        if new:
            try:
                ray.kill(member.handle)
            except Exception:  # noqa: BLE001 - gone already
                pass
        return None, problem

    def _member(self, handle: Any, node_id: str, jobs: int) -> Member:
        self._numbers += 1
        return Member(handle, node_id, jobs, self._numbers)

    def _new_actor(self, node_id: str, jobs: int, concurrency: int,
                   name: str | None = None) -> Any:
        """A new actor on the node: named and detached (kept for later drivers) with a
        ``name``, else an ordinary one that ends with this run."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        kept = {"name": name, "namespace": ray_session.namespace(), "lifetime": "detached",
                "get_if_exists": True} if name else {}
        return _actor_class().options(
            # the chunks in flight (Member.max_chunks of a sandbox with the default
            # overcommit), and acquire/release beside them; no CPU of the cluster held, so
            # an idle kept actor holds none
            num_cpus=0, max_concurrency=concurrency, max_restarts=0,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False), **kept,
        ).remote(self.sandbox_kind, self._keep_s, bool(name))

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
                "kept": self._detached,
                "node_sandboxes": [dict(m.sandbox, node_id=m.node_id, pid=m.pid,
                                        actor_id=m.actor_id) for m in members]}

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
                self._lease, problems, [(job.key, job.submission, job.meta) for job in jobs])
        except Exception as exc:  # noqa: BLE001 - not sent (its arguments): not the actor's fault
            self._dispatch.finished(member, jobs, problems, None, _short(exc))
            return
        try:
            answers = ray.get(ref)
        except ray.exceptions.RayTaskError as exc:  # the chunk's call raised on the node
            # (a call refused for want of the lease: the actor is not this run's any more)
            error, lost = _short(exc), isinstance(exc, LeaseLost) or "LeaseLost" in str(exc)
        except ray.exceptions.RayError as exc:  # actor, worker or node lost
            error, lost = _short(exc), True
        except Exception as exc:  # noqa: BLE001 - Ray itself gone (shut down): the actor too
            error, lost = _short(exc), True
        self._dispatch.finished(member, jobs, problems, answers, error, lost)

    # ---- judging -------------------------------------------------------------------------

    def judge(self, problem: Problem, submission: Submission, **meta: Any) -> CandidateResult:
        """Judge one candidate: queued for an actor, sent in a chunk with others (see
        :mod:`judge.distribution.ray_dispatch`); blocks for its result. Thread-safe."""
        job = Job(problem, self._problem_key(problem), submission, meta)
        self._dispatch.submit(job)
        return job.future.result()

    def close(self) -> None:
        """Close every actor's sandbox (no worker or container survives) and end its
        lease; a kept actor that had nothing in flight stays for the next run, any driver's
        (:mod:`ray_session`); the others are ended; disconnect (a private Ray stops)."""
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
        releasing = [(m, m.handle.release.remote(self._lease, self._keep_s))
                     for m in members if m.alive]
        for member, ref in releasing:
            try:
                if not ray.get(ref, timeout=60):
                    quiet.discard(id(member))  # not this run's any more
            except Exception:  # noqa: BLE001 - a lost node has nothing left to close
                quiet.discard(id(member))
        for member in members:
            if id(member) in quiet and member.kept:
                continue  # idle now, for the next run; it ends itself after keep_s
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


class RayExecutorKind:
    """``ray`` in :data:`judge.distribution.executors.EXECUTORS`."""

    name = "ray"
    description = "one warm sandbox per node of a Ray cluster (the 'ray' extra)"
    remote = True

    def open(self, sandbox: Any, jobs: int, limits: Limits, *, notice: Callable[[str], None],
             options: dict[str, Any], address: str | None = None) -> "RayExecutor":
        return RayExecutor(address=address, sandbox=sandbox or "auto", jobs=jobs,
                           limits=limits, notice=notice, options=options)

    def prerequisites(self) -> list[Any]:
        from judge.distribution.executors import ray_prerequisites

        return ray_prerequisites()
