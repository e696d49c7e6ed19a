"""testlib interactors (the Codeforces/Polygon protocol) judged for real, in the process
sandbox and in Docker: a hand-written testlib guessing game (``registerInteraction``: the
secret from ``inf``, the guesses from ``ouf``, replies on standard output, the number of
guesses to ``tout``) with accepted guessers in seven languages and hostile ones (wrong
answers, CPU and wall-clock timeouts, crashes, floods, forging the protocol, closing the
pipes early, forking to keep them open): always a candidate verdict, never the
interactor's failure. A checker reading ``tout`` (Polygon: ``checker input tout answer``)
decides the tests the interactor accepts. An interactor that FAILs, crashes, exits with
another code, hangs or floods is a problem error, never a hang of the judge; ``quitp``
gives a partial score, and scored problems (test groups, IOI subtasks) add it up."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.candidates.submission import Submission
from judge.engine.checkers.testlib import installed_header
from judge.engine.verdicts import Verdict
from judge.errors import InputError
from judge.problem.program import program_from_data
from judge.running.executor import Executor
from judge.sandbox.base import Limits
from tests.paths import DATA

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
GUESS = DATA / "interactive" / "guess" / "submissions"
HEADER = installed_header()
pytestmark = pytest.mark.skipif(HEADER is None, reason="no testlib.h installed: "
                                "pip install --no-deps rbx-cp (scripts/test.sh)")

#: the guessing game: the test's input is the secret and a mode (how this interactor
#: misbehaves on that test, for the problem-error tests); up to 20 guesses, each answered
#: "lower", "higher" or "correct"; the number of guesses goes to tout for the checker
INTERACTOR = r"""
#include "testlib.h"
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <unistd.h>
int main(int argc, char* argv[]) {
    registerInteraction(argc, argv);
    int secret = inf.readInt(1, 1000, "secret");
    std::string mode = inf.seekEof() ? "play" : inf.readToken();
    for (int i = 1; i <= 20; i++) {
        int guess = ouf.readInt(1, 1000, "guess");
        if (mode == "fail") quitf(_fail, "the secret %d is not the jury's", secret);
        if (mode == "crash") std::abort();
        if (mode == "exit5") _exit(5);
        if (mode == "hang") { std::cout << "lower" << std::endl; volatile long x = 0; while (true) x++; }
        if (mode == "sleep") { std::cout << "lower" << std::endl; sleep(1000); }
        if (mode == "flood") { std::string s(65536, 'x'); while (true) std::fputs(s.c_str(), stdout); }
        if (guess == secret) {
            std::cout << "correct" << std::endl;
            tout << i << std::endl;
            if (mode == "bigtout") tout << std::string(1 << 21, 't') << std::endl;
            if (mode == "half") quitp(0.5, "half marks for %d guesses", i);
            quitf(_ok, "guessed %d in %d guesses", secret, i);
        }
        std::cout << (guess > secret ? "lower" : "higher") << std::endl;
    }
    quitf(_wa, "twenty guesses, no luck");
}
"""

#: Polygon's checker of an interactive problem: ``checker input tout answer``; the answer
#: is the most guesses allowed
CHECKER = r"""
#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int used = ouf.readInt(1, 20, "guesses");
    int most = ans.readInt();
    if (used > most) quitf(_wa, "%d guesses, at most %d", used, most);
    quitf(_ok, "%d guesses", used);
}
"""

SECRETS = (1, 437, 1000)

# ---- hostile guessers written here (the others are the Kattis guessing game's) ---------------

CPP_WRONG = r"""
#include <iostream>
#include <string>
int main() {  // always 1: right on the first test, twenty misses on the next
    std::string reply;
    while (true) {
        std::cout << 1 << std::endl;
        if (!(std::cin >> reply) || reply == "correct") return 0;
    }
}
"""
CPP_IDLE = "#include <unistd.h>\nint main() { sleep(1000); }\n"
CPP_CRASH = r"""
#include <cstdio>
#include <cstdlib>
int main() { std::printf("500\n"); std::fflush(stdout); char r[16]; std::scanf("%15s", r); std::abort(); }
"""
CPP_FLOOD = r"""
#include <cstdio>
#include <string>
int main() { std::string s(1 << 16, '7'); while (true) std::fputs(s.c_str(), stdout); }
"""
CPP_CLOSES = r"""
#include <cstdio>
#include <unistd.h>
int main() { std::printf("500\n"); std::fflush(stdout); close(1); close(0); sleep(1000); }
"""
PY_FLOOD = "import sys\nwhile True:\n    sys.stdout.write('1' * 65536)\n"
PY_FORGE = "print('correct')\nprint('ok guessed it')\nimport sys\nsys.exit(0)\n"
PY_FORK = ("import os, sys, time\nprint(500, flush=True)\nif os.fork() == 0:\n"
           "    os.setsid()\n    time.sleep(1000)\nsys.exit(0)\n")
# thirds instead of halves: every secret found within 20 guesses, some after more than 10
PY_SLOW = """lo, hi = 1, 1000
while True:
    mid = lo + (hi - lo) // 3
    print(mid, flush=True)
    reply = input().strip()
    if reply == "correct":
        break
    if reply == "lower":
        hi = mid - 1
    else:
        lo = mid + 1
