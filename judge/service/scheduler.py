"""Admission and fair dispatch of candidates for the HTTP service.

Every endpoint that judges or runs code goes through one :class:`FairScheduler`:

- **admission** (back-pressure): at most ``capacity`` candidates are admitted at once
  (judging + waiting, counted in candidates, a batch counts each of its items); a client
  holds at most ``client_cap`` of them. Past either, the request is refused whole with
  :class:`QueueFull` (the service answers 429 with ``Retry-After``: the estimated time for the
  queue ahead of it to drain), so nothing is half-judged and nothing is lost. A request
  refused for want of room **reserves** it: the room that frees up goes to the refused
  requests in the order they were first refused (a client's retry claims its reservation),
  never to a later or smaller request that happens to arrive when one slot is free; so a
  batch of several candidates is not starved by a stream of single calls. A reservation
  lapses when its client does not come back in time (``RESERVE_GRACE_S`` after the
  ``Retry-After`` it was given).
- **fairness**: admitted candidates wait in one queue per client and are dispatched round
  robin between clients, ``workers`` at a time: a client that sent 500 candidates does not
  delay another client's one candidate by 500 judgings, only by at most one per other
  client ahead of it.
- **hanging candidates never hold a core**: ``workers`` is the sandbox's capacity (its slots:
  more than its cores, see :mod:`judge.sandbox.admission`). ``cores`` calls are dispatched
  as they come (round robin); one more only while the sandbox would admit it beside them
  (``lendable``: a running job sleeps or waits and lends its core), looked at again every
  ``LEND_POLL_S`` while calls wait, so a candidate that sleeps lends its core to the next one
  in the round robin's order, as in ``judge run``, and fairness between clients is kept
  (the order is decided here, not by threads racing for the sandbox). Calls marked
  ``blocking`` (the language's guess that the code sleeps or waits) do not wait for a lent
  core, only for a slot, at most ``workers - cores`` of them
  (:func:`judge.running.schedule.pool_for` is the same rule for ``judge run``).

A client is whoever the service says (``X-Judge-Client`` header, else the address). Runs on
the event loop; the blocking work goes to a thread pool of ``workers`` threads.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict, deque
from concurrent.futures import Executor
from typing import Any, Callable

from judge import languages
from judge.errors import InfrastructureFault
from judge.languages import BLOCKING

#: how often waiting calls look again for a core a sleeping job lends
LEND_POLL_S = 0.05
#: seconds a refused request's reservation outlives the ``Retry-After`` it was given
RESERVE_GRACE_S = 10.0


def likely_blocks(code: str, language: str | None) -> bool:
    """The language's guess that ``code`` sleeps or waits (it then lends its core):
    :data:`judge.running.schedule.BLOCKING`. Only an order; never a verdict."""
    try:
        return languages.get(language).stall_risk(code or "") >= BLOCKING
    except Exception:  # noqa: BLE001 - an unknown language is reported where it is judged
        return False


class QueueFull(InfrastructureFault):
    """The queue (or the client's share of it) is full: retry after ``retry_after`` s."""

    code = "queue_full"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class FairScheduler:
    """See the module doc. Not thread-safe: call it from the event loop only."""

    def __init__(self, pool: Executor, workers: int, capacity: int,
                 client_cap: int | None = None, cores: int | None = None,
                 lendable: Callable[[], bool] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.pool = pool
        self.clock = clock
        #: refused requests' room, oldest first: client -> [candidates, lapses at]
        self._reserved: OrderedDict[str, list[float]] = OrderedDict()
        self.workers = max(1, workers)
        #: dispatch slots for calls that likely block: the slots beyond the cores
        self.blocking_cap = max(1, self.workers - cores) if cores and cores < self.workers \
            else self.workers
        self.blocking = 0
        #: calls dispatched as they come; more only on a lent core (``lendable``)
        self.cores = min(self.workers, cores) if cores else self.workers
        self.lendable = lendable
        self._poll: asyncio.TimerHandle | None = None
        #: most calls dispatched at once so far (``/v1/health``)
        self.peak = 0
        self.capacity = capacity
        self.client_cap = client_cap if client_cap else capacity
        self.admitted = 0
        self.running = 0
        self._held: dict[str, int] = {}
        self._queues: OrderedDict[str, deque[tuple[Callable[..., Any], tuple[Any, ...],
                                                   asyncio.Future[Any], bool]]] = OrderedDict()
        #: running estimate of one candidate's seconds (for Retry-After)
        self.seconds_per_item = 0.05

    # ---- admission ---------------------------------------------------------------------

    def admit(self, client: str, count: int) -> None:
        """Admit ``count`` candidates of ``client`` or raise :class:`QueueFull` (and reserve
        the room: see the module doc)."""
        held = self._held.get(client, 0)
        over_cap = held + count > self.client_cap
        now = self.clock()
        for name in [name for name, (_, lapses) in self._reserved.items() if lapses <= now]:
            del self._reserved[name]
        ahead = 0  # the room reserved by requests refused before this client's
        for name, (reserved, _) in self._reserved.items():
            if name == client:
                break
            ahead += int(reserved)
        if self.admitted + ahead + count > self.capacity:
            retry = self._retry(count + ahead)
            mine = self._reserved.get(client)
            if over_cap:  # its own share is full: nothing to reserve
                pass
            elif mine is None:
                self._reserved[client] = [count, now + retry + RESERVE_GRACE_S]
            else:
                mine[0] = max(mine[0], count)
                mine[1] = now + retry + RESERVE_GRACE_S
            raise QueueFull("the queue is full (%d candidates admitted, capacity %d, %d "
                            "reserved by requests refused before); retry later" % (
                                self.admitted, self.capacity, ahead), retry)
        if over_cap:
            raise QueueFull("this client already has %d candidates admitted (at most %d per "
                            "client); retry later" % (held, self.client_cap),
                            self._retry(held + count - self.client_cap))
        mine = self._reserved.get(client)
        if mine is not None:
            if count >= mine[0]:
                del self._reserved[client]
            else:
                mine[0] -= count
        self.admitted += count
        self._held[client] = held + count

    @property
    def reserved(self) -> int:
        """Candidates' room held for refused requests that have not come back yet."""
        return sum(int(count) for count, _ in self._reserved.values())

    def release(self, client: str, count: int) -> None:
        self.admitted -= count
        left = self._held.get(client, 0) - count
        if left > 0:
            self._held[client] = left
        else:
            self._held.pop(client, None)

    def _retry(self, count: int) -> int:
        waiting = max(0, self.admitted - self.workers)
        seconds = (waiting + count) * self.seconds_per_item / self.workers
        return max(1, min(60, math.ceil(seconds)))

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self._queues.values())

    @property
    def clients(self) -> int:
        return len(self._held)

    # ---- dispatch ----------------------------------------------------------------------

    async def run(self, client: str, fn: Callable[..., Any], *args: Any,
                  blocking: bool = False) -> Any:
        """``fn(*args)`` on the pool when its turn comes (round robin between clients);
        ``blocking``: the call likely sleeps or waits (see the module doc)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queues.setdefault(client, deque()).append((fn, args, future, blocking))
        self._dispatch()
        return await future

    async def run_all(self, client: str, calls: list[tuple[Any, ...]]) -> list[Any]:
        """Several calls of one client, ``(fn, args)`` or ``(fn, args, blocking)``, results
        in order; cancelling cancels what has not started."""
        tasks = [asyncio.ensure_future(self.run(client, call[0], *call[1],
                                                blocking=bool(call[2:] and call[2])))
                 for call in calls]
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:
                task.cancel()
            raise

    def _next(self) -> tuple[str, deque[Any]] | None:
        """The first client, round robin, whose next call may start now: a blocking one
        under its cap; another within ``cores`` computing calls, or on a lent core."""
        computing = self.running - self.blocking
        lent: bool | None = None
        for client, queue in self._queues.items():
            if queue[0][3]:
                if self.blocking < self.blocking_cap:
                    return client, queue
                continue
            if computing < self.cores:
                return client, queue
            if lent is None:
                lent = bool(self.lendable is not None and self.lendable())
            if lent:
                return client, queue
        return None

    def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        while self.running < self.workers and self._queues:
            found = self._next()
            if found is None:  # look again soon: a running job may start to sleep
                if self._poll is None and self.lendable is not None:
                    self._poll = loop.call_later(LEND_POLL_S, self._poll_again)
                return
            client, queue = found
            fn, args, future, blocking = queue.popleft()
            if queue:
                self._queues.move_to_end(client)  # its next one waits for the others' turns
            else:
                del self._queues[client]
            if future.done():  # cancelled while waiting: never started
                continue
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.blocking += blocking
            started = loop.time()
            work = loop.run_in_executor(self.pool, fn, *args)
            work.add_done_callback(lambda done, future=future, started=started,
                                   blocking=blocking:
                                   self._finished(done, future, started, blocking))

    def _poll_again(self) -> None:
        self._poll = None
        self._dispatch()

    def _finished(self, done: asyncio.Future[Any], future: asyncio.Future[Any],
                  started: float, blocking: bool = False) -> None:
        self.running -= 1
        self.blocking -= blocking
        elapsed = asyncio.get_running_loop().time() - started
        self.seconds_per_item = 0.9 * self.seconds_per_item + 0.1 * elapsed
        if not future.done():
            if done.cancelled():
                future.cancel()
            elif done.exception() is not None:
                future.set_exception(done.exception())  # type: ignore[arg-type]
            else:
                future.set_result(done.result())
        self._dispatch()
