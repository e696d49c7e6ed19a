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

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

from judge.errors import InputFault
from judge.scoring.primitives import InputError, num_text  # noqa: F401 (InputError re-exported)

Number = int | float | Fraction


class UndefinedMetric(InputFault, ValueError):
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


def infer_scale(grades: Sequence[Number]) -> Scale:
    """The range of the grades seen (one grade seen: that grade and the next), or a
    ``ValueError`` asking for an explicit scale when it would have more than
    :data:`MAX_INFERRED_CATEGORIES` categories."""
    lo, hi = math.floor(min(grades)), math.ceil(max(grades))  # averaged grades: whole ends
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

    def __call__(self, x: Number) -> Number:
        """A whole grade must map to a whole grade; an averaged one (3.5) maps exactly."""
        y = self.a * Fraction(x) + self.b
        if y.denominator == 1:
            return int(y)
        if Fraction(x).denominator == 1:
            raise ValueError(f"map {self.text!r} sends {x} to {y}, not an integer grade")
        return y

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
    ("ac2_paper", "1-Do/De"),
)
#: how averaged grades (3.5) become categories for QWK and AC2: ``half-up`` (3.5 -> 4), or
#: ``none`` (those metrics are then undefined for such grades)
ROUNDINGS = ("half-up", "none")


@dataclass(frozen=True)
class MetricResult:
    """A metric's value, or ``None`` with the reason it is undefined."""

    value: float | None
    reason: str | None = None


def _plain(v: Number) -> int | float:
    """A grade for JSON: an int, or a float for an averaged grade."""
    return int(v) if Fraction(v).denominator == 1 else float(v)


