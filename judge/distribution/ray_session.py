"""The driver's Ray connection, and the judge's actors kept warm on a cluster between runs.

Opening a run on Ray costs far more than opening a local sandbox: Ray starts a new Python
process per node for the run's :class:`~judge.distribution.ray_actor.JudgeActor`, which imports
the judge and walks the host (the process sandbox's search for world-writable places, paid
once per process): 1.7-4 s on a 2-core machine. A local judge pays that walk once per driver
process; on a cluster the judge's actors now outlive the driver, so a new driver process
(``judge run --executor ray``, a process per run) finds them warm:

- **Detached, named actors** on a cluster (an address given, ``RAY_ADDRESS``, or a
  connection the caller made): one per node, in the Ray namespace :func:`namespace` (one per
  judge version; the cluster is the one connected to), named by :func:`actor_name` (the
  node, the sandbox kind, the concurrency and a slot number). They outlive the driver.
- When a run ends each actor closes its sandbox (no worker or container survives the run);
  its process is kept, idle, holding no CPU of the cluster (``num_cpus=0``), and ends itself
  after :func:`keep_seconds` (``JUDGE_RAY_KEEP_S``, default 60; ``0``: nothing is kept) with
  no run.
- The next driver looks each node's actor up by name, checks it runs the driver's judge code
  (else the idle stale actor ends itself and a new one is started), and leases it: it opens
  a fresh sandbox with the run's own jobs, limits and options. An actor is leased to one run
  at a time: a second driver at once finds the first slot ``busy`` and takes (or starts) the
  next one. A dead actor's name is skipped the same way. A lease whose driver's job has ended
  (a driver killed mid-run) is taken back by the actor.
- **A private Ray** (no address, no ``RAY_ADDRESS``: Ray started for this run on this
  machine) keeps nothing: its actors are ordinary ones, killed with the run, and Ray is
  stopped when its run closes.
- **To end the kept actors at once**: ``judge ray stop [--ray-address ADDR]``, or
  :func:`release_all` from Python (``ray stop`` on the cluster ends everything, as always).

The driver's connection: one this module made (``ray.init``) stays open
:func:`keep_seconds` after the last run closes (a later run of the same process then skips
``ray.init``) and is closed then, or by :func:`release_all`. A connection the caller made
(``ray.init`` before the judge) is never closed here.

Thread-safe: every change of state is under one lock.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from judge.settings import settings

#: the Ray namespaces of the judge's kept actors start with this (then the judge's version)
NAMESPACE_PREFIX = "judge-actors-"

_lock = threading.RLock()
#: the address this module connected the driver to ("" for a private Ray), or None
_connected: str | None = None
#: the driver's job id on that connection (a connection made anew since is not ours)
_job: str | None = None
_runs_open = 0
_timer: threading.Timer | None = None
_exit_hook = False


def keep_seconds() -> float:
    """How long an idle actor is kept (the setting ``JUDGE_RAY_KEEP_S``, default 60; a
    malformed one is :class:`judge.settings.InvalidSetting`)."""
    return settings().ray_keep_s


def namespace() -> str:
    """The Ray namespace of this judge version's kept actors."""
    import judge

    return NAMESPACE_PREFIX + judge.__version__


def actor_name(node_id: str, kind: str, concurrency: int, slot: int) -> str:
    return "%s-c%d-%s-%d" % (kind, concurrency, node_id, slot)


def _wanted(address: str | None) -> str:
    return address or settings().ray_address or ""


def connect(ray: Any, address: str | None, init: Callable[[], None]) -> None:
    """Count a run as open; connect the driver first unless it is connected to
    ``address`` already (by this module, or by the caller). ``init`` connects (it raises
    what it raises). A connection this module made to another address is closed first."""
    global _connected, _job, _runs_open
    with _lock:
        _cancel_timer()
        wanted = _wanted(address)
        if _connected is not None and not _ours(ray):
            _connected, _job = None, None  # closed or made anew by someone else since
        # a connection the caller made, or one in use by an open run, is used as it is
        if _connected is not None and _connected != wanted and _runs_open == 0:
            _shutdown(ray)
        if not ray.is_initialized():
            init()
            _connected, _job = wanted, _job_id(ray)
            _prepare(ray)
        _runs_open += 1


