"""judge report on scored problems (judge.reports.scores, judge.scoring.passk.max_at_k).

The estimator of score@k (the expected best of k samples, CMS 'max' / IOI 2010-2016) is
checked against brute force over every k-subset and for unbiasedness by exact enumeration
over every sample of a small distribution; the reports are made from real results lines
(``data/scored_results.jsonl``: the scored example of tests/kinds/test_scored_problems.py
and the same problem without ``scoring``, judged once in the process sandbox by ``judge
run``: model-a full / 32-bit overflow / crash, model-b overflow / hang in Python and the
overflow in C++). A pass-fail suite's report is unchanged, key for key and line for line.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
import subprocess
import sys
from math import comb, prod
from pathlib import Path

import pytest

from judge.reports.html import render_html
from judge.reports.runs import Run, read_run
from judge.reports.scores import SCORE_AT_K, groups_text, model_row, problem_row
from judge.reports.tables import FORMATS, merge, read_results, render, summarize
from judge.scoring.passk import max_at_k, pass_at_k
from tests.paths import ROOT

#: starts no sandbox, server or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

DATA = Path(__file__).resolve().parent / "data" / "scored_results.jsonl"
SCORE_KEYS = {"score", "score_stderr", "points", "max_score", "groups", "scored_problems",
              "max_points"}


def _rows() -> list[dict]:
    rows, issues = read_results(DATA)
    assert not issues and len(rows) == 12
    return rows


def _unscored(rows: list[dict]) -> list[dict]:
    """The same results as a pass-fail judge writes them: no score, max_score, groups."""
    rows = copy.deepcopy(rows)
    for row in rows:
        for key in ("score", "max_score", "groups"):
            row.pop(key, None)
    return rows


def _find(rows: list[dict], **match) -> dict:
    found = [r for r in rows if all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]


# ---- the estimator -------------------------------------------------------------------------

def _brute(values: list[float], k: int) -> float:
    subsets = list(itertools.combinations(values, k))
    assert len(subsets) == comb(len(values), k)
    return sum(max(s) for s in subsets) / len(subsets)


def test_max_at_k_is_the_mean_best_of_every_k_subset():
    rng = random.Random(7)
    checked = 0
    for n in range(1, 9):
        for trial in range(6):
            # ties on purpose (0, 1 and repeated partial scores), unsorted
            values = [rng.choice([0.0, 0.0, 0.25, 0.5, 0.7, 1.0, rng.random()])
                      for _ in range(n)]
            for k in range(1, n + 1):
                assert max_at_k(values, k) == pytest.approx(_brute(values, k), abs=1e-12)
                checked += 1
    assert checked == 6 * sum(range(1, 9))
    assert max_at_k([0.5, 1.0, 0.7], 1) == pytest.approx(2.2 / 3)  # k = 1: the mean
    assert max_at_k([0.5, 1.0, 0.7], 3) == 1.0                       # k = n: the maximum
    assert max_at_k([1.0, 0.5, 0.7], 2) == pytest.approx((1.0 + 1.0 + 0.7) / 3)


def test_max_at_k_is_pass_at_k_on_pass_fail_scores():
    for n in range(1, 13):
        for c in range(n + 1):
            values = [1.0] * c + [0.0] * (n - c)
            for k in range(1, n + 1):
                assert max_at_k(values, k) == pytest.approx(pass_at_k(n, c, k), abs=1e-12)


def test_max_at_k_is_unbiased_for_the_expected_best_of_k():
    """Exact expectation over every ordered sample of n draws from a small distribution:
    the estimator's mean is E[max of k independent draws], for every k <= n (the plug-in
    maximum of the n samples would overestimate it)."""
    support = [(0.0, 0.3), (0.4, 0.25), (0.7, 0.25), (1.0, 0.2)]

    def best_of(k: int) -> float:  # E[max of k iid] = sum_v v (F(v)^k - F(v-)^k)
        total, below = 0.0, 0.0
        for value, p in support:
            total += value * ((below + p) ** k - below ** k)
            below += p
        return total

    for n in (3, 4, 5):
        for k in range(1, n + 1):
            mean = sum(prod(p for _, p in draw) * max_at_k([v for v, _ in draw], k)
                       for draw in itertools.product(support, repeat=n))
            assert mean == pytest.approx(best_of(k), abs=1e-12), (n, k)
    # the naive estimate (best of all n samples) is biased upwards for k < n
    naive = sum(prod(p for _, p in draw) * max(v for v, _ in draw)
                for draw in itertools.product(support, repeat=4))
    assert naive > best_of(2) + 0.05


@pytest.mark.parametrize("values, k", [([], 1), ([0.5], 0), ([0.5], 2), ([0.1, 0.2], -1)])
def test_max_at_k_rejects_bad_arguments(values, k):
    with pytest.raises(ValueError):
        max_at_k(values, k)


# ---- the summary of real scored results ------------------------------------------------------

def test_per_problem_scores_points_and_groups_from_real_results():
    summary = summarize(_rows())
    a = _find(summary.by_problem, problem_id="ab_scored", model="model-a")
    # full 100, overflow 50, crash 70 (loses "small")
    assert (a["score"], a["points"], a["max_score"]) == (0.7333, 73.3333, 100.0)
    assert a["score_stderr"] == pytest.approx(0.1453, abs=1e-4)
    assert a["groups"] == [
        {"group": "easy", "points": 20.0, "max_score": 20.0, "full": 1.0},
        {"group": "large", "points": 33.3333, "max_score": 50.0, "full": 0.6667},
        {"group": "small", "points": 20.0, "max_score": 30.0, "full": 0.6667}]
    b = _find(summary.by_problem, problem_id="ab_scored", model="model-b")
    assert (b["score"], b["points"]) == (0.5, 50.0)  # overflow 50, hang 50 (large lost)
    assert [g["points"] for g in b["groups"]] == [20.0, 0.0, 30.0]
    cpp = _find(summary.by_problem, problem_id="ab_scored", model="model-b [cpp]")
    assert (cpp["score"], cpp["points"], cpp["candidates"]) == (0.5, 50.0, 1)
    # the pass-fail problem of the same run: no score column at all
    for row in summary.by_problem:
        if row["problem_id"] == "ab_plain":
            assert not SCORE_KEYS & set(row), row


def test_per_model_score_and_score_at_k_from_real_results():
    summary = summarize(_rows())
    a = _find(summary.by_model, model="model-a")
    assert (a["scored_problems"], a["score"], a["points"], a["max_points"]) == (
        1, 0.7333, 73.3333, 100.0)
    # best of 2 of {100, 50, 70}: 100, 100, 70 -> 0.9; best of 3: 1.0 (brute force)
    assert (a["score@2"], a["score@3"]) == (0.9, 1.0)
    assert a["score@2"] == round(_brute([1.0, 0.5, 0.7], 2), 4)
    assert "score@1" not in a  # score@1 is the mean score, "score"
    assert (a["pass@2"], a["pass@3"]) == (0.6667, 1.0)  # pass@k as before, beside it
    b = _find(summary.by_model, model="model-b")
    assert (b["score"], b["score@2"]) == (0.5, 0.5)
    cpp = _find(summary.by_model, model="model-b [cpp]")
    assert cpp["score"] == 0.5 and not any(k.startswith("score@") for k in cpp)
    assert summary.scored and summary.to_json()["score_at_k"] == SCORE_AT_K


def test_a_pass_fail_suite_is_reported_exactly_as_before():
    """The same results without scores: every pass-fail key and value is the same as in the
    scored report, and no score key, column, line or note appears anywhere."""
    rows = _rows()
    scored, plain = summarize(rows), summarize(_unscored(rows))
    assert not plain.scored
    for kept, full in ((plain.by_model, scored.by_model), (plain.by_problem, scored.by_problem)):
        assert [set(r) & SCORE_KEYS for r in kept] == [set()] * len(kept)
        assert kept == [{k: v for k, v in r.items() if k not in SCORE_KEYS
                         and not k.startswith("score@")} for r in full]
    assert plain.verdicts == scored.verdicts
    assert "score_at_k" not in plain.to_json()
    for fmt in FORMATS:
        text = render(plain, fmt).replace("ab_scored", "ab_").replace(
            "Wilson score", "Wilson")  # the id and the interval's name say "score"
        assert "score" not in text and "points" not in text and "groups" not in text, fmt
    page = render_html([Run("r.jsonl", "r.jsonl", _unscored(rows))], plain, []).replace(
        "ab_scored", "ab_").replace("Wilson score", "Wilson")
    assert "Scores per problem" not in page and "score@" not in page and " pts" not in page
    assert "mean score" not in page and "score " not in page


def test_text_and_markdown_show_scores_points_and_groups():
    summary = summarize(_rows())
    for fmt in ("table", "markdown"):
        text = render(summary, fmt)
        assert "73.33/100" in text and "50/100" in text
        assert "easy 20/20 · large 33.33/50 · small 20/30" in text
        assert "easy 20/20 · large 0/50 · small 30/30" in text
        assert "0.7333 ±0.1453" in text    # the mean score with its standard error
        assert "0.9000 ±0.0000" in text    # score@2 of model-a (one scored problem)
        assert "score@3" in text and "score@1" not in text
        assert "scores: score@k = expected best score" in text
    lines = render(summary, "table").splitlines()
    plain = next(line for line in lines if line.startswith("ab_plain ") and "model-a" in line)
    assert plain.rstrip().endswith("wrong_answer")  # its score cells are empty


def test_json_report_through_the_command_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "judge", "report", str(DATA), "--format",
                           "json"], capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    a = _find(data["by_model"], model="model-a")
    assert (a["score"], a["score@2"], a["score@2_stderr"], a["max_points"]) == (
        0.7333, 0.9, 0.0, 100.0)
    row = _find(data["by_problem"], problem_id="ab_scored", model="model-a")
    assert row["groups"][1] == {"group": "large", "points": 33.3333, "max_score": 50.0,
                                "full": 0.6667}
    assert data["score_at_k"].startswith("score@k = expected best score")


def test_unbounded_refused_and_sandbox_error_results():
    """A problem without a bounded maximum gives points only (no fraction, no score@k); a
    judged result of a scored problem without a score scores 0; a sandbox_error is left
    out as everywhere."""
    def line(problem, sample, verdict, score=None, maximum=None):
        row = {"problem_id": problem, "model": "m", "sample": sample, "verdict": verdict,
               "tests": []}
        if score is not None:
            row.update(score=score, max_score=maximum)
        return row

    rows = [line("open", 0, "pass", 12.5, None), line("open", 1, "wrong_answer", 7.5, None),
            line("ten", 0, "pass", 10, 10), line("ten", 1, "compile_error"),
            line("ten", 2, "sandbox_error"), line("plain", 0, "pass"),
            line("plain", 1, "wrong_answer")]
    summary = summarize(rows)
    unbounded = _find(summary.by_problem, problem_id="open")
    assert unbounded["points"] == 10.0 and unbounded["max_score"] is None
    assert "score" not in unbounded
    ten = _find(summary.by_problem, problem_id="ten")
    assert (ten["candidates"], ten["score"], ten["points"]) == (2, 0.5, 5.0)
    model = summary.by_model[0]
    assert model["scored_problems"] == 2 and model["score"] == 0.5  # over bounded problems
    assert model["points"] == 15.0 and model["max_points"] is None
    assert model["score@2"] == 1.0  # ten: the best of its two samples {10, 0} is 10
    text = render(summary, "table")
    assert "10/unbounded" in text and "15/unbounded" in text
    assert problem_row([line("plain", 0, "pass")]) == {}
    assert model_row({"plain": [line("plain", 0, "pass")]}) == {}


def test_malformed_score_fields_do_not_break_the_report():
    rows = [{"problem_id": "p", "model": "m", "verdict": "pass", "score": "lots",
             "max_score": True, "groups": "nope"},
            {"problem_id": "q", "model": "m", "verdict": "pass", "score": 3, "max_score": 4,
             "groups": [{"group": "", "score": 3}, "junk", {"group": 5},
                        {"group": "g", "score": None, "max_score": "x"}]}]
    summary = summarize(rows)
    assert "score" not in _find(summary.by_problem, problem_id="p")
    q = _find(summary.by_problem, problem_id="q")
    assert (q["score"], q["points"]) == (0.75, 3.0)
    assert q["groups"] == [{"group": "g", "points": 0.0, "max_score": None, "full": 0.0}]
    assert groups_text(q["groups"]) == "g 0/unbounded"
    for fmt in ("table", "markdown"):
        assert "0.7500 ±0.0000" in render(summary, fmt) and "3/4" in render(summary, fmt)
    assert '"score": 0.75' in render(summary, "json")
    page = render_html([Run("r.jsonl", "r.jsonl", rows)], summary, [])
    assert "Scores per problem" in page and "3/4" in page


# ---- the HTML page (without a browser; tests/reports/test_scored_report_browser.py opens it) --

def scored_page(runs: list[Run] | None = None) -> str:
    runs = runs or [read_run(DATA)[0]]
    summary = merge([run.summary(tagged=len(runs) > 1) for run in runs])
    return render_html(runs, summary, [])


def test_html_shows_scores_per_model_per_problem_and_per_cell():
    page = scored_page()
    header = page[page.index("<th>model</th><th>problems</th>"):]
    header = header[: header.index("</tr>")]
    assert "<th>mean score</th><th>points</th><th>score@2</th><th>score@3</th>" in header
    assert "<td class=\"num\">73.3% ±0.0</td>" in page      # model-a's mean score
    assert "<td class=\"num\">90.0% ±0.0</td>" in page      # its score@2
    scores = page[page.index('<h2 id="scores">'):]
    scores = scores[: scores.index("</table>")]
    assert "73.3% ±14.5" in scores and "73.33/100" in scores
    assert "large 33.33/50 (67% whole)" in scores and "large 0/50 (0% whole)" in scores
    assert "ab_plain" not in scores  # the pass-fail problem has no score row
    matrix = page[page.index('<table class="matrix">'):]
    matrix = matrix[: matrix.index("</table>")]
    assert matrix.count(" pts</span>") == 3 and "73.33/100 pts" in matrix
    plain = matrix[matrix.index("ab_plain"):matrix.index("ab_scored")]
    assert "pts" not in plain
    assert "5/7 tests passed · score 50/100" in page and "6/7 tests passed · score 70/100" in page


def test_html_of_two_runs_labels_each_scored_row_with_its_run():
    first, _ = read_run(DATA, "a.jsonl")
    second = Run("b.jsonl", "b.jsonl", [r for r in first.rows if r.get("model") == "model-b"])
    page = scored_page([first, second])
    scores = page[page.index('<h2 id="scores">'):]
    scores = scores[: scores.index("</table>")]
    assert "<td>model-b · a.jsonl</td>" in scores and "<td>model-b · b.jsonl</td>" in scores
