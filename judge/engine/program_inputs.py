"""A program test's input on its way to the sandbox: sized from its files (a test too big is
a problem error, never read), grouped into jobs, and sent as streams after the job's line
(:class:`judge.sandbox.streams.InputStream`), never held whole in the judge. Part of
:mod:`judge.kinds.program.judge`."""

from __future__ import annotations

import base64
import stat
from pathlib import Path
from typing import Any

from judge.engine.checkers.base import CHECKERS
from judge.problem.program import ProgramProblem, ProgramTest
from judge.sandbox.streams import InputStream

#: input bytes (standard input and files) of the tests of one sandbox job at most
CHUNK_BYTES = 16 << 20
#: the most a test's input (standard input and input files together) may hold: a bigger
#: one is a problem error and is never read (its files' sizes say so)
MAX_TEST_INPUT_BYTES = 256 << 20
#: tests of one job under the contest rule: a wrong answer ends the run after its job
STOP_CHUNK_TESTS = 8
#: the same for a Python program in series (a test costs half a millisecond: one job)
SERIES_CHUNK_TESTS = 64


def _size(test: ProgramTest) -> int:
    size = len(test.stdin.encode("utf-8")) if test.stdin is not None else 0
    path = test.input_path()
    if path is not None and path.is_file():
        size += path.stat().st_size
    folder = test.path(test.files)
    if folder is not None and folder.is_dir():
        size += sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return size


def chunks(tests: list[ProgramTest], max_bytes: int, max_tests: int | None = None
           ) -> list[list[int]]:
    """Consecutive test indices in groups of at most ``max_bytes`` of input (a bigger test
    alone) and ``max_tests`` tests."""
    groups: list[list[int]] = []
    size = 0
    for index, test in enumerate(tests):
        weight = _size(test)
        if not groups or size + weight > max_bytes or \
                (max_tests is not None and len(groups[-1]) >= max_tests):
            groups.append([])
            size = 0
        groups[-1].append(index)
        size += weight
    return groups

def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _file_stream(path: Path, streams: list[InputStream]) -> int:
    """``path`` as the next stream of a job (its size now; its bytes read as they are sent,
    never held whole here): the stream's number."""
    streams.append(InputStream(path.stat().st_size, path=str(path)))
    return len(streams) - 1


def _folder_streams(folder: Path | None, streams: list[InputStream]) -> dict[str, int]:
    """A test's input files (name -> stream)."""
    if folder is None:
        return {}
    return {str(p.relative_to(folder)): _file_stream(p, streams)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _test_spec(test: ProgramTest, streams: list[InputStream]) -> dict[str, Any]:
    """What a candidate's run of ``test`` gets: never its expected output. Its standard
    input and input files go as streams (``streams``, sent after the job's line), never
    read whole into the judge's memory, nor encoded there."""
    spec: dict[str, Any] = {"argv": list(test.args),
                            "file_streams": _folder_streams(test.path(test.files), streams)}
    if test.stdin is not None:
        data = test.stdin.encode("utf-8")
        streams.append(InputStream(len(data), data=data))
        spec["stdin_stream"] = len(streams) - 1
    elif test.stdin_file is not None:
        spec["stdin_stream"] = _file_stream(test.input_path() or Path(test.stdin_file),
                                            streams)
    io = test._io
    if io is not None and io.input_file:  # the input as a file too (its own stream)
        if test.stdin is not None:
            data = test.stdin.encode("utf-8")
            streams.append(InputStream(len(data), data=data))
            spec["file_streams"][io.input_file] = len(streams) - 1
        elif test.stdin_file is not None:
            spec["file_streams"][io.input_file] = _file_stream(
                test.input_path() or Path(test.stdin_file), streams)
        else:
            streams.append(InputStream(0, data=b""))
            spec["file_streams"][io.input_file] = len(streams) - 1
    if io is not None and io.output_file:
        spec["output_file"] = io.output_file
    return spec


def _input_bytes(test: ProgramTest, answer: bool = False) -> int:
    """The bytes of a test's input (standard input and input files; with ``answer``, its
    answer file too: an output validator's input), from the files' sizes: nothing is read.
    OSError: a file that cannot be looked at, or is not a regular file (a device, a FIFO),
    which no test input may be."""
    size = len(test.stdin.encode("utf-8")) if test.stdin is not None else 0
    paths = [test.input_path()] if test.stdin is None and test.stdin_file is not None else []
    if answer and test.answer_path() is not None:
        paths.append(test.answer_path())
    folder = test.path(test.files)
    if folder is not None:
        if not folder.is_dir():
            raise OSError("its input folder %s is not a folder" % folder)
        paths += [p for p in folder.rglob("*") if not p.is_dir()]
    for path in paths:
        assert path is not None
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise OSError("%s is not a regular file" % path)
        size += info.st_size
    return size


def inputs_refused(problem: ProgramProblem, ceiling: int | None = None) -> str | None:
    """Why the problem's tests cannot be run (a located problem error), or None: a test
    whose input cannot be read, or holds more than ``MAX_TEST_INPUT_BYTES`` (its files'
    sizes say so: a sparse file of many GB is refused, never read). With an output
    validator, a test's answer file counts too (the validator's job gets it)."""
    ceiling = MAX_TEST_INPUT_BYTES if ceiling is None else ceiling
    # a checker that runs a program gets the answers in its own job
    validator = not CHECKERS.get(problem.checker.type).in_process
    for index, test in enumerate(problem.tests):
        where = "test %d%s" % (index + 1, " (%s)" % test.name if test.name else "")
        try:
            size = _input_bytes(test, validator)
        except OSError as exc:
            return "problem error: %s: its input cannot be read: %s" % (
                where, exc.strerror and "%s (%s)" % (exc.strerror, exc.filename) or exc)
        if size > ceiling:
            return ("problem error: %s: its input%s is %d bytes, more than a test's input "
                    "may be (%d bytes: MAX_TEST_INPUT_BYTES); not run"
                    % (where, " with its answer" if validator else "", size, ceiling))
    return None


__all__ = ["CHUNK_BYTES", "MAX_TEST_INPUT_BYTES", "SERIES_CHUNK_TESTS", "STOP_CHUNK_TESTS",
           "chunks", "inputs_refused"]
