"""The driver's Ray connection, and the idle actors it keeps between runs.

Opening a run on Ray costs far more than opening a local sandbox: the driver connects to the
cluster, Ray starts a new Python process per node for its :class:`JudgeActor`, which imports
the judge and walks the host (the process sandbox's search for world-writable places, paid
once per process). A local judge pays that walk once per driver process; this module lets a
Ray run do the same:

- When a :class:`~judge.execution.ray_executor.RayExecutor` closes, each actor closes its
  sandbox (no worker or container survives the run, as before) and the actor's process is
  kept, idle, for :func:`keep_seconds` (``JUDGE_RAY_KEEP_S``, default 60; ``0``: never kept).
- The next RayExecutor of the same driver, on the same cluster, takes an idle actor of each
  node (same sandbox kind and size) and opens a fresh sandbox in it, with its own jobs, limits
  and options. Nothing of the earlier run is left in it: its problems are dropped, and each
  run's problem keys carry a token of their own.
- An idle actor holds no CPU of the cluster (actors are placed with ``num_cpus=0``), only
  its process's memory. It is killed once it has been idle :func:`keep_seconds`, when the
  driver connects elsewhere, and with the driver (an actor belongs to its driver's job).
- The connection: a RayExecutor that connected the driver itself (``ray.init``) leaves the
  connection to a cluster open while actors are kept, and closes it when the last one is
  killed with no run open. A private Ray (no address and no ``RAY_ADDRESS``: Ray started
  for this run on this machine) is stopped when its run closes, as before, and keeps nothing.
  A connection the caller made (``ray.init`` before the judge) is never closed here.

Thread-safe: every change of state is under one lock.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable

#: seconds an idle actor is kept after its run (JUDGE_RAY_KEEP_S overrides; 0: never)
DEFAULT_KEEP_S = 60.0

_lock = threading.RLock()
#: the address this module connected the driver to ("" for a private Ray), or None
_connected: str | None = None
#: the driver's job id on that connection (a connection made anew since is not ours)
_job: str | None = None
_runs_open = 0
#: idle actors by (node id, sandbox kind, concurrency): [(handle, idle until)]
_idle: dict[tuple[Any, ...], list[tuple[Any, float]]] = {}
_timer: threading.Timer | None = None
_timer_due = 0.0


def keep_seconds() -> float:
    """How long an idle actor is kept (``JUDGE_RAY_KEEP_S``; bad values: the default)."""
    raw = os.environ.get("JUDGE_RAY_KEEP_S", "").strip()
    if not raw:
        return DEFAULT_KEEP_S
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_KEEP_S
    return value if value >= 0 else DEFAULT_KEEP_S


def _wanted(address: str | None) -> str:
    return address or os.environ.get("RAY_ADDRESS") or ""


def connect(ray: Any, address: str | None, init: Callable[[], None]) -> None:
    """Count a run as open; connect the driver first unless it is connected to
    ``address`` already (by this module, or by the caller). ``init`` connects (it raises
    what it raises). A connection this module made to another address is closed first,
    with every idle actor on it."""
    global _connected, _job, _runs_open
    with _lock:
        wanted = _wanted(address)
        if _connected is not None and not _ours(ray):
            # closed or made anew by someone else since: its actors are gone with it
            _connected, _job = None, None
            _idle.clear()
        # a connection the caller made, or one in use by an open run, is used as it is
        if _connected is not None and _connected != wanted and _runs_open == 0:
            _drop_idle(ray)
            _shutdown(ray)
        if not ray.is_initialized():
            _idle.clear()  # handles of a connection that is gone
            init()
            _connected, _job = wanted, _job_id(ray)
        _runs_open += 1


def _job_id(ray: Any) -> str | None:
    try:
        return str(ray.get_runtime_context().get_job_id())
    except Exception:  # noqa: BLE001 - an older Ray: then any connection counts as ours
        return None


def _ours(ray: Any) -> bool:
    """Whether the driver's connection is still the one this module made."""
    return ray.is_initialized() and _job_id(ray) == _job


def take(key: tuple[Any, ...]) -> Any | None:
    """An idle actor kept under ``key`` (and still within its time), or None."""
    now = time.monotonic()
    with _lock:
        entries = _idle.get(key) or []
        while entries:
            handle, until = entries.pop()
            if until > now:
                return handle
        return None


def keep(key: tuple[Any, ...], handle: Any) -> bool:
    """Keep an actor whose run has ended (its sandbox closed) for the next run. False (and
    nothing kept) for a private Ray or when keeping is off: the caller kills it."""
    seconds = keep_seconds()
    with _lock:
        if seconds <= 0 or _connected == "":
            return False
        _idle.setdefault(key, []).append((handle, time.monotonic() + seconds))
        _arm(seconds)
        return True


def disconnect(ray: Any) -> None:
    """A run has closed (after :func:`keep`): a private Ray is stopped now; a connection
    this module made stays while idle actors are kept."""
    global _runs_open
    with _lock:
        _runs_open = max(0, _runs_open - 1)
        if _runs_open == 0 and _connected is not None and (_connected == "" or not _idle):
            _drop_idle(ray)
            _shutdown(ray)


def idle_count() -> int:
    with _lock:
        return sum(len(entries) for entries in _idle.values())


def release_all(ray: Any | None = None) -> None:
    """Kill every idle actor now (and close the connection this module made, with no run
    open)."""
    if ray is None:
        import ray as ray_module

        ray = ray_module
    with _lock:
        _drop_idle(ray)
        if _runs_open == 0 and _connected is not None:
            _shutdown(ray)


def _arm(seconds: float) -> None:
    """Have :func:`_expire` run in ``seconds`` (sooner if it is already due sooner)."""
    global _timer, _timer_due
    due = time.monotonic() + seconds
    if _timer is not None and _timer.is_alive():
        if _timer_due <= due:
            return
        _timer.cancel()
    _timer, _timer_due = threading.Timer(seconds + 0.05, _expire), due
    _timer.name = "judge-ray-idle"
    _timer.daemon = True
    _timer.start()


def _expire() -> None:
    """Kill the actors idle past their time; close this module's connection when none is
    left and no run is open; look again when the next one is due."""
    global _timer
    import ray

    now = time.monotonic()
    with _lock:
        _timer = None
        for key in list(_idle):
            keep_, due = [], []
            for handle, until in _idle[key]:
                (keep_ if until > now else due).append((handle, until))
            for handle, _ in due:
                _kill(ray, handle)
            if keep_:
                _idle[key] = keep_
            else:
                del _idle[key]
        if _idle:
            soonest = min(until for entries in _idle.values() for _, until in entries)
            _arm(max(0.0, soonest - now))
        elif _runs_open == 0 and _connected is not None:
            _shutdown(ray)


def _drop_idle(ray: Any) -> None:
    for entries in _idle.values():
        for handle, _ in entries:
            _kill(ray, handle)
    _idle.clear()


def _kill(ray: Any, handle: Any) -> None:
    try:
        ray.kill(handle)
    except Exception:  # noqa: BLE001 - gone with its node or connection already
        pass


def _shutdown(ray: Any) -> None:
    """Close the connection this module made (not one made since by someone else)."""
    global _connected, _job
    ours = _connected is not None and _ours(ray)
    _connected, _job = None, None
    try:
        if ours:
            ray.shutdown()
    except Exception:  # noqa: BLE001 - nothing left to close
        pass
