"""A problem without correctness tests (seed: problem-definition-spec.md, "If not provided,
the default value is an empty array"): it loads, its prompts render, and judging it says
"no tests" instead of giving a verdict (issue 23 item 7)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import judge
from judge.problem.model import NoTests, function_from_data
from tests.paths import ROOT


PROBLEM = {
    "identifier": "no_tests_add", "description": "Add two numbers.",
    "prompts": [{"prompt_id": "p", "prompt": "Return a plus b.", "genericize": True,
                 "sample_inputs_outputs": [{"input": {"a": 1, "b": 2}, "expected_output": [3]}]}],
    "function_prototype": {"function_name": "add",
                           "parameters": [{"name": "a", "type": "int"}, {"name": "b", "type": "int"}],
                           "return_values": [{"type": "int"}]},
}
CODE = "def add(a, b):\n    return a + b\n"


def cli(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "judge", *map(str, argv)], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})


def test_api_says_no_tests_and_gives_no_verdict():
    problem = function_from_data(PROBLEM, "no_tests.json")
    with judge.Judge(sandbox="process") as j:
        with pytest.raises(NoTests, match="no tests"):
            j.judge(problem, CODE)
        assert list(j.judge_many([(problem, CODE)])) == []   # no result, never a made-up pass


def test_cli_validates_renders_and_reports_no_tests(tmp_path):
    (tmp_path / "p.json").write_text(json.dumps(PROBLEM))
    done = cli("validate", "p.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "no correctness tests" in done.stderr and "1 problem valid" in done.stdout
    with_optimal = dict(PROBLEM, optimal_solution=CODE, correctness_test_suite=None)  # null: not provided
    (tmp_path / "q.json").write_text(json.dumps(with_optimal))
    done = cli("validate", "q.json", "--run", "--sandbox", "process", cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    done = cli("prompts", "p.json", "--genericize", cwd=tmp_path)
    assert done.returncode == 0 and "func(arg1: int, arg2: int)" in done.stdout
    (tmp_path / "s.jsonl").write_text(json.dumps({"problem_id": "no_tests_add", "solution": CODE}) + "\n")
    done = cli("run", "p.json", "--solutions", "s.jsonl", "--sandbox", "process", "--output", "r.jsonl",
               cwd=tmp_path)
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr   # a valid file, a complete run: no input error
    assert "note: " in done.stderr and "no_tests_add: no tests" in done.stderr
    assert "1 not judged (problems without tests)" in done.stderr
    rows = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines() if x.strip()]
    assert not any(r.get("verdict") == "pass" for r in rows)
