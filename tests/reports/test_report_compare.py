"""Comparing runs (judge report A.jsonl B.jsonl ...), the statistics under it, and the run
metadata and standard errors of the JSON summary. Seeded synthetic runs: where one run is
really better the interval excludes 0 (and McNemar says so); where the runs differ only by
chance it includes 0; the fixed / broke lists are exact."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys

import pytest

from judge.reports.compare import compare, render_comparison
from judge.reports.runs import Run, read_runs
from judge.reports.stats import (
    binomial_se, clustered_se, mcnemar_exact, mean_se, paired_bootstrap, wilson,
)
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure



def _row(problem, verdict, model="m", sample=None, **extra):
    return {"problem_id": problem, "model": model, "prompt_id": None, "sample": sample,
            "verdict": verdict, "passed": int(verdict == "pass"), "total": 1,
            "tests": [{"index": 0, "verdict": verdict, "time_s": 0.001}],
            "sandbox": "process", "time_s": 0.01, **extra}


def _run(label, outcomes):
    """A run from {problem: [verdict per sample]} (or {problem: bool})."""
    rows = []
    for problem, verdicts in outcomes.items():
        if isinstance(verdicts, bool):
            verdicts = ["pass" if verdicts else "wrong_answer"]
        rows += [_row(problem, v, sample=s) for s, v in enumerate(verdicts)]
    return Run(label, label, rows)


def _synthetic(seed, problems, p_base, p_other):
    """Two runs over the same problems; each problem has a difficulty shared by both runs
    (the pairing a bootstrap over problems must respect)."""
    rng = random.Random(seed)
    base, other = {}, {}
    for i in range(problems):
        difficulty = rng.random()
        base["task/%d" % i] = difficulty < p_base
        # most problems keep their difficulty in the other run; some are drawn afresh
        fresh = rng.random() < 0.2
        other["task/%d" % i] = (rng.random() if fresh else difficulty) < p_other
    return _run("base.jsonl", base), _run("other.jsonl", other)


# ---- the statistics ------------------------------------------------------------------------

def test_wilson_interval_known_values():
    assert wilson(1, 2) == pytest.approx((0.0945, 0.9055), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson(81, 100) == pytest.approx((0.7222, 0.8749), abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_standard_errors():
    assert binomial_se(1, 4) == pytest.approx(math.sqrt(0.25 * 0.75 / 4))
    assert binomial_se(0, 0) == 0.0
    assert mean_se([0.0, 1.0]) == pytest.approx(0.5)
    assert mean_se([0.3]) == 0.0
    # equal clusters with no spread between them: nothing beyond what is in them
    assert clustered_se([(10, 5), (10, 5)]) == 0.0
    assert clustered_se([(10, 10), (10, 0)]) == pytest.approx(0.5)


def test_mcnemar_exact_known_values():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(10, 0) == pytest.approx(2 / 1024)
    assert mcnemar_exact(0, 10) == pytest.approx(2 / 1024)
    # two-sided binomial test of 2 in 12 at 1/2 (scipy.stats.binomtest(2, 12).pvalue)
    assert mcnemar_exact(2, 10) == pytest.approx(0.0385742, abs=1e-6)
    assert mcnemar_exact(600, 500) < 0.01  # large counts stay finite


def test_bootstrap_is_deterministic_by_seed():
    rng = random.Random(3)
    diffs = [rng.choice((-1.0, 0.0, 0.0, 1.0)) for _ in range(80)]
    assert paired_bootstrap(diffs, 2000, seed=7) == paired_bootstrap(diffs, 2000, seed=7)
    low, high = paired_bootstrap(diffs, 2000, seed=7)
    assert low <= sum(diffs) / len(diffs) <= high
    assert paired_bootstrap([], 100) == (0.0, 0.0)
    assert paired_bootstrap([0.5] * 10, 100) == (0.5, 0.5)


# ---- comparisons -----------------------------------------------------------------------------

def test_fixed_broke_and_still_failing_are_exact_and_in_natural_order():
    base = _run("a", {"HumanEval/10": False, "HumanEval/2": False, "HumanEval/1": True,
                      "HumanEval/3": True, "HumanEval/4": False, "HumanEval/5": True,
                      "only/base": True})
    other = _run("b", {"HumanEval/10": True, "HumanEval/2": True, "HumanEval/1": False,
                       "HumanEval/3": True, "HumanEval/4": False, "HumanEval/5": True,
                       "only/other": False})
    result = compare(base, other, resamples=500)
    assert result["fixed"] == ["HumanEval/2", "HumanEval/10"]
    assert result["broke"] == ["HumanEval/1"]
    assert result["still_failing"] == ["HumanEval/4"]
    assert result["still_passing"] == 2
    assert result["only_in_baseline"] == ["only/base"]
    assert result["only_in_other"] == ["only/other"]
    assert result["problems"] == 6
    assert result["pass_rate_baseline"] == 0.5 and result["pass_rate_other"] == round(4 / 6, 4)
    assert result["mcnemar"]["fixed"] == 2 and result["mcnemar"]["broke"] == 1
    assert [p["problem_id"] for p in result["per_problem"]][:3] == [
        "HumanEval/1", "HumanEval/2", "HumanEval/3"]
    text = render_comparison(result)
    assert "fixed (2): HumanEval/2, HumanEval/10" in text and "broke (1): HumanEval/1" in text


def test_a_real_difference_excludes_zero():
    base, other = _synthetic(seed=11, problems=200, p_base=0.4, p_other=0.7)
    result = compare(base, other, resamples=4000, seed=0)
    low, high = result["ci95"]
    assert result["difference"] > 0.2
    assert 0 < low <= result["difference"] <= high
    assert result["significant"] is True
    assert result["mcnemar"]["fixed"] > 3 * result["mcnemar"]["broke"]
    assert result["mcnemar"]["p_value"] < 1e-6
    # the same runs, reversed: the same interval, mirrored
    reverse = compare(other, base, resamples=4000, seed=0)
    assert reverse["fixed"] == result["broke"] and reverse["broke"] == result["fixed"]
    assert reverse["ci95"][1] < 0


def test_no_real_difference_includes_zero():
    # both runs drawn from the same per-problem chances: any difference is noise
    base, other = _synthetic(seed=2, problems=150, p_base=0.55, p_other=0.55)
    result = compare(base, other, resamples=4000, seed=0)
    low, high = result["ci95"]
    assert low < 0 < high, result["ci95"]
    assert result["significant"] is False
    assert result["mcnemar"]["p_value"] > 0.05


def test_the_interval_is_calibrated_over_many_seeded_runs():
    """Not one lucky seed: of 60 seeded pairs of runs with no real difference, about 95 % of
    the intervals hold 0 (and McNemar rarely rejects); of 60 with a real one, all exclude 0."""
    null_covered = null_rejected = real_excluded = 0
    for seed in range(60):
        base, other = _synthetic(seed, problems=60, p_base=0.5, p_other=0.5)
        result = compare(base, other, resamples=400, seed=seed)
        null_covered += result["ci95"][0] <= 0 <= result["ci95"][1]
        null_rejected += result["mcnemar"]["p_value"] < 0.05
        base, other = _synthetic(1000 + seed, problems=60, p_base=0.4, p_other=0.7)
        real_excluded += compare(base, other, resamples=400, seed=seed)["ci95"][0] > 0
    assert null_covered >= 51, null_covered  # 85 %: 95 % less sampling noise of 60 runs
    assert null_rejected <= 9, null_rejected
    assert real_excluded == 60, real_excluded


def test_swaps_that_cancel_give_exactly_zero_and_an_interval_around_it():
    base = _run("a", {"p%d" % i: i % 2 == 0 for i in range(40)})
    flipped = {"p%d" % i: (i % 2 == 0) != (i < 10) for i in range(40)}  # 5 fixed, 5 broke
    result = compare(base, _run("b", flipped), resamples=2000)
    assert result["difference"] == 0.0
    assert len(result["fixed"]) == len(result["broke"]) == 5
    assert result["ci95"][0] < 0 < result["ci95"][1]
    assert result["mcnemar"]["p_value"] == 1.0


def test_several_samples_a_problem_is_solved_by_majority():
    base = _run("a", {"p1": ["pass", "wrong_answer", "wrong_answer"],
                      "p2": ["pass", "pass", "wrong_answer"],
                      "p3": ["pass", "sandbox_error", "sandbox_error"]})
    other = _run("b", {"p1": ["pass", "pass", "timeout"], "p2": ["pass", "pass", "pass"],
                       "p3": ["sandbox_error"]})
    result = compare(base, other, resamples=200)
    assert result["fixed"] == ["p1"] and result["broke"] == [] and result["still_failing"] == []
    assert [p["problem_id"] for p in result["per_problem"]] == ["p1", "p2"]
    assert result["only_in_baseline"] == ["p3"]  # judged only there (sandbox errors elsewhere)
    assert result["difference"] == pytest.approx(round(((2 / 3 - 1 / 3) + (1 - 2 / 3)) / 2, 4))


# ---- through the command line ------------------------------------------------------------------

def _judge(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "judge", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=300)


def _write(path, run, header=None):
    lines = ([json.dumps({"run": header})] if header else [])
    lines += [json.dumps(row) for row in run.rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_report_compares_files_as_json_deterministically(tmp_path):
    base, other = _synthetic(seed=11, problems=120, p_base=0.4, p_other=0.7)
    a, b = _write(tmp_path / "a.jsonl", base), _write(tmp_path / "b.jsonl", other)
    first = _judge("report", a, b, "--format", "json", "--bootstrap", "3000")
    assert first.returncode == 0, first.stderr
    again = _judge("report", a, b, "--format", "json", "--bootstrap", "3000")
    data, data_again = json.loads(first.stdout), json.loads(again.stdout)
    assert data["comparisons"] == data_again["comparisons"]
    (comparison,) = data["comparisons"]
    expected = compare(read_runs([a])[0][0], read_runs([b])[0][0], 3000, 0)
    assert comparison["ci95"] == expected["ci95"] and comparison["fixed"] == expected["fixed"]
    assert comparison["ci95"][0] > 0 and comparison["baseline"] == "a.jsonl"
    # both runs summarized, each row saying its run; the table form says the comparison too
    assert {m["run"] for m in data["by_model"]} == {"a.jsonl", "b.jsonl"}
    assert [r["run"] for r in data["runs"]] == ["a.jsonl", "b.jsonl"]
    table = _judge("report", a, b, "--bootstrap", "3000")
    assert table.returncode == 0
    assert "b.jsonl vs a.jsonl (baseline) on 120 problems" in table.stdout
    assert "excludes 0" in table.stdout and "McNemar exact test" in table.stdout
    assert "a.jsonl: 120 candidates, 120 problems; sandbox process (120)" in table.stdout
    assert "--bootstrap" in _judge("report", "--help").stdout


def test_json_summary_has_run_metadata_and_standard_errors(tmp_path):
    facts = {"backend": "docker", "isolated": True, "user": "65534", "network": "none",
             "image": "judge-python:abc123"}
    rows = [_row("HumanEval/%d" % i, "pass" if i % 3 else "timeout", model=m, sample=s,
                 sandbox="docker", sandbox_isolation=facts, isolation="batch",
                 judged_with="jw%d" % i, language="python")
            for i in (10, 2, 1) for m in ("m2", "m1") for s in range(2)]
    rows[1]["duplicate_of"] = 1
    header = {"judge_version": "9.9.9", "command": "judge run suite --solutions s.jsonl",
              "date": "2026-01-02T03:04:05+00:00", "limits": {"time_limit_s": 2.0}}
    path = _write(tmp_path / "run.jsonl", Run("x", "x", rows), header)
    done = _judge("report", path, "--format", "json")
    assert done.returncode == 0, done.stderr  # the header line is no bad line
    data = json.loads(done.stdout)
    (meta,) = data["runs"]
    assert meta["judge_version"] == "9.9.9" and meta["command"].startswith("judge run")
    assert meta["date"] == "2026-01-02T03:04:05+00:00"
    assert meta["limits"] == {"time_limit_s": 2.0}
    assert meta["sandbox_backend"] == "docker" and meta["image"] == "judge-python:abc123"
    assert meta["isolated"] is True and meta["network"] == "none"
    assert meta["test_isolation"] == "batch (12)" and "1 results reused" in meta["dedup"]
    assert meta["models"] == ["m1", "m2"] and meta["problems"] == 3
    assert len(meta["suite_fingerprint"]) == 16 and meta["file_modified"]
    assert "Wilson" in data["intervals"]
    for model in data["by_model"]:
        assert {"stderr", "ci95", "stderr_clustered", "pass@1_stderr", "pass@2_stderr"} <= set(
            model)
        assert model["ci95"][0] <= model["pass_rate"] <= model["ci95"][1]
    # one row per problem per model, problems in natural order
    assert [(r["problem_id"], r["model"]) for r in data["by_problem"]] == [
        (p, m) for p in ("HumanEval/1", "HumanEval/2", "HumanEval/10") for m in ("m1", "m2")]
    assert all("stderr" in r and "ci95" in r for r in data["by_problem"])


def test_metadata_not_recorded_is_null_and_fingerprint_follows_judged_with(tmp_path):
    rows = [_row("p1", "pass", judged_with="aaa"), _row("p2", "pass", judged_with="bbb")]
    (run,), _ = read_runs([_write(tmp_path / "r.jsonl", Run("r", "r", rows))])
    meta = run.metadata
    assert meta["judge_version"] is None and meta["command"] is None and meta["limits"] is None
    changed = [dict(rows[0]), dict(rows[1], judged_with="ccc")]
    (other,), _ = read_runs([_write(tmp_path / "s.jsonl", Run("s", "s", changed))])
    assert other.metadata["suite_fingerprint"] != meta["suite_fingerprint"]
    (same,), _ = read_runs([_write(tmp_path / "t.jsonl", Run("t", "t", rows[::-1]))])
    assert same.metadata["suite_fingerprint"] == meta["suite_fingerprint"]


def test_compare_models_within_a_file_and_choose_the_baseline(tmp_path):
    rows = [_row("p%d" % i, "pass" if i < 4 else "wrong_answer", model="old") for i in range(8)]
    rows += [_row("p%d" % i, "pass" if i != 1 else "timeout", model="new") for i in range(8)]
    path = _write(tmp_path / "both.jsonl", Run("x", "x", rows))
    done = _judge("report", path, "--compare-models", "--baseline", "old", "--format", "json",
                  "--bootstrap", "500")
    assert done.returncode == 0, done.stderr
    (comparison,) = json.loads(done.stdout)["comparisons"]
    assert (comparison["baseline"], comparison["other"]) == ("old", "new")
    assert comparison["fixed"] == ["p4", "p5", "p6", "p7"] and comparison["broke"] == ["p1"]
    # models in natural order otherwise: "new" is the baseline
    done = _judge("report", path, "--compare-models", "--format", "json", "--bootstrap", "500")
    (comparison,) = json.loads(done.stdout)["comparisons"]
    assert comparison["baseline"] == "new" and comparison["fixed"] == ["p1"]
    # a baseline that is not there is a usage error naming what is
    done = _judge("report", path, "--compare-models", "--baseline", "nope")
    assert done.returncode == 2 and "there are: new, old" in done.stderr
    # a single file without --compare-models compares nothing
    assert "comparisons" not in json.loads(_judge("report", path, "--format", "json").stdout)
