"""Agreement between a grader's grades and human grades (RefGrader, section 4).

Why this module exists: judging an LLM grader means comparing its grades with human ones,
and no single number is reliable on skewed, discrete grades, so the paper reports eight:
Pearson, Spearman, MAE, RMSE, quadratic weighted kappa (QWK), Off-by-1, Off-by-2 and
Gwet's AC2.  The definitions used here:

* **Spearman** is Pearson on ranks, ties getting the average of their ranks.
* **QWK** uses the *full* category set of the scale (every integer from ``lo`` to ``hi``)
  and weights from category *values*, ``w = (i - j)^2 / (hi - lo)^2``.  Computing it on the
  categories actually seen (as label-index based tools do by default) changes distances
  when a middle grade is never used.
* **AC2** is Gwet's (2014) formula with quadratic agreement weights
  ``r_kl = 1 - (k - l)^2 / (hi - lo)^2``: ``AC2 = (pa - pe) / (1 - pe)`` with
  ``pa = mean r(g_i, h_i)``, ``pe = T_r / (K (K - 1)) * sum_k pi_k (1 - pi_k)``,
  ``T_r`` the sum of all weights, ``K`` the number of categories of the scale and ``pi``
  the pooled marginals.  (The paper's simplified ``1 - D_o / D_e`` with pooled marginals is
  a different number; Gwet's is the one the reference values are computed with.)
* **Undefined metrics** are reported as ``None`` with a reason, never as a made-up number:
  Pearson/Spearman with zero variance on either side; QWK when the expected disagreement
  is 0 (both raters constant on the same grade, 0/0).  AC2 stays defined for constant
  ratings (1.0 when both raters agree on a single grade).

Grades are integers on a declared scale (``1-4``); an optional linear map such as
``2x-1`` moves them to another scale (the paper maps 1-4 to 0-7) before any metric; the
target scale defaults to the mapped end points and can be given explicitly (``0-7``).
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Sequence

from judge.scoring.primitives import InputError, iter_jsonl

Number = int | float | Fraction


class UndefinedMetric(ValueError):
    """A metric has no value for these ratings; ``str()`` says why."""


# --------------------------------------------------------------------------------------
# Scales and maps
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scale:
    """An integer grade scale ``lo..hi`` (at least two categories)."""

    lo: int
    hi: int

    def __post_init__(self) -> None:
        if self.hi <= self.lo:
            raise ValueError(f"a scale needs at least two grades, got {self.lo}-{self.hi}")

    @property
    def categories(self) -> list[int]:
        """Every grade of the scale, seen or not."""
        return list(range(self.lo, self.hi + 1))

    def __str__(self) -> str:
        return f"{self.lo}-{self.hi}"


def parse_scale(text: str) -> Scale:
    """``"1-4"``, ``"0..7"`` or ``"0:7"`` -> :class:`Scale`."""
    m = re.fullmatch(r"\s*(-?\d+)\s*(?:-|\.\.|:)\s*(-?\d+)\s*", text)
    if not m:
        raise ValueError(f"scale must look like 1-4, got {text!r}")
    return Scale(int(m.group(1)), int(m.group(2)))


@dataclass(frozen=True)
class LinearMap:
    """``x -> a*x + b``, written like ``2x-1``; results must be integers."""

    a: Fraction
    b: Fraction
    text: str

    def __call__(self, x: int) -> int:
        y = self.a * x + self.b
        if y.denominator != 1:
            raise ValueError(f"map {self.text!r} sends {x} to {y}, not an integer grade")
        return int(y)

    def target(self, scale: Scale) -> Scale:
        """The scale spanned by the mapped end points."""
        ends = sorted((self(scale.lo), self(scale.hi)))
        return Scale(ends[0], ends[1])


def parse_map(text: str) -> LinearMap:
    """Parse ``2x-1``, ``2*x - 1``, ``x+1``, ``-x+7``, ``0.5x``, ``x``."""
    s = text.replace(" ", "")
    m = re.fullmatch(r"([+-]?(?:\d+(?:\.\d+)?)?)\*?x(?:([+-])(\d+(?:\.\d+)?))?", s)
    if not m:
        raise ValueError(f"map must be linear in x like 2x-1, got {text!r}")
    coef = m.group(1)
    a = Fraction(1) if coef in ("", "+") else Fraction(-1) if coef == "-" else Fraction(coef)
    b = Fraction(0) if m.group(2) is None else Fraction(m.group(3)) * (1 if m.group(2) == "+" else -1)
    if a == 0:
        raise ValueError(f"map {text!r} sends every grade to the same value")
    return LinearMap(a, b, text)


# --------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------


def _check(x: Sequence[Number], y: Sequence[Number]) -> None:
    if len(x) != len(y):
        raise ValueError(f"rating lists differ in length: {len(x)} vs {len(y)}")
    if not x:
        raise ValueError("no ratings")


def _exact(v: Number) -> Fraction:
    return Fraction(v)  # exact for ints, floats and Fractions: sums cannot depend on order


def pearson(x: Sequence[Number], y: Sequence[Number]) -> float:
    """Pearson correlation; :class:`UndefinedMetric` when either side has zero variance."""
    _check(x, y)
    fx, fy = [_exact(v) for v in x], [_exact(v) for v in y]
    mx, my = sum(fx) / len(fx), sum(fy) / len(fy)
    sxx = sum((a - mx) ** 2 for a in fx)
    syy = sum((b - my) ** 2 for b in fy)
    if sxx == 0 or syy == 0:
        side = "both raters" if sxx == syy == 0 else ("the first rater" if sxx == 0 else "the second rater")
        raise UndefinedMetric(f"zero variance: {side} gave one grade only")
    sxy = sum((a - mx) * (b - my) for a, b in zip(fx, fy))
    return float(sxy) / math.sqrt(float(sxx * syy))


def average_ranks(values: Sequence[Number]) -> list[Fraction]:
    """1-based ranks, ties sharing the mean of their positions."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [Fraction(0)] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        avg = Fraction(i + j + 2, 2)
        for k in range(i, j + 1):
            ranks[order[k]] = avg
        i = j + 1
    return ranks


