"""`judge serve` against the real SandboxFusion server, built from its public source, on
the same workload in the same run (issue 37).

    .venv/bin/python benchmarks/vs_sandboxfusion.py --sandboxfusion PATH [--scalebox PATH]

PATH is a checkout of SandboxFusion's source (github.com/bytedance/SandboxFusion); the
script builds it in a virtual environment of its own, cached under
``~/.cache/judge-bench/`` (see ``benchmarks/peers.py``: its ``pyproject.toml`` pins, its
shipped ``local.yaml`` with ``isolation: none``, so nothing privileged), starts it as its
README does (``uvicorn sandbox.server.server:app``) and ``judge serve --jobs 2``, both on
free 127.0.0.1 ports, and stops both at the end (Ctrl-C and errors included).

Workload: seeded Python stdin/stdout candidates for eight small problems (a+b, sort, max,
reverse words, distinct count, Fibonacci mod p, palindrome, gcd), 5 tests each; every
candidate's code is unique (no cache or deduplication helps either side). Kinds: correct,
wrong (a plausible bug), crashing; the RL mix adds 5% that loop forever and 5% that sleep
2 s and then answer right (with ``run_timeout`` 1 s they must time out, as SandboxFusion's
clients expect).

1. **verl's request pattern**: one ``POST /run_code`` per test case with verl's body
   (``verl/utils/reward_score/sandbox_fusion/utils.py``: ``compile_timeout`` and
   ``run_timeout`` both the reward's timeout, here 1; ``memory_limit_MB`` 1024; language
   python; empty ``files`` and ``fetch_files``; ``requests.post`` with its 504 retries and
   its ``compile + run + 10`` s client timeout), from 16 client threads, and each answer
   classified exactly as verl does (True, False, -1 api/sandbox error, -2 runtime error,
   -3 timeout, -4 compile error; stdout compared after ``rstrip("\\n")``). Two mixes: (a)
   correct / wrong / crashing only, (b) the RL mix. Reported per server: requests/s,
   p50/p90/p99 latency, verl's outcome counts, what the sleepers and loopers got; between
   them: per-test-case agreement of pass/fail and of verl's outcome, and the ratio.
2. **The batch routes** on the RL mix, one request per candidate with its 5 tests
   (``run_all_cases``), 16 client threads: SandboxFusion's ``/submit`` (its
   ``CommonOJDataset`` with ``provided_data``), ScaleBox's ``/common_evaluate_batch`` when
   ``--scalebox`` is given, the judge's ``/common_evaluate_batch`` (ScaleBox's body) and its
   ``/v1/evaluate/batch`` (``--batch-items`` candidates a request): candidates/s, false
   timeouts and false failures of correct candidates' tests, agreement with the expected
   per-test outcome.

Rounds are interleaved (``--rounds``, the order alternating) so that load from elsewhere on
the machine falls on both sides; ratios are judge / peer from this one run.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import random
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import PeerServer, build, log  # noqa: E402
from service_load import Server  # noqa: E402

# ---- problems and candidates --------------------------------------------------------------

MOD = 10**9 + 7


def _fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, (a + b) % MOD
    return a


def _ints(rng: random.Random, count: int, low: int = -1000, high: int = 1000) -> list[int]:
    return [rng.randint(low, high) for _ in range(count)]


def _listing(xs: list[int]) -> str:
    return "%d\n%s\n" % (len(xs), " ".join(map(str, xs)))


def _words(rng: random.Random) -> list[str]:
    return ["".join(rng.choice("abcdefgh") for _ in range(rng.randint(1, 6)))
            for _ in range(rng.randint(2, 7))]


def _palindrome(rng: random.Random) -> str:
    half = "".join(rng.choice("abc") for _ in range(rng.randint(1, 6)))
    return half + half[::-1] if rng.random() < 0.5 else half + "x" + half


READ_LIST = "n = int(input())\nxs = list(map(int, input().split()))\n"


@dataclass(frozen=True)
class Problem:
    name: str
    make_input: Callable[[random.Random], str]
    solve: Callable[[str], str]
    wrong_solve: Callable[[str], str]   # what the wrong program prints (the oracle)
    correct: tuple[str, ...]
    wrong: str
    crash: str


def _split(text: str) -> list[int]:
    return list(map(int, text.split()))


PROBLEMS = [
    Problem("a_plus_b", lambda r: "%d %d\n" % (r.randint(-10**9, 10**9), r.randint(-10**9, 10**9)),
            lambda s: str(sum(_split(s))), lambda s: str(_split(s)[0] - _split(s)[1]),
            ("a, b = map(int, input().split())\nprint(a + b)\n",
             "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n"),
            "a, b = map(int, input().split())\nprint(a - b)\n",
            "a, b = map(int, input().split())\nprint(a + b // 0)\n"),
    Problem("sort", lambda r: _listing(_ints(r, r.randint(2, 30))),
            lambda s: " ".join(map(str, sorted(_split(s)[1:]))),
            lambda s: " ".join(map(str, sorted(_split(s)[1:], reverse=True))),
            (READ_LIST + "print(*sorted(xs))\n",
             READ_LIST + "xs.sort()\nprint(' '.join(str(x) for x in xs))\n"),
            READ_LIST + "print(*sorted(xs, reverse=True))\n",
            READ_LIST + "print(sorted(xs)[n])\n"),
    Problem("maximum", lambda r: _listing(_ints(r, r.randint(2, 30))),
            lambda s: str(max(_split(s)[1:])), lambda s: str(min(_split(s)[1:])),
            (READ_LIST + "print(max(xs))\n",
             READ_LIST + "best = xs[0]\nfor x in xs:\n    best = max(best, x)\nprint(best)\n"),
            READ_LIST + "print(min(xs))\n",
            READ_LIST + "print(max(xs[n:]))\n"),
    Problem("reverse_words", lambda r: " ".join(_words(r)) + "\n",
            lambda s: " ".join(s.split()[::-1]), lambda s: " ".join(s.split()),
            ("print(' '.join(input().split()[::-1]))\n",
             "words = input().split()\nwords.reverse()\nprint(*words)\n"),
            "print(' '.join(input().split()))\n",
            "words = input().split()\nprint(words[len(words)])\n"),
    Problem("distinct", lambda r: _listing(_ints(r, r.randint(2, 30), 0, 9)),
            lambda s: str(len(set(_split(s)[1:]))), lambda s: str(len(_split(s)[1:])),
            (READ_LIST + "print(len(set(xs)))\n",
             READ_LIST + "seen = {}\nfor x in xs:\n    seen[x] = 1\nprint(len(seen))\n"),
            READ_LIST + "print(len(xs))\n",
            READ_LIST + "print(len(set(xs)) + int('x'))\n"),
    Problem("fib_mod", lambda r: "%d\n" % r.randint(2, 20000),
            lambda s: str(_fib(int(s))), lambda s: str(_fib(int(s) - 1)),
            ("n = int(input())\na, b = 0, 1\nfor _ in range(n):\n"
             "    a, b = b, (a + b) % 1000000007\nprint(a)\n",
             "n = int(input())\nf = [0, 1]\nfor i in range(2, n + 1):\n"
             "    f.append((f[-1] + f[-2]) % 1000000007)\nprint(f[n])\n"),
            "n = int(input())\na, b = 0, 1\nfor _ in range(n - 1):\n"
            "    a, b = b, (a + b) % 1000000007\nprint(a)\n",
            "import sys\nsys.setrecursionlimit(100)\n"
            "def f(n):\n    return n if n < 2 else f(n - 1) + f(n - 2)\nprint(f(int(input())))\n"),
    Problem("palindrome", lambda r: _palindrome(r) + "\n",
            lambda s: "YES" if s.strip() == s.strip()[::-1] else "NO", lambda s: "YES",
            ("s = input().strip()\nprint('YES' if s == s[::-1] else 'NO')\n",
             "s = input().strip()\nok = all(s[i] == s[-1 - i] for i in range(len(s)))\n"
             "print('YES' if ok else 'NO')\n"),
            "input()\nprint('YES')\n",
            "s = input().strip()\nassert len(s) > 100, 'too short'\nprint('YES')\n"),
    Problem("gcd", lambda r: "%d %d\n" % (r.randint(1, 10**6) * 6, r.randint(1, 10**6) * 4),
            lambda s: str(math.gcd(*_split(s))), lambda s: str(min(_split(s))),
            ("import math\na, b = map(int, input().split())\nprint(math.gcd(a, b))\n",
             "a, b = map(int, input().split())\nwhile b:\n    a, b = b, a % b\nprint(a)\n"),
            "a, b = map(int, input().split())\nprint(min(a, b))\n",
            "import math\na, b = map(int, input().split())\nprint(math.gcd(a, b) / 0)\n"),
]

LOOP = "while True:\n    pass\n"
SLEEP = "import time\ntime.sleep(2)\n"
TESTS_PER_CANDIDATE = 5


@dataclass
class Candidate:
    index: int
    problem: str
    kind: str                      # correct, wrong, crash, loop, sleep
    code: str
    tests: list[tuple[str, str]]   # (stdin, expected stdout)
    expected_pass: list[bool]      # the oracle, per test


def candidates(count: int, mix: str, seed: int) -> list[Candidate]:
    """``count`` candidates of mix ``a`` (correct / wrong / crashing: 60 / 25 / 15%) or ``b``
    (the RL mix: the same with 5% looping and 5% sleeping 2 s), seeded."""
    rng = random.Random("%s-%s" % (seed, mix))
    hanging = max(1, round(0.05 * count)) if mix == "b" else 0
    kinds = ["loop"] * hanging + ["sleep"] * hanging
    rest = count - len(kinds)
    kinds += ["wrong"] * round(0.25 * rest) + ["crash"] * round(0.15 * rest)
    kinds += ["correct"] * (count - len(kinds))
    rng.shuffle(kinds)
    found = []
    for index, kind in enumerate(kinds):
        problem = PROBLEMS[index % len(PROBLEMS)]
        tests = []
        for _ in range(TESTS_PER_CANDIDATE):
            stdin = problem.make_input(rng)
            tests.append((stdin, problem.solve(stdin) + "\n"))
        right = rng.choice(problem.correct)
        body = {"correct": right, "wrong": problem.wrong, "crash": problem.crash,
                "loop": LOOP, "sleep": SLEEP + right}[kind]
        if kind == "correct":
            expected = [True] * len(tests)
        elif kind == "wrong":
            expected = [problem.wrong_solve(i) + "\n" == o for i, o in tests]
        else:
            expected = [False] * len(tests)
        code = "# candidate %s-%s-%d (%s, %s)\n%s" % (seed, mix, index, problem.name, kind, body)
        found.append(Candidate(index, problem.name, kind, code, tests, expected))
    return found


# ---- verl's request and verdict -----------------------------------------------------------

API_TIMEOUT = 10   # verl: request timeout = compile_timeout + run_timeout + API_TIMEOUT
MAX_RETRIES = 3    # verl: retries on 504 only


def verl_call(url: str, code: str, stdin: str, timeout: int,
              memory_limit_mb: int) -> tuple[dict | None, str | None]:
    """verl's ``call_sandbox_api``: the same body, headers, client timeout and retries."""
    payload = json.dumps({"compile_timeout": timeout, "run_timeout": timeout, "code": code,
                          "stdin": stdin, "memory_limit_MB": memory_limit_mb,
                          "language": "python", "files": {}, "fetch_files": []})
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    last_error = None
    for attempt in range(MAX_RETRIES):
        try:
            response = requests.post(url, headers=headers, data=payload,
                                     timeout=timeout + timeout + API_TIMEOUT)
            if response.status_code == 504:
                last_error = "504 on attempt %d" % (attempt + 1)
                if attempt < MAX_RETRIES - 1:
                    time.sleep(attempt + 1)
                continue
            response.raise_for_status()
            return response.json(), None
        except requests.exceptions.RequestException as exc:
            last_error = "API Request Error: %s" % exc
            break
        except ValueError as exc:
            last_error = "API Response JSON Decode Error: %s" % exc
            break
    return None, last_error or "API Call Failed after retries"


