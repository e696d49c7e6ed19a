"""Proof grading end to end against a real local chat-completions server (tests/proof_server.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests.paths import TESTS

sys.path.insert(0, str(TESTS))
from proof_server import ScriptedServer, grade_reply  # noqa: E402

from judge.cli.main import main  # noqa: E402
from judge.grading.proofs.workflows import WORKFLOWS, proportional_points  # noqa: E402

PROBLEMS = [
    {"problem_id": "P1", "statement": "Show that n^2 + n is even for every integer n.",
     "references": ["Factor n^2+n as n(n+1). One of two consecutive integers is even.",
                    "Induction on n. The base case holds and (n+1)^2+(n+1) = n^2+n + 2(n+1)."]},
    {"problem_id": "P2", "statement": "Prove there are infinitely many primes.",
     "references": ["Suppose finitely many primes p1..pk. Then p1...pk + 1 has a prime factor not in the list."]},
]
SOLUTIONS = [
    {"problem_id": "P1", "solution_id": "s1", "solution": "Factor n(n+1): consecutive integers, one is even. #grade=7"},
    {"problem_id": "P1", "solution_id": "s2", "solution": "Induction on n: base case fine, step unclear. #grade=3"},
    {"problem_id": "P2", "solution_id": "s3", "solution": "Suppose finitely many primes; multiply them. #grade=2"},
]


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def server():
    s = ScriptedServer()
    yield s
    s.close()


@pytest.fixture
def files(tmp_path):
    return (write_jsonl(tmp_path / "problems.jsonl", PROBLEMS), write_jsonl(tmp_path / "solutions.jsonl", SOLUTIONS))


def grade(server, tmp_path, capsys, *extra, problems=None, solutions=None, cache="cache"):
    p, s = problems or tmp_path / "problems.jsonl", solutions or tmp_path / "solutions.jsonl"
    out = tmp_path / "out.jsonl"
    argv = ["grade", str(p), str(s), "--model", "scripted", "--cache", str(tmp_path / cache),
            "--output", str(out), "--retries", "2", "--timeout", "2", "--format", "json", *extra]
    if server is not None and "--base-url" not in extra:
        argv += ["--base-url", server.base_url]
    code = main(argv)
    captured = capsys.readouterr()
    lines = [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else []
    summary = json.loads(captured.out) if captured.out.strip().startswith("{") else None
    return code, lines, summary, captured.err


# ------------------------------------------------------------------ each workflow end to end

@pytest.mark.parametrize("workflow", WORKFLOWS.names())
def test_each_workflow_end_to_end(server, files, tmp_path, capsys, workflow):
    code, lines, summary, err = grade(server, tmp_path, capsys, "--workflow", workflow)
    assert code == 0, err
    assert [(x["solution_id"], x["grade"], x["workflow"], x["status"]) for x in lines] == [
        ("s1", 7.0, workflow, "ok"), ("s2", 3.0, workflow, "ok"), ("s3", 2.0, workflow, "ok")]
    assert lines[0]["reward"] == 1.0 and lines[2]["reward"] == pytest.approx(2 / 7)
    assert lines[0]["identified_errors"][0]["type"] == "calculation-mistakes"
    assert lines[0]["feedback"] == "scripted feedback"
    if workflow == "single":
        assert lines[0]["matched_cluster"] is None and set(server.steps()) == {"grade_single"}
    else:
        # s1 shares the factoring words with reference 1, s2 the induction words with reference 2
        assert [x["matched_cluster"] for x in lines] == ["C1", "C2", "C1"]
    if workflow.startswith("ref5"):
        rubric = lines[0]["rubric"]
        assert sum(i["points"] for i in rubric["items"]) == 7
        assert rubric["kind"] == ("milestones" if workflow in ("ref5-milestones", "ref5-hybrid") else "steps")
        grade_req = [r for r in server.requests if r["step"].startswith("grade")][0]
        assert "R2. second - 4 points" in grade_req["body"]["messages"][1]["content"]
    else:
        assert lines[0]["rubric"] is None
    # every structured request carries its JSON Schema for constrained decoding
    for r in server.requests:
        fmt = r["body"]["response_format"]
        assert fmt["type"] == "json_schema" and "properties" in fmt["json_schema"]["schema"]
    assert summary["graded"] == {"total": 3, "ok": 3, "errors": 0}


def test_approachability_rubric_gets_proportional_split(server, files, tmp_path, capsys):
    grade(server, tmp_path, capsys, "--workflow", "ref5-approachability")
    rubric_req = [r for r in server.requests if r["step"] == "rubric"][0]
    # approachability 2 and 5 -> 7 points split 2:5
    assert "rounded to whole points, is: 2, 5" in rubric_req["body"]["messages"][1]["content"]
    analysis_req = [r for r in server.requests if r["step"] == "analysis"][0]
    assert "approachability" in analysis_req["body"]["messages"][1]["content"]


def test_proportional_points():
    assert proportional_points([2, 5]) == [2, 5]
    assert proportional_points([1, 1, 1]) == [3, 2, 2]
    assert proportional_points([1, 5, 5]) == [1, 3, 3]
    assert sum(proportional_points([5, 1, 1, 1])) == 7 and min(proportional_points([5, 1, 1, 1])) >= 1
    assert proportional_points([1] * 8) == [1] * 7 + [0]


# ------------------------------------------------------------------ calls and caching

def test_call_counts_cold_warm_full_and_offline(server, files, tmp_path, capsys):
    code, cold, summary, _ = grade(server, tmp_path, capsys, "--workflow", "ref5-plain")
    assert code == 0
    steps = summary["steps"]
    # per problem: clustering once per problem; analysis and rubric once per matched cluster
    assert server.count("cluster") == 2 and steps["cluster"]["calls"] == 2
    assert server.count("analysis") == 3 and server.count("rubric") == 3  # (P1,C1) (P1,C2) (P2,C1)
    # per solution: matching only where there is a choice (P1 has two strategies), grading always
    assert server.count("match") == 2 and server.count("grade_ref5_plain") == 3
    assert summary["total"]["tokens_in"] > 0 and summary["total"]["tokens_out"] > 0

    # warm per-problem cache: new solutions, same problems -> only steps 2 and 5 run
    server.reset()
    new = [dict(s, solution_id=s["solution_id"] + "b", solution=s["solution"] + " (revised)") for s in SOLUTIONS]
    write_jsonl(tmp_path / "new.jsonl", new)
    code, warm, summary, _ = grade(server, tmp_path, capsys, "--workflow", "ref5-plain",
                                   solutions=tmp_path / "new.jsonl")
    assert code == 0
    assert server.count("cluster") == server.count("analysis") == server.count("rubric") == 0
    assert server.count("match") == 2 and server.count("grade_ref5_plain") == 3
    assert summary["steps"]["cluster"] == dict(summary["steps"]["cluster"], calls=0, cache_hits=2)

    # full cache: zero calls, identical grades
    server.reset()
    code, full, summary, _ = grade(server, tmp_path, capsys, "--workflow", "ref5-plain")
    assert code == 0 and server.count() == 0 and summary["total"]["calls"] == 0
    assert summary["total"]["cache_hits"] == 2 + 3 + 3 + 2 + 3
    assert full == cold

    # --offline with the server gone: same grades; a new solution is a clear cache-miss error
    base = server.base_url
    server.close()
    write_jsonl(tmp_path / "more.jsonl", SOLUTIONS + [{"problem_id": "P2", "solution_id": "s9",
                                                        "solution": "Something new. #grade=1"}])
    code, off, summary, err = grade(None, tmp_path, capsys, "--workflow", "ref5-plain", "--offline",
                                    "--base-url", base, solutions=tmp_path / "more.jsonl")
    assert code == 4
    assert off[:3] == cold
    assert off[3]["status"] == "error" and off[3]["grade"] is None and off[3]["reward"] is None
    assert off[3]["error_kind"] == "cache_miss" and "--offline" in off[3]["error"]
    assert "more.jsonl:4: s9 [ref5-plain]: not graded" in err
    assert summary["error_kinds"] == {"cache_miss": 1}


def test_cache_key_includes_model_and_base_url(server, files, tmp_path, capsys):
    grade(server, tmp_path, capsys, "--workflow", "single")
    assert server.count() == 3
    other = ScriptedServer()
    try:
        grade(other, tmp_path, capsys, "--workflow", "single", "--base-url", other.base_url)
        assert other.count() == 3  # same model name, different server: not served from the cache
    finally:
        other.close()
    server.reset()
    grade(server, tmp_path, capsys, "--workflow", "single", "--model", "another-model")
    assert server.count() == 3 and {r["body"]["model"] for r in server.requests} == {"another-model"}


def test_offline_uses_the_caches_only_model(server, files, tmp_path, capsys):
    _, live, _, _ = grade(server, tmp_path, capsys, "--workflow", "ref3")
    server.close()
    out = tmp_path / "o.jsonl"
    code = main(["grade", str(tmp_path / "problems.jsonl"), str(tmp_path / "solutions.jsonl"), "--workflow", "ref3",
                 "--cache", str(tmp_path / "cache"), "--offline", "--output", str(out)])
    capsys.readouterr()
    assert code == 0
    assert [json.loads(x) for x in out.read_text().splitlines()] == live


def test_trace_records_every_call(server, files, tmp_path, capsys):
    grade(server, tmp_path, capsys, "--workflow", "ref3")
    grade(server, tmp_path, capsys, "--workflow", "ref3")
    rows = [json.loads(x) for x in (tmp_path / "cache" / "trace.jsonl").read_text().splitlines()]
    assert len(rows) == 2 * (2 + 2 + 3)
    first, second = rows[:7], rows[7:]
    assert not any(r["cache_hit"] for r in first) and all(r["cache_hit"] for r in second)
    for r in rows:
        assert {"step", "problem_id", "solution_id", "prompt_hash", "tokens_in", "tokens_out", "latency_s",
                "cache_hit", "template", "template_version"} <= set(r)
        assert r["template"].endswith(".j2") and len(r["template_version"]) == 12
    assert {r["step"] for r in rows} == {"cluster", "match", "grade-ref3"}
    assert sorted(r["prompt_hash"] for r in first) == sorted(r["prompt_hash"] for r in second)


# ------------------------------------------------------------------ samples and ensembles

def test_samples_average_and_seeds(server, files, tmp_path, capsys):
    scores = iter([7, 6, 5, 3, 3, 4, 2, 1, 0])

    def model(step, body):
        return grade_reply(next(scores))
    server.model = model
    code, lines, summary, _ = grade(server, tmp_path, capsys, "--workflow", "single", "--samples", "3",
                                    "--concurrency", "1")
    assert code == 0
    assert [x["sample_grades"] for x in lines] == [[7, 6, 5], [3, 3, 4], [2, 1, 0]]
    assert [x["grade"] for x in lines] == [6.0, pytest.approx(10 / 3), 1.0]
    seeds = [r["body"].get("seed") for r in server.requests]
    assert seeds == [None, 1, 2] * 3
    assert {r["body"]["temperature"] for r in server.requests} == {0.7}


def test_ensemble_averages_workflows(server, files, tmp_path, capsys):
    def model(step, body):
        from proof_server import default_model
        if step == "grade_ref3":
            return grade_reply(4)
        return default_model(step, body)
    server.model = model
    code, lines, _, _ = grade(server, tmp_path, capsys, "--ensemble", "ref3,ref5-milestones")
    assert code == 0
    ens = [x for x in lines if x["workflow"].startswith("ensemble")]
    assert [x["workflow"] for x in lines[:3]] == ["ref3", "ref5-milestones", "ensemble(ref3+ref5-milestones)"]
    assert [x["grade"] for x in ens] == [5.5, 3.5, 3.0]
    assert ens[0]["members"] == {"ref3": 4.0, "ref5-milestones": 7.0}


def test_ensemble_is_an_error_when_a_member_fails(server, files, tmp_path, capsys):
    server.script["grade_ref3"] = ["not json"] * 3
    code, lines, _, _ = grade(server, tmp_path, capsys, "--ensemble", "ref3,single", "--concurrency", "1")
    assert code == 4
    ens = [x for x in lines if x["workflow"].startswith("ensemble")]
    assert ens[0]["status"] == "error" and ens[0]["grade"] is None and "ref3" in ens[0]["error"]
    assert [x["status"] for x in ens[1:]] == ["ok", "ok"]


# ------------------------------------------------------------------ concurrency

def test_concurrency_is_bounded_and_used(tmp_path, capsys):
    server = ScriptedServer(delay_s=0.25)
    try:
        sols = [{"problem_id": "P2", "solution_id": f"c{i}", "solution": f"attempt {i} #grade={i % 8}"} for i in range(12)]
        write_jsonl(tmp_path / "problems.jsonl", PROBLEMS)
        write_jsonl(tmp_path / "solutions.jsonl", sols)
        code, lines, _, _ = grade(server, tmp_path, capsys, "--workflow", "single", "--concurrency", "4")
        assert code == 0 and [x["grade"] for x in lines] == [float(i % 8) for i in range(12)]
        assert [x["solution_id"] for x in lines] == [f"c{i}" for i in range(12)]  # input order kept
        assert 2 <= server.max_in_flight <= 4  # used (requests overlapped) and bounded
    finally:
        server.close()


def test_per_problem_steps_run_once_under_concurrency(tmp_path, capsys):
    server = ScriptedServer(delay_s=0.1)
    try:
        sols = [{"problem_id": "P1", "solution_id": f"c{i}", "solution": f"Factor n(n+1), attempt {i} #grade=5"} for i in range(8)]
        write_jsonl(tmp_path / "problems.jsonl", PROBLEMS)
        write_jsonl(tmp_path / "solutions.jsonl", sols)
        code, lines, _, _ = grade(server, tmp_path, capsys, "--workflow", "ref5-hybrid", "--concurrency", "8")
        assert code == 0 and all(x["grade"] == 5.0 for x in lines)
        assert server.count("cluster") == server.count("analysis") == server.count("rubric") == 1
        assert server.count("grade_ref5_hybrid") == 8
    finally:
        server.close()


def test_table_without_human_lists_each_solution(server, files, tmp_path, capsys):
    code = main(["grade", str(tmp_path / "problems.jsonl"), str(tmp_path / "solutions.jsonl"), "--workflow",
                 "ref3", "--model", "scripted", "--base-url", server.base_url, "--cache", str(tmp_path / "c")])
    out = capsys.readouterr().out
    assert code == 0
    assert [ln.split()[:4] for ln in out.splitlines()[:3]] == [
        ["s1", "ref3", "7.00", "C1"], ["s2", "ref3", "3.00", "C2"], ["s3", "ref3", "2.00", "C1"]]
    assert "Model calls per step:" in out and "grade-ref3" in out


def test_json_without_output_file_carries_the_results(server, files, tmp_path, capsys):
    code = main(["grade", str(tmp_path / "problems.jsonl"), str(tmp_path / "solutions.jsonl"), "--workflow",
                 "single", "--model", "scripted", "--base-url", server.base_url, "--cache", str(tmp_path / "c"),
                 "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and [r["grade"] for r in doc["results"]] == [7.0, 3.0, 2.0]


def test_artefacts_file_lists_per_problem_steps(server, files, tmp_path, capsys):
    art = tmp_path / "artefacts.jsonl"
    code, lines, _, _ = grade(server, tmp_path, capsys, "--workflow", "ref5-plain,ref5-hybrid", "--artefacts", str(art))
    assert code == 0
    recs = [json.loads(x) for x in art.read_text().splitlines()]
    kinds = [(r["problem_id"], r["artefact"], r.get("cluster"), r.get("variant") or r.get("rubric_variant"))
             for r in recs]
    assert kinds[0] == ("P1", "cluster", None, None)
    assert ("P1", "analysis", "C2", "approachability") in kinds and ("P2", "rubric", "C1", "milestones") in kinds
    assert len([k for k in kinds if k[1] == "rubric"]) == 2 * 3  # (P1,C1) (P1,C2) (P2,C1) x two rubric kinds
    by_rubric = {(r["problem_id"], r["cluster"], r["rubric_variant"]): r["rubric"] for r in recs if r["artefact"] == "rubric"}
    hybrid = [x for x in lines if x["workflow"] == "ref5-hybrid"][0]
    assert hybrid["rubric"] == by_rubric[("P1", "C1", "milestones")]
