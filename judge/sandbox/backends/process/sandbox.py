"""The process sandbox: warm workers as local processes. The embedded default where no
Docker engine answers.

What it does (see the README for what it does not):
- each worker starts with an empty environment (no variable of the judge's reaches it), in
  a new session, as a child subreaper, non-dumpable;
- as root, each worker slot runs its candidates as its own unprivileged user id (the first
  free one from ``JUDGE_SANDBOX_UID_BASE``, default 61000, leased under a host-wide file
  lock), so a candidate cannot signal, ptrace or read the worker, and RLIMIT_NPROC really
  bounds a fork bomb; the worker moves into an empty network namespace (no network) and a
  private mount and IPC namespace (its own /tmp, /var/tmp, /dev/shm, wiped per candidate)
  where every mount of the host is read-only (``mount_setattr``; else, on older kernels,
  every world-writable file is /dev/null), every other world-writable directory of the host
  (/run/lock, ...: found by walking the host, see ``world_writable_places``) is a small
  private tmpfs and every world-writable FIFO or socket is /dev/null, so a candidate can
  neither leave a file on the host's disk nor fill it (each tmpfs has a size and an inode
  limit).
  Where any of that fails as root, the sandbox refuses to start unless told
  ``allow_unisolated``;
- per test (in the worker): CPU, file-size, open-file, core and process rlimits, a memory
  watcher over the whole process tree, a wall-clock backstop, a capped stdout/stderr file, a
  fresh working directory removed afterwards, and every leftover process killed;
- when a worker is retired, psutil kills its whole tree and every process still owned by
  its user id.
"""

from __future__ import annotations

import fcntl
import os
import select
import stat
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil

from judge.sandbox.pool import PooledSandbox, WorkerSession
from judge.sandbox.base import (
    SandboxUnavailable,
    Transport,
    TransportError,
    TransportTimeout,
    pop_line,
)
from judge.sandbox.backends.process.hostfs import (  # noqa: F401 (re-exported)
    PRIVATE_DIRS,
    SHADOW_TMPFS,
    host_mode,
    readonly_mounts,
    shadow_command,
    world_writable_places,
)
from judge.sandbox.backends.process.hostfs import prefetch as prefetch_host_walk
from judge.sandbox.harness import install_worker, worker_command
from judge.settings import settings

if TYPE_CHECKING:
    from judge.sandbox.prerequisites import Prerequisite

_STDERR_TAIL = 4096


def __getattr__(name: str) -> Any:
    """``UID_BASE`` (the first candidate uid) and ``LOCK_DIR`` (where uid leases are locked,
    one file per uid): the settings ``JUDGE_SANDBOX_UID_BASE`` and ``JUDGE_SANDBOX_LOCK_DIR``."""
    if name == "UID_BASE":
        return settings().sandbox_uid_base
    if name == "LOCK_DIR":
        return str(settings().sandbox_lock_dir)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


class PipeTransport(Transport):
    """Pipes to a local worker process."""

    def __init__(self, process: subprocess.Popen[bytes], stderr_file: Any, uid: int | None):
        self.process = process
        self.uid = uid
        self._stderr = stderr_file
        self._buffer = bytearray()
        self._fd = process.stdout.fileno()  # type: ignore[union-attr]
        self._closed = False

    def send(self, data: bytes) -> None:
        try:
            self.process.stdin.write(data)  # type: ignore[union-attr]
            self.process.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise TransportError("worker stdin closed: %s" % exc) from None

    def readline(self, limit: int, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while True:
            line = pop_line(self._buffer, limit)
            if line is not None:
                return line
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TransportTimeout("no answer from the worker in %.1fs" % timeout)
            if not select.select([self._fd], [], [], remaining)[0]:
                continue
            chunk = os.read(self._fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk

    def alive(self) -> bool:
        """An idle worker sends nothing: one that exited, or whose stdout is readable (end
        of file, or bytes it should not have sent), is replaced before a job is sent."""
        if self._closed or self._buffer or self.process.poll() is not None:
            return False
        try:
            return not select.select([self._fd], [], [], 0)[0]
        except (OSError, ValueError):
            return False

    def diagnostics(self) -> str:
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - _STDERR_TAIL))
            tail = self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return ("(worker stderr: %s)" % tail) if tail else ""

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        kill_tree(self.process.pid, self.uid)
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except (OSError, ValueError):
                pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        try:
            self._stderr.close()
        except OSError:
            pass


