"""Load test of `judge serve` on 127.0.0.1: N requests from C concurrent clients.

Starts a real server (`judge serve SUITE --port 0`), judges the same candidates once with
`judge run` (the reference verdicts), then sends every candidate as one `POST /v1/judge` from
C concurrent clients (httpx, one connection each) and checks:

- every request answered (no transport error; 429s are retried after Retry-After and counted);
- each answer's verdict and per-test verdicts equal the CLI's for that candidate;
- the server's resident memory is flat (sampled during the run; growth after warm-up);
- after SIGTERM the server exits and nothing it started is left running.

Bounded: a fixed number of requests, and a time budget after which the run is a failure.

    .venv/bin/python benchmarks/service_load.py                      # 1,000 requests, 32 clients
    .venv/bin/python benchmarks/service_load.py --requests 200 --sandbox docker
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
    from judge.problem.model import load_suite

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
    from judge.problem.model import load_suite
    from judge.api import Judge

    by_id = load_suite(suite).by_id
    items = [(by_id[r["problem_id"]], r["solution"], {"model": r["model"],
                                                     "sample": r["sample"]}) for r in rows]
    with Judge(sandbox, jobs) as judge:
        list(judge.judge_many(items[: jobs * 2]))  # warm: workers up, references timed
        started = time.monotonic()
        done = sum(1 for _ in judge.judge_many(items))
        return done / (time.monotonic() - started)


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
                    break

    await asyncio.gather(*(client() for _ in range(clients)))
    return LoadResult(answers, statuses, retries, errors, time.monotonic() - started)


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default=str(ROOT / "problems" / "basics"))
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--sandbox", default="process", choices=("process", "docker"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--queue", type=int, default=64)
    parser.add_argument("--budget", type=float, default=900.0, help="seconds for the load")
    args = parser.parse_args()

    rows = candidates(args.suite, args.requests)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        reference = cli_verdicts(args.suite, rows, args.sandbox, args.jobs, Path(tmp))
        cli_seconds = time.monotonic() - t0
    in_process = api_rate(args.suite, rows, args.sandbox, args.jobs)
    server = Server.start([args.suite, "--sandbox", args.sandbox, "--jobs", str(args.jobs),
                           "--queue", str(args.queue)])
    server.sample_memory()
    try:
        result = asyncio.run(load(server.url, rows, args.clients, args.budget))
    finally:
        code, log, alive = server.stop()
    problems = compare(rows, result, reference)
    start, peak = memory_growth(server.rss)
    print("service load: %d requests, %d clients, %s sandbox, jobs %d, queue %d" % (
        len(rows), args.clients, args.sandbox, args.jobs, args.queue))
    print("  answered %d/%d in %.1fs (%.1f req/s); 429 retries %d; transport errors %d" % (
        len(result.answers), len(rows), result.seconds, len(result.answers) / result.seconds,
        result.retries_429, len(result.errors)))
    print("  `judge run` on the same candidates: %.1fs (%.1f/s, includes start-up)" % (
        cli_seconds, len(rows) / cli_seconds))
    rate = len(result.answers) / result.seconds
    print("  in-process API (judge.Judge.judge_many, warm, same jobs): %.1f/s; service / API "
          "= %.2f" % (in_process, rate / in_process))
    print("  verdicts equal to `judge run`: %d/%d" % (len(rows) - len(problems), len(rows)))
    print("  server RSS after warm-up %.1f MiB, peak afterwards %.1f MiB (growth %.1f MiB)" % (
        start / 2**20, peak / 2**20, (peak - start) / 2**20))
    print("  shutdown: exit %s, %d process(es) left, log says closed: %s" % (
        code, len(alive), "sandbox closed" in log))
    for line in problems[:10]:
        print("  DIFF " + line)
    ok = not problems and not result.errors and not alive and "sandbox closed" in log
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
