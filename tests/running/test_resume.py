"""--resume: one line per candidate (the newest), a truncated tail repaired, a changed limit
judged again, a sandbox_error judged again, and nothing counted twice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.paths import ROOT

SUITE = "problems/types"


def run(out: Path, *extra: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge", "run", SUITE, "--solutions", "optimal",
                           "--sandbox", "process", "--jobs", "2", "--output", str(out),
                           "--format", "json", *map(str, extra)],
                          cwd=ROOT, capture_output=True, text=True)


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def first(tmp_path_factory):
    out = tmp_path_factory.mktemp("resume") / "first.jsonl"
    done = run(out)
    assert done.returncode == 0, done.stderr
    return out


def test_changed_limit_rejudges_and_keeps_one_line_per_candidate(first, tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_bytes(first.read_bytes())
    count = len(rows(first))
    done = run(out, "--resume", "--memory-mb", 400)
    assert done.returncode == 0, done.stderr
    assert "judged %d candidates" % count in done.stderr
    after = rows(out)
    assert len(after) == count, "one line per candidate after resuming with a new limit"
    assert len({r["key"] for r in after}) == count
    assert json.loads(done.stdout)["candidates"] == count
    assert {r["judged_with"] for r in after}.isdisjoint({r["judged_with"] for r in rows(first)})


def test_truncated_last_line_is_repaired_not_glued(first, tmp_path):
    out = tmp_path / "r.jsonl"
    data = first.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    out.write_bytes(data[: last_start + 40])  # the last record cut in the middle
    count = len(rows(first))
    done = run(out, "--resume")
    assert done.returncode == 0, done.stderr
    assert "truncated" in done.stderr
    assert "judged 1 candidate" in done.stderr and "skipped %d" % (count - 1) in done.stderr
    after = rows(out)  # every line parses: nothing glued
    assert len(after) == count and len({r["key"] for r in after}) == count


def test_sandbox_error_is_judged_again(first, tmp_path):
    out = tmp_path / "r.jsonl"
    lines = rows(first)
    lines[2]["verdict"] = "sandbox_error"
    out.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    done = run(out, "--resume")
    assert done.returncode == 0, done.stderr
    assert "judged 1 candidate" in done.stderr
    after = rows(out)
    assert len(after) == len(lines)
    again = [r for r in after if r["key"] == lines[2]["key"]]
    assert len(again) == 1 and again[0]["verdict"] == "pass"
    summary = json.loads(done.stdout)
    assert summary["candidates"] == len(lines) and summary["verdicts"] == {"pass": len(lines)}


def test_identical_samples_without_numbers_stay_apart(tmp_path):
    """Two lines with the same code and no sample number are two candidates (pass@k)."""
    problem = json.loads((ROOT / SUITE).joinpath(sorted(p.name for p in (ROOT / SUITE).glob(
        "*.json"))[0]).read_text(encoding="utf-8"))
    pid, code = problem["identifier"], problem["optimal_solution"]
    solutions = tmp_path / "s.jsonl"
    solutions.write_text((json.dumps({"task_id": pid, "completion": code}) + "\n") * 2,
                         encoding="utf-8")
    out = tmp_path / "r.jsonl"
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "judge", "run", SUITE, "--solutions",
                               str(solutions), "--sandbox", "process", "--output", str(out),
                               "--resume", "--format", "json"], cwd=ROOT, capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["candidates"] == 2
    assert len(rows(out)) == 2
