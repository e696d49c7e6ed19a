"""Scoring primitives, the weighted spec, and results-file submissions."""

from __future__ import annotations

import json
import math

import pytest

from judge.scoring.primitives import (
    InputError,
    ScoringError,
    coverage_ratio,
    exact_match,
    exact_match_ratio,
    fuzzy_string,
    numeric_tolerance,
    set_overlap,
    strict_equal,
    time_decay,
)
from judge.scoring.specs import (
    ground_truth_from_results,
    load_spec,
    parse_spec,
    score_submission,
    submission_from_results,
)
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

NAN = float("nan")
INF = float("inf")


# ---------------------------------------------------------------- exact_match


@pytest.mark.parametrize("a,b,expected", [
    ("Paris", "Paris", 1000), ("paris", "Paris", 0), ("3", 3, 0), (3, "3", 0),
    (True, 1, 0), (1, True, 0), (False, 0, 0), (True, True, 1000),
    (3, 3.0, 1000), (NAN, NAN, 0), (None, None, 1000), (None, 0, 0),
    ([1, "a", [True]], [1, "a", [True]], 1000), ([1, 2], [2, 1], 0), ([1, 2], [1, 2, 3], 0),
    ([], [], 1000), ({"a": 1, "b": [2]}, {"b": [2], "a": 1}, 1000), ({"a": 1}, {"a": 1, "b": 2}, 0),
    ([NAN], [NAN], 0),
])
def test_exact_match_is_typed_and_strict(a, b, expected):
    assert exact_match(a, b).score == expected


def test_exact_match_case_insensitive_only_when_asked():
    assert exact_match("PARIS", "paris").score == 0
    assert exact_match("PARIS", "paris", case_sensitive=False).score == 1000
    assert exact_match(["A", "b"], ["a", "B"], case_sensitive=False).score == 1000


def test_strict_equal_symmetry_on_odd_pairs():
    for a, b in [(1, True), ("1", 1), (0, None), ([], {}), (0.0, False)]:
        assert not strict_equal(a, b) and not strict_equal(b, a)


# ---------------------------------------------------------------- exact_match_ratio


def test_exact_match_ratio_counts_positions_of_expected():
    assert exact_match_ratio(["a", "b", "c", "d"], ["a", "b", "x", "d"]).score == 750
    # extra submission elements are ignored
    assert exact_match_ratio(["a", "b", "zzz"], ["a", "b"]).score == 1000
    # a shorter submission: missing positions are misses
    assert exact_match_ratio(["a"], ["a", "b", "c", "d"]).score == 250


def test_exact_match_ratio_edge_cases():
    assert exact_match_ratio([], []).score == 1000
    assert exact_match_ratio(["a"], []).score == 0
    assert exact_match_ratio([], ["a"]).score == 0
    assert exact_match_ratio("ab", ["a", "b"]).score == 0  # a string is not an array
    assert exact_match_ratio([NAN, 1], [NAN, 1]).score == 500
    assert exact_match_ratio(["1", 2], [1, 2]).score == 500
    with pytest.raises(ScoringError):
        exact_match_ratio(["a"], "a")


# ---------------------------------------------------------------- numeric_tolerance


def test_numeric_tolerance_binary():
    assert numeric_tolerance(3.14, 3.14159, 0.01).score == 1000
    assert numeric_tolerance(3.0, 3.5, 0.5).score == 1000  # boundary is inside
    assert numeric_tolerance(3.0, 3.6, 0.5).score == 0
    assert numeric_tolerance(-2, -2, 0).score == 1000


def test_numeric_tolerance_rejects_non_numbers():
    assert numeric_tolerance("3", 3, 0.5).score == 0
    assert numeric_tolerance(True, 1, 0.5).score == 0
    assert numeric_tolerance(None, 1, 0.5).score == 0
    assert numeric_tolerance(NAN, 1, 100).score == 0
    assert numeric_tolerance(1, NAN, 100).score == 0
    assert numeric_tolerance(INF, INF, 0).score == 1000
    assert numeric_tolerance(INF, 1e308, 1e308).score == 0


def test_numeric_tolerance_arrays_score_the_fraction_within():
    assert numeric_tolerance([1.0, 2.0, 3.5, 4.0], [1, 2, 3, 4], 0.1).score == 750
    assert numeric_tolerance([1, 2, 3, 99], [1, 2], 0.1).score == 1000  # extras ignored
    assert numeric_tolerance([1], [1, 2], 0.1).score == 500              # missing = miss
    assert numeric_tolerance([1, "2"], [1, 2], 0.1).score == 500
    assert numeric_tolerance([NAN, 2], [1, 2], 0.1).score == 500
    assert numeric_tolerance([], [], 0.1).score == 1000
    assert numeric_tolerance([1], [], 0.1).score == 0
    assert numeric_tolerance(1, [1], 0.1).score == 0
    assert numeric_tolerance([1], 1, 0.1).score == 0


