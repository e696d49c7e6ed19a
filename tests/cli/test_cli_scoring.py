"""The score / aime / match / agreement subcommands, through a parser built with register()."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge.cli.scoring import register
import judge.settings
from tests.paths import ROOT


@pytest.fixture(autouse=True)
def _settings_read_again():
    """The judge reads its settings once (judge.settings): a test that sets a variable reads
    them again, and after it (once monkeypatch has put the environment back) so do we."""
    yield
    judge.settings.reload()


EXAMPLES = ROOT / "examples" / "scoring"
SAMPLE = ROOT / "examples" / "math" / "aime_sample" / "tasks"


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="judge")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args([str(a) for a in argv])
    return args.func(args)


def write(path: Path, content) -> Path:
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def jsonl(path: Path, rows) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


# ---------------------------------------------------------------- score


def test_score_submission_table_and_json(capsys):
    files = [EXAMPLES / "generic.json", EXAMPLES / "generic_submission.json",
             "--ground-truth", EXAMPLES / "generic_ground_truth.json"]
    assert run("score", *files) == 0
    out = capsys.readouterr().out
    assert "accuracy" in out and "exact_match_ratio" in out and "total" in out
    assert run("score", *files, "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["name"] for d in data["dimensions"]] == ["accuracy", "estimate", "summary", "findings", "coverage", "speed"]
    assert data["total"] == pytest.approx(sum(d["weighted"] for d in data["dimensions"]))


def test_score_usage_and_input_errors(tmp_path, capsys):
    assert run("score", EXAMPLES / "generic.json", EXAMPLES / "generic_submission.json") == 2
    assert "--ground-truth" in capsys.readouterr().err
    bad = write(tmp_path / "spec.json", {"type": "deterministic", "dimensions": [
        {"name": "a", "weight": 1, "primitive": "nope"}]})
    assert run("score", bad, EXAMPLES / "generic_submission.json", "--ground-truth", EXAMPLES / "generic_ground_truth.json") == 1
    err = capsys.readouterr().err
    assert "spec.json: at dimensions[0].primitive: unknown primitive 'nope'" in err
    broken = write(tmp_path / "sub.json", '{"answers": [1,\n 2,,]}')
    assert run("score", EXAMPLES / "generic.json", broken, "--ground-truth", EXAMPLES / "generic_ground_truth.json") == 1
    assert "sub.json:2:" in capsys.readouterr().err
    gt = write(tmp_path / "gt.json", {"expected_answers": []})
    assert run("score", EXAMPLES / "generic.json", EXAMPLES / "generic_submission.json", "--ground-truth", gt) == 1
    assert "ground truth has no field 'expected_estimate'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        run("score", EXAMPLES / "generic.json", "x.json", "--format", "xml")
    assert exc.value.code == 2


def _problem(pid: str, n_tests: int) -> dict:
    return {"identifier": pid, "description": "d",
            "prompts": [{"prompt_id": "p", "prompt": "Return the index.", "genericize": False,
                         "sample_inputs_outputs": []}],
            "function_prototype": {"function_name": "f", "parameters": [], "return_values": [{"type": "int"}]},
            "correctness_test_suite": [{"input": {}, "expected_output": [i]} for i in range(n_tests)]}


def _row(pid, verdict, tests, model="gpt"):
    return {"problem_id": pid, "model": model, "prompt_id": "p", "sample": 0, "verdict": verdict,
            "passed": tests.count("pass"), "total": len(tests),
            "tests": [{"index": i, "verdict": v, "time_s": 0.1} for i, v in enumerate(tests)],
            "sandbox": "process", "time_s": 6.0}


def test_score_results_with_suite(tmp_path, capsys):
    suite = tmp_path / "suite"
    suite.mkdir()
    for pid, n in (("p1", 2), ("p2", 2), ("p3", 3)):
        write(suite / f"{pid}.json", _problem(pid, n))
    results = jsonl(tmp_path / "results.jsonl", [
        _row("p1", "pass", ["pass", "pass"]),
        _row("p2", "wrong_answer", ["pass", "wrong_answer"]),
        "{broken",
        {"problem_id": "p3"},
        _row("p1", "wrong_answer", ["wrong_answer", "wrong_answer"], model="other"),
    ])
    code = run("score", EXAMPLES / "code_suite.json", results, "--suite", suite, "--format", "json")
    captured = capsys.readouterr()
    assert code == 1  # bad lines are reported ...
    assert "results.jsonl:3: invalid JSON" in captured.err
    assert "results.jsonl:4: at verdict: Field required" in captured.err
    data = json.loads(captured.out)  # ... and the good ones still scored, per model
    by_model = {m["model"]: {d["name"]: d["score"] for d in m["dimensions"]} for m in data["models"]}
    assert set(by_model) == {"gpt", "other"}
    gpt = by_model["gpt"]
    assert gpt["coverage"] == pytest.approx(2 / 3 * 1000)
    assert gpt["solved"] == pytest.approx(1 / 3 * 1000)
    assert gpt["correctness"] == pytest.approx(3 / 7 * 1000)  # p3's 3 tests count as missing
    assert gpt["speed"] == pytest.approx(900)  # 12 s of 120 s
    assert run("score", EXAMPLES / "code_suite.json", results, "--suite", suite, "--model", "other") == 1
    out = capsys.readouterr().out
    assert "model: other" in out and "gpt" not in out
    assert run("score", EXAMPLES / "code_suite.json", results, "--suite", suite, "--model", "nobody") == 1
    assert "no rows for model 'nobody'" in capsys.readouterr().err


def test_score_results_broken_suite(tmp_path, capsys):
    suite = tmp_path / "suite"
    suite.mkdir()
    write(suite / "p1.json", '{"identifier": "p1",\n "prompts": [}')
    results = jsonl(tmp_path / "r.jsonl", [_row("p1", "pass", ["pass"])])
    assert run("score", EXAMPLES / "code_suite.json", results, "--suite", suite) == 1
    assert "p1.json" in capsys.readouterr().err


def test_score_results_without_suite(tmp_path, capsys):
    results = jsonl(tmp_path / "r.jsonl", [_row("p1", "pass", ["pass"])])
    assert run("score", EXAMPLES / "code_suite.json", results) == 0
    captured = capsys.readouterr()
    assert "no --suite" in captured.err and "1000.00" in captured.out


# ---------------------------------------------------------------- aime


def test_aime_command(tmp_path, capsys):
    outputs = jsonl(tmp_path / "out.jsonl", [
        {"task_id": "aime_sample_i_1", "output": "I considered 12 but the answer is 360"},
        {"task_id": "aime_sample_i_2", "output": "Maybe 130? No: the answer is \\boxed{129}"},
        "not json",
        {"task_id": "no_such_task", "output": "1"},
        {"task_id": "aime_sample_ii_3", "output": "Heron: area 84.0"},
    ])
    assert run("aime", SAMPLE, outputs, "--format", "json") == 1
    captured = capsys.readouterr()
    assert "out.jsonl:3: invalid JSON" in captured.err
    assert "out.jsonl:4: unknown task id 'no_such_task'" in captured.err
    data = json.loads(captured.out)
    assert data["mode"] == "final"
    assert data["per_task"]["aime_sample_i_1"]["accuracy"] == 1.0
    assert data["per_task"]["aime_sample_i_2"]["accuracy"] == 0.0
    assert data["per_subset"]["SAMPLE-I"] == pytest.approx(1 / 7)
    assert data["overall"] == pytest.approx(2 / 14)
    assert run("aime", SAMPLE, outputs, "--mode", "any", "--format", "json") == 1
    assert json.loads(capsys.readouterr().out)["per_task"]["aime_sample_i_2"]["accuracy"] == 1.0
    good = jsonl(tmp_path / "good.jsonl", [{"task_id": "aime_sample_i_1", "output": "360"}])
    assert run("aime", SAMPLE, good) == 0
    out = capsys.readouterr().out
    assert "SAMPLE-I" in out and "SAMPLE-II" in out and "overall" in out and "aime_sample_ii_7" in out


def test_aime_bad_tasks_dir(tmp_path, capsys):
    write(tmp_path / "t.json", {"task_id": "x"})
    assert run("aime", tmp_path, tmp_path / "missing.jsonl") == 1
    assert "t.json: at question: Field required" in capsys.readouterr().err


# ---------------------------------------------------------------- match

REF = {"id": "2023-4", "answer": {"a": '"Kuru."', "b": "<select2,1,inf>x; y; z", "c": "<fuzzy>the big dog"},
       "explanation": {"rules": "", "rule_checklist": ["the suffix ku marks plural"]}}


def test_match_offline(tmp_path, capsys):
    ref = write(tmp_path / "ref.json", REF)
    sol = write(tmp_path / "sol.json", {"id": "2023-4", "answer": {"a": "kuru", "b": "x", "c": "the big dogs"},
                                        "explanation": "Look: the suffix ku marks plural."})
    assert run("match", ref, sol) == 0
    out = capsys.readouterr().out
    assert "problem 2023-4: score 0.833" in out
    assert "OFFLINE" in out and "explanation: 1.000" in out
    assert run("match", ref, sol, "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["score"] for e in data["entries"]] == [1.0, 0.5, 1.0]
    assert data["offline_judge"] is True and "OFFLINE" in data["judge"]


def test_match_errors(tmp_path, capsys, monkeypatch):
    ref = write(tmp_path / "ref.json", {**REF, "answer": {"a": "<select2,1>x, y"}})
    sol = write(tmp_path / "sol.json", {"id": "2023-4", "answer": {"a": "**"}})
    assert run("match", ref, sol) == 1
    assert "ref.json: answer['a']: malformed select prefix" in capsys.readouterr().err
    ref = write(tmp_path / "ref.json", REF)
    other = write(tmp_path / "other.json", {"id": "2023-5", "answer": {}})
    assert run("match", ref, other) == 1
    assert "does not match reference id" in capsys.readouterr().err
    broken = write(tmp_path / "broken.json", '{"id": "2023-4", "answer": [')
    assert run("match", ref, broken) == 1
    assert "broken.json:1:" in capsys.readouterr().err
    monkeypatch.delenv("JUDGE_LLM_MODEL", raising=False)
    judge.settings.reload()
    assert run("match", ref, sol, "--judge", "llm") == 2
    assert "JUDGE_LLM_MODEL" in capsys.readouterr().err


def test_match_llm_against_local_server(tmp_path, capsys, monkeypatch):
    from tests.grading.test_llm import FakeChatServer

    monkeypatch.setenv("JUDGE_LLM_CACHE", str(tmp_path / "cache"))
    judge.settings.reload()
    server = FakeChatServer()
    server.reply = lambda body: "1" if "large dog" in body["messages"][-1]["content"] else "0"
    ref = write(tmp_path / "ref.json", REF)
    sol = write(tmp_path / "sol.json", {"id": "2023-4", "answer": {"a": "kuru", "b": "x; y", "c": "a large dog"}})
    args = ("match", ref, sol, "--judge", "llm", "--llm-model", "m", "--llm-base-url", server.base_url, "--format", "json")
    try:
        assert run(*args) == 0
    finally:
        server.close()
    first = json.loads(capsys.readouterr().out)
    assert first["score"] == 1.0 and first["judges"] == ["llm:m"] and first["offline_judge"] is False
    assert run(*args) == 0  # the server is gone: the cache answers, same numbers
    assert json.loads(capsys.readouterr().out) == first
    sol2 = write(tmp_path / "sol2.json", {"id": "2023-4", "answer": {"c": "a small cat"}})
    assert run("match", ref, sol2, "--judge", "llm", "--llm-model", "m", "--llm-base-url", server.base_url,
               "--llm-retries", "0") == 3
    assert f"LLM endpoint {server.base_url}/chat/completions unavailable" in capsys.readouterr().err


# ---------------------------------------------------------------- agreement

HUMAN = [1, 2, 3, 4, 4, 3, 2, 1, 4, 3]
MODEL = [1, 2, 3, 4, 3, 3, 1, 2, 4, 4]


def test_agreement_reference_vector(tmp_path, capsys):
    h = jsonl(tmp_path / "human.jsonl", [{"id": f"s{i}", "grade": g} for i, g in enumerate(HUMAN)])
    p = tmp_path / "pred.csv"
    p.write_text("id,grade\n" + "".join(f"s{i},{g}\n" for i, g in enumerate(MODEL)))
    assert run("agreement", h, p, "--scale", "1-4", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert {k: round(data[k], 5) for k in ("pearson", "spearman", "mae", "rmse", "qwk", "off_by_1", "off_by_2", "ac2")} == {
        "pearson": 0.83471, "spearman": 0.83226, "mae": 0.4, "rmse": 0.63246,
        "qwk": 0.83471, "off_by_1": 1.0, "off_by_2": 1.0, "ac2": 0.84536}
    assert run("agreement", h, p, "--scale", "1-4") == 0
    out = capsys.readouterr().out
    for header in ("Pearson", "Spearman", "MAE", "RMSE", "QWK", "Off1", "Off2", "AC2"):
        assert header in out
    assert "0.835" in out and "0.845" in out
    assert run("agreement", h, p, "--scale", "1-4", "--map", "2x-1", "--target-scale", "0-7", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scale"] == "0-7" and data["map"] == "2x-1" and data["mae"] == pytest.approx(0.8)


def test_agreement_missing_ids_and_constant_grades(tmp_path, capsys):
    h = jsonl(tmp_path / "h.jsonl", [{"id": "a", "grade": 2}, {"id": "b", "grade": 2}, {"id": "only_h", "grade": 1}])
    p = jsonl(tmp_path / "p.jsonl", [{"id": "a", "grade": 2}, {"id": "b", "grade": 2}, {"id": "only_p", "grade": 3}])
    assert run("agreement", h, p, "--scale", "1-4") == 0
    captured = capsys.readouterr()
    assert "only_h" in captured.err and "only_p" in captured.err
    assert "n/a" in captured.out and "QWK: undefined" in captured.out and "0/0" in captured.out
    assert run("agreement", h, p, "--scale", "1-4", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["qwk"] is None and data["ac2"] == 1.0
    assert data["missing_in_pred"] == ["only_h"] and data["missing_in_human"] == ["only_p"]


def test_agreement_errors(tmp_path, capsys):
    h = jsonl(tmp_path / "h.jsonl", [{"id": "a", "grade": 2}])
    p = jsonl(tmp_path / "p.jsonl", [{"id": "a", "grade": 7}])
    assert run("agreement", h, p, "--scale", "1-4") == 1
    assert "p.jsonl:1: grade 7 is outside the scale 1-4" in capsys.readouterr().err
    assert run("agreement", h, p, "--scale", "four") == 2
    assert run("agreement", h, p, "--map", "x^2") == 2
    assert run("agreement", h, p, "--target-scale", "0-7") == 2
    q = jsonl(tmp_path / "q.jsonl", [{"id": "zzz", "grade": 2}])
    assert run("agreement", h, q, "--scale", "1-4") == 1
    assert "no id is graded in both files" in capsys.readouterr().err
    assert run("agreement", h, p) == 0  # no --scale: the seen range, with a note
    assert "no --scale" in capsys.readouterr().err


# ---------------------------------------------------------------- as a process


def test_register_works_in_a_fresh_process(tmp_path):
    code = ("import argparse, sys\n"
            "from judge.cli.scoring import register\n"
            "p = argparse.ArgumentParser(prog='judge'); s = p.add_subparsers(dest='c', required=True); register(s)\n"
            "a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))\n")
    outputs = jsonl(tmp_path / "o.jsonl", [{"task_id": "aime_sample_ii_3", "output": "\\boxed{84}"}])
    proc = subprocess.run([sys.executable, "-c", code, "aime", str(SAMPLE), str(outputs), "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["per_task"]["aime_sample_ii_3"]["accuracy"] == 1.0
    proc = subprocess.run([sys.executable, "-c", code, "agreement"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "usage" in proc.stderr


# ---------------------------------------------------------------- issue 23 item 9: ground-truth errors name the file


def test_ground_truth_errors_name_the_file_and_line(tmp_path, capsys):
    spec = write(tmp_path / "spec.json", {"type": "deterministic", "dimensions": [
        {"name": "acc", "weight": 0.5, "primitive": "numeric_tolerance", "field": "result",
         "ground_truth_field": "expected_result", "tolerance": 0.5},
        {"name": "same", "weight": 0.5, "primitive": "exact_match", "field": "x", "ground_truth_field": "expected_x"}]})
    sub = write(tmp_path / "sub.json", {"result": 12, "x": 1})
    gt = write(tmp_path / "gt.json", '{\n  "expected_x": 1,\n  "expected_result": "12"\n}\n')
    assert run("score", spec, sub, "--ground-truth", gt) == 1
    err = capsys.readouterr().err
    assert f"{gt}:3: at expected_result: dimension 'acc'" in err and "must be a number" in err
    missing = write(tmp_path / "missing.json", '{\n  "expected_x": 1\n}\n')
    assert run("score", spec, sub, "--ground-truth", missing) == 1
    assert f"{missing}:1: ground truth has no field 'expected_result'" in capsys.readouterr().err
    arr = write(tmp_path / "arr.json", "\n\n[1]")
    assert run("score", spec, sub, "--ground-truth", arr) == 1
    assert f"{arr}:3: ground truth must be a JSON object" in capsys.readouterr().err
    results = jsonl(tmp_path / "r.jsonl", [{"problem_id": "a", "verdict": "pass", "passed": 1, "total": 1}])
    assert run("score", spec, results, "--ground-truth", missing) == 1   # results mode too
    assert f"{missing}:1: ground truth has no field" in capsys.readouterr().err
    not_object = write(tmp_path / "subarr.json", [1])
    assert run("score", spec, not_object, "--ground-truth", gt) == 1
    assert f"{not_object}: submission must be a JSON object, got array" in capsys.readouterr().err