def verl_outcome(answer: dict | None, error: str | None, expected: str) -> bool | int:
    """verl's ``_process_single_case`` verdict: True, False, -1 (api or sandbox error),
    -2 (runtime error), -3 (timeout), -4 (compile error)."""
    if error or not answer:
        return -1
    status = answer.get("status")
    compile_result, run_result = answer.get("compile_result"), answer.get("run_result")
    if status == "SandboxError":
        return -1
    if status == "Failed":
        if compile_result and (compile_result.get("status") in ("Error", "TimeLimitExceeded")
                               or (compile_result.get("status") == "Finished"
                                   and compile_result.get("return_code") != 0)):
            return -4
        if run_result:
            run_status = run_result.get("status")
            if run_status == "TimeLimitExceeded":
                return -3
            if run_status == "Error" or (run_status == "Finished"
                                         and run_result.get("return_code") != 0):
                return -2
        return -1
    if status == "Success":
        if run_result and run_result.get("status") == "Finished":
            stdout = run_result.get("stdout") or ""
            return str(stdout).rstrip("\n") == str(expected).rstrip("\n")
        return -1
    return -1


# ---- measuring ----------------------------------------------------------------------------

@dataclass
class Side:
    name: str
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    outcomes: dict[tuple[int, int], Any] = field(default_factory=dict)   # (cand, test) ->
    extra: Counter = field(default_factory=Counter)

    def rate(self, units: int) -> float:
        return units / self.seconds if self.seconds else float("nan")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rounds_of(items: list, rounds: int) -> list[list]:
    size = max(1, math.ceil(len(items) / max(1, rounds)))
    return [items[i:i + size] for i in range(0, len(items), size)]


