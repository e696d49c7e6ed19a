"""The parts of streamed test inputs (issue 36, defect 12) that need no sandbox: the ceiling on
a test's input, judged from the files' sizes (nothing read), the judge's stream pieces, and
the worker's side of the protocol (every streamed byte consumed, even when one cannot be
kept, so the next job's line is where it should be). Both sandboxes:
tests/sandbox/test_input_streams.py."""

from __future__ import annotations

import importlib
import io
import os
import sys
from pathlib import Path

import pytest

from judge.engine import program_inputs as programs
from judge.problem.program import program_from_data
from judge.resources import runner_dir
from judge.sandbox.base import Job, JobReport, Transport
from judge.sandbox.pool import WorkerSession
from judge.sandbox.streams import STREAM_CHUNK, InputStream

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure


def _problem(tmp: Path, tests: list[dict], **extra):
    data = {"kind": "program", "identifier": "p", "statement": "x", "tests": tests}
    data.update(extra)
    return program_from_data(data, str(tmp / "p.json"), tmp)


@pytest.fixture
def unread(monkeypatch):
    """Reading a test's file whole, or streaming it, fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("a test input was read")

    monkeypatch.setattr(Path, "read_bytes", refuse)
    monkeypatch.setattr(InputStream, "chunks", refuse)


def test_the_ceiling_counts_every_input_of_a_test_from_its_size(tmp_path, unread):
    (tmp_path / "a.in").write_bytes(b"x" * 100)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_bytes(b"y" * 50)
    (tmp_path / "a.ans").write_bytes(b"z" * 30)
    problem = _problem(tmp_path, [{"stdin": "ok", "expected": "1"},
                                  {"name": "big", "stdin_file": "a.in", "files": "d",
                                   "expected_file": "a.ans"}])
    assert programs.inputs_refused(problem, 150) is None
    why = programs.inputs_refused(problem, 149)
    assert why.startswith("problem error: test 2 (big): its input is 150 bytes")
    assert "(149 bytes: MAX_TEST_INPUT_BYTES)" in why
    # an output validator gets the answer too: it counts
    (tmp_path / "v.py").write_text("import sys\nsys.exit(42)\n")
    validated = _problem(tmp_path, problem.model_dump(exclude_defaults=True)["tests"],
                         checker={"type": "validator", "validator": "v.py"})
    assert programs.inputs_refused(validated, 180) is None
    assert "its input with its answer is 180 bytes" in programs.inputs_refused(validated, 179)


def test_a_sparse_input_of_many_gigabytes_is_refused_unread(tmp_path, unread):
    with open(tmp_path / "huge.in", "wb") as handle:
        handle.truncate(1 << 40)  # a terabyte on no disk
    problem = _problem(tmp_path, [{"name": "huge", "stdin_file": "huge.in", "expected": "1"}])
    why = programs.inputs_refused(problem)
    assert "test 1 (huge): its input is %d bytes" % (1 << 40) in why
    assert programs.MAX_TEST_INPUT_BYTES == 256 << 20


def test_an_input_gone_or_not_a_file_is_a_located_problem_error(tmp_path):
    (tmp_path / "a.in").write_text("1")
    problem = _problem(tmp_path, [{"name": "t", "stdin_file": "a.in", "expected": "1"}])
    (tmp_path / "a.in").unlink()
    assert "test 1 (t): its input cannot be read: No such file" in programs.inputs_refused(
        problem)
    os.symlink("/dev/zero", tmp_path / "a.in")
    assert "not a regular file" in programs.inputs_refused(problem)


def test_specs_name_streams_and_carry_no_input(tmp_path):
    (tmp_path / "a.in").write_bytes(b"x" * 5000)
    problem = _problem(tmp_path, [{"stdin_file": "a.in", "expected": "1"},
                                  {"stdin": "hi", "expected": "1"}, {"expected": "1"}])
    streams: list[InputStream] = []
    specs = [programs._test_spec(t, streams) for t in problem.tests]
    assert [s.get("stdin_stream") for s in specs] == [0, 1, None]
    assert "stdin" not in specs[0] and "x" * 100 not in repr(specs)
    assert [(s.size, s.data) for s in streams] == [(5000, None), (2, b"hi")]
    assert b"".join(streams[0].chunks()) == b"x" * 5000


def test_stream_pieces_are_bounded_and_a_changed_file_is_an_error(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"a" * (2 * STREAM_CHUNK + 7))
    pieces = list(InputStream(2 * STREAM_CHUNK + 7, path=str(path)).chunks())
    assert [len(p) for p in pieces] == [STREAM_CHUNK, STREAM_CHUNK, 7]
    assert [len(p) for p in InputStream(5, path=str(path)).chunks()] == [5]  # as measured
    with pytest.raises(OSError, match="fewer than"):
        list(InputStream(3 * STREAM_CHUNK, path=str(path)).chunks())


class _Recorder(Transport):
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def send(self, data):
        self.sent.append(bytes(data))

    def readline(self, limit, timeout):
        return b'{"event":"end"}'

    def close(self):
        pass


def test_a_stream_that_cannot_be_sent_whole_retires_the_worker(tmp_path):
    """A file that shrank after it was measured: the worker waits for bytes that will not
    come, so the session is broken (replaced), and the job is our failure."""
    path = tmp_path / "f"
    path.write_bytes(b"abc")
    transport = _Recorder()
    session = WorkerSession(transport, "test")
    job = Job(id="j", code="", function="", tests=[],
              streams=(InputStream(2, data=b"hi"), InputStream(10, path=str(path))))
    report = session.run(job)
    assert isinstance(report, JobReport) and session.broken
    assert "could not send a test's input" in report.infra_error
    assert b'"streams":[2,10]' in transport.sent[0] and transport.sent[1] == b"hi"
    good = WorkerSession(_Recorder(), "test")
    assert good.run(Job(id="j", code="", function="", tests=[],
                        streams=(InputStream(3, path=str(path)),))).infra_error is None
    assert b"".join(good.transport.sent[1:]) == b"abc"


@pytest.fixture(scope="module")
def channel_class():
    sys.path.insert(0, str(runner_dir("python")))
    try:
        return importlib.import_module("judge_worker.main").Channel
    finally:
        sys.path.remove(str(runner_dir("python")))


def _channel(cls, data: bytes):
    channel = cls.__new__(cls)
    channel.inp = io.BufferedReader(io.BytesIO(data))
    return channel


def _read(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    out = b""
    while True:
        piece = os.read(fd, 1 << 16)
        if not piece:
            return out
        out += piece


def test_the_worker_keeps_each_stream_in_a_file_and_reads_the_next_line(channel_class):
    big = os.urandom(3 * (1 << 20) + 5)
    channel = _channel(channel_class, b'{"id": "a", "streams": [%d, 0, 2]}\n' % len(big)
                       + big + b"hi" + b'{"id": "b"}\n')
    job = channel.receive()
    try:
        assert [_read(fd) for fd in job["_streams"]] == [big, b"", b"hi"]
    finally:
        for fd in job["_streams"]:
            os.close(fd)
    assert channel.receive() == {"id": "b"}
    assert channel.receive() is None


def test_the_worker_consumes_streams_it_cannot_keep(channel_class, monkeypatch):
    main = sys.modules["judge_worker.main"]

    def no_memory(name):
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(main, "_private_file", no_memory)
    channel = _channel(channel_class, b'{"streams": [3, 4]}\nabcdefg{"id": "next"}\n')
    with pytest.raises(ValueError, match="cannot keep the job's input"):
        channel.receive()
    assert channel.receive() == {"id": "next"}  # in step with the judge
    ended = _channel(channel_class, b'{"streams": [10]}\nabc')  # the judge went away
    assert ended.receive() is None
    with pytest.raises(ValueError, match="sizes"):
        _channel(channel_class, b'{"streams": [-1]}\n').receive()