def spearman(x: Sequence[Number], y: Sequence[Number]) -> float:
    """Spearman rank correlation with average ranks for ties."""
    _check(x, y)
    return pearson(average_ranks(x), average_ranks(y))


def mae(x: Sequence[Number], y: Sequence[Number]) -> float:
    """Mean absolute error."""
    _check(x, y)
    return float(sum(abs(_exact(a) - _exact(b)) for a, b in zip(x, y)) / len(x))


def rmse(x: Sequence[Number], y: Sequence[Number]) -> float:
    """Root mean squared error."""
    _check(x, y)
    return math.sqrt(float(sum((_exact(a) - _exact(b)) ** 2 for a, b in zip(x, y)) / len(x)))


def off_by(x: Sequence[Number], y: Sequence[Number], k: int) -> float:
    """Share of pairs with ``|x - y| <= k`` (Off-by-1 is ``k=1``)."""
    _check(x, y)
    return sum(1 for a, b in zip(x, y) if abs(_exact(a) - _exact(b)) <= k) / len(x)


def _check_categories(x: Sequence[int], y: Sequence[int], scale: Scale) -> None:
    _check(x, y)
    cats = set(scale.categories)
    for v in list(x) + list(y):
        if isinstance(v, bool) or v not in cats:
            raise ValueError(f"grade {v!r} is not on the scale {scale}")


def quadratic_weighted_kappa(x: Sequence[int], y: Sequence[int], scale: Scale) -> float:
    """Cohen's kappa with quadratic weights over the full category set of ``scale``."""
    _check_categories(x, y, scale)
    n, span2 = len(x), Fraction((scale.hi - scale.lo) ** 2)
    cats = scale.categories
    p = {c: Fraction(sum(1 for v in x if v == c), n) for c in cats}
    q = {c: Fraction(sum(1 for v in y if v == c), n) for c in cats}
    observed = sum(Fraction((a - b) ** 2) / span2 for a, b in zip(x, y)) / n
    expected = sum((i - j) ** 2 / span2 * p[i] * q[j] for i in cats for j in cats)
    if expected == 0:
        raise UndefinedMetric("expected disagreement is 0 (both raters gave the same single grade): 0/0")
    return float(1 - observed / expected)


def gwet_ac2(x: Sequence[int], y: Sequence[int], scale: Scale) -> float:
    """Gwet's AC2 with quadratic weights over the full category set of ``scale``."""
    _check_categories(x, y, scale)
    n, span2 = len(x), Fraction((scale.hi - scale.lo) ** 2)
    cats = scale.categories
    k = len(cats)

    def r(a: int, b: int) -> Fraction:
        return 1 - Fraction((a - b) ** 2) / span2

    pa = sum(r(a, b) for a, b in zip(x, y)) / n
    pi = {c: Fraction(sum(1 for v in x if v == c) + sum(1 for v in y if v == c), 2 * n) for c in cats}
    t_r = sum(r(a, b) for a in cats for b in cats)
    pe = t_r / (k * (k - 1)) * sum(pi[c] * (1 - pi[c]) for c in cats)
    if pe == 1:
        raise UndefinedMetric("chance agreement is 1")
    return float((pa - pe) / (1 - pe))


# --------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------

METRICS: tuple[tuple[str, str], ...] = (
    ("pearson", "Pearson"), ("spearman", "Spearman"), ("mae", "MAE"), ("rmse", "RMSE"),
    ("qwk", "QWK"), ("off_by_1", "Off1"), ("off_by_2", "Off2"), ("ac2", "AC2"),
)


@dataclass(frozen=True)
class MetricResult:
    """A metric's value, or ``None`` with the reason it is undefined."""

    value: float | None
    reason: str | None = None


