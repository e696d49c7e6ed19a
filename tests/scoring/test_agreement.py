"""Grader-agreement metrics: the reference vector, undefined cases, scale maps, grade files."""

from __future__ import annotations

import json
import re

import pytest

from judge.scoring.agreement import (
    Scale,
    UndefinedMetric,
    average_ranks,
    compute_agreement,
    gwet_ac2,
    mae,
    off_by,
    parse_map,
    parse_scale,
    pearson,
    quadratic_weighted_kappa,
    rmse,
    spearman,
)
from judge.scoring.grade_files import join_grades, read_grades
from judge.scoring.primitives import InputError

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

HUMAN = [1, 2, 3, 4, 4, 3, 2, 1, 4, 3]
MODEL = [1, 2, 3, 4, 3, 3, 1, 2, 4, 4]
S14 = Scale(1, 4)


def test_reference_vector_to_five_decimals():
    assert round(quadratic_weighted_kappa(HUMAN, MODEL, S14), 5) == 0.83471
    assert quadratic_weighted_kappa(HUMAN, MODEL, S14) == pytest.approx(101 / 121, abs=1e-12)
    assert round(gwet_ac2(HUMAN, MODEL, S14), 5) == 0.84536
    assert gwet_ac2(HUMAN, MODEL, S14) == pytest.approx(82 / 97, abs=1e-12)
    assert round(pearson(HUMAN, MODEL), 5) == 0.83471
    assert round(spearman(HUMAN, MODEL), 5) == 0.83226
    assert mae(HUMAN, MODEL) == pytest.approx(0.4)
    assert round(rmse(HUMAN, MODEL), 5) == 0.63246
    assert off_by(HUMAN, MODEL, 1) == 1.0
    assert off_by(HUMAN, MODEL, 2) == 1.0


def test_report_holds_all_metrics():
    rep = compute_agreement(HUMAN, MODEL, S14).to_dict()
    got = {k: round(rep[k], 5) for k in ("pearson", "spearman", "mae", "rmse", "qwk", "off_by_1", "off_by_2", "ac2")}
    assert got == {"pearson": 0.83471, "spearman": 0.83226, "mae": 0.4, "rmse": 0.63246,
                   "qwk": 0.83471, "off_by_1": 1.0, "off_by_2": 1.0, "ac2": 0.84536}
    assert rep["n"] == 10 and rep["scale"] == "1-4"


def test_qwk_matches_sklearn_on_the_full_label_set():
    from sklearn.metrics import cohen_kappa_score  # test-only dependency

    cases = [(HUMAN, MODEL, S14),
             ([0, 1, 7, 7, 3, 0, 5], [1, 1, 6, 7, 0, 0, 7], Scale(0, 7)),
             ([1, 1, 4, 4, 2], [1, 2, 4, 3, 1], S14)]  # grade 3 never given by the humans
    for x, y, scale in cases:
        ours = quadratic_weighted_kappa(x, y, scale)
        theirs = cohen_kappa_score(x, y, weights="quadratic", labels=scale.categories)
        assert ours == pytest.approx(theirs, abs=1e-12)


def test_qwk_uses_the_full_scale_not_only_seen_categories():
    from sklearn.metrics import cohen_kappa_score

    # Only grades 1, 2 and 4 occur: without the full label set the distance 2->4 shrinks to 1.
    x, y = [1, 2, 4, 4, 1, 2], [1, 4, 4, 2, 2, 1]
    seen_only = cohen_kappa_score(x, y, weights="quadratic")
    full = cohen_kappa_score(x, y, weights="quadratic", labels=[1, 2, 3, 4])
    assert seen_only != pytest.approx(full)
    assert quadratic_weighted_kappa(x, y, S14) == pytest.approx(full)


def test_constant_ratings():
    rep = compute_agreement([3, 3, 3], [3, 3, 3], S14)
    assert rep.metrics["qwk"].value is None and "0/0" in rep.metrics["qwk"].reason
    assert rep.metrics["pearson"].value is None and "zero variance" in rep.metrics["pearson"].reason
    assert rep.metrics["spearman"].value is None
    assert rep.metrics["ac2"].value == 1.0  # AC2 stays defined
    assert rep.metrics["mae"].value == 0.0
    d = rep.to_dict()
    assert d["qwk"] is None and "0/0" in d["qwk_reason"]
    with pytest.raises(UndefinedMetric):
        quadratic_weighted_kappa([2, 2], [2, 2], S14)


def test_one_constant_side():
    rep = compute_agreement([1, 2, 3, 4], [2, 2, 2, 2], S14)
    assert rep.metrics["pearson"].value is None and "second rater" in rep.metrics["pearson"].reason
    assert rep.metrics["qwk"].value == pytest.approx(0.0)
    assert rep.metrics["ac2"].value is not None


def test_perfect_agreement():
    rep = compute_agreement([1, 2, 3, 4], [1, 2, 3, 4], S14)
    assert all(rep.metrics[k].value == pytest.approx(1.0) for k in ("pearson", "spearman", "qwk", "ac2"))


def test_average_ranks_for_ties():
    assert [float(r) for r in average_ranks([10, 20, 20, 30, 20])] == [1, 3, 3, 5, 3]


