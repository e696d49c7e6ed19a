"""Scores in reports: what scored problems (a program problem's ``scoring``: test groups with
points) add to the tables. A suite without a scored problem gets nothing from here: its
rows, columns and verdicts are exactly those of a pass-fail report.

A problem is **scored** (for a model) when one of its judged results carries a ``score``
(``sandbox_error`` is left out, as everywhere). Its other judged results (none written for
a refused candidate) score 0. Its maximum is the ``max_score`` its results carry (the most
common one; ``None``: unbounded, then only points are shown).

- per problem and model: ``score`` (the mean of each result's score / max_score),
  ``score_stderr`` (sd / sqrt(n) over its results), ``points`` (the mean score in points),
  ``max_score``, and ``groups``: per group below the root (the root is the total) its mean
  points, maximum and ``full`` (the share of results that got the group's maximum);
- per model: ``scored_problems``, ``score`` (the mean over its scored problems of their
  mean fraction) with ``score_stderr`` (over problems), ``points`` (the sum over scored
  problems of their mean points: the expected total of a contest of these problems) of
  ``max_points``, and with several samples per problem ``score@k`` for k > 1 (see
  :data:`SCORE_AT_K`; score@1 is ``score``).

With several samples of a scored problem, :func:`task_scores` gives its task score over all
of them under a CMS score mode (``max_subtask`` by default: each subtask's best over the
samples, summed; :mod:`judge.scoring.task_scores`), naming the sample that gave each
subtask's best and the samples left out (not judged); ``judge report`` prints it after the
report (``--score-mode``) and puts it in the JSON as ``task_scores``.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Callable

from judge.reports.stats import mean_se
from judge.scoring.passk import ks_for, max_at_k

#: how score@k is defined (said in the JSON and the text reports when a suite is scored)
SCORE_AT_K = ("score@k = expected best score (fraction of max_score) of k samples per "
              "problem, the best single submission as in IOI 2010-2016 and CMS score mode "
              "'max', estimated unbiasedly from the n samples judged (mean over k-subsets of "
              "their maximum; pass@k when scores are 0 or 1), averaged over scored problems; "
              "score@k stderr = standard error of the mean over problems")


def score_of(row: dict[str, Any]) -> float | None:
    """A results line's score when it carries one (a number, not a bool)."""
    value = row.get("score")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _maximum(rows: list[dict[str, Any]]) -> float | None:
    found = Counter(float(r["max_score"]) for r in rows
                    if isinstance(r.get("max_score"), (int, float))
                    and not isinstance(r.get("max_score"), bool) and r["max_score"] > 0)
    return found.most_common(1)[0][0] if found else None


def is_scored(rows: list[dict[str, Any]]) -> bool:
    return any(score_of(r) is not None for r in rows)