def kill_tree(pid: int, uid: int | None) -> int:
    """Kill a worker, everything below it, and (with a sandbox uid) everything that uid owns.

    Children are frozen first so a fork bomb cannot outrun the kill loop.
    """
    victims: list[psutil.Process] = []
    try:
        if pid > 0:
            root = psutil.Process(pid)
            victims = root.children(recursive=True) + [root]
    except psutil.Error:
        pass
    if uid is not None:
        for proc in psutil.process_iter(["uids"]):
            try:
                if proc.info["uids"] and proc.info["uids"].real == uid:
                    victims.append(proc)
            except psutil.Error:
                pass
    for proc in victims:
        try:
            proc.suspend()
        except psutil.Error:
            pass
    for proc in victims:
        try:
            proc.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(victims, timeout=2)
    return len(victims)


def _unreachable_stdlib(python: str) -> str | None:
    """Why a stranger cannot import the standard library of ``python``, when that is plain
    without starting it: the judge's own interpreter whose library lies under a folder others
    may not enter (a home of mode 700, as pyenv's). Else None (the probe decides)."""
    if os.path.realpath(python) != os.path.realpath(sys.executable):
        return None
    folder = os.path.realpath(sysconfig.get_paths()["stdlib"])
    while True:
        try:
            mode = os.stat(folder).st_mode
        except OSError:
            return None
        if not mode & stat.S_IXOTH:
            return "%s: its standard library is under %s, which others may not enter" % (
                python, folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _clean_env() -> dict[str, str]:
    """The worker's whole environment: nothing inherited from the judge."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}


class ProcessSandbox(PooledSandbox):
    """Warm local worker processes, ``size`` of them.

    As root it isolates or refuses: every worker gets its own unprivileged uid (taken under
    a host-wide lock, see ``UidLease``), an empty network namespace and private /tmp,
    /var/tmp, /dev/shm (and /dev/mqueue where it exists), wiped between candidates. When
    any of that cannot be had, the constructor raises SandboxUnavailable, unless
    ``allow_unisolated=True``: then candidates run as the judge's user with its network, and
    ``isolation()`` (copied into every result) says so.
    """

    name = "process"
    #: a timeout that left nothing behind keeps the worker: it is a child subreaper, so every
    #: process the candidate started is below it and was killed (a survivor is counted in
    #: ``leftovers``, and then the worker is retired and its uid swept, as before); its
    #: folders and System V IPC were wiped as after any candidate. Starting a worker again
    #: costs about 45 ms of CPU, once per hang.
    retire_after_timeout = False

    def __init__(self, size: int = 1, max_jobs_per_worker: int = 500, fresh: bool = False,
                 python: str | None = None, switch_user: bool | None = None,
                 allow_unisolated: bool = False, uid_base: int | None = None,
                 lock_dir: str | None = None, overcommit: int | None = None) -> None:
        if not sys.platform.startswith("linux"):
            raise SandboxUnavailable("the process sandbox needs Linux (/proc, prctl)")
        if switch_user is not False and os.geteuid() == 0:
            prefetch_host_walk()  # the first worker needs it: begin it beside what follows
        super().__init__(size, max_jobs_per_worker, fresh, overcommit)
        self.python = python or sys.executable
        self.uid_base = uid_base if uid_base is not None else settings().sandbox_uid_base
        self.lock_dir = lock_dir or str(settings().sandbox_lock_dir)
        self.allow_unisolated = allow_unisolated
        self._dir = Path(tempfile.mkdtemp(prefix="judge-process-"))
        # removed by close(); a sandbox never closed (a script that exits holding a Judge)
        # still takes its folder with it when collected or when the interpreter exits
        self._remove_dir = weakref.finalize(self, remove_tree, str(self._dir))
        install_worker(self._dir)
        self._dir.chmod(0o755)
        is_root = os.geteuid() == 0
        if switch_user is False and is_root and not allow_unisolated:
            raise SandboxUnavailable("switch_user=False as root runs candidates as root: "
                                     "pass allow_unisolated=True to mean it")
        self.switch_user = is_root if switch_user is None else (switch_user and is_root)
        self.user_probe_error: str | None = None
        self._leases: dict[int, UidLease] = {}
        if self.switch_user:
            self._choose_python_for_user(explicit=python is not None)
            if not self.switch_user and not allow_unisolated:
                self._cleanup_dir()
                raise SandboxUnavailable(
                    "the process sandbox cannot isolate candidates here: %s. Refusing to run "
                    "them as root with the host's network (use --sandbox docker, or "
                    "--allow-unisolated to run unisolated anyway)" % self.user_probe_error)
        self._network_isolated: bool | None = True if self.switch_user else False

    def _choose_python_for_user(self, explicit: bool) -> None:
        """Pick an interpreter whose standard library the sandbox uid can read: the judge's
        own first, then the system's (the worker needs only the standard library)."""
        choices = [self.python] if explicit else [self.python, "/usr/bin/python3"]
        errors = []
        # the probe runs as a leased uid, like any worker: another judge on this host that
        # cleans up the uid it holds (killing all it owns) can never kill this probe
        try:
            lease = UidLease.take(self.uid_base, self.lock_dir)
        except SandboxUnavailable as exc:
            lease, errors = None, [str(exc)]
        try:
            for python in dict.fromkeys(choices if lease is not None else []):
                if not os.path.exists(python):
                    continue
                error = _unreachable_stdlib(python) or self._probe_user(python, lease.uid)
                if error is None:
                    self.python = python
                    return
                errors.append(error)
        finally:
            if lease is not None:
                kill_tree(-1, lease.uid)
                lease.release()
        self.switch_user = False
        self.user_probe_error = "; ".join(errors) or "no usable Python interpreter"

    def _probe_user(self, python: str, uid: int) -> str | None:
        """Can a worker enter empty network, mount and IPC namespaces with private /tmp, and
        can a test child, switched to an unprivileged uid, still import the standard library?
        (Not when the interpreter lives under an unreadable home directory.) The probe does
        what a worker and its child do: start as root, unshare, mount, drop to the uid,
        import."""
        script = textwrap.dedent("""\
            import ctypes, os, sys
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.unshare(0x40000000) != 0:
                sys.stderr.write("cannot enter an empty network namespace (errno %d)"
                                 % ctypes.get_errno())
                sys.exit(10)
            if (libc.unshare(0x00020000 | 0x08000000) != 0
                    or libc.mount(b"none", b"/", None, 0x4000 | 0x40000, None) != 0
                    or libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 6, b"mode=1777,size=1m") != 0):
                sys.stderr.write("cannot make a private /tmp (mount namespace, errno %d)"
                                 % ctypes.get_errno())
                sys.exit(11)
            os.setgroups([]); os.setresgid(UID, UID, UID); os.setresuid(UID, UID, UID)
            import fractions, email.mime.text
            """).replace("UID", str(uid))
        try:
            subprocess.run([python, "-I", "-c", script], env=_clean_env(), check=True,
                           timeout=30, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           cwd="/")
        except subprocess.CalledProcessError as exc:
            detail = (exc.stderr or b"").decode(errors="replace")[-200:].strip()
            if exc.returncode in (10, 11):
                return "%s: %s" % (python, detail)
            return "uid %d cannot import the standard library of %s (%s)" % (
                uid, python, detail or "exit status %d" % exc.returncode)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return "cannot run %s: %s" % (python, exc)
        return None

    def _uid_for(self, slot: int) -> int:
        """The uid of a slot: leased once per sandbox under a host-wide lock, so two pools
        (in one judge or two) never share one; kept until ``close``."""
        with self._lock:
            lease = self._leases.get(slot)
            if lease is None:
                taken = {lease.uid for lease in self._leases.values()}
                lease = UidLease.take(self.uid_base, self.lock_dir, skip=taken)
                self._leases[slot] = lease
            return lease.uid

    def _spawn(self, slot: int) -> WorkerSession:
        workroot = self._dir / ("slot-%d" % slot)
        command = worker_command(self.python, str(self._dir)) + ["--workroot", str(workroot)]
        uid = None
        if self.switch_user:
            try:
                uid = self._uid_for(slot)
            except SandboxUnavailable as exc:
                raise TransportError(str(exc)) from None
            command += ["--isolate-network", "--private-tmp"]
            for directory in PRIVATE_DIRS + world_writable_places()[0]:
                command += ["--wipe", directory]
            command = shadow_command(self.python, command)
        stderr_file = tempfile.TemporaryFile(dir=self._dir)
        try:
            process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr_file,
                env=_clean_env(), cwd=str(self._dir), start_new_session=True, close_fds=True)
        except OSError as exc:
            stderr_file.close()
            raise TransportError("cannot start %s: %s" % (self.python, exc)) from None
        transport = PipeTransport(process, stderr_file, uid)
        session = WorkerSession(transport, self.name)
        try:
            hello = session.handshake()
        except TransportError:
            transport.close()
            raise
        if self.switch_user and not (hello.get("network_isolated") and hello.get("private_tmp")):
            transport.close()  # the probe said yes, the worker says no: never run unisolated
            raise TransportError("the worker could not isolate itself (network: %s, private "
                                 "/tmp: %s)" % (hello.get("network_isolated"),
                                                hello.get("private_tmp")))
        session.uid = uid  # type: ignore[attr-defined]
        session.pid = process.pid  # type: ignore[attr-defined]  (admission reads its tree)
        return session

    def _job_identity(self, session: WorkerSession) -> tuple[int | None, int | None]:
        uid = getattr(session.transport, "uid", None)
        return uid, uid

    def isolation(self) -> dict[str, Any]:
        if self.switch_user:
            return {"backend": "process", "isolated": True,
                    "user": "own uid per worker (from %d)" % self.uid_base,
                    "network": "none", "tmp": "private per worker, wiped per candidate",
                    "filesystem": ("host (read-only mounts; every world-writable place "
                                   "private)" if readonly_mounts() else
                                   "host (read; every world-writable place private)"),
                    "image": None}
        return {"backend": "process", "isolated": False,
                "user": "the judge's (uid %d)" % os.geteuid(), "network": "host",
                "tmp": "shared with the host", "filesystem": "host (read/write)", "image": None,
                "warning": "unisolated: " + (self.user_probe_error or "not running as root")}

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "process",
            "python": self.python,
            "user_switch": self.switch_user,
            "user_note": self.user_probe_error,
            "network_isolated": self._network_isolated,
            "filesystem_isolated": False,
            "host_places": host_mode() if self.switch_user else None,
            "uids": sorted(lease.uid for lease in self._leases.values()),
            "isolation": self.isolation(),
        }

    def close(self) -> None:
        super().close()
        with self._lock:
            leases = list(self._leases.values())
            self._leases.clear()
        for lease in leases:
            lease.release()
        self._cleanup_dir()

    def _cleanup_dir(self) -> None:
        self._remove_dir()  # once: later calls do nothing


