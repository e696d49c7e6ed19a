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
"""

from __future__ import annotations

from collections import Counter
from typing import Any

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


__all__ = ["SCORE_AT_K", "groups_text", "is_scored", "model_row", "number", "problem_row",
           "problem_scores", "score_of"]