def pool_map(function: Callable, items: list, threads: int) -> tuple[list, float]:
    """``function`` over ``items`` from ``threads`` client threads; (results, wall seconds)."""
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(function, items))
    return results, time.monotonic() - started


def run_verl_pattern(urls: dict[str, str], cands: list[Candidate], args) -> dict[str, Side]:
    """One /run_code per test case from ``args.threads`` threads, rounds interleaved."""
    sides = {name: Side(name) for name in urls}
    work = [(c, t) for c in cands for t in range(len(c.tests))]

    def one(url: str, item: tuple[Candidate, int]) -> tuple[Any, float, dict | None, str]:
        cand, test = item
        stdin, expected = cand.tests[test]
        sent = time.monotonic()
        answer, error = verl_call(url + "/run_code", cand.code, stdin, args.run_timeout,
                                  args.memory_limit_mb)
        return (verl_outcome(answer, error, expected), time.monotonic() - sent, answer,
                error or "")

    for number, chunk in enumerate(rounds_of(work, args.rounds)):
        order = list(urls) if number % 2 == 0 else list(urls)[::-1]
        for name in order:
            results, seconds = pool_map(lambda item, u=urls[name]: one(u, item), chunk,
                                        args.threads)
            side = sides[name]
            side.seconds += seconds
            for (cand, test), (outcome, latency, answer, error) in zip(chunk, results):
                side.outcomes[(cand.index, test)] = outcome
                side.latencies.append(latency)
                if error:  # verl's client gave up (its timeout: compile + run + 10 s)
                    side.extra["client error: %s" % (
                        "read timeout" if "timed out" in error else error[:80])] += 1
                elif (answer or {}).get("status") == "SandboxError":
                    side.extra["SandboxError"] += 1
                clamped = ((answer or {}).get("judge") or {}).get("clamped") or []
                for limit in clamped:
                    side.extra["clamped " + limit] += 1
            log("  round %d %s: %d requests in %.1f s" % (number + 1, name, len(chunk),
                                                          seconds))
    return sides


