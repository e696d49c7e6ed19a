"""A load run on `judge serve`'s SandboxFusion routes as an RL trainer makes it (issue 35):
C concurrent clients (128) send N ``POST /run_code`` calls (10,000) with verl's body
(``run_timeout`` 1, ``compile_timeout`` 1, ``memory_limit_MB`` 1024, Python), ~40% of
them failing, looping or sleeping, plus B batch calls (ScaleBox's
``/common_evaluate_batch`` and the judge's ``/v1/evaluate/batch``) mixed in among them.

    .venv/bin/python benchmarks/trainer_load.py --calls 1000 --clients 128   # small
    .venv/bin/python benchmarks/trainer_load.py --calls 10000 --clients 128  # the full run

Every call's code is unique (a tagged comment), so no cache or deduplication helps. Per 20
``/run_code`` calls: 12 correct, 2 wrong answers, 2 crashes (an exception), 1 syntax error,
2 infinite loops, 1 that sleeps 2 s and then answers right. What each must get is
SandboxFusion's answer, classified as verl does (``benchmarks/vs_sandboxfusion.py``):
correct True, wrong False (unless the bug does not matter on that input), crash and syntax
error -2 (``Failed``, non-zero return code), loop and sleeper -3 (``TimeLimitExceeded``:
``run_timeout`` is wall clock in SandboxFusion). A batch call carries 1
(``/common_evaluate_batch``) or ``--batch-items`` (``/v1/evaluate/batch``) candidates of
the same mix with 5 tests each, ``run_all_cases``; each test's ``passed`` is checked
against the expected one.

A client waits out 429 and 503 as ``Retry-After`` says (the judge's own client does;
bounded by ``--give-up`` seconds a call), counting them. Reported:

- **lost**: a call with no answer (a transport error, another 5xx, a body that is no JSON,
  still 429 after ``--give-up`` s) and **hung**: no answer within ``--hang-after`` s (the
  client's timeout); both must be 0, with every call sent;
- ``SandboxError`` answers (the judge's failure: not judged, never a zero reward);
- every answer's verdict against the expected one, by kind;
- p50 / p99 latency (first send to answer, 429 waits included) of each route, calls/s;
- the server's health counters at the end, and that SIGTERM leaves no process behind.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service_load import Server, percentile  # noqa: E402
from vs_sandboxfusion import LOOP, PROBLEMS, SLEEP, outcome_name, verl_outcome  # noqa: E402

MIX = (["correct"] * 12 + ["wrong"] * 2 + ["crash"] * 2 + ["syntax"] + ["loop"] * 2
       + ["sleep"])
EXPECTED = {"correct": True, "wrong": False, "crash": -2, "syntax": -2, "loop": -3,
            "sleep": -3}
TESTS = 5


@dataclass
class Call:
    index: int
    route: str                  # /run_code, /common_evaluate_batch, /v1/evaluate/batch
    body: dict[str, Any]
    kinds: list[str]            # the kind of each candidate
    expected: list[Any]         # /run_code: [verl outcome]; batches: [[passed] per candidate]
    stdout: str = ""            # /run_code: the expected stdout


def program(problem, kind: str, rng: random.Random, tag: str) -> str:
    right = rng.choice(problem.correct)
    body = {"correct": right, "wrong": problem.wrong, "crash": problem.crash,
            "syntax": right.replace("(", "", 1), "loop": LOOP, "sleep": SLEEP + right}[kind]
    return "# %s (%s, %s)\n%s" % (tag, problem.name, kind, body)


def workload(calls: int, batches: int, items: int, seed: int, run_timeout: int,
             memory_mb: int) -> list[Call]:
    """``calls`` /run_code calls and ``batches`` batch calls, shuffled together (seeded)."""
    rng = random.Random(seed)
    kinds = [MIX[i % len(MIX)] for i in range(calls)]
    rng.shuffle(kinds)
    work: list[Call] = []
    for index, kind in enumerate(kinds):
        problem = PROBLEMS[index % len(PROBLEMS)]
        stdin = problem.make_input(rng)
        code = program(problem, kind, rng, "call %d-%d" % (seed, index))
        body = {"compile_timeout": run_timeout, "run_timeout": run_timeout, "code": code,
                "stdin": stdin, "memory_limit_MB": memory_mb, "language": "python",
                "files": {}, "fetch_files": []}
        stdout = problem.solve(stdin) + "\n"
        expected = EXPECTED[kind]
        if kind == "wrong":  # a wrong program may still be right on one input
            expected = problem.wrong_solve(stdin) + "\n" == stdout
        work.append(Call(index, "/run_code", body, [kind], [expected], stdout))
    for number in range(batches):
        route = "/v1/evaluate/batch" if number % 2 else "/common_evaluate_batch"
        bodies, batch_kinds, expected = [], [], []
        for item in range(items if route == "/v1/evaluate/batch" else 1):
            kind = rng.choice(MIX)
            problem = rng.choice(PROBLEMS)
            tests = [problem.make_input(rng) for _ in range(TESTS)]
            outputs = [problem.solve(t) + "\n" for t in tests]
            code = program(problem, kind, rng, "batch %d-%d-%d" % (seed, number, item))
            if kind == "correct":
                passed = [True] * TESTS
            elif kind == "wrong":
                passed = [problem.wrong_solve(t) + "\n" == o for t, o in zip(tests, outputs)]
            else:
                passed = [False] * TESTS
            bodies.append({"completion": "```python\n%s```\n" % code, "id": item,
                           "config": {"language": "python", "run_timeout": run_timeout,
                                      "compile_timeout": run_timeout,
                                      "memory_limit_MB": memory_mb,
                                      "provided_data": {"test_cases": {
                                          "type": "stdin_stdout", "fn_name": None,
                                          "input": tests, "output": outputs}},
                                      "extra": {"run_all_cases": True}}})
            batch_kinds.append(kind)
            expected.append(passed)
        body = bodies[0] if route == "/common_evaluate_batch" else {"items": bodies}
        work.append(Call(calls + number, route, body, batch_kinds, expected))
    rng.shuffle(work)
    return work


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    answered: Counter = field(default_factory=Counter)
    lost: list[str] = field(default_factory=list)
    hung: list[str] = field(default_factory=list)
    waits: Counter = field(default_factory=Counter)        # 429 / 503 answers waited out
    sandbox_errors: int = 0
    verdicts: Counter = field(default_factory=Counter)     # (route, kind, ok)
    wrong: Counter = field(default_factory=Counter)        # (route, kind, expected, got)
    not_sent: int = 0
    seconds: float = 0.0


def check(call: Call, answer: dict[str, Any], tally: Tally) -> None:
    """Every verdict of one answer against what its kind must get."""
    if call.route == "/run_code":
        if answer.get("status") == "SandboxError":
            tally.sandbox_errors += 1
        got = verl_outcome(answer, None, call.stdout)
        ok = got == call.expected[0]
        tally.verdicts[(call.route, call.kinds[0], ok)] += 1
        if not ok:
            tally.wrong[(call.route, call.kinds[0], outcome_name(call.expected[0]),
                         outcome_name(got))] += 1
        return
    results = [answer] if call.route == "/common_evaluate_batch" else answer.get("results")
    if not isinstance(results, list) or len(results) != len(call.kinds):
        tally.lost.append("call %d: %s answered %s" % (call.index, call.route,
                                                       json.dumps(answer)[:200]))
        return
    for kind, expected, result in zip(call.kinds, call.expected, results):
        tests = result.get("tests") or []
        passed = [bool(t.get("passed")) for t in tests]
        if any((t.get("exec_info") or {}).get("status") == "SandboxError" for t in tests):
            tally.sandbox_errors += 1
        ok = passed == expected
        tally.verdicts[(call.route, kind, ok)] += 1
        if not ok:
            tally.wrong[(call.route, kind, str(expected), str(passed))] += 1


async def drive(url: str, work: list[Call], clients: int, hang_after: float,
                give_up: float, budget: float) -> Tally:
    queue: asyncio.Queue[Call] = asyncio.Queue()
    for call in work:
        queue.put_nowait(call)
    tally = Tally()
    started = time.monotonic()

    async def client(number: int) -> None:
        headers = {"X-Judge-Client": "trainer-%d" % number}
        async with httpx.AsyncClient(base_url=url, headers=headers,
                                     timeout=httpx.Timeout(hang_after, connect=30),
                                     limits=httpx.Limits(max_connections=1)) as http:
            while not queue.empty():
                if time.monotonic() - started > budget:
                    return
                call = queue.get_nowait()
                sent = time.monotonic()
                while True:
                    try:
                        response = await http.post(call.route, json=call.body)
                    except httpx.TimeoutException:
                        tally.hung.append("call %d %s" % (call.index, call.route))
                        break
                    except httpx.HTTPError as exc:
                        tally.lost.append("call %d %s: %r" % (call.index, call.route, exc))
                        break
                    if response.status_code in (429, 503):
                        tally.waits[response.status_code] += 1
                        wait = float(response.headers.get("Retry-After", "1") or 1)
                        if time.monotonic() - sent + wait > give_up:
                            tally.lost.append("call %d %s: still %d after %.0f s" % (
                                call.index, call.route, response.status_code, give_up))
                            break
                        await asyncio.sleep(min(wait, 10.0) * (0.5 + random.random()))
                        continue
                    try:
                        answer = response.json()
                    except ValueError:
                        answer = None
                    if response.status_code != 200 or not isinstance(answer, dict):
                        tally.lost.append("call %d %s: HTTP %d %s" % (
                            call.index, call.route, response.status_code,
                            response.text[:200]))
                        break
                    tally.latencies.setdefault(call.route, []).append(
                        time.monotonic() - sent)
                    tally.answered[call.route] += 1
                    check(call, answer, tally)
                    break

    await asyncio.gather(*(client(n) for n in range(clients)))
    tally.seconds = time.monotonic() - started
    tally.not_sent = queue.qsize()
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=10000, help="/run_code calls")
    parser.add_argument("--batches", type=int, default=None,
                        help="batch calls mixed in (default: calls / 25)")
    parser.add_argument("--batch-items", type=int, default=4,
                        help="candidates in one /v1/evaluate/batch call")
    parser.add_argument("--clients", type=int, default=128)
    parser.add_argument("--jobs", type=int, default=2, help="judge serve --jobs")
    parser.add_argument("--queue", type=int, help="judge serve --queue (default: its own)")
    parser.add_argument("--sandbox", choices=("auto", "process", "docker"),
                        help="judge serve --sandbox (default: its own default)")
    parser.add_argument("--run-timeout", type=int, default=1)
    parser.add_argument("--memory-limit-mb", type=int, default=1024)
    parser.add_argument("--hang-after", type=float, default=300.0,
                        help="a call with no answer after this many seconds is hung")
    parser.add_argument("--give-up", type=float, default=900.0,
                        help="a call still refused (429/503) after this long is lost")
    parser.add_argument("--budget", type=float, default=7200.0,
                        help="seconds for the whole load (bounded run)")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    batches = args.calls // 25 if args.batches is None else args.batches

    work = workload(args.calls, batches, args.batch_items, args.seed, args.run_timeout,
                    args.memory_limit_mb)
    server_args = ["--jobs", str(args.jobs)]
    if args.queue is not None:
        server_args += ["--queue", str(args.queue)]
    if args.sandbox:
        server_args += ["--sandbox", args.sandbox]
    server = Server.start(server_args, timeout=900)
    health: dict[str, Any] = {}
    try:
        health = httpx.get(server.url + "/v1/health", timeout=30).json()
        print("judge serve %s: %s sandbox, jobs %s, queue %s" % (
            server.url, health.get("sandbox"), health.get("jobs"),
            health.get("queue_capacity", health.get("queue"))))
        tally = asyncio.run(drive(server.url, work, args.clients, args.hang_after,
                                  args.give_up, args.budget))
        health = httpx.get(server.url + "/v1/health", timeout=30).json()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        code, log, alive = server.stop()
    candidates = sum(len(c.kinds) for c in work)
    answered = sum(tally.answered.values())
    failing = sum(1 for c in work if c.route == "/run_code" and c.kinds[0] != "correct")
    print("trainer load: %d /run_code calls (%d%% fail, loop or sleep) + %d batch calls "
          "(%d candidates in all), %d clients, run_timeout %d s, memory_limit_MB %d" % (
              args.calls, round(100 * failing / max(1, args.calls)), batches, candidates,
              args.clients, args.run_timeout, args.memory_limit_mb))
    print("  answered %d/%d calls in %.1f s (%.1f calls/s); lost %d; hung %d; not sent %d; "
          "SandboxError %d; 429 waited out %d, 503 %d" % (
              answered, len(work), tally.seconds, answered / max(tally.seconds, 1e-9),
              len(tally.lost), len(tally.hung), tally.not_sent, tally.sandbox_errors,
              tally.waits[429], tally.waits[503]))
    for route, values in sorted(tally.latencies.items()):
        print("  %s: %d answered, latency p50 %.2f s, p99 %.2f s, max %.2f s" % (
            route, len(values), percentile(values, .5), percentile(values, .99),
            max(values)))
    every = [v for values in tally.latencies.values() for v in values]
    print("  all calls: latency p50 %.2f s, p99 %.2f s" % (percentile(every, .5),
                                                          percentile(every, .99)))
    right = sum(n for (_, _, ok), n in tally.verdicts.items() if ok)
    checked = sum(tally.verdicts.values())
    print("  verdicts as expected: %d/%d checked" % (right, checked))
    for (route, kind, expected, got), n in sorted(tally.wrong.items(), key=lambda p: -p[1]):
        print("  WRONG %s %s: expected %s, got %s: %d" % (route, kind, expected, got, n))
    for line in (tally.lost + tally.hung)[:10]:
        print("  LOST/HUNG " + line)
    print("  server at the end: %s" % json.dumps({k: health.get(k) for k in (
        "status", "judged", "in_flight", "queue_depth", "peak_running", "lent")
        if k in health}))
    print("  shutdown: exit %s, %d process(es) left, log says sandbox closed: %s" % (
        code, len(alive), "sandbox closed" in log))
    ok = (not tally.lost and not tally.hung and not tally.not_sent and not alive
          and answered == len(work))
    verdicts_ok = right == checked and tally.sandbox_errors == 0
    print("%s (lost/hung/answered)%s" % ("PASS" if ok else "FAIL",
                                         "" if verdicts_ok else "; verdicts: FAIL"))
    if args.json:
        args.json.write_text(json.dumps({
            "calls": args.calls, "batches": batches, "clients": args.clients,
            "answered": answered, "lost": len(tally.lost), "hung": len(tally.hung),
            "not_sent": tally.not_sent, "sandbox_errors": tally.sandbox_errors,
            "seconds": tally.seconds, "waits": dict(tally.waits),
            "p50": percentile(every, .5), "p99": percentile(every, .99),
            "routes": {r: {"p50": percentile(v, .5), "p99": percentile(v, .99), "n": len(v)}
                       for r, v in tally.latencies.items()},
            "verdicts_right": right, "verdicts_checked": checked,
            "wrong": {" | ".join(k): n for k, n in tally.wrong.items()}}, indent=2))
    return 0 if ok and verdicts_ok else 1


if __name__ == "__main__":
    sys.exit(main())
