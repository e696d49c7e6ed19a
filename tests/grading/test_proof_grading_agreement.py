"""Agreement for proof grading: the paper's section-4 definitions on vectors worked out by
hand, the 1-4 -> 0-7 mapping, averaged grades, report formats, the Python API, and the
shipped example replayed offline from its recorded cache."""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction

import pytest
from tests.paths import ROOT, TESTS

sys.path.insert(0, str(TESTS))
from proof_server import ScriptedServer  # noqa: E402
from test_proof_grading import PROBLEMS, SOLUTIONS, grade, write_jsonl  # noqa: E402

from judge.scoring.agreement import Scale, compute_agreement  # noqa: E402
from judge.cli.main import main  # noqa: E402
from judge.grading.proofs.report import agreement, map_human, round_half_up  # noqa: E402
from judge.grading.proofs.workflows import SolutionGrade  # noqa: E402

EXAMPLE = ROOT / "examples" / "proofs"

# human h and predicted g, 0-7.  Worked out by hand (see each test):
H = [0, 2, 4, 7, 7]
G = [1, 2, 3, 7, 5]


def results(grades, workflow="w"):
    return [SolutionGrade("p", f"s{i}", workflow, grade=g) for i, g in enumerate(grades)]


def metrics(h, g, scale="0-7"):
    human = {f"s{i}": v for i, v in enumerate(h)}
    return agreement(results(g), human, scale).metrics


def test_error_metrics_by_hand():
    # |h - g| = 1, 0, 1, 0, 2
    m = metrics(H, G)
    assert m["mae"].value == pytest.approx(4 / 5)
    assert m["rmse"].value == pytest.approx(math.sqrt(6 / 5))
    assert m["off_by_1"].value == pytest.approx(4 / 5)   # |d| <= 1 for four of five
    assert m["off_by_2"].value == pytest.approx(1.0)


def test_correlations_by_hand():
    # mean h 4, mean g 3.6; var h 7.6, var g 4.64, cov 20 - 14.4 = 5.6
    m = metrics(H, G)
    assert m["pearson"].value == pytest.approx(5.6 / math.sqrt(7.6 * 4.64))
    # ranks h 1 2 3 4.5 4.5, g 1 2 3 5 4: sum of products of deviations 9.5, squares 9.5 and 10
    assert m["spearman"].value == pytest.approx(9.5 / math.sqrt(9.5 * 10))


def test_qwk_is_the_papers_definition():
    # kappa = 1 - sum w O / sum w E with w = (i-j)^2/49, E_ij = p_i q_j.  Observed: mean d^2 = 6/5.
    # Expected under independence: var h + var g + (mean h - mean g)^2 = 7.6 + 4.64 + 0.16 = 12.4
    assert metrics(H, G)["qwk"].value == pytest.approx(1 - Fraction(6, 5) / Fraction(124, 10))
    assert metrics(H, G)["qwk"].value == pytest.approx(28 / 31)


def test_ac2_by_hand_and_the_papers_simplified_form():
    # Gwet: pa = 1 - (6/5)/49 = 239/245; pooled pi over 10 ratings: 0:.1 1:.1 2:.2 3:.1 4:.1 5:.1 7:.3
    # T_r = 64 - 672/49 = 352/7; pe = T_r/(8*7) * (1 - sum pi^2) = (44/49)(41/50) = 902/1225
    # AC2 = (pa - pe) / (1 - pe) = 293/323
    assert metrics(H, G)["ac2"].value == pytest.approx(293 / 323)
    # The paper's 1 - D_o/D_e with pooled marginals: D_e = 2 var(pooled)/49 = 12.32/49, D_o = 1.2/49
    paper_form = 1 - 1.2 / 12.32
    assert paper_form == pytest.approx(139 / 154)
    assert abs(paper_form - 293 / 323) > 0.004  # a different number: we report Gwet's (README says so)


