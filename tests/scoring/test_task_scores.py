"""A task's score over several submissions (judge.scoring.task_scores, CMS's score modes).

Hundreds of random task histories checked against a straightforward reference written here
from CMS's ``cms/grading/scoring.py`` (``_task_score_max_subtask``, ``_task_score_max``,
``_task_score_max_tokened_last``, then ``round(score, score_precision)``), and hand-written
IOI examples: two submissions solving different subtasks sum beyond either, CMS float
scores rounded per subtask before the sum, a subtask missing from one submission, a
submission not judged (left out, never a 0), ties (the earliest sample is named), and the
report side: results lines' groups read as subtasks, sandbox errors said in the table."""

from __future__ import annotations

import random

import pytest

from judge.errors import UnknownName
from judge.reports.scores import subtask_parts, task_scores, task_scores_text
from judge.scoring.primitives import ScoringError
from judge.scoring.task_scores import (
    DEFAULT_MODE, SCORE_MODES, Part, Submission, task_score,
)

#: starts no sandbox, server or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure


def _sub(score, tokened=False, **parts):
    return Submission(score, tuple(Part(k, v) for k, v in parts.items()) if parts else None,
                      tokened)


def _ioi(*subtasks_scores, tokened=False):
    """A submission of a task with subtasks s1, s2, ...: its total is their sum."""
    parts = {"s%d" % (i + 1): v for i, v in enumerate(subtasks_scores)}
    return _sub(sum(subtasks_scores), tokened, **parts)


# ---- the reference: CMS's rules written out plainly ---------------------------------------

def _ref_round(value, precision):
    return value if precision is None else round(value, precision)


def reference(mode, submissions, precision):
    """CMS's task_score on these submissions (None: not judged, left out)."""
    judged = [s for s in submissions if s.score is not None]
    if mode == "max":
        best = 0.0
        for s in judged:
            best = max(best, s.score)
        return _ref_round(best, precision)
    if mode == "max_tokened_last":
        if not judged:
            return _ref_round(0.0, precision)
        best = judged[-1].score
        for s in judged:
            if s.tokened:
                best = max(best, s.score)
        return _ref_round(best, precision)
    maxima = {}
    for s in judged:
        if s.parts is None and s.score == 0.0:
            continue
        parts = s.parts if s.parts is not None else (Part("", s.score),)
        for p in parts:
            maxima[p.name] = max(maxima.get(p.name, 0.0), _ref_round(p.score, precision))
    return _ref_round(sum(maxima.values()), precision)


def _random_history(rng):
    names = ["s%d" % i for i in range(1, rng.randint(1, 5) + 1)]
    points = {n: rng.choice([5, 10, 17, 25, 33, 50]) for n in names}
    breakdown = rng.random() < 0.8
    subs = []
    for _ in range(rng.randint(1, 7)):
        roll = rng.random()
        if roll < 0.12:
            subs.append(Submission(None))  # not judged
            continue
        if roll < 0.2:
            subs.append(Submission(0.0, None, rng.random() < 0.3))  # did not compile
            continue
        if not breakdown:
            subs.append(Submission(rng.choice([0.0, 12.5, 50.0, 100.0, rng.uniform(0, 100)]),
                                   None, rng.random() < 0.3))
            continue
        parts = []
        for n in names:
            if rng.random() < 0.15:
                continue  # a subtask this submission's results do not report
            fraction = rng.choice([0.0, 0.0, 1.0, 1.0, 0.5, rng.random(), 1 / 3])
            parts.append(Part(n, round(fraction * points[n], 9), float(points[n])))
        total = sum(p.score for p in parts)
        subs.append(Submission(total, tuple(parts) or None, rng.random() < 0.3))
    if any(s.parts for s in subs):  # no history mixes a breakdown with a whole score > 0
        subs = [s for s in subs if s.parts or not s.score]
    return subs


