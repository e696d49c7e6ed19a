"""Program judging against the one-subprocess-per-test pattern RL stacks use.

The baseline is what the APPS/TACO testing utility (the one verl's code reward embeds) does
for standard-input problems, reduced to its core: for each test, start ``python3`` on the
candidate's code with the test's input, a timeout, and compare the output's tokens; stop at
the first failing test. The judge runs the same candidates on the same problems (process
sandbox, contest rule: stop at the first failure) through its one judging path
(``BatchRunner``). Both use 2 workers; the script prints both times, the ratio and whether
every candidate got the same verdict.

    python benchmarks/programs_vs_subprocess.py [--candidates 40] [--tests 30] [--rounds 1]

With ``--rounds N`` the two run in turn N times (interleaved, so a change of the machine's
load falls on both) and the medians are reported beside each round's ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from judge.candidates.extract import Candidate
from judge.running.batch import BatchRunner
from judge.running.executor import Executor
from judge.languages.sandbox import for_languages
from judge.problem.program import program_from_data
from judge.sandbox import open_sandbox
from judge.sandbox.base import Limits

TIME_S = 1.0
RIGHT = "a, b = map(int, input().split())\nprint(a + b)\n"
#: the failure modes of generated code: wrong, crash, slow (one in ten of each)
KINDS = [("pass", RIGHT),
         ("wrong_answer", "a, b = map(int, input().split())\nprint(a - b if a > 7 else a + b)\n"),
         ("runtime_error", "a, b = map(int, input().split())\nprint([a + b][a // 9])\n"),
         ("timeout", "a, b = map(int, input().split())\nwhile a > 5:\n    pass\nprint(a + b)\n")]
WEIGHTS = [7, 1, 1, 1]


def candidates(count: int) -> list[tuple[str, str]]:
    pool = [kind for kind, weight in zip(KINDS, WEIGHTS) for _ in range(weight)]
    # distinct code (a comment), so no duplicate is skipped by either side
    return [(kind, code + "# %d\n" % i) for i, (kind, code) in
            ((i, pool[i % len(pool)]) for i in range(count))]


def baseline(code: str, tests: list[tuple[str, str]]) -> str:
    for stdin, expected in tests:
        try:
            run = subprocess.run([sys.executable, "-c", code], input=stdin.encode(),
                                 capture_output=True, timeout=TIME_S)
        except subprocess.TimeoutExpired:
            return "timeout"
        if run.returncode != 0:
            return "runtime_error"
        if run.stdout.split() != expected.encode().split():
            return "wrong_answer"
    return "pass"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=40)
    parser.add_argument("--tests", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    tests = [("%d %d\n" % (i, 2 * i), "%d\n" % (3 * i)) for i in range(args.tests)]
    items = candidates(args.candidates)
    with tempfile.TemporaryDirectory() as folder:
        problem = program_from_data(
            {"kind": "program", "identifier": "add", "statement": "Add two numbers.",
             "tests": [{"stdin": s, "expected": e} for s, e in tests],
             "limits": {"time_limit_s": TIME_S}, "contest": {"stop_at_first_failure": True}},
            str(Path(folder) / "add.json"), Path(folder))
        sandbox = for_languages(open_sandbox("process", 2), 2)
        rounds: list[tuple[float, float]] = []
        try:
            executor = Executor(sandbox, Limits(time_limit_s=TIME_S))
            runner = BatchRunner(executor, 2, dedup=False)
            stream = [(Candidate("add", code, model="bench", sample=i), None)
                      for i, (_, code) in enumerate(items)]
            # warm: the first job opens the workers
            list(runner.results([(problem, Candidate("add", RIGHT, model="warm"), None)]))
            for _ in range(args.rounds):
                started = time.monotonic()
                with ThreadPoolExecutor(2) as pool:
                    theirs = list(pool.map(lambda item: baseline(item[1], tests), items))
                baseline_s = time.monotonic() - started
                started = time.monotonic()
                ours = [r.verdict.value for r in
                        runner.results([(problem, c, issue) for c, issue in stream])]
                judge_s = time.monotonic() - started
                rounds.append((baseline_s, judge_s))
                print("round %d: one subprocess per test %.2f s, judge %.2f s, ratio %.2fx"
                      % (len(rounds), baseline_s, judge_s, baseline_s / judge_s), flush=True)
        finally:
            sandbox.close()
    baseline_s = statistics.median(b for b, _ in rounds)
    judge_s = statistics.median(j for _, j in rounds)
    expected = [kind for kind, _ in items]
    print("candidates %d x tests %d, 2 workers each" % (len(items), len(tests)))
    print("one subprocess per test: %.2f s (%.1f candidates/s), verdicts as built: %d/%d" % (
        baseline_s, len(items) / baseline_s, sum(a == b for a, b in zip(theirs, expected)),
        len(items)))
    print("judge (process sandbox):  %.2f s (%.1f candidates/s), verdicts as built: %d/%d" % (
        judge_s, len(items) / judge_s, sum(a == b for a, b in zip(ours, expected)), len(items)))
    print("same verdicts: %d/%d; ratio of the medians %.2fx (median of the rounds' ratios "
          "%.2fx, %d rounds)" % (sum(a == b for a, b in zip(ours, theirs)), len(items),
                                 baseline_s / judge_s,
                                 statistics.median(b / j for b, j in rounds), len(rounds)))


if __name__ == "__main__":
    main()
