"""testlib checkers judged for real, in the process sandbox and in Docker: testlib's own
checkers (wcmp, dcmp, yesno, as the installed rbx-cp package ships them beside testlib.h:
real checkers no one here wrote) accepting any of several right answers; a hand-written
checker with partial points (``quitp``, ``_pc``) and every exit code mapped; hostile
candidates (huge, binary, no newline) always getting a candidate verdict; a checker that
crashes, hangs or floods is a problem error, never the candidate's verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.candidates.submission import Submission
from judge.engine.checkers.testlib import installed_header
from judge.engine.verdicts import Verdict
from judge.problem.program import program_from_data
from judge.running.executor import Executor
from judge.sandbox.base import Limits

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
HEADER = installed_header()
pytestmark = pytest.mark.skipif(HEADER is None, reason="no testlib.h installed: "
                                "pip install --no-deps rbx-cp (scripts/test.sh)")


def _real_checker(name: str) -> str:
    """One of testlib's own checkers, as the package that ships testlib.h ships it."""
    return (HEADER.parent / "checkers" / name).read_text()


#: a checker whose behaviour the candidate's first token picks: every testlib outcome, and
#: the checker's own failures (crash, hang, flood) for an output crafted against it
MODES = r"""
#include "testlib.h"
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int n = inf.readInt();
    std::string word = ouf.readToken();
    std::string want = ans.readToken();
    if (word == "crash") std::abort();
    if (word == "hang") { volatile long i = 0; while (true) i++; }
    if (word == "flood") { std::string s(65536, 'x'); while (true) std::fputs(s.c_str(), stdout); }
    if (word == "shout") { std::string s(65536, 'y'); while (true) std::fputs(s.c_str(), stderr); }
    if (word == "fail") quitf(_fail, "the jury's answer %s is wrong", want.c_str());
    if (word == "pe") quitf(_pe, "a number was wanted");
    if (word == "half") quitp(n / 2.0, "half of %d", n);
    if (word == "pc") quitf(_pc(3), "three points");
    if (word == "most") quitp(n, "all of it");
    if (word == "more") quitp(n * 10, "too many");
    if (word == "exit5") _exit(5);  // past testlib's own atexit check
    if (word == want) quitf(_ok, "the answer is %s", want.c_str());
    quitf(_wa, "expected %s, found %s", want.c_str(), word.c_str());
}
"""


@pytest.fixture(scope="module", params=SANDBOXES)
def executor(request):
    from judge.languages.sandbox import for_languages
    from judge.sandbox import open_sandbox

    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    box = for_languages(open_sandbox(request.param, 2), 2)
    ex = Executor(box, Limits(time_limit_s=2.0))
    yield ex
    ex.close()
    box.close()


def _problem(tmp: Path, checker: dict, tests: list[dict], **extra):
    data = {"kind": "program", "identifier": "p", "statement": "x", "tests": tests,
            "checker": checker, "limits": {"time_limit_s": 2, "output_kb": 256},
            "validator_limits": {"time_limit_s": 2, "output_kb": 64}}
    data.update(extra)
    return program_from_data(data, str(tmp / "p.json"), tmp)


def _python(code: str) -> Submission:
    return Submission(code, "", None, "python")


# ---- testlib's own checkers: any of several right answers --------------------------------------

def test_real_checkers_accept_any_right_answer(executor, tmp_path):
    """dcmp accepts a number within 1e-6 written any way; yesno any case of YES; wcmp any
    spacing of the same words, and each rejects a wrong answer with testlib's message."""
    for name in ("dcmp.cpp", "yesno.cpp", "wcmp.cpp"):
        (tmp_path / name).write_text(_real_checker(name))
    # a checker file alone: testlib.h is not beside it, the judge supplies the installed one
    third = _problem(tmp_path, {"type": "testlib", "source": "dcmp.cpp"},
                     [{"name": "t1", "stdin": "1 3\n", "expected": "0.333333333\n"}])
    for code in ("print(1/3)", "print('%.7f' % (1/3))", "print('3.333333e-1', end='')"):
        result = executor.judge(third, _python(code))
        assert result.verdict is Verdict.PASS, (code, result.message)
    wrong = executor.judge(third, _python("print(0.3334)"))
    assert wrong.verdict is Verdict.WRONG_ANSWER
    assert "wrong answer (testlib checker)" in wrong.message and "0.3334" in wrong.message
    assert not wrong.problem_errors

    yes = _problem(tmp_path, {"type": "testlib", "source": "yesno.cpp"},
                   [{"name": "t1", "stdin": "4\n", "expected": "YES\n"}])
    for answer in ("YES", "yes", "yEs"):
        assert executor.judge(yes, _python("print(%r)" % answer)).verdict is Verdict.PASS
    no = executor.judge(yes, _python("print('NO')"))
    assert no.verdict is Verdict.WRONG_ANSWER and "YES" in no.message

    words = _problem(tmp_path, {"type": "testlib", "source": "wcmp.cpp"},
                     [{"name": "t1", "stdin": "x\n", "expected": "hello big world\n"}])
    assert executor.judge(words, _python("print('hello\\n  big\\tworld', end='')")).verdict \
        is Verdict.PASS
    assert executor.judge(words, _python("print('hello small world')")).verdict \
        is Verdict.WRONG_ANSWER


