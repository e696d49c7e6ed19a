"""Scored problems from ``judge run`` to ``judge report``, for real: the scored example of
tests/kinds/test_scored_problems.py (three groups: a sum group and two min subtasks behind a
required sample) and the same problem pass-fail, judged by the executable in the process
sandbox and in Docker, then reported as JSON (scores, groups, score@k) and as an HTML page
opened in headless Chromium from file:// (the scores table and cells render; no request
leaves the page)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from tests.conftest import docker_or_skip
from tests.kinds.test_scored_problems import CRASHES, FULL, HANGS, PARTIAL, PROBLEM
from tests.reports.test_report_html import _chromium, _judge, _outside, needs_chromium

SOLUTIONS = {"model-a": [FULL, PARTIAL, CRASHES], "model-b": [PARTIAL, HANGS, PARTIAL]}


def _suite(folder: Path) -> tuple[Path, Path]:
    suite = folder / "suite"
    suite.mkdir()
    (suite / "ab_scored.json").write_text(json.dumps(PROBLEM), encoding="utf-8")
    plain = copy.deepcopy(PROBLEM)
    plain["identifier"] = "ab_plain"
    del plain["scoring"]
    (suite / "ab_plain.json").write_text(json.dumps(plain), encoding="utf-8")
    solutions = folder / "solutions.jsonl"
    with open(solutions, "w", encoding="utf-8") as out:
        for problem in ("ab_scored", "ab_plain"):
            for model, codes in SOLUTIONS.items():
                for sample, code in enumerate(codes):
                    out.write(json.dumps({"problem_id": problem, "model": model,
                                          "sample": sample, "solution": code}) + "\n")
    return suite, solutions


@pytest.fixture(scope="module", params=["process", pytest.param("docker",
                                                                marks=pytest.mark.docker)])
def judged(request, tmp_path_factory):
    if request.param == "docker":
        docker_or_skip()
    folder = tmp_path_factory.mktemp("scored-%s" % request.param)
    suite, solutions = _suite(folder)
    results = folder / "results.jsonl"
    done = _judge("run", suite, "--solutions", solutions, "--sandbox", request.param,
                  "--jobs", "2", "--output", results, "--format", "json", "--progress", "off")
    if done.returncode == 3:
        pytest.skip("the %s sandbox is unavailable here: %s" % (request.param,
                                                                done.stderr[-300:]))
    assert done.returncode == 0, done.stderr[-2000:]
    return folder, results, json.loads(done.stdout)


def _find(rows, **match):
    found = [r for r in rows if all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (match, rows)
    return found[0]


def test_judge_run_and_report_show_the_scores(judged):
    folder, results, run_summary = judged
    done = _judge("report", results.name, "--format", "json", cwd=folder)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for data in (run_summary, report):  # judge run's summary is the same report
        a = _find(data["by_model"], model="model-a")
        # model-a: 100 (full), 50 (overflow: large lost), 70 (crash: small lost)
        assert (a["scored_problems"], a["score"], a["points"], a["max_points"]) == (
            1, 0.7333, 73.3333, 100.0)
        assert (a["score@2"], a["score@3"]) == (0.9, 1.0)
        b = _find(data["by_model"], model="model-b")  # overflow, hang (large lost), overflow
        assert (b["score"], b["score@2"], b["score@3"]) == (0.5, 0.5, 0.5)
        row = _find(data["by_problem"], problem_id="ab_scored", model="model-a")
        assert {g["group"]: g["points"] for g in row["groups"]} == {
            "easy": 20.0, "large": 33.3333, "small": 20.0}
        plain = _find(data["by_problem"], problem_id="ab_plain", model="model-a")
        assert "score" not in plain and "points" not in plain
        assert (plain["passed"], plain["candidates"]) == (1, 3)
        assert "score_at_k" in data


@needs_chromium
def test_the_scored_report_renders_in_chromium_without_network(judged, tmp_path):
    folder, results, _ = judged
    page = folder / "report.html"
    done = _judge("report", results.name, "--html", page.name, cwd=folder)
    assert done.returncode == 0, done.stderr
    dom, requested = _chromium(page, "--dump-dom", tmp=tmp_path)
    assert _outside(requested) == []
    table = re.search(r'<table class="scores">(.*?)</table>', dom, re.S)
    assert table, "no scores table in the DOM"
    assert "73.33/100" in table.group(1) and "large 33.33/50 (67% whole)" in table.group(1)
    assert "ab_plain" not in table.group(1)
    assert dom.count(" pts</span>") == 2  # the scored problem's two cells in the matrix
    assert "<th>score@2</th>" in dom and "score 70/100" in dom
