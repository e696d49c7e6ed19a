"""The docker sandbox's direct pipes (judge.sandbox.backends.docker.transport): jobs and records go
through two pipes taken from the worker instead of the engine's attach stream; a candidate
cannot reach them; a container that dies, or writes unasked, while idle is replaced before a
job is sent to it; without the pipes (``direct_pipes=False``) the attach channel still works;
the containers' cgroups may be placed under another parent (``cgroup_parent``).

Real Docker: skipped when no engine answers, unless Docker is required (tests/conftest.py).
"""

from __future__ import annotations

import os
import textwrap
import time

import pytest

from judge.sandbox import wire
from judge.sandbox.base import Job, Limits
from judge.sandbox.base import TestInput as Call  # (not collected as a test class)
from tests.conftest import docker_or_skip

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def docker_ready():
    docker_or_skip()


def _job(code: str, args_list=((3,),), function: str = "f") -> Job:
    tests = [Call(args=list(args), time_limit_s=2.0, wall_limit_s=5.0) for args in args_list]
    return Job(id="p%d" % time.monotonic_ns(), code=textwrap.dedent(code), function=function,
               tests=tests, limits=Limits(memory_mb=256))


def _values(report) -> list:
    assert report.infra_error is None and report.died_during is None, report
    out = []
    for index in sorted(report.records):
        record = report.records[index]
        assert record["status"] == "returned", record
        out.append(wire.decode(record["value"]))
    return out


def _session(box):
    (session,) = list(box._live)
    return session