"""


@pytest.fixture(scope="module", params=SANDBOXES)
def executor(request):
    from judge.languages.sandbox import for_languages
    from judge.sandbox import open_sandbox

    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    box = for_languages(open_sandbox(request.param, 2), 2)
    ex = Executor(box, Limits(time_limit_s=1.0))
    yield ex
    ex.close()
    box.close()


def _problem(tmp: Path, tests: list[tuple[str, str]], checker: bool = False,
             inline: bool = False, **checker_fields):
    """The guessing game: ``tests`` as (interactor input, answer) pairs."""
    fields: dict = {"type": "testlib"}
    if inline:
        fields["interactor_code"] = INTERACTOR
    else:
        (tmp / "interactor.cpp").write_text(INTERACTOR)
        fields["interactor"] = "interactor.cpp"
    if checker:
        (tmp / "checker.cpp").write_text(CHECKER)
        fields["source"] = "checker.cpp"
    fields.update(checker_fields)
    data = {"kind": "program", "identifier": "guess", "statement": "Guess the number.",
            "interactive": True, "checker": fields, "limits": {"time_limit_s": 1},
            "validator_limits": {"time_limit_s": 5, "output_kb": 64},
            "tests": [{"name": "t%d" % (i + 1), "stdin": given, "expected": answer}
                      for i, (given, answer) in enumerate(tests)]}
    return program_from_data(data, str(tmp / "guess.json"), tmp)


def _game(tmp: Path, **kwargs):
    return _problem(tmp, [("%d\n" % s, "10\n") for s in SECRETS], **kwargs)


def _run(executor, problem, code: str, language: str):
    return executor.judge(problem, Submission(code, "", None, language))


def _file(name: str) -> tuple[str, str]:
    path = next(GUESS.rglob(name))
    language = {".py": "python", ".cpp": "cpp", ".c": "c", ".go": "go", ".java": "java",
                ".rs": "rust", ".js": "javascript"}[path.suffix]
    return path.read_text(), language


def _candidate_verdict(result, *allowed: Verdict) -> None:
    """A verdict of the candidate's own: one of ``allowed``, never the interactor's
    failure."""
    assert result.verdict in allowed, (result.verdict, result.message)
    assert not result.problem_errors, result.problem_errors
    assert "interactor failed" not in (result.message or "")


# ---- the guessing game -------------------------------------------------------------------------

def test_accepted_guessers_in_seven_languages(executor, tmp_path):
    problem = _game(tmp_path)
    for name in ("guess.py", "guess.cpp", "guess.c", "guess.go", "guess.rs", "Guess.java",
                 "guess.js"):
        result = _run(executor, problem, *_file(name))
        assert result.verdict is Verdict.PASS, (name, result.verdict, result.message)
        assert result.passed == 3 and not result.problem_errors


def test_wrong_answers_are_the_interactors_rejection(executor, tmp_path):
    problem = _game(tmp_path)
    for code, language in (_file("linear.py"), (CPP_WRONG, "cpp")):
        result = _run(executor, problem, code, language)
        _candidate_verdict(result, Verdict.WRONG_ANSWER)
        assert "wrong answer (testlib interactor): twenty guesses, no luck" in result.message
    # testlib's own message for what is not a guess (forging the replies, or a bare EOF)
    forged = _run(executor, problem, *_file("forge.cpp"))
    _candidate_verdict(forged, Verdict.WRONG_ANSWER)
    assert "Expected integer, but \"correct\" found" in forged.message
    forged = _run(executor, problem, PY_FORGE, "python")
    _candidate_verdict(forged, Verdict.WRONG_ANSWER)
    assert "presentation error (testlib interactor)" in forged.message


def test_timeouts_idlers_and_crashes_are_the_candidates(executor, tmp_path):
    problem = _game(tmp_path)
    for code, language in (_file("spin.cpp"), _file("idle.py"), (CPP_IDLE, "cpp")):
        result = _run(executor, problem, code, language)
        _candidate_verdict(result, Verdict.TIMEOUT)
    for code, language in (_file("crash.py"), (CPP_CRASH, "cpp")):
        result = _run(executor, problem, code, language)
        _candidate_verdict(result, Verdict.RUNTIME_ERROR)


def test_hostile_guessers_get_a_verdict_of_their_own(executor, tmp_path):
    """Megabytes without a newline (testlib gives up on a token past 32 MB: the candidate
    is stopped by its limits first, or rejected), closing the pipes early, a child that
    keeps them open after the guesser exits."""
    problem = _game(tmp_path)
    for code, language in (_file("flood.go"), (CPP_FLOOD, "cpp"), (PY_FLOOD, "python")):
        result = _run(executor, problem, code, language)
        _candidate_verdict(result, Verdict.WRONG_ANSWER, Verdict.TIMEOUT)
    for code, language in (_file("closes.py"), _file("fork_holds.c"), (PY_FORK, "python")):
        result = _run(executor, problem, code, language)
        _candidate_verdict(result, Verdict.WRONG_ANSWER)
        assert "Unexpected end of file" in result.message, result.message
    result = _run(executor, problem, CPP_CLOSES, "cpp")
    _candidate_verdict(result, Verdict.WRONG_ANSWER, Verdict.TIMEOUT)


# ---- with a checker reading tout ---------------------------------------------------------------

def test_a_checker_reads_what_the_interactor_wrote(executor, tmp_path):
    problem = _game(tmp_path, checker=True)
    accepted = _run(executor, problem, *_file("guess.cpp"))
    assert accepted.verdict is Verdict.PASS, accepted.message
    # the interactor accepts every test (20 guesses are enough), the checker allows 10
    slow = _run(executor, problem, PY_SLOW, "python")
    _candidate_verdict(slow, Verdict.WRONG_ANSWER)
    assert "wrong answer (testlib checker):" in slow.message, slow.message
    assert "guesses, at most 10" in slow.message
    assert [t.verdict for t in slow.tests][0] is Verdict.PASS  # 1 is its first guess
    # a rejection by the interactor stands: the checker never sees that test
    linear = _run(executor, problem, *_file("linear.py"))
    assert linear.verdict is Verdict.WRONG_ANSWER
    assert "testlib interactor" in linear.message
    # a tout past the interactor's output limit (64 KiB here) is the problem's error
    big = _problem(tmp_path, [("437 bigtout\n", "10\n")], checker=True)
    result = _run(executor, big, *_file("guess.py"))
    assert result.verdict is Verdict.WRONG_ANSWER and "interactor failed" in result.message
    assert result.problem_errors
    # inline source (what a dataset record would carry) is the same interactor
    inline = _game(tmp_path, checker=True, inline=True)
    assert _run(executor, inline, *_file("guess.py")).verdict is Verdict.PASS


def test_points_from_the_interactor(executor, tmp_path):
    problem = _problem(tmp_path, [("437 half\n", "10\n")])
    result = _run(executor, problem, *_file("guess.py"))
    assert result.verdict is Verdict.WRONG_ANSWER
    assert result.tests[0].score == 0.5
    assert "partially correct: score 0.5" in result.message
    assert "testlib interactor" in result.message and not result.problem_errors


def test_a_scored_problem_with_a_testlib_interactor(executor, tmp_path):
    # two subtasks over the guessing game: "easy" sums its tests (20 points each), "hard"
    # is an IOI subtask (the minimum over its tests x 60); the interactor's quitp(0.5) is
    # half of a test's points, as a testlib checker's partial points are
    (tmp_path / "interactor.cpp").write_text(INTERACTOR)
    tests = [("easy/1", "1\n"), ("easy/2", "437 half\n"), ("hard/1", "1000\n"),
             ("hard/2", "437 half\n")]
    data = {"kind": "program", "identifier": "guess-scored", "statement": "Guess.",
            "interactive": True, "checker": {"type": "testlib", "interactor": "interactor.cpp"},
            "limits": {"time_limit_s": 1},
            "validator_limits": {"time_limit_s": 5, "output_kb": 64},
            "tests": [{"name": name, "group": name.split("/")[0], "stdin": given,
                       "expected": "10\n"} for name, given in tests],
            "scoring": {"max_score": 100, "aggregation": "sum",
                        "groups": [{"name": "easy", "max_score": 40, "aggregation": "sum"},
                                   {"name": "hard", "max_score": 60, "aggregation": "min"}]}}
    problem = program_from_data(data, str(tmp_path / "guess.json"), tmp_path)
    result = _run(executor, problem, *_file("guess.py"))
    assert not result.problem_errors, result.problem_errors
    groups = {g["group"]: g["score"] for g in result.groups}
    assert groups == {"": 60.0, "easy": 30.0, "hard": 30.0}, result.groups
    assert result.score == 60.0 and result.max_score == 100.0
    assert [t.score for t in result.tests] == [None, 0.5, None, 0.5]  # None: full marks

    # always guesses 1: right on easy/1 only, so "easy" gets 20 and the subtask "hard" 0
    wrong = _run(executor, problem, CPP_WRONG, "cpp")
    assert wrong.score == 20.0 and not wrong.problem_errors, (wrong.groups, wrong.message)
    assert wrong.verdict is Verdict.WRONG_ANSWER


# ---- interactors that misbehave: a problem error, never the candidate's verdict ----------------

@pytest.mark.parametrize("mode,why", [
    ("fail", "FAIL: the secret 437 is not the jury's"),
    ("crash", "killed by signal"),
    ("exit5", "exit code 5"),
    ("hang", "interactor failed"),
    ("sleep", "did not end after the candidate did"),
    ("flood", "interactor failed"),
])
def test_an_interactor_that_misbehaves_is_a_problem_error(executor, tmp_path, mode, why):
    problem = _problem(tmp_path, [("437 %s\n" % mode, "10\n")])
    for code, language in (_file("guess.py"), _file("guess.cpp")):
        result = _run(executor, problem, code, language)
        first = result.tests[0]
        assert first.verdict is Verdict.WRONG_ANSWER, (mode, first.verdict, first.message)
        assert "interactor failed" in first.message and why in first.message, first.message
        assert result.problem_errors and "interactor failed" in result.problem_errors[0]


def test_an_interactor_that_does_not_compile_is_a_problem_error(executor, tmp_path):
    (tmp_path / "broken.cpp").write_text('#include "testlib.h"\nint main( {\n')
    problem = program_from_data(
        {"kind": "program", "identifier": "b", "statement": "x", "interactive": True,
         "checker": {"type": "testlib", "interactor": "broken.cpp"},
         "tests": [{"name": "t1", "stdin": "5\n"}]}, str(tmp_path / "b.json"), tmp_path)
    result = _run(executor, problem, *_file("guess.py"))
    assert result.verdict is Verdict.WRONG_ANSWER
    assert "interactor failed: does not compile" in result.message
    assert result.problem_errors


# ---- the declaration ------------------------------------------------------------------------------

@pytest.mark.parametrize("change,why", [
    ({"interactive": False}, "a testlib interactor is for interactive problems"),
    ({"checker": {"type": "testlib", "source": "interactor.cpp"}},
     "or a testlib checker with its interactor"),
    ({"checker": {"type": "testlib", "interactor": "interactor.cpp", "interactor_code": "x"}},
     "not both"),
    ({"checker": {"type": "testlib", "interactor": "missing.cpp"}}, "not found"),
    ({"checker": {"type": "tokens", "interactor": "interactor.cpp"}},
     "only apply to a testlib checker"),
    ({"multi_pass": True}, "a multi-pass problem needs a validator checker"),
])
def test_what_the_declaration_refuses(tmp_path, change, why):
    (tmp_path / "interactor.cpp").write_text(INTERACTOR)
    data = {"kind": "program", "identifier": "g", "statement": "x", "interactive": True,
            "checker": {"type": "testlib", "interactor": "interactor.cpp"},
            "tests": [{"name": "t1", "stdin": "5\n"}]}
    data.update(change)
    with pytest.raises(InputError) as caught:
        program_from_data(data, str(tmp_path / "g.json"), tmp_path)
    assert why in str(caught.value), str(caught.value)


# ---- how an interactor's end reads (no sandbox) ------------------------------------------------

def test_testlib_exit_codes_in_the_interactive_rules():
    from judge.engine.checkers.testlib_interactor import testlib_reading
    from judge.engine.interaction import CANDIDATE, INTERACTOR, verdict
    from judge.engine.program_verdicts import ValidatorRun

    read = testlib_reading()

    def run(code, said="", **fields):
        return ValidatorRun(exit_code=code, stderr=said, **fields)

    assert read(run(0, "ok guessed")).check.verdict is Verdict.PASS
    assert read(run(1, "wrong answer too many")).rejected == \
        "wrong answer (testlib interactor): too many"
    assert "presentation error" in read(run(2, "wrong output format x")).rejected
    assert read(run(3, "FAIL bad test")).failure == "FAIL: bad test"
    assert read(run(7, "points 0.25 a quarter")).check.score == 0.25
    assert "exit code 9" in read(run(9)).failure
    assert "signal 6" in read(run(None, signal=6)).failure
    timeout = (Verdict.TIMEOUT, "over the time limit")
    # the interactor's rejection first wins; the candidate's own end first wins next
    assert verdict(timeout, run(1, "wrong answer no"), INTERACTOR, False, "1", read).verdict \
        is Verdict.WRONG_ANSWER
    assert verdict(timeout, run(2, "unexpected eof"), CANDIDATE, False, "1", read).verdict \
        is Verdict.TIMEOUT
    # FAIL is never the candidate's: a problem error even after the candidate's crash
    failed = verdict((Verdict.RUNTIME_ERROR, "crash"), run(3, "FAIL x"), INTERACTOR, False,
                     "1", read)
    assert failed.problem_error == "test 1: interactor failed: FAIL: x"
    # an interactor that outlives the candidate and is stopped: a problem error
    hung = verdict(timeout, run(None, signal=9), CANDIDATE, True, "1", read)
    assert hung.problem_error and "did not end after the candidate did" in hung.problem_error
    assert verdict(None, run(0), CANDIDATE, False, "1", read).verdict is Verdict.PASS
