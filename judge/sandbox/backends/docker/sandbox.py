"""The docker sandbox: warm containers, each running the worker as its main process.

Each container runs the worker (the ``judge_worker`` package in ``/opt/judge/runner``, baked
into the image with its bytecode, see ``judge.sandbox.backends.docker.image``; started by
``harness.worker_command``) as PID 1 with its stdin open. The judge attaches to the
container *before* starting it and talks the worker protocol over the attach socket, or,
when the engine runs on this host and the judge may, over two pipes taken from the worker
(``judge.sandbox.backends.docker.transport``: no engine or shim relays a job or a record). One job
at a time per container; a
container is killed and replaced lazily after an incident (but a timeout that left no
process behind) or ``max_jobs_per_worker`` jobs (``fresh=True``: one container per job). The worker wipes /tmp, /dev/shm, /dev/mqueue and its
work folder between jobs (a fresh work folder per test).

Every container gets, configurably: a memory limit with swap equal to it (no swap), a CPU
quota, a pids limit, no network, a read-only root, size-capped tmpfs for /work and /tmp,
all capabilities dropped, no-new-privileges, user 10001:10001, nofile/fsize/core ulimits and
an environment of PATH, LANG and HOME only. No host path is mounted; a job carries only code
and inputs.

Cleanup, in layers:
- ``close()`` (context manager, atexit, SIGTERM/SIGHUP) kills every container of the run,
  found by its ``org.judge.run`` label;
- containers are created with ``StdinOnce`` and ``AutoRemove``: if the judge dies (even by
  SIGKILL) its attach socket closes, the worker sees end of input, exits, and the engine
  removes the container;
- a new DockerSandbox removes containers whose judge process (``org.judge.pid`` +
  ``org.judge.pid_start`` on ``org.judge.host``) is gone.

Out of memory: the worker reports per test whether its child died by SIGKILL and whether
the container's memory cgroup ``oom_kill`` counter moved (``oom_kill``). When a SIGKILL'd test
has no such mark (counter unreadable) or the worker itself died, the engine is asked: the
container's cgroup counter from the host when readable, else the engine's ``oom`` events for
the container. (On this project's dockerd 20.10 / cgroup v1, ``State.OOMKilled`` stays false
while the container runs after a *child* was OOM-killed; it turns true only once the
container has exited. The ``oom`` event is emitted at once.)
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time
import uuid
from typing import Any

from judge.sandbox import records
from judge.sandbox.harness import worker_command
from judge.sandbox.backends.docker import image as images
from judge.sandbox.backends.docker import maintenance
from judge.sandbox.pool import PooledSandbox, WorkerSession
from judge.sandbox.base import (
    Job,
    JobReport,
    SandboxUnavailable,
    TransportError,
)
from judge.sandbox.backends.docker.transport import AttachTransport
from judge.settings import settings

SANDBOX_UID = 10001
#: the worker imported from /opt/judge/runner (its bytecode compiled when the image was built)
WORKER_COMMAND = worker_command("python3", "/opt/judge/runner", write_bytecode=False) + [
                  "--workroot", "/work", "--wipe", "/tmp", "--wipe", "/dev/shm",
                  "--wipe", "/dev/mqueue", "--wipe", "/mnt", "--offer-pipes",
                  # the container's IPC namespace is its own (ipc_mode="private" below): the
                  # System V objects in it are its candidates', removed after each
                  "--own-ipc",
                  # and so are its cgroups: their OOM-kill and pids counters are its own
                  "--container"]
CONTAINER_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/work"}



# ---- process-wide safety net ------------------------------------------------------------------
_OPEN: "set[DockerSandbox]" = set()
_HANDLERS_INSTALLED = False


def _close_all_at_exit() -> None:
    for sandbox in list(_OPEN):
        try:
            sandbox.close()
        except Exception:  # noqa: BLE001
            pass


def _on_signal(signum: int, frame: Any) -> None:
    """SIGTERM/SIGHUP: remove our containers without taking any lock, then die as before."""
    for sandbox in list(_OPEN):
        sandbox._sweep()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_safety_net() -> None:
    global _HANDLERS_INSTALLED
    if _HANDLERS_INSTALLED:
        return
    _HANDLERS_INSTALLED = True
    atexit.register(_close_all_at_exit)
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            try:
                if signal.getsignal(signum) in (signal.SIG_DFL, None):
                    signal.signal(signum, _on_signal)
            except (ValueError, OSError):
                pass


def new_run_id() -> str:
    return "%s-%d-%s" % (time.strftime("%Y%m%d%H%M%S"), os.getpid(), uuid.uuid4().hex[:6])


class DockerSandbox(PooledSandbox):
    """Warm containers, ``size`` of them (the judge's --jobs), one job at a time each.

    Limits apply to every container: ``memory_mb`` (default: the largest job's limit, at
    least ``Limits().memory_mb``) plus ``memory_headroom_mb`` for the worker, with swap
    equal (no swap); ``cpus``; ``pids_limit``; ``tmpfs_mb`` for /work and for /tmp;
    ``nofile``; ``fsize_mb``. A job asking for more memory than the containers have makes
    new, larger containers (unless ``grow_memory=False``: then the container limit is fixed
    and the cgroup OOM killer is the memory limit past it).
    """

    name = "docker"
    #: a timeout that left nothing behind keeps the container: its worker is a child
    #: subreaper too (every process the candidate started is below it and was killed; a
    #: survivor is counted in ``leftovers`` and retires the container), and its folders and
    #: System V IPC were wiped as after any candidate. A new container costs far more than
    #: a process worker (create, attach, start, handshake).
    retire_after_timeout = False

    def __init__(self, size: int = 1, max_jobs_per_worker: int = 500, fresh: bool = False,
                 image: str | None = None, language: str = "python",
                 memory_mb: int | None = None, memory_headroom_mb: int = 128,
                 cpus: float = 1.0, pids_limit: int = 64, tmpfs_mb: int = 64,
                 nofile: int = 1024, fsize_mb: int = 64, grow_memory: bool = True,
                 prewarm: bool = False, exec_work: bool = False,
                 run_id: str | None = None, client: Any = None,
                 overcommit: int | None = None, direct_pipes: bool = True,
                 cgroup_parent: str | None = None) -> None:
        super().__init__(size, max_jobs_per_worker, fresh, overcommit)
        self.fresh = fresh
        #: jobs and records through pipes taken from the worker when the engine is local
        #: (judge.sandbox.backends.docker.transport), else through the attach socket
        self.direct_pipes = direct_pipes
        #: where the containers' cgroups go (``JUDGE_DOCKER_CGROUP_PARENT``; None: the
        #: engine's default, e.g. /docker, where all containers together weigh what one
        #: process weighs against the host's other processes: see docs/sandboxes.md)
        self.cgroup_parent = cgroup_parent or settings().docker_cgroup_parent or None
        self.language = language
        self.memory_headroom_mb = memory_headroom_mb
        self.grow_memory = grow_memory
        from judge.sandbox.base import Limits  # noqa: PLC0415

        self.memory_mb = memory_mb if (memory_mb and not grow_memory) else max(memory_mb or 0, Limits().memory_mb)
        self.cpus = min(cpus, float(os.cpu_count() or 1))  # the engine refuses more than exist
        self.pids_limit = pids_limit
        self.tmpfs_mb = tmpfs_mb
        self.nofile = nofile
        self.fsize_mb = fsize_mb
        #: /work may hold programs (compiled candidates); Docker mounts a tmpfs noexec unless told
        self.exec_work = exec_work
        self.run_id = run_id or new_run_id()
        self._labels = maintenance.owner_labels(self.run_id, language)
        self._serial = 0
        self._generation = 0                  # bumps when the container memory grows
        self._owns_client = client is None
        try:
            # one connection per concurrent job plus the occasional inspect/kill
            self.client = client or images.get_client(timeout=60, max_pool_size=max(10, 2 * self.size + 4))
        except images.EngineUnavailable as exc:
            raise SandboxUnavailable(str(exc)) from None
        self.api = self.client.api
        if image is not None:
            try:
                self.client.images.get(image)
            except Exception:  # noqa: BLE001
                self._close_client()
                raise SandboxUnavailable("the sandbox image %s does not exist" % image) from None
        self.image = image or images.image_ready(language, client=self.client)
        if self.image is None:
            self._close_client()
            raise SandboxUnavailable("the %s sandbox image %s is not built (run: judge sandbox build)"
                                     % (language, images.image_tag(language)))
        self.engine_version = self.client.version().get("Version")
        self.reaped = maintenance.reap_stale(self.client)
        self._closed_all = False
        _OPEN.add(self)
        _install_safety_net()
        if prewarm:
            self.prewarm()

    # ---- containers -------------------------------------------------------------------------
    def container_memory_mb(self) -> int:
        return self.memory_mb + self.memory_headroom_mb

    def host_config(self) -> dict[str, Any]:
        """Everything the engine enforces (the arguments of ``create_host_config``)."""
        from docker.types import LogConfig, Ulimit  # noqa: PLC0415

        mem = "%dm" % self.container_memory_mb()
        tmpfs_opts = "rw,nosuid,nodev,size=%dm" % self.tmpfs_mb
        fsize = self.fsize_mb * 1024 * 1024
        return dict(
            mem_limit=mem, memswap_limit=mem,
            nano_cpus=int(self.cpus * 1e9),
            pids_limit=self.pids_limit,
            network_mode="none",
            read_only=True,
            tmpfs={"/work": "%s,uid=%d,gid=%d,mode=0700%s" % (
                tmpfs_opts, SANDBOX_UID, SANDBOX_UID, ",exec" if self.exec_work else ""),
                   "/tmp": "%s,mode=1777" % tmpfs_opts,
                   # SandboxFusion's programs may write /mnt (its fetch_files test does)
                   # (owned by the sandbox's user: Docker copies the image's folder's mode)
                   "/mnt": "rw,nosuid,nodev,size=64m,uid=%d,gid=%d" % (SANDBOX_UID,
                                                                          SANDBOX_UID)},
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            ulimits=[Ulimit(name="nofile", soft=self.nofile, hard=self.nofile),
                     Ulimit(name="fsize", soft=fsize, hard=fsize),
                     Ulimit(name="core", soft=0, hard=0)],
            log_config=LogConfig(type="none"),
            auto_remove=True,
            ipc_mode="private",
            **({"cgroup_parent": self.cgroup_parent} if self.cgroup_parent else {}),
        )

    def _spawn(self, slot: int) -> WorkerSession:
        with self._lock:
            self._serial += 1
            serial, generation = self._serial, self._generation
            memory = self.container_memory_mb()
        name = "judge-%s-%d-%d" % (self.run_id, slot, serial)
        labels = dict(self._labels, **{"org.judge.slot": str(slot)})
        try:
            created = self.api.create_container(
                self.image, WORKER_COMMAND, name=name, user="%d:%d" % (SANDBOX_UID, SANDBOX_UID),
                stdin_open=True, detach=False, tty=False,  # detach=False => StdinOnce
                environment=dict(CONTAINER_ENV), working_dir="/work", network_disabled=True,
                labels=labels, host_config=self.api.create_host_config(**self.host_config()))
        except Exception as exc:  # noqa: BLE001
            raise TransportError("cannot create a container: %s" % images._short(exc)) from None
        cid = created["Id"]
        try:
            response = self.api.attach_socket(cid, params={"stdin": 1, "stdout": 1, "stderr": 1,
                                                           "stream": 1})
            sock = getattr(response, "_sock", response)
            transport = AttachTransport(self, cid, name, sock, response)
        except Exception as exc:  # noqa: BLE001
            self._kill_container(cid)
            raise TransportError("cannot attach to container %s: %s" % (name, images._short(exc))) from None
        try:
            self.api.start(cid)
        except Exception as exc:  # noqa: BLE001
            transport.close()
            raise TransportError("cannot start container %s: %s" % (name, images._short(exc))) from None
        session = WorkerSession(transport, self.name)
        session.generation = generation  # type: ignore[attr-defined]
        session.memory_mb = memory  # type: ignore[attr-defined]
        try:
            session.handshake()
        except TransportError:
            transport.close()
            raise
        session.pid = self._host_pid(cid)  # type: ignore[attr-defined]
        if self.direct_pipes:
            try:
                transport.take_pipes(session.pid, session.hello, session.READY_TIMEOUT_S)
            except TransportError:
                transport.close()
                raise
        return session

    def _host_pid(self, cid: str) -> int | None:
        """The container's first process as this host sees it, when the engine runs on this
        host (its tree is what a job uses: judge.sandbox.admission); else None (busy)."""
        try:
            pid = int(self.api.inspect_container(cid)["State"]["Pid"])
        except Exception:  # noqa: BLE001 - no answer: the job counts as busy
            return None
        return pid if pid > 0 and os.path.exists("/proc/%d/stat" % pid) else None

    def _kill_container(self, cid: str) -> None:
        """Kill and remove one container; gone already is fine."""
        try:
            self.api.remove_container(cid, force=True)
        except Exception:  # noqa: BLE001 - NotFound, or auto-removal already in progress
            pass

    def prewarm(self) -> None:
        """Start all ``size`` containers now, in parallel, instead of on first use."""
        sessions: list[WorkerSession] = []
        errors: list[BaseException] = []

        def one() -> None:
            try:
                sessions.append(self._acquire())
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=one, daemon=True) for _ in range(self.size)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for session in sessions:
            self._idle.put(session)

    # ---- jobs -------------------------------------------------------------------------------
    def run(self, job: Job) -> JobReport:
        if self.grow_memory and job.limits.memory_mb > self.memory_mb:
            with self._lock:
                if job.limits.memory_mb > self.memory_mb:
                    self.memory_mb = job.limits.memory_mb
                    self._generation += 1
            self._drop_idle_older_than(self._generation)
        return super().run(job)

    def _acquire(self) -> WorkerSession:
        while True:
            session = super()._acquire()  # (an idle one gone while idle is replaced there)
            if getattr(session, "generation", 0) >= self._generation:
                return session
            self._discard(session)  # too small for the job's memory

    def _drop_idle_older_than(self, generation: int) -> None:
        keep = []
        while True:
            try:
                session = self._idle.get_nowait()
            except Exception:  # noqa: BLE001 - queue.Empty
                break
            if getattr(session, "generation", 0) < generation:
                self._discard(session)
            else:
                keep.append(session)
        for session in keep:
            self._idle.put(session)

    def _after_job(self, session: WorkerSession, report: JobReport) -> None:
        """Ask the engine about OOM kills the worker could not see for itself."""
        transport: AttachTransport = session.transport  # type: ignore[assignment]
        unmarked = [r for r in report.records.values()
                    if r.get("status") == records.SIGNALED and r.get("signal") == "SIGKILL"
                    and not r.get("oom_kill")]
        if not unmarked and report.died_during is None:
            return
        kills = self.oom_kills(transport)
        if kills is None or kills <= transport.oom_seen:
            if report.died_during is not None and self._killed_from_outside(transport):
                # nothing inside can SIGKILL the worker (PID 1): an API kill is ours
                report.infra_error = "the container was killed from outside the judge (%s)" % (
                    report.died_reason or "worker gone")
                report.died_during = None
            return
        transport.oom_seen = kills
        report.oom_killed = True
        if len(unmarked) == 1:
            unmarked[0]["oom_kill"] = True
            unmarked[0]["oom_source"] = "engine"
        if report.died_during is not None and report.died_during not in report.records:
            # the worker (PID 1) itself was OOM-killed while running this test
            report.records[report.died_during] = {
                "event": "test", "index": report.died_during, "status": records.SIGNALED,
                "signal": "SIGKILL", "oom_kill": True, "oom_source": "engine",
                "message": report.died_reason}
            report.died_during = None
        report.recycle = True

    def _killed_from_outside(self, transport: AttachTransport) -> bool:
        """Whether the engine logged a ``kill`` of this container (docker kill / stop)."""
        if getattr(transport, "_closed", False):
            return False
        for attempt in range(3):
            try:
                events = list(self.api.events(
                    since="%.6f" % (transport.started_at - 1), until="%.6f" % time.time(),
                    filters={"container": transport.container_id, "event": "kill"},
                    decode=True))
            except Exception:  # noqa: BLE001 - no answer: keep the default (the candidate's)
                return False
            if events:
                return True
            time.sleep(0.05 * (attempt + 1))  # the event may trail the kill by a moment
        return False

    def oom_kills(self, transport: AttachTransport) -> int | None:
        """How many OOM kills the engine saw in this container (None: cannot tell)."""
        counted = _host_cgroup_oom_kills(transport.container_id, self.cgroup_parent)
        if counted is not None:
            return counted
        for attempt in range(3):
            try:
                events = list(self.api.events(
                    since="%.6f" % (transport.started_at - 1), until="%.6f" % time.time(),
                    filters={"container": transport.container_id, "event": "oom"}, decode=True))
            except Exception:  # noqa: BLE001
                return None
            if events:
                return len(events)
            time.sleep(0.05 * (attempt + 1))  # the event may trail the kill by a moment
        return 0

    # ---- reporting & cleanup ----------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {
            "kind": "docker",
            "engine": self.engine_version,
            "image": self.image,
            "run_id": self.run_id,
            "isolation": "fresh" if self.fresh else "warm",
            "memory_mb": self.container_memory_mb(),
            "swap": False,
            "cpus": self.cpus,
            "pids_limit": self.pids_limit,
            "tmpfs_mb": self.tmpfs_mb,
            "user": "%d:%d" % (SANDBOX_UID, SANDBOX_UID),
            "network_isolated": True,
            "filesystem_isolated": True,
            "read_only_root": True,
            "capabilities": "none",
        }

    def isolation(self) -> dict[str, Any]:
        return {"backend": "docker", "isolated": True,
                "user": "%d:%d" % (SANDBOX_UID, SANDBOX_UID), "network": "none",
                "tmp": "private per container, wiped per candidate",
                "filesystem": "read-only image", "image": self.image}

    def containers(self) -> list[Any]:
        """This run's containers, as the engine lists them."""
        return self.client.containers.list(all=True, ignore_removed=True, filters={"label": "%s=%s" % (images.LABEL_RUN,
                                                                                  self.run_id)})

    def _sweep(self, client: Any = None) -> int:
        """Remove every container labelled with this run id (no locks: signal-safe, with a
        client of its own unless given one)."""
        own = client is None
        try:
            client = client or images.get_client(timeout=10)
        except images.EngineUnavailable:
            return 0
        try:
            found = client.containers.list(all=True, ignore_removed=True, filters={"label": "%s=%s" % (
                images.LABEL_RUN, self.run_id)})
            return images.remove_containers(client, found)
        except Exception:  # noqa: BLE001
            return 0
        finally:
            if own:
                client.close()

    def close(self) -> None:
        """Remove every container: the live ones at once (each removal waits for the engine),
        then whatever else carries this run's label."""
        if self._closed_all:
            return
        self._closed_all = True
        try:
            with self._lock:
                self._closed = True
                live = list(self._live)
            threads = [threading.Thread(target=self._discard, args=(session,), daemon=True)
                       for session in live[1:]]
            for thread in threads:
                thread.start()
            if live:
                self._discard(live[0])
            for thread in threads:
                thread.join(60)
            self._sweep(self.client)
        finally:
            _OPEN.discard(self)
            self._close_client()

    def _close_client(self) -> None:
        if self._owns_client:
            try:
                self.client.close()
            except Exception:  # noqa: BLE001
                pass


def _host_cgroup_oom_kills(container_id: str, parent: str | None = None) -> int | None:
    """The container's memory cgroup oom_kill counter, read from the host (same machine,
    cgroupfs driver; ``parent``: the containers' cgroup parent when not the engine's
    default); None when not readable here."""
    parents = [p.rstrip("/") for p in dict.fromkeys((parent or "/docker", "/docker"))]
    candidates = [path % (p, container_id) for p in parents for path in (
        "/sys/fs/cgroup/memory%s/%s/memory.oom_control",                     # v1
        "/sys/fs/cgroup%s/%s/memory.events")] + [                            # v2, cgroupfs
        "/sys/fs/cgroup/system.slice/docker-%s.scope/memory.events" % container_id]  # systemd
    for path in candidates:
        try:
            with open(path) as handle:
                for line in handle:
                    if line.startswith("oom_kill "):
                        return int(line.split()[1])
        except (OSError, ValueError):
            continue
    return None


__all__ = ["AttachTransport", "DockerSandbox", "new_run_id", "SANDBOX_UID", "WORKER_COMMAND"]