# ---- every exit code, partial points, the checker's failures ----------------------------------

#: candidate's first token -> (verdict, score, text in the message, a problem error)
CASES = {
    "42": (Verdict.PASS, None, None, False),
    "41": (Verdict.WRONG_ANSWER, None, "wrong answer (testlib checker): expected 42, found 41",
           False),
    "pe": (Verdict.WRONG_ANSWER, None, "presentation error (testlib checker): a number was "
           "wanted", False),
    "half": (Verdict.WRONG_ANSWER, 0.5, "partially correct: score 0.5 (4 of 8 points, testlib "
             "checker): points 4.0 half of 8", False),
    "pc": (Verdict.WRONG_ANSWER, 0.375, "partially correct: score 0.375 (3 of 8 points", False),
    "most": (Verdict.PASS, 1.0, None, False),
    "fail": (Verdict.WRONG_ANSWER, None, "testlib checker failed: FAIL: the jury's answer 42 "
             "is wrong", True),
    "more": (Verdict.WRONG_ANSWER, None, "testlib checker failed: gave 80 points, outside 0..8",
             True),
    "exit5": (Verdict.WRONG_ANSWER, None, "testlib checker failed: exit code 5", True),
    "crash": (Verdict.WRONG_ANSWER, None, "testlib checker failed: killed by signal", True),
    "hang": (Verdict.WRONG_ANSWER, None, "testlib checker failed: timed out", True),
    "flood": (Verdict.WRONG_ANSWER, None, "testlib checker failed: wrote more than its output "
              "limit", True),
    "shout": (Verdict.WRONG_ANSWER, None, "testlib checker failed: wrote more than its output "
              "limit", True),
}


def test_every_outcome_of_a_testlib_checker(executor, tmp_path):
    """One compile of the checker (the compile cache); each candidate's output picks an
    outcome."""
    (tmp_path / "modes.cpp").write_text(MODES)
    for word, (verdict, score, text, problem_error) in CASES.items():
        one = _problem(tmp_path, {"type": "testlib", "source": "modes.cpp", "max_points": 8},
                       [{"name": word, "stdin": "8\n", "expected": "42\n"}])
        result = executor.judge(one, _python("print(%r)" % word))
        test = result.tests[0]
        assert test.verdict is verdict, (word, test.message)
        assert test.score == score, (word, test.score)
        if text is not None:
            assert text in test.message, (word, test.message)
            assert len(test.message) < 600
        assert bool(result.problem_errors) is problem_error, (word, result.problem_errors)
        if score is not None:
            assert result.to_json()["tests"][0]["score"] == score


# ---- hostile candidates: always a candidate verdict --------------------------------------------

def test_hostile_output_gets_a_candidate_verdict(executor, tmp_path):
    (tmp_path / "wcmp.cpp").write_text(_real_checker("wcmp.cpp"))
    (tmp_path / "modes.cpp").write_text(MODES)
    words = _problem(tmp_path, {"type": "testlib", "source": "wcmp.cpp"},
                     [{"name": "t1", "stdin": "x\n", "expected": "3\n"}])
    modes = _problem(tmp_path, {"type": "testlib", "source": "modes.cpp"},
                     [{"name": "t1", "stdin": "8\n", "expected": "42\n"}])
    # binary, NUL bytes, no newline at all
    binary = "import sys\nsys.stdout.buffer.write(bytes(range(256)) * 200)\n"
    for problem in (words, modes):
        result = executor.judge(problem, _python(binary))
        assert result.verdict is Verdict.WRONG_ANSWER, result.message
        assert not result.problem_errors, result.problem_errors
    # one token of 250 KB without a newline (under the output limit): read, rejected
    long_token = "import sys\nsys.stdout.write('7' * 250000)\n"
    result = executor.judge(words, _python(long_token))
    assert result.verdict is Verdict.WRONG_ANSWER and not result.problem_errors
    # past the candidate's output limit: its own verdict, the checker never sees it
    huge = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    result = executor.judge(words, _python(huge))
    assert result.verdict is Verdict.OUTPUT_LIMIT, result.message
    # the right answer without its newline is still right
    assert executor.judge(words, _python("print(3, end='')")).verdict is Verdict.PASS
    # text that reads like testlib's own verdicts is only the candidate's output
    forged = "print('ok 1 number(s)')\nimport sys\nsys.stderr.write('ok\\n')\nsys.exit(0)\n"
    result = executor.judge(words, _python(forged))
    assert result.verdict is Verdict.WRONG_ANSWER and not result.problem_errors


def test_a_checker_that_does_not_compile_is_a_problem_error(executor, tmp_path):
    (tmp_path / "bad.cpp").write_text('#include "testlib.h"\nint main( { }\n')
    problem = _problem(tmp_path, {"type": "testlib", "source": "bad.cpp"},
                       [{"name": "t1", "stdin": "1\n", "expected": "1\n"}])
    result = executor.judge(problem, _python("print(1)"))
    assert result.verdict is Verdict.WRONG_ANSWER
    assert "testlib checker failed: does not compile" in result.message
    assert result.problem_errors
