"""judge.passk + judge.reports: the pass@k estimator, summaries and their renderings."""

from __future__ import annotations

import json
from math import comb

import pytest

from judge.scoring.passk import ks_for, mean_pass_at_k, pass_at_k
from judge.reports.tables import FORMATS, read_results, render, summarize

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure


# ---- pass@k ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n, c, k, expected", [
    (10, 3, 1, 0.3),
    (10, 3, 2, 0.53333),
    (10, 3, 5, 0.91667),
    (200, 1, 100, 0.5),
    (10, 0, 5, 0.0),
    (10, 10, 1, 1.0),
    (1, 1, 1, 1.0),
    (1, 0, 1, 0.0),
])
def test_pass_at_k_values(n, c, k, expected):
    assert round(pass_at_k(n, c, k), 5) == expected


def test_pass_at_k_matches_the_combinatorial_definition():
    for n in range(1, 16):
        for c in range(0, n + 1):
            for k in range(1, n + 1):
                exact = 1 - comb(n - c, k) / comb(n, k)
                assert pass_at_k(n, c, k) == pytest.approx(exact, abs=1e-12), (n, c, k)


def test_pass_at_k_is_exactly_one_when_every_draw_must_hit():
    assert pass_at_k(10, 8, 3) == 1.0  # n - c = 2 < k
    assert pass_at_k(5, 3, 3) == 1.0
    assert pass_at_k(5, 3, 2) < 1.0


@pytest.mark.parametrize("n, c, k", [(10, 11, 1), (10, -1, 1), (10, 3, 0), (10, 3, 11),
                                     (0, 0, 1), (5, 2, -1)])
