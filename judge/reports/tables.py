"""Reports: results files read back, summarized per model and per problem, with pass@k.

Candidates whose verdict is ``sandbox_error`` are our failures: they are counted apart and
left out of every rate.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from tabulate import tabulate

from judge import jsonl
from judge.errors import Issue
from judge.scoring.passk import ks_for, mean_pass_at_k
from judge.execution.verdicts import Verdict

FORMATS = ("table", "markdown", "json", "html")
_TABLEFMT = {"table": "simple", "markdown": "github", "html": "html"}


@dataclass
class Summary:
    by_model: list[dict[str, Any]] = field(default_factory=list)
    by_problem: list[dict[str, Any]] = field(default_factory=list)
    verdicts: dict[str, int] = field(default_factory=dict)
    sandbox_errors: int = 0
    candidates: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"candidates": self.candidates, "sandbox_errors": self.sandbox_errors,
                "verdicts": self.verdicts, "by_model": self.by_model,
                "by_problem": self.by_problem}


def _model(row: dict[str, Any]) -> str:
    """The row's model; with its language when that is not Python (reports group by it)."""
    language = row.get("language")
    model = str(row.get("model") or "-")
    return model if language in (None, "python") else "%s [%s]" % (model, language)


def summarize(rows: Iterable[dict[str, Any]]) -> Summary:
    rows = list(rows)
    summary = Summary(candidates=len(rows))
    summary.verdicts = dict(Counter(str(r.get("verdict")) for r in rows).most_common())
    judged = [r for r in rows if r.get("verdict") != Verdict.SANDBOX_ERROR.value]
    summary.sandbox_errors = len(rows) - len(judged)
    per_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    per_problem: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in judged:
        per_model[_model(row)].append(row)
        per_problem[str(row.get("problem_id"))].append(row)
    for model in sorted(per_model):
        summary.by_model.append(_model_row(model, per_model[model]))
    for problem in sorted(per_problem):
        items = per_problem[problem]
        passed = sum(r.get("verdict") == "pass" for r in items)
        failures = Counter(str(r.get("verdict")) for r in items if r.get("verdict") != "pass")
        summary.by_problem.append({
            "problem_id": problem, "candidates": len(items), "passed": passed,
            "pass_rate": round(passed / len(items), 4),
            "top_failure": failures.most_common(1)[0][0] if failures else "-",
        })
    return summary


def _model_row(model: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    passed = sum(r.get("verdict") == "pass" for r in items)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in items:
        entry = counts[str(row.get("problem_id"))]
        entry[0] += 1
        entry[1] += row.get("verdict") == "pass"
    row: dict[str, Any] = {"model": model, "problems": len(counts), "candidates": len(items),
                           "passed": passed, "pass_rate": round(passed / len(items), 4)}
    samples = min(n for n, _ in counts.values())
    if samples > 1:
        pairs = [(n, c) for n, c in counts.values()]
        for k in ks_for(samples):
            row["pass@%d" % k] = round(mean_pass_at_k(pairs, k), 4)
    return row


def render(summary: Summary, fmt: str = "table") -> str:
    if fmt == "json":
        return json.dumps(summary.to_json(), indent=2)
    if fmt not in _TABLEFMT:
        raise ValueError("unknown format %r (choose from %s)" % (fmt, ", ".join(FORMATS)))
    style = _TABLEFMT[fmt]
    parts = []
    heading = (lambda text: "## %s" % text) if fmt == "markdown" else (
        (lambda text: "<h2>%s</h2>" % text) if fmt == "html" else (lambda text: text))
    parts.append(heading("Per model"))
    parts.append(tabulate(summary.by_model, headers="keys", tablefmt=style, floatfmt=".4f"))
    parts.append(heading("Per problem"))
    parts.append(tabulate(summary.by_problem, headers="keys", tablefmt=style, floatfmt=".4f"))
    verdicts = ", ".join("%s %d" % item for item in summary.verdicts.items())
    line = "%d candidates: %s" % (summary.candidates, verdicts or "none")
    if summary.sandbox_errors:
        line += " (%d sandbox errors are not counted against candidates)" % summary.sandbox_errors
    if fmt == "html":
        import html

        line = "<p>%s</p>" % html.escape(line)
    parts.append(line)
    return "\n\n".join(parts) + "\n"


def read_results(path: str | Path) -> tuple[list[dict[str, Any]], list[Issue]]:
    """Rows of a results file; bad lines become issues naming the line."""
    rows: list[dict[str, Any]] = []
    issues: list[Issue] = []

    def bad_line(issue: Issue) -> None:
        issues.append(Issue(issue.file, "not a JSON line: %s" % issue.message, line=issue.line))

    for number, row in jsonl.read_objects(path, bad_line):
        if "verdict" not in row or "problem_id" not in row:
            issues.append(Issue(str(path), "not a results line (needs problem_id and verdict)",
                                line=number))
            continue
        rows.append(row)
    return rows, issues
