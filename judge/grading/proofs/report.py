"""Agreement with human grades (paper section 4, Tables 2-3), confusion matrices and summaries.

Predicted grades may be averages (``--samples``, ``--ensemble``).  Pearson, Spearman, MAE,
RMSE and Off-by-1/2 use them as they are; QWK and AC2 need categories, so they use the
average rounded half up to a whole grade (the confusion matrix too).  AC2 is Gwet's (2014);
the column ``1-Do/De`` is the paper's own formula (section 4: pooled marginals), reported
beside it.  The majority-grade baseline (always the most frequent human grade, the paper's
reference point for Off-by-1/2) follows the workflows.  Human grades on 1-4 are mapped by
``2x-1`` to 0-7 before anything is compared (the human side only: grades are on 0-7).  Solutions that could not be
graded are left out of the agreement and counted apart.
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from judge.scoring.agreement import METRICS, MetricResult, Scale, majority_baseline, metric_set
from judge.grading.proofs.workflows import SolutionGrade

TARGET = Scale(0, 7)


def map_human(grade: int, scale: str) -> int:
    """1-4 -> 0-7 by ``2x-1``; 0-7 unchanged."""
    return 2 * grade - 1 if scale == "1-4" else grade


def round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


@dataclass
class WorkflowAgreement:
    workflow: str
    n: int
    errors: int
    missing_human: int
    metrics: dict[str, MetricResult]
    confusion: list[list[int]]   # [human 0..7][predicted 0..7]
    majority: int | None = None
    baseline: dict[str, MetricResult] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"workflow": self.workflow, "n": self.n, "errors": self.errors,
                               "missing_human": self.missing_human}
        for key, _ in METRICS:
            out[key] = self.metrics[key].value
            if self.metrics[key].reason:
                out[f"{key}_reason"] = self.metrics[key].reason
        if self.baseline is not None:
            out["majority_baseline"] = {"grade": self.majority,
                                        **{k: self.baseline[k].value for k, _ in METRICS}}
        out["confusion"] = self.confusion
        return out


def agreement(results: list[SolutionGrade], human: dict[str, int], scale: str) -> WorkflowAgreement | None:
    """Metrics of one workflow's results against human grades (None when nothing pairs up):
    the same numbers as ``judge agreement`` (:func:`judge.scoring.agreement.metric_set`), with
    Gwet's AC2 and the paper's ``1 - D_o/D_e`` side by side and the majority-grade baseline."""
    wf = results[0].workflow if results else "?"
    errors = sum(1 for r in results if not r.ok)
    missing = sum(1 for r in results if r.ok and r.solution_id not in human)
    pairs = [(map_human(human[r.solution_id], scale), r.grade) for r in results
             if r.ok and r.grade is not None and r.solution_id in human]
    if not pairs:
        return None
    h = [p[0] for p in pairs]
    g = [p[1] for p in pairs]
    gi = [round_half_up(x) for x in g]
    metrics, _ = metric_set(h, g, TARGET)
    majority, baseline = majority_baseline(h, TARGET)
    conf = [[0] * 8 for _ in range(8)]
    for a, b in zip(h, gi):
        conf[a][b] += 1
    return WorkflowAgreement(wf, len(pairs), errors, missing, metrics, conf, int(majority), baseline)


def _fmt(m: MetricResult) -> str:
    return "n/a" if m.value is None else f"{m.value:.3f}"


def agreement_rows(table: list[WorkflowAgreement]) -> tuple[list[str], list[list[Any]]]:
    """One row per workflow, then the majority-grade baseline (one row when every workflow
    was scored on the same grades, else one per workflow)."""
    headers = ["workflow", "n"] + [label for _, label in METRICS] + ["errors"]
    rows = [[a.workflow, a.n] + [_fmt(a.metrics[k]) for k, _ in METRICS] + [a.errors] for a in table]
    baselines: list[list[Any]] = []
    for a in table:
        if a.baseline is None:
            continue
        row = [f"majority ({a.majority})", a.n] + [_fmt(a.baseline[k]) for k, _ in METRICS] + [""]
        if row not in baselines:
            baselines.append(row)
    if len(baselines) > 1:
        baselines = [[f"{a.workflow}: majority ({a.majority})"] + r[1:]
                     for a, r in zip([a for a in table if a.baseline is not None], baselines)]
    return headers, rows + baselines


def confusion_rows(a: WorkflowAgreement) -> tuple[list[str], list[list[Any]]]:
    headers = ["human \\ pred"] + [str(j) for j in range(8)] + ["n"]
    rows = [[str(i)] + a.confusion[i] + [sum(a.confusion[i])] for i in range(8)]
    return headers, rows


def usage_rows(stats: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    headers = ["step", "calls", "cache hits", "tokens in", "tokens out", "re-asks", "errors"]
    rows = [[step, s["calls"], s["cache_hits"], s["tokens_in"], s["tokens_out"], s["reasks"], s["errors"]]
            for step, s in sorted(stats.items())]
    return headers, rows


def render_text(summary: dict[str, Any], table: list[WorkflowAgreement], fmt: str) -> str:
    tf = "github" if fmt == "markdown" else "simple"
    out = []
    g = summary["graded"]
    out.append(f"graded {g['ok']} of {g['total']} (workflow x solution); grading errors: {g['errors']}"
               + (f" {summary['error_kinds']}" if summary["error_kinds"] else "")
               + f"; bad input lines: {summary['input_issues']}")
    if table:
        out.append("")
        out.append("Agreement with human grades (0-7" + (", human 1-4 mapped by 2x-1" if summary.get("scale") == "1-4" else "")
                   + "; AC2: Gwet's; 1-Do/De: the paper's formula; majority: always the most frequent human grade):")
        out.append(tabulate(agreement_rows(table)[1], headers=agreement_rows(table)[0], tablefmt=tf, disable_numparse=True))
        for a in table:
            out.append("")
            out.append(f"Confusion matrix, {a.workflow} (rows: human, columns: predicted, rounded):")
            h, r = confusion_rows(a)
            out.append(tabulate(r, headers=h, tablefmt=tf, disable_numparse=True))
    out.append("")
    out.append("Model calls per step:")
    h, r = usage_rows(summary["steps"])
    out.append(tabulate(r, headers=h, tablefmt=tf, disable_numparse=True))
    return "\n".join(out)


def _heatmap_svg(a: WorkflowAgreement) -> str:
    cell, pad = 34, 40
    size = pad + 8 * cell + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size + 20}" '
             f'role="img" aria-label="confusion matrix {html.escape(a.workflow)}">']
    for i in range(8):
        total = sum(a.confusion[i]) or 1
        parts.append(f'<text x="{pad - 14}" y="{pad + i * cell + 22}" font-size="12">{i}</text>')
        parts.append(f'<text x="{pad + i * cell + 13}" y="{pad - 8}" font-size="12">{i}</text>')
        for j in range(8):
            share = a.confusion[i][j] / total
            shade = int(255 - 200 * share)
            parts.append(f'<rect x="{pad + j * cell}" y="{pad + i * cell}" width="{cell - 1}" height="{cell - 1}" '
                         f'fill="rgb({shade},{shade},255)"><title>human {i}, predicted {j}: '
                         f'{a.confusion[i][j]}</title></rect>')
            if a.confusion[i][j]:
                parts.append(f'<text x="{pad + j * cell + 11}" y="{pad + i * cell + 22}" font-size="11">'
                             f'{a.confusion[i][j]}</text>')
    parts.append(f'<text x="{pad}" y="{size + 12}" font-size="11">rows: human grade; columns: predicted '
                 f'(row-normalised shading)</text></svg>')
    return "".join(parts)


def render_html(summary: dict[str, Any], table: list[WorkflowAgreement]) -> str:
    body = ["<!doctype html><html><head><meta charset='utf-8'><title>judge grade</title>",
            "<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
            "padding:3px 8px;text-align:right}</style></head><body><h1>Proof grading</h1>"]
    g = summary["graded"]
    body.append(f"<p>graded {g['ok']} of {g['total']}; grading errors {g['errors']}; "
                f"bad input lines {summary['input_issues']}</p>")
    if table:
        h, r = agreement_rows(table)
        body.append("<h2>Agreement with human grades</h2>" + tabulate(r, headers=h, tablefmt="html"))
        for a in table:
            h, r = confusion_rows(a)
            body.append(f"<h3>Confusion matrix: {html.escape(a.workflow)}</h3>")
            body.append(tabulate(r, headers=h, tablefmt="html"))
            body.append(_heatmap_svg(a))
    h, r = usage_rows(summary["steps"])
    body.append("<h2>Model calls per step</h2>" + tabulate(r, headers=h, tablefmt="html"))
    body.append("</body></html>")
    return "\n".join(body)


def render_json(summary: dict[str, Any], table: list[WorkflowAgreement]) -> str:
    return json.dumps({**summary, "agreement": [a.to_dict() for a in table]}, indent=2)
