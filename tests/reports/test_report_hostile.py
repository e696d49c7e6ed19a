"""``judge report`` on valid but hostile results files (issue 36, defect 9), through the real
executable, in every format (``--format table|markdown|json|html`` and ``--html FILE``):

- a number that is not finite (``NaN``, ``Infinity``, ``1e999``, which JSON reads as an
  infinity, an integer past a float's range) in any field the report reads is shown as
  missing where it enters the report model (``tables.bounded``), with a warning naming its
  line and location and a line in the report saying how many (``--html`` died on
  ``time_s: 1e999``);
- a lone surrogate in any string (ids, model, messages, a file name that is not UTF-8) is
  written as its escape at the output boundary, stdout in every format and the HTML file
  (every format died on ``"problem_id": "\\ud800"``);
- huge strings, wrong types and deep nesting are reported, never a traceback.

Exit 0 for a valid file; 1 with located errors for lines that are not results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge.reports.tables import bounded, printable

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

JUDGE = Path(sys.executable).with_name("judge")
FORMATS = ("table", "markdown", "json", "html")
NUMBERS = ("NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1" + "0" * 400,
           "1.7976931348623157e308", "-5", "4e-320")
TEXTS = ('"\\ud800"', '"x\\udcff\\ud800"', '"%s"' % ("A" * 300_000), '"<script>\\ud800"',
         "1e999", "NaN", "[1, 2]", '{"\\ud800": NaN}', "true", "null")
TEXT_FIELDS = ("problem_id", "model", "prompt_id", "message", "note", "verdict", "language",
               "sandbox", "judged_with", "isolation", "duplicate_of", "sample")


def _line(**fields: str) -> str:
    fields = {"problem_id": '"p"', "verdict": '"wrong_answer"', "model": '"m"', **fields}
    return "{%s}" % ", ".join('"%s": %s' % item for item in fields.items())


def _hostile_lines() -> list[str]:
    lines = []
    for number in NUMBERS:
        test = '{"index": %s, "verdict": "wrong_answer", "time_s": %s, "message": %s}' % (
            number, number, number)
        lines += [_line(time_s=number, passed=number, total=number, sample=number,
                        tests="[%s]" % test),
                  _line(verdict='"pass"', time_s=number, tests="[%s]" % test.replace(
                      "wrong_answer", "pass")),
                  _line(run='{"suite_problems": %s, "limits": {"time_s": %s}}'
                        % (number, number)),
                  '{"run": {"limits": {"time_s": %s}, "date": %s}}' % (number, number)]
    for field in TEXT_FIELDS:
        for text in TEXTS:
            lines.append(_line(**{field: text}))
    for text in TEXTS:
        lines += [_line(tests=text), _line(sandbox_isolation=text),
                  _line(tests='[{"verdict": %s, "message": %s, "output": %s}]'
                        % (text, text, text)),
                  _line(sandbox_isolation='{"image": %s, "user": %s}' % (text, text))]
    lines += [_line(message="[" * 900 + "]" * 900), '{"run": {"limits": %s}}'
              % ("[" * 900 + "]" * 900), _line(problem_id='"\\ud800"', verdict='"pass"',
                                               model='"\\udfff"')]
    return lines


def _report(*args: str | bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(JUDGE), "report", *args], capture_output=True, timeout=300,
                          env={**os.environ, "PYTHONIOENCODING": ""})


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    path = folder / "hostile.jsonl"
    path.write_text("\n".join(_hostile_lines()) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", FORMATS)
def test_hostile_results_give_a_report_in_every_format(hostile, tmp_path, fmt):
    page = tmp_path / "report.html"
    done = _report(str(hostile), "--format", fmt, "--html", str(page), "--bootstrap", "50")
    assert b"Traceback" not in done.stderr, done.stderr[-3000:].decode("utf-8", "replace")
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout.decode("utf-8")  # encodable, whatever was in the results
    html = page.read_text(encoding="utf-8")
    for text in (out, html):
        assert "\ud800" not in text and "\\ud800" in text  # escaped, not dropped
    assert b"not a finite number (inf): shown as missing" in done.stderr
    assert b"hostile.jsonl:1: time_s: not a finite number (NaN)" in done.stderr
    assert b"values shown as missing" in done.stderr  # past the first 20, counted
    assert "shown as missing (not a finite number" in (out if fmt != "html" else html)
    if fmt == "json":
        data = json.loads(out, parse_constant=lambda name: pytest.fail(name))  # strict JSON
        assert data["missing_values"]["count"] > 20
    if fmt == "html":
        assert out == html and "<script>\\ud800" not in html


def test_a_file_name_that_is_not_utf8_and_two_runs_compared(hostile, tmp_path):
    """A lone surrogate from the command line (a file name that is not UTF-8) reaches run
    labels, comparisons and the page: escaped too."""
    other = Path(os.fsdecode(bytes(tmp_path) + b"/r\xff.jsonl"))
    other.write_text(_line(problem_id='"\\ud800"', verdict='"pass"') + "\n"
                     + _line(time_s="1e999") + "\n", encoding="utf-8")
    for fmt in FORMATS:
        for compare in ([], ["--compare-models"]):
            done = _report(str(hostile), os.fsencode(other), "--format", fmt, "--bootstrap",
                           "50", *compare)
            assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr[-2000:]
            assert b"r\\udcff.jsonl" in done.stdout or b"r\\\\udcff.jsonl" in done.stdout


def test_lines_that_are_not_results_are_located_errors(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('[1]\nnot json\n{"x": 1}\n%s\n' % _line(time_s="NaN"), encoding="utf-8")
    for fmt in FORMATS:
        done = _report(str(path), "--format", fmt)
        assert done.returncode == 1 and b"Traceback" not in done.stderr
        assert b"r.jsonl:1:" in done.stderr and b"r.jsonl:3: not a results line" in done.stderr
    unwritable = _report(str(path), "--html", str(tmp_path / "no" / "such" / "r.html"))
    assert unwritable.returncode == 1 and b"cannot write the HTML report" in unwritable.stderr


def test_bounded_makes_every_number_finite_where_it_enters():
    row = json.loads('{"a": NaN, "b": [1e999, {"c": -Infinity}], "d": %s, "e": 1.5, "f": true,'
                     ' "g": %s}' % ("9" * 400, "[" * 150 + "]" * 150))
    notes = bounded(row, "f.jsonl", 7)
    deep, depth = row.pop("g"), 1
    while deep:
        deep, depth = deep[0], depth + 1
    assert deep is None and depth == 100  # cut at the limit, iteratively
    assert row == {"a": None, "b": [None, {"c": None}], "d": None, "e": 1.5, "f": True}
    assert sorted((n.location, n.message.split(":")[0]) for n in notes) == [
        ("a", "not a finite number (NaN)"),
        ("b[0]", "not a finite number (inf)"), ("b[1].c", "not a finite number (-inf)"),
        ("d", "not a finite number (an integer of 1329 bits, past any float)"),
        ("g" + "[0]" * 7 + "…", "nested deeper than 100 levels")]
    assert all(n.file == "f.jsonl" and n.line == 7 for n in notes)
    assert printable("a\ud800b") == "a\\ud800b" and printable("é") == "é"
