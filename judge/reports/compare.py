"""Two runs compared problem by problem: what was fixed, what broke, what still fails, and
whether the difference in pass rate is real.

A run's **per-problem pass rate** is the share of its judged candidates of that problem that
pass (all models and samples of the file together; ``sandbox_error`` left out); its pass rate
is the mean over problems (pass@1 when every problem has as many samples). A problem is
**solved** in a run when more than half of its judged candidates pass (with one sample: it
passed). Only problems judged in both runs are compared; the others are listed apart.

- ``fixed``: unsolved in the baseline, solved in the other run; ``broke``: the reverse;
  ``still_failing``: unsolved in both. Lists in natural order.
- ``difference``: other minus baseline pass rate, with a paired bootstrap 95 % interval over
  problems (seeded: the same runs give the same interval) and McNemar's exact test on the
  fixed/broke counts (see :mod:`judge.reports.stats`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from judge.reports.runs import Run
from judge.reports.stats import mcnemar_exact, mean_se, paired_bootstrap
from judge.reports.tables import natural_key

RESAMPLES = 10000
SEED = 0


def problem_rates(rows: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """(judged, passed) per problem, sandbox errors left out."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        if row.get("verdict") == "sandbox_error":
            continue
        entry = counts[str(row.get("problem_id"))]
        entry[0] += 1
        entry[1] += row.get("verdict") == "pass"
    return {problem: (n, c) for problem, (n, c) in counts.items()}


def _solved(n: int, c: int) -> bool:
    return 2 * c > n


def compare(baseline: Run, other: Run, resamples: int = RESAMPLES, seed: int = SEED
            ) -> dict[str, Any]:
    """The comparison of ``other`` against ``baseline`` (a JSON-ready dict)."""
    base, new = problem_rates(baseline.rows), problem_rates(other.rows)
    shared = sorted(set(base) & set(new), key=natural_key)
    per_problem = []
    fixed, broke, still_failing = [], [], []
    differences = []
    for problem in shared:
        (n_a, c_a), (n_b, c_b) = base[problem], new[problem]
        rate_a, rate_b = c_a / n_a, c_b / n_b
        differences.append(rate_b - rate_a)
        solved_a, solved_b = _solved(n_a, c_a), _solved(n_b, c_b)
        if solved_b and not solved_a:
            change = "fixed"
            fixed.append(problem)
        elif solved_a and not solved_b:
            change = "broke"
            broke.append(problem)
        elif not solved_a:
            change = "still failing"
            still_failing.append(problem)
        else:
            change = "still passing"
        per_problem.append({"problem_id": problem, "baseline": round(rate_a, 4),
                            "other": round(rate_b, 4), "change": change})
    low, high = paired_bootstrap(differences, resamples, seed)
    mean_a = sum(c / n for n, c in (base[p] for p in shared)) / len(shared) if shared else 0.0
    mean_b = sum(c / n for n, c in (new[p] for p in shared)) / len(shared) if shared else 0.0
    difference = mean_b - mean_a
    return {
        "baseline": baseline.label, "other": other.label,
        "problems": len(shared),
        "only_in_baseline": sorted(set(base) - set(new), key=natural_key),
        "only_in_other": sorted(set(new) - set(base), key=natural_key),
        "pass_rate_baseline": round(mean_a, 4), "pass_rate_other": round(mean_b, 4),
        "difference": round(difference, 4),
        "difference_stderr": round(mean_se(differences), 4),
        "ci95": [round(low, 4), round(high, 4)],
        "interval": "paired percentile bootstrap over problems, %d resamples, seed %d"
                    % (resamples, seed),
        "significant": bool(shared) and (low > 0 or high < 0),
        "mcnemar": {"fixed": len(fixed), "broke": len(broke),
                    "p_value": round(mcnemar_exact(len(fixed), len(broke)), 6),
                    "test": "McNemar's exact test (two-sided) on solved/unsolved per problem"},
        "fixed": fixed, "broke": broke, "still_failing": still_failing,
        "still_passing": sum(1 for p in per_problem if p["change"] == "still passing"),
        "per_problem": per_problem,
    }


def compare_runs(runs: list[Run], resamples: int = RESAMPLES, seed: int = SEED
                 ) -> list[dict[str, Any]]:
    """Every run after the first compared with the first (the baseline)."""
    return [compare(runs[0], run, resamples, seed) for run in runs[1:]]


def render_comparison(result: dict[str, Any], markdown: bool = False) -> str:
    """A comparison as text (``markdown``: as GitHub markdown)."""
    heading = "## " if markdown else ""
    bullet = "- " if markdown else "  "
    low, high = result["ci95"]
    mc = result["mcnemar"]
    lines = [
        "%s%s vs %s (baseline) on %d problems" % (heading, result["other"], result["baseline"],
                                                  result["problems"]),
        "",
        "%spass rate %.4f -> %.4f: difference %+.4f (95%% CI %+.4f to %+.4f, %s)" % (
            bullet, result["pass_rate_baseline"], result["pass_rate_other"],
            result["difference"], low, high,
            "excludes 0" if result["significant"] else "includes 0"),
        "%sMcNemar exact test: %d fixed, %d broke, p = %.4g" % (bullet, mc["fixed"], mc["broke"],
                                                               mc["p_value"]),
    ]
    for name in ("fixed", "broke", "still_failing"):
        items = result[name]
        lines.append("%s%s (%d): %s" % (bullet, name.replace("_", " "), len(items),
                                        ", ".join(items) if items else "-"))
    for name in ("only_in_baseline", "only_in_other"):
        if result[name]:
            lines.append("%s%s (%d, not compared): %s" % (
                bullet, name.replace("_", " "), len(result[name]), ", ".join(result[name])))
    lines.append("%s(%s)" % (bullet, result["interval"]))
    return "\n".join(lines) + "\n"
