"""Task scores from ``judge run`` to ``judge report``, for real: the scored example of
tests/kinds/test_scored_problems.py (a sum group ``easy`` and two IOI ``min`` subtasks
``small`` and ``large`` behind a required sample) and the same problem pass-fail, three
samples per problem and model, judged by the executable in the process sandbox (and in
Docker), then reported under each score mode: model-a's samples each miss a subtask another
solves (70, 50, 50 points), so its IOI 2017+ task score is 100 while its best single sample
scores 70."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import docker_or_skip
from tests.kinds.test_scored_problems import CRASHES, HANGS, PARTIAL, PROBLEM
from tests.paths import ROOT

# model-a: crash on small (easy + large: 70), 32-bit overflow (easy + small: 50),
# hang on large (easy + small: 50); model-b: overflow, hang, overflow (50 each)
SOLUTIONS = {"model-a": [CRASHES, PARTIAL, HANGS], "model-b": [PARTIAL, HANGS, PARTIAL]}


def _judge(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "judge", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd)


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
    folder = tmp_path_factory.mktemp("tasks-%s" % request.param)
    suite, solutions = _suite(folder)
    results = folder / "results.jsonl"
    done = _judge("run", suite, "--solutions", solutions, "--sandbox", request.param,
                  "--jobs", "2", "--output", results, "--progress", "off")
    if done.returncode == 3:
        pytest.skip("the %s sandbox is unavailable here: %s" % (request.param,
                                                                done.stderr[-300:]))
    assert done.returncode == 0, done.stderr[-2000:]
    return folder, results


def _report(folder, *args):
    done = _judge("report", "results.jsonl", *args, cwd=folder)
    assert done.returncode == 0, done.stderr
    return done


def _entry(data, model):
    found = [e for e in data["by_problem"] if e["model"] == model]
    assert len(found) == 1 and found[0]["problem_id"] == "ab_scored", data
    return found[0]


def test_max_subtask_sums_the_best_of_each_subtask_over_the_samples(judged):
    folder, _ = judged
    data = json.loads(_report(folder, "--format", "json").stdout)["task_scores"]
    assert (data["mode"], data["precision"]) == ("max_subtask", 2)
    a = _entry(data, "model-a")
    assert (a["task_score"], a["best_single"], a["max_score"]) == (100.0, 70.0, 100.0)
    assert (a["samples"], a["judged"], a["excluded"]) == (3, 3, [])
    assert [(s["subtask"], s["score"], s["sample"]) for s in a["subtasks"]] == [
        ("easy", 20.0, 0), ("large", 50.0, 0), ("small", 30.0, 1)]
    b = _entry(data, "model-b")
    assert (b["task_score"], b["best_single"]) == (50.0, 50.0)
    assert {s["subtask"]: s["sample"] for s in b["subtasks"]} == {
        "easy": 0, "large": None, "small": 0}
    assert {m["model"]: (m["task_points"], m["best_single_points"], m["max_points"])
            for m in data["by_model"]} == {"model-a": (100.0, 70.0, 100.0),
                                           "model-b": (50.0, 50.0, 100.0)}
    assert "CMS" in data["rule"] and "never counted as 0" in data["rule"]


def test_other_modes_and_the_text_table(judged):
    folder, _ = judged
    best = json.loads(_report(folder, "--format", "json", "--score-mode", "max").stdout)
    a = _entry(best["task_scores"], "model-a")
    assert (a["task_score"], a["sample"]) == (70.0, 0) and "subtasks" not in a
    last = json.loads(_report(folder, "--format", "json", "--score-mode",
                              "max_tokened_last").stdout)
    assert (_entry(last["task_scores"], "model-a")["task_score"],
            _entry(last["task_scores"], "model-a")["sample"]) == (50.0, 2)
    text = _report(folder).stdout
    assert "Task scores (score mode max_subtask)" in text
    assert "easy 20/20 (#0) · large 50/50 (#0) · small 30/30 (#1)" in text
    assert "100/100" in text
    markdown = _report(folder, "--format", "markdown").stdout
    assert "## Task scores (score mode max_subtask)" in markdown


def test_an_unknown_score_mode_is_one_line(judged):
    folder, _ = judged
    done = _judge("report", "results.jsonl", "--score-mode", "max_subtsk", cwd=folder)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("judge report: error: unknown score mode 'max_subtsk' (did you "
                           "mean 'max_subtask'?)\n")
    done = _judge("report", "results.jsonl", "--score-mode", "best", cwd=folder)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "max, max_subtask, max_tokened_last" in done.stderr


def test_a_sample_not_judged_is_left_out_and_said(judged):
    """The same results with model-a's sample 1 as an infrastructure failure (its line made a
    ``sandbox_error``, as the judge writes one: no score, no groups): small's 30 now come
    from sample 2, the report lists sample 1 as left out."""
    folder, results = judged
    rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if (row.get("problem_id"), row.get("model"), row.get("sample")) == (
                "ab_scored", "model-a", 1):
            row["verdict"] = "sandbox_error"
            for key in ("score", "max_score", "groups"):
                row.pop(key, None)
    broken = folder / "broken"
    broken.mkdir(exist_ok=True)
    (broken / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows),
                                          encoding="utf-8")
    data = json.loads(_report(broken, "--format", "json").stdout)["task_scores"]
    a = _entry(data, "model-a")
    assert (a["task_score"], a["judged"], a["samples"], a["excluded"]) == (100.0, 2, 3, [1])
    assert {s["subtask"]: s["sample"] for s in a["subtasks"]} == {
        "easy": 0, "large": 0, "small": 2}
    text = _report(broken).stdout
    assert "(not judged, left out: #1)" in text and "2 of 3" in text
