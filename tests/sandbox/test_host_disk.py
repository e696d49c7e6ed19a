"""No world-writable place of the host reaches a candidate (issue 22, item 1).

The process sandbox walks the host for every directory, file, FIFO or socket that others may
write (``world_writable_places``) and gives each worker a mount namespace where each such
directory is a small private tmpfs and each such file is /dev/null. Hostile candidates, in
Python and C++, with both workers busy, in both sandboxes: they walk the filesystem as the
candidate's user and write wherever they can; every place they could write must be a
private tmpfs (or mqueue), nothing they wrote is on the host afterwards, and a flood of
small files stops at the tmpfs's inode limit. Nothing here bounds how long anything takes.
"""

from __future__ import annotations

import json
import os
import textwrap
import threading
import time
from pathlib import Path

import pytest

from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.problem.model import function_from_data
from judge.sandbox.base import Job, Limits
from judge.sandbox.base import TestInput as Call  # (not a pytest class)
from tests.problems import next_number_data
from tests.conftest import docker_or_skip

IS_ROOT = os.geteuid() == 0
MARKER = "judge-hostdisk-%d-%d" % (os.getpid(), time.monotonic_ns())


def root_only() -> None:
    if not IS_ROOT:
        pytest.skip("the process sandbox isolates candidates only when the judge runs as root")


@pytest.fixture(scope="module")
def planted():
    """A world-writable directory, file and FIFO planted on the host's disk for this module
    (beside whatever the host has: /run/lock, ...), so the walk has something unusual to
    find. Removed afterwards."""
    if not IS_ROOT:
        yield None
        return
    base = Path("/var/lib/judge-hostdisk-test-%d" % os.getpid())
    base.mkdir(mode=0o755)
    os.chmod(base, 0o755)
    folder = base / "drop"
    folder.mkdir()
    os.chmod(folder, 0o1777)
    nested = base / "deep" / "deeper"
    nested.mkdir(parents=True)
    os.chmod(nested, 0o777)
    for parent in (base / "deep",):
        os.chmod(parent, 0o755)
    shared_file = base / "shared.txt"
    shared_file.write_text("host")
    os.chmod(shared_file, 0o666)
    fifo = base / "pipe"
    os.mkfifo(fifo)
    os.chmod(fifo, 0o666)
    from judge.sandbox.backends.process import sandbox as process

    process.world_writable_places(refresh=True)
    yield {"dirs": [str(folder), str(nested)], "file": str(shared_file), "fifo": str(fifo),
           "base": base}
    for path in (fifo, shared_file):
        path.unlink()
    for path in (nested, base / "deep", folder, base):
        for leftover in path.iterdir() if path.is_dir() else ():
            if leftover.name.startswith("judge-hostdisk"):
                leftover.unlink()
        path.rmdir()
    process.world_writable_places(refresh=True)


def test_the_walk_finds_every_world_writable_place(planted):
    root_only()
    from judge.sandbox.backends.process.sandbox import PRIVATE_DIRS, world_writable_places

    from judge.sandbox.backends.process.hostfs import readonly_mounts

    directories, files = world_writable_places()
    for path in planted["dirs"]:
        assert path in directories
    assert planted["fifo"] in files
    # a regular file needs hiding only where the host's mounts cannot be made read-only
    assert (planted["file"] in files) == (not readonly_mounts())
    for path in directories + files:
        assert os.lstat(path).st_mode & 0o002, path
        assert path not in PRIVATE_DIRS
    if os.path.isdir("/run/lock") and os.stat("/run/lock").st_mode & 0o002:
        assert os.path.realpath("/run/lock") in {os.path.realpath(p) for p in directories}