def outcome_name(outcome: Any) -> str:
    return {True: "pass", False: "wrong", -1: "api/sandbox error", -2: "runtime error",
            -3: "timeout", -4: "compile error"}.get(outcome, str(outcome))


def report_verl(title: str, sides: dict[str, Side], cands: list[Candidate]) -> dict:
    peer, judge = list(sides)
    units = sum(len(c.tests) for c in cands)
    by_index = {c.index: c for c in cands}
    print("\n## verl's request pattern, %s: %d candidates x %d tests = %d requests"
          % (title, len(cands), TESTS_PER_CANDIDATE, units))
    print("| server | requests/s | p50 | p90 | p99 | %s |" % " | ".join(
        outcome_name(o) for o in (True, False, -2, -3, -4, -1)))
    print("|---|---|---|---|---|%s" % ("---|" * 6))
    summary: dict[str, Any] = {"requests": units}
    for side in sides.values():
        counts = Counter(side.outcomes.values())
        print("| %s | %.1f | %.3f s | %.3f s | %.3f s | %s |" % (
            side.name, side.rate(units), percentile(side.latencies, .5),
            percentile(side.latencies, .9), percentile(side.latencies, .99),
            " | ".join(str(counts.get(o, 0)) for o in (True, False, -2, -3, -4, -1))))
        summary[side.name] = {"requests_per_s": side.rate(units), "seconds": side.seconds,
                              "p50": percentile(side.latencies, .5),
                              "p90": percentile(side.latencies, .9),
                              "p99": percentile(side.latencies, .99),
                              "outcomes": {outcome_name(k): v for k, v in counts.items()}}
    ratio = sides[judge].rate(units) / sides[peer].rate(units)
    same_pass = sum((sides[peer].outcomes[k] is True) == (sides[judge].outcomes[k] is True)
                    for k in sides[peer].outcomes)
    same_outcome = sum(sides[peer].outcomes[k] == sides[judge].outcomes[k]
                       for k in sides[peer].outcomes)
    print("judge / %s requests/s: **%.2f**" % (peer, ratio))
    print("per test case: pass/fail agree %d/%d (%.2f%%), verl's outcome agrees %d/%d"
          % (same_pass, units, 100 * same_pass / units, same_outcome, units))
    for name, side in sides.items():
        oracle = sum((side.outcomes[(c.index, t)] is True) == c.expected_pass[t]
                     for c in cands for t in range(len(c.tests)))
        false_fail = Counter(outcome_name(side.outcomes[(c.index, t)]) for c in cands
                             for t in range(len(c.tests))
                             if c.kind == "correct" and side.outcomes[(c.index, t)] is not True)
        print("  %s: pass/fail as expected %d/%d; correct tests not passed: %s" % (
            name, oracle, units, dict(false_fail) or 0))
        for kind in ("sleep", "loop"):
            got = Counter(outcome_name(side.outcomes[(c.index, t)]) for c in cands
                          if c.kind == kind for t in range(len(c.tests)))
            if got:
                print("  %s: %s tests -> %s" % (name, kind, dict(got)))
        if side.extra:
            print("  %s: %s" % (name, dict(side.extra)))
        summary[name]["as_expected"] = oracle
        summary[name]["correct_not_passed"] = dict(false_fail)
    pairs = Counter((by_index[k[0]].kind, outcome_name(sides[peer].outcomes[k]),
                     outcome_name(sides[judge].outcomes[k]))
                    for k in sides[peer].outcomes
                    if sides[peer].outcomes[k] != sides[judge].outcomes[k])
    for (kind, a, b), n in sorted(pairs.items(), key=lambda p: -p[1]):
        print("  differs: %s candidates, %s %s, judge %s: %d tests" % (kind, peer, a, b, n))
    summary.update(ratio=ratio, pass_fail_agree=same_pass, outcome_agree=same_outcome)
    return summary


