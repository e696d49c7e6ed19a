"""Reports: results files read back, summarized per model and per problem, with pass@k.

Candidates whose verdict is ``sandbox_error`` are our failures: they are counted apart and
left out of every rate. Every pass rate carries its standard error and a 95 % Wilson interval
(see :mod:`judge.reports.stats`); problems are listed in natural order (``HumanEval/2``
before ``HumanEval/10``), one row per problem and model.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from tabulate import tabulate

from judge import jsonl
from judge.errors import Issue, json_location
from judge.engine.verdicts import Verdict
from judge.reports import scores
from judge.reports.stats import binomial_se, clustered_se, mean_se, wilson
from judge.scoring.passk import ks_for, pass_at_k

FORMATS = ("table", "markdown", "json", "html")
_TABLEFMT = {"table": "simple", "markdown": "github", "html": "html"}
#: how the intervals of the summary are made (said in the JSON and the HTML report)
#: containers nested deeper than this in a results line are shown as missing (the report
#: walks and prints what it reads)
MAX_DEPTH = jsonl.MAX_DEPTH
INTERVALS = ("95% Wilson score interval over judged candidates; stderr = sqrt(p(1-p)/n); "
             "with several samples per problem also stderr_clustered (cluster-robust, by "
             "problem); pass@k stderr = standard error of the mean over problems")


def natural_key(text: Any) -> tuple[Any, ...]:
    """Sort key putting ``HumanEval/2`` before ``HumanEval/10`` (digit runs compare as numbers)."""
    parts = re.split(r"(\d+)", str(text))
    return tuple((0, int(part), part) if part.isdigit() else (1, part.casefold(), part)
                 for part in parts)


@dataclass
class Summary:
    by_model: list[dict[str, Any]] = field(default_factory=list)
    by_problem: list[dict[str, Any]] = field(default_factory=list)
    verdicts: dict[str, int] = field(default_factory=dict)
    sandbox_errors: int = 0
    candidates: int = 0
    runs: list[dict[str, Any]] = field(default_factory=list)
    #: candidates whose code was taken out of a reply (fences or prose dropped)
    extracted: int = 0
    #: problems with candidates, and the problems in the suite (None: not known)
    covered: int = 0
    suite_problems: int | None = None
    #: values of the results that were not finite numbers (NaN, infinities) or were nested
    #: too deeply, shown as missing (see ``read_results``)
    missing: int = 0

    @property
    def scored(self) -> bool:
        """Some problem is scored (its rows carry a score; see :mod:`judge.reports.scores`)."""
        return any("scored_problems" in row for row in self.by_model)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.runs:
            data["runs"] = self.runs
        data.update({"candidates": self.candidates, "sandbox_errors": self.sandbox_errors,
                     "extracted": self.extracted,
                     "coverage": {"problems_with_candidates": self.covered,
                                  "suite_problems": self.suite_problems},
                     "verdicts": self.verdicts, "intervals": INTERVALS,
                     "by_model": self.by_model, "by_problem": self.by_problem})
        if self.scored:
            data["score_at_k"] = scores.SCORE_AT_K
        if self.missing:
            data["missing_values"] = {"count": self.missing, "note": missing_line(self)}
        return data


def _model(row: dict[str, Any]) -> str:
    """The row's model; with its language when that is not Python (reports group by it)."""
    language = row.get("language")
    model = str(row.get("model") or "-")
    from judge.languages import is_default

    return model if language is None or is_default(language) else "%s [%s]" % (model, language)


model_of = _model