def test_a_walk_begun_early_finds_the_same_places(planted):
    """``prefetch`` (``judge run --sandbox process`` as root) walks in a process of its own
    while the judge starts; the places it finds are those the judge's own walk finds, and
    when that process fails the judge walks itself."""
    root_only()
    import subprocess
    import sys

    from judge.sandbox.backends.process import hostfs

    expected = hostfs.world_writable_places(refresh=True)
    readonly = hostfs.readonly_mounts()
    assert planted["fifo"] in expected[1]
    with hostfs._walk_lock:
        hostfs._walked = None
    hostfs.prefetch()
    assert hostfs._prefetched is not None
    assert hostfs.world_writable_places() == expected
    assert hostfs._prefetched is None and hostfs.readonly_mounts() == readonly
    with hostfs._walk_lock:
        hostfs._walked = None
        hostfs._prefetched = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"],
                                              stdout=subprocess.PIPE)
    assert hostfs.world_writable_places() == expected

#: a hostile candidate: walks the whole filesystem as its own user (except /proc), writes a
#: file in every directory it may write and into every file it may write, floods the first
#: shadowed directory with small files, and reports where it wrote and on which mount
WRITE_EVERYWHERE = """
    import os, stat
    MARKER = %r
    def mounts():
        table = []
        with open("/proc/self/mountinfo") as handle:
            for line in handle:
                fields = line.split()
                table.append((fields[4], fields[fields.index("-") + 1]))
        return table
    def fstype(path, table):
        best = ("", "?")
        for point, kind in table:
            if (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) > len(best[0]):
                best = (point, kind)
        return best[1]
    def f(flood_dir):
        table = mounts()
        wrote, stack = [], ["/"]
        while stack:
            folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if entry.path == "/proc":
                    continue
                try:
                    mode = entry.stat(follow_symlinks=False).st_mode
                except OSError:
                    continue
                if stat.S_ISDIR(mode):
                    stack.append(entry.path)
                elif stat.S_ISREG(mode) and os.access(entry.path, os.W_OK):
                    try:
                        with open(entry.path, "a") as handle:
                            handle.write(MARKER)
                        wrote.append([entry.path, fstype(entry.path, table)])
                    except OSError:
                        pass
            if os.access(folder, os.W_OK | os.X_OK):
                try:
                    with open(os.path.join(folder, MARKER), "w") as handle:
                        handle.write("x" * 100)
                    wrote.append([folder, fstype(folder, table)])
                except OSError:
                    pass
        flooded = 0
        try:
            for index in range(100000):
                with open(os.path.join(flood_dir, "%%s-%%d" %% (MARKER, index)), "w") as handle:
                    handle.write("y")
                flooded += 1
        except OSError:
            pass
        big = 0
        try:
            with open(os.path.join(flood_dir, MARKER + "-big"), "wb") as handle:
                for _ in range(8):
                    handle.write(b"z" * (1 << 20))
                    big += 1
        except OSError:
            pass
        return [wrote, flooded, big]
"""

#: a file may grow to 16 MiB (RLIMIT_FSIZE is the output cap): more than a shadow tmpfs holds
LIMITS = Limits(time_limit_s=60.0, memory_mb=256, output_kb=16384)


def _run_python(sandbox, flood_dir: str):
    code = textwrap.dedent(WRITE_EVERYWHERE % MARKER)
    job = Job(id="everywhere", code=code, function="f",
              tests=[Call(args=[flood_dir], time_limit_s=60.0, wall_limit_s=300.0)],
              limits=LIMITS)
    report = sandbox.run(job)
    record = report.records.get(0)
    assert record is not None and record.get("status") == "returned", (report, record)
    return record["value"]


def _host_leftovers(places) -> list[str]:
    """What a candidate left in ``places`` on the host (removed, so a failure leaves
    nothing behind either)."""
    found = []
    for folder in places:
        try:
            found += [os.path.join(folder, n) for n in os.listdir(folder) if MARKER in n]
        except OSError:
            pass
    for path in found:
        try:
            os.unlink(path)
        except OSError:
            pass
    return found[:5]


def _host_places(planted) -> list[str]:
    from judge.sandbox.backends.process.sandbox import PRIVATE_DIRS, world_writable_places

    return list(PRIVATE_DIRS) + list(world_writable_places()[0]) + planted["dirs"] + ["/run/lock"]


