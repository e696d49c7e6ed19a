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
    .venv/bin/python benchmarks/ray_overhead.py --corpus easy --candidates 300 --rounds 2

``--process-per-run``: each run in a Python process of its own, as users run them (``judge
run`` is a process per run): interpreter start, imports and opening are then paid by both
sides in every round; the local side also walks the host's world-writable places (the
process sandbox, once per process), while the Ray side finds the actors an earlier round
left on the cluster (detached, named, kept ``JUDGE_RAY_KEEP_S``: see docs/scale.md), which
walked it once. The first Ray round starts them: the median of 3 rounds shows a fresh
driver on a cluster used before. In one process (the default) both sides reuse that walk
after their first run.

``--reuse``: one Judge per side opened once and kept across the rounds, as a training loop
keeps its judge: what is left is each candidate's cost, on warm actors and a warm sandbox.

``--corpus easy``: distinct easy candidates instead (issue 25's Ray target): every one a
reference solution of the shipped suites, made distinct by a harmless variation (a comment
and a renamed unused local), so each is judged (no duplicate is skipped) and each passes
quickly: what is left to compare is the cost per candidate of getting it to a node and back.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# every Ray process of this benchmark on the loopback interface only
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge.problem.model import Suite  # noqa: E402  (first: import order)
from judge.api import Judge  # noqa: E402
from judge.running.batch import with_problems  # noqa: E402
from judge.candidates.extract import Candidate  # noqa: E402
from throughput import batch, load_problems  # noqa: E402


def easy_distinct(suite: Suite, count: int, start: int = 0) -> list[Candidate]:
    """``count`` distinct easy candidates: the reference solutions in turn, each with its
    own harmless variation (numbered from ``start``), so no two have the same code."""
    problems = [p for p in suite.problems if p.optimal_solution]
    out = []
    for index in range(start, start + count):
        problem = problems[index % len(problems)]
        code = "%s\n# variant %d\n_unused_%d = %d\n" % (
            problem.optimal_solution.rstrip("\n"), index, index, index)
        out.append(Candidate(problem.identifier, code, model="bench", sample=index))
    return out


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


def signature(rows: list[dict]) -> list[list]:
    return [[r["problem_id"], r["sample"], r["verdict"], [t["verdict"] for t in r["tests"]]]
            for r in rows]


def corpus(name: str, count: int, round_: int = 0) -> tuple[Suite, list[Candidate]]:
    suite = load_problems()
    if name == "easy":  # new code every round: nothing judged before
        return suite, easy_distinct(suite, count, start=round_ * count)
    return suite, batch(suite, count)[:count]


def reused(args: argparse.Namespace, address: str, per_node: int
           ) -> tuple[list[float], list[float], bool]:
    """``--reuse``: one local Judge and one Ray Judge, each opened once and kept (as a
    training loop keeps its judge); a first round warms both (sandbox workers, the host
    walk, every node's reference timings) and is not counted; each round judges the corpus
    on both (the easy corpus: new code every round). Candidates/s of each round."""
    timing = not args.no_reference_timing
    local_rates: list[float] = []
    ray_rates: list[float] = []
    same = True
    with Judge(sandbox=args.sandbox, jobs=args.jobs, reference_timing=timing) as local, \
            Judge(sandbox=args.sandbox, jobs=per_node, executor="ray", ray_address=address,
                  reference_timing=timing) as remote:
        for round_ in range(args.rounds + 1):
            suite, candidates = corpus(args.corpus, args.candidates, round_)
            rows = {}
            for name, judge, rates in (("local", local, local_rates),
                                       ("ray", remote, ray_rates)):
                started = time.perf_counter()
                outcome = judge.run(with_problems(suite, ((c, None) for c in candidates)),
                                    source="bench")
                seconds = time.perf_counter() - started
                rows[name] = signature(outcome.results)
                if round_:
                    rates.append(len(outcome.results) / seconds)
                print("round %d %-6s %d in %.1fs = %.1f/s%s" % (
                    round_, name + ":", len(outcome.results), seconds,
                    len(outcome.results) / seconds, "" if round_ else " (warm-up, not counted)"),
                      flush=True)
            same &= rows["local"] == rows["ray"]
        info = remote.describe()
    print("ray: %s chunks in all (actor calls), %d retried" % (info.get("chunks"),
                                                               info["retried"]))
    return local_rates, ray_rates, same


def run_in_process(spec: dict) -> tuple[float, float, list[list]]:
    """(seconds, seconds not judging, verdicts) of one run in a new Python process: the
    seconds from starting the process to its end; not judging: all but the run itself
    (interpreter start, imports, opening)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)],
                          capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError("the %s run failed: %s" % (spec.get("executor", "local"),
                                                      done.stderr[-2000:]))
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return seconds, seconds - answer["seconds"] + answer["opened"], answer["signature"]


def child(spec: dict) -> int:
    """One run (``--child``): the corpus judged once; JSON on stdout's last line."""
    suite, candidates = corpus(spec.pop("corpus"), spec.pop("candidates"))
    seconds, opened, rows = timed_run(suite, candidates, **spec)
    print(json.dumps({"seconds": seconds, "opened": opened, "signature": signature(rows)}))
    return 0


def one_run(args: argparse.Namespace, suite: Suite, candidates: list[Candidate],
            **judge_args) -> tuple[float, float, list[list]]:
    if args.process_per_run:
        return run_in_process(dict(judge_args, corpus=args.corpus,
                                   candidates=args.candidates))
    seconds, opened, rows = timed_run(suite, candidates, **judge_args)
    return seconds, opened, signature(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidates", type=int, default=1000)
    parser.add_argument("--corpus", default="mixed", choices=("mixed", "easy"),
                        help="mixed (default): right, wrong and crashing candidates of the "
                             "shipped suites; easy: distinct reference solutions (all pass)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                        help="candidates judged at once in both runs (default: CPU count)")
    parser.add_argument("--sandbox", default="process", choices=("process", "docker"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-reference-timing", action="store_true",
                        help="fixed time limits: leaves out the reference-solution timing "
                             "that every node does for itself")
    parser.add_argument("--process-per-run", action="store_true",
                        help="each run in a new Python process, as 'judge run' is")
    parser.add_argument("--reuse", action="store_true",
                        help="one Judge per side kept open across rounds, as a training "
                             "loop keeps it (a warm-up round first, not counted)")
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(json.loads(args.child))

    import ray
    from ray.cluster_utils import Cluster

    suite, candidates = corpus(args.corpus, args.candidates)
    per_node = max(1, args.jobs // 2)
    started = time.perf_counter()
    store = 100 * 2**20  # per node: only problems travel through the object store
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": per_node, "include_dashboard": False, "object_store_memory": store})
    cluster.add_node(num_cpus=per_node, object_store_memory=store)
    cluster.wait_for_nodes()
    print("2-node Ray cluster on %s up in %.1fs; %d %s candidates (%d distinct); %s sandbox; "
          "%d at once (local: jobs %d; ray: 2 nodes x jobs %d)%s" % (
              cluster.address, time.perf_counter() - started, len(candidates), args.corpus,
              len({(c.problem_id, c.solution) for c in candidates}), args.sandbox,
              args.jobs, args.jobs, per_node,
              "; a process per run" if args.process_per_run else
              "; one Judge per side, reused" if args.reuse else ""))
    local_rates, ray_rates, same = [], [], True
    local_steady: list[float] = []
    ray_steady: list[float] = []
    reference = None
    try:
        if args.reuse:
            local_rates, ray_rates, same = reused(args, cluster.address, per_node)
            local_steady, ray_steady = local_rates, ray_rates
        for round_ in range(0 if args.reuse else args.rounds):
            timing = not args.no_reference_timing
            seconds, opened, rows = one_run(args, suite, candidates, sandbox=args.sandbox,
                                            jobs=args.jobs, reference_timing=timing)
            local_rates.append(len(rows) / seconds)
            local_steady.append(len(rows) / (seconds - opened))
            reference = reference or rows
            same &= rows == reference
            print("round %d local: %d in %.1fs = %.1f/s (open %.1fs)" % (
                round_ + 1, len(rows), seconds, local_rates[-1], opened), flush=True)
            seconds, opened, rows = one_run(args, suite, candidates, sandbox=args.sandbox,
                                            jobs=per_node, executor="ray",
                                            ray_address=cluster.address,
                                            reference_timing=timing)
            ray_rates.append(len(rows) / seconds)
            ray_steady.append(len(rows) / (seconds - opened))
            same &= rows == reference
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
