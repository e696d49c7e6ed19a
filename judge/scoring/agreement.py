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
* **AC2** (default, ``formula="gwet"``) is Gwet's (2014) formula with quadratic agreement
  weights ``r_kl = 1 - (k - l)^2 / (hi - lo)^2``: ``AC2 = (pa - pe) / (1 - pe)`` with
  ``pa = mean r(g_i, h_i)``, ``pe = T_r / (K (K - 1)) * sum_k pi_k (1 - pi_k)``,
  ``T_r`` the sum of all weights, ``K`` the number of categories of the scale and ``pi``
  the pooled marginals.  It is the standard one, and the one the reference vector's
  82/97 is computed with.
* **AC2, the paper's literal formula** (``formula="paper"``, section 4):
  ``1 - D_o / D_e`` with ``D_o = mean w(g_i, h_i)``, ``D_e = sum_ij w_ij pi_i pi_j`` and
  ``w_ij = (i - j)^2 / (hi - lo)^2``, ``pi`` the pooled marginals.  On the reference vector
  (1-4, both raters with marginals 2, 2, 3, 3) ``D_o = 0.4/9`` and
  ``D_e = 2 (4.1 - 1.7^2) / 9 = 2.42/9``, so it is ``1 - 0.4/2.42 = 101/121 = 0.83471``
  (equal to QWK here, since the two raters' marginals are identical) where Gwet's gives
  ``82/97 = 0.84536``.  Undefined (0/0) when both raters give one and the same grade.
* Every metric costs O(n) whatever the size of the scale: the sums over all pairs of
  categories have closed forms (moments of the marginals), so a wide scale never costs
  memory or time quadratic in its size.
* **Undefined metrics** are reported as ``None`` with a reason, never as a made-up number:
  Pearson/Spearman with zero variance on either side; QWK when the expected disagreement
  is 0 (both raters constant on the same grade, 0/0).  AC2 stays defined for constant
  ratings (1.0 when both raters agree on a single grade).

Grades are integers on a declared scale (``1-4``); an optional linear map such as
``2x-1`` moves them to another scale before any metric.  The paper maps the IMO Shortlist's
1-4 to MathArena's **0-7** with ``2x-1``, so that map (by its coefficients, however it is
written) defaults to the source scale 1-4 and the target scale 0-7 (:data:`PAPER_MAP`);
any other map's target defaults to the mapped end points; both can be given explicitly.

Without a declared scale, :func:`infer_scale` takes the range of the grades seen, but only
up to :data:`MAX_INFERRED_CATEGORIES` categories: grades far apart (one outlier of 10**9)
are an error asking for a scale, not a silent 10**9-category table.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Sequence

from judge.errors import JudgeError
from judge import jsonl
from judge.scoring.primitives import InputError, num_text, read_jsonl

Number = int | float | Fraction


class UndefinedMetric(JudgeError, ValueError):
    """A metric has no value for these ratings; ``str()`` says why."""

    code = "undefined_metric"


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


#: an inferred scale (no ``--scale``) has at most this many categories
MAX_INFERRED_CATEGORIES = 101


def parse_scale(text: str) -> Scale:
    """``"1-4"``, ``"0..7"`` or ``"0:7"`` -> :class:`Scale` (end points of at most 18 digits)."""
    m = re.fullmatch(r"\s*(-?\d{1,18})\s*(?:-|\.\.|:)\s*(-?\d{1,18})\s*", text[:100])
    if not m or len(text) > 100:
        raise ValueError(f"scale must look like 1-4 (integers of at most 18 digits), got {text[:60]!r}")
    return Scale(int(m.group(1)), int(m.group(2)))


def infer_scale(grades: Sequence[int]) -> Scale:
    """The range of the grades seen (one grade seen: that grade and the next), or a
    ``ValueError`` asking for an explicit scale when it would have more than
    :data:`MAX_INFERRED_CATEGORIES` categories."""
    lo, hi = min(grades), max(grades)
    if hi - lo + 1 > MAX_INFERRED_CATEGORIES:
        raise ValueError(f"the grades range from {_short(lo)} to {_short(hi)} "
                         f"({_short(hi - lo + 1)} categories, more than {MAX_INFERRED_CATEGORIES}): "
                         "pass the scale explicitly (such as --scale 0-7); an outlier grade "
                         "would otherwise define the scale")
    return Scale(lo, hi) if lo < hi else Scale(lo, lo + 1)


def _short(n: int) -> str:
    return num_text(n)


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


#: the paper's map (section 4): IMO Shortlist 1-4 -> MathArena 0-7 with m(x) = 2x - 1
PAPER_MAP = (Fraction(2), Fraction(-1))
PAPER_SOURCE, PAPER_TARGET = Scale(1, 4), Scale(0, 7)


def is_paper_map(mapping: LinearMap) -> bool:
    """True for ``2x-1`` however it is written (``2*x - 1``, ``-1+2x`` is not accepted)."""
    return (mapping.a, mapping.b) == PAPER_MAP