def test_same_numbers_as_the_agreement_module_for_integer_grades():
    rep = compute_agreement(H, G, Scale(0, 7))
    m = metrics(H, G)
    for key, res in rep.metrics.items():
        assert m[key].value == pytest.approx(res.value)


def test_one_to_four_scale_maps_2x_minus_1():
    assert [map_human(x, "1-4") for x in (1, 2, 3, 4)] == [1, 3, 5, 7]
    human4 = [1, 2, 3, 4, 4]
    g = [1, 3, 5, 7, 6]
    m = metrics(human4, g, "1-4")
    assert m["mae"].value == pytest.approx(1 / 5)
    assert m["off_by_1"].value == 1.0
    mapped = compute_agreement([1, 3, 5, 7, 7], g, Scale(0, 7))
    assert m["qwk"].value == pytest.approx(mapped.metrics["qwk"].value)
    assert m["ac2"].value == pytest.approx(mapped.metrics["ac2"].value)


def test_averaged_grades_round_half_up_for_categories():
    assert [round_half_up(x) for x in (0.5, 1.5, 2.4999, 6.5, 3.0)] == [1, 2, 2, 7, 3]
    m = metrics([0, 7, 3], [0.5, 6.5, 3.0])
    assert m["mae"].value == pytest.approx(1 / 3)         # on the averages
    assert m["qwk"].value == compute_agreement([0, 7, 3], [1, 7, 3], Scale(0, 7)).metrics["qwk"].value


def test_undefined_metric_is_reported_not_invented():
    m = metrics([3, 3, 3], [3, 3, 3])
    assert m["pearson"].value is None and "zero variance" in m["pearson"].reason
    assert m["qwk"].value is None and m["ac2"].value == 1.0


def test_errors_and_ungraded_are_left_out():
    rs = results([7, 2, None])
    rs[2].error, rs[2].error_kind = "grade: no valid reply", "invalid_reply"
    a = agreement(rs, {"s0": 7, "s1": 3, "s2": 0}, "0-7")
    assert a.n == 2 and a.errors == 1 and a.confusion[7][7] == 1 and a.confusion[3][2] == 1


# ------------------------------------------------------------------ CLI reports

@pytest.fixture
def server():
    s = ScriptedServer()
    yield s
    s.close()


def test_cli_agreement_json_markdown_html(server, tmp_path, capsys):
    write_jsonl(tmp_path / "problems.jsonl", PROBLEMS)
    write_jsonl(tmp_path / "solutions.jsonl", SOLUTIONS)
    write_jsonl(tmp_path / "human.jsonl", [{"solution_id": "s1", "grade": 4}, {"solution_id": "s2", "grade": 2},
                                           {"solution_id": "s3", "grade": 1}])
    code, lines, summary, _ = grade(server, tmp_path, capsys, "--workflow", "single,ref3",
                                    "--human", str(tmp_path / "human.jsonl"), "--scale", "1-4")
    assert code == 0
    rows = {a["workflow"]: a for a in summary["agreement"]}
    assert set(rows) == {"single", "ref3"}
    # human 4, 2, 1 -> 7, 3, 1; scripted grades 7, 3, 2
    assert rows["single"]["mae"] == pytest.approx(1 / 3) and rows["single"]["n"] == 3
    assert rows["single"]["confusion"][7][7] == 1 and rows["single"]["confusion"][1][2] == 1
    for fmt, needle in (("markdown", "| workflow"), ("html", "<svg")):
        main(["grade", str(tmp_path / "problems.jsonl"), str(tmp_path / "solutions.jsonl"), "--workflow", "ref3",
              "--model", "scripted", "--base-url", server.base_url, "--cache", str(tmp_path / "cache"),
              "--human", str(tmp_path / "human.jsonl"), "--scale", "1-4", "--format", fmt])
        out = capsys.readouterr().out
        assert needle in out and "QWK" in out and "Confusion matrix" in out
        if fmt == "html":
            import re
            import xml.etree.ElementTree as ET

            svg = ET.fromstring(re.search(r"<svg.*?</svg>", out, re.S).group(0))
            cells = [r for r in svg.iter("{http://www.w3.org/2000/svg}rect")]
            assert len(cells) == 64
            titles = [c.find("{http://www.w3.org/2000/svg}title").text for c in cells]
            assert "human 7, predicted 7: 1" in titles and "human 1, predicted 2: 1" in titles


