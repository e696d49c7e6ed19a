"""The order candidates start in: the ones likely to run into their time limits first.

A run ends when its last candidate ends. A candidate that sleeps holds its slot for its whole
wall budget (about 3.5 s on HumanEval) and one that loops holds a core for its whole CPU
budget (3 s): started last, either is a tail that the other cores cannot share, and a run of
410 candidates that takes 6 s without them waits 3 s more for a sleeper that came in at the
end. So, as longest-processing-time-first scheduling does, the run starts the candidates that
are likely to be long first, while the short ones fill the cores around them:

1. code that may block (``Language.stall_risk`` 3: a sleep, a wait, a lock, a socket): it
   lends its core to the next candidate while it waits (:mod:`judge.sandbox.admission`),
   at most as many at once as the sandbox takes beyond its cores, so that blocked
   candidates never hold every slot while the cores idle;
2. code that loops without a condition (2: ``while True``, ``for (;;)``);
3. code that may loop (1: any other ``while``);
4. the rest; within each, the problem with more tests first (more work), then input order.

The guess is made from the code's text by the language and is cheap; a wrong guess costs
only a worse order. It never touches a limit, a verdict or the output, which stays in input
order (:class:`judge.running.batch.BatchRunner`).
"""

from __future__ import annotations

import heapq
import itertools
import threading
from concurrent.futures import Future
from typing import Any, Callable

from judge import languages


BLOCKING = languages.BLOCKING


def pool_for(slots: int, cores: int | None, name: str = "judge") -> "PriorityPool":
    """The pool a run judges through: ``slots`` threads (the sandbox's capacity), and, where
    the sandbox takes more jobs than it has cores (it lends a blocked job's core), at most
    ``slots - cores`` likely-blocking candidates in flight, so that ``cores`` threads are
    always there for candidates that compute. Without such a sandbox (no overcommit; the
    Ray executor, whose actors' sandboxes lend on their own nodes) nothing is capped."""
    if cores is None or slots <= cores:
        return PriorityPool(slots, name)
    return PriorityPool(slots, name, caps={BLOCKING: slots - cores})


def rank(problem: Any, code: str, language: str | None) -> tuple[int, int]:
    """Higher starts first: (the code's stall risk, the problem's number of tests)."""
    try:
        risk = languages.get(language).stall_risk(code)
    except Exception:  # an unknown language is reported where it is judged, not here
        risk = 0
    try:
        tests = len(problem.tests)
    except Exception:
        tests = 0
    return risk, tests


class PriorityPool:
    """``workers`` threads that run submitted calls highest rank first (ties: first
    submitted first). ``submit`` returns a :class:`concurrent.futures.Future`, as
    ``ThreadPoolExecutor.submit`` does; ``shutdown`` stops the threads.

    ``caps`` bounds the calls in flight whose rank starts with a given value: the blocking
    tier gets ``workers - cores``, so the candidates that sleep never take every thread and
    leave the cores idle (the sandbox admits at most ``workers`` jobs at once: eight
    sleepers started together on 2 cores would idle both for 3 s)."""

    def __init__(self, workers: int, name: str = "judge",
                 caps: dict[int, int] | None = None) -> None:
        #: waiting calls: one heap per capped tier, one (key None) for all the others
        self._heaps: dict[int | None, list[tuple[Any, ...]]] = {None: []}
        self._order = itertools.count()
        self._workers = max(1, workers)
        self._name = name
        self._caps = {tier: max(1, most) for tier, most in (caps or {}).items()}
        self._running: dict[int, int] = {}
        self._threads: list[threading.Thread] = []
        self._ready = threading.Condition()
        self._closed = False

    def submit(self, rank: tuple[int, ...], function: Callable[..., Any], *args: Any) -> Future:
        future: Future = Future()
        with self._ready:
            if self._closed:
                raise RuntimeError("the pool is shut down")
            tier = rank[0] if rank else None
            # negated: a heap gives the smallest first
            heapq.heappush(self._heaps.setdefault(tier if tier in self._caps else None, []),
                           (tuple(-value for value in rank), next(self._order), tier, future,
                            function, args))
            if len(self._threads) < self._workers:
                thread = threading.Thread(target=self._work, daemon=True,
                                          name="%s_%d" % (self._name, len(self._threads)))
                self._threads.append(thread)
                thread.start()
            self._ready.notify()
        return future

    def _take(self) -> tuple[Any, ...] | None:
        """The best call of a tier under its cap (with the lock held), or None: the best
        of each heap's first, a capped tier's only while it is under its cap."""
        best = None
        for tier, heap in self._heaps.items():
            if not heap or (tier is not None and self._running.get(tier, 0) >= self._caps[tier]):
                continue
            if best is None or heap[0] < best[0]:
                best = heap
        return heapq.heappop(best) if best is not None else None

    def _work(self) -> None:
        while True:
            with self._ready:
                item = self._take()
                while item is None:
                    if self._closed:
                        return
                    self._ready.wait()
                    item = self._take()
                _, _, tier, future, function, args = item
                self._running[tier] = self._running.get(tier, 0) + 1
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        result = function(*args)
                    except BaseException as exc:  # handed to whoever waits on the future
                        future.set_exception(exc)
                    else:
                        future.set_result(result)
            finally:
                with self._ready:
                    self._running[tier] -= 1
                    self._ready.notify_all()

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        with self._ready:
            self._closed = True
            threads = list(self._threads)
            if cancel_futures:
                for heap in self._heaps.values():
                    for item in heap:
                        item[3].cancel()
                    heap.clear()
            self._ready.notify_all()
        if wait:
            for thread in threads:
                thread.join()