def default_target(mapping: LinearMap, scale: Scale) -> Scale:
    """0-7 for the paper's map on 1-4; otherwise the scale of the mapped end points."""
    if is_paper_map(mapping) and scale == PAPER_SOURCE:
        return PAPER_TARGET
    return mapping.target(scale)


def parse_map(text: str) -> LinearMap:
    """Parse ``2x-1``, ``2*x - 1``, ``x+1``, ``-x+7``, ``0.5x``, ``x``."""
    s = text.replace(" ", "")
    if len(s) > 40:
        raise ValueError(f"map must be linear in x like 2x-1, got {text[:40]!r}...")
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
    for v in list(x) + list(y):
        if isinstance(v, bool) or not isinstance(v, int) or not scale.lo <= v <= scale.hi:
            raise ValueError(f"grade {_short(v) if isinstance(v, int) else repr(v)} is not on the scale {scale}")


def _moments(values: Sequence[int], lo: int) -> tuple[Fraction, Fraction]:
    """Mean of ``v - lo`` and of ``(v - lo)**2``, exactly."""
    n = len(values)
    return (Fraction(sum(v - lo for v in values), n), Fraction(sum((v - lo) ** 2 for v in values), n))


def _pooled_square_sum(x: Sequence[int], y: Sequence[int]) -> Fraction:
    """``sum_k pi_k**2`` of the pooled marginals (only the categories seen contribute)."""
    counts: dict[int, int] = {}
    for v in list(x) + list(y):
        counts[v] = counts.get(v, 0) + 1
    total = 2 * len(x)
    return sum((Fraction(c, total) ** 2 for c in counts.values()), Fraction(0))


def quadratic_weighted_kappa(x: Sequence[int], y: Sequence[int], scale: Scale) -> float:
    """Cohen's kappa with quadratic weights over the full category set of ``scale``.

    The expected disagreement ``sum_ij (i - j)^2 p_i q_j`` is computed from the marginals'
    moments (``E_p[i^2] - 2 E_p[i] E_q[j] + E_q[j^2]``): O(n) for any scale."""
    _check_categories(x, y, scale)
    n, span2 = len(x), Fraction((scale.hi - scale.lo) ** 2)
    observed = Fraction(sum((a - b) ** 2 for a, b in zip(x, y)), n) / span2
    (px, px2), (py, py2) = _moments(x, scale.lo), _moments(y, scale.lo)
    expected = (px2 - 2 * px * py + py2) / span2
    if expected == 0:
        raise UndefinedMetric("expected disagreement is 0 (both raters gave the same single grade): 0/0")
    return float(1 - observed / expected)


def gwet_ac2(x: Sequence[int], y: Sequence[int], scale: Scale) -> float:
    """Gwet's AC2 with quadratic weights over the full category set of ``scale`` (O(n)).

    ``T_r``, the sum of the weights over all ``K^2`` pairs of categories, is
    ``K^2 - (2 K sum a^2 - 2 (sum a)^2) / span^2`` over ``a = 0..span``."""
    _check_categories(x, y, scale)
    n, span = len(x), scale.hi - scale.lo
    k = span + 1
    pa = 1 - Fraction(sum((a - b) ** 2 for a, b in zip(x, y)), n) / span ** 2
    sum_a, sum_a2 = span * (span + 1) // 2, span * (span + 1) * (2 * span + 1) // 6
    t_r = k * k - Fraction(2 * k * sum_a2 - 2 * sum_a * sum_a, span ** 2)
    pe = t_r / (k * (k - 1)) * (1 - _pooled_square_sum(x, y))
    if pe == 1:
        raise UndefinedMetric("chance agreement is 1")
    return float((pa - pe) / (1 - pe))


def paper_ac2(x: Sequence[int], y: Sequence[int], scale: Scale) -> float:
    """The paper's section-4 AC2: ``1 - D_o / D_e`` with pooled marginals (O(n)).

    ``D_e = sum_ij w_ij pi_i pi_j = 2 (E_pi[i^2] - E_pi[i]^2) / span^2``."""
    _check_categories(x, y, scale)
    n, span2 = len(x), Fraction((scale.hi - scale.lo) ** 2)
    d_o = Fraction(sum((a - b) ** 2 for a, b in zip(x, y)), n) / span2
    m1, m2 = _moments(list(x) + list(y), scale.lo)
    d_e = 2 * (m2 - m1 * m1) / span2
    if d_e == 0:
        raise UndefinedMetric("expected disagreement D_e is 0 (both raters gave the same single grade): 0/0")
    return float(1 - d_o / d_e)


