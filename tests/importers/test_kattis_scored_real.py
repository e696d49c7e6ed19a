"""``judge verify`` with default flags on real packages nobody here wrote
(tests/data/kattis-real, see its README): problemtools' ``oddecho`` (a scoring problem with
legacy grading keys and a ``partially_accepted`` submission), the package format's 2025-09
``scoring`` and ``passfail`` examples, and DOMjudge's samples-only ``hello``. Every
submission gets its folder's verdict, or its score, in both sandboxes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.cli.main import main
from tests.conftest import docker_or_skip
from tests.paths import DATA

REAL = DATA / "kattis-real"
SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]


def _verify(sandbox: str, capsys, *names: str) -> dict:
    if sandbox == "docker":
        docker_or_skip()
    code = main(["verify", *(str(REAL / n) for n in names), "--sandbox", sandbox,
                 "--jobs", "2", "--json"])
    outcome = json.loads(capsys.readouterr().out)
    assert code == 0, json.dumps(outcome, indent=1)
    return {p["package"]: p for p in outcome["packages"]}


def _by_name(package: dict) -> dict:
    return {Path(s["file"]).name: s for s in package["submissions"]}


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_the_scoring_examples_get_their_scores(sandbox, capsys):
    found = _verify(sandbox, capsys, "oddecho", "scoring", "passfail")
    odd = _by_name(found["oddecho"])
    assert {k: (v["agrees"], v["score"], v["max_score"]) for k, v in odd.items()} == {
        "echo.cpp": (True, 100.0, 100.0), "js.py": (True, 100.0, 100.0),
        "sol.py": (True, 50.0, 100.0)}  # subtask1 (n = 5) only: 50 of its 50 points
    groups = {g["group"]: g["score"] for g in odd["sol.py"]["groups"]}
    assert groups == {"secret": 50.0, "secret/subtask1": 50.0, "secret/subtask2": 0.0}
    assert odd["sol.py"]["folder"] == "partially_accepted"
    assert "scored 50 of 100, as expected" in odd["sol.py"]["message"]
    scoring = _by_name(found["scoring"])
    assert {k: (v["verdict"], v["agrees"], v["score"]) for k, v in scoring.items()} == {
        "solution.py": ("pass", True, 100.0),
        "partial_solution.py": ("wrong_answer", True, 30.0),  # |x|: the positive subtask
        "constant.py": ("wrong_answer", True, 0.0)}
    assert any("draft's spelling" in line for line in found["scoring"]["log"])
    passfail = _by_name(found["passfail"])
    assert {k: (v["verdict"], v["agrees"]) for k, v in passfail.items()} == {
        "solution.py": ("pass", True), "constant.py": ("wrong_answer", True),
        "wrong.py": ("wrong_answer", True)}
    assert all("score" not in s for s in found["passfail"]["submissions"])


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_domjudges_samples_only_hello_is_judged_on_its_sample(sandbox, capsys):
    hello = _verify(sandbox, capsys, "hello")["hello"]
    got = {k: (v["verdict"], v["agrees"]) for k, v in _by_name(hello).items()}
    assert got == {
        "test-hello.py": ("pass", True), "test-hello.c": ("pass", True),
        "test-hello.cc": ("pass", True), "multifile-py": ("pass", True),
        "test-output-nonewline.c": ("wrong_answer", True),
        "test-hello-nullbyte.c": ("wrong_answer", True),
        "test-exitcode.py": ("runtime_error", True), "test-sigsegv.c": ("runtime_error", True),
        "test-sleep.py": ("timeout", True), "test-timelimit.c": ("timeout", True)}
    assert "no secret test cases (no data/secret folder): judged on its 1 sample" in \
        hello["log"]
