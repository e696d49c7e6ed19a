"""Where `judge run`'s time goes, in CPU seconds and counts: figures a loaded machine moves
far less than wall clock.

For each corpus (as ``vs_human_eval.py`` builds them: gpt-3.5, failures, hangs), runs
``judge run SUITE --solutions SAMPLES --jobs J --sandbox process`` (default flags) as a
separate process, ``--rounds`` times, and prints per run: wall clock and the load beside
it; CPU of the judge's own process and of everything it started (workers, their test
children, the host walk, the user probes); the distinct candidates judged, the isolated
reruns of failing tests (from each result's ``isolation``), the candidates stopped at their
time budget (``timeout``) and the CPU their tests used; and the CPU floor on J cores (all
that CPU divided by J: no run of this judge on this machine can be shorter).

    .venv/bin/python benchmarks/cpu_breakdown.py [--corpora gpt-3.5,failures,hangs] [--every 4] [--rounds 1]

A corpus may be ``NAME=PATH`` (say, one ``benchmarks/humaneval_corpora.py`` wrote:
``--corpora gpt-4=/tmp/humaneval-gpt-4-samples.jsonl.gz``). ``--split`` also judges each
corpus once inside this process (the API, the process sandbox, default options) and reads
``/proc`` before the sandbox closes, to split the CPU by process: the judge's own, each
worker's own (its job handling, supervision, forks), the test children the workers reaped,
and the check helpers; the candidates' own test time (the records' ``cpu_s``) is printed
beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from vs_human_eval import prepare_corpora, read_jsonl  # noqa: E402

#: runs the judge's command line in this process, then writes its CPU (own, and of the
#: children it waited for) to the file named by argv[1]
RUNNER = """
import json, resource, sys
out = sys.argv.pop(1)
from judge.cli import main
try:
    code = main(sys.argv[1:])
finally:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "w") as handle:
        json.dump({"judge": own.ru_utime + own.ru_stime,
                   "children": kids.ru_utime + kids.ru_stime}, handle)
raise SystemExit(code)
"""


def reruns(isolation: str | None) -> int:
    """How many tests a result's ``isolation`` says were run again alone."""
    found = re.search(r"isolated: tests? (.*)", isolation or "")
    if not found:
        return 0
    count = 0
    for part in found.group(1).split(", "):
        first, _, last = part.partition("-")
        count += int(last) - int(first) + 1 if last else 1
    return count


def one_run(corpus: dict[str, Any], suite: Path, jobs: int, workdir: Path) -> dict[str, Any]:
    output, cpu_file = workdir / "results.jsonl", workdir / "cpu.json"
    output.unlink(missing_ok=True)
    command = [sys.executable, "-c", RUNNER, str(cpu_file), "run", str(suite), "--solutions",
               str(corpus["file"]), "--jobs", str(jobs), "--sandbox", "process", "--output",
               str(output), "--format", "json"]
    load = os.getloadavg()[0]
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(done.stderr.decode(errors="replace")[-800:])
    cpu = json.loads(cpu_file.read_text())
    results = read_jsonl(output)
    distinct = [r for r in results if r.get("duplicate_of") is None]
    stopped = [r for r in distinct if r["verdict"] == "timeout"]
    total = cpu["judge"] + cpu["children"]
    return {"wall_s": round(wall, 2), "load": [round(load, 1), round(os.getloadavg()[0], 1)],
            "judge_cpu_s": round(cpu["judge"], 2), "children_cpu_s": round(cpu["children"], 2),
            "cpu_floor_s": round(total / jobs, 2), "samples": len(results),
            "distinct": len(distinct), "reruns": sum(reruns(r.get("isolation")) for r in distinct),
            "timeouts": len(stopped),
            "timeout_test_cpu_s": round(sum(t.get("time_s") or 0.0 for r in stopped
                                            for t in r["tests"]), 2),
            "verdicts": {v: sum(r["verdict"] == v for r in results)
                         for v in sorted({r["verdict"] for r in results})}}


