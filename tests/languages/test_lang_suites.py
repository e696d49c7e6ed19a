"""The shipped problems in five more languages: every reference solution of each language
passes (``judge run problems --solutions optimal --language L``), a solutions file mixes
languages line by line, results carry ``language`` and reports group by it."""

from __future__ import annotations

import json

import pytest

from judge.kinds.loader import load_suite  # noqa: I001 (before execution: import order)
from judge.cli.main import main
from judge.languages import NATIVE
from judge.languages.candidates import reference_solution


@pytest.mark.parametrize("language", NATIVE)
def test_reference_solutions_pass(language, tmp_path, capsys):
    suite = load_suite("problems")
    shipped = [p for p in suite.problems if reference_solution(p, language) is not None]
    assert len(shipped) >= 15
    out = tmp_path / "results.jsonl"
    code = main(["run", "problems", "--solutions", "optimal", "--language", language,
                 "--sandbox", "process", "--jobs", "2", "--output", str(out)])
    assert code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(shipped)
    failing = [(r["problem_id"], r["verdict"], r.get("message")) for r in rows
               if r["verdict"] != "pass"]
    assert failing == []
    assert {r["language"] for r in rows} == {language}


def test_mixed_languages_in_one_solutions_file(tmp_path, capsys):
    solutions = tmp_path / "solutions.jsonl"
    lines = [
        {"problem_id": "basics_pascal_row", "model": "m", "language": "js",
         "solution": "Here it is:\n```javascript\nconst pascalRow = (n) => { const r = [1]; "
                     "for (let k = 0; k < n; k++) r.push(r[r.length - 1] * (n - k) / (k + 1)); "
                     "return r; };\n```\n"},
        {"problem_id": "basics_pascal_row", "model": "m", "language": "go",
         "solution": "func PascalRow(n int) []int { return []int{1} }"},
        {"problem_id": "basics_pascal_row", "model": "m",
         "solution": "def pascal_row(row_index):\n    return [1]\n"},
        {"problem_id": "basics_pascal_row", "model": "m", "language": "cobol",
         "solution": "x"},
    ]
    solutions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "results.jsonl"
    code = main(["run", "problems/basics/basics_pascal_row.json", "--solutions", str(solutions),
                 "--sandbox", "process", "--jobs", "2", "--output", str(out)])
    assert code == 1  # the cobol line is reported; every other line is judged and written
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["language"], r["verdict"]) for r in rows] == [
        ("js", "pass"), ("go", "wrong_answer"), ("python", "wrong_answer")]
    err = capsys.readouterr().err
    assert "unknown language 'cobol'" in err
    assert main(["report", str(out)]) == 0
    report = capsys.readouterr().out
    assert "m [js]" in report and "m [go]" in report


def test_python_api_takes_a_language():
    """``Judge.judge(..., language=)`` and ``judge_many`` metadata: the same path as the CLI."""
    from judge.api import Judge

    problem = load_suite("problems/basics/basics_pascal_row.json").problems[0]
    rust = "fn pascal_row(n: i64) -> Vec<i64> { let mut r = vec![1i64]; for k in 0..n { " \
           "let next = r[r.len() - 1] * (n - k) / (k + 1); r.push(next); } r }"
    js = "const pascalRow = (n) => [1];"
    with Judge("process", 2) as judge:
        one = judge.judge(problem, rust, language="rust")
        many = list(judge.judge_many([(problem, js, {"language": "javascript"}),
                                      (problem, rust, {"language": "rust", "model": "m"})]))
    assert (one.verdict.value, one.language) == ("pass", "rust")
    assert [(r.verdict.value, r.language) for r in many] == [
        ("wrong_answer", "js"), ("pass", "rust")]