@pytest.mark.parametrize("mode", ["max", "max_subtask", "max_tokened_last"])
def test_random_histories_match_cms_rules(mode):
    rng = random.Random(33)
    checked_max = [0]
    for case in range(300):
        subs = _random_history(rng)
        precision = rng.choice([None, 0, 1, 2, 3])
        got = task_score(mode, subs, precision)
        want = reference(mode, subs, precision)
        assert got.score == pytest.approx(want, abs=1e-9), (case, subs, precision)
        if precision is not None:
            assert got.score == round(got.score, precision)
        assert got.counted == sum(s.score is not None for s in subs)
        assert got.excluded == [i for i, s in enumerate(subs) if s.score is None]
        # the named submissions are the earliest to reach each maximum
        for best in got.subtasks:
            values = [(_ref_round(p.score, precision), i) for i, s in enumerate(subs)
                      if s.score is not None and s.parts for p in s.parts
                      if p.name == best.name]
            top = max((v for v, _ in values), default=0.0)
            assert best.score == top
            assert best.submission == (min(i for v, i in values if v == top)
                                       if top > 0 else None)
        if mode == "max":  # the earliest submission with the best (unrounded) score
            top = max((s.score for s in subs if s.score is not None), default=0.0)
            assert got.submission == (min(i for i, s in enumerate(subs) if s.score == top)
                                      if top > 0 else None)
            checked_max[0] += got.submission is not None
    if mode == "max":
        assert checked_max[0] > 100


def test_max_subtask_is_never_below_max_and_max_is_never_below_last():
    rng = random.Random(2017)
    for _ in range(300):
        subs = _random_history(rng)
        ms = task_score("max_subtask", subs).score
        mx = task_score("max", subs).score
        assert ms >= mx - 1e-9
        assert mx >= task_score("max_tokened_last", subs).score - 1e-9


# ---- hand-written IOI examples ------------------------------------------------------------

def test_two_submissions_solving_different_subtasks_sum_beyond_either():
    a = _ioi(10, 20, 0)   # subtasks 1 and 2: 30
    b = _ioi(0, 0, 70)    # subtask 3: 70
    result = task_score("max_subtask", [a, b], 2)
    assert result.score == 100.0
    assert [(s.name, s.score, s.submission) for s in result.subtasks] == [
        ("s1", 10.0, 0), ("s2", 20.0, 0), ("s3", 70.0, 1)]
    assert task_score("max", [a, b], 2).score == 70.0
    assert task_score("max", [a, b], 2).submission == 1
    assert DEFAULT_MODE == "max_subtask"


def test_cms_rounds_each_subtask_then_the_sum():
    # ScoreTypeGroup stores round(st_score, score_precision) per subtask; max_subtask sums
    # those: 1.004 + 1.004 -> 1.0 + 1.0 = 2.0 at precision 2 (rounding the sum gives 2.01)
    subs = [_ioi(1.004, 1.004)]
    assert task_score("max_subtask", subs, 2).score == 2.0
    assert task_score("max", subs, 2).score == 2.01   # max rounds the total
    # float per-test scores (GroupMin of 1/3 and 0.123456 on 30 and 40 points)
    first = _ioi(30 * (1 / 3), 40 * 0.123456)         # 10.0, 4.93824
    second = _ioi(30 * 0.2, 40 * 0.5)                  # 6.0, 20.0
    result = task_score("max_subtask", [first, second], 2)
    assert [s.score for s in result.subtasks] == [10.0, 20.0]
    assert result.score == 30.0
    assert task_score("max_subtask", [first], 2).score == 14.94
    assert task_score("max_subtask", [first], None).score == pytest.approx(14.93824)
    assert task_score("max_subtask", [first], 0).score == 15.0  # round(10.0) + round(4.94)


def test_a_subtask_missing_in_one_submission_counts_zero_there():
    a = _sub(30.0, s1=10.0, s2=20.0)    # no s3 in its results
    b = _sub(70.0, s3=70.0)             # no s1, s2
    c = _sub(5.0, s1=5.0, s2=0.0, s3=0.0)
    result = task_score("max_subtask", [a, b, c], 2)
    assert result.score == 100.0
    assert {s.name: s.submission for s in result.subtasks} == {"s1": 0, "s2": 0, "s3": 1}


