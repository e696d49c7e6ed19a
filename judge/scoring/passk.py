"""pass@k: the unbiased estimator of Chen et al. (2021), per problem, averaged.

``1 - C(n-c, k) / C(n, k)`` computed in the numerically stable product form
``1 - prod(1 - k / arange(n-c+1, n+1))``, and exactly 1.0 when ``n - c < k``.
"""

from __future__ import annotations

import math


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn from n (c of them correct) passes."""
    if not 0 <= c <= n:
        raise ValueError("need 0 <= c <= n, got n=%d c=%d" % (n, c))
    if not 1 <= k <= n:
        raise ValueError("need 1 <= k <= n, got n=%d k=%d" % (n, k))
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def ks_for(samples: int) -> list[int]:
    """Every k up to the sample count when there are at most 10 samples; beyond that the
    usual 1, 2, 5, 10, 20, 50, 100... (a column per k would be unreadable)."""
    if samples <= 10:
        return list(range(1, samples + 1))
    ks, step = [], 1
    while step <= samples:
        ks.extend(k for k in (step, 2 * step, 5 * step) if k <= samples)
        step *= 10
    return sorted(set(ks))


def mean_pass_at_k(counts: list[tuple[int, int]], k: int) -> float:
    """Average over problems of pass@k, from (n, c) per problem."""
    values = [pass_at_k(n, c, k) for n, c in counts]
    return sum(values) / len(values) if values else 0.0


def max_at_k(values: list[float], k: int) -> float:
    """The expected maximum of ``k`` of ``values`` drawn without replacement: the unbiased
    estimate, from ``n = len(values)`` samples, of the expected best of ``k`` samples
    (score@k; pass@k when every value is 0 or 1).

    Sorted ascending ``v_1 <= ... <= v_n``, a k-subset's maximum is ``v_i`` for the
    ``C(i-1, k-1)`` subsets of ``v_i`` and ``k-1`` values below it (ties change no value),
    so the mean over the ``C(n, k)`` subsets is ``sum_i v_i C(i-1, k-1) / C(n, k)``. Its
    expectation over n independent samples is the expected maximum of k of them (a
    U-statistic with kernel ``max``). The weights are computed from the top,
    ``w_n = k / n`` and ``w_{i-1} = w_i (i - k) / (i - 1)``: no binomial is formed."""
    n = len(values)
    if not 1 <= k <= n:
        raise ValueError("need 1 <= k <= n, got n=%d k=%d" % (n, k))
    ordered = sorted(values)
    total, weight = 0.0, k / n
    for i in range(n, k - 1, -1):  # i = n, n-1, ..., k (1-based ranks)
        total += weight * ordered[i - 1]
        weight = weight * (i - k) / (i - 1) if i > 1 else 0.0
    return total
