"""Scored problems' arithmetic and their problem files' located errors (pure): sum, min,
pass-fail, product (CMS GroupMul), require_pass, legacy on_reject: break, a checker's
fraction and a validator's absolute score, and the issues a hand-written ``scoring``
tree gets, each with its JSON location."""

from __future__ import annotations

from types import SimpleNamespace as Case

import pytest

from judge.errors import InputError
from judge.kinds.loader import problem_from_data
from judge.problem.scoring import ScoreGroup, TestOutcome, score_tests

pytestmark = pytest.mark.pure


def _tests(*groups: str) -> list[Case]:
    return [Case(name="%s/%d" % (g, i), group=g, sample=g == "sample")
            for i, g in enumerate(groups)]


def _score(root: dict, tests: list[Case], outcomes: dict[int, TestOutcome]):
    return score_tests(ScoreGroup.model_validate(root), tests, outcomes)


def test_aggregations_fractions_and_absolute_scores():
    tests = _tests("a", "a", "b", "b", "c", "c")
    root = {"max_score": 100, "groups": [
        {"name": "a", "max_score": 30, "aggregation": "sum"},
        {"name": "b", "max_score": 30, "aggregation": "min"},
        {"name": "c", "max_score": 40, "aggregation": "product"}]}
    ok = TestOutcome(True)
    got = _score(root, tests, {0: ok, 1: TestOutcome(True, fraction=0.5), 2: ok,
                               3: TestOutcome(True, fraction=0.25), 4: TestOutcome(True, 0.5),
                               5: TestOutcome(True, 0.5)})
    # a: 15 + 7.5; b: min(30, 7.5); c: 40 x 0.5 x 0.5
    assert [g.score for g in got.groups] == [40.0, 22.5, 7.5, 10.0] and got.score == 40.0
    # a failed test scores 0 unless its checker gave partial credit (testlib's _pc)
    got = _score(root, tests, {0: TestOutcome(False), 1: TestOutcome(False, fraction=0.5)})
    assert got.groups[1].score == 7.5 and got.score == 7.5
    # score.txt: absolute, never past the test's maximum (a problem error)
    got = _score(root, tests, {0: TestOutcome(True, points=20.0), 1: TestOutcome(True, points=3)})
    assert got.groups[1].score == 18.0 and "past the test's maximum 15" in got.problem_errors[0]


def test_pass_fail_groups_require_pass_and_samples():
    tests = _tests("sample", "g1", "g1", "g2")
    root = {"max_score": 100, "groups": [
        {"name": "g1", "max_score": 40, "aggregation": "pass-fail"},
        {"name": "g2", "max_score": 60, "aggregation": "min", "require_pass": ["g1"]}]}
    all_ok = {i: TestOutcome(True) for i in range(4)}
    assert _score(root, tests, all_ok).score == 100.0
    one_wrong = {**all_ok, 2: TestOutcome(False)}
    got = _score(root, tests, one_wrong)
    assert got.score == 0.0 and got.groups[2].note == "requires g1 to pass"
    root["require_pass"] = ["sample"]
    got = _score(root, tests, {**all_ok, 0: TestOutcome(False)})
    assert got.score == 0.0 and 0 not in got.counted  # the sample is never scored


def test_legacy_on_reject_break_ends_a_group_at_its_first_failure():
    tests = _tests("s", "s", "s")
    root = {"name": "s", "test_score": 10, "stop_at_failure": True}
    got = _score(root, tests, {0: TestOutcome(True), 1: TestOutcome(False),
                               2: TestOutcome(True)})
    assert (got.score, got.max_score) == (10.0, 30.0)
    root["stop_at_failure"] = False
    assert _score(root, tests, {0: TestOutcome(True), 2: TestOutcome(True)}).score == 20.0


def _issues(scoring: dict, tmp_path, groups=("g1", "g2")) -> list[str]:
    data = {"kind": "program", "identifier": "p", "statement": "s",
            "tests": [{"name": "t%d" % i, "group": g, "stdin": "", "expected": ""}
                      for i, g in enumerate(groups)], "scoring": scoring}
    with pytest.raises(InputError) as caught:
        problem_from_data(data, str(tmp_path / "p.json"))
    return ["%s: %s" % (i.location, i.message) for i in caught.value.issues]


def test_a_hand_written_scoring_tree_gets_located_errors(tmp_path):
    assert _issues({"max_score": 100, "groups": [{"name": "g1"}, {"name": "g2",
                                                                    "max_score": 50}]},
                   tmp_path) == ["scoring.groups[0].max_score: group 'g1' needs a max_score: "
                                 "its parent's is bounded (100)"]
    found = _issues({"max_score": 10, "aggregation": "avg"}, tmp_path)
    assert found[0].startswith("scoring.aggregation: Input should be 'pass-fail', 'sum'")
    found = _issues({"max_score": 50, "groups": [
        {"name": "g1", "max_score": 30, "require_pass": ["g2"]},
        {"name": "g2", "max_score": 30}, {"name": "g3", "max_score": 1}]}, tmp_path)
    assert sorted(found) == [
        "scoring.groups[0].require_pass: require_pass names 'g2', which is not an earlier "
        "group (or 'sample')",
        "scoring.groups[2]: group 'g3' holds no test (a test's 'group' names the group it "
        "is in)",
        "scoring.max_score: the groups' max_score add up to 61, past this group's 50"]
    assert _issues({"max_score": 10, "groups": [{"name": "g1", "max_score": 10,
                                                 "aggregation": "pass-fail",
                                                 "groups": [{"name": "x", "max_score": 1}]}]},
                   tmp_path)[0] == ("scoring.groups[0].groups[0].name: group 'x' is not inside "
                                    "its parent 'g1' (name it g1/...)")
