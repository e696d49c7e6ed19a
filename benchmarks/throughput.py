"""Throughput of the judge's sandboxes on one batch of candidates, in one run.

Builds a batch of at least 1,000 candidates from the shipped suites (each problem's reference
solution, plus wrong and crashing variants), judges the same batch with each sandbox, and
prints candidates/second for each and the ratios to the process sandbox. Ratios, not absolute
times, are the result: these machines are shared and noisy.

    .venv/bin/python benchmarks/throughput.py                       # process + docker (both modes)
    .venv/bin/python benchmarks/throughput.py --sandboxes process --candidates 2000

Timing covers opening the sandbox (starting workers or containers), the reference-solution
timing runs, judging every candidate, and closing the sandbox.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from judge.api import Judge
from judge.execution.batch import with_problems
from judge.candidates.extract import Candidate
from judge.problem.model import Suite, load_suite
from judge.resources import shipped_problems
from judge.sandbox import open_sandbox
from judge.sandbox.base import Limits

SUITES = ("basics", "debugging", "types")


def load_problems() -> Suite:
    problems = []
    for name in SUITES:
        problems.extend(load_suite(shipped_problems() / name).problems)
    return Suite("shipped", shipped_problems(), problems)


def variants(problem) -> list[str]:
    """Realistic candidates: right answers, wrong answers, crashes."""
    name = problem.function_name
    params = ", ".join(problem.parameter_names)
    return [
        problem.optimal_solution,
        "def %s(%s):\n    return None\n" % (name, params),
        "def %s(%s):\n    raise ValueError('not implemented')\n" % (name, params),
    ]


def batch(suite: Suite, count: int) -> list[Candidate]:
    candidates: list[Candidate] = []
    weights = (0.7, 0.15, 0.15)
    per_problem = max(1, -(-count // len(suite.problems)))
    for problem in suite.problems:
        codes = variants(problem)
        for sample in range(per_problem):
            kind = 0 if sample < per_problem * weights[0] else (
                1 if sample < per_problem * (weights[0] + weights[1]) else 2)
            candidates.append(Candidate(problem.identifier, codes[kind], model="bench",
                                        sample=sample))
    return candidates[: max(count, len(candidates))]


def measure(kind: str, suite: Suite, candidates: list[Candidate], jobs: int) -> dict:
    sandbox_kind, isolation = (kind.split("-") + ["warm"])[:2]
    started = time.perf_counter()
    limits = Limits()
    with open_sandbox(sandbox_kind, jobs, isolation,
                      notice=lambda m: print("  " + m, file=sys.stderr), limits=limits) as sandbox:
        with Judge(sandbox, jobs, limits=limits) as judge:
            outcome = judge.run(with_problems(suite, ((c, None) for c in candidates)), source="bench")
    seconds = time.perf_counter() - started
    verdicts: dict[str, int] = {}
    for row in outcome.results:
        verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
    return {"sandbox": kind, "candidates": len(outcome.results), "seconds": round(seconds, 3),
            "per_second": round(len(outcome.results) / seconds, 2), "verdicts": verdicts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sandboxes", default="process,docker,docker-fresh",
                        help="comma list of process, docker, docker-fresh")
    parser.add_argument("--candidates", type=int, default=1044)
    parser.add_argument("--fresh-candidates", type=int, default=None,
                        help="batch size for docker-fresh (default: the same batch)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()

    suite = load_problems()
    candidates = batch(suite, args.candidates)
    print("machine: %s, %d CPUs, Python %s; batch: %d candidates over %d problems; jobs %d"
          % (platform.machine(), os.cpu_count() or 0, platform.python_version(),
             len(candidates), len(suite.problems), args.jobs))
    rows = []
    for kind in args.sandboxes.split(","):
        chosen = candidates
        if kind == "docker-fresh" and args.fresh_candidates:
            chosen = candidates[: args.fresh_candidates]
        try:
            row = measure(kind, suite, chosen, args.jobs)
        except Exception as exc:  # an unavailable engine is reported, not fatal
            print("%-14s unavailable: %s" % (kind, exc))
            continue
        rows.append(row)
        print("%-14s %5d candidates in %7.2fs  %8.1f candidates/s  %s" % (
            kind, row["candidates"], row["seconds"], row["per_second"], row["verdicts"]))
    base = next((r for r in rows if r["sandbox"] == "process"), None)
    if base:
        for row in rows:
            row["ratio_to_process"] = round(row["per_second"] / base["per_second"], 3)
            print("ratio %-14s / process = %.3f" % (row["sandbox"], row["ratio_to_process"]))
    if args.json_out:
        args.json_out.write_text(json.dumps({"cpus": os.cpu_count(), "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