def test_a_submission_not_judged_is_left_out_never_a_zero():
    subs = [_ioi(10, 0, 0), Submission(None), _ioi(0, 20, 0)]
    for mode in ("max", "max_subtask", "max_tokened_last"):
        result = task_score(mode, subs, 2)
        assert (result.counted, result.excluded) == (2, [1])
    assert task_score("max_subtask", subs, 2).score == 30.0
    # the last judged submission is the last one (CMS would count a last submission not
    # yet scored as 0 and flag the score partial; a sandbox error is never scored)
    last = [_ioi(10, 20, 0), _ioi(0, 0, 50), Submission(None)]
    result = task_score("max_tokened_last", last, 2)
    assert (result.score, result.submission, result.excluded) == (50.0, 1, [2])
    nothing = task_score("max_subtask", [Submission(None), Submission(None)], 2)
    assert (nothing.score, nothing.counted, nothing.excluded) == (0.0, 0, [0, 1])


def test_max_tokened_last_takes_the_last_and_the_tokened():
    subs = [_ioi(90, tokened=True), _ioi(40), _ioi(50)]
    assert task_score("max_tokened_last", subs).score == 90.0
    assert task_score("max_tokened_last", subs).submission == 0
    untokened = [_ioi(90), _ioi(40), _ioi(50)]
    assert task_score("max_tokened_last", untokened).score == 50.0
    assert task_score("max_tokened_last", untokened).submission == 2


def test_ties_name_the_earliest_submission():
    subs = [_ioi(0, 25), _ioi(10, 25), _ioi(10, 25)]
    result = task_score("max_subtask", subs)
    assert {s.name: s.submission for s in result.subtasks} == {"s1": 1, "s2": 0}
    assert task_score("max", [_ioi(35), _ioi(35)]).submission == 0
    zero = task_score("max_subtask", [_ioi(0, 0), _ioi(0, 0)])
    assert [s.submission for s in zero.subtasks] == [None, None]  # nobody scored there


def test_whole_scores_and_did_not_compile():
    # no breakdown: one subtask (CMS's fallback), so max_subtask is max
    subs = [_sub(40.0), _sub(0.0), _sub(65.5)]
    assert task_score("max_subtask", subs, 2).score == 65.5
    # a 0 without a breakdown (did not compile) beside subtasks is passed over
    assert task_score("max_subtask", [_sub(0.0), _ioi(10, 20)], 2).score == 30.0
    with pytest.raises(ScoringError, match="submission 1 has a score but no per-subtask"):
        task_score("max_subtask", [_sub(40.0), _ioi(10, 20)], 2)


def test_modes_are_found_by_name_and_unknown_ones_refused():
    assert SCORE_MODES.names() == ["max", "max_subtask", "max_tokened_last"]
    with pytest.raises(UnknownName, match=r"unknown score mode 'max_subtsk' \(did you mean "
                                          r"'max_subtask'\?\)"):
        task_score("max_subtsk", [_ioi(1)])
    with pytest.raises(ScoringError, match="precision"):
        task_score("max", [_ioi(1)], -1)


# ---- the report side: results lines ---------------------------------------------------------

def _line(sample, verdict, score, groups, problem="p", model="m"):
    row = {"problem_id": problem, "model": model, "sample": sample, "verdict": verdict}
    if score is not None:
        row.update({"score": score, "max_score": 100.0, "groups": groups})
    return row


def _groups(easy, small, large, root_total=6):
    return [{"group": "", "score": easy + small + large, "max_score": 100.0, "passed": 0,
             "total": root_total, "aggregation": "sum"},
            {"group": "easy", "score": easy, "max_score": 20.0, "total": 2,
             "aggregation": "sum"},
            {"group": "large", "score": large, "max_score": 50.0, "total": 2,
             "aggregation": "min"},
            {"group": "small", "score": small, "max_score": 30.0, "total": 2,
             "aggregation": "min"}]


