"""The process sandbox: warm workers as local processes. The embedded default where no
Docker engine answers.

What it does (see the README for what it does not):
- each worker starts with an empty environment (no variable of the judge's reaches it), in
  a new session, as a child subreaper, non-dumpable;
- as root, each worker slot runs its candidates as its own unprivileged user id
  (``JUDGE_SANDBOX_UID_BASE`` + slot, default 61000), so a candidate cannot signal, ptrace or
  read the worker, and RLIMIT_NPROC really bounds a fork bomb; and the worker moves into an
  empty network namespace, so candidates have no network;
- per test (in the worker): CPU, file-size, open-file, core and process rlimits, a memory
  watcher over the whole process tree, a wall-clock backstop, a capped stdout/stderr file, a
  fresh working directory removed afterwards, and every leftover process killed;
- when a worker is retired, psutil kills its whole tree and every process still owned by
  its user id.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

from judge.sandbox.harness import render_worker
from judge.sandbox.base import (
    PooledSandbox,
    SandboxUnavailable,
    Transport,
    TransportError,
    TransportTimeout,
    WorkerSession,
    pop_line,
)

UID_BASE = int(os.environ.get("JUDGE_SANDBOX_UID_BASE", "61000"))
_STDERR_TAIL = 4096


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


def _clean_env() -> dict[str, str]:
    """The worker's whole environment: nothing inherited from the judge."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}


class ProcessSandbox(PooledSandbox):
    """Warm local worker processes, ``size`` of them."""

    name = "process"

    def __init__(self, size: int = 1, max_jobs_per_worker: int = 500, fresh: bool = False,
                 python: str | None = None, switch_user: bool | None = None) -> None:
        if not sys.platform.startswith("linux"):
            raise SandboxUnavailable("the process sandbox needs Linux (/proc, prctl)")
        super().__init__(size, max_jobs_per_worker, fresh)
        self.python = python or sys.executable
        self._dir = Path(tempfile.mkdtemp(prefix="judge-process-"))
        self._worker_path = self._dir / "worker.py"
        self._worker_path.write_text(render_worker())
        self._worker_path.chmod(0o644)
        self._dir.chmod(0o755)
        is_root = os.geteuid() == 0
        self.switch_user = is_root if switch_user is None else (switch_user and is_root)
        self.user_probe_error: str | None = None
        if self.switch_user:
            self._choose_python_for_user(explicit=python is not None)
        self._network_isolated: bool | None = None

    def _choose_python_for_user(self, explicit: bool) -> None:
        """Pick an interpreter whose standard library the sandbox uid can read: the judge's
        own first, then the system's (the worker needs only the standard library)."""
        choices = [self.python] if explicit else [self.python, "/usr/bin/python3"]
        errors = []
        for python in dict.fromkeys(choices):
            if not os.path.exists(python):
                continue
            error = self._probe_user(python)
            if error is None:
                self.python = python
                return
            errors.append(error)
        self.switch_user = False
        self.user_probe_error = "; ".join(errors)

    def _probe_user(self, python: str) -> str | None:
        """Can a test child, switched to an unprivileged uid, still import the standard
        library? (Not when the interpreter lives under an unreadable home directory.) The
        probe does exactly what a child does: start as root, drop to the uid, import."""
        uid = UID_BASE
        script = ("import os; os.setgroups([]); os.setresgid(%d, %d, %d); "
                  "os.setresuid(%d, %d, %d); import fractions, email.mime.text" % ((uid,) * 6))
        try:
            subprocess.run([python, "-I", "-c", script], env=_clean_env(), check=True,
                           timeout=30, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           cwd="/")
        except (subprocess.CalledProcessError, OSError, subprocess.TimeoutExpired) as exc:
            detail = getattr(exc, "stderr", b"") or b""
            return "uid %d cannot import the standard library of %s (%s): candidates run as " \
                   "the judge's user" % (uid, python, detail.decode(errors="replace")[-200:]
                                          or exc)
        return None

    def _spawn(self, slot: int) -> WorkerSession:
        workroot = self._dir / ("slot-%d" % slot)
        command = [self.python, "-I", str(self._worker_path), "--workroot", str(workroot)]
        if self.switch_user:
            command.append("--isolate-network")
        stderr_file = tempfile.TemporaryFile(dir=self._dir)
        try:
            process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr_file,
                env=_clean_env(), cwd=str(self._dir), start_new_session=True, close_fds=True)
        except OSError as exc:
            stderr_file.close()
            raise TransportError("cannot start %s: %s" % (self.python, exc)) from None
        uid = UID_BASE + slot if self.switch_user else None
        transport = PipeTransport(process, stderr_file, uid)
        session = WorkerSession(transport, self.name)
        try:
            hello = session.handshake()
        except TransportError:
            transport.close()
            raise
        self._network_isolated = bool(hello.get("network_isolated"))
        return session

    def _job_identity(self, session: WorkerSession) -> tuple[int | None, int | None]:
        uid = getattr(session.transport, "uid", None)
        return uid, uid

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "process",
            "python": self.python,
            "user_switch": self.switch_user,
            "user_note": self.user_probe_error,
            "network_isolated": self._network_isolated,
            "filesystem_isolated": False,
        }

    def close(self) -> None:
        super().close()
        remove_tree(str(self._dir))


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


