"""The self-contained HTML report: one file, no script, no request (a Content-Security-Policy
of ``default-src 'none'`` says so to the browser), readable from ``file://``.

Sections: run metadata; pass rate per model with 95 % intervals; verdicts per model (stacked
bars); pass@k curves; the problem x model matrix, worst problems first, each failing cell
linking to its failing candidates and tests (message, expected vs got, time); time per test
by verdict; and, with several runs, the comparisons with the first. Where a problem is scored
(``judge.reports.scores``): score columns per model, a scores-per-problem table, points in its
matrix cells; a pass-fail suite's page is unchanged.

Everything that comes from a results file (ids, model names, messages, outputs) is candidate
or user data: it reaches the page only through jinja2's autoescaping, never marked safe.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import jinja2

import judge
from judge.reports import charts, scores
from judge.reports.runs import Run
from judge.reports.tables import (INTERVALS, Summary, coverage_line, extraction_line,
                                  missing_line, model_of, natural_key, printable)
from judge.scoring.passk import ks_for, pass_at_k

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: bounds on what a cell's details show (a report of a big run stays readable)
CANDIDATES_PER_CELL, TESTS_PER_CANDIDATE, TEXT_CHARS = 5, 8, 400
_EXPECTED_GOT = re.compile(r"^expected (?P<expected>.*?), got (?P<got>.*)$", re.S)


def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                              autoescape=True, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True)


def _clip(value: Any, size: int = TEXT_CHARS) -> str | None:
    if value is None:
        return None
    try:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):  # not JSON data after all: its type
        text = "(a %s)" % type(value).__name__
    return text if len(text) <= size else text[:size] + "… (%d more characters)" % (
        len(text) - size)


def _seconds(value: Any) -> float | None:
    """A time as the page shows it; anything but a finite number is missing (the results
    reader made every non-finite one None already: ``tables.bounded``)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        seconds = float(value)
    except OverflowError:
        return None
    return seconds if math.isfinite(seconds) else None


def _test_detail(test: dict[str, Any]) -> dict[str, Any]:
    message = test.get("message")
    expected = got = None
    if isinstance(message, str):
        found = _EXPECTED_GOT.match(message)
        if found:
            expected, got = found.group("expected"), found.group("got")
    if test.get("output") is not None:
        got = test["output"]
    return {"index": test.get("index"), "verdict": str(test.get("verdict")),
            "time_s": _seconds(test.get("time_s")), "message": _clip(message),
            "expected": _clip(expected), "got": _clip(got)}


def _points(score: Any, maximum: Any) -> str | None:
    """A scored result's points as the page shows them (``50/100``); None when unscored."""
    if scores.score_of({"score": score}) is None:
        return None
    top = scores.score_of({"score": maximum})
    return "%s/%s" % (scores.number(float(score)), scores.number(top))


def _tests(row: dict[str, Any]) -> list[dict[str, Any]]:
    """A row's test records (a malformed ``tests`` field is no tests, never a crash)."""
    tests = row.get("tests")
    return [t for t in tests if isinstance(t, dict)] if isinstance(tests, list) else []


def _candidate_detail(row: dict[str, Any]) -> dict[str, Any]:
    tests = [t for t in _tests(row) if t.get("verdict") != "pass"]
    return {"sample": row.get("sample"), "prompt_id": row.get("prompt_id"),
            "verdict": str(row.get("verdict")), "time_s": _seconds(row.get("time_s")),
            "passed": row.get("passed"), "total": row.get("total"),
            "message": _clip(row.get("message")), "note": _clip(row.get("note")),
            "score": _points(row.get("score"), row.get("max_score")),
            "tests": [_test_detail(t) for t in tests[:TESTS_PER_CANDIDATE]],
            "more_tests": max(0, len(tests) - TESTS_PER_CANDIDATE)}


