"""testlib's exit codes and messages read into verdicts and scores, and the testlib checker
declared in a problem file (what is refused, located). Pure: nothing is run."""

from __future__ import annotations

import pytest

from judge.engine.checkers.testlib import HEADER, checker_sources, installed_header, outcome
from judge.engine.verdicts import Verdict
from judge.errors import InputError
from judge.kinds.program.kind import ProgramKind
from judge.problem.program import program_from_data

pytestmark = pytest.mark.pure


@pytest.mark.parametrize("code, said, verdict, score, text, failure", [
    (0, "ok 3 numbers", Verdict.PASS, None, "", None),
    (1, "wrong answer expected 5, found 6", Verdict.WRONG_ANSWER, None,
     "wrong answer (testlib checker): expected 5, found 6", None),
    (2, "wrong output format Unexpected end of file", Verdict.WRONG_ANSWER, None,
     "presentation error (testlib checker): Unexpected end of file", None),
    (4, "", Verdict.WRONG_ANSWER, None, "presentation error (extra output)", None),
    (8, "unexpected eof x", Verdict.WRONG_ANSWER, None, "unexpected end of the output", None),
    (7, "points 0.25 a quarter", Verdict.WRONG_ANSWER, 0.25,
     "partially correct: score 0.25 (0.25 of 1 points, testlib checker): points 0.25 a quarter",
     None),
    (7, "points 1", Verdict.PASS, 1.0, "", None),
    (7, "points 0", Verdict.WRONG_ANSWER, 0.0, "partially correct: score 0", None),
    (16 + 0, "partially correct (0) none", Verdict.WRONG_ANSWER, 0.0, "score 0", None),
    (3, "FAIL answer file is broken", Verdict.WRONG_ANSWER, None, "", "FAIL: answer file is "
     "broken"),
    (7, "points_info=abc", Verdict.WRONG_ANSWER, None, "", "without a number of points"),
    (7, "points 2", Verdict.WRONG_ANSWER, None, "", "gave 2 points, outside 0..1"),
    (5, "", Verdict.WRONG_ANSWER, None, "", "exit code 5 (testlib's are"),
])
def test_exit_codes(code, said, verdict, score, text, failure):
    found = outcome(code, said)
    assert found.verdict is verdict
    assert found.score == score
    assert text in found.message
    if failure is None:
        assert found.failure is None
    else:
        assert failure in found.failure


def test_partial_points_on_the_checkers_scale_and_a_bounded_message():
    found = outcome(16 + 3, "partially correct (3) three of four", max_points=4)
    assert found.score == 0.75 and found.verdict is Verdict.WRONG_ANSWER
    assert outcome(7, "points 4", max_points=4).verdict is Verdict.PASS
    flood = outcome(1, "wrong answer " + "x" * 100000)
    assert len(flood.message) < 400


def _problem(tmp_path, checker, **extra):
    data = {"kind": "program", "identifier": "p", "statement": "x",
            "tests": [{"stdin": "1\n", "expected": "1\n"}], "checker": checker}
    data.update(extra)
    return program_from_data(data, str(tmp_path / "p.json"), tmp_path)


def test_the_declaration_and_what_it_refuses(tmp_path):
    (tmp_path / "chk.cpp").write_text('#include "testlib.h"\nint main() {}\n')
    problem = _problem(tmp_path, {"type": "testlib", "source": "chk.cpp", "max_points": 100})
    assert problem.checker.max_points == 100
    bad = [({"type": "testlib"}, "needs its C++ source"),
           ({"type": "testlib", "source": "chk.cpp", "code": "x"}, "one of them"),
           ({"type": "testlib", "source": "missing.cpp"}, "not found"),
           ({"type": "tokens", "code": "x"}, "only apply to a testlib checker"),
           ({"type": "testlib", "code": "x", "max_points": 0}, "greater than 0")]
    for checker, why in bad:
        with pytest.raises(InputError) as caught:
            _problem(tmp_path, checker)
        assert why in str(caught.value), (checker, str(caught.value))
    # a float tolerance never turns a testlib checker into a token comparison
    loose = problem.with_float_tolerance(1e-6)
    assert loose.checker.type == "testlib" and loose.checker.source == "chk.cpp"
    # inline in a request (judge serve), a checker program is refused
    with pytest.raises(InputError) as caught:
        ProgramKind().inline({"kind": "program", "identifier": "p", "statement": "x",
                              "tests": [{"stdin": "1\n", "expected": "1\n"}],
                              "checker": {"type": "testlib", "code": "int main(){}"}})
    assert "runs a program (testlib)" in str(caught.value)


def test_the_problems_own_testlib_h_comes_first(tmp_path):
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "check.cpp").write_text('#include "testlib.h"\nint main() {}\n')
    (folder / HEADER).write_text("// the package's own testlib.h\n")
    problem = _problem(tmp_path, {"type": "testlib", "source": "files/check.cpp"})
    sources = checker_sources(problem, problem.checker)
    assert sources[HEADER] == "// the package's own testlib.h\n"
    inline = _problem(tmp_path, {"type": "testlib", "code": "int main() {}"})
    if installed_header() is not None:
        sources = checker_sources(inline, inline.checker)
        assert "registerTestlibCmd" in sources[HEADER] and "checker.cpp" in sources


def test_only_a_checker_that_may_give_points_runs_past_the_contest_rules_first_failure():
    """The worker stops a checker's job at its first non-zero exit unless the checker's own
    source can give points (a ``quitp`` may be a pass): testlib.h, which defines them all,
    is not what decides."""
    from judge.engine.checkers.testlib import HEADER, _may_give_points

    header = {HEADER: "void quitp(double points) {}\n#define _pc(n) (16 + n)\n"}
    plain = 'quitf(_ok, "%d numbers", n);\nquitf(_wa, "no");\n'
    assert not _may_give_points({"check.cpp": plain, **header})
    for gives in ("quitp(0.5);", 'quitf(_pc(40), "part");', "quitpi(3);",
                  'quit(_points, "10");'):
        assert _may_give_points({"check.cpp": plain + gives, **header}), gives
    assert _may_give_points({"check.cpp": plain, "lib/score.h": "quitp(1.0);", **header})
