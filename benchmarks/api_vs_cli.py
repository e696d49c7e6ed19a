"""The Python API against the CLI on the same 1,000+ candidates, in one run.

`judge.Judge.judge_many` and `judge run` must give the same verdicts (they are one path) and
the API's throughput must be within 10% of the CLI's. Each is timed end to end the way a user
runs it: the CLI as a subprocess with default flags (`judge run SUITE --solutions FILE
--sandbox S --output OUT`), the API as a fresh interpreter that loads the suite, opens a
`Judge` and drains `judge_many`. Runs alternate (CLI, API, CLI, API...) so machine noise hits
both; the ratio of the medians is the result.

    .venv/bin/python benchmarks/api_vs_cli.py                  # process sandbox, 3 rounds
    .venv/bin/python benchmarks/api_vs_cli.py --sandbox docker --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from throughput import SUITES, batch, load_problems  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

API_SCRIPT = r"""
import json, sys, time
import judge
from judge.problem.model import Suite
from judge.kinds.loader import load_suite
from judge.resources import shipped_problems
started = time.perf_counter()
problems = []
for name in %(suites)r:
    problems.extend(load_suite(shipped_problems() / name).problems)
by_id = {p.identifier: p for p in problems}
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
items = [(by_id[r["problem_id"]], r["solution"], {"model": r.get("model"), "sample": r.get("sample")})
         for r in rows]
with judge.Judge(sandbox=sys.argv[2], jobs=%(jobs)d, notice=lambda m: None) as j:
    verdicts = [r.verdict.value for r in j.judge_many(items)]
print(json.dumps({"seconds": time.perf_counter() - started, "verdicts": verdicts}))
"""


def write_solutions(path: Path, count: int) -> int:
    candidates = batch(load_problems(), count)
    with open(path, "w", encoding="utf-8") as out:
        for c in candidates:
            out.write(json.dumps({"problem_id": c.problem_id, "solution": c.solution,
                                  "model": c.model, "sample": c.sample}) + "\n")
    return len(candidates)


def run_cli(solutions: Path, sandbox: str, suite_dir: Path, jobs: int) -> tuple[float, list[str]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.jsonl"
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "judge", "run", str(suite_dir),
                               "--solutions", str(solutions), "--sandbox", sandbox,
                               "--jobs", str(jobs), "--output", str(out), "--format", "json"],
                              cwd=ROOT, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit("judge run failed:\n" + done.stderr[-2000:])
        verdicts = [json.loads(line)["verdict"] for line in out.read_text().splitlines()]
    return seconds, verdicts


def run_api(solutions: Path, sandbox: str, jobs: int) -> tuple[float, list[str]]:
    script = API_SCRIPT % {"suites": SUITES, "jobs": jobs}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script, str(solutions), sandbox], cwd=ROOT,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit("API run failed:\n" + done.stderr[-2000:])
    return seconds, json.loads(done.stdout.splitlines()[-1])["verdicts"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sandbox", default="process")
    parser.add_argument("--candidates", type=int, default=1044)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        suite_dir = Path(tmp) / "suite"
        suite_dir.mkdir()
        for name in SUITES:  # one folder holding the three shipped suites, for the CLI
            shutil.copytree(ROOT / "problems" / name, suite_dir / name)
        solutions = Path(tmp) / "solutions.jsonl"
        count = write_solutions(solutions, args.candidates)
        print("machine: %s, %d CPUs, Python %s; %d candidates; sandbox %s; jobs %d; %d rounds"
              % (platform.machine(), os.cpu_count() or 0, platform.python_version(), count,
                 args.sandbox, args.jobs, args.rounds))
        cli_times, api_times = [], []
        cli_verdicts = api_verdicts = None
        for round_ in range(args.rounds):
            seconds, cli_verdicts = run_cli(solutions, args.sandbox, suite_dir, args.jobs)
            cli_times.append(seconds)
            seconds, api_verdicts = run_api(solutions, args.sandbox, args.jobs)
            api_times.append(seconds)
            print("  round %d: cli %.1fs (%.0f/s), api %.1fs (%.0f/s)" % (
                round_ + 1, cli_times[-1], count / cli_times[-1], api_times[-1],
                count / api_times[-1]))
    same = cli_verdicts == api_verdicts
    if not same:
        differ = [(i, c, a) for i, (c, a) in enumerate(zip(cli_verdicts, api_verdicts)) if c != a]
        print("differences (index, cli, api): %s%s" % (differ[:10], " ..." if len(differ) > 10
                                                         else ""))
    cli_rate = count / statistics.median(cli_times)
    api_rate = count / statistics.median(api_times)
    print("verdicts identical: %s (%d candidates)" % (same, count))
    print("median candidates/s: cli %.1f, api %.1f; api/cli = %.2f (target >= 0.90)"
          % (cli_rate, api_rate, api_rate / cli_rate))
    return 0 if same and api_rate / cli_rate >= 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())