def _columns(runs: list[Run]) -> list[tuple[str, Run, str]]:
    """(label, run, model) per column: models in natural order, run by run."""
    several = len(runs) > 1
    columns = []
    for run in runs:
        for model in sorted({model_of(r) for r in run.rows}, key=natural_key):
            label = "%s · %s" % (model, run.label) if several else model
            columns.append((label, run, model))
    return columns


def _model_entries(summary: Summary, columns: list[tuple[str, Run, str]]
                   ) -> list[dict[str, Any]]:
    """Per column: its summary row, verdict counts (sandbox errors too) and pass@k."""
    by_key = {(row.get("run"), row["model"]): row for row in summary.by_model}
    entries = []
    for label, run, model in columns:
        rows = [r for r in run.rows if model_of(r) == model]
        verdicts = Counter(str(r.get("verdict")) for r in rows)
        row = by_key.get((run.label, model)) or by_key.get((None, model))
        if row is None:  # only sandbox errors: nothing to rate
            row = {"pass_rate": 0.0, "ci95": [0.0, 1.0], "stderr": 0.0, "passed": 0,
                   "candidates": 0, "problems": 0}
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in rows:
            if r.get("verdict") != "sandbox_error":
                counts[str(r.get("problem_id"))][0] += 1
                counts[str(r.get("problem_id"))][1] += r.get("verdict") == "pass"
        passk: dict[int, float] = {}
        if counts:
            samples = min(n for n, _ in counts.values())
            for k in ks_for(samples):
                values = [pass_at_k(n, c, k) for n, c in counts.values()]
                passk[k] = sum(values) / len(values)
        entries.append({**row, "label": label, "verdicts": dict(verdicts), "passk": passk})
    return entries


