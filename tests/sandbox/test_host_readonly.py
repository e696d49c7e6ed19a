"""The process sandbox's workers see every host mount read-only (``hostfs.READONLY_CODE``).

A hostile candidate, in Python and in C++, tries every way of reaching the host or another
candidate through a host path: a file in a fresh world-writable directory under /var/lib and
in /run/lock, appending to a root-owned world-writable file, a world-writable directory and
file made *after* the walk (only the read-only mounts close those: the walk never saw them),
connecting to a world-writable unix socket a host process listens on, writing into a
world-writable FIFO a host process reads. Nothing reaches the host, while the candidate still
writes its own work folder, /tmp and its stdout. Then the same with the fallback (the full
walk, as on kernels without ``mount_setattr``). Nothing here bounds how long anything takes.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import textwrap
import time
from pathlib import Path

import pytest

import judge.settings
from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.problem.model import function_from_data
from judge.sandbox.base import Job, Limits
from judge.sandbox.base import TestInput as Call  # (not a pytest class)
from tests.problems import next_number_data

MARKER = "judge-rowalk-%d-%d" % (os.getpid(), time.monotonic_ns())
LIMITS = Limits(time_limit_s=10.0, memory_mb=256)


def _host(late: bool) -> dict:
    """World-writable places on the host's disk, owned by root; ``late`` ones are made after
    the walk (so no shadow covers them)."""
    base = Path("/var/lib/%s" % MARKER)
    base.mkdir(mode=0o755, exist_ok=True)
    os.chmod(base, 0o755)
    places = {"base": str(base)}
    for prefix in ("", "late_") if late else ("",):
        folder = base / (prefix + "drop")
        folder.mkdir(exist_ok=True)
        os.chmod(folder, 0o1777)
        shared = base / (prefix + "shared.txt")
        shared.write_text("host")
        os.chmod(shared, 0o666)
        places[prefix + "dir"], places[prefix + "file"] = str(folder), str(shared)
    return places


@pytest.fixture
def host(request):
    """The places, a unix socket a host process listens on and a FIFO it reads (both
    world-writable), and the walk of / redone so it sees the early ones."""
    if os.geteuid() != 0:
        pytest.skip("the process sandbox isolates candidates only when the judge runs as root")
    from judge.sandbox.backends.process import hostfs

    full = getattr(request, "param", False)
    if full:
        os.environ[hostfs.FULL_WALK_ENV] = "1"
        judge.settings.reload()
    places = _host(late=False)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    places["socket"] = places["base"] + "/listen.sock"
    listener.bind(places["socket"])
    os.chmod(places["socket"], 0o777)
    listener.listen(8)
    listener.setblocking(False)
    places["fifo"] = places["base"] + "/pipe"
    os.mkfifo(places["fifo"])
    os.chmod(places["fifo"], 0o666)
    reader = os.open(places["fifo"], os.O_RDONLY | os.O_NONBLOCK)
    hostfs.world_writable_places(refresh=True)
    places["readonly"] = hostfs.readonly_mounts()
    if places["readonly"]:
        places.update(_host(late=True))  # after the walk: only the read-only mounts hold
    try:
        yield places
        # the host process got nothing: no connection, no byte
        with pytest.raises(BlockingIOError):
            listener.accept()
        try:
            assert os.read(reader, 4096) == b""
        except BlockingIOError:
            pass
        for key in ("dir", "late_dir"):
            if key in places:
                assert os.listdir(places[key]) == [], key
        for key in ("file", "late_file"):
            if key in places:
                assert Path(places[key]).read_text() == "host", key
        assert not [n for n in os.listdir("/run/lock") if MARKER in n]
    finally:
        listener.close()
        os.close(reader)
        for name in os.listdir("/run/lock"):
            if MARKER in name:
                os.unlink(os.path.join("/run/lock", name))
        shutil.rmtree(places["base"], ignore_errors=True)
        os.environ.pop(hostfs.FULL_WALK_ENV, None)
        judge.settings.reload()
        hostfs.world_writable_places(refresh=True)


#: the Python candidate: what each attempt gave (True: done; else the errno), and whether
#: its own places still take writes
PYTHON_CANDIDATE = """
    import errno, os, socket, stat, sys
    def attempt(action):
        try:
            action()
            return True
        except OSError as exc:
            return exc.errno
    def create(folder):
        def action():
            with open(os.path.join(folder, %(marker)r), "w") as handle:
                handle.write("leak")
        return action
    def append(path):
        def action():
            with open(path, "a") as handle:
                handle.write("leak")
        return action
    def connect(path):
        def action():
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                client.connect(path)
            finally:
                client.close()
        return action
    def fifo(path):
        def action():
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            try:
                if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                    raise OSError(errno.ENXIO, "not the host's FIFO")
                os.write(fd, b"leak")
            finally:
                os.close(fd)
        return action
    def f(places):
        import json
        places = json.loads(places)
        got = {}
        for key in ("dir", "late_dir"):
            if key in places:
                got[key] = attempt(create(places[key]))
        got["run_lock"] = attempt(create("/run/lock"))
        for key in ("file", "late_file"):
            if key in places:
                got[key] = attempt(append(places[key]))
        got["socket"] = attempt(connect(places["socket"]))
        got["fifo"] = attempt(fifo(places["fifo"]))
        got["own"] = attempt(create("."))
        got["tmp"] = attempt(create("/tmp"))
        sys.stdout.write("still writes its stdout")
        got["stdout"] = True
        return got