def test_pass_at_k_rejects_bad_arguments(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_ks_for():
    assert ks_for(1) == [1]
    assert ks_for(3) == [1, 2, 3]
    assert ks_for(10) == list(range(1, 11))
    assert ks_for(11) == [1, 2, 5, 10]
    assert ks_for(20) == [1, 2, 5, 10, 20]
    assert ks_for(200) == [1, 2, 5, 10, 20, 50, 100, 200]


def test_mean_pass_at_k():
    assert mean_pass_at_k([(10, 3), (10, 10)], 1) == pytest.approx((0.3 + 1.0) / 2)
    assert mean_pass_at_k([], 1) == 0.0


# ---- summarize ---------------------------------------------------------------------------------

def row(problem, model, verdict, sample=None):
    return {"problem_id": problem, "model": model, "sample": sample, "verdict": verdict,
            "passed": 0, "total": 1, "tests": [], "sandbox": "process", "time_s": 0.0}


def test_summary_single_sample_has_no_pass_at_k_columns():
    summary = summarize([row("p1", "m", "pass"), row("p2", "m", "wrong_answer")])
    (model,) = summary.by_model
    assert model == {"model": "m", "problems": 2, "candidates": 2, "passed": 1, "pass_rate": 0.5,
                     "stderr": 0.3536, "ci95": [0.0945, 0.9055]}  # Wilson, sqrt(.25/2)
    assert not any(key.startswith("pass@") for key in model)
    assert summary.by_problem == [
        {"problem_id": "p1", "model": "m", "candidates": 1, "passed": 1, "pass_rate": 1.0,
         "stderr": 0.0, "ci95": [0.2065, 1.0], "top_failure": "-"},
        {"problem_id": "p2", "model": "m", "candidates": 1, "passed": 0, "pass_rate": 0.0,
         "stderr": 0.0, "ci95": [0.0, 0.7935], "top_failure": "wrong_answer"},
    ]


def test_summary_with_several_samples_has_pass_at_k():
    rows = []
    for problem, correct in (("p1", 3), ("p2", 0)):
        for sample in range(10):
            rows.append(row(problem, "m", "pass" if sample < correct else "timeout", sample))
    (model,) = summarize(rows).by_model
    assert model["pass@1"] == round((0.3 + 0.0) / 2, 4)
    assert model["pass@2"] == round((pass_at_k(10, 3, 2) + 0) / 2, 4)
    assert model["pass@10"] == 0.5
    assert [k for k in model if k.startswith("pass@") and not k.endswith("_stderr")] == [
        "pass@%d" % k for k in range(1, 11)]
    assert model["pass@1_stderr"] == 0.15  # sd(0.3, 0.0) / sqrt(2 problems)
    assert model["pass@10_stderr"] == 0.5


def test_sandbox_errors_are_excluded_from_rates_and_counted_apart():
    rows = [row("p1", "m", "pass", 0), row("p1", "m", "sandbox_error", 1),
            row("p2", "m", "wrong_answer", 0), row("p2", "m", "sandbox_error", 1),
            row("p3", "other", "sandbox_error")]
    summary = summarize(rows)
    assert summary.candidates == 5
    assert summary.sandbox_errors == 3
    assert summary.verdicts == {"sandbox_error": 3, "pass": 1, "wrong_answer": 1}
    (model,) = summary.by_model  # "other" had only sandbox errors: nothing to rate
    assert model["candidates"] == 2 and model["pass_rate"] == 0.5
    assert not any(key.startswith("pass@") for key in model)  # one judged sample each
    assert [p["problem_id"] for p in summary.by_problem] == ["p1", "p2"]
    assert summary.by_problem[0]["pass_rate"] == 1.0
    assert summary.by_problem[1]["top_failure"] == "wrong_answer"


def test_models_and_problems_are_sorted_and_missing_model_is_dash():
    summary = summarize([row("b", "z", "pass"), row("a", None, "pass"), row("c", "a", "pass")])
    assert [m["model"] for m in summary.by_model] == ["-", "a", "z"]
    assert [p["problem_id"] for p in summary.by_problem] == ["a", "b", "c"]


def test_problems_in_natural_order_one_row_per_problem_and_model():
    ids = ["HumanEval/10", "HumanEval/2", "HumanEval/1", "HumanEval/100", "Other/3"]
    rows = [row(p, m, "pass") for p in ids for m in ("m2", "m1")]
    summary = summarize(rows)
    assert [(p["problem_id"], p["model"]) for p in summary.by_problem] == [
        (p, m) for p in ("HumanEval/1", "HumanEval/2", "HumanEval/10", "HumanEval/100",
                         "Other/3") for m in ("m1", "m2")]


def test_empty_summary():
    summary = summarize([])
    assert summary.candidates == 0 and summary.by_model == [] and summary.by_problem == []
    assert "0 candidates: none" in render(summary, "table")
    assert "Per model" not in render(summary, "table")  # no empty headings


# ---- render ------------------------------------------------------------------------------------

@pytest.fixture
def summary():
    rows = [row("p1", "m", "pass", s) for s in range(2)]
    rows += [row("p2", "m", "wrong_answer", 0), row("p2", "m", "pass", 1)]
    rows.append(row("p2", "m", "sandbox_error", 2))
    return summarize(rows)


def test_formats_listed():
    assert FORMATS == ("table", "markdown", "json", "html")


def test_render_table(summary):
    text = render(summary, "table")
    assert "Per model" in text and "Per problem" in text
    assert "pass@1" in text and "pass@2" in text
    assert "0.7500" in text  # pass_rate of m: 3 of 4 judged
    assert "5 candidates: pass 3, wrong_answer 1, sandbox_error 1" in text
    assert "1 sandbox errors are not counted against candidates" in text


def test_render_markdown(summary):
    text = render(summary, "markdown")
    assert "## Per model" in text and "## Per problem" in text
    header = next(line for line in text.splitlines() if line.startswith("| model"))
    assert "pass_rate" in header and "pass@2" in header
    assert any(line.startswith("|---") or line.startswith("|:--") for line in text.splitlines())


def test_render_json(summary):
    data = json.loads(render(summary, "json"))
    assert data["candidates"] == 5 and data["sandbox_errors"] == 1
    assert data["by_model"][0]["pass@1"] == 0.75
    assert {p["problem_id"] for p in data["by_problem"]} == {"p1", "p2"}


def test_render_html_escapes(summary):
    text = render(summary, "html")
    assert "<h2>Per model</h2>" in text and "<table>" in text
    assert text.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in text
    hostile = summarize([row("<i>p</i>", "<script>alert(1)</script>", "pass")])
    html = render(hostile, "html")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<i>p</i>" not in html


def test_render_unknown_format(summary):
    with pytest.raises(ValueError, match="unknown format"):
        render(summary, "xml")


# ---- read_results ------------------------------------------------------------------------------

def test_read_results_reports_bad_lines(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(b"\n".join([
        json.dumps(row("p1", "m", "pass")).encode(),
        b"{broken",
        b"",
        json.dumps({"problem_id": "p2"}).encode(),
        b"[1, 2]",
        b'{"problem_id": "\xff", "verdict": "pass"}',
        json.dumps(row("p3", "m", "timeout")).encode(),
    ]) + b"\n")
    rows, issues = read_results(path)
    assert [r["problem_id"] for r in rows] == ["p1", "p3"]
    assert [i.line for i in issues] == [2, 4, 5, 6]
    assert all(i.file == str(path) for i in issues)
    assert "not a JSON line" in issues[0].message
    assert "needs problem_id and verdict" in issues[1].message
