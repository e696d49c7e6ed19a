"""Small things a new user trips over (issue 24): `judge --version`, a problem by its
identifier in the API, help on every positional, no empty headings when nothing was judged,
and `judge validate` rejecting a reference solution that does not parse, without --run."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import judge
from judge.cli.main import build_parser
from judge.errors import UnknownName
from tests.paths import ROOT

PROBLEM = ROOT / "problems" / "basics" / "basics_pascal_row.json"
GOOD = ("def pascal_row(row_index):\n    row = [1]\n    for k in range(row_index):\n"
        "        row.append(row[-1] * (row_index - k) // (k + 1))\n    return row\n")


def _cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_version():
    done = _cli("--version")
    assert done.returncode == 0 and done.stdout.strip() == "judge %s" % judge.__version__


def _positionals(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("judge",)):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _positionals(sub, path + (name,))
        elif not action.option_strings:
            yield path, action


def test_every_positional_has_help():
    found = list(_positionals(build_parser()))
    assert len(found) > 10
    missing = [" ".join(path) + " " + action.dest for path, action in found if not action.help]
    assert not missing, missing


def _broken(tmp_path: Path, solution: str) -> Path:
    data = json.loads(PROBLEM.read_text(encoding="utf-8"))
    data["optimal_solution"] = solution
    target = tmp_path / "suite" / PROBLEM.name
    target.parent.mkdir(exist_ok=True)
    target.write_text(json.dumps(data), encoding="utf-8")
    return target.parent


@pytest.mark.parametrize("solution, says", [
    ("def pascal_row(row_index):\n    return [1\n", "does not parse (line 2"),
    ("def pascal_row(n):\n    return " + "(" * 5000 + "1" + ")" * 5000 + "\n", "does not parse"),
    ("import os\nos.system('touch /tmp/judge-validate-ran')\ndef pascal_row(:\n", "line 3"),
])
def test_validate_rejects_a_reference_that_does_not_parse_without_running(tmp_path, solution,
                                                                         says):
    marker = Path("/tmp/judge-validate-ran")
    marker.unlink(missing_ok=True)
    done = _cli("validate", _broken(tmp_path, solution))
    assert done.returncode == 1, done.stdout + done.stderr
    assert says in done.stderr and "optimal_solution" in done.stderr
    assert "Traceback" not in done.stderr
    assert not marker.exists()  # parsed, never executed


def test_validate_still_accepts_the_shipped_suites():
    done = _cli("validate", ROOT / "problems")
    assert done.returncode == 0, done.stderr


def test_a_problem_by_its_identifier(tmp_path):
    with judge.Judge(sandbox="process") as j:
        assert j.judge("basics_pascal_row", GOOD).verdict == "pass"  # the shipped suites
        with pytest.raises(UnknownName, match="did you mean 'basics_pascal_row'"):
            j.judge("basics_pascal_rwo", GOOD)
        results = list(j.judge_many([("basics_pascal_row", GOOD), ("basics_pascal_row", "def pascal_row(:")]))
        assert [r.verdict.value for r in results] == ["pass", "compile_error"]
    # a suite of one's own: looked up there (and only there)
    suite = tmp_path / "mine"
    suite.mkdir()
    data = json.loads(PROBLEM.read_text(encoding="utf-8"))
    data["identifier"] = "my_pascal"
    (suite / "my_pascal.json").write_text(json.dumps(data), encoding="utf-8")
    shutil.copy(PROBLEM, suite / "other.json")
    with judge.Judge(sandbox="process", suite=suite) as j:
        assert j.judge("my_pascal", GOOD).problem_id == "my_pascal"
        with pytest.raises(UnknownName):
            j.judge("basics_digital_root", GOOD)


def test_no_empty_headings_when_nothing_was_judged(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    for fmt in ("table", "markdown"):
        shown = _cli("report", empty, "--format", fmt)
        assert shown.returncode == 0, shown.stderr
        assert "0 candidates: none" in shown.stdout
        assert "Per model" not in shown.stdout and "Per problem" not in shown.stdout
    page = _cli("report", empty, "--format", "html")
    assert page.returncode == 0 and "Nothing was judged." in page.stdout
    for section in ("verdicts", "pass-at-k", "times", "matrix"):
        assert 'id="%s"' % section not in page.stdout, section
    run = _cli("run", PROBLEM, "--solutions", empty, "--sandbox", "process", "--no-output")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines() == [
        "0 candidates: none",
        "coverage: 0 of 1 problems have candidates (1 have none: rates are over the covered "
        "problems only)"]
