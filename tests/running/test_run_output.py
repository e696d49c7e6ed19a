"""`judge run` as people expect it: run metadata on every results line (read back by `judge
report` and harmless to `--resume` and `judge score`), a results file by default, progress with
a total and an ETA in a non-terminal log, and a bar in a notebook-like context."""

from __future__ import annotations

import datetime as dt
import gzip
import io
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import judge
from judge.cli.results_path import default_results_path
from judge.running.progress import Progress, count_lines
from tests.paths import ROOT

PROBLEM = ROOT / "problems" / "basics" / "basics_pascal_row.json"
GOOD = ("def pascal_row(row_index):\n    row = [1]\n    for k in range(row_index):\n"
        "        row.append(row[-1] * (row_index - k) // (k + 1))\n    return row\n")
WRONG = "def pascal_row(row_index):\n    return [1]\n"


def _cli(*args: object, env: dict[str, str] | None = None, cwd: Path = ROOT
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    """One run without --output: a good, a wrong and a crashing candidate, and a bad line."""
    folder = tmp_path_factory.mktemp("default-run")
    solutions = folder / "my samples.jsonl"
    solutions.write_text("\n".join([
        json.dumps({"problem_id": "basics_pascal_row", "solution": GOOD, "model": "m"}),
        json.dumps({"problem_id": "basics_pascal_row", "solution": WRONG, "model": "m"}),
        "{not json",
        json.dumps({"problem_id": "basics_pascal_row", "model": "m",
                    "solution": "def pascal_row(row_index):\n    raise SystemExit(3)\n"}),
        ""]) + "\n", encoding="utf-8")
    results_dir = folder / "out"
    done = _cli("run", PROBLEM, "--solutions", solutions, "--sandbox", "process",
                env={"JUDGE_RESULTS_DIR": str(results_dir), "JUDGE_PROGRESS_INTERVAL": "0"})
    return done, results_dir


def test_run_writes_a_results_file_by_default_and_prints_its_name(default_run):
    done, results_dir = default_run
    assert done.returncode == 1, done.stderr  # the bad line: invalid input, the rest judged
    written = sorted(results_dir.glob("*.jsonl"))
    assert len(written) == 1 and written[0].name.startswith("my_samples-")
    assert "results: %s" % written[0] in done.stderr
    rows = _lines(written[0])
    assert [r["verdict"] for r in rows] == ["pass", "wrong_answer", "runtime_error"]


def test_every_line_records_how_it_was_judged(default_run):
    done, results_dir = default_run
    rows = _lines(next(results_dir.glob("*.jsonl")))
    run = rows[0]["run"]
    assert all(r["run"] == run for r in rows)
    assert run["judge_version"] == judge.__version__
    assert run["command"].startswith("judge run ") and "'" in run["command"]  # quoted space
    assert run["sandbox"] == rows[0]["sandbox_isolation"]["backend"]
    assert run["limits"]["time_limit_s"] > 0 and run["dedup"] == "on"
    assert run["isolation"] == "on-failure tests, warm workers"
    assert run["executor"] == "local" and "(%d jobs)" % run["jobs"] in done.stderr
    assert dt.datetime.fromisoformat(run["date"]).tzinfo is not None
    # the suite fingerprint is the one the report derives from the lines' judged_with
    from judge.reports.runs import _fingerprint

    assert run["suite_fingerprint"] == _fingerprint(
        (r["problem_id"], r["judged_with"]) for r in rows)


def test_report_resume_and_score_read_the_recorded_run(default_run, tmp_path):
    _, results_dir = default_run
    path = next(results_dir.glob("*.jsonl"))
    report = _cli("report", path, "--format", "json")
    assert report.returncode == 0, report.stderr
    meta = json.loads(report.stdout)["runs"][0]
    assert meta["judge_version"] == judge.__version__ and meta["command"].startswith("judge run")
    assert meta["limits"]["time_limit_s"] > 0 and meta["dedup"] == "on"
    assert meta["candidates"] == 3
    # --resume: every candidate already judged is skipped, the file keeps one line each
    copy = tmp_path / "results.jsonl"
    copy.write_bytes(path.read_bytes())
    solutions = tmp_path / "s.jsonl"
    solutions.write_text(json.dumps({"problem_id": "basics_pascal_row", "solution": GOOD,
                                     "model": "m"}) + "\n", encoding="utf-8")
    resumed = _cli("run", PROBLEM, "--solutions", solutions, "--sandbox", "process",
                   "--output", copy, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "skipped 1 already judged" in resumed.stderr
    assert len(_lines(copy)) == 3
    # judge score's reader takes each line as a results row (the run object is one more field)
    from judge.scoring.specs import validate_result_row

    assert [validate_result_row(r, "x")["verdict"] for r in _lines(copy)] == [
        "pass", "wrong_answer", "runtime_error"]


def test_progress_in_a_log_is_plain_lines_with_total_and_eta(default_run):
    done, _ = default_run
    progress = [line for line in done.stderr.splitlines() if line.startswith("judging:")]
    assert progress, done.stderr
    assert "\r" not in done.stderr and "\x1b" not in done.stderr
    last = progress[-1]
    assert last.startswith("judging: 4/4 (100%)") and "ETA" in last, last
    assert "pass 1" in last and "wrong_answer 1" in last and "runtime_error 1" in last
    assert any("/4 (" in line and "ETA" in line for line in progress[:-1])


def test_no_output_writes_nothing(tmp_path):
    done = _cli("run", PROBLEM, "--solutions", "optimal", "--sandbox", "process",
                "--no-output", "--progress", "off", env={"JUDGE_RESULTS_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == [] and "results:" not in done.stderr
    assert "judging:" not in done.stderr
    both = _cli("run", PROBLEM, "--solutions", "optimal", "--no-output", "--output",
                tmp_path / "x.jsonl")
    assert both.returncode == 2 and "exclude each other" in both.stderr


def test_api_progress_in_a_notebook_like_context(monkeypatch):
    """judge_many(progress=True) inside a Jupyter kernel: tqdm.auto draws it (a widget with
    ipywidgets, else the text bar) on the kernel's stderr, a captured stream here."""
    class ZMQInteractiveShell:  # what get_ipython() returns in a Jupyter kernel
        config = {"IPKernelApp": {}}

    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(
        get_ipython=ZMQInteractiveShell))
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    suite = judge.load_suite(str(PROBLEM))
    problem = suite.problems[0]
    items = [(problem, GOOD), (problem, WRONG), (problem, "def pascal_row(:\n")]
    with judge.Judge(sandbox="process") as j:
        verdicts = [r.verdict.value for r in j.judge_many(items, progress=True)]
    assert verdicts == ["pass", "wrong_answer", "compile_error"]
    shown = stream.getvalue()
    assert "3/3" in shown and "100%" in shown, shown
    assert "compile_error 1" in shown


def test_progress_lines_and_counting(tmp_path):
    stream = io.StringIO()
    progress = Progress(3, stream, mode="lines", interval=0)
    for verdict in ("pass", "timeout"):
        progress.step(verdict)
    progress.skip()
    progress.close()
    progress.close()  # idempotent
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("judging: 0/3 (0%)")
    assert lines[-1].startswith("judging: 3/3 (100%)") and "pass 1, timeout 1" in lines[-1]
    unsized = io.StringIO()
    progress = Progress(None, unsized, mode="lines", interval=0)
    progress.step("pass")
    progress.close()
    assert unsized.getvalue().splitlines()[-1].startswith("judging: 1 elapsed")
    assert Progress(5, io.StringIO(), mode="auto").mode == "lines"  # not a terminal
    gz = tmp_path / "s.jsonl.gz"
    with gzip.open(gz, "wt") as handle:
        handle.write('{"a": 1}\n\n{"a": 2}\n   \n{"a"')
    assert count_lines(gz) == 3


def test_default_results_path_never_overwrites(tmp_path):
    now = dt.datetime(2026, 11, 25, 10, 0, 0, tzinfo=dt.timezone.utc)
    first = default_results_path("problems/basics", "optimal", now, tmp_path)
    assert first.name == "basics-optimal-20261125T100000Z.jsonl"
    first.write_text("")
    second = default_results_path("problems/basics", "optimal", now, tmp_path)
    assert second.name == "basics-optimal-20261125T100000Z-2.jsonl"
    assert default_results_path("x", "runs/samples.jsonl.gz", now, tmp_path).name \
        .startswith("samples-")


def test_judge_run_stamps_what_it_writes_by_default(tmp_path):
    from judge import jsonl
    from judge.candidates.extract import Candidate

    suite = judge.load_suite(str(PROBLEM))
    problem = suite.problems[0]
    items = [(problem, Candidate(problem.identifier, GOOD, model="m"), None)]
    with judge.Judge(sandbox="process", time_limit_s=3) as j:
        with jsonl.open_write(tmp_path / "a.jsonl") as out:
            j.run(items, output=out)
        with jsonl.open_write(tmp_path / "b.jsonl") as out:
            j.run(items, output=out, metadata=False)
    stamped = _lines(tmp_path / "a.jsonl")[0]
    assert stamped["verdict"] == "pass"
    assert stamped["run"]["limits"]["time_limit_s"] == 3
    assert stamped["run"]["judge_version"] == judge.__version__ and "command" not in stamped["run"]
    assert "run" not in _lines(tmp_path / "b.jsonl")[0]