def test_numeric_tolerance_linear_is_opt_in():
    assert numeric_tolerance(10.5, 10, 1).score == 1000
    assert numeric_tolerance(10.5, 10, 1, mode="linear").score == pytest.approx(500)
    assert numeric_tolerance(12, 10, 1, mode="linear").score == 0
    assert numeric_tolerance(10, 10, 0, mode="linear").score == 1000


def test_numeric_tolerance_bad_parameters():
    for tol in (-1, NAN, INF, "0.1", True):
        with pytest.raises(ScoringError):
            numeric_tolerance(1, 1, tol)
    with pytest.raises(ScoringError):
        numeric_tolerance(1, "1", 0.1)
    with pytest.raises(ScoringError):
        numeric_tolerance([1], [True], 0.1)


# ---------------------------------------------------------------- fuzzy_string


def test_fuzzy_string():
    assert fuzzy_string("  Hello\n  WORLD ", "hello world").score == 1000
    s = fuzzy_string("hello wrld", "hello world").score
    assert 900 < s < 1000
    assert fuzzy_string("", "").score == 1000
    assert fuzzy_string("abc", "xyz").score == 0
    assert fuzzy_string(3, "3").score == 0
    assert fuzzy_string(None, "x").score == 0
    with pytest.raises(ScoringError):
        fuzzy_string("3", 3)


def test_fuzzy_string_is_deterministic_on_long_text():
    a = "lorem ipsum " * 50
    b = "lorem ipsum " * 49 + "lorem ipsam "
    assert fuzzy_string(a, b).score == fuzzy_string(a, b).score > 990  # autojunk off


# ---------------------------------------------------------------- time_decay


def test_time_decay():
    assert time_decay(0, 300).score == 1000
    assert time_decay(150, 300).score == 500
    assert time_decay(300, 300).score == 0
    assert time_decay(900, 300).score == 0
    for bad in (-1, NAN, INF, "10", True, None):
        assert time_decay(bad, 300).score == 0
    for limit in (0, -5, NAN, "300"):
        with pytest.raises(ScoringError):
            time_decay(1, limit)


# ---------------------------------------------------------------- coverage_ratio / set_overlap


def test_coverage_ratio():
    assert coverage_ratio(["q1", "q2", "q2", "zz"], ["q1", "q2", "q3", "q4"]).score == 500
    assert coverage_ratio([], ["q1"]).score == 0
    assert coverage_ratio(["a"], []).score == 1000
    assert coverage_ratio(["3"], [3]).score == 0
    assert coverage_ratio([True], [1]).score == 0
    assert coverage_ratio([3.0], [3]).score == 1000
    assert coverage_ratio([[1, 2]], [[1, 2], {"a": 1}]).score == 500
    assert coverage_ratio("q1", ["q1"]).score == 0


def test_set_overlap_both_methods():
    a, b = ["x", "y", "z"], ["y", "z", "w", "v"]
    assert set_overlap(a, b, method="intersection").score == 500   # 2 / 4
    assert set_overlap(a, b, method="jaccard").score == 400        # 2 / 5
    assert set_overlap([], [], method="jaccard").score == 1000
    assert set_overlap([], [], method="intersection").score == 1000
    assert set_overlap(["a"], [], method="jaccard").score == 0
    assert set_overlap([NAN], [NAN], method="jaccard").score == 0
    assert set_overlap(["a", "a"], ["a"], method="jaccard").score == 1000
    with pytest.raises(ScoringError):
        set_overlap(a, b, method="dice")


def test_set_primitives_do_not_depend_on_order():
    a = ["k%d" % i for i in range(50)] + [1, 2.0, True, None, [1, "x"]]
    b = ["k%d" % i for i in range(0, 100, 2)] + [2, [1, "x"], False]
    ref = set_overlap(a, b, method="jaccard").score
    assert set_overlap(list(reversed(a)), list(reversed(b)), method="jaccard").score == ref
    assert coverage_ratio(list(reversed(a)), b).score == coverage_ratio(a, b).score


# ---------------------------------------------------------------- the spec

