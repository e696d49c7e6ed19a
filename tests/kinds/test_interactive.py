"""Interactive and multi-pass problems judged for real, in the process sandbox and in Docker:
the hand-written guessing game (interactor in Python; one in C++) with its accepted
submissions in seven languages and hostile ones (wrong answer, timeout, idle, crash, flood,
closing the pipes, forging the interactor's protocol and verdict, forking to keep the pipes
open): each gets its folder's verdict, never the interactor's failure; interactors that
crash, hang or flood are problem errors; a hand-written multi-pass problem; and the
interactive and multi-pass example packages DOMjudge and problemtools publish (copied into
tests/data/interactive, see SOURCES.md), verified with default flags."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from judge.cli.programs import verify_package
from judge.engine.verdicts import Verdict
from judge.importers.kattis import read_package
from judge.running.executor import Executor
from judge.sandbox.base import Limits
from tests.paths import DATA

HERE = DATA / "interactive"
SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
SEVEN = {"python", "javascript", "cpp", "go", "rust", "java", "c"}


@pytest.fixture(scope="module", params=SANDBOXES)
def judge(request):
    from judge.languages.sandbox import for_languages
    from judge.sandbox import open_sandbox

    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    box = for_languages(open_sandbox(request.param, 2), 2)
    executor = Executor(box, Limits(time_limit_s=1.0))
    yield executor.kind_judge("program")
    executor.close()
    box.close()


def _verify(judge, path: Path) -> dict:
    package = read_package(path)
    assert package.supported, package.unsupported
    return verify_package(judge, package, 2, None)


def _disagree(outcome: dict) -> list:
    return [(s["file"], s.get("message")) for s in outcome["submissions"]
            if s["agrees"] is not True]


def test_the_guessing_game_in_seven_languages_and_hostile_guessers(judge):
    outcome = _verify(judge, HERE / "guess")
    assert not _disagree(outcome)
    judged = {Path(s["file"]).name: s for s in outcome["submissions"]}
    accepted = {s["language"] for s in judged.values() if s["folder"] == "accepted"}
    assert SEVEN <= accepted, accepted
    # the hostile ones: a candidate verdict each, never the interactor's failure
    assert judged["idle.py"]["verdict"] == "timeout"
    assert judged["spin.cpp"]["verdict"] == "timeout"
    for name in ("flood.go", "forge.cpp", "closes.py", "fork_holds.c", "linear.py"):
        assert judged[name]["verdict"] == "wrong_answer", judged[name]
        assert "interactor failed" not in judged[name]["message"]
    assert "not a number: 'correct" in judged["forge.cpp"]["message"]
    for name in ("crash.py", "crash.rs", "Crash.java"):
        assert judged[name]["verdict"] == "runtime_error", judged[name]


CPP_INTERACTOR = r"""
#include <cstdio>
#include <fstream>
#include <string>
int main(int argc, char **argv) {
    std::ifstream in(argv[1]);
    long secret; in >> secret;
    for (int i = 0; i < 10; i++) {
        long guess;
        if (std::scanf("%ld", &guess) != 1) return 43;
        if (guess == secret) { std::printf("correct\n"); std::fflush(stdout); return 42; }
        std::printf(guess > secret ? "lower\n" : "higher\n");
        std::fflush(stdout);
    }
    std::string path = std::string(argv[3]) + "/judgemessage.txt";
    if (FILE *f = std::fopen(path.c_str(), "w")) { std::fputs("ten guesses", f); std::fclose(f); }
    return 43;
}
"""


def _copy(tmp_path: Path, interactor: tuple[str, str] | None = None,
          keep: tuple[str, ...] = ("accepted/guess.py", "accepted/guess.cpp",
                                   "wrong_answer/linear.py")) -> Path:
    root = tmp_path / "guess"
    shutil.copytree(HERE / "guess", root)
    for path in list((root / "submissions").rglob("*.*")):
        if str(path.relative_to(root / "submissions")) not in keep:
            path.unlink()
    if interactor is not None:
        shutil.rmtree(root / "output_validator")
        (root / "output_validator").mkdir()
        (root / "output_validator" / interactor[0]).write_text(interactor[1])
    return root


def test_a_cpp_interactor(judge, tmp_path):
    outcome = _verify(judge, _copy(tmp_path, ("validate.cpp", CPP_INTERACTOR)))
    assert len(outcome["submissions"]) == 3
    assert not _disagree(outcome)


BAD_INTERACTORS = {
    "crashes": "import sys\nsys.stdin.readline()\nraise RuntimeError('interactor bug')\n",
    "hangs": "import sys, time\nsys.stdin.readline()\nprint('lower', flush=True)\n"
             "time.sleep(1000)\n",
    # megabytes the candidate never reads: it blocks on a full pipe, then is stopped
    "floods": "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
    "exits 0": "import sys\nsys.stdin.readline()\nsys.exit(0)\n",
}


@pytest.mark.parametrize("how", sorted(BAD_INTERACTORS))
def test_an_interactor_that_misbehaves_is_a_problem_error(judge, tmp_path, how):
    root = _copy(tmp_path, ("interactor.py", BAD_INTERACTORS[how]), keep=("accepted/guess.py",))
    problem = read_package(root).problem
    from judge.candidates.submission import Submission

    code = (root / "submissions/accepted/guess.py").read_text()
    result = judge.judge(problem, Submission(code=code, function="", language="python"))
    first = result.tests[0]
    assert first.verdict is Verdict.WRONG_ANSWER, (first.verdict, first.message)
    assert "interactor failed" in first.message
    assert result.problem_errors and "interactor failed" in result.problem_errors[0]


# answers each query slowly (a jury that simulates a slow operation, as DOMjudge's boolfind
# does): what a flooding candidate sent before it was stopped takes it longer than the grace
SLOW_INTERACTOR = """import sys, time
for line in sys.stdin:
    time.sleep(0.05)
    print("ok", flush=True)