""" % {"marker": MARKER}


def _python_attempts(places: dict) -> dict:
    from judge.sandbox.backends.process.sandbox import ProcessSandbox

    job = Job(id="readonly", code=textwrap.dedent(PYTHON_CANDIDATE), function="f",
              tests=[Call(args=[json.dumps({k: v for k, v in places.items()
                                            if isinstance(v, str)})],
                          time_limit_s=10.0, wall_limit_s=120.0)], limits=LIMITS)
    with ProcessSandbox(size=1) as sandbox:
        report = sandbox.run(job)
    record = report.records.get(0)
    assert record is not None and record.get("status") == "returned", (report, record)
    return dict(record["value"]["$dict"])  # (the wire's tagged dict)


def _check_python(got: dict, places: dict) -> None:
    assert got["own"] is True and got["tmp"] is True and got["stdout"] is True, got
    # a pre-existing world-writable directory is a private tmpfs of the worker: a write
    # there may succeed, and stays there (the fixture checks the host's copy is empty)
    assert got["dir"] is True and got["run_lock"] is True, got
    # the world-writable file: refused by the read-only mount (EROFS); with the full walk it
    # is /dev/null in there (the write "succeeds" into nothing: the fixture checks the host's)
    if places["readonly"]:
        assert got["file"] == errno.EROFS, got
        assert got["late_dir"] == errno.EROFS and got["late_file"] == errno.EROFS, got
    # the socket and the FIFO are /dev/null in the worker's namespace
    assert got["socket"] is not True and got["fifo"] is not True, got


def test_python_candidate_reaches_nothing_on_the_host(host):
    from judge.sandbox.backends.process import hostfs

    assert host["readonly"] == hostfs.readonly_supported()
    _check_python(_python_attempts(host), host)


@pytest.mark.parametrize("host", [True], indirect=True, ids=["full-walk"])
def test_the_full_walk_fallback_still_hides_every_place(host):
    from judge.sandbox.backends.process import hostfs

    assert not host["readonly"] and hostfs.host_mode() == "full walk"
    assert host["file"] in hostfs.world_writable_places()[1]  # hidden file by file
    _check_python(_python_attempts(host), host)


CPP_CANDIDATE = """
#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
static bool create(const std::string& path) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return false;
    bool ok = write(fd, "leak", 4) == 4;
    close(fd);
    return ok;
}
static bool append(const char* path) {
    int fd = open(path, O_WRONLY | O_APPEND);
    if (fd < 0) return false;
    bool ok = write(fd, "leak", 4) == 4;
    close(fd);
    return ok;
}
static bool connect_to(const char* path) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::string(path).copy(address.sun_path, sizeof(address.sun_path) - 1);
    bool ok = connect(fd, (sockaddr*)&address, sizeof(address)) == 0;
    close(fd);
    return ok;
}
static bool fifo(const char* path) {
    int fd = open(path, O_WRONLY | O_NONBLOCK);
    if (fd < 0) return false;
    struct stat info;
    bool ok = fstat(fd, &info) == 0 && S_ISFIFO(info.st_mode) && write(fd, "leak", 4) == 4;
    close(fd);
    return ok;
}
long long next_number(long long n) {
    long long got = 0;
    got |= (long long)create(std::string("@LATE_DIR@") + "/MARKER") << 0;
    got |= (long long)append("@FILE@") << 1;
    got |= (long long)append("@LATE_FILE@") << 2;
    got |= (long long)connect_to("@SOCKET@") << 3;
    got |= (long long)fifo("@FIFO@") << 4;
    got |= (long long)create("MARKER-own") << 5;
    got |= (long long)create("/tmp/MARKER") << 6;
    got |= (long long)(write(1, "out", 3) == 3) << 7;
    return n + got;
}
"""


def test_cpp_candidate_reaches_nothing_on_the_host(host):
    from judge.sandbox.backends.process.sandbox import ProcessSandbox

    code = CPP_CANDIDATE.replace("MARKER", MARKER)
    for key in ("late_dir", "file", "late_file", "socket", "fifo"):
        code = code.replace("@%s@" % key.upper(), host.get(key, "/nonexistent/" + key))
    expected = 0b11100000  # its work folder, /tmp and stdout: nothing of the host's
    problem = function_from_data(next_number_data([(1, 1 + expected)]), "<next_number>")
    with ProcessSandbox(size=1) as sandbox:
        executor = Executor(sandbox, LIMITS, reference_timing=False)
        result = executor.judge(problem, Submission(code, "next_number", language="cpp"))
    assert result.verdict.value == "pass", result.message
