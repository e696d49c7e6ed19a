"""A program test's input travels from its file to the candidate's standard input as a stream
(issue 36, defect 12): the judge sends the job's line, then the input a bounded piece at a
time (``judge.sandbox.streams.InputStream``), and the worker keeps it in a private file; it is
never read whole into the judge's memory, nor base64-encoded into the line (a 128 MiB input
cost ~4.3x its size in the judge before). A test's input past ``MAX_TEST_INPUT_BYTES`` is a
located problem error, refused from its size without being read (a sparse file of many GB
would have exhausted the host). In both sandboxes; Docker over direct pipes and over the
engine's attach stream.

No timing or memory figure is asserted: what the judge sends is watched instead (no piece
over ``STREAM_CHUNK`` plus a job line's worth, and nothing at all for a refused input)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.engine.program_inputs import MAX_TEST_INPUT_BYTES
from judge.engine.verdicts import Verdict
from judge.problem.program import program_from_data
from judge.sandbox.base import Limits
from judge.sandbox.streams import STREAM_CHUNK

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker),
             pytest.param("docker-attach", marks=pytest.mark.docker)]
#: a test input bigger than a few stream pieces (and than a job line's worth of slack)
INPUT_BYTES = 3 * STREAM_CHUNK + 12345
#: what a job line may add to a piece (code, limits, build: never a test's input)
LINE_SLACK = 256 << 10
DIGEST = ("import hashlib, sys\n"
          "print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())\n")


@pytest.fixture(scope="module", params=SANDBOXES)
def executor(request):
    from judge.languages.sandbox import for_languages

    if request.param == "process":
        from judge.sandbox.backends.process.sandbox import ProcessSandbox

        box = ProcessSandbox(size=1)
    else:
        from tests.conftest import docker_or_skip

        docker_or_skip()
        from judge.sandbox.backends.docker.sandbox import DockerSandbox

        box = DockerSandbox(size=1, direct_pipes=request.param == "docker")
    ex = Executor(for_languages(box, 1), Limits(time_limit_s=5.0))
    yield ex
    ex.close()
    box.close()


@pytest.fixture
def sent(monkeypatch):
    """The size of every piece any sandbox transport sends while the test runs."""
    from judge.sandbox.backends.docker.transport import AttachTransport
    from judge.sandbox.backends.process.sandbox import PipeTransport

    sizes: list[int] = []
    for cls in (PipeTransport, AttachTransport):
        original = cls.send

        def spy(self, data, _original=original):
            sizes.append(len(data))
            return _original(self, data)

        monkeypatch.setattr(cls, "send", spy)
    return sizes


def _input(tmp: Path, name: str = "big.in") -> tuple[Path, str]:
    data = hashlib.sha256(b"seed").digest() * (INPUT_BYTES // 32) + b"tail\n"
    path = tmp / name
    path.write_bytes(data)
    return path, hashlib.sha256(data).hexdigest()


def _problem(tmp: Path, tests: list[dict], **extra):
    data = {"kind": "program", "identifier": "streams", "statement": "x", "tests": tests,
            "limits": {"time_limit_s": 5, "memory_mb": 512}}
    data.update(extra)
    return program_from_data(data, str(tmp / "p.json"), tmp)


def _judge(executor, problem, code=DIGEST):
    return executor.kind_judge("program").judge(problem, Submission(code, "", None, "python"))


def test_a_test_input_reaches_the_candidate_streamed_in_bounded_pieces(executor, tmp_path,
                                                                      sent):
    """The input arrives whole and exact (its digest is the answer) through the series
    child (a plain Python program) and a process per test (arguments): the judge sent no
    piece bigger than a stream chunk and a job line, where before it sent the whole input,
    base64-encoded, in the job's line."""
    _, digest = _input(tmp_path)
    (tmp_path / "big.ans").write_text(digest + "\n")
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "data.bin").write_bytes(b"\x00\x01" * 1000)
    series = _problem(tmp_path, [
        {"name": "big", "stdin_file": "big.in", "expected_file": "big.ans"},
        {"name": "inline", "stdin": "abc", "expected":
            hashlib.sha256(b"abc").hexdigest() + "\n"}])
    alone = _problem(tmp_path, [
        {"name": "big", "stdin_file": "big.in", "expected_file": "big.ans", "args": ["-x"],
         "files": "files"}])
    with_files = DIGEST + "import os\nassert os.path.getsize('data.bin') == 2000\n"
    for problem, code in ((series, DIGEST), (alone, with_files)):
        result = _judge(executor, problem, code)
        assert result.verdict is Verdict.PASS, [t.message for t in result.tests]
    assert sum(sent) > 2 * INPUT_BYTES  # both problems' inputs went to the sandbox...
    assert max(sent) <= STREAM_CHUNK + LINE_SLACK, max(sent)  # ...never whole