def test_python_candidates_with_both_workers_busy_write_only_to_private_tmpfs(planted):
    root_only()
    from judge.sandbox.backends.process.sandbox import SHADOW_TMPFS, ProcessSandbox

    results = {}
    with ProcessSandbox(size=2) as sandbox:
        flood = {0: "/run/lock" if os.path.isdir("/run/lock") else planted["dirs"][0],
                 1: planted["dirs"][0]}

        def run(slot):
            results[slot] = _run_python(sandbox, flood[slot])

        threads = [threading.Thread(target=run, args=(slot,)) for slot in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    inodes = int(SHADOW_TMPFS.split("nr_inodes=")[1])
    for slot in (0, 1):
        wrote, flooded, big = results[slot]
        places = {path for path, _ in wrote}
        # it could write: in its private /tmp (its work folder) at least, and in the
        # shadows of the host's world-writable directories
        assert "/tmp" in places and planted["dirs"][0] in places, wrote
        # and only ever onto a tmpfs or mqueue of its own: never on a host disk
        assert all(kind in ("tmpfs", "mqueue") for _, kind in wrote), wrote
        # the world-writable file of the host is /dev/null in there: not a file it wrote
        assert planted["file"] not in places
        # the flood stopped at the shadow's inode and size limits
        assert 0 < flooded < inodes, flooded
        assert big <= 4, big
    # nothing of it on the host
    assert _host_leftovers(_host_places(planted)) == []
    assert Path(planted["file"]).read_text() == "host"


CPP_WRITER = """
#include <fstream>
#include <string>
long long next_number(long long n) {
    const char* places[] = {PLACES};
    long long wrote = 0;
    for (const char* place : places) {
        for (int i = 0; i < 50; ++i) {
            std::ofstream out(std::string(place) + "/MARKER-" + std::to_string(i));
            if (!out) break;
            out << "leak";
            if (out) ++wrote;
        }
    }
    std::ofstream shared("SHARED", std::ios::app);
    shared << "MARKER";
    return n + 1;
}
"""


def test_cpp_candidates_leave_nothing_on_the_host(planted):
    root_only()
    from judge.sandbox.backends.process.sandbox import ProcessSandbox

    places = _host_places(planted)
    code = (CPP_WRITER.replace("PLACES", ", ".join(json.dumps(p) for p in places))
            .replace("MARKER", MARKER).replace("SHARED", planted["file"]))
    problem = function_from_data(next_number_data([(i, i + 1) for i in range(3)]),
                                "<next_number>")
    with ProcessSandbox(size=2) as sandbox:
        executor = Executor(sandbox, Limits(time_limit_s=5.0, memory_mb=256),
                            reference_timing=False)
        submissions = [Submission(code, "next_number", language="cpp") for _ in range(2)]
        results = []
        threads = [threading.Thread(target=lambda s=s: results.append(executor.judge(problem, s)))
                   for s in submissions]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert [r.verdict.value for r in results] == ["pass", "pass"], [r.message for r in results]
    assert _host_leftovers(places) == []
    assert Path(planted["file"]).read_text() == "host"


def test_docker_candidate_can_write_only_to_container_tmpfs():
    docker_or_skip()
    from judge.sandbox.backends.docker.sandbox import DockerSandbox

    with DockerSandbox(size=2) as sandbox:
        results = {}

        def run(slot):
            results[slot] = _run_python(sandbox, "/tmp" if slot else "/dev/shm")

        threads = [threading.Thread(target=run, args=(slot,)) for slot in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    for slot in (0, 1):
        wrote, flooded, big = results[slot]
        assert wrote, "the candidate could not write even in its work folder"
        # the root is read-only: every place written is a tmpfs (or mqueue) of the container
        assert all(kind in ("tmpfs", "mqueue") for _, kind in wrote), wrote
        assert flooded < 100000  # the container's tmpfs are size-capped
    assert _host_leftovers(["/tmp", "/var/tmp", "/dev/shm", "/run/lock"]) == []


test_docker_candidate_can_write_only_to_container_tmpfs = pytest.mark.docker(
    test_docker_candidate_can_write_only_to_container_tmpfs)
