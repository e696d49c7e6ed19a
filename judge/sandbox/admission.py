"""Admission: how many jobs a pooled sandbox runs at once, by what they do with the CPU.

A pool of ``cores`` workers (``--jobs``) idles a core whenever one of its candidates sleeps
or waits: it holds its worker for its whole wall budget and uses no CPU. So the pool admits a
job beyond ``cores`` (up to ``most`` in flight) when fewer than ``cores`` of the running
jobs are *busy*: a job is busy when its worker's process tree (the worker, the candidate's
child and everything below it, read from ``/proc``) used or waited for at least
``BUSY_SHARE`` of a CPU over the last ``WINDOW_S`` seconds (time spent runnable in the run
queue counts as wanting the CPU: a machine loaded by others does not make a looper look
blocked), and a job not yet measured over a whole window counts as
busy. A candidate that computes keeps its core; one that sleeps lends it. A job beyond
``cores`` also needs its memory limit plus ``RESERVE`` available on the machine.

This changes how many candidates run at once, never a verdict: the worker decides a
timeout by the candidate's CPU time (a looper), or by its wall-clock time *less the time it
waited for a CPU* (a sleeper; the scheduler's run delay, ``/proc/PID/schedstat``), so more
candidates in flight cost a candidate nothing it is judged by. When sleepers wake up and
compute, more jobs than cores may be busy for a while: each then waits for a CPU, which the
worker's wall backstop does not count (up to its hard cap, past which the test is a
``sandbox_error``, never the candidate's verdict).

A worker whose process tree cannot be read (a container on another host) counts as busy:
no more than ``cores`` of those run at once, as before.

Two kinds of job do not wait for a busy core (``urgent``), only for a place under ``most``:
a problem's reference timing, which all its candidates wait for, and code that likely
blocks (the language's guess, ``Job.likely_blocked``), which the run started first so that
its wait overlaps the computing (:mod:`judge.running.schedule`). Behind candidates that
loop on every core, either would otherwise wait out their whole budgets, and the run would
end with a tail of sleepers. A wrong guess costs a computing candidate a shared core, never
a verdict, for the reasons above.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Callable

#: a job using less than this share of a CPU over a window is blocked (sleeping, waiting)
BUSY_SHARE = 0.5
#: how long a job is watched before it may count as blocked, and how often it is read again
WINDOW_S = 0.05
#: jobs in flight per core at most, blocked ones included (``most = OVERCOMMIT * cores``)
OVERCOMMIT = 4
#: memory left free on the machine beyond a lent job's own limit
RESERVE = 256 << 20
_TICK = os.sysconf("SC_CLK_TCK")
_MAX_PROCESSES = 4096


def _read(path: str) -> bytes:
    """A small /proc file in one read (open, read, close: a buffered file object adds
    fstat, ioctl and lseek, 60% more time, and the judge reads several per job)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return b""
    try:
        return os.read(fd, 1 << 16)
    except OSError:
        return b""
    finally:
        os.close(fd)


def available_memory() -> int:
    """MemAvailable of ``/proc/meminfo`` in bytes (0 when unreadable: nothing is lent)."""
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith(b"MemAvailable:"):
            try:
                return int(line.split()[1]) * 1024
            except (IndexError, ValueError):
                return 0
    return 0


def tree_cpu(pid: int) -> float | None:
    """CPU seconds used so far by ``pid`` and every process below it, the children they
    waited for included (each process's user, system and waited-for children's time), plus
    the time its live processes below ``pid`` spent runnable but waiting for a CPU (the
    scheduler's run delay; not the worker's own, which wakes to poll its child): what the
    candidate *wanted* of the CPU, so a candidate that computes on a machine
    loaded by others still counts as busy. None when ``pid`` cannot be read (gone, or not on
    this host)."""
    total, todo, seen, waited = 0, [pid], 0, 0
    while todo and seen < _MAX_PROCESSES:
        current = todo.pop()
        seen += 1
        stat = _read("/proc/%d/stat" % current)
        if not stat:
            if current == pid:
                return None
            continue
        try:
            fields = stat.rsplit(b")", 1)[1].split()
            total += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
            if current != pid:  # the worker's own polls wait too on a loaded machine
                waited += int(_read("/proc/%d/schedstat" % current).split()[1])
        except (IndexError, ValueError):
            pass
        try:
            tids = os.listdir("/proc/%d/task" % current)
        except OSError:
            continue
        for tid in tids:
            todo.extend(int(p) for p in _read("/proc/%d/task/%s/children"
                                               % (current, tid)).split())
    return total / _TICK + waited / 1e9


