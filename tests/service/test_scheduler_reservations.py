"""Admission with reservations (judge.service.scheduler): a request refused for want of room
holds it, so a batch is not starved by a stream of single calls (the 10,000-call trainer load
showed batches of four waiting up to 15 minutes behind 128 clients' single calls)."""

from __future__ import annotations

import pytest

from judge.service.scheduler import RESERVE_GRACE_S, FairScheduler, QueueFull

pytestmark = pytest.mark.pure


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def scheduler(capacity: int = 6, clock: Clock | None = None) -> FairScheduler:
    return FairScheduler(pool=None, workers=2, capacity=capacity,  # type: ignore[arg-type]
                         clock=clock or Clock())


def test_the_room_that_frees_goes_to_the_batch_refused_first_not_to_later_single_calls():
    s = scheduler()
    for n in range(6):
        s.admit("single-%d" % n, 1)
    with pytest.raises(QueueFull) as refused:
        s.admit("batch", 4)
    assert refused.value.retry_after >= 1 and s.reserved == 4
    # one candidate ends at a time; every single call that comes meanwhile is refused, the
    # room waits for the batch
    for n in range(4):
        s.release("single-%d" % n, 1)
        with pytest.raises(QueueFull, match="reserved by requests refused before"):
            s.admit("late-%d" % n, 1)
    s.admit("batch", 4)                       # its retry claims the room
    assert s.admitted == 6 and s.reserved == 4  # the four late ones now wait, in order


def test_refused_requests_are_admitted_in_the_order_they_were_first_refused():
    s = scheduler(capacity=2)
    s.admit("a", 2)
    for name in ("first", "second", "third"):
        with pytest.raises(QueueFull):
            s.admit(name, 1)
    s.release("a", 1)
    for name in ("third", "second"):          # retries out of order wait for "first"
        with pytest.raises(QueueFull):
            s.admit(name, 1)
    s.admit("first", 1)
    s.release("a", 1)
    with pytest.raises(QueueFull):
        s.admit("third", 1)
    s.admit("second", 1)
    assert s.reserved == 1                    # "third" keeps its place


def test_a_reservation_lapses_when_its_client_does_not_come_back():
    clock = Clock()
    s = scheduler(capacity=2, clock=clock)
    s.admit("a", 2)
    with pytest.raises(QueueFull) as refused:
        s.admit("gone", 2)
    s.release("a", 2)
    with pytest.raises(QueueFull):           # the room is held for "gone"...
        s.admit("other", 1)
    clock.now += refused.value.retry_after + RESERVE_GRACE_S + 1
    s.admit("other", 1)                       # ...until it lapses; then it is anyone's
    assert s.admitted == 1


def test_the_per_client_cap_reserves_nothing_and_a_smaller_claim_keeps_the_rest():
    s = FairScheduler(pool=None, workers=2, capacity=4, client_cap=2,  # type: ignore[arg-type]
                      clock=Clock())
    s.admit("greedy", 2)
    with pytest.raises(QueueFull, match="this client already has"):
        s.admit("greedy", 1)
    assert s.reserved == 0
    s.admit("b", 2)
    with pytest.raises(QueueFull):
        s.admit("c", 2)
    s.release("greedy", 2)
    s.admit("c", 1)                           # a part of its reservation
    assert s.reserved == 1
    with pytest.raises(QueueFull):
        s.admit("d", 1)                       # the rest is still c's