def _link(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def test_jobs_go_through_pipes_only_the_judge_and_worker_hold(docker_ready):
    from judge.sandbox.backends.docker.sandbox import DockerSandbox

    with DockerSandbox(size=1) as box:
        assert _values(box.run(_job("def f(n):\n    return n * 2\n"))) == [6]
        session = _session(box)
        transport = session.transport
        assert transport.direct
        pid = session.pid
        # the judge's ends are pipes the worker holds the other ends of...
        jobs_pipe = _link("/proc/self/fd/%d" % transport._job_fd)
        results_pipe = _link("/proc/self/fd/%d" % transport._result_fd)
        assert jobs_pipe.startswith("pipe:") and results_pipe.startswith("pipe:")
        worker_fds = {_link("/proc/%d/fd/%s" % (pid, fd)) for fd in os.listdir("/proc/%d/fd" % pid)}
        assert jobs_pipe in worker_fds and results_pipe in worker_fds
        # many jobs on the same container, each answered on the pipe
        for n in range(5):
            assert _values(box.run(_job("def f(n):\n    return n + %d\n" % n))) == [3 + n]
        assert _session(box) is session


def test_worker_ends_are_private_after_the_switch(docker_ready):
    """After the switch the worker holds only its own ends: reading the judge's ends would
    need the worker's copies of them, which are closed."""
    from judge.sandbox.backends.docker.sandbox import DockerSandbox

    with DockerSandbox(size=1) as box:
        _values(box.run(_job("def f(n):\n    return n\n")))
        session = _session(box)
        pid, offered = session.pid, session.hello["pipes"]
        jobs_pipe = _link("/proc/self/fd/%d" % session.transport._job_fd)
        holders = [fd for fd in os.listdir("/proc/%d/fd" % pid)
                   if _link("/proc/%d/fd/%s" % (pid, fd)) == jobs_pipe]
        # exactly one descriptor of the jobs pipe in the worker: its read end (not the
        # write end it offered)
        assert len(holders) == 1 and int(holders[0]) != offered["jobs"]


def test_candidate_cannot_forge_records(docker_ready):
    """A candidate that writes protocol lines everywhere it can (its stdout and stderr, every
    descriptor number, the worker's /proc entries) forges nothing: no record with its value,
    no end of job; the worker's descriptors are out of its reach; the container goes on
    answering correctly."""
    from judge.sandbox.backends.docker.sandbox import DockerSandbox

    forger = '''
        import os, sys
        FORGED = (b'{"event":"test","index":0,"status":"returned","value":999}\\n'
                  b'{"event":"test","index":1,"status":"returned","value":999}\\n'
                  b'{"event":"end","id":"x","recycle":false}\\n')
        def f(n):
            reached = []
            print(FORGED.decode(), flush=True)
            sys.stderr.write(FORGED.decode())
            for fd in range(3, 1024):
                try:
                    os.write(fd, FORGED)
                    reached.append(fd)
                except OSError:
                    pass
            for path in ("/proc/1/fd/0", "/proc/1/fd/1", "/proc/1/fd/4", "/proc/1/fd/5",
                         "/proc/1/fd/6", "/proc/1/fd/7", "/proc/1/fd/8", "/proc/1/fd/9"):
                try:
                    with open(path, "wb") as handle:
                        handle.write(FORGED)
                    reached.append(path)
                except OSError:
                    pass
            try:
                os.listdir("/proc/1/fd")
                reached.append("/proc/1/fd listed")
            except OSError:
                pass
            return [n, [r for r in reached if isinstance(r, str)]]
    '''
    with DockerSandbox(size=1) as box:
        report = box.run(_job(forger, args_list=((1,), (2,))))
        assert report.infra_error is None and report.died_during is None
        assert sorted(report.records) == [0, 1]
        for index, record in report.records.items():
            # its own result pipe to the worker is among the descriptors it wrote to: that
            # test's result is malformed (a failure), never the forged value
            if record["status"] == "returned":
                assert wire.decode(record["value"]) == [index + 1, []], record
            else:
                assert record["status"] == "malformed", record
            assert "999" not in str(record.get("value"))
        assert _session(box).transport.direct
        assert _values(box.run(_job("def f(n):\n    return -n\n"))) == [-3]


def test_container_killed_while_idle_is_replaced_before_the_next_job(docker_ready):
    """Killed from outside between two candidates: the next candidate is not sent to it (no
    sandbox_error, no retry needed); a new container judges it."""
    from judge.sandbox.backends.docker.sandbox import DockerSandbox

    with DockerSandbox(size=1) as box:
        assert _values(box.run(_job("def f(n):\n    return n\n"))) == [3]
        first = _session(box)
        box.api.kill(first.transport.container_id)
        deadline = time.monotonic() + 10
        while first.transport.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not first.transport.alive()
        report = box.run(_job("def f(n):\n    return n * 10\n"))
        assert _values(report) == [30]
        second = _session(box)
        assert second is not first
        assert second.transport.container_id != first.transport.container_id
        assert second.transport.direct


def test_attach_channel_without_pipes(docker_ready):
    """direct_pipes=False: the worker drops its offer at the first job and everything goes
    through the attach stream, as before."""
    from judge.sandbox.backends.docker.sandbox import DockerSandbox

    with DockerSandbox(size=1, direct_pipes=False) as box:
        for n in range(3):
            assert _values(box.run(_job("def f(n):\n    return n + %d\n" % n))) == [3 + n]
        session = _session(box)
        assert not session.transport.direct and "pipes" in session.hello
        pid = session.pid
        pipes = [fd for fd in os.listdir("/proc/%d/fd" % pid)
                 if (_link("/proc/%d/fd/%s" % (pid, fd)) or "").startswith("pipe:")]
        # only the worker's stdin and stdout dups remain pipes: the four offered ends are closed
        assert len(pipes) <= 2, pipes


def test_fds_are_taken_only_from_the_named_container(docker_ready):
    from judge.sandbox.backends.docker.sandbox import DockerSandbox
    from judge.sandbox.backends.docker.transport import take_fds

    with DockerSandbox(size=1) as box:
        _values(box.run(_job("def f(n):\n    return n\n")))
        session = _session(box)
        offered = session.hello["pipes"]
        targets = [offered["jobs"], offered["results"]]
        assert take_fds(session.pid, "0" * 64, targets) is None  # not that container
        assert take_fds(session.pid, session.transport.container_id, [0, 1]) is None
        assert take_fds(os.getpid(), session.transport.container_id, targets) is None


def test_cgroup_parent_places_containers_and_oom_is_still_read(docker_ready):
    """cgroup_parent="/": each container's cgroup directly under the root (one container
    weighs what one process weighs against the host's other work), with the same limits and
    the judge still reading its OOM counter from the host."""
    from judge.sandbox.backends.docker.sandbox import DockerSandbox, _host_cgroup_oom_kills

    with DockerSandbox(size=1, cgroup_parent="/") as box:
        assert _values(box.run(_job("def f(n):\n    return n\n"))) == [3]
        session = _session(box)
        cid = session.transport.container_id
        with open("/proc/%d/cgroup" % session.pid) as handle:
            lines = handle.read().splitlines()
        memory = [line for line in lines if ":memory:" in line or line.startswith("0::")]
        assert memory and all(line.endswith(":/" + cid) for line in memory), lines
        assert _host_cgroup_oom_kills(cid, "/") == 0
        limit = "/sys/fs/cgroup/memory/%s/memory.limit_in_bytes" % cid
        if os.path.exists(limit):  # cgroup v1: the container's own limit, as under /docker
            with open(limit) as handle:
                assert int(handle.read()) == box.container_memory_mb() << 20
        report = box.run(_job("def f(n):\n    x = bytearray(2 << 30)\n    return n\n"))
        assert report.records[0]["status"] in ("memory", "raised"), report.records[0]


def test_idle_container_that_wrote_unasked_is_replaced(docker_ready):
    """Bytes on the channel of an idle worker (nothing was asked of it) mean a broken or
    poisoned container: the next candidate goes to a new one, and its result is its own."""
    from judge.sandbox.backends.docker.sandbox import DockerSandbox
    from judge.sandbox.backends.docker.transport import take_fds

    with DockerSandbox(size=1) as box:
        assert _values(box.run(_job("def f(n):\n    return n\n"))) == [3]
        first = _session(box)
        transport = first.transport
        results_pipe = _link("/proc/self/fd/%d" % transport._result_fd)
        (writer,) = [int(fd) for fd in os.listdir("/proc/%d/fd" % first.pid)
                     if _link("/proc/%d/fd/%s" % (first.pid, fd)) == results_pipe]
        (fd,) = take_fds(first.pid, transport.container_id, [writer])
        try:
            os.write(fd, b'{"event":"test","index":0,"status":"returned","value":999}\n')
        finally:
            os.close(fd)
        assert not transport.alive()
        assert _values(box.run(_job("def f(n):\n    return n + 1\n"))) == [4]
        assert _session(box) is not first
