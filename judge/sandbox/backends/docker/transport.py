"""The docker sandbox's channel to one container's worker.

The judge attaches to the container before starting it (``tty=False``: docker frames
stdout/stderr with 8-byte headers, demultiplexed here, stdout read in bounded lines, stderr
kept as a bounded tail), and the worker's stdin/stdout over that attach socket is the channel
to start with. Every byte of it is relayed by the engine and the container's shim: two more
processes woken per line, on the same cores as the candidates.

**Direct pipes.** When the engine runs on this host and the judge may take file descriptors
from the container's first process (root, Linux >= 5.6: ``pidfd_getfd``), the worker
(started with ``--offer-pipes``) creates two pipes and names the judge's ends in its ready
record; the judge takes those two descriptors from the worker, checked to be the container's
first process (its cgroup names the container) and to be pipes, then says ``switch`` over
stdin; the worker closes its copies of the judge's ends and of its old channel and answers
``switched`` on the new pipe, before any candidate runs. From then on jobs and records go
through the pipes: nothing but the two processes touches them. The candidate sees neither
(a test's child keeps no descriptor of the worker's; the worker is not dumpable, so
``/proc/1/fd`` is closed to the candidate's user), and the judge's death still closes the
worker's input (the pipe's only writer is the judge), so the worker exits and the engine
removes the container. The attach socket stays open for the worker's stderr and the
container's lifetime. Anything short of that (a remote engine, not root, an older kernel)
keeps the attach channel.
"""

from __future__ import annotations

import ctypes
import os
import platform
import select
import socket
import stat
import threading
import time
from typing import Any

from judge.sandbox.base import Transport, TransportError, TransportTimeout, pop_line

_STDERR_TAIL = 4096
_RECV = 1 << 16
_SEND_TIMEOUT_S = 30.0
_STREAM_STDERR = 2
#: the syscall number of pidfd_getfd (the same in the generic table of every architecture
#: judged here)
_PIDFD_GETFD = 438
_SWITCH = b'{"event":"switch"}\n'
_SWITCHED = b'{"event":"switched"}'


def _pidfd_getfd(pidfd: int, target: int) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(ctypes.c_long(_PIDFD_GETFD), ctypes.c_int(pidfd), ctypes.c_int(target),
                      ctypes.c_uint(0))
    if fd < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    return int(fd)


def take_fds(pid: int, container_id: str, targets: list[Any]) -> list[int] | None:
    """Duplicates of the descriptors ``targets`` of process ``pid``, when that process is in
    container ``container_id`` as this host sees it and each of them is a pipe; else None
    (nothing is kept open)."""
    if (not hasattr(os, "pidfd_open") or platform.machine() not in ("x86_64", "aarch64")
            or not all(isinstance(t, int) and t > 2 for t in targets)):
        return None
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return None
    taken: list[int] = []
    try:
        # the pidfd pins the process: if its cgroup names the container now, the descriptors
        # come from the container's first process, not from a process that reused its pid
        with open("/proc/%d/cgroup" % pid) as handle:
            if container_id not in handle.read():
                return None
        for target in targets:
            fd = _pidfd_getfd(pidfd, target)
            taken.append(fd)
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                raise OSError("descriptor %d is not a pipe" % target)
        return list(taken)
    except (OSError, ValueError, AttributeError):
        for fd in taken:
            os.close(fd)
        return None
    finally:
        os.close(pidfd)