def _prepare(ray: Any) -> None:
    """(A connection this module made.) Two costs of a new driver that buy the judge
    nothing, cut:

    - Ray's serialisation context, made at the first call, imports pyarrow (and numpy)
      when installed, to register Arrow serialisers for Ray Data: 0.3-0.4 s of a 2 s run.
      The judge sends no Arrow data, so its connection's context is made without them
      (Arrow objects would still travel, pickled).
    - At the interpreter's exit Ray's own hook sleeps 0.5 s "so that log messages finish
      printing" before disconnecting; the judge's actors print nothing to the driver
      (``log_to_driver=False``), so the connection is closed first, without the wait.

    Both use Ray's internals, so any failure only leaves Ray's default behaviour."""
    global _exit_hook
    try:
        from ray._private import arrow_serialization

        register = arrow_serialization._register_custom_datasets_serializers
        arrow_serialization._register_custom_datasets_serializers = lambda context: None
        try:
            ray._private.worker.global_worker.get_serialization_context()
        finally:
            arrow_serialization._register_custom_datasets_serializers = register
    except Exception:  # noqa: BLE001 - another Ray: its default
        pass
    if not _exit_hook:
        import atexit

        atexit.register(_at_exit)  # after Ray's own hook, so it runs before it
        _exit_hook = True


def _at_exit() -> None:
    import ray

    with _lock:
        _cancel_timer()
        if _connected is not None:
            _shutdown(ray)


def keeps_actors() -> bool:
    """Whether this run's actors are detached and kept for later drivers: on a cluster (not
    a private Ray this module started), with keeping on."""
    with _lock:
        return _connected != "" and keep_seconds() > 0


def driver_job(ray: Any) -> str | None:
    """The driver's Ray job id (hex): an actor's lease lasts while that job runs."""
    return _job_id(ray)


def _job_id(ray: Any) -> str | None:
    try:
        return str(ray.get_runtime_context().get_job_id())
    except Exception:  # noqa: BLE001 - an older Ray: then any connection counts as ours
        return None


def _ours(ray: Any) -> bool:
    """Whether the driver's connection is still the one this module made."""
    return ray.is_initialized() and _job_id(ray) == _job


def disconnect(ray: Any) -> None:
    """A run has closed: a private Ray is stopped now; a connection to a cluster this module
    made stays :func:`keep_seconds` for the process's next run."""
    global _runs_open, _timer
    with _lock:
        _runs_open = max(0, _runs_open - 1)
        if _runs_open or _connected is None:
            return
        seconds = keep_seconds()
        if _connected == "" or seconds <= 0:
            _shutdown(ray)
            return
        _cancel_timer()
        _timer = threading.Timer(seconds, _expire)
        _timer.name = "judge-ray-connection"
        _timer.daemon = True
        _timer.start()


def _expire() -> None:
    import ray

    with _lock:
        if _runs_open == 0 and _connected is not None:
            _shutdown(ray)


def _cancel_timer() -> None:
    global _timer
    if _timer is not None:
        _timer.cancel()
        _timer = None


def kept_actors(ray: Any | None = None, every_version: bool = True) -> list[dict[str, Any]]:
    """The judge's actors on the connected cluster (of every judge version, or only this
    one's): their name, namespace and :meth:`~judge.distribution.ray_actor.JudgeActor.state`
    (``leased`` by a run, or idle for ``idle_s``). Needs a connection."""
    ray = ray or _import_ray()
    if not ray.is_initialized():
        return []
    mine = namespace()
    found = []
    for entry in ray.util.list_named_actors(all_namespaces=True):
        space = entry.get("namespace", "")
        if space == mine or (every_version and space.startswith(NAMESPACE_PREFIX)):
            try:
                handle = ray.get_actor(entry["name"], namespace=space)
                found.append((entry, handle, handle.state.remote()))
            except Exception:  # noqa: BLE001 - ended meanwhile
                continue
    out = []
    for entry, handle, ref in found:
        try:
            state = ray.get(ref, timeout=30)
        except Exception:  # noqa: BLE001 - ended meanwhile
            continue
        out.append(dict(state, name=entry["name"], namespace=entry["namespace"],
                        handle=handle))
    return out


def idle_count(ray: Any | None = None) -> int:
    """Kept actors idle now on the connected cluster (none leased to a run)."""
    return sum(1 for actor in kept_actors(ray) if not actor["leased"] and not actor["exiting"])


def release_all(ray: Any | None = None, force: bool = False) -> int:
    """End every idle kept judge actor on the connected cluster now (``force``: also those
    leased to a run, which then retries their candidates elsewhere), and close the
    connection this module made when no run is open. Answers how many were ended."""
    ray = ray or _import_ray()
    ended = 0
    with _lock:
        if ray.is_initialized():
            asked = [(actor, actor["handle"].stop.remote(force)) for actor in kept_actors(ray)]
            for actor, ref in asked:
                try:
                    ended += bool(ray.get(ref, timeout=30))
                except Exception:  # noqa: BLE001 - ended before it could answer: ended
                    ended += 1
        if _runs_open == 0 and _connected is not None:
            _cancel_timer()
            _shutdown(ray)
    return ended


def _import_ray() -> Any:
    import ray

    return ray


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
