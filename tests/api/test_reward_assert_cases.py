"""verl's ``assert_case`` ground truth (its own test, from KodCode, in
tests/utils/reward_score/.../test_sandbox_fusion_on_cpu.py: ``results == [True, True, -2]``):
each case runs after the candidate's code as a program of its own, in both sandboxes, and
every policy scores the folded result."""

from __future__ import annotations

import json

import pytest

from judge.engine.verdicts import Verdict
from judge.errors import InputError
from judge.importers.rl_asserts import AssertCases, assert_cases
from judge.rewards import Scorer, compute_score

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]

MERGE = '''
from typing import List, Tuple

def merge_intervals(intervals: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    if not intervals:
        return []
    intervals.sort(key=lambda x: x[0])
    merged = [intervals[0]]
    for current in intervals[1:]:
        last = merged[-1]
        if current[0] <= last[1]:
            merged[-1] = (last[0], max(last[1], current[1]))
        else:
            merged.append(current)
    return merged
'''
TRUTH = {"fn_name": "merge_intervals", "assert_case": [
    "assert merge_intervals([(0, 1), (3, 5), (4, 7), (6, 8), (10, 12), (12, 14)]) == "
    "[(0, 1), (3, 8), (10, 14)]",
    "assert merge_intervals([(1, 2), (2, 3), (3, 4)]) == [(1, 4)]",
    "assert merge_intervals([(1, 2), (3, 4), (5, 6)]) == [(1, 2), (3, 4), (5, 5)]"]}


@pytest.fixture(scope="module", params=SANDBOXES)
def scorer(request):
    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    with Scorer(sandbox=request.param, jobs=2) as s:
        yield s


def test_verls_own_assert_case_example_gives_two_of_three(scorer):
    reply = "```python\n%s\n```" % MERGE
    truth = json.dumps(TRUTH)
    assert compute_score("kodcode", reply, truth, scorer=scorer, policy="fraction") == \
        pytest.approx(2 / 3)
    assert compute_score("kodcode", reply, truth, scorer=scorer, policy="binary") == 0.0
    problem = scorer.ground_truth_problem(truth)
    assert isinstance(problem, AssertCases) and problem.test_count() == 3
    items = scorer._items([problem], [reply], [None])
    [result] = scorer.results(items)
    assert [t.verdict for t in result.tests] == [Verdict.PASS, Verdict.PASS,
                                                 Verdict.WRONG_ANSWER]
    assert result.verdict is Verdict.WRONG_ANSWER and "assert case 2" in result.message
    # verl's first-N rule looks at the first two cases only
    assert compute_score("kodcode", reply, truth, scorer=scorer, policy="first-n:2") == 1.0


@pytest.mark.parametrize("hostile, expected", [
    # exits 0 before the case runs: the case's own guard sees it did not finish
    ("import os\nos._exit(0)\n", 0.0),
    ("import sys\nsys.exit(0)\n", 0.0),
    # loops forever at import: every case times out
    ("while True:\n    pass\n", 0.0),
    # redefines assert's comparison target as something equal to everything
    ("class Any:\n    def __eq__(self, other): return True\n"
     "def merge_intervals(x): return Any()\n", None),
])
def test_hostile_candidates_do_not_pass_every_case(scorer, hostile, expected):
    score = compute_score("kodcode", hostile, json.dumps(TRUTH), scorer=scorer,
                          policy="fraction")
    if expected is not None:
        assert score == expected
    else:  # a value equal to everything passes asserts of equality, as in verl; the last
        assert score == 1.0  # case is no help: documented (the dataset's own comparison)


@pytest.mark.pure
def test_malformed_assert_cases_are_located_errors():
    assert assert_cases({"inputs": ["1"], "outputs": ["1"]}) is None  # another shape
    for truth, where in (({"assert_case": []}, "assert_case"),
                         ({"assert_case": ["assert 1", 3]}, "assert_case[1]"),
                         ({"assert_case": ["assert 1"], "inputs": ["", ""]}, "inputs"),
                         ({"assert_case": ["x"] * 1001}, "assert_case")):
        with Scorer(sandbox="process", jobs=1) as s, pytest.raises(InputError) as caught:
            s.ground_truth_problem(json.dumps(truth))
        assert caught.value.issues[0].location == where