sys.exit(43)
"""
QUERY_THEN_SPIN = "import sys\nfor _ in range(120):\n    print('READ 0')\n" \
                  "sys.stdout.flush()\nwhile True:\n    pass\n"


def test_an_interactor_still_answering_a_candidate_that_timed_out_is_not_blamed(judge, tmp_path):
    """The candidate sent 120 queries and spun past its time limit; the interactor needs
    6 s to answer them, longer than its grace after the candidate's end (3 s), but it is
    busy, not hung: the candidate's timeout, no problem error."""
    root = _copy(tmp_path, ("interactor.py", SLOW_INTERACTOR), keep=("accepted/guess.py",))
    problem = read_package(root).problem
    from judge.candidates.submission import Submission

    result = judge.judge(problem, Submission(code=QUERY_THEN_SPIN, function="",
                                             language="python"))
    first = result.tests[0]
    assert first.verdict is Verdict.TIMEOUT, (first.verdict, first.message)
    assert not result.problem_errors


MULTI_PASS_VALIDATOR = """import os, sys
feedback = sys.argv[3]
given = open(sys.argv[1]).read().split()
said = sys.stdin.read().split()
state = os.path.join(feedback, "state")
passes = int(open(state).read()) + 1 if os.path.exists(state) else 1
open(state, "w").write(str(passes))
if said != [str(int(given[0]) * 2)]:
    open(os.path.join(feedback, "judgemessage.txt"), "w").write("pass %d: wrong" % passes)
    sys.exit(43)
if passes < 3:
    open(os.path.join(feedback, "nextpass.in"), "w").write(said[0] + "\\n")
sys.exit(42)
"""


def test_a_multi_pass_problem(judge, tmp_path):
    root = tmp_path / "double"
    (root / "data/secret").mkdir(parents=True)
    (root / "output_validator").mkdir()
    (root / "problem.yaml").write_text("name: Double it\nvalidation: custom multi-pass\n"
                                       "limits:\n  time_limit: 1\n  validation_passes: 3\n")
    (root / "data/secret/1.in").write_text("5\n")
    (root / "data/secret/1.ans").write_text("\n")
    (root / "output_validator/validate.py").write_text(MULTI_PASS_VALIDATOR)
    for folder, name, code in (
            ("accepted", "ok.py", "print(int(input()) * 2)\n"),
            ("accepted", "ok.c", '#include <stdio.h>\nint main(void){long n;scanf("%ld",&n);'
                                 'printf("%ld\\n",2*n);return 0;}\n'),
            # right on the first pass only: the second pass's input is not 5
            ("wrong_answer", "once.py", "input()\nprint(10)\n")):
        (root / "submissions" / folder).mkdir(parents=True, exist_ok=True)
        (root / "submissions" / folder / name).write_text(code)
    package = read_package(root)
    assert package.problem.multi_pass and package.problem.validation_passes == 3
    outcome = _verify(judge, root)
    assert not _disagree(outcome)
    once = next(s for s in outcome["submissions"] if s["file"].endswith("once.py"))
    assert "pass 2: wrong" in once["message"]


@pytest.mark.parametrize("package", ["problemtools/guess", "domjudge/boolfind",
                                     "domjudge/hangman"])
def test_published_interactive_and_multi_pass_packages(judge, package):
    outcome = _verify(judge, HERE / package)
    assert outcome["submissions"]
    assert not _disagree(outcome)
    folders = {s["folder"] for s in outcome["submissions"]}
    assert {"accepted", "wrong_answer", "time_limit_exceeded"} <= folders


@pytest.mark.pure
def test_the_prompt_of_an_interactive_problem_states_the_protocol_and_no_hidden_data():
    from judge.prompts.programs import render_program_prompt

    problem = read_package(HERE / "guess").problem
    body = render_program_prompt(problem, "python").prompt
    assert "Guess it in at most 10 guesses" in body      # the protocol, from the statement
    assert "interactive" in body and "Flush" in body
    assert "< 500" in body                               # the sample interaction
    assert "437" not in body                             # a secret test's number
    assert "reads the input from standard input and writes the\nanswer" not in body
