"""A benchmark's code runs in a sandbox, never in the judge's process.

Converting a task executes the dataset's own code: its reference solution, its test module
and its test function (see :mod:`judge.importers.tracer`). A dataset is input like any
other, so that code runs isolated like a candidate's:

- one *converter* process per import (``Converter``), started as a fresh interpreter that
  imports the judge's conversion code (trusted) first; as root it then enters empty network,
  mount and IPC namespaces with private /tmp, /var/tmp, /dev/shm and /dev/mqueue, every other
  world-writable place of the host hidden (:mod:`judge.sandbox.backends.process.hostfs`);
- per task, the converter forks a child that drops to an unprivileged uid of its own (leased
  like the process sandbox's, :class:`judge.sandbox.backends.process.sandbox.UidLease`), with no new
  privileges, CPU, address-space, file-size, process and open-file limits, its working folder
  in the private /tmp, and converts the task there; back comes JSON (the problem definition
  and the report), read bounded, never an object;
- a child over its wall-clock limit is killed with everything its uid runs; the task is
  reported with that error and the import goes on.

Without root the same child runs as the judge's own user (a separate process with the same
limits: the judge's process is unharmed, but the files and network of that user are not
protected; ``isolated`` says which).
"""

from __future__ import annotations

import atexit
import json
import os
import pickle
import select
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from judge.errors import InputFault
from judge.importers.records import ProblemReport, Unconverted
from judge.settings import settings as judge_settings

#: address space of a conversion child
MEMORY_MB = 2048
#: the JSON a child may send back
MAX_RESULT_BYTES = 64 * 1024 * 1024
_HEADER = struct.Struct("!Q")
_JUDGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)

# The converter's program (run as root where we are root). argv: judge root, settings JSON.
_CONVERTER = r'''
import ctypes, json, os, pickle, resource, signal, struct, sys
sys.path.insert(0, sys.argv[1])
settings = json.loads(sys.argv[2])
from judge.importers.convert import convert_here  # trusted code, imported before anything runs
import judge.kinds.function.judge, judge.sandbox.wire, judge.problem.model  # noqa
import judge.importers.convert, judge.importers.tracer, judge.importers.evalplus
# the tracer's own deadline (in the child) comes before the sandbox's CPU limit
judge.importers.tracer.TRACE_SECONDS = judge.importers.convert.TRACE_SECONDS = settings["time_s"] / 2
HEADER = struct.Struct("!Q")
dumps = json.dumps  # bound before the dataset's code runs (it may replace json.dumps)
inp = os.fdopen(os.dup(0), "rb")
out_fd = os.dup(1)
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
libc = ctypes.CDLL(None, use_errno=True)
def mount(source, target, kind, flags, options):
    if libc.mount(source, target.encode(), kind, flags, options) != 0:
        raise SystemExit("cannot mount %s (errno %d)" % (target, ctypes.get_errno()))
isolated = settings["uid"] is not None
if isolated:
    if libc.unshare(0x40000000 | 0x00020000 | 0x08000000) != 0:
        raise SystemExit("cannot enter new namespaces (errno %d)" % ctypes.get_errno())
    mount(b"none", "/", None, 0x4000 | 0x40000, None)
    if settings["readonly"]:  # every host mount read-only (hostfs.READONLY_CODE)
        exec(settings["readonly_code"])
        if host_readonly(libc) != 0:
            raise SystemExit("cannot make the host's mounts read-only")
    for where, size in (("/tmp", "256m"), ("/var/tmp", "16m"), ("/dev/shm", "16m")):
        if os.path.isdir(where):
            mount(b"tmpfs", where, b"tmpfs", 2 | 4, ("mode=1777,size=%s" % size).encode())
    if os.path.isdir("/dev/mqueue"):
        mount(b"mqueue", "/dev/mqueue", b"mqueue", 2 | 4 | 8, None)
    for path, mode in settings["dirs"]:
        mount(b"tmpfs", path, b"tmpfs", 2 | 4 | 8, ("mode=%o,size=4m,nr_inodes=256" % mode).encode())
    for path in settings["files"]:
        mount(b"/dev/null", path, None, 0x1000, None)
signal.signal(signal.SIGCHLD, signal.SIG_DFL)
def send(data):
    view = memoryview(HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(out_fd, view):]
def child(src, file, workdir):
    os.setsid()
    if isolated:
        uid = settings["uid"]
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    cpu = int(settings["time_s"]) + 1
    for name, value in (("RLIMIT_CPU", (cpu, cpu + 2)), ("RLIMIT_CORE", (0, 0)),
                        ("RLIMIT_FSIZE", (16 << 20, 16 << 20)), ("RLIMIT_NOFILE", (256, 256)),
                        ("RLIMIT_AS", (settings["memory_mb"] << 20,) * 2)):
        resource.setrlimit(getattr(resource, name), value)
    if isolated:
        resource.setrlimit(resource.RLIMIT_NPROC, (64, 64))
    os.chdir(workdir)
    # helper processes (the checker pool) need an interpreter this uid may run (the judge's
    # may live under an unreadable home): the standard library is all they use
    for python in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        if os.access(python, os.X_OK):
            sys.executable = python
            break
    os.environ.clear()
    os.environ.update({"PATH": "/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir})
    data, report = convert_here(src, file)
    return dumps({"data": data, "report": report.to_json()}, allow_nan=False).encode()
while True:
    head = inp.read(HEADER.size)
    if len(head) < HEADER.size:
        break
    src, file = pickle.loads(inp.read(HEADER.unpack(head)[0]))  # the judge's own data
    workdir = "/tmp/task-%d" % os.getpid()
    os.makedirs(workdir, exist_ok=True)
    if isolated:
        os.chown(workdir, settings["uid"], settings["uid"])
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.close(out_fd)  # the judge's channel: never the dataset code's
        inp.close()
        try:
            result = child(src, file, workdir)
        except BaseException as exc:
            result = dumps({"crash": "%s: %s" % (type(exc).__name__, str(exc)[:500])}).encode()
        view = memoryview(HEADER.pack(len(result)) + result)
        try:
            while view:
                view = view[os.write(write_end, view):]
        except OSError:
            pass
        os._exit(0)
    os.close(write_end)
    send(b"%d" % pid)  # the judge bounds its time and kills it (and its uid's processes)
    def read_exactly(size):
        chunks, got = [], 0
        while got < size:
            chunk = os.read(read_end, min(1 << 16, size - got))
            if not chunk:
                return None
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)
    head = read_exactly(HEADER.size)
    size = HEADER.unpack(head)[0] if head else None
    if size is not None and size > settings["max_bytes"]:
        result = json.dumps({"crash": "the conversion sent back more than %d bytes"
                             % settings["max_bytes"]}).encode()
    else:
        result = read_exactly(size) if size is not None else None
    os.close(read_end)
    # nothing of the task's code outlives it (a fork that kept running, writing)
    if isolated:
        killer = os.fork()
        if killer == 0:
            os.setresuid(settings["uid"], settings["uid"], settings["uid"])
            os.kill(-1, signal.SIGKILL)  # every process of the task's uid but this one
            os._exit(0)
        os.waitpid(killer, 0)
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    _, status = os.waitpid(pid, 0)
    if not result and os.WIFSIGNALED(status) and os.WTERMSIG(status) in (9, 24):
        result = json.dumps({"crash": "the reference solution or the tests did not finish "
                             "(stopped after %ds of CPU or %ds of wall-clock time)" % (
                                 settings["time_s"], 2 * settings["time_s"] + 10)}).encode()
    elif not result:
        result = json.dumps({"crash": "the conversion process died (%s)" % (
            "signal %d" % os.WTERMSIG(status) if os.WIFSIGNALED(status)
            else "exit status %d" % os.WEXITSTATUS(status))}).encode()
    send(result)
    import shutil
    shutil.rmtree(workdir, ignore_errors=True)
'''