@dataclass
class AgreementReport:
    """All eight metrics over the paired grades, with the scale and map used."""

    n: int
    scale: str
    mapping: str | None
    metrics: dict[str, MetricResult]
    missing_in_pred: list[str] = field(default_factory=list)
    missing_in_human: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (undefined metrics: ``null`` plus ``<name>_reason``)."""
        out: dict[str, Any] = {"n": self.n, "scale": self.scale, "map": self.mapping}
        for key, _ in METRICS:
            m = self.metrics[key]
            out[key] = m.value
            if m.reason:
                out[f"{key}_reason"] = m.reason
        out["missing_in_pred"] = self.missing_in_pred
        out["missing_in_human"] = self.missing_in_human
        return out


def _metric(fn: Any, *args: Any) -> MetricResult:
    try:
        return MetricResult(fn(*args))
    except UndefinedMetric as exc:
        return MetricResult(None, str(exc))


def compute_agreement(human: Sequence[int], pred: Sequence[int], scale: Scale,
                      mapping: LinearMap | None = None, target: Scale | None = None) -> AgreementReport:
    """Every metric for paired grades on ``scale`` (mapped first when ``mapping`` is given)."""
    _check_categories(human, pred, scale)
    if mapping is not None:
        target = target or mapping.target(scale)
        human, pred = [mapping(v) for v in human], [mapping(v) for v in pred]
    else:
        target = target or scale
    _check_categories(human, pred, target)
    metrics = {
        "pearson": _metric(pearson, human, pred),
        "spearman": _metric(spearman, human, pred),
        "mae": _metric(mae, human, pred),
        "rmse": _metric(rmse, human, pred),
        "qwk": _metric(quadratic_weighted_kappa, human, pred, target),
        "off_by_1": _metric(off_by, human, pred, 1),
        "off_by_2": _metric(off_by, human, pred, 2),
        "ac2": _metric(gwet_ac2, human, pred, target),
    }
    return AgreementReport(len(human), str(target), mapping.text if mapping else None, metrics)


# --------------------------------------------------------------------------------------
# Grade files
# --------------------------------------------------------------------------------------


def _grade(value: Any, where: str, scale: Scale | None) -> int:
    if isinstance(value, str):
        try:
            value = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise InputError(f"{where}: grade {value!r} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise InputError(f"{where}: grade must be a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where}: grade {value!r} is not finite")
    if Fraction(value).denominator != 1:
        raise InputError(f"{where}: grade {value} is not an integer (grades are ordinal categories)")
    g = int(value)
    if scale is not None and not scale.lo <= g <= scale.hi:
        raise InputError(f"{where}: grade {g} is outside the scale {scale}")
    return g


def read_grades(path: str | Path, scale: Scale | None = None) -> dict[str, int]:
    """Read ``id, grade`` pairs from JSON Lines (``{"id", "grade"}``) or CSV (header ``id,grade``).

    The format is CSV for a ``.csv`` file, or when the first non-blank line does not start
    with ``{``.  Every problem is collected and raised together, each naming ``file:line``.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{p}: cannot read: {exc}") from exc
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    rows: list[tuple[str, Any, Any]] = []
    errors: list[str] = []
    if p.suffix.lower() == ".csv" or (first and not first.startswith("{")):
        reader = csv.reader(text.splitlines())
        header = next(reader, None)
        cols = [h.strip().lower() for h in header] if header else []
        if "id" not in cols or "grade" not in cols:
            raise InputError(f"{p}:1: CSV header must contain the columns id and grade, got {header}")
        i_id, i_grade = cols.index("id"), cols.index("grade")
        for lineno, rec in enumerate(reader, start=2):
            if not any(c.strip() for c in rec):
                continue
            if len(rec) <= max(i_id, i_grade):
                errors.append(f"{p}:{lineno}: expected at least {max(i_id, i_grade) + 1} columns, got {len(rec)}")
                continue
            rows.append((f"{p}:{lineno}", rec[i_id].strip(), rec[i_grade]))
    else:
        for lineno, obj in iter_jsonl(p):
            where = f"{p}:{lineno}"
            if isinstance(obj, InputError):
                errors.append(str(obj))
            elif not isinstance(obj, dict) or "id" not in obj or "grade" not in obj:
                errors.append(f"{where}: expected an object with keys id and grade")
            elif isinstance(obj["id"], bool) or not isinstance(obj["id"], (str, int)):
                errors.append(f"{where}: id must be a string or an integer")
            else:
                rows.append((where, str(obj["id"]), obj["grade"]))
    grades: dict[str, int] = {}
    seen: dict[str, str] = {}
    for where, gid, raw in rows:
        if not gid:
            errors.append(f"{where}: empty id")
            continue
        if gid in seen:
            errors.append(f"{where}: id {gid!r} already given at {seen[gid]}")
            continue
        try:
            grades[gid] = _grade(raw, where, scale)
            seen[gid] = where
        except InputError as exc:
            errors.append(str(exc))
    if errors:
        raise InputError("\n".join(errors))
    if not grades:
        raise InputError(f"{p}: no grades")
    return grades


def join_grades(human: dict[str, int], pred: dict[str, int]) -> tuple[list[str], list[int], list[int], list[str], list[str]]:
    """Pair grades by id: ``(ids, human, pred, missing_in_pred, missing_in_human)``, ids sorted."""
    ids = sorted(set(human) & set(pred))
    return (ids, [human[i] for i in ids], [pred[i] for i in ids],
            sorted(set(human) - set(pred)), sorted(set(pred) - set(human)))
