"""Which candidates go to which Ray actor, and how many per call (the driver's side of
:mod:`judge.distribution.ray_executor`; no Ray here, so the rules are testable alone).

One actor call per candidate costs more than an easy candidate (serialising the call,
scheduling it on the actor, the reply): so candidates travel in **chunks**, one actor call
each, and every chunk's results come back together.

- **Chunk size**, per actor: up to :data:`MAX_CHUNK`, sized from the actor's slots (the
  candidates its sandbox judges at once) and the time its candidates take, so that a chunk
  keeps every slot busy for about :data:`TARGET_CHUNK_S` (easy candidates: full chunks; slow
  ones: a chunk per slot or a single candidate, so their results are not held back).
- **In flight**: up to ``depth`` candidates per actor (``PIPELINE`` per slot, and a chunk
  more) in up to ``max_chunks`` calls (``PIPELINE`` per slot, at least
  :data:`CHUNKS_IN_FLIGHT`: slow candidates go one per call, as many as before chunks):
  while one chunk's results travel back, the next ones are already judged, so the actor's
  workers never starve. A chunk smaller than its
  size is sent only when the actor would otherwise run out of work (fewer candidates than
  slots in flight): a lone ``Judge.judge()`` call or the end of a run goes at once.
- **Affinity**: a problem has a home actor (the least loaded when it is first seen); its
  candidates queue there, so a problem is sent to, and its reference solution timed on, one
  node. An actor that would idle takes work from the others' queues (oldest first).
- **Failures**, per candidate as before: a candidate whose judging raised on the actor, or
  whose actor was lost (a Ray error: the actor is dropped, its queue goes to the others), is
  sent again, up to ``retries`` times; then it is ``sandbox_error``. Each candidate's result
  is handed back once, to the caller waiting for it; order is the batch runner's business.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Future
from typing import Any, Callable

from judge.problem.model import Problem
from judge.candidates.submission import Submission
from judge.engine.verdicts import CandidateResult, TestResult, Verdict

#: candidates per actor call, at most
MAX_CHUNK = 16
#: actor calls in flight per actor, at least this many allowed (more on an actor of many slots)
CHUNKS_IN_FLIGHT = 4
#: candidates in flight per actor slot (besides a chunk's worth more)
PIPELINE = 2
#: a chunk keeps the actor's slots busy about this long (chunk size from candidate times)
TARGET_CHUNK_S = 0.25
#: an actor's answer for a candidate whose problem has not reached it
NEED_PROBLEM = "need-problem"


class ItemError:
    """An actor's answer for one candidate whose judging raised (the others of its chunk
    are unaffected)."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return ItemError, (self.message,)


class Job:
    """One candidate on its way: its caller waits on ``future``."""

    __slots__ = ("problem", "key", "submission", "meta", "future", "attempts", "errors",
                 "avoid")

    def __init__(self, problem: Problem, key: str, submission: Submission,
                 meta: dict[str, Any]) -> None:
        self.problem, self.key, self.submission, self.meta = problem, key, submission, meta
        self.future: Future[CandidateResult] = Future()
        self.attempts = 0
        self.errors: list[str] = []
        #: the actor it failed on last (a retry goes elsewhere when it can)
        self.avoid: Member | None = None


class Member:
    """One actor as the driver sees it: its queue, what it has in flight, what it knows."""

    def __init__(self, handle: Any, node_id: str, jobs: int, number: int,
                 slots: int | None = None) -> None:
        self.handle, self.node_id, self.jobs, self.number = handle, node_id, jobs, number
        #: candidates the actor judges at once (its sandbox's capacity)
        self.slots = max(1, slots or jobs)
        self.alive = True
        self.queue: deque[Job] = deque()
        self.in_flight = 0  # candidates sent, their chunk not back yet
        self.chunks = 0  # chunks in flight
        self.sent = 0  # chunks sent in all
        self.sandbox: dict[str, Any] = {}
        self.isolation: dict[str, Any] = {}
        #: the actor's process id (on its node) and Ray actor id
        self.pid: int | None = None
        self.actor_id: str | None = None
        #: a detached actor kept for later runs when this one ends (else it is killed)
        self.kept = False
        #: keys of the problems this actor has been sent
        self.problems: set[str] = set()
        #: seconds a candidate takes there (moving average), None before the first
        self.mean_s: float | None = None

    @property
    def depth(self) -> int:
        """Candidates in flight at most: ``PIPELINE`` per slot and a chunk more."""
        return PIPELINE * self.slots + MAX_CHUNK

    @property
    def max_chunks(self) -> int:
        """Calls in flight at most: ``PIPELINE`` per slot (a slow candidate per call keeps
        every slot busy), at least :data:`CHUNKS_IN_FLIGHT`."""
        return max(CHUNKS_IN_FLIGHT, PIPELINE * self.slots)

    @property
    def load(self) -> float:
        return (len(self.queue) + self.in_flight) / self.slots

    def chunk_size(self) -> int:
        if self.mean_s is None:
            return min(MAX_CHUNK, self.slots)
        fits = round(TARGET_CHUNK_S * self.slots / max(self.mean_s, 1e-3))
        return max(1, min(MAX_CHUNK, fits))

    def learn(self, seconds: list[float]) -> None:
        if seconds:
            mean = sum(seconds) / len(seconds)
            self.mean_s = mean if self.mean_s is None else 0.7 * self.mean_s + 0.3 * mean


