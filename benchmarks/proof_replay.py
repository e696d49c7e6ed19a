"""Record and replay the shipped proof-grading example (examples/proofs).

    .venv/bin/python benchmarks/proof_replay.py record   # re-record the cache (stand-in model)
    .venv/bin/python benchmarks/proof_replay.py replay   # offline: agreement table, timing

``record`` serves benchmarks/proof_standin_model.py on 127.0.0.1 and runs every workflow
plus the paper's four-workflow ensemble with a cold cache; it prints calls per step.
``replay`` runs the same command ``--offline`` (no server) and times it.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from judge.cli.main import main  # noqa: E402

EX = ROOT / "examples" / "proofs"
ENSEMBLE = "ref3,ref5-plain,ref5-approachability,ref5-milestones"
MODEL = "standin-bow-1"


def args(fmt: str) -> list[str]:
    return ["grade", str(EX / "problems.jsonl"), str(EX / "solutions.jsonl"), "--workflow", "all",
            "--ensemble", ENSEMBLE, "--human", str(EX / "grades.jsonl"), "--cache", str(EX / "cache"),
            "--format", fmt]


def record(fmt: str) -> int:
    from proof_server import ScriptedServer
    from proof_standin_model import standin

    shutil.rmtree(EX / "cache", ignore_errors=True)
    server = ScriptedServer(model=standin)
    try:
        start = time.monotonic()
        code = main(args(fmt) + ["--model", MODEL, "--base-url", server.base_url, "--trace", "/dev/null"])
        print(f"\nrecorded in {time.monotonic() - start:.2f} s; {server.count()} requests served", file=sys.stderr)
        return code
    finally:
        server.close()


def replay(fmt: str, repeat: int) -> int:
    times, code = [], 0
    for _ in range(repeat):
        start = time.monotonic()
        code = main(args(fmt) + ["--offline"])
        times.append(time.monotonic() - start)
    print(f"\noffline replay: {', '.join(f'{t:.2f}' for t in times)} s", file=sys.stderr)
    return code


def calls(workflow: str) -> int:
    """Requests per step with a cold cache, a warm per-problem cache and a full cache."""
    import json
    import tempfile

    from proof_server import ScriptedServer
    from proof_standin_model import standin

    rows = (EX / "solutions.jsonl").read_text().splitlines()
    server = ScriptedServer(model=standin)
    with tempfile.TemporaryDirectory() as tmp:
        halves = [Path(tmp) / "first.jsonl", Path(tmp) / "second.jsonl", EX / "solutions.jsonl"]
        # the first half covers every problem once at least (ids are grouped by problem)
        first = rows[0::2]
        halves[0].write_text("\n".join(first) + "\n")
        halves[1].write_text("\n".join(rows[1::2]) + "\n")
        try:
            for label, sols in zip(("cold cache", "warm per-problem cache", "full cache"), halves):
                server.reset()
                n = len(sols.read_text().splitlines())
                main(["grade", str(EX / "problems.jsonl"), str(sols), "--workflow", workflow, "--model", MODEL,
                      "--base-url", server.base_url, "--cache", tmp + "/cache", "--trace", "/dev/null",
                      "--format", "json", "--output", "/dev/null"])
                per = {}
                for step in server.steps():
                    per[step] = per.get(step, 0) + 1
                print(json.dumps({"run": label, "solutions": n, "requests": server.count(), "per_step": per}),
                      file=sys.stderr)
        finally:
            server.close()
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("action", choices=("record", "replay", "calls"))
    ap.add_argument("--workflow", default="ref5-approachability")
    ap.add_argument("--format", default="markdown")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    if a.action == "calls":
        sys.exit(calls(a.workflow))
    sys.exit(record(a.format) if a.action == "record" else replay(a.format, a.repeat))
