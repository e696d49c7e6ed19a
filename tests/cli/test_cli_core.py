"""The core command line (validate, prompts, run, report) through a real subprocess."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.paths import ROOT

DATA = ROOT / "tests" / "data" / "core"
TYPES = "problems/types"
RESULT_FIELDS = {"problem_id", "model", "prompt_id", "sample", "verdict", "passed", "total",
                 "tests", "sandbox", "time_s"}


def judge(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True)


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def assert_result_contract(row: dict) -> None:
    assert RESULT_FIELDS <= set(row), RESULT_FIELDS - set(row)
    assert isinstance(row["problem_id"], str)
    assert isinstance(row["passed"], int) and isinstance(row["total"], int)
    assert row["passed"] <= row["total"] == len(row["tests"])
    assert isinstance(row["time_s"], (int, float)) and isinstance(row["sandbox"], str)
    for index, test in enumerate(row["tests"]):
        assert {"index", "verdict", "time_s"} <= set(test)
        assert test["index"] == index
        assert isinstance(test["time_s"], (int, float))


# ---- validate ----------------------------------------------------------------------------------

def test_validate_shipped_suites():
    result = judge("validate", "problems/basics", "problems/debugging", TYPES)
    assert result.returncode == 0, result.stderr
    count = int(re.search(r"(\d+) problems valid", result.stdout).group(1))
    shipped = sum(len(list((ROOT / "problems" / s).glob("*.json")))
                  for s in ("basics", "debugging", "types"))
    assert count == shipped


def test_validate_three_mistakes():
    path = "tests/data/core/three_mistakes.json"
    result = judge("validate", path)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 3, result.stderr
    (unknown,) = [line for line in errors if "unknown field" in line]
    assert unknown.startswith("error: %s: " % path) and "difficulty" in unknown
    assert "error: %s: function_prototype.parameters[1].type: unknown type 'TreeNode'" % path \
        in result.stderr
    assert "error: %s: correctness_test_suite[1].input: " % path in result.stderr
    assert "3 errors" in result.stderr
    assert "Traceback" not in result.stderr


def test_validate_lists_every_error_across_paths():
    result = judge("validate", "tests/data/core/malformed.json",
                   "tests/data/core/duplicate_keys.json", "tests/data/core/dup_ids", TYPES)
    assert result.returncode == 1
    assert "tests/data/core/malformed.json:5: invalid JSON" in result.stderr
    assert "duplicate key 'description'" in result.stderr
    assert "identifier 'shared_id' is already used" in result.stderr
    assert "3 errors" in result.stderr


def test_validate_missing_path():
    result = judge("validate", "tests/data/core/nothing_here")
    assert result.returncode == 1
    assert "no such file or directory" in result.stderr


def test_validate_bare_list_type_is_a_clean_error():
    result = judge("validate", "tests/data/core/bare_list_type.json")
    assert "Traceback" not in result.stderr
    assert result.returncode in (0, 1)


# ---- prompts -----------------------------------------------------------------------------------

def test_prompts_jsonl():
    result = judge("prompts", "problems/basics", "--format", "jsonl")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    expected = sum(len(json.loads(p.read_text(encoding="utf-8"))["prompts"])
                   for p in (ROOT / "problems" / "basics").glob("*.json"))
    assert len(rows) == expected
    for item in rows:
        assert {"problem_id", "prompt_id", "genericized", "prompt"} <= set(item)
        assert isinstance(item["genericized"], bool) and item["prompt"].strip()
    assert any(r["genericized"] for r in rows) and not all(r["genericized"] for r in rows)
    assert len({(r["problem_id"], r["prompt_id"]) for r in rows}) == len(rows)


def test_prompts_genericize_all(tmp_path):
    out = tmp_path / "prompts.jsonl"
    result = judge("prompts", "problems/basics", "--genericize", "--output", out)
    assert result.returncode == 0, result.stderr
    rows = lines_of(out)
    assert rows and all(r["genericized"] for r in rows)
    assert all("def func(" in r["prompt"] for r in rows)


def test_prompts_markdown():
    result = judge("prompts", TYPES, "--format", "markdown")
    assert result.returncode == 0
    assert "## types_average_by_key / plain\n" in result.stdout
    assert "## types_average_by_key / generic (genericized)\n" in result.stdout


def test_prompts_of_an_invalid_suite():
    result = judge("prompts", "tests/data/core/three_mistakes.json")
    assert result.returncode == 1
    assert "TreeNode" in result.stderr


# ---- run ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def optimal_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "results.jsonl"
    result = judge("run", TYPES, "--solutions", "optimal", "--sandbox", "process",
                   "--jobs", 2, "--output", out, "--format", "json")
    return result, out


def test_run_optimal(optimal_run):
    result, out = optimal_run
    assert result.returncode == 0, result.stderr
    rows = lines_of(out)
    assert len(rows) == len(list((ROOT / TYPES).glob("*.json")))
    for row in rows:
        assert_result_contract(row)
        assert row["verdict"] == "pass", row
        assert row["passed"] == row["total"] >= 5
        assert all(t["verdict"] == "pass" for t in row["tests"])
        assert row["sandbox"] == "process" and row["model"] == "optimal"
    summary = json.loads(result.stdout)
    assert summary["candidates"] == len(rows)
    assert summary["verdicts"] == {"pass": len(rows)}


def test_resume_judges_nothing_new(optimal_run, tmp_path):
    _, first = optimal_run
    out = tmp_path / "results.jsonl"
    shutil.copy(first, out)
    before = out.read_text(encoding="utf-8")
    result = judge("run", TYPES, "--solutions", "optimal", "--sandbox", "process",
                   "--jobs", 2, "--output", out, "--resume", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert out.read_text(encoding="utf-8") == before
    assert "judged 0 candidates" in result.stderr
    assert "skipped %d already judged" % len(lines_of(out)) in result.stderr
    assert json.loads(result.stdout)["candidates"] == len(lines_of(out))


def test_report_formats(optimal_run):
    _, out = optimal_run
    result = judge("report", out, "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["candidates"] == len(lines_of(out)) and data["sandbox_errors"] == 0
    assert data["by_model"][0]["model"] == "optimal" and data["by_model"][0]["pass_rate"] == 1.0
    result = judge("report", out, "--format", "markdown")
    assert result.returncode == 0
    assert "## Per model" in result.stdout and "| optimal" in result.stdout
    result = judge("report", out)
    assert result.returncode == 0 and "Per problem" in result.stdout


def test_report_with_bad_lines(tmp_path, optimal_run):
    _, out = optimal_run
    bad = tmp_path / "mixed.jsonl"
    bad.write_text(out.read_text(encoding="utf-8").splitlines()[0] + "\n{oops\n",
                   encoding="utf-8")
    result = judge("report", bad, "--format", "json")
    assert result.returncode == 1
    assert "%s:2: not a JSON line" % bad in result.stderr
    assert json.loads(result.stdout)["candidates"] == 1


def test_report_missing_file_is_a_clean_error(tmp_path):
    result = judge("report", tmp_path / "missing.jsonl")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "missing.jsonl" in result.stderr


def test_bad_solutions_lines_are_reported_and_good_ones_judged(tmp_path):
    problems = [json.loads(p.read_text(encoding="utf-8"))
                for p in sorted((ROOT / TYPES).glob("*.json"))[:2]]
    first, second = problems
    solutions = tmp_path / "solutions.jsonl"
    solutions.write_bytes(b"\n".join([
        json.dumps({"problem_id": first["identifier"], "solution": first["optimal_solution"],
                    "model": "m"}).encode(),
        b'{"problem_id": "oops", ',
        json.dumps({"problem_id": "no_such_problem", "solution": "def f():\n    pass\n"}).encode(),
        json.dumps({"problem_id": first["identifier"], "solution": "  \n", "model": "m"}).encode(),
        b'{"problem_id": "x", "solution": "caf\xe9"}',
        json.dumps({"task_id": second["identifier"],
                    "completion": "Here:\n```python\n%s```\n" % second["optimal_solution"],
                    "model": "m"}).encode(),
    ]) + b"\n")
    out = tmp_path / "results.jsonl"
    result = judge("run", TYPES, "--solutions", solutions, "--sandbox", "process", "--jobs", 2,
                   "--output", out, "--format", "json")
    assert result.returncode == 1, result.stderr
    stderr = result.stderr
    assert "%s:2: invalid JSON" % solutions in stderr
    assert "%s:3: unknown problem_id 'no_such_problem'" % solutions in stderr
    assert "%s:4: empty solution" % solutions in stderr
    assert "%s:5: not UTF-8" % solutions in stderr
    assert "Traceback" not in stderr
    rows = lines_of(out)
    for row in rows:
        assert_result_contract(row)
    assert [(r["problem_id"], r["verdict"]) for r in rows] == [
        (first["identifier"], "pass"),
        (first["identifier"], "compile_error"),
        (second["identifier"], "pass"),
    ]
    assert json.loads(result.stdout)["candidates"] == 3


# ---- usage errors ---------------------------------------------------------------------------

USAGE_ERRORS = [
    [],
    ["bogus"],
    ["validate"],
    ["run", TYPES],
    ["run", TYPES, "--solutions", "optimal", "--resume"],
    ["run", TYPES, "--solutions", "optimal", "--jobs", "many"],
    ["run", TYPES, "--solutions", "optimal", "--sandbox", "vm"],
    ["report"],
    ["report", "x.jsonl", "--format", "xml"],
    ["prompts", TYPES, "--format", "csv"],
]


@pytest.mark.parametrize("argv", [USAGE_ERRORS[0], USAGE_ERRORS[4], USAGE_ERRORS[8]],
                         ids=lambda argv: " ".join(argv) or "no-args")
def test_usage_errors_exit_2(argv):
    result = judge(*argv)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "error" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("argv", USAGE_ERRORS, ids=lambda argv: " ".join(argv) or "no-args")
def test_usage_errors_exit_2_in_process(argv, capsys, monkeypatch):
    """The same through judge.cli.main (fast; the subprocess cases above prove the wiring)."""
    from judge.cli.main import main

    monkeypatch.chdir(ROOT)
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    assert status == 2
    assert "error" in capsys.readouterr().err


def test_missing_solutions_file_is_input_error(tmp_path):
    result = judge("run", TYPES, "--solutions", tmp_path / "none.jsonl", "--sandbox", "process")
    assert result.returncode == 1
    assert "no such solutions file" in result.stderr
