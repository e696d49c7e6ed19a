"""Issue 14, item 1 (and the CLI side of 2, 5, 6, 7): every bad input of ``score``, ``aime``,
``match`` and ``agreement`` gets a located message and the documented exit code - never a
traceback.

The commands run through ``judge.cli.main.main`` (the console script's function) in this
process; an exception escaping it is what would print a traceback, so it is captured as
one and the test fails on it. A few cases also run the real ``judge`` executable.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from judge.cli.main import main
from tests.paths import ROOT

EXAMPLES = ROOT / "examples"
SPEC = EXAMPLES / "scoring" / "generic.json"
SUB = EXAMPLES / "scoring" / "generic_submission.json"
GT = EXAMPLES / "scoring" / "generic_ground_truth.json"
CODE_SPEC = EXAMPLES / "scoring" / "code_suite.json"
TASKS = EXAMPLES / "math" / "aime_sample" / "tasks"
HUMAN = [1, 2, 3, 4, 4, 3, 2, 1, 4, 3]
MODEL = [1, 2, 3, 4, 3, 3, 1, 2, 4, 4]
DEEP = "[" * 100_000 + "]" * 100_000
DEEP_150 = "[" * 150 + "]" * 150
INPUT, USAGE, SERVICE = 1, 2, 3


def cli(capsys, *argv) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``judge ARGV``; an escaping exception becomes a
    traceback on stderr (what the real executable would print)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - exactly what must never happen
        out, err = capsys.readouterr()
        return 1, out, err + traceback.format_exc()
    out, err = capsys.readouterr()
    return code, out, err


def check(capsys, argv, code, pattern):
    got, out, err = cli(capsys, *argv)
    assert "Traceback" not in err, err[-3000:]
    assert got == code, (got, err[-2000:])
    assert re.search(pattern, err), err[-2000:]
    return out, err


@pytest.fixture
def files(tmp_path):
    def write(name, data):
        p = tmp_path / name
        p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        return p
    return write


def _grades(values, start=0):
    return "".join(json.dumps({"id": f"s{i}", "grade": g}) + "\n" for i, g in enumerate(values, start))


def _task_id():
    return sorted(p.stem for p in TASKS.glob("*.json"))[0]


# ---------------------------------------------------------------- bad bytes, depth, size, numbers: every input


def bad_inputs(files):
    """(name, argv, exit code, stderr pattern) for every input path of the four commands."""
    ref = files("ref.json", json.dumps({"id": "1", "answer": {"a": "-5", "b": "<select2,1,inf>x; y; z"}}))
    sol = files("sol.json", json.dumps({"id": "1", "answer": {"a": "5", "b": ["x"]}}))
    h = files("h.jsonl", _grades(HUMAN))
    p = files("p.jsonl", _grades(MODEL))
    out = files("out.jsonl", json.dumps({"task_id": _task_id(), "output": "70"}) + "\n")
    bad_json = b'{"a": "\xff"}'
    cases = []
    for what, mk in (("bad byte", lambda n: files("bad_byte_" + n, bad_json)),
                     ("deep", lambda n: files("deep_" + n, DEEP)),
                     ("deep150", lambda n: files("deep150_" + n, DEEP_150)),
                     ("huge int", lambda n: files("huge_int_" + n, '{"a": ' + "9" * 5000 + "}"))):
        pat = {"bad byte": r":1: not UTF-8 \(byte 0xff at column 8\)", "deep": r"nested too deeply",
               "deep150": r"nested deeper than 100 levels", "huge int": r":1: invalid JSON: a number of 5000 digits"}[what]
        cases += [
            (f"score spec {what}", ["score", mk("spec.json"), SUB, "--ground-truth", GT], INPUT, r"spec\.json" + ".*" + pat),
            (f"score submission {what}", ["score", SPEC, mk("sub.json"), "--ground-truth", GT], INPUT, r"sub\.json" + ".*" + pat),
            (f"score ground truth {what}", ["score", SPEC, SUB, "--ground-truth", mk("gt.json")], INPUT, r"gt\.json" + ".*" + pat),
            (f"match reference {what}", ["match", mk("r.json"), sol], INPUT, r"r\.json" + ".*" + pat),
            (f"match solution {what}", ["match", ref, mk("s.json")], INPUT, r"s\.json" + ".*" + pat),
        ]
    for what, line, pat in (("bad byte", b'{"problem_id": "\xfe"}', r":1: not UTF-8 \(byte 0xfe at column 17\)"),
                            ("deep", ('{"x": ' + DEEP + "}").encode(), r":1: invalid JSON: nested too deeply"),
                            ("deep150", ('{"x": ' + DEEP_150 + "}").encode(), r":1: x\[0\]\[0\].*nested deeper than 100"),
                            ("huge int", b'{"problem_id": ' + b"9" * 5000 + b"}", r":1: invalid JSON: a number of 5000 digits, more than the limit of 4300 \(column 16\)")):
        tag = what.replace(" ", "_") + "_"
        cases += [
            (f"score results {what}", ["score", CODE_SPEC, files(tag + "res.jsonl", line + b"\n")], INPUT, r"res\.jsonl" + pat),
            (f"aime outputs {what}", ["aime", TASKS, files(tag + "o.jsonl", line + b"\n")], INPUT, r"o\.jsonl" + pat),
            (f"agreement human {what}", ["agreement", files(tag + "g.jsonl", line + b"\n"), p, "--scale", "1-4"], INPUT, r"g\.jsonl" + pat),
            (f"agreement pred {what}", ["agreement", h, files(tag + "g2.jsonl", line + b"\n"), "--scale", "1-4"], INPUT, r"g2\.jsonl" + pat),
        ]
    cases += [
        ("agreement csv bad byte", ["agreement", files("g.csv", b"id,grade\ns0,1\ns1,\xff\n"), p], INPUT,
         r"g\.csv:3: not UTF-8 \(byte 0xff at column 4\)"),
        ("agreement csv huge grade", ["agreement", files("g3.csv", "id,grade\ns0," + "9" * 5000 + "\n"), p], INPUT,
         r"g3\.csv:2: grade '9+'\.\.\. \(5000 characters\) is not a grade"),
        ("aime task file bad byte", ["aime", _tasks_with(files, b'{"task_id": "\xff"}', "tasks_bad_byte"), out], INPUT,
         r"bad\.json:1: not UTF-8"),
        ("aime task file deep", ["aime", _tasks_with(files, DEEP.encode(), "tasks_deep"), out], INPUT, r"bad\.json: invalid JSON: nested too deeply"),
        ("score missing file", ["score", SPEC, "/nonexistent/sub.json", "--ground-truth", GT], INPUT,
         r"/nonexistent/sub\.json: cannot read"),
        ("score a directory", ["score", SPEC, ROOT / "examples", "--ground-truth", GT], INPUT, r"examples: cannot read"),
        ("match missing file", ["match", "/nonexistent/r.json", sol], INPUT, r"/nonexistent/r\.json: cannot read"),
        ("agreement missing file", ["agreement", "/nonexistent/h.jsonl", p], INPUT, r"/nonexistent/h\.jsonl: cannot read"),
        ("aime missing outputs", ["aime", TASKS, "/nonexistent/o.jsonl"], INPUT, r"/nonexistent/o\.jsonl: cannot read"),
        ("score results gzip corrupt", ["score", CODE_SPEC, files("c.jsonl", b"\x1f\x8b\x08\x00garbage")], INPUT,
         r"c\.jsonl: cannot read"),
    ]
    deflate = gzip.compress(b'{"id": "s0", "grade": 1}\n' * 40)[:10] + b"\x00garbage" * 8  # a header, no stream
    cases += [
        ("score results corrupt deflate", ["score", CODE_SPEC, files("d1.jsonl", deflate)], INPUT,
         r"d1\.jsonl: cannot read: corrupt gzip data"),
        ("aime outputs corrupt deflate", ["aime", TASKS, files("d2.jsonl", deflate)], INPUT,
         r"d2\.jsonl: cannot read: corrupt gzip data"),
        ("agreement corrupt deflate", ["agreement", files("d3.jsonl", deflate), p], INPUT,
         r"d3\.jsonl:1: not UTF-8 \(byte 0x8b at column 2\)"),  # grades are plain text (JSON Lines or CSV)
        ("match reference corrupt deflate", ["match", files("d4.json", deflate), sol], INPUT,
         r"d4\.json: cannot read: corrupt gzip data"),
    ]
    return cases


def _tasks_with(files, content: bytes, name: str) -> Path:
    folder = files("tasks_marker", "").parent / name
    folder.mkdir(exist_ok=True)
    (folder / "bad.json").write_bytes(content)
    return folder


def test_every_bad_input_is_located_with_exit_1_and_no_traceback(files, capsys):
    cases = bad_inputs(files)
    assert len(cases) >= 45
    for name, argv, code, pattern in cases:
        got, out, err = cli(capsys, *argv)
        assert "Traceback" not in err, (name, err[-3000:])
        assert got == code, (name, got, err[-1000:])
        assert re.search(pattern, err), (name, pattern, err[-1000:])


# ---------------------------------------------------------------- numbers (item 2)


def test_score_huge_numbers_in_a_submission(files, capsys):
    spec = files("spec.json", json.dumps({"type": "deterministic", "dimensions": [
        {"name": "n", "weight": 0.5, "primitive": "numeric_tolerance", "field": "x", "ground_truth_field": "y",
         "tolerance": 0.1},
        {"name": "t", "weight": 0.5, "primitive": "time_decay", "time_limit_secs": 300}]}))
    gt = files("gt.json", '{"y": 1.0}')
    sub = files("sub.json", '{"x": 1' + "0" * 400 + ', "time_used_secs": 1' + "0" * 400 + "}")
    got, out, err = cli(capsys, "score", spec, sub, "--ground-truth", gt, "--format", "json")
    assert got == 0 and "Traceback" not in err
    report = json.loads(out)
    assert report["total"] == 0 and all(len(d["detail"]) < 200 for d in report["dimensions"])
    sub = files("sub2.json", '{"x": 1.1, "time_used_secs": 150}')
    got, out, err = cli(capsys, "score", spec, sub, "--ground-truth", gt, "--format", "json")
    assert got == 0 and json.loads(out)["total"] == pytest.approx(0.5 * 1000 + 0.5 * 500)


def test_aime_five_thousand_digit_run(files, capsys):
    tid = _task_id()
    out = files("o.jsonl", json.dumps({"task_id": tid, "output": "The answer is " + "7" * 5000}) + "\n")
    got, stdout, err = cli(capsys, "aime", TASKS, out, "--format", "json")
    assert got == 0 and "Traceback" not in err
    result = json.loads(stdout)["results"][0]
    assert result["score"] == 0.0 and "more than 100 digits" in result["score_explanation"]
    got, stdout, err = cli(capsys, "aime", TASKS, out, "--mode", "any")
    assert got == 0 and "Traceback" not in err


def test_match_select_length_with_thousands_of_digits(files, capsys):
    ref = files("ref.json", json.dumps({"id": "1", "answer": {"a": "<select" + "9" * 5000 + ",1,inf>x; y"}}))
    sol = files("sol.json", json.dumps({"id": "1", "answer": {"a": "x"}}))
    check(capsys, ["match", ref, sol], INPUT, r"ref\.json: answer\['a'\]: select length with more than 6 digits")


@pytest.mark.parametrize("option,value", [
    ("--llm-timeout", "-1"), ("--llm-timeout", "0"), ("--llm-timeout", "nan"), ("--llm-timeout", "inf"),
    ("--llm-timeout", "soon"), ("--llm-retries", "-1"), ("--llm-retries", "9" * 5000), ("--llm-concurrency", "0"),
    ("--llm-max-tokens", "0"), ("--llm-temperature", "-0.5"), ("--llm-reasks", "99"), ("--threshold", "-1"),
])
def test_bad_llm_options_are_usage_errors(files, capsys, option, value):
    ref = files("ref.json", json.dumps({"id": "1", "answer": {"a": "<fuzzy>x"}}))
    sol = files("sol.json", json.dumps({"id": "1", "answer": {"a": "y"}}))
    check(capsys, ["match", ref, sol, "--judge", "llm", "--llm-model", "m", option, value], USAGE,
          rf"argument {option}: ")


# ---------------------------------------------------------------- empty input and scales (item 5)


def test_empty_results_file_scores_zero_with_a_warning_and_exit_1(files, capsys):
    for content in ("", "\n\n", "   \n"):
        out, err = check(capsys, ["score", CODE_SPEC, files("empty.jsonl", content), "--format", "json"], INPUT,
                         r"warning: .*empty\.jsonl: no result rows: every dimension scores 0")
        data = json.loads(out)
        assert data["models"][0]["total"] == 0
        assert all(d["score"] == 0 and d["detail"] == "no result rows" for d in data["models"][0]["dimensions"])
    suite = ROOT / "problems"
    if suite.is_dir():
        out, err = check(capsys, ["score", CODE_SPEC, files("e.jsonl", ""), "--suite", suite], INPUT, r"no result rows")


def test_results_file_with_only_bad_lines(files, capsys):
    check(capsys, ["score", CODE_SPEC, files("bad.jsonl", "{broken\n[1]\n")], INPUT,
          r"bad\.jsonl:1: invalid JSON(.|\n)*bad\.jsonl:2: a line must hold a JSON object(.|\n)*no result rows that could be read")


def test_submission_missing_fields_warns(files, capsys):
    out, err = check(capsys, ["score", SPEC, files("sub.json", "{}"), "--ground-truth", GT], 0,
                     r"warning: dimension 'accuracy': submission has no field 'answers': scores 0")


def test_empty_aime_outputs(files, capsys):
    out, err = check(capsys, ["aime", TASKS, files("o.jsonl", "")], INPUT,
                     r"warning: .*o\.jsonl: no output could be scored: every task scores 0")
    assert re.search(r"overall +0\.000", out)
    one = files("one.jsonl", json.dumps({"task_id": _task_id(), "output": "70"}) + "\n")
    out, err = check(capsys, ["aime", TASKS, one], 0, r"warning: \d+ of \d+ task\(s\) have no output and score 0")


def test_match_solution_answering_nothing(files, capsys):
    ref = files("ref.json", json.dumps({"id": "1", "answer": {"a": "kuru", "b": "-lar"}}))
    sol = files("sol.json", json.dumps({"id": "1", "answer": {}}))
    out, err = check(capsys, ["match", ref, sol], INPUT, r"answers none of the reference's 2 question\(s\)")
    assert "score 0.000" in out


def test_match_keeps_signs_and_affixes(files, capsys):
    ref = files("ref.json", json.dumps({"id": "1", "answer": {"a": "-5", "b": "-lar", "c": "5!", "d": "(a)"}}))
    sol = files("sol.json", json.dumps({"id": "1", "answer": {"a": "5", "b": "lar", "c": "5", "d": "a"}}))
    got, out, err = cli(capsys, "match", ref, sol, "--format", "json")
    assert got == 0 and [e["score"] for e in json.loads(out)["entries"]] == [0.0] * 4
    sol = files("sol2.json", json.dumps({"id": "1", "answer": {"a": "−5.", "b": "**-lar**", "c": "5!", "d": "(A)"}}))
    got, out, err = cli(capsys, "match", ref, sol, "--format", "json")
    assert got == 0 and [e["score"] for e in json.loads(out)["entries"]] == [1.0] * 4


def test_agreement_outlier_needs_a_scale(files, capsys):
    h = files("h.jsonl", _grades(HUMAN + [3]))
    p = files("p.jsonl", _grades(MODEL + [10 ** 9]))
    check(capsys, ["agreement", h, p], INPUT,
          r"the grades range from 1 to 1000000000 \(1000000000 categories, more than 101\): pass the scale explicitly")
    check(capsys, ["agreement", h, p, "--scale", "1-4"], INPUT, r"p\.jsonl:11: grade 1000000000 is outside the scale 1-4")
    got, out, err = cli(capsys, "agreement", h, p, "--scale", "0-1000000000", "--format", "json")
    assert got == 0 and "Traceback" not in err and json.loads(out)["n"] == 11  # a wide scale is O(n)


def test_agreement_paper_map_defaults(files, capsys):
    h, p = files("h.jsonl", _grades(HUMAN)), files("p.jsonl", _grades(MODEL))
    out, err = check(capsys, ["agreement", h, p, "--map", "2x-1", "--format", "json"], 0,
                     r"using the paper's source scale 1-4")
    assert json.loads(out)["scale"] == "0-7"
    got, out, err = cli(capsys, "agreement", h, p, "--scale", "1-4", "--map", "2x-1", "--format", "json")
    assert got == 0 and json.loads(out)["scale"] == "0-7"
    got, out, err = cli(capsys, "agreement", h, p, "--scale", "1-4", "--map", "2x-1", "--target-scale", "1-7",
                        "--format", "json")
    assert got == 0 and json.loads(out)["scale"] == "1-7"


@pytest.mark.parametrize("scale", ["0-" + "9" * 5000, "7-0", "a-b"])
def test_agreement_bad_scales_are_usage_errors(files, capsys, scale):
    h, p = files("h.jsonl", _grades(HUMAN)), files("p.jsonl", _grades(MODEL))
    check(capsys, ["agreement", h, p, "--scale", scale], USAGE, r"scale")


# ---------------------------------------------------------------- AC2 option (item 6)


def test_agreement_ac2_option(files, capsys):
    h, p = files("h.jsonl", _grades(HUMAN)), files("p.jsonl", _grades(MODEL))
    got, out, err = cli(capsys, "agreement", h, p, "--scale", "1-4", "--format", "json")
    assert got == 0 and round(json.loads(out)["ac2"], 5) == 0.84536 and json.loads(out)["ac2_formula"] == "gwet"
    got, out, err = cli(capsys, "agreement", h, p, "--scale", "1-4", "--ac2", "paper", "--format", "json")
    assert got == 0 and round(json.loads(out)["ac2"], 5) == 0.83471 and json.loads(out)["ac2_formula"] == "paper"
    got, out, err = cli(capsys, "agreement", h, p, "--scale", "1-4", "--ac2", "paper")
    assert "AC2 formula: paper" in out


# ---------------------------------------------------------------- the real executable


@pytest.mark.parametrize("case", ["score submission bad byte", "score results deep", "aime outputs huge int",
                                  "agreement pred deep150", "match solution deep"])
def test_real_executable_prints_no_traceback(files, case):
    cases = {name: (argv, code, pattern) for name, argv, code, pattern in bad_inputs(files)}
    argv, code, pattern = cases[case]
    r = subprocess.run([sys.executable, "-m", "judge", *map(str, argv)], capture_output=True, text=True,
                       cwd=ROOT, timeout=600)
    assert "Traceback" not in r.stderr and r.returncode == code and re.search(pattern, r.stderr), r.stderr[-2000:]


def test_real_executable_bad_timeout(files):
    ref = files("ref.json", json.dumps({"id": "1", "answer": {"a": "<fuzzy>x"}}))
    sol = files("sol.json", json.dumps({"id": "1", "answer": {"a": "y"}}))
    r = subprocess.run([sys.executable, "-m", "judge", "match", str(ref), str(sol), "--judge", "llm",
                        "--llm-model", "m", "--llm-timeout", "-1"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "argument --llm-timeout: must be a finite number > 0, got '-1'" in r.stderr