class AttachTransport(Transport):
    """The worker's stdin/stdout through a docker attach socket (no tty: framed streams), or
    the two direct pipes once :meth:`take_pipes` succeeded."""

    def __init__(self, sandbox: Any, container_id: str, name: str, sock: Any,
                 response: Any) -> None:
        self.sandbox = sandbox
        self.container_id = container_id
        self.name = name
        self._response = response          # keeps the hijacked HTTP connection referenced
        self._sock = sock                   # a socket.socket (unix or tcp)
        self._sock.setblocking(False)
        self._raw = bytearray()             # undecoded bytes (frame headers + payloads)
        self._frame_left = 0                # payload bytes still due in the current frame
        self._frame_stream = 0
        self._out = bytearray()             # stdout payload not yet returned as lines
        self._err = bytearray()             # last _STDERR_TAIL bytes of stderr
        self._eof = False
        self._closed = False
        self._lock = threading.Lock()
        self.started_at = time.time()
        self.job_started_at = self.started_at
        self.oom_seen = 0                   # OOM kills already attributed to earlier jobs
        self._job_fd: int | None = None     # direct pipes (take_pipes): jobs out, records in
        self._result_fd: int | None = None
        self._pipe_eof = False

    @property
    def direct(self) -> bool:
        """Whether jobs and records go through the direct pipes."""
        return self._result_fd is not None

    # ---- stream decoding ------------------------------------------------------------------
    def _decode(self, limit: int) -> None:
        raw = self._raw
        while raw:
            if self._frame_left == 0:
                if len(raw) < 8:
                    return
                self._frame_stream = raw[0]
                self._frame_left = int.from_bytes(raw[4:8], "big")
                del raw[:8]
                continue
            take = min(self._frame_left, len(raw))
            payload = raw[:take]
            del raw[:take]
            self._frame_left -= take
            if self._frame_stream == _STREAM_STDERR:
                self._err += payload
                if len(self._err) > _STDERR_TAIL:
                    del self._err[:-_STDERR_TAIL]
            elif self.direct:
                continue  # the old channel: nothing the judge reads any more
            else:
                self._out += payload
                if len(self._out) > limit and b"\n" not in self._out:
                    return  # the caller raises: a line over the limit

    def _fill(self, timeout: float, limit: int) -> bool:
        """Read what is there (waiting up to ``timeout``); False when nothing came in time."""
        if self._eof:
            return True
        pending = getattr(self._sock, "pending", None)  # TLS: bytes already decrypted
        try:
            ready = (pending is not None and pending() > 0) or \
                select.select([self._sock], [], [], max(0.0, timeout))[0]
        except (OSError, ValueError):
            self._eof = True
            return True
        if not ready:
            return False
        self._recv_sock(limit)
        return True

    def _recv_sock(self, limit: int) -> None:
        try:
            chunk = self._sock.recv(_RECV)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._eof = True
            return
        self._raw += chunk
        self._decode(limit)

    def _fill_direct(self, timeout: float, limit: int) -> None:
        """Read the records pipe (and drain the attach socket: the worker's stderr)."""
        watched = [self._result_fd] + ([] if self._eof else [self._sock])
        try:
            ready = select.select(watched, [], [], max(0.0, timeout))[0]
        except (OSError, ValueError):
            self._pipe_eof = True
            return
        if self._sock in ready:
            self._recv_sock(limit)
        if self._result_fd in ready:
            try:
                chunk = os.read(self._result_fd, _RECV)  # type: ignore[arg-type]
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                chunk = b""
            if chunk:
                self._out += chunk
            else:
                self._pipe_eof = True

    def alive(self) -> bool:
        """Whether an idle worker still listens, without asking the engine: an idle worker
        sends nothing, so a readable channel means it is gone (end of file) or broke the
        protocol; either way the container is replaced before a job is sent to it."""
        if self._closed:
            return False
        try:
            if self.direct:
                return not select.select([self._result_fd], [], [], 0)[0]
            if not self._eof and select.select([self._sock], [], [], 0)[0]:
                self._recv_sock(1 << 16)  # stderr is fine; stdout or the end is not
            return not self._eof and not self._out
        except (OSError, ValueError):
            return False

    # ---- direct pipes -------------------------------------------------------------------------
    def take_pipes(self, pid: int | None, hello: dict[str, Any], timeout: float) -> bool:
        """Switch to the pipes the worker offered (see the module's docstring). False: kept
        the attach channel (nothing was said to the worker); TransportError: the worker was
        told to switch and did not answer on the pipe (the container is unusable)."""
        offered = hello.get("pipes")
        if not pid or not isinstance(offered, dict):
            return False
        fds = take_fds(pid, self.container_id, [offered.get("jobs"), offered.get("results")])
        if fds is None:
            return False
        self.send(_SWITCH)  # over stdin: the last line the attach channel carries
        if self._out:
            os.close(fds[0])
            os.close(fds[1])
            raise TransportError("the worker wrote before it switched to the pipes")
        self._job_fd, self._result_fd = fds
        os.set_blocking(self._job_fd, False)
        line = self.readline(1 << 16, timeout)
        if line != _SWITCHED:
            raise TransportError("the worker did not switch to the pipes: %r %s"
                                 % ((line or b"")[:200], self.diagnostics()))
        return True

    # ---- Transport ------------------------------------------------------------------------
    def send(self, data: bytes) -> None:
        if self._closed:
            raise TransportError("the container is gone")
        target: Any = self._job_fd if self._job_fd is not None else self._sock
        view = memoryview(data)
        deadline = time.monotonic() + _SEND_TIMEOUT_S
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TransportError("the worker did not read its input in %.0fs" % _SEND_TIMEOUT_S)
            try:
                if not select.select([], [target], [], remaining)[1]:
                    continue
                if self._job_fd is not None:
                    sent = os.write(self._job_fd, view)
                else:
                    sent = self._sock.send(view)
            except (BlockingIOError, InterruptedError):
                continue
            except (OSError, ValueError) as exc:
                raise TransportError("worker stdin closed: %s" % exc) from None
            view = view[sent:]
        self.job_started_at = time.time()

    def readline(self, limit: int, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while True:
            line = pop_line(self._out, limit)
            if line is not None:
                return line
            if self._pipe_eof if self.direct else self._eof:
                if self._closed:
                    raise TransportError("the sandbox was closed")
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TransportTimeout("no answer from the worker in %.1fs" % timeout)
            if self.direct:
                self._fill_direct(remaining, limit)
            else:
                self._fill(remaining, limit)

    def diagnostics(self) -> str:
        if self.direct and not self._eof:
            self._fill(0.0, _RECV)  # what stderr holds by now
        tail = self._err.decode("utf-8", "replace").strip()
        return ("(container %s stderr: %s)" % (self.name, tail)) if tail else ""

    def close(self) -> None:
        """Kill the container (its processes die with it; the engine auto-removes it)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.sandbox._kill_container(self.container_id)
        try:
            self._sock.shutdown(socket.SHUT_RDWR)  # really closed, whoever still refers to it
        except OSError:
            pass
        for thing in (self._response, self._sock):
            try:
                thing.close()
            except Exception:  # noqa: BLE001
                pass
        fds = [fd for fd in (self._job_fd, self._result_fd) if fd is not None]
        if fds:
            # another thread may be waiting on them: /dev/null takes their place (reads end,
            # writes vanish) and the numbers stay ours until this object is collected, so no
            # descriptor opened meanwhile is ever read or written in their name
            null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
            try:
                for fd in fds:
                    os.dup2(null, fd, inheritable=False)
            finally:
                os.close(null)

    def __del__(self) -> None:
        for fd in (getattr(self, "_job_fd", None), getattr(self, "_result_fd", None)):
            if fd is not None and getattr(self, "_closed", False):
                try:
                    os.close(fd)
                except OSError:
                    pass


__all__ = ["AttachTransport", "take_fds"]