#: send(member, jobs, problems): start one actor call (it must end in Dispatcher.finished)
Send = Callable[[Member, list[Job], dict[str, Problem]], None]


class Dispatcher:
    """Queues candidates per actor and forms the chunks (see the module's docstring).
    Thread-safe: callers :meth:`submit` and wait on the job's future; the code that sent a
    chunk reports it with :meth:`finished`."""

    def __init__(self, members: list[Member], send: Send, retries: int,
                 notice: Callable[[str], None] = lambda message: None) -> None:
        self.members = members
        self._send = send
        self.retries = retries
        self.notice = notice
        self._lock = threading.Lock()
        self._homes: dict[str, Member] = {}
        self.closed = False
        self.retried = 0
        self.lost_actors = 0

    @property
    def chunks(self) -> int:
        return sum(m.sent for m in self.members)

    def live(self) -> list[Member]:
        return [m for m in self.members if m.alive]

    # ---- in --------------------------------------------------------------------------------

    def submit(self, job: Job) -> None:
        with self._lock:
            if not self._enqueue(job, front=False):
                self._give_up(job, "executor closed" if self.closed else "no live actor")
            calls = self._plan()
        self._start(calls)

    def _enqueue(self, job: Job, front: bool, avoid: Member | None = None) -> bool:
        """Queue a job at its problem's home (another member than ``avoid`` when there is
        one); False when no actor can take it."""
        if self.closed:
            return False
        home = self._homes.get(job.key)
        if home is None or not home.alive or home is avoid:
            live = self.live()
            others = [m for m in live if m is not avoid] or live
            if not others:
                return False
            home = min(others, key=lambda m: m.load)
            if avoid is None:
                self._homes[job.key] = home
        if front:
            home.queue.appendleft(job)
        else:
            home.queue.append(job)
        return True

    def _plan(self) -> list[tuple[Member, list[Job], dict[str, Problem]]]:
        """(Under the lock) the chunks to send now, their candidates counted in flight."""
        calls = []
        for member in sorted(self.live(), key=lambda m: m.in_flight / m.slots):
            while member.chunks < member.max_chunks:
                want = member.chunk_size()
                idle = member.in_flight < member.slots  # it would run out of work
                if member.in_flight + want > member.depth and not idle:
                    break  # a whole chunk when there is room for one: never slivers
                if len(member.queue) >= want:
                    jobs = [member.queue.popleft() for _ in range(want)]
                elif idle:  # send what there is
                    jobs = list(member.queue)
                    member.queue.clear()
                    jobs += self._steal(member, want - len(jobs))
                else:
                    break  # busy enough: let the chunk fill
                if not jobs:
                    break
                problems = {}
                for job in jobs:
                    if job.key not in member.problems:
                        problems[job.key] = job.problem
                        member.problems.add(job.key)
                member.in_flight += len(jobs)
                member.chunks += 1
                member.sent += 1
                calls.append((member, jobs, problems))
        return calls

    def _steal(self, thief: Member, count: int) -> list[Job]:
        """Up to ``count`` of the oldest jobs queued at other actors (the longest queue
        first)."""
        taken: list[Job] = []
        victims = sorted((m for m in self.members if m is not thief and m.queue),
                         key=lambda m: -len(m.queue))
        for victim in victims:
            kept: list[Job] = []
            while victim.queue and len(taken) < count:
                job = victim.queue.popleft()
                (kept if job.avoid is thief else taken).append(job)  # a retry goes elsewhere
            victim.queue.extendleft(reversed(kept))
            if len(taken) >= count:
                break
        return taken

    def _start(self, calls: list[tuple[Member, list[Job], dict[str, Problem]]]) -> None:
        for member, jobs, problems in calls:
            self._send(member, jobs, problems)

    # ---- out -------------------------------------------------------------------------------

    def finished(self, member: Member, jobs: list[Job], problems: dict[str, Problem],
                 answers: list[Any] | None, error: str | None = None,
                 lost: bool = False) -> None:
        """A chunk is back: ``answers`` (one per job: a CandidateResult, an
        :class:`ItemError` or :data:`NEED_PROBLEM`), or the call failed with ``error``
        (``lost``: the actor is gone)."""
        done: list[tuple[Job, CandidateResult]] = []
        with self._lock:
            member.in_flight -= len(jobs)
            member.chunks -= 1
            if lost:
                self._drop(member, error or "lost")
            elif answers is None:
                member.problems.difference_update(problems)  # they may not have arrived
            if answers is None or len(answers) != len(jobs):
                answers = [ItemError(error or "a chunk came back with %s answers for %d"
                                     % (len(answers or []), len(jobs)))] * len(jobs)
            times = []
            for job, answer in zip(jobs, answers):
                if isinstance(answer, CandidateResult):
                    done.append((job, answer))
                    times.append(answer.time_s)
                elif isinstance(answer, str) and answer == NEED_PROBLEM:
                    member.problems.discard(job.key)  # sent with its problem this time
                    if not self._enqueue(job, front=True):
                        done.append((job, self._result(job, "no live actor")))
                else:
                    message = answer.message if isinstance(answer, ItemError) else str(answer)
                    failed = self._retry(job, message, member)
                    if failed is not None:
                        done.append((job, failed))
            member.learn(times)
            calls = self._plan()
        for job, result in done:
            job.future.set_result(result)
        self._start(calls)

    def _retry(self, job: Job, message: str, member: Member) -> CandidateResult | None:
        """(Under the lock) queue a failed job again, on another actor where there is one;
        or its ``sandbox_error`` once every attempt failed."""
        job.errors.append(message)
        job.attempts += 1
        if job.attempts > self.retries or self.closed:
            return self._result(job)
        job.avoid = member if len(self.live()) > 1 else None
        if not self._enqueue(job, front=True, avoid=member):
            return self._result(job, "no live actor")
        self.retried += 1
        return None

    def _drop(self, member: Member, error: str) -> None:
        """(Under the lock) an actor is lost: its queued jobs go to the others."""
        if not member.alive:
            return
        member.alive = False
        self.lost_actors += 1
        if not self.closed:
            self.notice("ray: lost the actor on node %s (%s); its candidates go to other "
                        "nodes" % (member.node_id[:12], error))
        queued = list(member.queue)
        member.queue.clear()
        for job in reversed(queued):
            if not self._enqueue(job, front=True):
                job.future.set_result(self._result(job, "no live actor"))

    def _give_up(self, job: Job, why: str) -> None:
        job.future.set_result(self._result(job, why))

    @staticmethod
    def _result(job: Job, why: str | None = None) -> CandidateResult:
        errors = job.errors + ([why] if why else [])
        return not_judged(job.problem, job.meta, "ray: not judged after %d attempts (%s)" % (
            len(errors), "; ".join(errors[-2:])))

    def close(self) -> None:
        """No more chunks; every queued job is answered ``sandbox_error`` (those in flight
        are answered when their call ends)."""
        with self._lock:
            self.closed = True
            queued = [job for m in self.members for job in m.queue]
            for member in self.members:
                member.queue.clear()
        for job in queued:
            self._give_up(job, "executor closed")


def not_judged(problem: Problem, meta: dict[str, Any], message: str) -> CandidateResult:
    """A candidate the cluster could not judge: ``sandbox_error`` (ours, not the code's)."""
    tests = [TestResult(i, Verdict.SANDBOX_ERROR, 0.0, message)
             for i in range(len(problem.tests))] or [
        TestResult(0, Verdict.SANDBOX_ERROR, 0.0, message)]
    return CandidateResult(problem.identifier, Verdict.SANDBOX_ERROR, tests, "ray", 0.0,
                           meta.get("model"), meta.get("prompt_id"), meta.get("sample"),
                           message)