def test_bad_human_grades_are_located(server, tmp_path, capsys):
    write_jsonl(tmp_path / "problems.jsonl", PROBLEMS)
    write_jsonl(tmp_path / "solutions.jsonl", SOLUTIONS)
    h = write_jsonl(tmp_path / "human.jsonl", [{"solution_id": "s1", "grade": 5}, {"solution_id": "s2", "grade": 2.5},
                                               {"grade": 1}, "nope"])
    code, _, summary, err = grade(server, tmp_path, capsys, "--workflow", "single", "--human", str(h),
                                  "--scale", "1-4")
    assert code == 1
    assert f"{h}:1: grade: grade 5 is outside the scale 1-4" in err
    assert f"{h}:2: grade: grade 2.5 is not an integer" in err
    assert f"{h}:3: solution_id: missing or empty" in err and f"{h}:4: invalid JSON" in err


# ------------------------------------------------------------------ Python API

def test_grade_proof_api(server, tmp_path):
    import judge

    problem = {"statement": PROBLEMS[0]["statement"], "references": PROBLEMS[0]["references"]}
    g = judge.grade_proof(problem, "Factor n(n+1); one of them is even. #grade=6", workflow="ref5-approachability",
                          model="scripted", base_url=server.base_url, cache_dir=tmp_path / "c")
    assert g.ok and g.grade == 6.0 and g.reward == pytest.approx(6 / 7)
    assert g.matched_cluster == "C1" and sum(i["points"] for i in g.rubric["items"]) == 7
    assert g.report["overall_assessment"]["score"] == 6
    calls = server.count()
    again = judge.grade_proof(problem, "Factor n(n+1); one of them is even. #grade=6", workflow="ref5-approachability",
                              model="scripted", base_url=server.base_url, cache_dir=tmp_path / "c", offline=True)
    assert again.grade == 6.0 and server.count() == calls
    server.script["grade_single"] = ["500"] * 5
    bad = judge.grade_proof(problem, "x", workflow="single", model="scripted", base_url=server.base_url,
                            cache_dir=tmp_path / "c", max_retries=0)
    assert not bad.ok and bad.grade is None and bad.reward is None and bad.error_kind == "unavailable"


# ------------------------------------------------------------------ the shipped example, offline

def test_shipped_example_replays_offline_for_every_workflow(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    code = main(["grade", str(EXAMPLE / "problems.jsonl"), str(EXAMPLE / "solutions.jsonl"), "--workflow", "all",
                 "--ensemble", "ref3,ref5-plain,ref5-approachability,ref5-milestones",
                 "--human", str(EXAMPLE / "grades.jsonl"), "--cache", str(EXAMPLE / "cache"), "--offline",
                 "--output", str(out), "--format", "json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0
    assert summary["total"]["calls"] == 0 and summary["total"]["cache_hits"] > 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 22 * 7 and all(x["status"] == "ok" for x in lines)
    human = {json.loads(x)["solution_id"]: json.loads(x)["grade"] for x in (EXAMPLE / "grades.jsonl").read_text().splitlines()}
    assert len(human) >= 20 and len(set(human.values())) == 8  # the whole grade range
    rows = {a["workflow"]: a for a in summary["agreement"]}
    assert len(rows) == 7
    for wf in ("single", "ref3", "ref5-plain", "ref5-approachability", "ref5-milestones", "ref5-hybrid"):
        mine = [x for x in lines if x["workflow"] == wf]
        ids = [x["solution_id"] for x in mine]
        ref = compute_agreement([human[i] for i in ids], [int(x["grade"]) for x in mine], Scale(0, 7))
        for key, res in ref.metrics.items():
            assert rows[wf][key] == pytest.approx(res.value), (wf, key)
