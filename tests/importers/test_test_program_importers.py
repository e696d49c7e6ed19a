"""The test-program importers without a sandbox: MultiPL-E, HumanEval-X and MBXP rows become
test_program problems; completions are cut at stop tokens exactly as MultiPL-E's own
``stop_at_stop_token`` cuts them; malformed rows are refused with their file and line; the
samples files their evaluators write (MultiPL-E's completions folder, HumanEval-X's
``generation`` lines) are read as candidates of the imported problems."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from judge.candidates.extract import read_sample_dir, read_solutions
from judge.importers.test_programs import HumanEvalX, Mbxp, MultiPLE, humaneval_x, mbxp, multipl_e
from judge.kinds.base import KINDS
from judge.kinds.loader import load_suite
from tests.paths import DATA

pytestmark = pytest.mark.pure

KIND = KINDS.get("test_program")
GO_RECORD = json.loads((DATA / "test_programs" / "multipl_e_sample.jsonl").read_text())
HX_RECORDS = [json.loads(line) for line in
              (DATA / "test_programs" / "humaneval_x_sample.jsonl").read_text().splitlines()]

# MultiPL-E's humaneval-lua-reworded row for HumanEval_0 (shape as the translator writes it)
LUA_RECORD = {
    "name": "HumanEval_0_has_close_elements", "language": "lua",
    "prompt": "-- Check if in given table of numbers, are any two numbers closer to each other "
              "than\n-- given threshold.\n-- >>> has_close_elements({1.0, 2.0, 3.0}, 0.5)\n"
              "-- false\nlocal function has_close_elements(numbers, threshold)\n",
    "doctests": "transform", "prompt_terminology": "reworded",
    "original": "../datasets/originals-with-cleaned-doctests/HumanEval_0_has_close_elements.py",
    "tests": "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = "
             "has_close_elements\n    lu.assertEquals(candidate({1.0, 2.0, 3.9, 4.0, 5.0, 2.2},"
             " 0.3), true)\nend\n\nos.exit(lu.LuaUnit.run())",
    "stop_tokens": ["\nlocal", "\nfunction", "\n--", "\n\n"]}

MBXP_RECORD = {
    "task_id": "MBJSP/2", "language": "javascript", "entry_point": "similarElements",
    "prompt": "/**\n * Write a function to find the similar elements from the given two tuple "
              "lists.\n */\nfunction similarElements(testTup1, testTup2) {\n",
    "canonical_solution": "  return testTup1.filter(x => testTup2.includes(x));\n}\n",
    "test": "const assert = require('node:assert');\n\nfunction testsimilarElements() {\n"
            "  assert.deepEqual(similarElements([3, 4, 5, 6], [5, 7, 4, 10]), [4, 5]);\n}\n\n"
            "testsimilarElements();\n",
    "description": "Write a function to find the similar elements."}


def stop_at_stop_token(decoded_string, stop_tokens):
    """MultiPL-E's own (multipl_e/completions.py), verbatim: the oracle."""
    min_stop_index = len(decoded_string)
    for stop_token in stop_tokens:
        stop_index = decoded_string.find(stop_token)
        if stop_index != -1 and stop_index < min_stop_index:
            min_stop_index = stop_index
    return decoded_string[:min_stop_index]


class _Candidate:
    def __init__(self, solution: str, strict: bool = True) -> None:
        self.solution, self.language, self.strict = solution, None, strict


