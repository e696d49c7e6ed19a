"""The RefGrader paper's rules as written (issue 23 item 6; seed: refgrader-paper.md): per-file
maps, averaged predictions, the paper's 1 - D_o/D_e beside Gwet's AC2, the majority-grade
baseline, sampling only the grading step, and the prompts' wording (real local HTTP server)."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from tests.paths import TESTS

sys.path.insert(0, str(TESTS))
from proof_server import ScriptedServer  # noqa: E402

from judge.cli.main import main  # noqa: E402
from judge.grading.proofs.engine import render  # noqa: E402
from judge.grading.proofs.inputs import ProofProblem  # noqa: E402
from judge.grading.proofs.schemas import Cluster, SolutionAnalysis  # noqa: E402
from judge.scoring.agreement import (  # noqa: E402
    Scale, compute_agreement, gwet_ac2, mae, majority_grade, paper_ac2, parse_map, quadratic_weighted_kappa,
)

HUMAN14 = {"a": 1, "b": 2, "c": 3, "d": 4, "e": 4, "f": 1}
PRED07 = {"a": 1, "b": 3.5, "c": 5, "d": 7, "e": 6, "f": 0}


def jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def grades_files(tmp_path):
    h = jsonl(tmp_path / "human.jsonl", [{"id": k, "grade": v} for k, v in HUMAN14.items()])
    p = jsonl(tmp_path / "pred.jsonl", [{"id": k, "grade": v} for k, v in PRED07.items()])
    return h, p


def agreement_json(capsys, *argv) -> tuple[int, dict]:
    code = main(["agreement", *map(str, argv), "--format", "json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if out.out.strip() else {"err": out.err})


# ------------------------------------------------------------------ maps per file, averaged predictions

@pytest.mark.parametrize("flags", [["--map", "human=2x-1"], ["--map-human", "2x-1"], ["--map", "FILE=2x-1"],
                                   ["--map-human", "2*x - 1", "--scale", "1-4", "--pred-scale", "0-7"],
                                   ["--map-human", "2x-1", "--scale", "0-7"],     # the compared scale
                                   ["--map-human", "2x-1", "--target-scale", "0-7"]])
def test_paper_imo_setting_maps_the_human_side_only(tmp_path, capsys, flags):
    h, p = grades_files(tmp_path)
    flags = [str(h) + "=2x-1" if f == "FILE=2x-1" else f for f in flags]   # the human file's own path
    code, rep = agreement_json(capsys, h, p, *flags)
    assert code == 0, rep
    ids = sorted(HUMAN14)
    human = [2 * HUMAN14[i] - 1 for i in ids]                    # m(x) = 2x - 1 on the human grades
    pred = [Fraction(str(PRED07[i])) for i in ids]               # the grader's, as they are (3.5 kept)
    assert rep["scale"] == "0-7" and rep["human_map"] and rep["pred_map"] is None and rep["map"] is None
    assert rep["mae"] == pytest.approx(float(mae(human, pred)))
    assert rep["mae"] == pytest.approx((0 + 0.5 + 0 + 0 + 1 + 1) / 6)
    rounded = [int(x + Fraction(1, 2)) for x in pred]            # 3.5 -> 4 for the categorical metrics
    assert rep["rounded_grades"] == 1
    assert rep["qwk"] == pytest.approx(quadratic_weighted_kappa(human, rounded, Scale(0, 7)))
    assert rep["ac2"] == pytest.approx(gwet_ac2(human, rounded, Scale(0, 7)))
    assert rep["ac2_paper"] == pytest.approx(paper_ac2(human, rounded, Scale(0, 7)))


def test_paper_map_on_the_predicted_side_only(tmp_path, capsys):
    h, p = grades_files(tmp_path)   # swapped: the "human" file on 0-7, predictions on 1-4
    code, rep = agreement_json(capsys, p, h, "--map-pred", "2x-1")
    assert code == 0, rep
    assert rep["scale"] == "0-7" and rep["pred_map"] == "2x-1" and rep["human_map"] is None
    assert rep["mae"] == pytest.approx((0 + 0.5 + 0 + 0 + 1 + 1) / 6)


def test_bare_map_maps_both_files_and_says_how_to_map_one(tmp_path, capsys):
    h, p = grades_files(tmp_path)
    code, rep = agreement_json(capsys, h, p, "--map", "2x-1")
    assert code == 1 and "outside the scale 1-4" in rep["err"] and "--map human=EXPR" in rep["err"]
    both = jsonl(tmp_path / "both.jsonl", [{"id": k, "grade": v} for k, v in HUMAN14.items()])
    code, rep = agreement_json(capsys, h, both, "--map", "2x-1")
    assert code == 0 and rep["map"] == "2x-1" and rep["mae"] == 0 and rep["scale"] == "0-7"
    code, rep = agreement_json(capsys, h, p, "--map", "human=2x-1", "--map", "2x-1")
    assert code == 2
    code, rep = agreement_json(capsys, h, p, "--map", "judge=2x-1")
    assert code == 2 and "human or pred" in rep["err"]


def test_averaged_predictions_and_rounding_none(tmp_path, capsys):
    h, p = grades_files(tmp_path)
    code, rep = agreement_json(capsys, h, p, "--map", "human=2x-1", "--rounding", "none")
    assert code == 0
    assert rep["qwk"] is None and "not whole" in rep["qwk_reason"] and rep["ac2_paper"] is None
    assert rep["pearson"] is not None and rep["off_by_1"] == 1.0 and rep["mae"] == pytest.approx(2.5 / 6)
    # 3.5 read exactly, CSV too; 1/3-averages from three samples
    csv = tmp_path / "pred.csv"
    csv.write_text("id,grade\na,1\nb,3.5\nc,4.333333333333333\n")
    human = jsonl(tmp_path / "h2.jsonl", [{"id": "a", "grade": 1}, {"id": "b", "grade": 3}, {"id": "c", "grade": 5}])
    code, rep = agreement_json(capsys, human, csv, "--scale", "0-7")
    assert code == 0 and rep["mae"] == pytest.approx((0 + 0.5 + (5 - 4.333333333333333)) / 3)


def test_a_whole_grade_must_map_to_a_whole_grade():
    assert parse_map("0.5x")(Fraction(7, 2)) == Fraction(7, 4)
    with pytest.raises(ValueError, match="not an integer"):
        parse_map("0.5x")(3)


# ------------------------------------------------------------------ 1 - D_o/D_e and the majority baseline

def test_paper_formula_reported_beside_gwet_and_majority_baseline():
    human, pred = [3] * 9 + [2], [2] * 9 + [3]
    rep = compute_agreement(human, pred, Scale(0, 7))
    # the paper: D_o = sum w P, D_e = sum w pi pi with pooled marginals pi = (.5, .5) on {2, 3}
    d_o = Fraction(10, 10) / 49
    d_e = 2 * Fraction(1, 2) * Fraction(1, 2) / 49
    assert rep.metrics["ac2_paper"].value == pytest.approx(float(1 - d_o / d_e))     # -1.0
    assert rep.metrics["ac2"].value == pytest.approx(gwet_ac2(human, pred, Scale(0, 7)))
    assert rep.metrics["ac2"].value != pytest.approx(rep.metrics["ac2_paper"].value)
    assert rep.majority == 3 and majority_grade([1, 1, 2, 2, 0]) == 1   # ties: the lower grade
    base = rep.baseline
    assert base["mae"].value == pytest.approx(0.1) and base["off_by_1"].value == 1.0
    assert base["pearson"].value is None and "zero variance" in base["pearson"].reason


# ------------------------------------------------------------------ judge grade: --human, --samples

PROBLEMS = [
    {"problem_id": "P1", "statement": "Show that n^2 + n is even for every integer n.", "topic": "N",
     "references": ["Factor n^2+n as n(n+1). One of two consecutive integers is even.",
                    "Induction on n. The base case holds and (n+1)^2+(n+1) = n^2+n + 2(n+1)."]},
]
SOLUTIONS = [
    {"problem_id": "P1", "solution_id": "s1", "solution": "Factor n(n+1): consecutive integers, one is even. #grade=7"},
    {"problem_id": "P1", "solution_id": "s2", "solution": "Induction on n: base case fine, step unclear. #grade=3"},
    {"problem_id": "P1", "solution_id": "s3", "solution": "Check n = 1, 2, 3: even. #grade=1"},
]


@pytest.fixture
def server():
    s = ScriptedServer()
    yield s
    s.close()


def grade(server, tmp_path, capsys, *extra):
    jsonl(tmp_path / "problems.jsonl", PROBLEMS)
    jsonl(tmp_path / "solutions.jsonl", SOLUTIONS)
    code = main(["grade", str(tmp_path / "problems.jsonl"), str(tmp_path / "solutions.jsonl"), "--model", "m",
                 "--base-url", server.base_url, "--cache", str(tmp_path / "cache"), "--format", "json",
                 "--output", str(tmp_path / "out.jsonl"), *extra])
    return code, json.loads(capsys.readouterr().out)


def test_samples_ask_only_the_grading_step_again(server, tmp_path, capsys):
    code, _ = grade(server, tmp_path, capsys, "--workflow", "ref5-plain")
    assert code == 0
    assert {r["body"]["temperature"] for r in server.requests} == {0.0}
    per_problem = {"cluster", "analysis", "rubric", "match"}
    assert per_problem <= {r["step"] for r in server.requests}
    server.requests.clear()
    code, summary = grade(server, tmp_path, capsys, "--workflow", "ref5-plain", "--samples", "3")
    assert code == 0
    asked = [r for r in server.requests]
    # clusters, analyses, rubrics and matches come from the cache; only grading is sampled
    assert {r["step"] for r in asked} == {"grade_ref5_plain"}
    assert {r["body"]["temperature"] for r in asked} == {0.7}
    assert len(asked) == 3 * len(SOLUTIONS)   # K grading calls per solution, seeds None, 1, 2
    assert sorted(r["body"].get("seed") or 0 for r in asked) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    for step in ("cluster", "analysis", "rubric", "match"):
        assert summary["steps"][step]["calls"] == 0 and summary["steps"][step]["cache_hits"] > 0
    # an explicit --temperature is the grading step's; the other steps still ask at 0
    server.requests.clear()
    code, _ = grade(server, tmp_path, capsys, "--workflow", "ref5-plain", "--temperature", "0.3")
    assert code == 0 and {r["body"]["temperature"] for r in server.requests} == {0.3}
    assert {r["step"] for r in server.requests} == {"grade_ref5_plain"}


def test_grade_human_reports_the_paper_formula_and_the_baseline(server, tmp_path, capsys):
    jsonl(tmp_path / "human.jsonl", [{"solution_id": "s1", "grade": 4}, {"solution_id": "s2", "grade": 2},
                                     {"solution_id": "s3", "grade": 2}])
    code, summary = grade(server, tmp_path, capsys, "--workflow", "single", "--human",
                          str(tmp_path / "human.jsonl"), "--scale", "1-4")
    assert code == 0
    row = summary["agreement"][0]
    human, pred = [7, 3, 3], [7, 3, 1]          # 1-4 mapped by 2x-1; the scripted grades
    assert row["ac2_paper"] == pytest.approx(paper_ac2(human, pred, Scale(0, 7)))
    assert row["ac2"] == pytest.approx(gwet_ac2(human, pred, Scale(0, 7)))
    assert row["majority_baseline"]["grade"] == 3
    assert row["majority_baseline"]["mae"] == pytest.approx(4 / 3)
    main(["grade", str(tmp_path / "problems.jsonl"), str(tmp_path / "solutions.jsonl"), "--model", "m",
          "--base-url", server.base_url, "--cache", str(tmp_path / "cache"), "--workflow", "single",
          "--human", str(tmp_path / "human.jsonl"), "--scale", "1-4", "--format", "markdown"])
    out = capsys.readouterr().out
    assert "1-Do/De" in out and "| majority (3)" in out and "the paper's formula" in out


# ------------------------------------------------------------------ the prompts

def _analysis():
    return SolutionAnalysis.model_validate({"main_steps": [
        {"title": "Factor", "unlock": "a product", "importance": "i", "principle": "p", "substeps": ["x", "y"]},
        {"title": "Parity", "unlock": "evenness", "importance": "i", "principle": "p", "substeps": ["z"],
         "approachability": 3}]})


@pytest.mark.parametrize("rubric", ["steps", "approachability", "milestones"])
def test_rubric_prompt_keeps_each_title_off_its_unlocks_line(rubric):
    problem = ProofProblem(problem_id="P", statement="S", references=["r"], topic="G")
    cluster = Cluster(class_id="C1", main_steps=["a"], representative_solution="rep")
    text = render("rubric.j2", problem=problem, cluster=cluster, analysis=_analysis(), rubric=rubric,
                  suggested=[3, 4])[1]["content"]
    assert "Main step 1: Factor\n  unlocks: a product\n" in text
    assert "Main step 2: Parity (approachability 3/5)\n  unlocks: evenness\n" in text
    assert "    1. x\n    2. y\n" in text
    assert "Initial progress (optional)" in text and "consider one point" in text
    assert "this problem's topic: G" in text and "geometry (G), constructions or theorem applications" in text
    assert "number theory (N), novel uses of modular arithmetic" in text


def test_cluster_prompt_orders_the_representative_priorities():
    problem = ProofProblem(problem_id="P", statement="S", references=["r1", "r2"])
    text = render("cluster.j2", problem=problem)[1]["content"]
    b, o, latex = text.index("brevity"), text.index("originality"), text.index("LaTeX quality")
    assert b < o < latex