DOC_SPEC = {
    "type": "deterministic",
    "dimensions": [
        {"name": "accuracy", "weight": 0.6, "primitive": "exact_match_ratio",
         "field": "answers", "ground_truth_field": "expected_answers"},
        {"name": "speed", "weight": 0.2, "primitive": "time_decay", "time_limit_secs": 300},
        {"name": "coverage", "weight": 0.2, "primitive": "coverage_ratio",
         "field": "attempted", "ground_truth_field": "all_questions"},
    ],
}
GT = {"expected_answers": ["a", "b", "c", "d"], "all_questions": ["q1", "q2", "q3", "q4", "q5"]}


def test_three_dimension_spec_total():
    sub = {"answers": ["a", "b", "x", "d"], "time_used_secs": 60, "attempted": ["q1", "q2", "q3", "q4"]}
    report = score_submission(parse_spec(DOC_SPEC), sub, GT)
    scores = {d.name: d.score for d in report.dimensions}
    assert scores == {"accuracy": 750, "speed": 800, "coverage": 800}
    assert report.total == pytest.approx(0.6 * 750 + 0.2 * 800 + 0.2 * 800) == pytest.approx(770)
    assert report.to_dict()["total"] == report.total


def test_missing_submission_field_scores_zero_not_skipped():
    report = score_submission(parse_spec(DOC_SPEC), {"answers": ["a", "b", "c", "d"]}, GT)
    by = {d.name: d for d in report.dimensions}
    assert by["speed"].score == 0 and "time_used_secs" in by["speed"].detail
    assert by["coverage"].score == 0 and "attempted" in by["coverage"].detail
    assert report.total == pytest.approx(600)


def test_missing_ground_truth_field_is_the_authors_error():
    with pytest.raises(ScoringError, match="expected_answers"):
        score_submission(parse_spec(DOC_SPEC), {"answers": []}, {"all_questions": []})
    with pytest.raises(ScoringError, match="all_questions"):  # even when the submission lacks it too
        score_submission(parse_spec(DOC_SPEC), {}, {"expected_answers": []})


def test_same_input_same_score():
    sub = {"answers": ["a"], "time_used_secs": 1.5, "attempted": ["q3", "q1"]}
    spec = parse_spec(DOC_SPEC)
    assert score_submission(spec, sub, GT) == score_submission(spec, json.loads(json.dumps(sub)), GT)


def _dims(*dims):
    return {"type": "deterministic", "dimensions": list(dims)}


EM = {"name": "a", "weight": 1, "primitive": "exact_match", "field": "x", "ground_truth_field": "y"}


@pytest.mark.parametrize("spec,message", [
    (_dims({**EM, "primitive": "regex_match"}), r"dimensions\[0\]\.primitive: unknown primitive 'regex_match'"),
    (_dims({k: v for k, v in EM.items() if k != "primitive"}), r"dimensions\[0\]: missing 'primitive'"),
    (_dims({**EM, "weight": 0.5}), "weights must sum to 1"),
    (_dims({**EM, "weight": 0.6}, {**EM, "name": "b", "weight": 0.6}), "sum to 1.2"),
    (_dims({**EM, "primitive": "numeric_tolerance"}), r"dimensions\[0\]\.tolerance: Field required"),
    (_dims({**EM, "primitive": "set_overlap"}), r"dimensions\[0\]\.method: Field required"),
    (_dims({"name": "t", "weight": 1, "primitive": "time_decay"}), r"dimensions\[0\]\.time_limit_secs"),
    (_dims({**EM, "ground_truth_field": None}), r"dimensions\[0\]\.ground_truth_field"),
    (_dims({**EM, "tolerance": 1}), r"dimensions\[0\]\.tolerance: Extra inputs"),
    (_dims({**EM, "weight": "1"}), r"dimensions\[0\]\.weight"),
    (_dims({**EM, "weight": 0.5}, {**EM, "weight": 0.5}), "used twice"),
    (_dims(), "dimensions"),
    ({**_dims(EM), "type": "custom-script"}, "at type"),
    ([], "top level"),
])
def test_spec_validation_errors(spec, message):
    with pytest.raises(ScoringError, match=message):
        parse_spec(spec)


def test_weights_sum_within_tolerance():
    dims = [{**EM, "name": str(i), "weight": 0.1} for i in range(10)]  # 0.1 * 10 in floats
    assert len(parse_spec(_dims(*dims)).dimensions) == 10
    dims[0]["weight"] = 0.1 + 2e-9
    with pytest.raises(ScoringError):
        parse_spec(_dims(*dims))