def _proc_cpu() -> dict[int, tuple[str, list[float]]]:
    """Each live child of this process: (command line, [user, system, reaped children's
    user, system] CPU seconds)."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, tuple[str, list[float]]] = {}
    me = os.getpid()
    for tid in os.listdir("/proc/%d/task" % me):
        try:
            with open("/proc/%d/task/%s/children" % (me, tid)) as handle:
                pids = [int(p) for p in handle.read().split()]
        except OSError:
            continue
        for pid in pids:
            try:
                with open("/proc/%d/stat" % pid) as handle:
                    stat = handle.read()
                with open("/proc/%d/cmdline" % pid, "rb") as handle:
                    command = handle.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            found[pid] = (command, [int(x) / tick for x in fields[11:15]])
    return found


def split_run(corpus: dict[str, Any], suite: Path, jobs: int) -> dict[str, Any]:
    """The CPU of one in-process run, split by process (see the module's docstring)."""
    import resource

    from judge.api import Judge
    from judge.candidates.extract import read_solutions
    from judge.kinds.loader import load_suite
    from judge.running.batch import with_problems
    from judge.sandbox import open_sandbox

    loaded = load_suite(suite)
    with open_sandbox("process", jobs, "warm", notice=lambda m: None) as sandbox:
        with Judge(sandbox, jobs) as judge:
            before, own0 = _proc_cpu(), resource.getrusage(resource.RUSAGE_SELF)
            reaped0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            outcome = judge.run(with_problems(loaded, read_solutions(corpus["file"]),
                                              str(corpus["file"])), source=str(corpus["file"]))
            after, own1 = _proc_cpu(), resource.getrusage(resource.RUSAGE_SELF)
            reaped1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    split = {"workers_own_s": 0.0, "test_children_s": 0.0, "helpers_s": 0.0}
    for pid, (command, now) in after.items():
        was = before.get(pid, (command, [0.0] * 4))[1]
        used = [a - b for a, b in zip(now, was)]
        if "judge_worker" in command:
            split["workers_own_s"] += used[0] + used[1]
            split["test_children_s"] += used[2] + used[3]
        else:
            split["helpers_s"] += sum(used)
    results = outcome.results
    distinct = [r for r in results if r.get("duplicate_of") is None]
    judged = max(1, len(distinct))
    split = {k: round(v, 2) for k, v in split.items()}
    split["judge_own_s"] = round(own1.ru_utime + own1.ru_stime - own0.ru_utime - own0.ru_stime, 2)
    split["ended_children_s"] = round(reaped1.ru_utime + reaped1.ru_stime
                                      - reaped0.ru_utime - reaped0.ru_stime, 2)
    total = sum(split.values())
    tests_cpu = sum(t.get("time_s") or 0.0 for r in distinct for t in r.get("tests", []))
    return {**split, "total_s": round(total, 2), "distinct": len(distinct),
            "ms_per_distinct": round(1000 * total / judged, 2),
            "candidates_test_cpu_s": round(tests_cpu, 2),
            "timeouts": sum(r["verdict"] == "timeout" for r in distinct)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="gpt-3.5,failures,hangs")
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--split", action="store_true",
                        help="also split the CPU by process, in this process (see above)")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    runs: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="cpu-breakdown-") as tmp:
        workdir = Path(tmp)
        suite, corpora = prepare_corpora(args.corpora, args.every, workdir)
        for round_index in range(args.rounds):
            for corpus in corpora:
                run = one_run(corpus, suite, args.jobs, workdir)
                runs.setdefault(corpus["name"], []).append(run)
                print("%s round %d: %s" % (corpus["name"], round_index + 1, json.dumps(run)),
                      flush=True)
                if args.split:
                    split = split_run(corpus, suite, args.jobs)
                    runs[corpus["name"]][-1]["split"] = split
                    print("%s round %d, by process: %s" % (corpus["name"], round_index + 1,
                                                           json.dumps(split)), flush=True)
    if args.json_out:
        args.json_out.write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
