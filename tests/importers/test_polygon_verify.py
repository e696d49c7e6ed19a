"""``judge verify`` on Polygon packages (tests/data/polygon), in both sandboxes: every tagged
solution gets its tag's verdict (a standard checker, a testlib checker, a testlib
interactor with a checker reading its tout, groups with points, file I/O), and the scored
problem's solutions get their scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.cli.main import main
from tests.conftest import docker_or_skip
from tests.paths import DATA

POLYGON = DATA / "polygon"
SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]


def _verify(sandbox: str, capsys, *names: str) -> dict:
    if sandbox == "docker":
        docker_or_skip()
    code = main(["verify", *(str(POLYGON / n) for n in names), "--sandbox", sandbox,
                 "--jobs", "2", "--json"])
    outcome = json.loads(capsys.readouterr().out)
    assert code == 0, json.dumps(outcome, indent=1)
    return {p["package"]: {Path(s["file"]).name: s for s in p["submissions"]}
            for p in outcome["packages"]}


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_every_tagged_solution_gets_its_tags_verdict(sandbox, capsys):
    found = _verify(sandbox, capsys, "aplusb", "split", "guess", "fileio")
    verdicts = {(package, name): s["verdict"] for package, subs in found.items()
                for name, s in subs.items()}
    assert verdicts == {
        ("aplusb", "main.py"): "pass", ("aplusb", "ok.py"): "pass",
        ("aplusb", "wa.py"): "wrong_answer", ("aplusb", "tle.py"): "timeout",
        ("aplusb", "crash.py"): "runtime_error",
        ("split", "main.py"): "pass", ("split", "other.py"): "pass",
        ("split", "wa.py"): "wrong_answer",
        ("guess", "main.py"): "pass", ("guess", "linear.py"): "wrong_answer",
        ("guess", "idle.py"): "timeout",
        ("fileio", "main.py"): "pass", ("fileio", "stdout.py"): verdicts[("fileio",
                                                                          "stdout.py")],
    }
    assert verdicts[("fileio", "stdout.py")] != "pass"
    assert all(s["agrees"] for subs in found.values() for s in subs.values())
    assert "testlib interactor" in found["guess"]["linear.py"]["message"]
    assert "more than 10 queries" in found["guess"]["linear.py"]["message"]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_groups_with_points_give_the_scores(sandbox, capsys):
    subs = _verify(sandbox, capsys, "bigsum")["bigsum"]
    scores = {name: (s["verdict"], s["score"], s["max_score"]) for name, s in subs.items()}
    assert scores == {"main.py": ("pass", 100, 100),
                      # overflows on tests 4 and 6 (each-test: 20 each lost), passes small
                      "int32.py": ("wrong_answer", 60, 100),
                      "nothing.py": ("wrong_answer", 0, 100)}
    groups = {g["group"]: g["score"] for g in subs["int32.py"]["groups"]}
    assert groups["small"] == 40 and groups["large"] == 20


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_real_full_package_gets_its_tags(sandbox, capsys):
    """kborozdin/palindromic-length (tests/data/polygon-real, MIT): std::ncmp.cpp as its
    shipped testlib source, a Russian statement, C++ solutions tagged accepted and rejected."""
    if sandbox == "docker":
        docker_or_skip()
    code = main(["verify", str(DATA / "polygon-real" / "palindromes-master"), "--sandbox",
                 sandbox, "--jobs", "2", "--json"])
    outcome = json.loads(capsys.readouterr().out)
    assert code == 0, json.dumps(outcome, indent=1)
    [package] = outcome["packages"]
    got = {Path(s["file"]).name: (s["folder"], s["verdict"], s["agrees"])
           for s in package["submissions"]}
    assert got == {"eertree.cpp": ("accepted", "pass", True),
                   "engine_nlogn.cpp": ("accepted", "pass", True),
                   "series.cpp": ("accepted", "pass", True),
                   "predict_or.cpp": ("rejected", "wrong_answer", True)}
    assert package["time_limit_s"] == 15


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_checker_points_absolute_on_an_unscored_problem_and_percent_on_a_scored_one(
        sandbox, capsys):
    """``quitp(p)``: on an unscored problem (marathon) the test passes carrying p points;
    with ``treat-points-from-checker-as-percent`` (percent) p percent of the test's points.
    A checker's wrong answer is one either way."""
    found = _verify(sandbox, capsys, "marathon", "percent")
    marathon = {name: s["verdict"] for name, s in found["marathon"].items()}
    assert marathon == {"main.py": "pass", "half.py": "pass", "twice.py": "wrong_answer"}
    percent = {name: (s["verdict"], round(s["score"], 3), s["max_score"])
               for name, s in found["percent"].items()}
    # half: 1 of 3, 2 of 5, 5 of 10 on tests worth 10, 10, 20
    assert percent == {"main.py": ("pass", 40, 40), "half.py": ("wrong_answer", 17.333, 40),
                       "twice.py": ("wrong_answer", 0, 40)}
    assert "partially correct" in found["percent"]["half.py"]["message"]


def test_the_points_of_an_unscored_problem_are_on_its_tests():
    from judge.api import Judge

    from judge.importers.polygon import read_package

    problem = read_package(POLYGON / "marathon").problem
    half = (POLYGON / "marathon/solutions/half.py").read_text()
    with Judge(sandbox="process", jobs=1) as judge:
        result = judge.judge(problem, half, language="python")
    assert result.verdict.value == "pass" and result.score is None
    assert [t.points for t in result.tests] == [1, 2, 5]