def test_an_output_validator_gets_the_input_and_answer_streamed(executor, tmp_path, sent):
    """An output validator's job streams the test's input and answer files as well."""
    _, digest = _input(tmp_path)
    (tmp_path / "big.ans").write_text(digest + "\n")
    (tmp_path / "v.py").write_text(
        "import hashlib, sys\n"
        "out = sys.stdin.read().split()\n"
        "given = hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest()\n"
        "answer = open(sys.argv[2]).read().split()\n"
        "sys.exit(42 if out == answer == [given] else 43)\n")
    problem = _problem(tmp_path, [{"name": "big", "stdin_file": "big.in",
                                   "expected_file": "big.ans"}],
                       checker={"type": "validator", "validator": "v.py"},
                       validator_limits={"time_limit_s": 5, "memory_mb": 512})
    result = _judge(executor, problem)
    assert result.verdict is Verdict.PASS, [t.message for t in result.tests]
    wrong = _judge(executor, problem, "print('0' * 64)\n")
    assert wrong.verdict is Verdict.WRONG_ANSWER
    assert max(sent) <= STREAM_CHUNK + LINE_SLACK, max(sent)


def test_a_test_input_past_the_ceiling_is_a_located_problem_error_never_read(
        executor, tmp_path, sent):
    """A sparse 64 GiB input file (a few blocks on disk) is refused from its size: a
    problem error naming the test, no sandbox job, not a byte sent (it used to be read
    whole into the judge's memory, then base64-encoded)."""
    huge = tmp_path / "huge.in"
    with open(huge, "wb") as handle:
        handle.truncate(64 << 30)
    problem = _problem(tmp_path, [
        {"name": "small", "stdin": "1\n", "expected": "x\n"},
        {"name": "huge", "stdin_file": "huge.in", "expected": "x\n"}])
    result = _judge(executor, problem)
    assert result.verdict is Verdict.SANDBOX_ERROR  # the problem's fault, not the candidate's
    assert "test 2 (huge)" in result.message and "MAX_TEST_INPUT_BYTES" in result.message
    assert str(64 << 30) in result.message and str(MAX_TEST_INPUT_BYTES) in result.message
    assert result.problem_errors == [result.message]
    assert result.sandbox == "none" and sent == []


def test_a_fifo_as_a_test_input_is_refused_not_waited_on(executor, tmp_path, sent):
    """A test input replaced by a FIFO after the problem was loaded is refused, not read
    (a read would wait forever)."""
    (tmp_path / "pipe.in").write_text("1\n")
    problem = _problem(tmp_path, [{"name": "pipe", "stdin_file": "pipe.in", "expected": "x"}])
    (tmp_path / "pipe.in").unlink()
    os.mkfifo(tmp_path / "pipe.in")
    result = _judge(executor, problem)
    assert result.verdict is Verdict.SANDBOX_ERROR
    assert "test 1 (pipe)" in result.message and "not a regular file" in result.message
    assert sent == []