# ---- the batch routes ---------------------------------------------------------------------

def fenced(code: str) -> str:
    return "```python\n%s```\n" % code


def scalebox_body(cand: Candidate, args) -> dict:
    """ScaleBox's /common_evaluate_batch body (its README's stdin_stdout example)."""
    return {"completion": fenced(cand.code), "id": cand.index,
            "config": {"language": "python", "run_timeout": args.run_timeout,
                       "compile_timeout": args.run_timeout,
                       "memory_limit_MB": args.memory_limit_mb,
                       "provided_data": {"test_cases": {
                           "type": "stdin_stdout", "fn_name": None,
                           "input": [i for i, _ in cand.tests],
                           "output": [o for _, o in cand.tests]}},
                       "extra": {"run_all_cases": True}}}


def submit_body(cand: Candidate, args) -> dict:
    """SandboxFusion's /submit for tests that come with the request (CommonOJDataset)."""
    return {"dataset": "vs_sandboxfusion", "id": cand.index, "completion": fenced(cand.code),
            "config": {"dataset_type": "CommonOJDataset", "language": "python",
                       "run_timeout": args.run_timeout, "compile_timeout": args.run_timeout,
                       "provided_data": {"test": [
                           {"input": {"stdin": i}, "output": {"stdout": o}}
                           for i, o in cand.tests]},
                       "extra": {"run_all_cases": True}}}


def post(url: str, body: dict, timeout: float, retries: int = 60) -> dict:
    """POST with the judge's 429/503 answered by waiting ``Retry-After`` (bounded)."""
    for _ in range(retries):
        response = requests.post(url, json=body, timeout=timeout)
        if response.status_code in (429, 503):
            time.sleep(min(10.0, float(response.headers.get("Retry-After", "1"))))
            continue
        response.raise_for_status()
        return response.json()
    raise RuntimeError("%s: still 429/503 after %d tries" % (url, retries))