def summarize(rows: Iterable[dict[str, Any]], run: str | None = None,
              suite_problems: int | None = None) -> Summary:
    """Per model and per problem and model; ``run`` (a label) is added to every row when
    several runs are summarized together. ``suite_problems`` (the suite's size; default: as
    the rows' run metadata recorded it) gives the coverage line."""
    rows = list(rows)
    summary = Summary(candidates=len(rows))
    summary.extracted = sum(1 for r in rows if r.get("extracted"))
    summary.covered = len({str(r.get("problem_id")) for r in rows})
    if suite_problems is None:
        sizes = [r["run"].get("suite_problems") for r in rows if isinstance(r.get("run"), dict)]
        suite_problems = max((n for n in sizes if isinstance(n, int)), default=None)
    summary.suite_problems = suite_problems
    summary.verdicts = dict(Counter(str(r.get("verdict")) for r in rows).most_common())
    judged = [r for r in rows if r.get("verdict") != Verdict.SANDBOX_ERROR.value]
    summary.sandbox_errors = len(rows) - len(judged)
    per_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    per_problem: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in judged:
        per_model[_model(row)].append(row)
        per_problem[(str(row.get("problem_id")), _model(row))].append(row)
    tag = {"run": run} if run is not None else {}
    for model in sorted(per_model, key=natural_key):
        summary.by_model.append({**tag, **_model_row(model, per_model[model])})
    for problem, model in sorted(per_problem, key=lambda pm: (natural_key(pm[0]),
                                                              natural_key(pm[1]))):
        items = per_problem[(problem, model)]
        passed = sum(r.get("verdict") == "pass" for r in items)
        failures = Counter(str(r.get("verdict")) for r in items if r.get("verdict") != "pass")
        summary.by_problem.append({
            **tag, "problem_id": problem, "model": model, "candidates": len(items),
            "passed": passed, **_rate(passed, len(items)),
            "top_failure": failures.most_common(1)[0][0] if failures else "-",
            **scores.problem_row(items),  # nothing for a pass-fail problem
        })
    return summary


def merge(summaries: list[Summary]) -> Summary:
    """Several runs' summaries (each made with its ``run`` label) as one."""
    if len(summaries) == 1:
        return summaries[0]
    merged = Summary()
    verdicts: Counter[str] = Counter()
    for part in summaries:
        merged.by_model.extend(part.by_model)
        merged.by_problem.extend(part.by_problem)
        merged.runs.extend(part.runs)
        merged.candidates += part.candidates
        merged.sandbox_errors += part.sandbox_errors
        merged.extracted += part.extracted
        merged.missing += part.missing
        merged.covered = max(merged.covered, part.covered)
        if part.suite_problems is not None:
            merged.suite_problems = max(merged.suite_problems or 0, part.suite_problems)
        verdicts.update(part.verdicts)
    merged.verdicts = dict(verdicts.most_common())
    return merged


def _rate(passed: int, n: int) -> dict[str, Any]:
    low, high = wilson(passed, n)
    return {"pass_rate": round(passed / n, 4), "stderr": round(binomial_se(passed, n), 4),
            "ci95": [round(low, 4), round(high, 4)]}


