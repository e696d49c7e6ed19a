"""Time of AIME answer extraction against input size, on degenerate model output.

Issue 14 measured 6.8 s for 20 KB of ``"answer is "`` repeated and 285 s for 140 KB of
unclosed ``\\boxed{``: extraction was quadratic. This benchmark times
:func:`judge.scoring.math_answers.evaluate_answer` in both modes (``final``: the final
answer; ``any``: every number) on families of degenerate text from 1 KB to 1 MB, and
prints, per family and mode, the best-of-N **CPU time** of the process at each size (CPU
time, not wall time: on a shared 2-core machine with a load of 10, wall time mostly measures
the wait for a core) and the growth exponent: the least-squares slope of log(time) against
log(size) from 16 KB to the largest size (1.0 is linear, 2.0 quadratic). It also times
:func:`judge.scoring.reference_match.normalize_answer` on runaway punctuation.

    .venv/bin/python benchmarks/extraction_answers.py                 # 1 KB .. 1 MB, best of 3
    .venv/bin/python benchmarks/extraction_answers.py --repeat 5 --families boxed,phrase

The machines are shared and noisy: read the exponents, not the absolute times.
"""

from __future__ import annotations

import argparse
import gc
import math
import platform
import sys
import time
from typing import Callable

from judge.scoring.math_answers import evaluate_answer
from judge.scoring.reference_match import normalize_answer

KB = 1024
SIZES = (1 * KB, 4 * KB, 16 * KB, 64 * KB, 256 * KB, 1024 * KB)


def _fill(unit: str, size: int, prefix: str = "", suffix: str = "") -> str:
    body = size - len(prefix) - len(suffix)
    return prefix + (unit * (body // len(unit) + 1))[:max(0, body)] + suffix


#: name -> (description, text of about ``size`` characters)
FAMILIES: dict[str, tuple[str, Callable[[int], str]]] = {
    "phrase": ('"answer is " repeated (the issue: 6.8 s at 20 KB)', lambda n: _fill("answer is ", n)),
    "boxed": ("unclosed \\boxed{ repeated (the issue: 285 s at 140 KB)", lambda n: _fill("\\boxed{", n)),
    "digits": ("one run of digits", lambda n: _fill("7", n, "The answer is ")),
    "thousands": ('"1,000," repeated: many numbers', lambda n: _fill("1,000,", n)),
    "frac": ("unclosed \\frac{1}{ repeated", lambda n: _fill("\\frac{1}{", n)),
    "chain": ('"answer: " then "1+" repeated: an arithmetic chain without "="', lambda n: _fill("1+", n, "answer: ")),
    "spaces": ("one number, a run of spaces, a slash", lambda n: _fill(" ", n, "1", "/2")),
    "braces": ("nested braces, then one closed box", lambda n: _fill("{", n // 2) + _fill("}", n // 2) + "\\boxed{70}"),
    "prose": ("ordinary reasoning text, repeated",
              lambda n: _fill("We try b = 17 and 97 - 17 = 80, so the sum is 21 + 49 = 70. ", n, "", " answer: 70")),
}


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """The least CPU time (``time.process_time``) of ``repeat`` runs."""
    best = math.inf
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return max(best, 1e-6)


def exponent(times: list[float], sizes: tuple[int, ...]) -> float:
    """Least-squares slope of log(time) on log(size) over the sizes from 16 KB up (the
    smallest sizes measure call overhead); all sizes when fewer than two are that large."""
    points = [(math.log(s), math.log(t)) for s, t in zip(sizes, times) if s >= 16 * KB]
    if len(points) < 2:
        points = [(math.log(s), math.log(t)) for s, t in zip(sizes, times)]
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)


def fmt_time(seconds: float) -> str:
    return f"{seconds * 1000:9.2f}" if seconds < 10 else f"{seconds:8.1f}s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per point; the best is kept (default 3)")
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated subset of: "
                        + ", ".join(FAMILIES))
    parser.add_argument("--max-kb", type=int, default=1024, help="largest size in KB (default 1024)")
    args = parser.parse_args(argv)
    sizes = tuple(s for s in SIZES if s <= args.max_kb * KB)
    names = [f for f in args.families.split(",") if f]
    unknown = [f for f in names if f not in FAMILIES]
    if unknown:
        parser.error(f"unknown families: {', '.join(unknown)}")
    print(f"# extraction CPU time (ms, best of {args.repeat}) against input size; Python {platform.python_version()}, "
          f"{platform.machine()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    header = ["family", "mode"] + [f"{s // KB} KB" for s in sizes] + ["us/KB @max", "exponent"]
    rows = []
    worst = 0.0
    for name in names:
        _, make = FAMILIES[name]
        texts = [make(s) for s in sizes]
        for mode in ("final", "any"):
            times = [best_of(lambda t=t: evaluate_answer(t, 70, mode), args.repeat) for t in texts]
            e = exponent(times, sizes) if len(sizes) > 1 else 1.0
            worst = max(worst, e)
            rows.append([name, mode] + [fmt_time(t) for t in times]
                        + [f"{times[-1] / (sizes[-1] / KB) * 1e6:8.1f}", f"{e:5.2f}"])
    for label, make in (("normalise '.'", lambda n: "kuru" + "." * n),
                        ("normalise '**'", lambda n: "**" * (n // 4) + "kuru" + "**" * (n // 4))):
        texts = [make(s) for s in sizes]
        times = [best_of(lambda t=t: normalize_answer(t), args.repeat) for t in texts]
        e = exponent(times, sizes) if len(sizes) > 1 else 1.0
        worst = max(worst, e)
        rows.append([label, "match"] + [fmt_time(t) for t in times]
                    + [f"{times[-1] / (sizes[-1] / KB) * 1e6:8.1f}", f"{e:5.2f}"])
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(str(c).rjust(w) for c, w in zip(r, widths)))
    print()
    for name in names:
        print(f"  {name:10s} {FAMILIES[name][0]}")
    print(f"\nlargest growth exponent: {worst:.2f} (1.0 = linear, 2.0 = quadratic)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
