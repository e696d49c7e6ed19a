"""Load test of `judge serve` on 127.0.0.1, as RL training makes it: N requests from C
concurrent clients, ~40% of them failing, looping or crashing, programs and functions.

Judges every candidate first in one process (`judge.Judge.judge_many`, warm, the same jobs
and limits: the reference verdicts and the in-process throughput), then starts a real server
(`judge serve SUITES --port 0`) and sends every candidate as one `POST /v1/judge` from C
concurrent clients (httpx, one connection each), and reports:

- lost requests (no answer, a transport error) and `sandbox_error` verdicts: both must be 0;
- every answer's verdict and per-test verdicts against the in-process ones;
- p50 / p99 latency (send to final answer, 429 waits included) and candidates/s, and the
  service / in-process throughput ratio (target >= 0.8);
- the server's resident memory after warm-up, and that SIGTERM leaves nothing running.

The mix (per 10 candidates; each candidate's code is unique, so nothing is deduplicated):
3 right functions, 3 right programs, 1 wrong function, 1 crashing program or function,
1 looping function or program, 1 program that does not compile.

    .venv/bin/python benchmarks/service_load.py --requests 200 --clients 32    # smoke run
    .venv/bin/python benchmarks/service_load.py --requests 10000 --clients 128 # full run
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
JUDGE = [sys.executable, "-m", "judge"]


# ---- candidates ---------------------------------------------------------------------------

def candidates(suite: str, count: int) -> list[dict[str, Any]]:
    """``count`` solutions lines over ``suite``: right answers, wrong answers, crashes,
    compile errors and a raw model reply with prose and a fence."""
    sys.path.insert(0, str(ROOT))
    from judge.kinds.loader import load_suite

    problems = [p for p in load_suite(suite).problems if p.optimal_solution]
    rows = []
    for index in range(count):
        problem = problems[index % len(problems)]
        name, params = problem.function_name, ", ".join(problem.parameter_names)
        kind = index % 10
        if kind < 6:
            code = problem.optimal_solution
        elif kind == 6:
            code = "def %s(%s):\n    return None\n" % (name, params)
        elif kind == 7:
            code = "def %s(%s):\n    raise ValueError('no')\n" % (name, params)
        elif kind == 8:
            code = "def %s(%s)\n    return 1\n" % (name, params)
        else:
            code = "Here is my answer:\n\n```python\n%s```\nIt is fast." % problem.optimal_solution
        rows.append({"problem_id": problem.identifier, "solution": code, "model": "load",
                     "sample": index})
    return rows


def cli_verdicts(suite: str, rows: list[dict[str, Any]], sandbox: str, jobs: int,
                 workdir: Path) -> dict[int, tuple[str, list[str]]]:
    """Verdicts of `judge run` on the same candidates: sample -> (verdict, test verdicts)."""
    solutions = workdir / "load-solutions.jsonl"
    output = workdir / "load-cli-results.jsonl"
    solutions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    subprocess.run(JUDGE + ["run", suite, "--solutions", str(solutions), "--output",
                            str(output), "--sandbox", sandbox, "--jobs", str(jobs)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=900, cwd=ROOT)
    found = {}
    for line in output.read_text().splitlines():
        row = json.loads(line)
        found[row["sample"]] = (row["verdict"], [t["verdict"] for t in row["tests"]])
    return found


def api_rate(suite: str, rows: list[dict[str, Any]], sandbox: str, jobs: int) -> float:
    """Candidates/s of the in-process API on the same candidates: ``judge.Judge`` opened
    (warm) before the clock starts, ``judge_many`` with ``jobs`` at once; the baseline the
    service's rate is compared with (what HTTP, JSON and admission cost)."""
    sys.path.insert(0, str(ROOT))
    from judge.kinds.loader import load_suite
    from judge.api import Judge

    by_id = load_suite(suite).by_id
    items = [(by_id[r["problem_id"]], r["solution"], {"model": r["model"],
                                                     "sample": r["sample"]}) for r in rows]
    with Judge(sandbox, jobs) as judge:
        list(judge.judge_many(items[: jobs * 2]))  # warm: workers up, references timed
        started = time.monotonic()
        done = sum(1 for _ in judge.judge_many(items))
        return done / (time.monotonic() - started)


