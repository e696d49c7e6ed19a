"""Runs: a results file read back with what is known of how it was made (run metadata).

The metadata is taken from what the results lines carry, never guessed:
- ``sandbox`` and ``sandbox_isolation`` (back end, user, network, image) of each line;
- ``isolation`` (how a candidate's tests were split into children) and ``language``;
- ``judged_with`` (a hash of the problem's content and the limits): the **suite fingerprint**
  is a hash of the sorted (problem id, judged_with) pairs, so two runs with the same
  fingerprint judged the same problems with the same limits;
- ``duplicate_of`` (dedup reused an earlier result) and ``retried`` (a sandbox error retried);
- a run header line ``{"run": {...}}`` or a ``run`` object on the lines, when a writer puts
  one there: its ``judge_version``, ``command``, ``limits``, ``date``... are taken as they are.

What no line says is reported as ``null`` (``None``), with the file's modification time and
the version of the judge that made the *report* alongside, labelled as such.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import judge
from judge.errors import Issue
from judge.reports.tables import Summary, model_of, natural_key, read_results, summarize

#: run facts a writer may record (header line or a ``run`` object on the lines)
RECORDED = ("judge_version", "command", "date", "limits", "suite", "suite_fingerprint",
            "sandbox", "image", "isolation", "dedup", "executor", "jobs")


@dataclass
class Run:
    """One results file: its rows and what is known of how it was judged."""

    label: str
    path: str
    rows: list[dict[str, Any]]
    headers: list[dict[str, Any]] = field(default_factory=list)
    #: the values read as missing (not finite, nested too deeply): notes naming each
    missing: list[Issue] = field(default_factory=list)

    @property
    def metadata(self) -> dict[str, Any]:
        return run_metadata(self.path, self.rows, self.headers, self.label)

    def summary(self, tagged: bool = False) -> Summary:
        summary = summarize(self.rows, self.label if tagged else None)
        summary.runs = [self.metadata]
        summary.missing = len(self.missing)
        return summary


def read_run(path: str | Path, label: str | None = None) -> tuple[Run, list[Issue]]:
    """A results file as a run; its bad lines as issues (its values shown as missing are
    the run's ``missing`` notes, not issues)."""
    headers: list[dict[str, Any]] = []
    missing: list[Issue] = []
    rows, issues = read_results(path, headers, missing)
    return Run(label or Path(path).name, str(path), rows, headers, missing), issues


def read_runs(paths: Iterable[str | Path]) -> tuple[list[Run], list[Issue]]:
    """Runs labelled by file name (by the path where two names are the same)."""
    paths = [str(p) for p in paths]
    names = [Path(p).name for p in paths]
    runs, issues = [], []
    for path, name in zip(paths, names):
        run, found = read_run(path, name if names.count(name) == 1 else path)
        runs.append(run)
        issues.extend(found)
    return runs, issues


def by_model(runs: list[Run]) -> list[Run]:
    """One run per model of each run (labelled ``model`` with one file, ``model · file``
    with several), models in natural order: to compare models rather than files."""
    arms = []
    for run in runs:
        for model in sorted({model_of(r) for r in run.rows}, key=natural_key):
            label = model if len(runs) == 1 else "%s · %s" % (model, run.label)
            arms.append(Run(label, run.path, [r for r in run.rows if model_of(r) == model],
                            run.headers))
    return arms


def _fingerprint(pairs: Iterable[tuple[str, str]]) -> str | None:
    pairs = sorted(set(pairs))
    if not pairs:
        return None
    text = "\n".join("%s\x00%s" % pair for pair in pairs)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _most_common(values: Iterable[Any]) -> Any:
    counted = Counter(json.dumps(v, sort_keys=True) for v in values if v not in (None, ""))
    if not counted:
        return None
    return json.loads(counted.most_common(1)[0][0])


def run_metadata(path: str, rows: list[dict[str, Any]], headers: list[dict[str, Any]] | None
                 = None, label: str | None = None) -> dict[str, Any]:
    """What the lines (and a header) say about how ``path`` was judged."""
    recorded: dict[str, Any] = {}
    for header in headers or []:
        recorded.update({k: v for k, v in header.items() if v is not None})
    for row in rows:
        if isinstance(row.get("run"), dict):
            for key, value in row["run"].items():
                recorded.setdefault(key, value)
        for key in ("judge_version", "command", "date", "limits"):
            if row.get(key) is not None:
                recorded.setdefault(key, row[key])
    facts = _most_common(r.get("sandbox_isolation") for r in rows
                         if isinstance(r.get("sandbox_isolation"), dict)) or {}
    sandboxes = Counter(str(r.get("sandbox")) for r in rows if r.get("sandbox"))
    isolation = Counter(str(r["isolation"]).split(",")[0] for r in rows if r.get("isolation"))
    judged_with = [(str(r.get("problem_id")), str(r["judged_with"])) for r in rows
                   if r.get("judged_with")]
    duplicates = sum(1 for r in rows if r.get("duplicate_of") is not None)
    try:
        modified = _dt.datetime.fromtimestamp(Path(path).stat().st_mtime, _dt.timezone.utc)
        file_date = modified.isoformat(timespec="seconds")
    except OSError:
        file_date = None
    problems = {str(r.get("problem_id")) for r in rows}
    meta: dict[str, Any] = {
        "run": label or Path(path).name,
        "file": str(path),
        "candidates": len(rows),
        "problems": len(problems),
        "models": sorted({str(r.get("model") or "-") for r in rows}),
        "languages": sorted({str(r.get("language") or "python") for r in rows}),
        "judge_version": recorded.get("judge_version"),
        "command": recorded.get("command"),
        "date": recorded.get("date"),
        "file_modified": file_date,
        "limits": recorded.get("limits"),
        "suite_fingerprint": recorded.get("suite_fingerprint") or _fingerprint(judged_with),
        "sandbox": recorded.get("sandbox") or (", ".join(
            "%s (%d)" % item for item in sandboxes.most_common()) or None),
        "sandbox_backend": facts.get("backend"),
        "image": recorded.get("image") or facts.get("image"),
        "isolated": facts.get("isolated"),
        "user": facts.get("user"),
        "network": facts.get("network"),
        "test_isolation": recorded.get("isolation") or (", ".join(
            "%s (%d)" % item for item in isolation.most_common()) or None),
        "dedup": recorded.get("dedup", "%d results reused from identical candidates"
                              % duplicates if duplicates else None),
        "retried": sum(1 for r in rows if r.get("retried")) or 0,
        "report_judge_version": judge.__version__,
    }
    for key in RECORDED:  # anything else a header recorded, as it was written
        if key in recorded and key not in meta:
            meta[key] = recorded[key]
    return meta