def tests_of(result: dict) -> list[tuple[bool, bool]]:
    """[(passed, timed out)] of an EvalResult's tests."""
    found = []
    for test in result.get("tests") or []:
        run = (test.get("exec_info") or {}).get("run_result") or {}
        found.append((bool(test.get("passed")), run.get("status") == "TimeLimitExceeded"))
    return found


def run_batches(routes: dict[str, tuple[str, Callable, int]], cands: list[Candidate],
                args) -> dict[str, Side]:
    """Each route: (url, body maker, candidates a request); rounds interleaved."""
    sides = {name: Side(name) for name in routes}
    for number, chunk in enumerate(rounds_of(cands, args.rounds)):
        order = list(routes) if number % 2 == 0 else list(routes)[::-1]
        for name in order:
            url, make, per_request = routes[name]
            groups = [chunk[i:i + per_request] for i in range(0, len(chunk), per_request)]

            def one(group: list[Candidate], url=url, make=make, per_request=per_request):
                sent = time.monotonic()
                try:
                    if per_request == 1:
                        results = [post(url, make(group[0], args), args.batch_timeout)]
                    else:
                        results = post(url, {"items": [make(c, args) for c in group]},
                                       args.batch_timeout)["results"]
                except (requests.exceptions.RequestException, RuntimeError) as exc:
                    return None, time.monotonic() - sent, str(exc)
                return results, time.monotonic() - sent, None

            answers, seconds = pool_map(one, groups, args.threads)
            side = sides[name]
            side.seconds += seconds
            for group, (results, latency, error) in zip(groups, answers):
                side.latencies.append(latency)
                if error:
                    side.extra["request errors"] += 1
                    log("  %s: %s" % (name, error[:300]))
                    continue
                for cand, result in zip(group, results):
                    side.outcomes[(cand.index, 0)] = tests_of(result)
            log("  round %d %s: %d candidates in %.1f s" % (number + 1, name, len(chunk),
                                                            seconds))
    return sides


def report_batches(sides: dict[str, Side], cands: list[Candidate]) -> dict:
    print("\n## The batch routes, RL mix: %d candidates x %d tests, run_all_cases"
          % (len(cands), TESTS_PER_CANDIDATE))
    print("| route | candidates/s | p50 request | p99 request | accepted | false timeouts "
          "| false failures | tests as expected | errors |")
    print("|---|---|---|---|---|---|---|---|---|")
    summary = {}
    for name, side in sides.items():
        accepted = false_timeouts = false_failures = as_expected = 0
        for cand in cands:
            tests = side.outcomes.get((cand.index, 0))
            if tests is None:
                continue
            accepted += bool(tests) and all(p for p, _ in tests)
            for number, (passed, timed_out) in enumerate(tests):
                as_expected += passed == cand.expected_pass[number]
                if cand.kind == "correct" and not passed:
                    false_failures += 1
                    false_timeouts += timed_out
        print("| %s | %.2f | %.2f s | %.2f s | %d | %d | %d | %d/%d | %d |" % (
            name, side.rate(len(cands)), percentile(side.latencies, .5),
            percentile(side.latencies, .99), accepted, false_timeouts, false_failures,
            as_expected, len(cands) * TESTS_PER_CANDIDATE, side.extra["request errors"]))
        summary[name] = {"candidates_per_s": side.rate(len(cands)), "seconds": side.seconds,
                         "accepted": accepted, "false_timeouts": false_timeouts,
                         "false_failures": false_failures, "as_expected": as_expected,
                         "errors": side.extra["request errors"]}
    expected = sum(c.kind == "correct" for c in cands)
    print("(expected accepted: %d correct candidates; wrong ones that happen to pass all "
          "tests count as accepted too)" % expected)
    names = list(sides)
    for name in names[1:]:
        print("%s / %s candidates/s: **%.2f**" % (name, names[0], sides[name].rate(len(cands))
                                                  / sides[names[0]].rate(len(cands))))
    return summary