def test_load_spec_errors_name_the_file(tmp_path):
    bad = tmp_path / "spec.json"
    bad.write_text('{"type": "deterministic",\n "dimensions": [,]}')
    with pytest.raises(ScoringError, match=r"spec\.json:2: invalid JSON: .*\(column \d+\)"):
        load_spec(bad)
    bad.write_text(json.dumps(_dims({**EM, "weight": 2})))
    with pytest.raises(ScoringError, match=r"spec\.json: at dimensions\[0\]\.weight"):
        load_spec(bad)


def test_shipped_example_specs_are_valid():
    for path in (ROOT / "examples" / "scoring").glob("*.json"):
        data = json.loads(path.read_text())
        if isinstance(data, dict) and data.get("type") == "deterministic":
            load_spec(path)
    assert load_spec(ROOT / "examples" / "scoring" / "code_suite.json").dimensions


def test_generic_example_scores_as_documented():
    d = ROOT / "examples" / "scoring"
    report = score_submission(load_spec(d / "generic.json"),
                              json.loads((d / "generic_submission.json").read_text()),
                              json.loads((d / "generic_ground_truth.json").read_text()))
    assert 0 < report.total < 1000
    assert {x.name: x.score for x in report.dimensions}["accuracy"] == 600


# ---------------------------------------------------------------- results -> submission


def _row(pid, verdict, tests, model="m", sample=0, time_s=1.0, total=None):
    return {"problem_id": pid, "model": model, "prompt_id": "p", "sample": sample, "verdict": verdict,
            "passed": sum(1 for t in tests if t == "pass"), "total": len(tests) if total is None else total,
            "tests": [{"index": i, "verdict": v, "time_s": 0.01} for i, v in enumerate(tests)],
            "sandbox": "process", "time_s": time_s}


ROWS = [
    _row("b", "wrong_answer", ["pass", "wrong_answer"]),
    _row("a", "pass", ["pass", "pass", "pass"], time_s=0.5),
    _row("a", "runtime_error", ["runtime_error", "pass", "pass"], sample=1, time_s=0.25),
    _row("d", "compile_error", [], total=2),
]


def test_submission_from_results_fields():
    sub = submission_from_results(ROWS, ["a", "b", "c", "d"], {"c": 4})
    assert sub["attempted_ids"] == ["a", "b", "d"]
    assert sub["all_ids"] == ["a", "b", "c", "d"]
    assert sub["passed_ids"] == ["a"]
    assert sub["problem_verdicts"] == ["pass", "wrong_answer", "missing", "compile_error"]
    assert sub["test_verdicts"] == (["pass"] * 3 + ["runtime_error", "pass", "pass"]
                                    + ["pass", "wrong_answer"] + ["missing"] * 4 + ["compile_error"] * 2)
    assert sub["time_used_secs"] == pytest.approx(2.75)
    assert sub["candidates"] == 4 and sub["passed_candidates"] == 1
    gt = ground_truth_from_results(ROWS, ["a", "b", "c", "d"], {"c": 4})
    assert gt["expected_verdicts"] == ["pass"] * len(sub["test_verdicts"])
    assert gt["all_ids"] == gt["expected_passed_ids"] == ["a", "b", "c", "d"]


def test_submission_from_results_is_order_independent():
    ids = ["d", "c", "b", "a"]
    assert submission_from_results(ROWS, ids) == submission_from_results(list(reversed(ROWS)), ids)


def test_code_suite_spec_on_results():
    spec = load_spec(ROOT / "examples" / "scoring" / "code_suite.json")
    ids = ["a", "b", "c", "d"]
    report = score_submission(spec, submission_from_results(ROWS, ids), ground_truth_from_results(ROWS, ids))
    by = {d.name: d.score for d in report.dimensions}
    assert by["solved"] == 250 and by["coverage"] == 750
    assert by["correctness"] == pytest.approx(6 / 11 * 1000)


def test_empty_run_scores_zero():
    spec = load_spec(ROOT / "examples" / "scoring" / "code_suite.json")
    report = score_submission(spec, submission_from_results([], ["a", "b"]), ground_truth_from_results([], ["a", "b"]))
    assert report.total == 0


def test_bad_result_row_names_the_row():
    with pytest.raises(InputError, match=r"row 2: at verdict: Field required"):
        submission_from_results([ROWS[0], {"problem_id": "x"}], ["x"])
    assert math.isfinite(submission_from_results([ROWS[0]], ["b"])["time_used_secs"])