def _matrix(columns: list[tuple[str, Run, str]]) -> tuple[list[dict[str, Any]],
                                                         list[dict[str, Any]]]:
    """The problem x model matrix (worst problems first) and the failure details its cells
    link to."""
    cells: dict[str, dict[int, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for j, (_, run, model) in enumerate(columns):
        for row in run.rows:
            if model_of(row) == model:
                cells[str(row.get("problem_id"))][j].append(row)

    def rate(rows: list[dict[str, Any]]) -> float | None:
        """The cell's pass rate; a scored problem's mean score (fraction of its maximum)."""
        judged = [r for r in rows if r.get("verdict") != "sandbox_error"]
        scored = scores.problem_scores(judged) if judged else None
        if scored is not None and scored["fractions"] is not None:
            return sum(scored["fractions"]) / len(scored["fractions"])
        return sum(r.get("verdict") == "pass" for r in judged) / len(judged) if judged else None

    def points(rows: list[dict[str, Any]]) -> str | None:
        """A scored cell's mean points of its maximum (``73.33/100``); None if unscored."""
        scored = scores.problem_scores([r for r in rows if r.get("verdict") != "sandbox_error"])
        if scored is None:
            return None
        return "%s/%s" % (scores.number(sum(scored["points"]) / len(scored["points"])),
                          scores.number(scored["max_score"]))

    def badness(problem: str) -> tuple[Any, ...]:
        rates = [x for x in (rate(rows) for rows in cells[problem].values()) if x is not None]
        return (sum(rates) / len(rates) if rates else 2.0, natural_key(problem))

    matrix, failures = [], []
    for i, problem in enumerate(sorted(cells, key=badness)):
        row_cells = []
        for j in range(len(columns)):
            rows = cells[problem].get(j, [])
            value = rate(rows)
            failing = [r for r in rows if r.get("verdict") != "pass"]
            anchor = "f-%d-%d" % (i, j) if failing else None
            top = Counter(str(r.get("verdict")) for r in failing).most_common(1)
            row_cells.append({
                "rate": value, "n": len(rows), "anchor": anchor,
                "passed": sum(r.get("verdict") == "pass" for r in rows),
                "top": top[0][0] if top else None, "points": points(rows),
                "background": "#eee" if value is None else "hsl(%d, 65%%, %d%%)" % (
                    round(120 * value), 82 if 0 < value < 1 else 78)})
            if failing:
                failures.append({
                    "anchor": anchor, "problem": problem, "model": columns[j][0],
                    "failing": len(failing), "candidates": len(rows),
                    "details": [_candidate_detail(r) for r in failing[:CANDIDATES_PER_CELL]],
                    "more": max(0, len(failing) - CANDIDATES_PER_CELL)})
        matrix.append({"problem": problem, "cells": row_cells})
    return matrix, failures


def _times(runs: list[Run]) -> dict[str, list[float]]:
    """Each test's time by the test's verdict (every run together)."""
    times: dict[str, list[float]] = defaultdict(list)
    for run in runs:
        for row in run.rows:
            for test in _tests(row):
                seconds = _seconds(test.get("time_s"))
                if seconds is not None and seconds >= 0:
                    times[str(test.get("verdict"))].append(seconds)
    return dict(times)


def _metadata_rows(runs: list[Run]) -> tuple[list[str], list[list[Any]], list[str]]:
    """Run metadata as rows (one column per run); the facts no run recorded, apart."""
    metas = [run.metadata for run in runs]
    keys = [k for k in metas[0] if k != "run"] if metas else []
    for meta in metas[1:]:
        keys += [k for k in meta if k not in keys and k != "run"]
    rows, unknown = [], []
    for key in keys:
        if all(meta.get(key) is None for meta in metas):
            unknown.append(key.replace("_", " "))
            continue
        values = []
        for meta in metas:
            value = meta.get(key)
            if isinstance(value, (list, dict)):
                value = ", ".join(map(str, value)) if isinstance(value, list) else json.dumps(
                    value, sort_keys=True)
            values.append("not recorded" if value is None else value)
        rows.append([key.replace("_", " "), values])
    return [meta["run"] for meta in metas], rows, unknown


def render_html(runs: list[Run], summary: Summary,
                comparisons: list[dict[str, Any]] | None = None) -> str:
    """The whole page."""
    columns = _columns(runs)
    models = _model_entries(summary, columns)
    rated = [m for m in models if m["candidates"]]
    matrix, failures = _matrix(columns)
    run_names, metadata, unrecorded = _metadata_rows(runs)
    several_samples = any(len(m["passk"]) > 1 for m in models)
    scored = summary.scored
    context = {
        "title": "judge report: %s" % ", ".join(run.label for run in runs),
        "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "version": judge.__version__,
        "run_names": run_names, "metadata": metadata, "unrecorded": unrecorded, "intervals": INTERVALS,
        "summary": summary, "models": models,
        "extraction_line": extraction_line(summary), "coverage_line": coverage_line(summary),
        "missing_line": missing_line(summary) if summary.missing else None,
        "charts": {
            "rates": charts.pass_rates(rated),
            "verdicts": charts.verdict_bars(models),
            "passk": charts.passk_curves([m for m in models if m["passk"]]),
            "times": charts.time_boxes(_times(runs)),
        },
        "several_samples": several_samples,
        "passk_columns": [k for k in sorted({k for m in models for k in m["passk"]})
                          if k > 1 and any("pass@%d" % k in m for m in models)][:6],
        "columns": [label for label, _, _ in columns],
        "matrix": matrix, "failures": failures,
        "comparisons": comparisons or [],
        # scored problems (judge.reports.scores): nothing of this shows for pass-fail suites
        "scored": scored, "score_at_k": scores.SCORE_AT_K,
        "score_columns": [k for k in sorted({int(key[len("score@"):]) for m in models
                                             for key in m if key.startswith("score@")
                                             and not key.endswith("_stderr")})][:6],
        "scored_problems": [row for row in summary.by_problem if "points" in row],
        "number": scores.number,
        "verdict_color": charts.verdict_color,
    }
    # the output boundary: a lone surrogate from the results (an id, a file name) escaped
    return printable(environment().get_template("report.html.j2").render(**context))
