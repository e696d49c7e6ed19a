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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="gpt-3.5,failures,hangs")
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
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
    if args.json_out:
        args.json_out.write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