@dataclass
class AgreementReport:
    """Every metric over the paired grades, with the scale and maps used and the
    majority-grade baseline (the paper's reference point: always predicting the most
    frequent human grade)."""

    n: int
    scale: str
    mapping: str | None
    metrics: dict[str, MetricResult]
    missing_in_pred: list[str] = field(default_factory=list)
    missing_in_human: list[str] = field(default_factory=list)
    ac2_formula: str = "gwet"
    human_map: str | None = None
    pred_map: str | None = None
    rounded: int = 0
    majority: Number | None = None
    baseline: dict[str, MetricResult] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (undefined metrics: ``null`` plus ``<name>_reason``)."""
        out: dict[str, Any] = {"n": self.n, "scale": self.scale, "map": self.mapping,
                               "human_map": self.human_map, "pred_map": self.pred_map,
                               "ac2_formula": self.ac2_formula, "rounded_grades": self.rounded}
        out.update(_metric_dict(self.metrics))
        if self.majority is not None:
            out["majority_baseline"] = {"grade": _plain(self.majority), **_metric_dict(self.baseline)}
        out["missing_in_pred"] = self.missing_in_pred
        out["missing_in_human"] = self.missing_in_human
        return out


def _metric_dict(metrics: dict[str, MetricResult]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, _ in METRICS:
        m = metrics[key]
        out[key] = m.value
        if m.reason:
            out[f"{key}_reason"] = m.reason
    return out


def _metric(fn: Any, *args: Any) -> MetricResult:
    try:
        return MetricResult(fn(*args))
    except UndefinedMetric as exc:
        return MetricResult(None, str(exc))


def _whole(v: Number) -> bool:
    return Fraction(v).denominator == 1


def round_half_up(v: Number) -> int:
    """3.5 -> 4, 2.4999 -> 2, -0.5 -> 0 (exactly, never through binary rounding)."""
    return math.floor(Fraction(v) + Fraction(1, 2))


def metric_set(human: Sequence[Number], pred: Sequence[Number], target: Scale,
               rounding: str = "half-up", ac2_formula: str = "gwet") -> tuple[dict[str, MetricResult], int]:
    """Every metric of :data:`METRICS` and the number of averaged grades rounded for QWK and
    AC2.  Pearson, Spearman, MAE, RMSE and Off-by-k use the grades as they are (3.5 stays
    3.5); QWK and both AC2 formulas need categories, so averaged grades are rounded half up
    (``rounding="none"``: those metrics are undefined, with the reason)."""
    if rounding not in ROUNDINGS:
        raise ValueError(f"rounding must be one of {', '.join(ROUNDINGS)}, got {rounding!r}")
    if ac2_formula not in AC2_FORMULAS:
        raise ValueError(f"AC2 formula must be one of {', '.join(AC2_FORMULAS)}, got {ac2_formula!r}")
    rounded = sum(1 for v in list(human) + list(pred) if not _whole(v))
    metrics = {
        "pearson": _metric(pearson, human, pred), "spearman": _metric(spearman, human, pred),
        "mae": _metric(mae, human, pred), "rmse": _metric(rmse, human, pred),
        "off_by_1": _metric(off_by, human, pred, 1), "off_by_2": _metric(off_by, human, pred, 2),
    }
    if rounded and rounding == "none":
        why = (f"{rounded} grade(s) are not whole (averaged) and QWK/AC2 need categories: "
               "round them (--rounding half-up)")
        for key in ("qwk", "ac2", "ac2_paper"):
            metrics[key] = MetricResult(None, why)
    else:
        h, g = [round_half_up(v) for v in human], [round_half_up(v) for v in pred]
        metrics["qwk"] = _metric(quadratic_weighted_kappa, h, g, target)
        metrics["ac2"] = _metric(AC2_FORMULAS[ac2_formula], h, g, target)
        metrics["ac2_paper"] = _metric(paper_ac2, h, g, target)
    return {key: metrics[key] for key, _ in METRICS}, (rounded if rounding != "none" else 0)


def majority_grade(grades: Sequence[Number]) -> Number:
    """The most frequent grade (ties: the lowest of them)."""
    counts: dict[Number, int] = {}
    for v in grades:
        counts[v] = counts.get(v, 0) + 1
    top = max(counts.values())
    return min(v for v, c in counts.items() if c == top)


def majority_baseline(human: Sequence[Number], target: Scale, rounding: str = "half-up",
                      ac2_formula: str = "gwet") -> tuple[Number, dict[str, MetricResult]]:
    """The metrics of always predicting the majority human grade (the paper's baseline for
    Off-by-1/2: "If we always predict the majority grade, Off-by-one and Off-by-two are ...")."""
    m = majority_grade(human)
    return m, metric_set(human, [m] * len(human), target, rounding, ac2_formula)[0]


def _clip(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) else _short(value)
    return text if len(text) <= 60 else text[:50] + "..."


def _side_scale(mapping: LinearMap | None, scale: Scale) -> Scale:
    return default_target(mapping, scale) if mapping is not None else scale


def compute_agreement(human: Sequence[Number], pred: Sequence[Number], scale: Scale,
                      mapping: LinearMap | None = None, target: Scale | None = None,
                      ac2_formula: str = "gwet", *, pred_scale: Scale | None = None,
                      human_map: LinearMap | None = None, pred_map: LinearMap | None = None,
                      rounding: str = "half-up") -> AgreementReport:
    """Every metric for paired grades.

    ``scale`` is the human grades' scale (and the predictions' unless ``pred_scale``).
    ``mapping`` maps both sides; ``human_map`` / ``pred_map`` one side each (the paper's IMO
    setting: human 1-4 mapped by ``2x-1`` against a grader already on 0-7).  The scale the
    grades are compared on (``target``) defaults to each mapped side's :func:`default_target`
    (0-7 for ``2x-1`` on 1-4), spanning both sides.  ``ac2_formula`` picks the ``ac2`` column
    (``gwet`` by default); ``ac2_paper`` is always the paper's ``1 - D_o/D_e``."""
    pred_scale = pred_scale or scale
    human_map = human_map or mapping
    pred_map = pred_map or mapping
    _check(human, pred)
    for side, values, sc in (("human", human, scale), ("predicted", pred, pred_scale)):
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float, Fraction)) or not sc.lo <= v <= sc.hi:
                raise ValueError(f"{side} grade {_clip(v)} is not on the scale {sc}")
    if target is None:
        hs, ps = _side_scale(human_map, scale), _side_scale(pred_map, pred_scale)
        target = hs if hs == ps else Scale(min(hs.lo, ps.lo), max(hs.hi, ps.hi))
    if human_map is not None:
        human = [human_map(v) for v in human]
    if pred_map is not None:
        pred = [pred_map(v) for v in pred]
    for side, values in (("human", human), ("predicted", pred)):
        for v in values:
            if not target.lo <= v <= target.hi:
                raise ValueError(f"{side} grade {_clip(_plain(v))} is not on the scale {target}")
    metrics, rounded = metric_set(human, pred, target, rounding, ac2_formula)
    majority, baseline = majority_baseline(human, target, rounding, ac2_formula)
    both = mapping is not None and human_map is mapping and pred_map is mapping
    return AgreementReport(len(human), str(target), mapping.text if both else None, metrics,
                           ac2_formula=ac2_formula,
                           human_map=human_map.text if human_map else None,
                           pred_map=pred_map.text if pred_map else None,
                           rounded=rounded, majority=majority, baseline=baseline)
