"""Blocked candidates lending their core: sleepers with and without lending, same verdicts.

N distinct candidates that sleep forever (and as many that pass) on a shipped problem,
judged with ``Judge(sandbox=ProcessSandbox(size=J), jobs=J)`` (lending, the default) and
with ``ProcessSandbox(size=J, overcommit=0)`` (one candidate per core, as before), in
interleaved rounds. A sleeper's cost is wall-clock time, not CPU, so this measurement holds
on a loaded machine too: without lending N sleepers cost about N x the wall budget / J;
with it, about N x the budget / (4 J). Prints the medians, the ratio and whether every
verdict (and every test's message) is the same both ways.

    .venv/bin/python benchmarks/sleepers.py [--sleepers 16] [--jobs 2] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import judge
from judge.sandbox.backends.process.sandbox import ProcessSandbox

SLEEPER = "import time\n\ndef digital_root(n):\n    time.sleep(30)\n# sleeper %d\n"
PASSING = ("def digital_root(n):\n    while n >= 10:\n        n = sum(map(int, str(n)))\n"
           "    return n\n# passing %d\n")


def run(items: list, jobs: int, overcommit: int | None, budget: float) -> tuple[float, list]:
    box = ProcessSandbox(size=jobs, overcommit=overcommit)
    try:
        with judge.Judge(sandbox=box, jobs=jobs, time_limit_s=budget, budget_s=budget) as j:
            j.open()
            started = time.perf_counter()
            results = list(j.judge_many(items))
            seconds = time.perf_counter() - started
    finally:
        box.close()
    return seconds, [(r.verdict.value, [(t.verdict.value, t.message) for t in r.tests])
                     for r in results]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sleepers", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--budget", type=float, default=3.0, help="CPU budget (HumanEval: 3)")
    args = parser.parse_args(argv)
    problem = judge.load_suite("problems/basics")["basics_digital_root"]
    items = []
    for i in range(args.sleepers):
        items += [(problem, SLEEPER % i), (problem, PASSING % i)]
    times: dict[str, list[float]] = {"lending": [], "one per core": []}
    verdicts: dict[str, list] = {}
    load = os.getloadavg()[0]
    for round_index in range(args.rounds):
        order = ["lending", "one per core"][::(-1) ** round_index]
        for name in order:
            seconds, got = run(items, args.jobs, None if name == "lending" else 0, args.budget)
            times[name].append(seconds)
            verdicts.setdefault(name, got)
            print("round %d %s: %.1f s" % (round_index + 1, name, seconds), flush=True)
    lend, plain = statistics.median(times["lending"]), statistics.median(times["one per core"])
    print("%d sleepers + %d passing, %d jobs, load %.1f -> %.1f: lending %.1f s, one per core "
          "%.1f s (%.2fx); same verdicts and messages: %s" % (
              args.sleepers, args.sleepers, args.jobs, load, os.getloadavg()[0], lend, plain,
              plain / lend, verdicts["lending"] == verdicts["one per core"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
