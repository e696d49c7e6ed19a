"""Cost of judging per language: candidates per second, compile cache hit rate, and the split
between compiling and running.

For each language, the shipped problems' reference solutions in that language (about 16) are
judged twice through one :class:`judge.Judge`: the first round compiles every candidate (a
cold cache), the second judges the same code again (the compile cache serves it, as it does
for repeated samples and sandbox_error retries). Python, which has no compile step, is the
baseline.

    .venv/bin/python benchmarks/languages.py                        # process sandbox
    .venv/bin/python benchmarks/languages.py --sandbox docker --languages cpp,go
    .venv/bin/python benchmarks/languages.py --json figures.json

Columns: ``cold/s`` and ``warm/s`` are candidates per second in each round; ``compile s``
is the compiler's time per candidate (inside the sandbox, cold round); ``run s`` is the time
of the tests per candidate (every test is its own process: start-up of the runtime
included); ``hit rate`` is over both rounds (50% is the most two rounds allow).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

from judge.api import Judge
from judge.candidates.extract import Candidate
from judge.running.batch import optimal_candidates, with_problems
from judge.languages import LANGUAGES, normalize
from judge.problem.model import Suite
from judge.kinds.loader import load_suite
from judge.resources import shipped_problems


def candidates(suite: Suite, language: str) -> list[Candidate]:
    """The suite's reference solutions in ``language`` (problems without one are left out)."""
    return [c for c, _ in optimal_candidates(suite, language) if c is not None]


def judge_round(judge: Judge, suite: Suite, batch: list[Candidate]) -> tuple[float, list[Any]]:
    """Judge ``batch`` once; (seconds, results)."""
    started = time.monotonic()
    items = with_problems(suite, iter([(c, None) for c in batch]))
    outcome = judge.run(items)
    return time.monotonic() - started, outcome.results


def measure(suite: Suite, language: str, sandbox: str, jobs: int) -> dict[str, Any]:
    """Two rounds of one language's candidates in a fresh Judge: the figures of one row."""
    batch = candidates(suite, language)
    with Judge(sandbox, jobs, notice=lambda message: None, reference_timing=False) as judge:
        cold_s, cold = judge_round(judge, suite, batch)
        warm_s, warm = judge_round(judge, suite, batch)
        stats = judge.executor.compile_cache.stats.to_json()
    rows = [r.to_dict() if hasattr(r, "to_dict") else r for r in cold + warm]
    compiled = [r for r in rows[: len(cold)] if r.get("compile_s") is not None]
    run_s = [sum(t.get("time_s") or 0.0 for t in r.get("tests", [])) for r in rows]
    verdicts: dict[str, int] = {}
    for row in rows:
        verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
    n = len(batch)
    return {
        "language": language, "candidates": n, "sandbox": sandbox, "jobs": jobs,
        "cold_per_s": round(n / cold_s, 2) if cold_s else None,
        "warm_per_s": round(n / warm_s, 2) if warm_s else None,
        "compile_s_per_candidate": round(sum(r["compile_s"] for r in compiled) / len(compiled), 3)
        if compiled else 0.0,
        "run_s_per_candidate": round(sum(run_s) / len(run_s), 3) if run_s else None,
        "hit_rate": stats["hit_rate"], "compiles": stats["compiles"], "hits": stats["hits"],
        "verdicts": verdicts,
    }


def table(figures: list[dict[str, Any]]) -> str:
    head = "%-8s %5s %8s %8s %10s %8s %9s  %s" % (
        "language", "cands", "cold/s", "warm/s", "compile s", "run s", "hit rate", "verdicts")
    lines = [head, "-" * len(head)]
    for f in figures:
        rate = "-" if f["hit_rate"] is None else "%.0f%%" % (100 * f["hit_rate"])
        lines.append("%-8s %5d %8.2f %8.2f %10.3f %8.3f %9s  %s" % (
            f["language"], f["candidates"], f["cold_per_s"] or 0, f["warm_per_s"] or 0,
            f["compile_s_per_candidate"], f["run_s_per_candidate"] or 0, rate,
            ", ".join("%s %d" % kv for kv in sorted(f["verdicts"].items()))))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sandbox", choices=("process", "docker"), default="process")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    suite = load_suite(shipped_problems())
    figures = []
    for name in args.languages.split(","):
        language = normalize(name)
        figures.append(measure(suite, language, args.sandbox, args.jobs))
        print("measured %s" % language, file=sys.stderr)
    print("%s sandbox, %d jobs, %s, %d CPUs, Python %s" % (
        args.sandbox, args.jobs, platform.machine(), os.cpu_count() or 0,
        platform.python_version()))
    print(table(figures))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