def problem_scores(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One problem's judged results (of one model) as points, fractions and their maximum;
    None when the problem is not scored."""
    if not is_scored(rows):
        return None
    maximum = _maximum(rows)
    points = [score_of(r) or 0.0 for r in rows]
    fractions = [min(1.0, max(0.0, p / maximum)) for p in points] if maximum else None
    return {"points": points, "fractions": fractions, "max_score": maximum}


def _groups(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per group below the root: mean points over the results, its maximum, and the share
    of results that got it whole (a result without that group counts 0)."""
    order: list[str] = []
    maxima: dict[str, float | None] = {}
    for row in rows:
        groups = row.get("groups")
        if not isinstance(groups, list):
            continue
        for group in groups[1:]:
            if isinstance(group, dict) and isinstance(group.get("group"), str):
                name = group["group"]
                if name not in maxima:
                    order.append(name)
                    top = group.get("max_score")
                    maxima[name] = float(top) if isinstance(top, (int, float)) \
                        and not isinstance(top, bool) else None
    out = []
    for name in order:
        points, full = 0.0, 0
        for row in rows:
            groups = row.get("groups") if isinstance(row.get("groups"), list) else []
            group = next((g for g in groups[1:] if isinstance(g, dict)
                          and g.get("group") == name), None)
            value = score_of(group) if group is not None else None
            points += value or 0.0
            if value is not None and maxima[name] is not None and value >= maxima[name]:
                full += 1
        out.append({"group": name, "points": round(points / len(rows), 4),
                    "max_score": maxima[name], "full": round(full / len(rows), 4)})
    return out


def problem_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What a scored problem's row of the per-problem table adds ({} when not scored)."""
    scores = problem_scores(rows)
    if scores is None:
        return {}
    points = scores["points"]
    row: dict[str, Any] = {}
    if scores["fractions"] is not None:
        fractions = scores["fractions"]
        row["score"] = round(sum(fractions) / len(fractions), 4)
        row["score_stderr"] = round(mean_se(fractions), 4)
    row["points"] = round(sum(points) / len(points), 4)
    row["max_score"] = scores["max_score"]
    groups = _groups(rows)
    if groups:
        row["groups"] = groups
    return row


def model_row(per_problem: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """What a model's row adds from its scored problems (problem id -> its judged results;
    {} when none is scored)."""
    scored = {p: s for p, s in ((p, problem_scores(rows)) for p, rows in per_problem.items())
              if s is not None}
    if not scored:
        return {}
    bounded = [s["fractions"] for s in scored.values() if s["fractions"] is not None]
    means = [sum(f) / len(f) for f in bounded]
    row: dict[str, Any] = {"scored_problems": len(scored)}
    if means:
        row["score"] = round(sum(means) / len(means), 4)
        row["score_stderr"] = round(mean_se(means), 4)
    row["points"] = round(sum(sum(s["points"]) / len(s["points"]) for s in scored.values()), 4)
    maxima = [s["max_score"] for s in scored.values()]
    row["max_points"] = None if None in maxima else round(sum(maxima), 4)
    samples = min((len(f) for f in bounded), default=0)
    if samples > 1:
        for k in ks_for(samples)[1:]:  # score@1 is the mean score: ``score``
            values = [max_at_k(f, k) for f in bounded]
            row["score@%d" % k] = round(sum(values) / len(values), 4)
            row["score@%d_stderr" % k] = round(mean_se(values), 4)
    return row


def number(value: float | None) -> str:
    """Points as text: at most two decimals, no trailing zeros (``50``, ``33.33``)."""
    if value is None:
        return "unbounded"
    return ("%.2f" % value).rstrip("0").rstrip(".")


def groups_text(groups: list[dict[str, Any]]) -> str:
    """The per-group breakdown in one cell: ``easy 20/20 · small 15/30 · large 0/50``."""
    return " · ".join("%s %s/%s" % (g["group"] or "(root)", number(g["points"]),
                                    number(g["max_score"])) for g in groups)


# ---- a task's score over several submissions (CMS score modes) ------------------------------

#: how the task scores are made (said in the JSON and the text reports)
TASK_SCORE_RULE = (
    "task score = the score of a problem over all its samples (submissions, in the "
    "solutions file's order), as CMS computes a contestant's task score: max_subtask "
    "(IOI 2017+) sums each subtask's best score over the samples, max (IOI 2013-2016) is "
    "the best single sample, max_tokened_last (IOI 2010-2012) the last sample's or a "
    "tokened one's; subtask scores and the total rounded to %s decimals; samples not "
    "judged (sandbox_error) are left out, never counted as 0")


def subtask_parts(row: dict[str, Any]) -> Any:
    """A results line's subtasks (the groups right below the root, and the root's own tests
    when it has some) as :class:`judge.scoring.task_scores.Part`; None when the line has no
    breakdown or its root does not add its groups up (``sum``): then it is one subtask."""
    from judge.scoring.task_scores import Part

    groups = row.get("groups")
    if not isinstance(groups, list) or len(groups) < 2 or not isinstance(groups[0], dict):
        return None
    root = groups[0]
    if root.get("aggregation") != "sum":
        return None
    named = [g for g in groups[1:] if isinstance(g, dict) and isinstance(g.get("group"), str)]
    names = [g["group"] for g in named]
    top = [g for g in named if not any(other != g["group"] and
                                       g["group"].startswith(other + "/") for other in names)]
    if not top:
        return None
    parts = []
    for g in top:
        top_score = g.get("max_score")
        parts.append(Part(g["group"], score_of(g) or 0.0,
                          float(top_score) if isinstance(top_score, (int, float))
                          and not isinstance(top_score, bool) else None))
    total = root.get("total") if isinstance(root.get("total"), int) else 0
    inside = sum(g.get("total") for g in top if isinstance(g.get("total"), int))
    if total > inside:  # the root's own tests (outside every group) are a subtask too
        rest = (score_of(root) or 0.0) - sum(p.score for p in parts)
        parts.append(Part("(root tests)", round(max(0.0, rest), 9), None))
    return tuple(parts)


def _order(pair: tuple[int, dict[str, Any]]) -> tuple[float, float, int]:
    position, row = pair
    sample, line = row.get("sample"), row.get("line")
    good = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
    return (sample if good(sample) else float("inf"), line if good(line) else float("inf"),
            position)


def task_scores(rows: list[dict[str, Any]], mode: str, precision: int | None = 2, *,
                model_of: Callable[[dict[str, Any]], str] = lambda row: str(
                    row.get("model") or "-"),
                natural_key: Callable[[Any], Any] = str) -> dict[str, Any] | None:
    """Per scored problem and model with several samples, the task score under ``mode``
    (see :mod:`judge.scoring.task_scores`), with per subtask the sample that gave its
    maximum; per model the sum over those problems. None when no scored problem has several
    samples. ``rows`` are a results file's lines, sandbox errors included (they are left out
    and counted here). ``model_of`` and ``natural_key`` are the report's (``tables``, which
    imports this module: passed in, never imported here)."""
    from judge.scoring.primitives import ScoringError
    from judge.scoring.task_scores import Submission, task_score

    per: dict[tuple[str, str], list[tuple[int, dict[str, Any]]]] = {}
    for position, row in enumerate(rows):
        per.setdefault((str(row.get("problem_id")), model_of(row)), []).append((position, row))
    by_problem: list[dict[str, Any]] = []
    for problem, model in sorted(per, key=lambda pm: (natural_key(pm[0]), natural_key(pm[1]))):
        items = [row for _, row in sorted(per[(problem, model)], key=_order)]
        judged = [r for r in items if r.get("verdict") != "sandbox_error"]
        if len(items) < 2 or not is_scored(judged):
            continue
        submissions = [Submission(None) if r.get("verdict") == "sandbox_error" else
                       Submission(score_of(r) or 0.0, subtask_parts(r),
                                  r.get("tokened") is True) for r in items]
        labels = [r["sample"] if isinstance(r.get("sample"), int)
                  and not isinstance(r.get("sample"), bool) else i
                  for i, r in enumerate(items)]
        entry: dict[str, Any] = {"problem_id": problem, "model": model,
                                 "samples": len(items), "max_score": _maximum(judged)}
        try:
            result = task_score(mode, submissions, precision)
            single = task_score("max", submissions, precision)
        except ScoringError as exc:
            entry.update({"task_score": None, "note": str(exc)})
            by_problem.append(entry)
            continue
        if not (math.isfinite(result.score) and math.isfinite(single.score)):
            entry.update({"task_score": None, "note": "the scores add up past any number "
                                                      "(not finite)"})
            by_problem.append(entry)
            continue
        entry.update({"task_score": result.score, "best_single": single.score,
                      "judged": result.counted,
                      "excluded": [labels[i] for i in result.excluded]})
        if result.subtasks:
            entry["subtasks"] = [{"subtask": s.name, "score": s.score,
                                  "max_score": s.max_score,
                                  "sample": None if s.submission is None
                                  else labels[s.submission]} for s in result.subtasks]
        else:
            entry["sample"] = None if result.submission is None else labels[result.submission]
        by_problem.append(entry)
    if not by_problem:
        return None
    by_model: list[dict[str, Any]] = []
    for model in sorted({e["model"] for e in by_problem}, key=natural_key):
        mine = [e for e in by_problem if e["model"] == model]
        scored = [e for e in mine if e["task_score"] is not None]
        maxima = [e["max_score"] for e in scored]
        by_model.append({"model": model, "problems": len(mine),
                         "task_points": _finite(sum(e["task_score"] for e in scored)),
                         "max_points": None if None in maxima else _finite(sum(maxima)),
                         "best_single_points": _finite(sum(e["best_single"] for e in scored)),
                         "excluded": sum(len(e["excluded"]) for e in scored)})
    return {"mode": mode, "precision": precision,
            "rule": TASK_SCORE_RULE % ("no" if precision is None else precision),
            "by_model": by_model, "by_problem": by_problem}


def _finite(value: float) -> float | None:
    """A sum as the report shows it: rounded, or None (missing) past any float."""
    return round(value, 9) if math.isfinite(value) else None


def _points(value: float | None) -> str:
    return "-" if value is None else number(value)


def task_scores_text(data: dict[str, Any], fmt: str = "table") -> str:
    """The task scores as a text (``table``) or ``markdown`` section."""
    from tabulate import tabulate

    style = "github" if fmt == "markdown" else "simple"
    head = "Task scores (score mode %s)" % data["mode"]
    models = [{"model": m["model"], "problems": m["problems"],
               "task points": "%s/%s" % (_points(m["task_points"]), number(m["max_points"])),
               "best single": _points(m["best_single_points"]),
               "excluded": m["excluded"]} for m in data["by_model"]]
    problems = []
    for e in data["by_problem"]:
        if e["task_score"] is None:
            cell, where = "-", e["note"]
        else:
            cell = "%s/%s" % (number(e["task_score"]), number(e["max_score"]))
            if "subtasks" in e:
                where = " · ".join("%s %s/%s (#%s)" % (
                    s["subtask"] or "(all)", number(s["score"]), number(s["max_score"]),
                    "-" if s["sample"] is None else s["sample"]) for s in e["subtasks"])
            else:
                where = "sample #%s" % ("-" if e["sample"] is None else e["sample"])
        row = {"problem_id": e["problem_id"], "model": e["model"],
               "samples": "%s of %d" % (e.get("judged", "-"), e["samples"]),
               "task score": cell, "best single": number(e["best_single"])
               if e.get("best_single") is not None else "-", "from": where}
        if e.get("excluded"):
            row["from"] += " (not judged, left out: #%s)" % ", #".join(map(str, e["excluded"]))
        problems.append(row)
    title = ("## %s" % head) if fmt == "markdown" else head
    return "\n\n".join([title, tabulate(models, headers="keys", tablefmt=style),
                         tabulate(problems, headers="keys", tablefmt=style),
                         "task scores: " + data["rule"]]) + "\n"


__all__ = ["SCORE_AT_K", "TASK_SCORE_RULE", "groups_text", "is_scored", "model_row", "number",
           "problem_row", "problem_scores", "score_of", "subtask_parts", "task_scores",
           "task_scores_text"]