class ConversionFailed(InputFault):
    """The sandboxed converter stopped or broke its protocol (the task is reported)."""

    code = "import_conversion_failed"


class Converter:
    """The sandboxed converter of one import (see the module doc). Thread-safe (one task at a
    time)."""

    def __init__(self, time_s: float | None = None, memory_mb: int = MEMORY_MB) -> None:
        from judge.sandbox.backends.process.hostfs import READONLY_CODE, readonly_mounts, world_writable_places
        from judge.sandbox.backends.process.sandbox import UidLease

        # seconds of CPU, and (times 2, plus start-up) of wall clock, one task's conversion
        # may take (JUDGE_IMPORT_TIME_S)
        self.time_s = judge_settings().import_time_s if time_s is None else time_s
        self._lock = threading.Lock()
        self.lease = None
        self.isolated = os.geteuid() == 0 and sys.platform.startswith("linux")
        settings: dict[str, Any] = {"uid": None, "dirs": [], "files": [], "readonly": False,
                                    "time_s": self.time_s, "memory_mb": memory_mb,
                                    "max_bytes": MAX_RESULT_BYTES}
        if self.isolated:
            self.lease = UidLease.take(judge_settings().sandbox_uid_base,
                                       str(judge_settings().sandbox_lock_dir))
            directories, files = world_writable_places()
            if readonly_mounts():
                settings.update(readonly=True, readonly_code=READONLY_CODE)
            settings.update(uid=self.lease.uid, files=list(files),
                            dirs=[[d, os.lstat(d).st_mode & 0o7777] for d in directories
                                  if os.path.isdir(d)])
        self._stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-c", _CONVERTER, _JUDGE_ROOT, json.dumps(settings)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, cwd="/",
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, start_new_session=True)
        self._buffer = bytearray()

    def _read(self, size: int, deadline: float) -> bytes:
        fd = self.process.stdout.fileno()  # type: ignore[union-attr]
        while len(self._buffer) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise TimeoutError
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise ConversionFailed("the converter stopped%s" % self._diagnostics())
            self._buffer += chunk
        data, self._buffer = bytes(self._buffer[:size]), self._buffer[size:]
        return data

    def _frame(self, deadline: float, limit: int) -> bytes:
        size = _HEADER.unpack(self._read(_HEADER.size, deadline))[0]
        if size > limit:
            raise ConversionFailed("the converter sent a frame of %d bytes" % size)
        return self._read(size, deadline)

    def _diagnostics(self) -> str:
        try:
            self._stderr.seek(0)
            tail = self._stderr.read()[-500:].decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return ": " + tail if tail else ""

    def convert(self, src: Any, file: str) -> tuple[dict[str, Any] | None, ProblemReport]:
        report = ProblemReport(src.task_id)
        with self._lock:
            if self.process.poll() is not None:
                report.error = "the conversion sandbox is not running%s" % self._diagnostics()
                return None, report
            payload = pickle.dumps((src, file))
            try:
                self.process.stdin.write(_HEADER.pack(len(payload)) + payload)  # type: ignore[union-attr]
                self.process.stdin.flush()  # type: ignore[union-attr]
                started = time.monotonic()
                pid = int(self._frame(started + 60, 32))
                wall = 2 * self.time_s + 10
                try:
                    raw = self._frame(started + wall, MAX_RESULT_BYTES + 256)
                except TimeoutError:
                    self._kill(pid)
                    raw = self._frame(time.monotonic() + 60, MAX_RESULT_BYTES + 256)
            except (OSError, ValueError, TimeoutError, ConversionFailed) as exc:
                self.close()
                report.error = "the conversion sandbox failed: %s" % (
                    exc or type(exc).__name__)
                return None, report
        return _decode(raw, report)

    def _kill(self, pid: int) -> None:
        from judge.sandbox.backends.process.sandbox import kill_tree

        for kill in (os.killpg, os.kill):  # the child leads a session of its own
            try:
                kill(pid, 9)
            except OSError:
                pass
        kill_tree(-1, self.lease.uid if self.lease else None)

    def close(self) -> None:
        from judge.sandbox.backends.process.sandbox import kill_tree

        if self.process.poll() is None:
            kill_tree(self.process.pid, self.lease.uid if self.lease else None)
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        if self.lease is not None:
            self.lease.release()
            self.lease = None