class Ticket:
    """One admitted job: its worker's pid once known, and what it used when last read."""

    __slots__ = ("pid", "cpu", "at", "busy")

    def __init__(self) -> None:
        self.pid: int | None = None
        self.cpu = 0.0
        self.at = 0.0
        self.busy = True


class Admission:
    """Admits jobs: any while fewer than ``cores`` run, more (up to ``most``) while fewer
    than ``cores`` of the running ones are busy (see the module's docstring)."""

    def __init__(self, cores: int, most: int | None = None, window: float = WINDOW_S,
                 probe: Callable[[int], float | None] = tree_cpu) -> None:
        self.cores = max(1, cores)
        self.most = max(self.cores, most if most is not None else OVERCOMMIT * self.cores)
        self.window = window
        self.probe = probe
        self._running: list[Ticket] = []
        self._changed = threading.Condition()
        #: most jobs in flight at once so far, and how many were admitted beyond ``cores``
        self.peak = 0
        self.lent = 0

    def _busy(self, now: float) -> int:
        """How many running jobs are busy, reading those last read a window ago or more."""
        count = 0
        for ticket in self._running:
            if ticket.pid is not None and now - ticket.at >= self.window:
                cpu = self.probe(ticket.pid)
                if cpu is None:
                    ticket.busy = True
                else:
                    # a process that exited took its run delay with it: a drop is not
                    # known to be idle, so it counts as busy
                    used = cpu - ticket.cpu
                    ticket.busy = used < 0 or used >= BUSY_SHARE * (now - ticket.at)
                    ticket.cpu, ticket.at = cpu, now
            count += ticket.busy
        return count

    def enter(self, memory_bytes: int = 0, urgent: bool = False) -> Ticket:
        """Wait until a job may start; the ticket counts as busy until :meth:`watch` and a
        window after it. Beyond ``cores``, a job also needs ``memory_bytes`` (its memory
        limit) and a reserve free on the machine: sleepers that hold memory do not lend it.

        An ``urgent`` job (one that others wait for: a problem's reference timing, which
        every candidate of the problem waits for) does not wait for a busy core either,
        only for a place under ``most``: behind two loopers it would hold up each of its
        problem's candidates for their whole budgets. It is short, trusted and measured by
        its CPU time, which waiting for a CPU does not change, and so do the candidates'
        verdicts beside it (see the module's docstring)."""
        ticket = Ticket()
        with self._changed:
            while True:
                running = len(self._running)
                if self._admissible(memory_bytes, urgent):
                    self._running.append(ticket)
                    self.peak = max(self.peak, running + 1)
                    self.lent += running >= self.cores
                    return ticket
                self._changed.wait(self.window)

    def _admissible(self, memory_bytes: int, urgent: bool = False) -> bool:
        running = len(self._running)
        return running < self.cores or (running < self.most
                                        and (urgent or self._busy(time.monotonic()) < self.cores)
                                        and available_memory() >= memory_bytes + RESERVE)

    def admissible(self, memory_bytes: int = 0, urgent: bool = False) -> bool:
        """Would a job needing ``memory_bytes`` start now?"""
        with self._changed:
            return self._admissible(memory_bytes, urgent)

    def watch(self, ticket: Ticket, pid: int | None) -> None:
        """The job's worker: its process tree is what the job uses (None: always busy)."""
        at = time.monotonic()
        cpu = self.probe(pid) if pid is not None else None  # read outside the lock
        with self._changed:
            ticket.pid = pid if cpu is not None else None
            ticket.at = at
            ticket.cpu = cpu or 0.0
            ticket.busy = True

    def leave(self, ticket: Ticket) -> None:
        with self._changed:
            try:
                self._running.remove(ticket)
            except ValueError:
                pass
            self._changed.notify()

    @property
    def running(self) -> int:
        with self._changed:
            return len(self._running)