def remove_tree(path: str) -> None:
    """Remove a tree candidates may have built (a worker that died mid-test leaves its work
    directory): iteratively and relative to directory descriptors, so neither a tree nested
    thousands deep (``shutil.rmtree`` recurses) nor a path past PATH_MAX can stop it."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    depth, entered = 0, set()
    try:
        while True:
            child = None
            try:
                names = os.listdir(fd)
            except OSError:
                names = []
            for name in names:
                try:
                    os.unlink(name, dir_fd=fd)
                    continue
                except OSError:
                    pass
                try:
                    os.rmdir(name, dir_fd=fd)
                    continue
                except OSError:
                    pass
                try:
                    opened = os.open(name, flags, dir_fd=fd)
                except OSError:
                    continue
                key = os.fstat(opened)[1:3]
                if key in entered:  # entered before and still not empty: leave it
                    os.close(opened)
                    continue
                entered.add(key)
                child = opened
                break
            if child is not None:
                os.close(fd)
                fd, depth = child, depth + 1
            elif depth == 0:
                break
            else:
                parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd, depth = parent, depth - 1
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError:
        pass


class UidLease:
    """One candidate uid, held through an exclusive ``flock`` on ``<lock_dir>/uid-<uid>.lock``
    for as long as a sandbox may run candidates as it. Another pool, in this judge or in
    another judge on the host, finds the lock taken and moves on to the next uid; a judge
    that died leaves no lock (the kernel drops it), and whatever its uid still runs is
    killed when the uid is leased again."""

    RANGE = 4096

    def __init__(self, uid: int, fd: int) -> None:
        self.uid = uid
        self._fd: int | None = fd

    @classmethod
    def take(cls, base: int, lock_dir: str, skip: set[int] = frozenset()) -> "UidLease":
        try:
            os.makedirs(lock_dir, mode=0o755, exist_ok=True)
        except OSError as exc:
            raise SandboxUnavailable("cannot create the uid lock folder %s: %s"
                                     % (lock_dir, exc)) from None
        for uid in range(base, base + cls.RANGE):
            if uid in skip:
                continue
            path = os.path.join(lock_dir, "uid-%d.lock" % uid)
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError as exc:
                raise SandboxUnavailable("cannot open the uid lock %s: %s" % (path, exc)) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            kill_tree(-1, uid)  # leftovers of a judge that died holding this uid
            return cls(uid, fd)
        raise SandboxUnavailable("no free candidate uid in %d-%d (every one is leased by a "
                                 "running judge; see %s)" % (base, base + cls.RANGE - 1,
                                                             lock_dir))

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None





def prerequisites() -> list["Prerequisite"]:
    """What this sandbox needs here, checked: Linux, the worker's Python and, for isolation
    (as root), a free candidate uid and a worker that enters empty namespaces and drops to
    it (probed by opening the sandbox, as a run does)."""
    from judge.sandbox.prerequisites import Prerequisite as Need, tool_version

    found = [Need("linux", "/proc and prctl", sys.platform.startswith("linux"), sys.platform),
             tool_version("python", [sys.executable, "--version"], "Python 3 for the worker")]
    if os.geteuid() != 0:
        return found + [Need("root", "candidates as their own uid, without network", False,
                             "uid %d: candidates run unisolated" % os.geteuid(), False,
                             "run as root, or use the docker sandbox")]
    try:
        sandbox = ProcessSandbox(size=1)
        met = sandbox.switch_user
        found_text = sandbox.user_probe_error or "worker %s isolates" % sandbox.python
        sandbox.close()
    except SandboxUnavailable as exc:
        met, found_text = False, str(exc)
    from judge.sandbox.backends.process.hostfs import readonly_supported

    readonly = readonly_supported()
    return found + [Need("root", "candidates as their own uid", True, "uid 0"),
                    Need("isolation", "a leased uid, empty network/mount/IPC namespaces",
                         met, found_text),
                    Need("read-only host", "host mounts read-only in each worker (a short "
                         "walk of the host)", readonly,
                         "host places: read-only mounts" if readonly else
                         "host places: full walk (about twice the CPU)", False,
                         "Linux 5.12+ (mount_setattr)")]