def _write(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


# ---- rows -> problems ---------------------------------------------------------------------------

def test_a_multipl_e_row_becomes_a_problem_in_the_judges_language():
    data = multipl_e(LUA_RECORD)
    assert (data["identifier"], data["language"], data["framework"]) == (
        "HumanEval_0_has_close_elements", "lua", None)
    assert data["prompt"] == LUA_RECORD["prompt"] and data["tests"] == LUA_RECORD["tests"]
    assert data["stop_tokens"] == LUA_RECORD["stop_tokens"]
    assert data["tags"] == ["multipl-e", "transform", "reworded"]
    go = multipl_e(GO_RECORD)
    assert (go["language"], go["framework"]) == ("go", "go_test")


@pytest.mark.parametrize("name, language", [
    ("py", "python"), ("js", "js"), ("cpp", "cpp"), ("java", "java"), ("rs", "rust"),
    ("go_test.go", "go"), ("ts", "typescript"), ("sh", "bash"), ("cs", "csharp"), ("d", "d"),
    ("lua", "lua"), ("pl", "perl"), ("php", "php"), ("r", "r"), ("rkt", "racket"),
    ("rb", "ruby"), ("scala", "scala"), ("kt", "kotlin")])
def test_multipl_e_language_names_map_to_the_judges(name, language):
    problem = KIND.load(multipl_e(dict(LUA_RECORD, language=name)), "<test>")
    assert problem.language == language


@pytest.mark.parametrize("name", ["jl", "swift", "hs", "ml", "elixir", "clj", "dart"])
def test_a_language_the_judge_does_not_run_is_refused_by_name(name):
    with pytest.raises(ValueError, match="language '%s' of multipl-e is not judged here" % name):
        multipl_e(dict(LUA_RECORD, language=name))


def test_humaneval_x_rows_keep_their_task_id_and_their_own_tests():
    for record in HX_RECORDS:
        data = humaneval_x(record)
        problem = KIND.load(data, "<test>")
        assert problem.identifier == record["task_id"]
        assert problem.tests == record["test"]
        assert problem.reference == record["canonical_solution"]
    go = humaneval_x(next(r for r in HX_RECORDS if r["task_id"] == "Go/0"))
    assert go["framework"] == "go_test" and go["setup"].startswith("package")
    assert "math" in go["imports_if_used"]
    rust = humaneval_x(next(r for r in HX_RECORDS if r["task_id"] == "Rust/0"))
    assert rust["setup"].startswith("fn main(){}\n") and rust["framework"] == "rust_test"
    assert "use rand::Rng" not in rust["setup"]


def test_an_mbxp_row_becomes_a_problem():
    problem = KIND.load(mbxp(MBXP_RECORD), "<test>")
    assert (problem.identifier, problem.language) == ("MBJSP/2", "js")
    assert problem.reference == MBXP_RECORD["canonical_solution"]
    submission = KIND.submission(problem, _Candidate(MBXP_RECORD["canonical_solution"]))
    assert submission.code == MBXP_RECORD["prompt"] + MBXP_RECORD["canonical_solution"]


# ---- stop tokens --------------------------------------------------------------------------------

COMPLETIONS = [
    "    return true\nend\n\nprint(has_close_elements({}, 1))\n",   # "\n\n" first
    "    return false\nend\n-- a comment\nlocal x = 1\n",           # "\n--" before "\nlocal"
    "    return false\nend",                                          # no stop token
    "\nlocal y = 2\n",                                                # a stop token at 0
    "",                                                               # empty
    "    local t = {}\n    return #t > 0\nend\nfunction f() end\n",   # "\nfunction" after code
]


@pytest.mark.parametrize("completion", COMPLETIONS)
def test_a_completion_is_cut_exactly_as_multipl_e_cuts_it(completion):
    problem = KIND.load(multipl_e(LUA_RECORD), "<test>")
    expected = stop_at_stop_token(completion, LUA_RECORD["stop_tokens"])
    submission = KIND.submission(problem, _Candidate(completion))
    # the program MultiPL-E's evaluator runs is prompt + completion + "\n" + tests
    assert submission.code == LUA_RECORD["prompt"] + expected


def test_the_prompts_own_stop_tokens_never_cut_the_completion():
    problem = KIND.load(multipl_e(LUA_RECORD), "<test>")
    assert "\n--" in problem.prompt  # the prompt is never scanned
    code = KIND.submission(problem, _Candidate("    return true\nend\n")).code
    assert code == LUA_RECORD["prompt"] + "    return true\nend\n"


# ---- malformed rows -----------------------------------------------------------------------------

BAD_ROWS = [
    (dict(LUA_RECORD, name="ok_1"), None),
    ("{not json", "line 2"),
    (dict(LUA_RECORD, name="no_tests", tests=""), "missing field 'tests'"),
    (dict(LUA_RECORD, name="bad_stops", stop_tokens=["\n", 3]), "stop_tokens must be a list"),
    (dict(LUA_RECORD, name="julia", language="jl"), "language 'jl' of multipl-e"),
    ({k: v for k, v in LUA_RECORD.items() if k != "prompt"}, "missing field 'prompt'"),
    (dict(LUA_RECORD, name="ok_1"), "task ok_1 is already on line 1"),
    (dict(LUA_RECORD, name="ok_2"), None),
]


def test_malformed_multipl_e_rows_are_refused_with_their_line(tmp_path):
    source = _write(tmp_path / "humaneval-lua.jsonl", [row for row, _ in BAD_ROWS])
    report = MultiPLE().import_suite("multipl-e", source, tmp_path / "out")
    assert [p.task_id for p in report.problems] == ["ok_1", "ok_2"]
    issues = {issue.line: str(issue) for issue in report.issues}
    for line, (_, said) in enumerate(BAD_ROWS, 1):
        if said is None:
            assert line not in issues
        else:
            assert str(source) + ":%d" % line in issues[line]
            if not said.startswith("line"):
                assert said in issues[line], issues[line]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["ok_1.json", "ok_2.json"]


def test_malformed_humaneval_x_and_mbxp_rows_are_refused_with_their_line(tmp_path):
    go0 = next(r for r in HX_RECORDS if r["task_id"] == "Go/0")
    source = _write(tmp_path / "hx.jsonl", [go0, dict(go0, task_id="Cobol/0"),
                                            {k: v for k, v in go0.items() if k != "test_setup"}])
    report = HumanEvalX().import_suite("humaneval-x", source, tmp_path / "hx")
    assert [p.task_id for p in report.problems] == ["Go/0"]
    assert [(i.line, "cobol" in i.message, "test_setup" in i.message)
            for i in report.issues] == [(2, True, False), (3, False, True)]
    source = _write(tmp_path / "mbxp.jsonl", [MBXP_RECORD, dict(MBXP_RECORD, language="fortran"),
                                              dict(MBXP_RECORD, task_id="MBJSP/3", test=None)])
    report = Mbxp().import_suite("mbxp", source, tmp_path / "mb")
    assert [p.task_id for p in report.problems] == ["MBJSP/2"]
    assert [(i.line, i.message.split(" (")[0]) for i in report.issues] == [
        (2, "language 'fortran' of mbxp is not judged here"),
        (3, "missing field 'test'")]


def test_imported_files_load_back_as_a_suite(tmp_path):
    source = _write(tmp_path / "m.jsonl", [LUA_RECORD, dict(GO_RECORD, name="HumanEval_1_x")])
    MultiPLE().import_suite("multipl-e", source, tmp_path / "out")
    suite = load_suite(tmp_path / "out")
    assert sorted((p.identifier, p.language, p.framework) for p in suite.problems) == [
        ("HumanEval_0_has_close_elements", "lua", None), ("HumanEval_1_x", "go", "go_test")]


# ---- samples files as their evaluators write them -----------------------------------------------

def _completions_file(folder: Path, record: dict, completions: list, gz: bool = True) -> Path:
    """What MultiPL-E's completions.py writes: <name>.json.gz, one JSON object."""
    body = dict(record, temperature=0.2, top_p=0.95, max_tokens=512, completions=completions)
    path = folder / ("%s.json%s" % (record["name"], ".gz" if gz else ""))
    if gz:
        with gzip.open(path, "wt") as f:
            f.write(json.dumps(body))
    else:
        path.write_text(json.dumps(body))
    return path


def test_a_multipl_e_completions_folder_is_read_as_candidates(tmp_path):
    folder = tmp_path / "humaneval-lua-model-0.2-reworded"
    folder.mkdir()
    _completions_file(folder, LUA_RECORD, COMPLETIONS[:3])
    _completions_file(folder, dict(LUA_RECORD, name="HumanEval_1_x"), ["  return 1\nend"],
                      gz=False)
    # the evaluator's results beside them are not candidates
    with gzip.open(folder / "HumanEval_0_has_close_elements.results.json.gz", "wt") as f:
        f.write(json.dumps({"name": "HumanEval_0_has_close_elements", "results": []}))
    (folder / "broken.json.gz").write_bytes(b"not gzip")
    rows = list(read_sample_dir(folder))
    good = [(c.problem_id, c.sample, c.solution) for c, _ in rows if c is not None]
    assert good == [("HumanEval_0_has_close_elements", i, text)
                    for i, text in enumerate(COMPLETIONS[:3])] + [("HumanEval_1_x", 0,
                                                                    "  return 1\nend")]
    issues = [i for _, i in rows if i is not None]
    assert len(issues) == 1 and "broken.json.gz" in issues[0].file
    assert "cannot read the completions file" in issues[0].message


def test_a_completions_file_of_another_shape_is_reported(tmp_path):
    (tmp_path / "x.json").write_text(json.dumps({"name": "x", "completions": "no"}))
    rows = list(read_sample_dir(tmp_path))
    assert rows[0][0] is None and "not a MultiPL-E completions file" in rows[0][1].message


def test_humaneval_x_samples_with_generation_match_the_imported_task(tmp_path):
    """codegeex's evaluator reads {"task_id": "CPP/0", "generation": ...} lines."""
    record = next(r for r in HX_RECORDS if r["task_id"] == "CPP/0")
    samples = _write(tmp_path / "samples.jsonl", [
        {"task_id": "CPP/0", "prompt": record["prompt"], "generation": record["canonical_solution"]}])
    [(candidate, issue)] = list(read_solutions(samples))
    assert issue is None and candidate.solution == record["canonical_solution"]
    problem = KIND.load(humaneval_x(record), "<test>")
    assert candidate.problem_id == problem.identifier