def test_results_groups_are_read_as_subtasks():
    row = _line(0, "wrong_answer", 50.0, _groups(20.0, 30.0, 0.0))
    assert [(p.name, p.score, p.max_score) for p in subtask_parts(row)] == [
        ("easy", 20.0, 20.0), ("large", 0.0, 50.0), ("small", 30.0, 30.0)]
    # nested groups: only those right below the root are subtasks
    nested = {"groups": [
        {"group": "secret", "score": 60.0, "total": 3, "aggregation": "sum"},
        {"group": "secret/g1", "score": 40.0, "max_score": 40.0, "total": 2,
         "aggregation": "sum"},
        {"group": "secret/g1/a", "score": 15.0, "max_score": 15.0, "total": 1,
         "aggregation": "sum"},
        {"group": "secret/g2", "score": 20.0, "max_score": 60.0, "total": 1,
         "aggregation": "min"}]}
    assert [(p.name, p.score) for p in subtask_parts(nested)] == [("secret/g1", 40.0),
                                                                  ("secret/g2", 20.0)]
    # the root's own tests, outside every group, are one more subtask
    row = _line(0, "wrong_answer", 60.0, _groups(20.0, 30.0, 0.0, root_total=8))
    row["groups"][0]["score"] = 60.0
    assert subtask_parts(row)[-1] == Part("(root tests)", 10.0, None)
    # a root that does not add its groups up is one subtask; no groups, none
    minimum = {"groups": [{"group": "", "score": 0.0, "aggregation": "min", "total": 2},
                          {"group": "a", "score": 5.0, "total": 2}]}
    assert subtask_parts(minimum) is None and subtask_parts({"score": 3.0}) is None


def test_the_report_names_each_subtasks_sample_and_the_excluded():
    rows = [_line(0, "runtime_error", 70.0, _groups(20.0, 0.0, 50.0)),
            _line(1, "sandbox_error", None, None),
            _line(2, "wrong_answer", 50.0, _groups(20.0, 30.0, 0.0)),
            _line(0, "pass", 100.0, _groups(20.0, 30.0, 50.0), problem="q"),  # one sample
            ]
    data = task_scores(list(reversed(rows)), "max_subtask", 2)  # order by sample, not line
    assert [e["problem_id"] for e in data["by_problem"]] == ["p"]
    entry = data["by_problem"][0]
    assert (entry["task_score"], entry["best_single"], entry["judged"], entry["samples"],
            entry["excluded"]) == (100.0, 70.0, 2, 3, [1])
    assert {s["subtask"]: s["sample"] for s in entry["subtasks"]} == {
        "easy": 0, "large": 0, "small": 2}
    assert data["by_model"] == [{"model": "m", "problems": 1, "task_points": 100.0,
                                 "max_points": 100.0, "best_single_points": 70.0,
                                 "excluded": 1}]
    text = task_scores_text(data)
    assert "Task scores (score mode max_subtask)" in text
    assert "easy 20/20 (#0) · large 50/50 (#0) · small 30/30 (#2)" in text
    assert "(not judged, left out: #1)" in text and "2 of 3" in text
    single = task_scores(rows, "max", 2)["by_problem"][0]
    assert (single["task_score"], single["sample"]) == (70.0, 0)
    assert task_scores(rows[3:], "max_subtask", 2) is None  # no problem with two samples


def test_odd_results_lines_give_a_reason_never_a_crash_or_a_non_finite_number():
    huge = [{"group": "", "score": 1.7e308, "total": 2, "aggregation": "sum"},
            {"group": "x", "score": 1.7e308, "max_score": 1.7e308, "total": 1},
            {"group": "y", "score": 1.7e308, "total": 1}]
    rows = [_line(s, "pass", 1.7e308, huge, problem="b") for s in range(2)]
    rows += [_line(0, "pass", 50.0, _groups(20.0, 30.0, 0.0)),
             {"problem_id": "p", "model": "m", "sample": "zz", "verdict": "pass",
              "score": "x", "groups": [1, None, {"group": 5}]},           # scores 0
             {"problem_id": "p", "model": "m", "sample": True, "verdict": "pass",
              "score": 3, "groups": {"a": 1}}]                           # whole score 3
    data = task_scores(rows, "max_subtask", 2)
    notes = {e["problem_id"]: e for e in data["by_problem"]}
    assert notes["b"]["task_score"] is None and "not finite" in notes["b"]["note"]
    assert notes["p"]["task_score"] is None and "cannot be matched" in notes["p"]["note"]
    assert data["by_model"][0]["task_points"] == 0  # nothing finite to add up
    assert "not finite" in task_scores_text(data)
    assert task_scores(rows[:2], "max", 2)["by_problem"][0]["task_score"] == 1.7e308