def test_invalid_inputs():
    with pytest.raises(ValueError, match="length"):
        mae([1], [1, 2])
    with pytest.raises(ValueError, match="no ratings"):
        pearson([], [])
    with pytest.raises(ValueError, match="not on the scale"):
        quadratic_weighted_kappa([5], [1], S14)
    with pytest.raises(ValueError, match="not on the scale"):
        gwet_ac2([True], [1], S14)


# ---------------------------------------------------------------- scales and maps


def test_scale_and_map_parsing():
    assert parse_scale("1-4") == Scale(1, 4) and parse_scale("0..7") == Scale(0, 7)
    for bad in ("4-1", "1", "a-b", "3-3"):
        with pytest.raises(ValueError):
            parse_scale(bad)
    m = parse_map("2x-1")
    assert [m(v) for v in (1, 2, 3, 4)] == [1, 3, 5, 7]
    assert m.target(S14) == Scale(1, 7)
    assert parse_map("2 * x - 1")(4) == 7
    assert parse_map("x")(3) == 3 and parse_map("-x+5")(1) == 4 and parse_map("x+1")(0) == 1
    assert parse_map("0.5x")(4) == 2
    with pytest.raises(ValueError, match="not an integer"):
        parse_map("0.5x")(3)
    for bad in ("x^2", "2y-1", "", "0x+1"):
        with pytest.raises(ValueError):
            parse_map(bad)


def test_mapping_to_the_paper_scale():
    mapped = compute_agreement(HUMAN, MODEL, S14, parse_map("2x-1"), Scale(0, 7))
    assert mapped.scale == "0-7" and mapped.mapping == "2x-1"
    m = mapped.metrics
    assert m["mae"].value == pytest.approx(0.8)           # distances double
    assert m["off_by_1"].value == pytest.approx(0.6)      # 1-point misses become 2-point misses
    assert m["qwk"].value == pytest.approx(101 / 121)     # QWK is invariant to a linear map
    assert m["pearson"].value == pytest.approx(101 / 121)
    default = compute_agreement(HUMAN, MODEL, S14, parse_map("2x-1"))
    assert default.scale == "0-7"  # the paper's target for 2x-1 on 1-4
    assert default.metrics["ac2"].value == pytest.approx(m["ac2"].value)
    ends = compute_agreement(HUMAN, MODEL, S14, parse_map("2x-1"), Scale(1, 7))
    assert ends.metrics["ac2"].value != pytest.approx(m["ac2"].value)  # K matters for AC2


# ---------------------------------------------------------------- grade files


def test_read_jsonl_and_csv(tmp_path):
    j = tmp_path / "human.jsonl"
    j.write_text("\n".join(json.dumps(r) for r in [{"id": "a", "grade": 1}, {"id": 2, "grade": 3.0}, {"id": "c", "grade": "4"}]) + "\n\n")
    assert read_grades(j, S14) == {"a": 1, "2": 3, "c": 4}
    c = tmp_path / "pred.csv"
    c.write_text("grade,id,comment\n2,a,ok\n3,2,\"x, y\"\n\n4,z,\n")
    assert read_grades(c) == {"a": 2, "2": 3, "z": 4}
    t = tmp_path / "pred.txt"  # no .csv suffix: detected from the first line
    t.write_text("id,grade\na,2\n")
    assert read_grades(t) == {"a": 2}
    ids, h, p, miss_pred, miss_human = join_grades(read_grades(j), read_grades(c))
    assert (ids, h, p, miss_pred, miss_human) == (["2", "a"], [3, 1], [3, 2], ["c"], ["z"])


@pytest.mark.parametrize("name,content,messages", [
    ("g.jsonl", '{"id": "a", "grade": 1}\n{"id": "b", "grade": \n', [r"g\.jsonl:2: invalid JSON"]),
    ("g.jsonl", '{"id": "a"}\n', [r"g\.jsonl:1: expected an object with keys id and grade"]),
    ("g.jsonl", '{"id": "a", "grade": 1}\n{"id": "a", "grade": 2}\n', [r"g\.jsonl:2: id 'a' already given at .*g\.jsonl:1"]),
    ("g.jsonl", '{"id": "a", "grade": 2.5}\n', [r"g\.jsonl:1: grade 2\.5 is not an integer"]),
    ("g.jsonl", '{"id": "a", "grade": 9}\n', [r"g\.jsonl:1: grade 9 is outside the scale 1-4"]),
    ("g.jsonl", '{"id": "a", "grade": true}\n', [r"g\.jsonl:1: grade must be a number"]),
    ("g.jsonl", '{"id": null, "grade": 1}\n', [r"g\.jsonl:1: id must be"]),
    ("g.csv", "id,score\na,1\n", [r"g\.csv:1: CSV header must contain the columns id and grade"]),
    ("g.csv", "id,grade\na,x\nb\n", [r"g\.csv:2: grade 'x' is not a number", r"g\.csv:3: expected at least 2 columns"]),
    ("g.csv", "id,grade\n", [r"g\.csv: no grades"]),
])
def test_broken_grade_files(tmp_path, name, content, messages):
    p = tmp_path / name
    p.write_text(content)
    with pytest.raises(InputError) as exc:
        read_grades(p, S14)
    for m in messages:
        assert re.search(m, str(exc.value)), (m, str(exc.value))
