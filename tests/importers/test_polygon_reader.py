"""``judge import polygon``: Polygon (Codeforces) packages read as program problems, nothing
run (tests/data/polygon, hand-written full packages): the checker mapping (std::wcmp.cpp as
the tokens comparison, a testlib source otherwise), the interactor, groups with points
(complete-group, each-test, dependencies), file I/O, the statement, the solutions' tags; a
standard package without its generated tests is refused naming the files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from judge.errors import InputError
from judge.importers import IMPORTERS
from judge.importers.polygon import read_package, read_packages
from judge.problem.program import load_program as load_program_problem
from judge.problem.scoring import TestOutcome, score_tests
from tests.paths import DATA

pytestmark = pytest.mark.pure

POLYGON = DATA / "polygon"


def _copy(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(POLYGON / name, tmp_path / name, symlinks=True))


def test_the_standard_wcmp_checker_is_the_tokens_comparison_case_sensitive():
    package = read_package(POLYGON / "aplusb")
    problem = package.problem
    assert problem.identifier == "aplusb" and problem.name == "Aplusb"
    assert problem.checker.type == "tokens" and problem.checker.case_sensitive
    assert problem.limits.time_limit_s == 2.0 and problem.limits.memory_mb == 256
    assert [t.stdin_file for t in problem.tests] == ["tests/01", "tests/02", "tests/03"]
    assert [t.expected_file for t in problem.tests][0] == "tests/01.a"
    assert [t.sample for t in problem.tests] == [True, False, False]
    assert problem.samples[0].stdin == "1 2\n" and problem.samples[0].expected == "3\n"
    assert problem.statement == "Add two integers $a$ and $b$."
    assert problem.input_format == "Two integers $a$ and $b$."
    assert problem.contest.stop_at_first_failure and problem.scoring is None
    tags = {s.path.name: (s.folder, s.expected) for s in package.submissions}
    assert tags == {"main.py": ("accepted", None), "ok.py": ("accepted", None),
                    "wa.py": ("wrong_answer", None),
                    "tle.py": ("time_limit_exceeded", None), "crash.py": ("rejected", None)}
    assert all(s.language and s.judged for s in package.submissions)


def test_a_testlib_checker_is_its_shipped_source_and_tex_sections_are_the_statement():
    problem = read_package(POLYGON / "split").problem
    assert problem.checker.type == "testlib" and problem.checker.source == "files/check.cpp"
    assert problem.statement.startswith("Write $n$ as a sum")
    assert problem.output_format.startswith("Two integers")


def test_an_interactor_makes_an_interactive_problem_with_the_testlib_interactor():
    problem = read_package(POLYGON / "guess").problem
    assert problem.interactive
    assert problem.checker.type == "testlib"
    assert problem.checker.interactor == "files/interactor.cpp"
    assert problem.checker.source == "files/check.cpp"
    assert problem.samples == []  # no hidden answer file shown as an interaction


def test_groups_with_points_are_the_scoring_tree_both_policies():
    problem = read_package(POLYGON / "bigsum").problem
    root = problem.scoring
    assert root is not None and root.max_score == 100
    groups = {g.name: g for g in root.walk()}
    assert groups["small"].aggregation == "min" and groups["small"].max_score == 40
    assert groups["small"].require_pass == ["samples"]
    assert groups["large"].aggregation == "sum" and groups["large"].max_score == 60
    assert groups["large"].require_pass == ["small"]
    assert [g.max_score for g in groups["large"].groups] == [20, 20, 20]
    assert [t.group for t in problem.tests] == ["samples", "small", "small", "large/04",
                                                "large/05", "large/06"]
    assert not problem.contest.stop_at_first_failure
    # the arithmetic: failing test 3 (small) loses 40 and, by the dependency, all of large
    def score(*passed: bool) -> float:
        outcomes = {i: TestOutcome(p) for i, p in enumerate(passed)}
        return score_tests(root, problem.tests, outcomes).score

    assert score(True, True, False, True, True, True) == 0
    assert score(True, True, True, False, True, False) == 60
    assert score(True, True, True, True, True, True) == 100
    # small requires the samples to pass; large requires small's tests to pass (they did:
    # a dependency is about the tests of the group named, as Polygon says it)
    assert score(False, True, True, True, True, True) == 60


def test_input_and_output_files_are_the_problems_io():
    problem = read_package(POLYGON / "fileio").problem
    assert problem.io is not None
    assert (problem.io.input_file, problem.io.output_file) == ("input.txt", "output.txt")


def test_import_writes_problem_files_that_load(tmp_path):
    report = IMPORTERS.get("polygon").import_paths([POLYGON], tmp_path / "suite")
    assert not report.issues, report.issues
    assert sorted(Path(p.file).name for p in report.problems) == [
        "aplusb.json", "bigsum.json", "fileio.json", "guess.json", "marathon.json",
        "percent.json", "split.json"]
    for entry in report.problems:
        problem = load_program_problem(entry.file)
        assert problem.tests and all((problem.root / t.stdin_file).is_file()
                                     for t in problem.tests)
    guess = json.loads((tmp_path / "suite/guess.json").read_text())
    assert (tmp_path / "suite" / guess["checker"]["interactor"]).resolve() == \
        (POLYGON / "guess/files/interactor.cpp").resolve()
    assert "runtimes" not in guess  # Polygon runs CPython


def test_a_zip_package_is_extracted_into_the_suite(tmp_path):
    archive = shutil.make_archive(str(tmp_path / "aplusb"), "zip", POLYGON / "aplusb")
    report = IMPORTERS.get("polygon").import_paths([archive], tmp_path / "suite")
    assert not report.issues, report.issues
    problem = load_program_problem(report.problems[0].file)
    assert (problem.root / problem.tests[0].stdin_file).resolve() == \
        (tmp_path / "suite/packages/aplusb/tests/01").resolve()


def test_a_standard_package_without_generated_tests_is_refused_naming_them(tmp_path):
    root = _copy(tmp_path, "aplusb")
    (root / "tests/02").unlink()
    (root / "tests/03").unlink()
    (root / "tests/03.a").unlink()
    with pytest.raises(InputError) as caught:
        read_package(root)
    [issue] = caught.value.issues
    text = str(issue)
    assert issue.file.endswith("problem.xml")
    assert "3 test files not in the package: tests/02, tests/03, tests/03.a" in text
    assert "never runs a package's generators" in text and "\n" not in text


def test_a_missing_checker_source_is_located(tmp_path):
    root = _copy(tmp_path, "split")
    (root / "files/check.cpp").unlink()
    with pytest.raises(InputError) as caught:
        read_package(root)
    assert "the checker's source files/check.cpp is not in the package" in str(caught.value)
    assert "assets/checker/source" in str(caught.value)


def test_an_unknown_tag_is_noted_and_not_verified(tmp_path):
    root = _copy(tmp_path, "aplusb")
    xml = (root / "problem.xml").read_text()
    (root / "problem.xml").write_text(xml.replace('tag="rejected"', 'tag="mystery"'))
    package = read_package(root)
    assert "crash.py" not in {s.path.name for s in package.submissions}
    assert any("tag 'mystery'" in note for note in package.notes)


def test_a_missing_problem_xml_and_a_folder_without_packages_are_located(tmp_path):
    (tmp_path / "empty").mkdir()
    found = read_packages(tmp_path / "empty", tmp_path / "nothing")
    assert [str(i) for i in found.issues] == [
        "%s: no Polygon package here (a folder with problem.xml, or a .zip)"
        % (tmp_path / "empty"), "%s: no such file or folder" % (tmp_path / "nothing")]


def test_a_problem_id_seen_twice_is_an_issue_and_the_first_package_is_kept(tmp_path):
    shutil.copytree(POLYGON / "aplusb", tmp_path / "a" / "aplusb")
    shutil.copytree(POLYGON / "aplusb", tmp_path / "b" / "aplusb")
    result = read_packages(tmp_path / "a", tmp_path / "b" / "aplusb", POLYGON / "split")
    assert [p.identifier for p in result.packages] == [
        read_package(POLYGON / "aplusb").identifier, read_package(POLYGON / "split").identifier]
    assert [i.message for i in result.issues] == [
        "problem id %r is already used by %s" % (result.packages[0].identifier,
                                                 tmp_path / "a" / "aplusb")]
    assert result.issues[0].file == str(tmp_path / "b" / "aplusb")


def test_checker_points_are_absolute_by_default_and_a_percent_when_the_package_says():
    """Polygon's two readings of a checker's ``quitp(p)``: the test's points (its default),
    or p percent of them (``treat-points-from-checker-as-percent``)."""
    marathon = read_package(POLYGON / "marathon").problem
    assert marathon.checker.type == "testlib" and marathon.checker.absolute_points
    assert marathon.checker.max_points is None and marathon.scoring is None
    percent = read_package(POLYGON / "percent").problem
    assert percent.checker.max_points == 100 and not percent.checker.absolute_points
    assert percent.scoring.max_score == 40


def test_absolute_points_out_of_each_tests_maximum():
    from judge.engine.checkers.testlib import POINTS, outcome
    from judge.problem.scoring import per_test_maxima

    bigsum = read_package(POLYGON / "bigsum").problem
    most = per_test_maxima(bigsum.scoring, bigsum.tests)
    # the sample group is worth 0; small (complete-group) 40 a test; large (each-test) 20
    assert [most.get(i) for i in range(6)] == [0.0, 40.0, 40.0, 20.0, 20.0, 20.0]
    half = outcome(POINTS, "points 10 ok", most[3], absolute=True)
    assert (half.verdict.value, half.score, half.points) == ("wrong_answer", 0.5, None)
    assert outcome(POINTS, "points 20", most[3], absolute=True).verdict.value == "pass"
    assert outcome(POINTS, "points 35", most[3], absolute=True).score == 1.0  # capped
    # an unscored problem: the test passes carrying the points
    free = outcome(POINTS, "points 12.5 distinct", None, absolute=True)
    assert (free.verdict.value, free.points, free.failure) == ("pass", 12.5, None)
    for bad in ("points -1", "points 1e7", "points nan"):
        assert outcome(POINTS, bad, None, absolute=True).failure, bad
    # the other reading: out of max_points
    assert outcome(POINTS, "points 50", 100.0).score == 0.5


def test_a_checker_cannot_be_absolute_and_out_of_max_points(tmp_path):
    from judge.problem.program import OutputChecker
    from judge.problem.testlib_rules import checker_issues

    checker = OutputChecker(type="testlib", code="int main(){}", absolute_points=True,
                            max_points=10)
    assert "not both" in checker_issues(checker, "checker", "p.json")[0].message
    tokens = OutputChecker(type="tokens", absolute_points=True)
    assert "absolute_points" in checker_issues(tokens, "checker", "p.json")[0].message