def _model_row(model: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    passed = sum(r.get("verdict") == "pass" for r in items)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in items:
        entry = counts[str(row.get("problem_id"))]
        entry[0] += 1
        entry[1] += row.get("verdict") == "pass"
    row: dict[str, Any] = {"model": model, "problems": len(counts), "candidates": len(items),
                           "passed": passed, **_rate(passed, len(items))}
    pairs = [(n, c) for n, c in counts.values()]
    samples = min(n for n, _ in pairs)
    if samples > 1:
        row["stderr_clustered"] = round(clustered_se(pairs), 4)
        for k in ks_for(samples):
            values = [pass_at_k(n, c, k) for n, c in pairs]
            row["pass@%d" % k] = round(sum(values) / len(values), 4)
            row["pass@%d_stderr" % k] = round(mean_se(values), 4)
    by_problem: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_problem[str(item.get("problem_id"))].append(item)
    row.update(scores.model_row(by_problem))  # nothing when no problem is scored
    return row


def _cells(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows for a text table: the interval as one ``low-high`` cell."""
    out = []
    for row in rows:
        row = dict(row)
        if isinstance(row.get("ci95"), list):
            row["ci95"] = "%.4f-%.4f" % tuple(row["ci95"])
        for key in [k for k in row if k.startswith(("pass@", "score")) and
                    k.endswith("_stderr")]:
            value = row.pop(key)
            rate = key[: -len("_stderr")]
            row[rate] = "%.4f ±%.4f" % (row[rate], value)
        if "points" in row:  # a scored problem (or model): its points of the most
            top = row.pop("max_score", row.pop("max_points", None))
            row["points"] = "%s/%s" % (scores.number(row["points"]), scores.number(top))
        if isinstance(row.get("groups"), list):
            row["groups"] = scores.groups_text(row["groups"])
        out.append(row)
    return out


def printable(text: str) -> str:
    """``text`` as any UTF-8 output can hold it: a lone surrogate (JSON and Python strings
    allow one: a problem id, a model name, a file name that is not UTF-8) is written as its
    escape ``\\udXXX`` instead of failing the write. Applied to everything a report renders,
    at the output boundary."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def render(summary: Summary, fmt: str = "table") -> str:
    """The summary as text (``table``, ``markdown``, ``json``, or a small ``html`` page),
    always encodable as UTF-8 (see :func:`printable`)."""
    return printable(_render(summary, fmt))


def _render(summary: Summary, fmt: str) -> str:
    if fmt == "json":
        return jsonl.json_text(summary.to_json(), indent=2)
    if fmt not in _TABLEFMT:
        raise ValueError("unknown format %r (choose from %s)" % (fmt, ", ".join(FORMATS)))
    style = _TABLEFMT[fmt]
    parts = []
    heading = (lambda text: "## %s" % text) if fmt == "markdown" else (
        (lambda text: "<h2>%s</h2>" % text) if fmt == "html" else (lambda text: text))
    if summary.runs and fmt != "html":
        parts.append(heading("Runs"))
        parts.append("\n".join(("- " if fmt == "markdown" else "") + _run_line(meta)
                               for meta in summary.runs))
    if summary.by_model:  # no empty headings when nothing was judged
        parts.append(heading("Per model"))
        parts.append(tabulate(_cells(summary.by_model), headers="keys", tablefmt=style,
                              floatfmt=".4f"))
        parts.append(heading("Per problem"))
        parts.append(tabulate(_cells(summary.by_problem), headers="keys", tablefmt=style,
                              floatfmt=".4f"))
    verdicts = ", ".join("%s %d" % item for item in summary.verdicts.items())
    line = "%d candidates: %s" % (summary.candidates, verdicts or "none")
    if summary.sandbox_errors:
        line += " (%d sandbox errors are not counted against candidates)" % summary.sandbox_errors
    # nothing judged: no extraction count (0 of 0 says nothing), but the coverage still tells
    # how many of the suite's problems had no candidate
    lines = [line] + ([extraction_line(summary)] if summary.candidates else []) \
        + [coverage_line(summary)] + ([missing_line(summary)] if summary.missing else []) \
        + (["scores: " + scores.SCORE_AT_K] if summary.scored else [])
    line = ("\n\n" if fmt == "markdown" else "\n").join(lines)
    if fmt == "html":
        import html

        line = "<p>%s</p>" % "<br>".join(html.escape(text) for text in lines)
    parts.append(line)
    if fmt == "html":  # a page of its own (judge report --html FILE has the charts)
        return _HTML_PAGE % "\n".join(parts)
    return "\n\n".join(parts) + "\n"


def extraction_line(summary: Summary) -> str:
    """How many candidates' code was taken out of a reply (the rest were judged as they are)."""
    return "extracted: %d of %d candidate%s had code taken out of a reply (fences or prose " \
        "removed)" % (summary.extracted, summary.candidates,
                      "" if summary.candidates == 1 else "s")


def coverage_line(summary: Summary) -> str:
    """Problems with candidates, of the problems in the suite (when known)."""
    if summary.suite_problems is None:
        return "coverage: %d problem%s with candidates (the suite's size is not recorded)" % (
            summary.covered, "" if summary.covered == 1 else "s")
    missing = summary.suite_problems - summary.covered
    return "coverage: %d of %d problems have candidates%s" % (
        summary.covered, summary.suite_problems,
        " (%d have none: rates are over the covered problems only)" % missing
        if missing > 0 else "")


def missing_line(summary: Summary) -> str:
    """How many values of the results were shown as missing (not finite, or nested too
    deeply), when some were."""
    return "missing: %d value%s of the results shown as missing (not a finite number: NaN " \
        "or infinite; or nested deeper than %d levels)" % (
            summary.missing, "" if summary.missing == 1 else "s", MAX_DEPTH)


def _run_line(meta: dict[str, Any]) -> str:
    """One run's metadata in a line (what is not recorded is left out)."""
    facts = ["%d candidates, %d problems" % (meta.get("candidates", 0), meta.get("problems", 0))]
    for key, label in (("sandbox", "sandbox"), ("image", "image"),
                       ("suite_fingerprint", "suite fingerprint"),
                       ("judge_version", "judge"), ("date", "date"), ("dedup", "dedup")):
        if meta.get(key) is not None:
            facts.append("%s %s" % (label, meta[key]))
    return "%s: %s" % (meta.get("run"), "; ".join(facts))


_HTML_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>judge summary</title>
<style>body { font: 14px/1.45 system-ui, sans-serif; margin: 16px 24px; }
table { border-collapse: collapse; } th, td { border: 1px solid #ddd; padding: 2px 8px; }
th { background: #f5f5f5; }</style></head>
<body>
%s
</body></html>
"""


def _number_name(value: Any) -> str:
    if isinstance(value, float):
        return "NaN" if value != value else ("inf" if value > 0 else "-inf")
    return "an integer of %d bits, past any float" % value.bit_length()


def _where(path: tuple[Any, ...]) -> str:
    """A JSON location for a note (keys cut short: a key may be any text)."""
    parts = [part if isinstance(part, int) else (part if len(part) <= 40 else part[:40] + "…")
             for part in path[:8]]
    return printable(json_location(parts) + ("…" if len(path) > 8 else ""))


def bounded(row: dict[str, Any], file: str = "", line: int | None = None) -> list[Issue]:
    """Make a results line what the report can hold, in place: every number that is not
    finite (NaN, an infinity, ``1e999``, which JSON reads as one, an integer past a float's
    range) becomes None (missing), and so does any container nested deeper than
    ``MAX_DEPTH``. Returns one note per value so replaced (file, line, JSON location).
    Iterative: safe on any depth the parser accepted."""
    notes: list[Issue] = []
    stack: list[tuple[Any, tuple[Any, ...], int]] = [(row, (), 1)]
    while stack:
        node, path, depth = stack.pop()
        pairs = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        for key, value in pairs:
            if (isinstance(value, float) and not math.isfinite(value)) or (
                    type(value) is int and abs(value) > sys.float_info.max):
                node[key] = None
                notes.append(Issue(file, "not a finite number (%s): shown as missing"
                                   % _number_name(value), location=_where(path + (key,)),
                                   line=line))
            elif isinstance(value, (dict, list)):
                if depth >= MAX_DEPTH:
                    node[key] = None
                    notes.append(Issue(file, "nested deeper than %d levels: shown as missing"
                                       % MAX_DEPTH, location=_where(path + (key,)), line=line))
                else:
                    stack.append((value, path + (key,), depth + 1))
    return notes


def read_results(path: str | Path, headers: list[dict[str, Any]] | None = None,
                 missing: list[Issue] | None = None) -> tuple[list[dict[str, Any]], list[Issue]]:
    """Rows of a results file; bad lines become issues naming the line. A line that is a run
    header (an object with a ``run`` object and no ``problem_id``) is not a result: it goes
    to ``headers`` when given. Every line is made :func:`bounded` as it enters (numbers
    finite, nesting bounded); what that showed as missing goes to ``missing`` (notes, not
    errors: the file is valid JSON)."""
    rows: list[dict[str, Any]] = []
    issues: list[Issue] = []

    def bad_line(issue: Issue) -> None:
        issues.append(Issue(issue.file, "not a JSON line: %s" % issue.message, line=issue.line))

    for number, row in jsonl.read_objects(path, bad_line):
        notes = bounded(row, printable(str(path)), number)
        if missing is not None:
            missing.extend(notes)
        if isinstance(row.get("run"), dict) and "problem_id" not in row:
            if headers is not None:
                headers.append(row["run"])
            continue
        if "verdict" not in row or "problem_id" not in row:
            issues.append(Issue(str(path), "not a results line (needs problem_id and verdict)",
                                line=number))
            continue
        rows.append(row)
    return rows, issues
