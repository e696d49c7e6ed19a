"""lm-evaluation-harness end to end, offline: a judge suite as a task (in Python and as a
task folder for --include_path), precomputed replies (a fenced right answer with prose, a
wrong one, a crashing one, a missing one) and the judge as metric."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.paths import ROOT

pytest.importorskip("lm_eval")

import lm_eval  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

from judge.integrations.lm_eval import PrecomputedLM, task_config, write_task  # noqa: E402

PROBLEMS = ["basics_pascal_row", "basics_digital_root", "basics_caesar_shift",
            "basics_balanced_brackets"]


def _optimal(name: str) -> str:
    return json.loads((ROOT / "problems" / "basics" / ("%s.json" % name)).read_text())[
        "optimal_solution"]


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("lm-eval-suite")
    for name in PROBLEMS:
        shutil.copy(ROOT / "problems" / "basics" / ("%s.json" % name), folder)
    return folder


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("lm-eval-outputs") / "outputs.jsonl"
    rows = [
        {"task_id": "basics_caesar_shift",
         "completion": "Sure:\n```python\n%s```\nDone." % _optimal("basics_caesar_shift")},
        {"problem_id": "basics_digital_root",
         "solution": "def digital_root(n):\n    return n % 9\n"},
        {"problem_id": "basics_pascal_row",
         "solution": "def pascal_row(row_index):\n    raise MemoryError\n"},
    ]  # basics_balanced_brackets: no output at all
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _check(results: dict, task: str) -> None:
    scores = results["results"][task]
    assert scores["pass@1,none"] == pytest.approx(1 / 4)
    by_problem = {s["doc"]["problem_id"]: s for s in results["samples"][task]}
    assert set(by_problem) == set(PROBLEMS)
    assert by_problem["basics_caesar_shift"]["pass@1"] == 1.0
    assert by_problem["basics_caesar_shift"]["tests_passed"] == 1.0
    wrong = by_problem["basics_digital_root"]
    assert wrong["pass@1"] == 0.0 and 0 < wrong["tests_passed"] < 1
    assert by_problem["basics_pascal_row"]["tests_passed"] == 0.0
    assert by_problem["basics_balanced_brackets"]["pass@1"] == 0.0
    expected = (1 + wrong["tests_passed"]) / 4
    assert scores["tests_passed,none"] == pytest.approx(expected)


def test_simple_evaluate_with_the_judge_as_metric(suite, outputs, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    task = task_config(str(suite), name="judge_small", sandbox="process")
    results = lm_eval.simple_evaluate(model=PrecomputedLM(outputs), tasks=[task],
                                      log_samples=True, bootstrap_iters=0)
    _check(results, "judge_small")


def test_a_task_folder_for_include_path(suite, outputs, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = write_task(tmp_path / "tasks", str(suite), name="judge_folder", sandbox="process")
    assert path.name == "judge_folder.yaml"
    manager = TaskManager(include_path=str(path.parent), include_defaults=False)
    results = lm_eval.simple_evaluate(
        model="judge-precomputed", model_args="outputs=%s" % outputs, tasks=["judge_folder"],
        task_manager=manager, log_samples=True, bootstrap_iters=0)
    _check(results, "judge_folder")


def test_the_example_runs(tmp_path):
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(ROOT / "examples" / "integrations" /
                                               "lm_eval_precomputed.py"), "--sandbox",
                           "process"], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT),
                                             "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "judge_basics: pass@1 1.000" in done.stdout


def test_repeats_give_pass_at_k(suite, monkeypatch, tmp_path):
    """Two replies per document: pass@1 and pass@2 by the unbiased estimator, per document
    and as means; the task folder carries the same settings."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    wrong = "def nothing():\n    return None\n"
    outputs = {"basics_caesar_shift": [_optimal("basics_caesar_shift"), wrong],
               "basics_digital_root": [wrong, wrong],
               "basics_pascal_row": [_optimal("basics_pascal_row")] * 2,
               "basics_balanced_brackets": [wrong, _optimal("basics_balanced_brackets")]}
    task = task_config(str(suite), name="judge_repeats", sandbox="process", repeats=2)
    results = lm_eval.simple_evaluate(model=PrecomputedLM(outputs), tasks=[task],
                                      log_samples=True, bootstrap_iters=0)
    scores = results["results"]["judge_repeats"]
    assert scores["pass@1,all"] == pytest.approx((0.5 + 0 + 1 + 0.5) / 4)
    assert scores["pass@2,all"] == pytest.approx(3 / 4)
    by_problem = {s["doc"]["problem_id"]: s for s in results["samples"]["judge_repeats"]}
    assert by_problem["basics_caesar_shift"]["pass@1"] == 0.5
    assert by_problem["basics_caesar_shift"]["pass@2"] == 1.0
    text = write_task(tmp_path, str(suite), name="judge_r", sandbox="process",
                      repeats=2).read_text()
    assert "repeats: 2" in text and "take_first_k" in text and "pass@2" in text


def test_the_task_folder_command(suite, tmp_path, capsys):
    from judge.integrations.lm_eval import main

    assert main([str(suite), "--folder", str(tmp_path / "t"), "--sandbox", "process"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["task"] == "judge_%s" % suite.name
    manager = TaskManager(include_path=said["include_path"], include_defaults=False)
    assert said["task"] in manager.all_tasks
