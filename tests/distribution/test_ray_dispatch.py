"""The Ray executor's chunking rules (judge.distribution.ray_dispatch), without Ray.

The dispatcher decides which candidates go to which actor and how many per call; here the
"actors" are answered by the test itself (each chunk waits until the test answers it, or a
thread answers at once), so every rule can be driven step by step: chunk sizes, chunks of
uneven length, results handed to the right caller, affinity, stealing, a failing candidate
mid-chunk retried elsewhere, a lost actor's candidates moved, close. tests/distribution/test_ray.py runs
the same code on a real 2-node cluster.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from judge.kinds.loader import load_suite
from judge.candidates.submission import Submission
from judge.distribution.ray_dispatch import (MAX_CHUNK, NEED_PROBLEM, Dispatcher, ItemError, Job,
                                          Member)
from judge.engine.verdicts import CandidateResult, Verdict
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

SUITE = load_suite(ROOT / "problems" / "basics")
PROBLEMS = SUITE.problems[:3]


def job(sample: int, problem=None) -> Job:
    problem = problem or PROBLEMS[sample % len(PROBLEMS)]
    return Job(problem, "key-%s" % problem.identifier,
               Submission("def f(): pass\n", problem.function_name),
               {"model": "m", "prompt_id": None, "sample": sample})


def passed(job: Job, seconds: float = 0.001) -> CandidateResult:
    return CandidateResult(job.problem.identifier, Verdict.PASS, [], "fake", seconds, "m",
                           None, job.meta["sample"])


class HandActors:
    """Chunks sent wait here until the test answers them."""

    def __init__(self) -> None:
        self.calls: list[tuple[Member, list[Job], dict]] = []

    def send(self, member, jobs, problems) -> None:
        self.calls.append((member, jobs, problems))

    def take(self) -> tuple[Member, list[Job], dict]:
        return self.calls.pop(0)


def members(count: int, slots: int = 4) -> list[Member]:
    return [Member(None, "node-%d" % i, 1, i + 1, slots=slots) for i in range(count)]


def test_every_candidate_gets_its_own_result_in_uneven_chunks():
    """Many callers at once (as BatchRunner's threads are), 203 candidates (no multiple of
    any chunk size): each caller gets the result of its own candidate; fewer calls than
    candidates, none larger than MAX_CHUNK, every candidate in exactly one chunk."""
    pool = ThreadPoolExecutor(max_workers=8)
    sizes: list[int] = []
    lock = threading.Lock()

    def send(member, jobs, problems):
        with lock:
            sizes.append(len(jobs))
        pool.submit(dispatcher.finished, member, jobs, problems, [passed(j) for j in jobs])

    dispatcher = Dispatcher(members(2), send, retries=3)
    jobs = [job(i) for i in range(203)]
    with ThreadPoolExecutor(max_workers=64) as callers:
        def call(j: Job) -> CandidateResult:
            dispatcher.submit(j)
            return j.future.result(timeout=30)
        results = list(callers.map(call, jobs))
    pool.shutdown()
    assert [r.sample for r in results] == list(range(203))
    assert [r.problem_id for r in results] == [j.problem.identifier for j in jobs]
    assert sum(sizes) == 203 and max(sizes) <= MAX_CHUNK
    assert len(sizes) < 203 and dispatcher.chunks == len(sizes)
    assert all(m.in_flight == 0 and m.chunks == 0 and not m.queue for m in dispatcher.members)


def test_a_lone_candidate_goes_at_once_and_full_chunks_wait_to_fill():
    actors = HandActors()
    dispatcher = Dispatcher(members(1, slots=2), actors.send, retries=3)
    first = job(0)
    dispatcher.submit(first)
    member, sent, problems = actors.take()
    assert sent == [first] and problems == {first.key: first.problem}  # sent with its problem
    for i in range(1, 40):
        dispatcher.submit(job(i))
    # the actor had fewer candidates than slots: small chunks went at once until it had
    # enough; after that only whole chunks, and each problem is sent to it once
    sizes = [len(c[1]) for c in actors.calls]
    assert sizes[0] == 1 and all(size == member.chunk_size() for size in sizes[1:])
    keys = [k for c in actors.calls for k in c[2]]
    assert len(keys) == len(set(keys)) and first.key not in keys
    queued = len(member.queue)
    assert queued + sum(sizes) == 39 and member.chunks == len(sizes) + 1
    # answering the first chunk frees room: the queue moves on
    dispatcher.finished(member, sent, problems, [passed(first)])
    assert first.future.result(timeout=1).sample == 0
    assert len(member.queue) < queued or member.in_flight + member.chunk_size() > member.depth


def test_chunk_size_follows_how_long_candidates_take():
    member = members(1, slots=4)[0]
    assert member.chunk_size() == 4  # nothing known yet: one per slot
    member.learn([0.005] * 10)
    assert member.chunk_size() == MAX_CHUNK  # easy ones: full chunks
    slow = members(1, slots=4)[0]
    slow.learn([2.0, 3.0])
    assert slow.chunk_size() == 1  # slow ones: one at a time, results not held back


def test_a_candidate_failing_mid_chunk_is_retried_elsewhere_the_others_stand():
    actors = HandActors()
    notes: list[str] = []
    dispatcher = Dispatcher(members(2), actors.send, retries=2, notice=notes.append)
    jobs = [job(i, PROBLEMS[0]) for i in range(3)]
    for j in jobs:
        dispatcher.submit(j)
    while actors.calls:
        member, sent, problems = actors.take()
        answers = [ItemError("RuntimeError: boom") if j is jobs[1] else passed(j)
                   for j in sent]
        dispatcher.finished(member, sent, problems, answers)
        if jobs[1] not in sent:
            continue
        # it goes again, to the other actor (which has, or is sent, its problem)
        retry = next(c for c in actors.calls if jobs[1] in c[1])
        actors.calls.remove(retry)
        other, again, carried = retry
        assert again == [jobs[1]] and other is not member and jobs[1].key in other.problems
        dispatcher.finished(other, again, carried, [passed(jobs[1])])
    assert [j.future.result(timeout=1).verdict for j in jobs] == [Verdict.PASS] * 3
    assert dispatcher.retried == 1 and notes == []


def test_a_candidate_that_fails_every_attempt_is_sandbox_error():
    actors = HandActors()
    dispatcher = Dispatcher(members(2), actors.send, retries=2)
    lone = job(7)
    dispatcher.submit(lone)
    for attempt in range(3):
        member, sent, problems = actors.take()
        assert sent == [lone]
        dispatcher.finished(member, sent, problems, [ItemError("ValueError: %d" % attempt)])
    result = lone.future.result(timeout=1)
    assert result.verdict is Verdict.SANDBOX_ERROR and result.sample == 7
    assert "not judged after 3 attempts" in result.message and "ValueError: 2" in result.message
    assert all(t.verdict is Verdict.SANDBOX_ERROR for t in result.tests)
    assert actors.calls == []


def test_a_lost_actor_hands_its_chunk_and_its_queue_to_the_other():
    actors = HandActors()
    notes: list[str] = []
    dispatcher = Dispatcher(members(2, slots=1), actors.send, retries=3, notice=notes.append)
    jobs = [job(i, PROBLEMS[0]) for i in range(40)]  # one problem: one home actor
    for j in jobs:
        dispatcher.submit(j)
    home = dispatcher.members[0] if dispatcher.members[0].queue else dispatcher.members[1]
    lost = [c for c in actors.calls if c[0] is home]
    actors.calls = [c for c in actors.calls if c[0] is not home]
    for member, sent, problems in lost:
        dispatcher.finished(member, sent, problems, None, "RayActorError: died", lost=True)
    assert dispatcher.lost_actors == 1 and not home.alive and not home.queue
    assert any("lost the actor" in n for n in notes)
    # everything is answered by the other actor, each candidate once
    while actors.calls:
        member, sent, problems = actors.take()
        assert member is not home
        dispatcher.finished(member, sent, problems, [passed(j) for j in sent])
    assert [j.future.result(timeout=1).sample for j in jobs] == list(range(40))
    assert {j.future.result().verdict for j in jobs} == {Verdict.PASS}


def test_a_problem_that_has_not_arrived_is_sent_again_with_its_problem():
    actors = HandActors()
    dispatcher = Dispatcher(members(1), actors.send, retries=0)
    first = job(0)
    dispatcher.submit(first)
    member, sent, problems = actors.take()
    dispatcher.finished(member, sent, problems, [NEED_PROBLEM])  # not counted as a failure
    member, again, carried = actors.take()
    assert again == [first] and first.key in carried
    dispatcher.finished(member, again, carried, [passed(first)])
    assert first.future.result(timeout=1).verdict is Verdict.PASS


def test_affinity_a_problem_queues_at_its_home_and_an_idle_actor_steals():
    """One problem: its candidates queue at one actor (its home); the other actor, idle,
    takes the oldest of them (and is sent the problem with the first). Every candidate is
    sent once and answered once."""
    actors = HandActors()
    dispatcher = Dispatcher(members(2, slots=1), actors.send, retries=3)
    jobs = [job(i, PROBLEMS[0]) for i in range(40)]
    for j in jobs:
        dispatcher.submit(j)
    home = next(m for m in dispatcher.members if m.queue)
    thief = next(m for m in dispatcher.members if m is not home)
    assert not thief.queue and thief.in_flight >= 1  # it stole from the home's queue
    first_stolen = next(c for c in actors.calls if c[0] is thief)
    assert jobs[0].key in first_stolen[2]  # the problem went along
    sent = [j.meta["sample"] for c in actors.calls for j in c[1]]
    assert len(sent) == len(set(sent))
    queued = [j.meta["sample"] for j in home.queue]
    assert queued == sorted(queued) and set(queued).isdisjoint(sent)
    while actors.calls:
        member, chunk, problems = actors.take()
        dispatcher.finished(member, chunk, problems, [passed(j) for j in chunk])
    assert [j.future.result(timeout=1).sample for j in jobs] == list(range(40))
    assert sum(m.sent for m in dispatcher.members) == dispatcher.chunks


def test_close_answers_what_is_queued():
    actors = HandActors()
    dispatcher = Dispatcher(members(1, slots=1), actors.send, retries=3)
    jobs = [job(i) for i in range(30)]
    for j in jobs:
        dispatcher.submit(j)
    queued = [j for j in jobs if not j.future.done()
              and all(j not in c[1] for c in actors.calls)]
    assert queued
    dispatcher.close()
    for j in queued:
        result = j.future.result(timeout=1)
        assert result.verdict is Verdict.SANDBOX_ERROR and "executor closed" in result.message
    late = job(99)
    dispatcher.submit(late)
    assert late.future.result(timeout=1).verdict is Verdict.SANDBOX_ERROR
    # what was in flight is still answered when its chunk comes back
    member, sent, problems = actors.take()
    dispatcher.finished(member, sent, problems, [passed(j) for j in sent])
    assert all(j.future.result(timeout=1).verdict is Verdict.PASS for j in sent)
