"""Program problem files (judge.problem.program): validated with located errors like
function problem files; expected outputs kept out of what the candidate's run receives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.errors import InputError
from judge.kinds.loader import kind_named_in, problem_from_data
from judge.problem.program import (
    OutputChecker,
    RunInput,
    TimeRule,
    load_program,
    program_from_data,
)
from judge.languages.programs import program_language

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


BASE = {"kind": "program", "identifier": "sum", "statement": "Add two numbers.",
        "tests": [{"stdin": "1 2\n", "expected": "3\n"}]}


def _issues(data, tmp_path) -> list[str]:
    with pytest.raises(InputError) as caught:  # as a file loads: by its kind
        problem_from_data(data, str(tmp_path / "p.json"), root=tmp_path)
    return [str(issue) for issue in caught.value.issues]


def test_a_program_problem_file_loads_with_paths_relative_to_it(tmp_path):
    _write(tmp_path, {"data/1.in": "4 5\n", "data/1.ans": "9\n", "data/1.files/x.txt": "x",
                      "check/validate.py": "", "p.json": json.dumps({
                          **BASE,
                          "samples": [{"stdin": "1 2\n", "expected": "3\n"}],
                          "tests": [{"name": "t1", "stdin_file": "data/1.in",
                                     "expected_file": "data/1.ans", "args": ["-v"],
                                     "files": "data/1.files"},
                                    {"stdin": "0 0\n", "expected": "0\n"}],
                          "limits": {"time_limit_s": 2, "memory_mb": 256, "output_kb": 64},
                          "checker": {"type": "validator", "validator": "check/validate.py",
                                      "validator_flags": ["strict"]},
                          "contest": {"stop_at_first_failure": True}})})
    problem = load_program(tmp_path / "p.json")
    assert problem.root == tmp_path and problem.source_file == str(tmp_path / "p.json")
    first, second = problem.tests
    assert first.run_input() == RunInput(b"4 5\n", ("-v",), tmp_path / "data/1.files")
    assert first.expected_output() == b"9\n"
    assert second.run_input() == RunInput(b"0 0\n") and second.expected_output() == b"0\n"
    assert problem.validator_path() == tmp_path / "check/validate.py"
    assert problem.limits.time_limit_s == 2.0 and problem.contest.stop_at_first_failure
    assert kind_named_in(json.loads((tmp_path / "p.json").read_text()), "p").name == "program"
    assert kind_named_in({"identifier": "f"}, "f").name == "function"


@pytest.mark.parametrize("change,expected", [
    ({"tests": []}, "tests: no tests"),
    ({"tests": [{"stdin": "1"}]}, "tests[0]: a test needs its expected output"),
    ({"tests": [{"stdin": "1", "stdin_file": "a.in", "expected": "1"}]},
     "tests[0]: give stdin or stdin_file, not both"),
    ({"tests": [{"stdin": "1", "expected": "1", "expected_file": "a.ans"}]},
     "tests[0]: give expected or expected_file, not both"),
    ({"tests": [{"stdin_file": "missing.in", "expected": "1"}]},
     "tests[0].stdin_file: file"),
    ({"tests": [{"stdin": "", "expected_file": "missing.ans"}]},
     "tests[0].expected_file: file"),
    ({"tests": [{"stdin": "", "expected": "", "files": "nowhere"}]}, "tests[0].files: folder"),
    ({"tests": [{"stdin": "", "expected_file": "d/1.ans", "files": "d"}]},
     "tests[0].files: the expected output is inside the test's input files"),
    ({"tests": [{"name": "a", "stdin": "", "expected": ""},
                {"name": "a", "stdin": "", "expected": ""}]},
     "tests[1].name: duplicate test name 'a' (also tests[0])"),
    ({"checker": {"type": "exact", "case_sensitive": True}},
     "checker: case_sensitive only apply to the tokens checker, not 'exact'"),
    ({"checker": {"type": "tokens", "validator": "v.py"}},
     "checker: validator only apply to a validator checker"),
    ({"checker": {"type": "validator"}}, "checker.validator: a validator checker needs"),
    ({"checker": {"type": "validator", "validator": "nope.cc"}},
     "checker.validator: output validator"),
    ({"checker": {"float_tolerance": 1e-6, "float_absolute_tolerance": 1e-3}},
     "checker: float_tolerance sets both tolerances"),
    ({"checker": {"float_tolerance": -1}}, "checker.float_tolerance: Input should be greater"),
    ({"checker": {"type": "regex"}}, "checker.type: unknown output checker 'regex'"),
    ({"checker": {"type": "validator", "validator": "v.txt"}},
     "cannot tell the output validator's language"),
    ({"checker": {"type": "validator", "validator": "v.txt", "validator_language": "cobol"}},
     "unknown validator language 'cobol'"),
    ({"interactive": True}, "interactive: an interactive problem needs a validator checker"),
    ({"tests": [{"stdin": "", "expected": "", "checker": {"type": "exact"}}]},
     "tests[0].checker: a test's checker must have the problem's checker type (tokens)"),
    ({"samples": [{"expected": "1"}]}, "samples[0]: a sample needs stdin"),
    ({"limits": {"time_limit_s": 0}}, "limits.time_limit_s: Input should be greater than 0"),
    ({"verdicts": {}}, "unknown field 'verdicts'"),
    ({"statement": None}, "statement: Input should be a valid string"),
])
def test_located_errors(tmp_path, change, expected):
    _write(tmp_path, {"v.txt": "", "d/1.ans": ""})
    issues = _issues({**BASE, **change}, tmp_path)
    assert any(expected in issue for issue in issues), issues
    assert all(issue.startswith(str(tmp_path / "p.json")) for issue in issues)


def test_every_issue_at_once(tmp_path):
    issues = _issues({**BASE, "tests": [{"stdin": "1"}, {"stdin_file": "x", "expected": ""}],
                      "interactive": True, "samples": [{}]}, tmp_path)
    assert len(issues) == 3  # interactive, tests[1].stdin_file, samples[0]


def test_interactive_tests_need_no_expected_output(tmp_path):
    _write(tmp_path, {"v.py": ""})
    problem = program_from_data({**BASE, "interactive": True, "tests": [{"stdin": "5\n"}],
                                 "checker": {"type": "validator", "validator": "v.py"}},
                                "p.json", root=tmp_path)
    assert problem.tests[0].expected_output() is None
    assert problem.checker.validator_language is None  # inferred when run: v.py -> python
    assert program_language(tmp_path / "v.py") == "python"


def test_not_an_object(tmp_path):
    assert "must hold a JSON object" in _issues([1, 2], tmp_path)[0]


def test_checker_properties():
    both = OutputChecker(float_tolerance=1e-6)
    assert (both.absolute_tolerance, both.relative_tolerance, both.uses_floats) == \
        (1e-6, 1e-6, True)
    one = OutputChecker(float_relative_tolerance=1e-3)
    assert (one.absolute_tolerance, one.relative_tolerance) == (None, 1e-3)
    assert not OutputChecker().uses_floats
    assert OutputChecker(case_sensitive=True, float_absolute_tolerance=0.5).kattis_flags() == \
        ["case_sensitive", "float_absolute_tolerance", "0.5"]


def test_validator_language_of_a_folder(tmp_path):
    _write(tmp_path, {"cpp/validate.cc": "", "cpp/validate.h": "", "c/v.c": "", "c/v.h": "",
                      "mixed/a.py": "", "mixed/b.java": "", "both/a.c": "", "both/b.cpp": ""})
    assert program_language(tmp_path / "cpp") == "cpp"
    assert program_language(tmp_path / "c") == "c"
    assert program_language(tmp_path / "both") == "cpp"
    assert program_language(tmp_path / "mixed") is None


@pytest.mark.parametrize("rule,accepted,tle,expected", [
    # legacy (problemtools): nearest whole second of T_ac x multiplier, at least 1 s
    (TimeRule(), [0.05], [], 1.0),
    (TimeRule(), [0.29, 0.1], [], 1.0),
    (TimeRule(), [0.31], [], 2.0),
    (TimeRule(multiplier=2), [1.3], [], 3.0),
    (TimeRule(multiplier=2), [1.2], [0.5], 2.0),  # legacy: TLE runs do not bound it
    # 2023-07: the smallest multiple of the resolution at or above T_ac x multiplier
    (TimeRule(format="2023-07", multiplier=2, resolution_s=1), [0.3], [], 1.0),
    (TimeRule(format="2023-07", multiplier=2, resolution_s=1), [0.51], [], 2.0),
    (TimeRule(format="2023-07", multiplier=3, resolution_s=0.5), [0.5], [], 1.5),
    (TimeRule(format="2023-07", multiplier=2, resolution_s=0.25), [0.5], [10], 1.0),
    (TimeRule(format="2023-07", multiplier=2, tle_margin=1.5, resolution_s=1), [1.0], [3.0],
     2.0),
])
def test_time_rule(rule, accepted, tle, expected):
    limit, why = rule.time_limit(accepted, tle)
    assert limit == expected
    assert why.startswith("time limit %g s: slowest accepted run" % expected)


def test_time_rule_errors():
    with pytest.raises(ValueError, match="no accepted submission"):
        TimeRule().time_limit([])
    with pytest.raises(ValueError, match="no time limit fits"):
        TimeRule(format="2023-07", multiplier=2, tle_margin=1.5).time_limit([1.0], [2.5])
    assert "nearest second" in TimeRule().describe()
    assert "multiple of 0.5 s" in TimeRule(format="2023-07", resolution_s=0.5).describe()


def test_input_and_answer_paths(tmp_path):
    _write(tmp_path, {"a/1.in": "1\n", "a/1.ans": "1\n"})
    problem = program_from_data({**BASE, "tests": [
        {"stdin_file": "a/1.in", "expected_file": "a/1.ans"}, {"stdin": "", "expected": ""}]},
        "p.json", root=tmp_path)
    first, second = problem.tests
    assert first.input_path() == (tmp_path / "a/1.in").resolve()
    assert first.answer_path() == (tmp_path / "a/1.ans").resolve()
    assert second.input_path() is None and second.answer_path() is None


def test_a_validator_with_build_or_run_scripts_is_a_script(tmp_path):
    _write(tmp_path, {"v/run": "#!/bin/sh\nexit 42\n", "w/build": "", "w/w.cc": ""})
    assert program_language(tmp_path / "v") == "script"
    assert program_language(tmp_path / "w") == "script"
    problem = program_from_data({**BASE, "checker": {"type": "validator", "validator": "v"}},
                                "p.json", root=tmp_path)
    assert problem.validator_path() == tmp_path / "v"
