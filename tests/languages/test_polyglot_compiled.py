"""C#, D, Kotlin, Scala and TypeScript, for real, in the process sandbox and in Docker (the
``polyglot`` image), through the public API.

Each language's one program (tests/languages/polyglot_programs.py) is compiled once and run
once per case by ``Judge.run_program`` under a 256 MB limit (so "hello" running at all shows
a JVM, Mono or Node starts under a realistic cap): hello, a stdin echo, a sum, a crash
(runtime_error naming the exception), a sleep and a busy loop (timeout), a memory bomb
(memory_limit: the sandbox's cap, or the runtime's own out-of-memory error measured), an
output flood (output_limit), a thread/process bomb (never a pass), an endless recursion (the
runtime's stack overflow: runtime_error, or memory_limit where the stack may grow to the
limit). A compile error is compile_error with its line in the candidate's code. The same
program judged end to end on a program problem passes its sum test, and cannot find the
expected answer (a file the judge holds) nor pass by forging the harness's result record on
every descriptor.

Cost: one compile per language per sandbox for the cases, one for the compile error, one for
the problem (the compile cache usually serves it); Kotlin and Scala compile in seconds."""

from __future__ import annotations

import pytest

from judge.api import Judge, RunSpec
from judge.engine.verdicts import Verdict
from judge.problem.program import program_from_data
from tests.languages.polyglot_programs import COMPILE_ERRORS, MODES, PROGRAMS, SECRET

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
LANGUAGES = ["csharp", "d", "kotlin", "scala", "typescript"]
#: languages whose stack is the process's own (it may grow to the memory limit)
NATIVE_STACK = {"csharp", "d"}
INPUTS = {"echo": b"echo\nsome words here\n", "sum": b"sum\n40 2\n"}


@pytest.fixture(scope="module", params=SANDBOXES)
def judge(request):
    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    judge = Judge(request.param, jobs=2, all_tests=True)
    yield judge
    judge.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_case_in_one_compile(judge, language):
    inputs = [INPUTS.get(mode, mode.encode() + b"\n") for mode in MODES]
    done = judge.run_program(language, PROGRAMS[language], inputs,
                             RunSpec(wall_s=3.0, memory_mb=256))
    assert done.compile.compiled and done.infra_error is None, done.compile.output
    runs = dict(zip(MODES, done.runs))
    assert all(run is not None for run in runs.values()), runs
    said = {mode: (run.status, run.verdict, run.message, run.stderr[:300])
            for mode, run in runs.items()}
    for mode, out in (("hello", b"hello\n"), ("echo", b"some words here\n"), ("sum", b"42\n")):
        assert (runs[mode].exit_code, runs[mode].stdout) == (0, out), said[mode]
        assert runs[mode].verdict is None, said[mode]
    assert runs["crash"].verdict is Verdict.RUNTIME_ERROR, said["crash"]
    assert "boom" in runs["crash"].stderr, said["crash"]
    for mode in ("sleep", "loop"):
        assert runs[mode].verdict is Verdict.TIMEOUT, said[mode]
    assert runs["bomb"].verdict is Verdict.MEMORY_LIMIT, said["bomb"]
    assert runs["flood"].verdict is Verdict.OUTPUT_LIMIT, said["flood"]
    assert runs["fork"].verdict in (Verdict.TIMEOUT, Verdict.RUNTIME_ERROR,
                                    Verdict.MEMORY_LIMIT), said["fork"]
    deep = {Verdict.RUNTIME_ERROR, Verdict.MEMORY_LIMIT} if language in NATIVE_STACK \
        else {Verdict.RUNTIME_ERROR}
    assert runs["deep"].verdict in deep, said["deep"]
    # a program has no result channel: what it writes on descriptors is nobody's
    assert runs["forge"].stdout == b"7\n" or runs["forge"].verdict is Verdict.RUNTIME_ERROR
    assert runs["snoop"].stdout == b"nothing\n", said["snoop"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_compile_error_names_its_line(judge, language, tmp_path):
    code, word = COMPILE_ERRORS[language]
    problem = program_from_data({"kind": "program", "identifier": "echo", "statement": "x",
                                 "tests": [{"name": "t", "stdin": "1\n", "expected": "1\n"}],
                                 "limits": {"time_limit_s": 2, "memory_mb": 256}},
                                str(tmp_path / "echo.json"), tmp_path)
    result = judge.judge(problem, code, language=language)
    assert result.verdict is Verdict.COMPILE_ERROR, result.message
    assert "(line 3)" in result.message, result.message
    if word:
        assert word in result.message, result.message


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_program_problem_passes_and_cannot_cheat(judge, language, tmp_path):
    (tmp_path / "snoop.in").write_text("snoop\n")
    (tmp_path / "snoop.ans").write_text(SECRET + "\n")
    elsewhere = [str(tmp_path)] if judge.backend_name.startswith("docker") else []
    problem = program_from_data(
        {"kind": "program", "identifier": "modes", "statement": "x",
         "tests": [{"name": "sum", "stdin": "sum\n1 2\n", "expected": "3\n"},
                   {"name": "snoop", "stdin_file": "snoop.in", "expected_file": "snoop.ans",
                    "args": elsewhere},
                   {"name": "forge", "stdin": "forge\n", "expected": "3\n"}],
         "limits": {"time_limit_s": 5, "memory_mb": 256, "output_kb": 64}},
        str(tmp_path / "modes.json"), tmp_path)
    result = judge.judge(problem, PROGRAMS[language], language=language)
    verdicts = [(t.verdict, t.message) for t in result.tests]
    assert result.verdict is Verdict.WRONG_ANSWER, verdicts
    assert verdicts[0][0] is Verdict.PASS, verdicts
    assert verdicts[1][0] is Verdict.WRONG_ANSWER and "'nothing'" in verdicts[1][1], verdicts
    assert verdicts[2][0] in (Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR), verdicts
