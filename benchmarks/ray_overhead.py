"""Ray's overhead on one machine: the same batch judged locally and on a 2-node Ray cluster.

One machine cannot show Ray's speed-up, only what it costs. The batch (default 1,000
candidates from the shipped suites: reference solutions, wrong answers, crashes) is judged

- locally: ``judge.Judge(sandbox, jobs=N).run(...)`` (what ``judge run`` does), and
- on a real 2-node Ray cluster on this machine (``ray.cluster_utils.Cluster``: a head node
  and a worker node, each with its own raylet and object store, each given N/2 CPUs), through
  ``judge.Judge(executor="ray", ray_address=..., jobs=N/2)``: one actor per node with a warm
  sandbox of N/2 workers, so both runs judge N candidates at once;

in alternating rounds, and reports candidates/s of each, the ratio ray/local (the target is
>= 0.8) and whether every verdict (per test) is equal. Cluster start-up is not timed; actor
start-up (opening each node's sandbox) is.

    .venv/bin/python benchmarks/ray_overhead.py                  # 1,000 candidates, 2 rounds
    .venv/bin/python benchmarks/ray_overhead.py --candidates 2000 --rounds 3 --sandbox docker
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

# every Ray process of this benchmark on the loopback interface only
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge.problem.model import Suite  # noqa: E402  (first: import order)
from judge.api import Judge  # noqa: E402
from judge.execution.batch import with_problems  # noqa: E402
from throughput import batch, load_problems  # noqa: E402


def timed_run(suite: Suite, candidates: list, **judge_args) -> tuple[float, float, list[dict]]:
    """(seconds end to end, seconds of which opening: the sandbox, or Ray's actors with
    theirs, results)."""
    started = time.perf_counter()
    with Judge(**judge_args) as judge:
        judge.open()
        opened = time.perf_counter() - started
        outcome = judge.run(with_problems(suite, ((c, None) for c in candidates)),
                            source="bench")
        seconds = time.perf_counter() - started
    return seconds, opened, outcome.results


def signature(rows: list[dict]) -> list[tuple]:
    return [(r["problem_id"], r["sample"], r["verdict"], tuple(t["verdict"] for t in r["tests"]))
            for r in rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidates", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                        help="candidates judged at once in both runs (default: CPU count)")
    parser.add_argument("--sandbox", default="process", choices=("process", "docker"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-reference-timing", action="store_true",
                        help="fixed time limits: leaves out the reference-solution timing "
                             "that every node does for itself")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()

    import ray
    from ray.cluster_utils import Cluster

    suite = load_problems()
    candidates = batch(suite, args.candidates)[: args.candidates]
    per_node = max(1, args.jobs // 2)
    started = time.perf_counter()
    store = 100 * 2**20  # per node: only problems travel through the object store
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": per_node, "include_dashboard": False, "object_store_memory": store})
    cluster.add_node(num_cpus=per_node, object_store_memory=store)
    cluster.wait_for_nodes()
    print("2-node Ray cluster on %s up in %.1fs; %d candidates; %s sandbox; %d at once "
          "(local: jobs %d; ray: 2 nodes x jobs %d)" % (
              cluster.address, time.perf_counter() - started, len(candidates), args.sandbox,
              args.jobs, args.jobs, per_node))
    local_rates, ray_rates, same = [], [], True
    local_steady: list[float] = []
    ray_steady: list[float] = []
    reference = None
    try:
        for round_ in range(args.rounds):
            timing = not args.no_reference_timing
            seconds, opened, rows = timed_run(suite, candidates, sandbox=args.sandbox,
                                              jobs=args.jobs, reference_timing=timing)
            local_rates.append(len(rows) / seconds)
            local_steady.append(len(rows) / (seconds - opened))
            reference = reference or signature(rows)
            same &= signature(rows) == reference
            print("round %d local: %d in %.1fs = %.1f/s (open %.1fs)" % (
                round_ + 1, len(rows), seconds, local_rates[-1], opened), flush=True)
            seconds, opened, rows = timed_run(suite, candidates, sandbox=args.sandbox,
                                              jobs=per_node, executor="ray",
                                              ray_address=cluster.address,
                                              reference_timing=timing)
            ray_rates.append(len(rows) / seconds)
            ray_steady.append(len(rows) / (seconds - opened))
            same &= signature(rows) == reference
            print("round %d ray:   %d in %.1fs = %.1f/s (open %.1fs)" % (
                round_ + 1, len(rows), seconds, ray_rates[-1], opened), flush=True)
    finally:
        ray.shutdown()
        cluster.shutdown()
    local, remote = statistics.median(local_rates), statistics.median(ray_rates)
    ratio = remote / local
    print("median local %.1f/s, ray %.1f/s: ratio %.2f (target >= 0.8: %s); verdicts equal: %s"
          % (local, remote, ratio, "met" if ratio >= 0.8 else "MISSED", same))
    steady = statistics.median(ray_steady) / statistics.median(local_steady)
    print("after opening (local sandbox; ray actors and their sandboxes): local %.1f/s, "
          "ray %.1f/s: ratio %.2f" % (statistics.median(local_steady),
                                      statistics.median(ray_steady), steady))
    if args.json_out:
        args.json_out.write_text(json.dumps({"local": local_rates, "ray": ray_rates,
                                             "ratio": ratio, "steady_ratio": steady,
                                             "same_verdicts": same}))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