AC2_FORMULAS = {"gwet": gwet_ac2, "paper": paper_ac2}


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
    ac2_formula: str = "gwet"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (undefined metrics: ``null`` plus ``<name>_reason``)."""
        out: dict[str, Any] = {"n": self.n, "scale": self.scale, "map": self.mapping,
                               "ac2_formula": self.ac2_formula}
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
                      mapping: LinearMap | None = None, target: Scale | None = None,
                      ac2_formula: str = "gwet") -> AgreementReport:
    """Every metric for paired grades on ``scale`` (mapped first when ``mapping`` is given;
    the target defaults to :func:`default_target`). ``ac2_formula``: ``gwet`` (default) or
    ``paper`` (see the module docstring)."""
    if ac2_formula not in AC2_FORMULAS:
        raise ValueError(f"AC2 formula must be one of {', '.join(AC2_FORMULAS)}, got {ac2_formula!r}")
    _check_categories(human, pred, scale)
    if mapping is not None:
        target = target or default_target(mapping, scale)
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
        "ac2": _metric(AC2_FORMULAS[ac2_formula], human, pred, target),
    }
    return AgreementReport(len(human), str(target), mapping.text if mapping else None, metrics,
                           ac2_formula=ac2_formula)


# --------------------------------------------------------------------------------------
# Grade files
# --------------------------------------------------------------------------------------


def _grade(value: Any, where: str, scale: Scale | None) -> int:
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 40:
            raise InputError(f"{where}: grade {text[:20]!r}... ({len(text)} characters) is not a grade")
        try:
            value = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise InputError(f"{where}: grade {value!r} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise InputError(f"{where}: grade must be a number, got {_clip(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where}: grade {value!r} is not finite")
    if Fraction(value).denominator != 1:
        raise InputError(f"{where}: grade {value} is not an integer (grades are ordinal categories)")
    g = int(value)
    if scale is not None and not scale.lo <= g <= scale.hi:
        raise InputError(f"{where}: grade {_short(g)} is outside the scale {scale}")
    return g


def _clip(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) else _short(value)
    return text if len(text) <= 60 else text[:50] + "..."


def _read_text(p: Path) -> str:
    """The whole file as text; bad bytes are a located error (line and column), like JSON."""
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > jsonl.MAX_JSON_BYTES:
        raise InputError(f"{p}: larger than the limit of {jsonl.MAX_JSON_BYTES} bytes")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(f"{p}:{line}: not UTF-8 (byte 0x{raw[exc.start]:02x} at column {column})") from None


def read_grades(path: str | Path, scale: Scale | None = None) -> dict[str, int]:
    """Read ``id, grade`` pairs from JSON Lines (``{"id", "grade"}``) or CSV (header ``id,grade``).

    The format is CSV for a ``.csv`` file, or when the first non-blank line does not start
    with ``{``; JSON Lines go through :func:`judge.jsonl.read_lines`.  Every problem is
    collected and raised together, each naming ``file:line``."""
    p = Path(path)
    first = _first_line(p)
    rows: list[tuple[str, Any, Any]] = []
    errors: list[str] = []
    if p.suffix.lower() == ".csv" or (first and not first.startswith(b"{")):
        text = _read_text(p)
        reader = csv.reader(text.splitlines())
        try:
            header = next(reader, None)
            cols = [h.strip().lower() for h in header] if header else []
            if "id" not in cols or "grade" not in cols:
                raise InputError(f"{p}:1: CSV header must contain the columns id and grade, got {_clip(header)}")
            i_id, i_grade = cols.index("id"), cols.index("grade")
            for lineno, rec in enumerate(reader, start=2):
                if not any(c.strip() for c in rec):
                    continue
                if len(rec) <= max(i_id, i_grade):
                    errors.append(f"{p}:{lineno}: expected at least {max(i_id, i_grade) + 1} columns, got {len(rec)}")
                    continue
                rows.append((f"{p}:{lineno}", rec[i_id].strip(), rec[i_grade]))
        except csv.Error as exc:
            raise InputError(f"{p}:{reader.line_num}: invalid CSV: {exc}") from None
    else:
        for line in read_jsonl(p):
            where = f"{p}:{line.number}"
            obj = line.value
            if line.issue is not None:
                errors.append(str(line.issue))
            elif "id" not in obj or "grade" not in obj:
                errors.append(f"{where}: expected an object with keys id and grade")
            elif isinstance(obj["id"], bool) or not isinstance(obj["id"], (str, int)):
                errors.append(f"{where}: id must be a string or an integer")
            else:
                rows.append((where, obj["id"] if isinstance(obj["id"], str) else _short(obj["id"]), obj["grade"]))
    grades: dict[str, int] = {}
    seen: dict[str, str] = {}
    for where, gid, raw in rows:
        if not gid:
            errors.append(f"{where}: empty id")
            continue
        if gid in seen:
            errors.append(f"{where}: id {gid[:60]!r} already given at {seen[gid]}")
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


def _first_line(p: Path) -> bytes:
    """The first non-blank line's start (stripped bytes), to tell JSON Lines from CSV."""
    try:
        with open(p, "rb") as fh:
            for raw in iter(lambda: fh.readline(4096), b""):
                if raw.strip():
                    return raw.strip().lstrip(b"\xef\xbb\xbf")
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return b""


def join_grades(human: dict[str, int], pred: dict[str, int]) -> tuple[list[str], list[int], list[int], list[str], list[str]]:
    """Pair grades by id: ``(ids, human, pred, missing_in_pred, missing_in_human)``, ids sorted."""
    ids = sorted(set(human) & set(pred))
    return (ids, [human[i] for i in ids], [pred[i] for i in ids],
            sorted(set(human) - set(pred)), sorted(set(pred) - set(human)))
