"""`judge grade`'s three input files through the one JSON Lines reader (issue 14 item 1):
bad bytes, deep nesting, huge integers, over-long lines and non-objects are located
(file:line, column or JSON location), the other lines still used, exit 1, no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge.cli.main import main
from judge.grading.proofs.inputs import load_grades, load_problems, load_solutions
from judge.jsonl import MAX_LINE_BYTES
from tests.paths import TESTS

GOOD_PROBLEM = {"problem_id": "P", "statement": "Show 1 = 1.", "references": ["Trivially."]}
GOOD_SOLUTION = {"problem_id": "P", "solution_id": "s1", "solution": "1 = 1"}

BAD_LINES = {
    "not UTF-8": (b'{"problem_id": "X\xff"}', "not UTF-8 (byte 0xff at column 18)"),
    "deep nesting": (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    "nested past the depth limit": (b'{"problem_id": ' + b"[" * 150 + b"]" * 150 + b"}",
                                    "nested deeper than 100 levels"),
    "huge integer": (b'{"problem_id": "P", "grade": ' + b"9" * 5000 + b"}",
                     "a number of 5000 digits, more than the limit of 4300 (column"),
    "not an object": (b"[1, 2]", "a line must hold a JSON object, got an array"),
    "bad JSON": (b'{"problem_id": ', "invalid JSON"),
    "over-long line": (b'{"x": "' + b"a" * (MAX_LINE_BYTES + 10) + b'"}', "over the"),
}


def write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


@pytest.mark.parametrize("case", list(BAD_LINES))
def test_each_file_locates_a_bad_line_and_keeps_the_rest(tmp_path, case):
    raw, message = BAD_LINES[case]
    problems = write(tmp_path / "p.jsonl", [raw, json.dumps(GOOD_PROBLEM).encode()])
    loaded, issues = load_problems(problems)
    assert list(loaded) == ["P"] and len(issues) == 1
    assert issues[0].line == 1 and message in issues[0].message and issues[0].file == str(problems)

    solutions = write(tmp_path / "s.jsonl", [json.dumps(GOOD_SOLUTION).encode(), raw])
    sols, issues = load_solutions(solutions, loaded)
    assert [s.solution_id for _, s in sols] == ["s1"] and len(issues) == 1 and issues[0].line == 2
    assert message in issues[0].message

    grades = write(tmp_path / "g.jsonl", [raw, b'{"solution_id": "s1", "grade": 5}'])
    got, issues = load_grades(grades, 0, 7)
    assert got == {"s1": 5} and len(issues) == 1 and issues[0].line == 1 and message in issues[0].message


def test_depth_limit_names_the_json_location(tmp_path):
    raw = b'{"references": [' + b"[" * 120 + b"]" * 120 + b"]}"
    _, issues = load_problems(write(tmp_path / "p.jsonl", [raw]))
    assert issues[0].location.startswith("references[0]") and "nested deeper" in issues[0].message


def test_cli_reports_every_bad_line_without_a_traceback(tmp_path, capsys):
    problems = write(tmp_path / "p.jsonl", [raw for raw, _ in BAD_LINES.values()] + [json.dumps(GOOD_PROBLEM).encode()])
    solutions = write(tmp_path / "s.jsonl", [json.dumps(GOOD_SOLUTION).encode(), b"\xfe\xff"])
    grades = write(tmp_path / "g.jsonl", [b'{"solution_id": "s1", "grade": ' + b"1" * 5000 + b"}"])
    code = main(["grade", str(problems), str(solutions), "--human", str(grades), "--model", "m",
                 "--offline", "--cache", str(tmp_path / "c"), "--workflow", "single"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    for number, (_, message) in enumerate(BAD_LINES.values(), start=1):
        assert f"{problems}:{number}: " in err and message.split(" (")[0] in err
    assert f"{solutions}:2: not UTF-8" in err and f"{grades}:1: invalid JSON: a number of 5000 digits" in err


def test_the_real_executable_prints_no_traceback(tmp_path):
    problems = write(tmp_path / "p.jsonl", [b"[" * 100_000])
    solutions = write(tmp_path / "s.jsonl", [json.dumps(GOOD_SOLUTION).encode()])
    proc = subprocess.run([sys.executable, "-m", "judge", "grade", str(problems), str(solutions), "--model", "m",
                           "--offline", "--cache", str(tmp_path / "c")], capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{problems}:1: invalid JSON: nested too deeply" in proc.stderr


@pytest.mark.parametrize("flag,value,says", [
    ("--timeout", "-1", "timeout_s"), ("--timeout", "nan", "timeout_s"), ("--timeout", "inf", "timeout_s"),
    ("--retries", "-1", "max_retries"), ("--concurrency", "0", "--concurrency")])
def test_bad_client_settings_are_usage_errors(tmp_path, capsys, flag, value, says):
    problems = write(tmp_path / "p.jsonl", [json.dumps(GOOD_PROBLEM).encode()])
    solutions = write(tmp_path / "s.jsonl", [json.dumps(GOOD_SOLUTION).encode()])
    code = main(["grade", str(problems), str(solutions), "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                 "--cache", str(tmp_path / "c"), flag, value])
    err = capsys.readouterr().err
    assert code == 2 and says in err and "Traceback" not in err and "--offline" not in err


def test_a_lone_surrogate_in_a_solution_is_graded_cached_and_replayed(tmp_path, capsys):
    sys.path.insert(0, str(TESTS))
    from proof_server import ScriptedServer

    srv = ScriptedServer()
    try:
        problems = write(tmp_path / "p.jsonl", [json.dumps(GOOD_PROBLEM).encode()])
        solutions = write(tmp_path / "s.jsonl", [b'{"problem_id": "P", "solution_id": "s", '
                                                 b'"solution": "1 = 1 \\ud800 #grade=5"}'])
        argv = ["grade", str(problems), str(solutions), "--model", "m", "--cache", str(tmp_path / "c"),
                "--workflow", "single", "--output", str(tmp_path / "o.jsonl"), "--base-url", srv.base_url]
        assert main(argv) == 0
        assert main(argv + ["--offline"]) == 0 and srv.count() == 1  # the cache entry reads back
        err = capsys.readouterr().err
        assert "Traceback" not in err
        assert json.loads((tmp_path / "o.jsonl").read_text().splitlines()[0])["grade"] == 5.0
    finally:
        srv.close()
