"""The statistics of reports: intervals and standard errors on pass rates, a paired bootstrap
and McNemar's exact test for comparing runs. Pure Python, deterministic (seeded).

- A pass rate of ``c`` passes in ``n`` judged candidates gets the **Wilson score interval**
  (95 %): unlike ``p ± 1.96·se`` it stays inside [0, 1] and is not empty at 0 % or 100 %, and
  the binomial standard error ``sqrt(p(1-p)/n)``.
- pass@k and the mean of per-problem rates get the standard error of a mean over problems
  (``sd / sqrt(P)``, the sample standard deviation): problems are the unit that was sampled.
- Two runs are compared on the problems both judged: the difference of the mean per-problem
  pass rates gets a **paired percentile bootstrap** interval over problems (the same problems
  resampled for both runs, ``random.Random(seed)``: the same input gives the same interval),
  and the per-problem solved/unsolved pairs get **McNemar's exact test** (two-sided binomial
  test on the discordant pairs).
"""

from __future__ import annotations

import math
import random
from typing import Sequence

#: z of a two-sided 95 % interval
Z95 = 1.959963984540054


def wilson(passed: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``passed`` successes in ``n`` trials ((0, 1) when n is 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = passed / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def binomial_se(passed: int, n: int) -> float:
    """``sqrt(p(1-p)/n)``: the standard error of a pass rate over ``n`` independent trials."""
    if n <= 0:
        return 0.0
    p = passed / n
    return math.sqrt(p * (1 - p) / n)


def mean_se(values: Sequence[float]) -> float:
    """The standard error of the mean of ``values`` (sample standard deviation / sqrt(n))."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return math.sqrt(variance / n)


def clustered_se(counts: Sequence[tuple[int, int]]) -> float:
    """The standard error of a pooled pass rate when candidates come in clusters (several
    samples of one problem are not independent): from (n, c) per problem, the cluster-robust
    ``sqrt(P/(P-1) * sum((c_i - p n_i)^2)) / N``."""
    clusters = len(counts)
    total = sum(n for n, _ in counts)
    if clusters < 2 or total == 0:
        return 0.0
    p = sum(c for _, c in counts) / total
    residual = sum((c - p * n) ** 2 for n, c in counts)
    return math.sqrt(clusters / (clusters - 1) * residual) / total


def paired_bootstrap(differences: Sequence[float], resamples: int = 10000, seed: int = 0,
                     level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the mean of per-problem ``differences`` (other - baseline),
    problems resampled with replacement ``resamples`` times from ``random.Random(seed)``."""
    n = len(differences)
    if n == 0:
        return 0.0, 0.0
    rng = random.Random(seed)
    values = list(differences)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(max(1, resamples)))
    tail = (1 - level) / 2
    low = means[min(len(means) - 1, max(0, int(math.floor(tail * len(means)))))]
    high = means[min(len(means) - 1, max(0, int(math.ceil((1 - tail) * len(means))) - 1))]
    return low, high


def mcnemar_exact(fixed: int, broke: int) -> float:
    """Two-sided p-value of McNemar's exact test: under "no difference" each of the
    ``fixed + broke`` discordant problems is equally likely to go either way."""
    n = fixed + broke
    if n == 0:
        return 1.0
    smaller = min(fixed, broke)
    tail = sum(math.comb(n, i) for i in range(smaller + 1)) / 2 ** n
    return min(1.0, 2 * tail)