PROGRAMS = {
    "load_sum": ("Print the sum of the integers on standard input.",
                 [("1 2\n", "3\n"), ("40 2\n", "42\n"), ("-5 5 7\n", "7\n")],
                 "print(sum(map(int, open(0).read().split())))\n"),
    "load_reverse": ("Print each line reversed.",
                     [("abc\n", "cba\n"), ("hello\nxy\n", "olleh\nyx\n")],
                     "import sys\nfor line in sys.stdin.read().split('\\n'):\n"
                     "    if line:\n        print(line[::-1])\n"),
    "load_count": ("Print the number of words.",
                   [("a b c\n", "3\n"), ("\n", "0\n"), ("x\n", "1\n")],
                   "print(len(open(0).read().split()))\n"),
}


def program_suite(folder: Path) -> Path:
    """Three small program problems (stdin/stdout), written as problem files."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, (statement, tests, _) in PROGRAMS.items():
        (folder / (name + ".json")).write_text(json.dumps({
            "kind": "program", "identifier": name, "statement": statement,
            "tests": [{"stdin": i, "expected": o} for i, o in tests]}))
    return folder


def rl_candidates(suite: str, count: int) -> list[dict[str, Any]]:
    """``count`` requests as RL makes them (see the module doc for the mix)."""
    sys.path.insert(0, str(ROOT))
    from judge.kinds.loader import load_suite

    functions = [p for p in load_suite(suite).problems if p.optimal_solution]
    rows = []
    for index in range(count):
        kind = index % 10
        tag = "# candidate %d\n" % index  # unique code: no deduplication on either side
        function = functions[index % len(functions)]
        name, params = function.function_name, ", ".join(function.parameter_names)
        program = list(PROGRAMS)[index % len(PROGRAMS)]
        if kind < 3:
            row = (function.identifier, tag + function.optimal_solution)
        elif kind < 6:
            row = (program, tag + PROGRAMS[program][2])
        elif kind == 6:
            row = (function.identifier, tag + "def %s(%s):\n    return None\n" % (name, params))
        elif kind == 7:
            row = ((function.identifier, tag + "def %s(%s):\n    raise ValueError('no')\n"
                    % (name, params)) if index % 20 < 10 else
                   (program, tag + "import sys\nsys.stdout.write('1')\nsys.exit(3)\n"))
        elif kind == 8:
            row = ((function.identifier, tag + "def %s(%s):\n    while True:\n        pass\n"
                    % (name, params)) if index % 20 < 10 else
                   (program, tag + "while True:\n    pass\n"))
        else:
            row = (program, tag + "print(sum(map(int, open(0).read().split()))\n")
        rows.append({"problem_id": row[0], "solution": row[1], "model": "load",
                     "sample": index})
    return rows


def in_process(suites: list[str], rows: list[dict[str, Any]], sandbox: str, jobs: int,
               options: dict[str, Any]) -> tuple[dict[int, tuple[str, list[str]]], float]:
    """Verdicts and candidates/s of ``judge.Judge.judge_many`` on the same candidates (warm
    before the clock starts)."""
    sys.path.insert(0, str(ROOT))
    from judge.api import Judge
    from judge.kinds.loader import load_suite

    by_id = {p.identifier: p for suite in suites for p in load_suite(suite).problems}
    items = [(by_id[r["problem_id"]], r["solution"], {"model": r["model"],
                                                     "sample": r["sample"]}) for r in rows]
    warm = [(by_id[r["problem_id"]], r["solution"] + "# warm\n", {"sample": -1})
            for r in rows[:jobs * 10]]
    with Judge(sandbox, jobs, **options) as judge:
        list(judge.judge_many(warm))  # workers up, references timed
        started = time.monotonic()
        found = {r.sample: (r.verdict.value, [t.verdict.value for t in r.tests])
                 for r in judge.judge_many(items)}
        return found, len(items) / (time.monotonic() - started)


# ---- the server ---------------------------------------------------------------------------

@dataclass
class Server:
    process: subprocess.Popen
    url: str
    stderr_path: Path
    rss: list[tuple[float, int]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _sampler: threading.Thread | None = None

    @classmethod
    def start(cls, args: list[str], env: dict[str, str] | None = None,
              timeout: float = 120.0) -> "Server":
        """`judge serve ARGS --port 0`, waiting until it listens and /v1/health answers."""
        stderr_path = Path(tempfile.mkstemp(prefix="judge-serve-", suffix=".log")[1])
        handle = open(stderr_path, "w")
        process = subprocess.Popen(JUDGE + ["serve", *args, "--host", "127.0.0.1",
                                            "--port", "0"], cwd=ROOT, stdout=handle,
                                   stderr=handle, env={**os.environ, **(env or {})})
        handle.close()
        deadline = time.monotonic() + timeout
        url = None
        while time.monotonic() < deadline:
            text = stderr_path.read_text()
            for line in text.splitlines():
                if line.startswith("judge serve: http://"):
                    url = line.split()[2]
            if url:
                try:
                    httpx.get(url + "/v1/health", timeout=5,
                              headers=_auth(env)).raise_for_status()
                    return cls(process, url, stderr_path)
                except httpx.HTTPError:
                    pass
            if process.poll() is not None:
                raise RuntimeError("judge serve exited: %s" % stderr_path.read_text())
            time.sleep(0.1)
        process.kill()
        raise RuntimeError("judge serve did not start: %s" % stderr_path.read_text())

    def descendants(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def sample_memory(self, every: float = 0.2) -> None:
        def loop() -> None:
            proc = psutil.Process(self.process.pid)
            while not self._stop.wait(every):
                try:
                    self.rss.append((time.monotonic(), proc.memory_info().rss))
                except psutil.NoSuchProcess:
                    return
        self._sampler = threading.Thread(target=loop, daemon=True)
        self._sampler.start()

    def stop(self, timeout: float = 60.0) -> tuple[int, str, list[psutil.Process]]:
        """SIGTERM, wait; returns (exit code, log, processes of the server still alive)."""
        self._stop.set()
        started = self.descendants()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        deadline = time.monotonic() + 10
        alive = [p for p in started if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        while alive and time.monotonic() < deadline:
            time.sleep(0.2)
            alive = [p for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        log = self.stderr_path.read_text()
        self.stderr_path.unlink(missing_ok=True)
        return code, log, alive


def _auth(env: dict[str, str] | None) -> dict[str, str]:
    token = (env or {}).get("JUDGE_API_TOKEN")
    return {"Authorization": "Bearer %s" % token} if token else {}


# ---- the load -----------------------------------------------------------------------------

@dataclass
class LoadResult:
    answers: dict[int, dict[str, Any]]
    statuses: dict[int, int]
    retries_429: int
    errors: list[str]
    seconds: float
    #: request index -> seconds from first send to the final answer (429 waits included)
    latencies: dict[int, float] = field(default_factory=dict)


async def load(url: str, rows: list[dict[str, Any]], clients: int, budget_s: float,
               headers: dict[str, str] | None = None) -> LoadResult:
    """Send every row as one POST /v1/judge from ``clients`` concurrent clients."""
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(len(rows)):
        queue.put_nowait(index)
    answers: dict[int, dict[str, Any]] = {}
    statuses: dict[int, int] = {}
    errors: list[str] = []
    retries = 0
    started = time.monotonic()

    async def client() -> None:
        nonlocal retries
        async with httpx.AsyncClient(base_url=url, timeout=120, headers=headers,
                                     limits=httpx.Limits(max_connections=1)) as http:
            while not queue.empty() and time.monotonic() - started < budget_s:
                index = queue.get_nowait()
                sent = time.monotonic()
                for _ in range(50):  # bounded retries on 429
                    try:
                        response = await http.post("/v1/judge", json=rows[index])
                    except httpx.HTTPError as exc:
                        errors.append("request %d: %s" % (index, exc))
                        break
                    if response.status_code == 429:
                        retries += 1
                        await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
                        continue
                    statuses[index] = response.status_code
                    answers[index] = response.json()
                    latencies[index] = time.monotonic() - sent
                    break

    latencies: dict[int, float] = {}
    await asyncio.gather(*(client() for _ in range(clients)))
    return LoadResult(answers, statuses, retries, errors, time.monotonic() - started,
                      latencies)


def compare(rows: list[dict[str, Any]], result: LoadResult,
            reference: dict[int, tuple[str, list[str]]]) -> list[str]:
    """Every difference between the service's answers and the CLI's verdicts."""
    problems = []
    for index, row in enumerate(rows):
        answer = result.answers.get(index)
        if answer is None:
            problems.append("request %d: no answer" % index)
            continue
        if result.statuses[index] != 200:
            problems.append("request %d: status %d %s" % (index, result.statuses[index],
                                                         answer))
            continue
        got = (answer["verdict"], [t["verdict"] for t in answer["tests"]])
        if got != reference[row["sample"]]:
            problems.append("request %d: service %s, cli %s" % (index, got,
                                                               reference[row["sample"]]))
    return problems


def memory_growth(rss: list[tuple[float, int]], warmup_fraction: float = 0.2) -> tuple[int, int]:
    """(RSS after warm-up, highest RSS afterwards), in bytes."""
    if not rss:
        return 0, 0
    start = rss[int(len(rss) * warmup_fraction)][1]
    return start, max(r for _, r in rss[int(len(rss) * warmup_fraction):])


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default=str(ROOT / "problems" / "basics"))
    parser.add_argument("--requests", type=int, default=10000)
    parser.add_argument("--clients", type=int, default=128)
    parser.add_argument("--sandbox", default="process", choices=("process", "docker"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--queue", type=int, default=256)
    parser.add_argument("--time-limit", type=float, default=0.5,
                        help="per-test CPU limit, both sides (a looping candidate's cost)")
    parser.add_argument("--time-floor", type=float, default=0.25)
    parser.add_argument("--budget", type=float, default=3600.0, help="seconds for the load")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        programs = str(program_suite(Path(tmp) / "programs"))
        suites = [args.suite, programs]
        rows = rl_candidates(args.suite, args.requests)
        options = dict(time_limit_s=args.time_limit, time_floor_s=args.time_floor)
        reference, api = in_process(suites, rows, args.sandbox, args.jobs, options)
        server = Server.start([*suites, "--sandbox", args.sandbox, "--jobs", str(args.jobs),
                               "--queue", str(args.queue), "--test-isolation", "on-failure",
                               "--time-limit", str(args.time_limit),
                               "--time-floor", str(args.time_floor)])
        server.sample_memory()
        try:
            result = asyncio.run(load(server.url, rows, args.clients, args.budget))
        finally:
            code, log, alive = server.stop()
    problems = compare(rows, result, reference)
    lost = len(rows) - len(result.answers) + len(result.errors)
    sandbox_errors = sum(1 for a in result.answers.values()
                         if a.get("verdict") == "sandbox_error"
                         or (a.get("error") or {}).get("result"))
    failing = sum(1 for v, _ in reference.values() if v != "pass")
    latencies = list(result.latencies.values())
    rate = len(result.answers) / result.seconds
    start, peak = memory_growth(server.rss)
    print("service load: %d requests (%d%% failing in-process), %d clients, %s sandbox, "
          "jobs %d, queue %d, time limit %gs" % (
              len(rows), round(100 * failing / max(1, len(rows))), args.clients, args.sandbox,
              args.jobs, args.queue, args.time_limit))
    print("  answered %d/%d in %.1fs; lost %d; sandbox_error %d; 429 retries %d" % (
        len(result.answers), len(rows), result.seconds, lost, sandbox_errors,
        result.retries_429))
    print("  latency p50 %.3fs, p99 %.3fs" % (percentile(latencies, 0.5),
                                             percentile(latencies, 0.99)))
    print("  service %.1f candidates/s; in-process Judge.judge_many %.1f candidates/s; "
          "service / in-process = %.2f" % (rate, api, rate / api))
    print("  verdicts equal to in-process: %d/%d" % (len(rows) - len(problems), len(rows)))
    print("  server RSS after warm-up %.1f MiB, peak afterwards %.1f MiB" % (
        start / 2**20, peak / 2**20))
    print("  shutdown: exit %s, %d process(es) left, log says closed: %s" % (
        code, len(alive), "sandbox closed" in log))
    for line in problems[:10]:
        print("  DIFF " + line)
    ok = lost == 0 and sandbox_errors == 0 and not alive and "sandbox closed" in log
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
