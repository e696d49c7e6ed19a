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

from judge.cli import main  # noqa: E402

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


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("action", choices=("record", "replay"))
    ap.add_argument("--format", default="markdown")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    sys.exit(record(a.format) if a.action == "record" else replay(a.format, a.repeat))