# ---- main ---------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sandboxfusion", type=Path, required=True,
                        help="a checkout of SandboxFusion's source")
    parser.add_argument("--scalebox", type=Path, help="a checkout of ScaleBox's source (its "
                        "/common_evaluate_batch joins the batch comparison)")
    parser.add_argument("--scalebox-workers", type=int, default=os.cpu_count() or 1,
                        help="ScaleBox's uvicorn --workers (its README: one per CPU)")
    parser.add_argument("--candidates", type=int, default=300)
    parser.add_argument("--batch-candidates", type=int, default=None,
                        help="candidates for the batch routes (default: --candidates)")
    parser.add_argument("--threads", type=int, default=16, help="client threads")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--jobs", type=int, default=2, help="judge serve --jobs")
    parser.add_argument("--sandbox", choices=("auto", "process", "docker"),
                        help="judge serve --sandbox (default: its own default)")
    parser.add_argument("--run-timeout", type=int, default=1, help="verl's timeout (s)")
    parser.add_argument("--memory-limit-mb", type=int, default=1024)
    parser.add_argument("--batch-items", type=int, default=4,
                        help="candidates in one /v1/evaluate/batch request")
    parser.add_argument("--batch-timeout", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--parts", default="a,b,batch",
                        help="what to run: a (no hangs), b (RL mix), batch")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    parts = set(args.parts.split(","))

    peers = [build(args.sandboxfusion, "sandboxfusion")]
    if args.scalebox:
        peers.append(build(args.scalebox, "scalebox"))

    def stop_on_signal(signum, _frame):
        raise KeyboardInterrupt("signal %d" % signum)
    signal.signal(signal.SIGTERM, stop_on_signal)

    started: list[Any] = []
    summary: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    try:
        servers = {}
        for built in peers:
            servers[built.kind] = PeerServer.start(built, workers=args.scalebox_workers)
            started.append(servers[built.kind])
        judge_args = ["--jobs", str(args.jobs)]
        if args.sandbox:
            judge_args += ["--sandbox", args.sandbox]
        judge = Server.start(judge_args, timeout=900)
        started.append(judge)
        health = requests.get(judge.url + "/v1/health", timeout=30).json()
        print("SandboxFusion %s (uvicorn, isolation none); judge serve %s (%s sandbox, "
              "jobs %s)" % (servers["sandboxfusion"].url, judge.url, health.get("sandbox"),
                            health.get("jobs")))
        urls = {"sandboxfusion": servers["sandboxfusion"].url, "judge": judge.url}
        for url in urls.values():  # warm both: interpreters, caches, first requests
            for _ in range(4):
                verl_call(url + "/run_code", "print(1)\n", "", args.run_timeout,
                          args.memory_limit_mb)
        for mix, title in (("a", "correct / wrong / crashing"),
                           ("b", "RL mix (5% loop, 5% sleep 2 s)")):
            if mix not in parts:
                continue
            cands = candidates(args.candidates, mix, args.seed)
            log("verl pattern, mix %s: %d requests per server" % (
                mix, len(cands) * TESTS_PER_CANDIDATE))
            sides = run_verl_pattern(urls, cands, args)
            summary["verl_" + mix] = report_verl(title, sides, cands)
        if "batch" in parts:
            cands = candidates(args.batch_candidates or args.candidates, "b", args.seed + 1)
            routes: dict[str, tuple[str, Callable, int]] = {
                "sandboxfusion /submit": (urls["sandboxfusion"] + "/submit", submit_body, 1)}
            if "scalebox" in servers:
                routes["scalebox /common_evaluate_batch"] = (
                    servers["scalebox"].url + "/common_evaluate_batch", scalebox_body, 1)
            routes["judge /common_evaluate_batch"] = (judge.url + "/common_evaluate_batch",
                                                      scalebox_body, 1)
            routes["judge /v1/evaluate/batch"] = (judge.url + "/v1/evaluate/batch",
                                                  scalebox_body, args.batch_items)
            log("batch routes: %d candidates per route" % len(cands))
            summary["batch"] = report_batches(run_batches(routes, cands, args), cands)
    except KeyboardInterrupt:
        log("interrupted: stopping the servers")
        return 130
    finally:
        for server in reversed(started):
            if isinstance(server, Server):
                code, text, alive = server.stop()
                log("judge serve stopped (exit %s, %d processes left, log says sandbox "
                    "closed: %s)" % (code, len(alive), "sandbox closed" in text))
            else:
                log("%s stopped (exit %s)" % (server.built.kind, server.stop()))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