def _decode(raw: bytes, report: ProblemReport) -> tuple[dict[str, Any] | None, ProblemReport]:
    """The child's answer (untrusted JSON: bounded, checked for shape)."""
    from judge import jsonl

    try:
        answer = jsonl.loads(raw)
    except ValueError as exc:
        report.error = "the conversion sent back something unreadable: %s" % exc
        return None, report
    if not isinstance(answer, dict) or jsonl.check_depth(answer, 200) is not None:
        report.error = "the conversion sent back something unreadable"
        return None, report
    if "crash" in answer:
        report.error = "the conversion failed in the sandbox: %s" % str(answer["crash"])[:500]
        return None, report
    fields = answer.get("report")
    data = answer.get("data")
    try:
        assert isinstance(fields, dict) and (data is None or isinstance(data, dict))
        report = ProblemReport(
            task_id=str(fields["task_id"]), expected=int(fields["expected"]),
            checks=int(fields["checks"]),
            unconvertible=[Unconverted(**u) for u in fields["unconvertible"]],
            vacuous=[Unconverted(**v) for v in fields["vacuous"]],
            notes=[str(n) for n in fields["notes"]],
            error=None if fields["error"] is None else str(fields["error"]))
    except (AssertionError, KeyError, TypeError, ValueError) as exc:
        report.error = "the conversion sent back a malformed report (%s)" % exc
        return None, report
    return data, report


_SHARED: list[Converter] = []
_SHARED_LOCK = threading.Lock()


def convert_isolated(src: Any, file: str) -> tuple[dict[str, Any] | None, ProblemReport]:
    """Convert one task in the import's sandboxed converter (started on first use, stopped at
    exit, restarted after a failure)."""
    with _SHARED_LOCK:
        if not _SHARED or _SHARED[0].process.poll() is not None:
            if _SHARED:
                _SHARED.pop().close()
            try:
                _SHARED.append(Converter())
            except Exception as exc:  # noqa: BLE001 - our infrastructure: said per task
                report = ProblemReport(src.task_id)
                report.error = "cannot start the conversion sandbox: %s" % exc
                return None, report
            if len(_SHARED) == 1:
                atexit.register(_close_shared)
        converter = _SHARED[0]
    return converter.convert(src, file)


def _close_shared() -> None:
    while _SHARED:
        _SHARED.pop().close()
