"""Real contest packages judged as users judge them: the issue's three figures on a folder.

For a folder of Kattis / ICPC problem packages (each with its jury's ``submissions/``), this
runs the two commands a user runs, each as its own process with default flags:

    judge import kattis FOLDER --output SUITE
    judge verify FOLDER --json

and prints, from what ``judge verify`` reports: the share of accepted submissions that pass
(target >= 98%), the share of all judged submissions that get their folder's verdict (target
>= 95%), the number of sandbox_error verdicts (target 0), a table per language and per
folder, and every submission that misses its folder's verdict with the judge's message.

    python benchmarks/contest_archives.py FOLDER [--sandbox auto|process|docker] [--json]
                                                 [--python pypy3|cpython]

``--python`` is passed to both commands (default: theirs, PyPy 3 for Python 3 submissions as
Kattis runs them); ``--python cpython`` measures what CPython would give.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter

TARGETS = {"accepted_pass": 0.98, "folder_verdict": 0.95}


def _judge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge", *args], capture_output=True,
                          text=True)


def figures(outcome: dict) -> dict:
    subs = [s for p in outcome["packages"] for s in p["submissions"]]
    accepted = [s for s in subs if s["folder"] == "accepted"]
    by_language: dict[str, Counter] = {}
    for s in subs:
        row = by_language.setdefault(s["language"] or "?", Counter())
        row["judged"] += 1
        row["agree"] += s["agrees"] is True
    by_folder = Counter((s["folder"], s["agrees"] is True) for s in subs)
    return {
        "packages": len(outcome["packages"]),
        "not_verified": {p["package"]: p["not_verified"] for p in outcome["packages"]
                         if "not_verified" in p},
        "submissions": len(subs),
        "accepted": len(accepted),
        "accepted_pass": sum(s["verdict"] == "pass" for s in accepted) / max(1, len(accepted)),
        "folder_verdict": sum(s["agrees"] is True for s in subs) / max(1, len(subs)),
        "sandbox_error": sum(s["verdict"] == "sandbox_error" for s in subs),
        "by_language": {k: dict(v) for k, v in sorted(by_language.items())},
        "by_folder": {"%s %s" % (f, "agree" if ok else "miss"): n
                      for (f, ok), n in sorted(by_folder.items())},
        "by_package": {p["package"]: {"judged": len(p["submissions"]),
                                      "agree": sum(s["agrees"] is True
                                                   for s in p["submissions"]),
                                      "time_limit_s": p.get("time_limit_s")}
                       for p in outcome["packages"]},
        "misses": [{"file": s["file"], "folder": s["folder"], "verdict": s["verdict"],
                    "message": s["message"]} for s in subs if s["agrees"] is not True],
        "not_judged": [line for p in outcome["packages"] for line in p["log"]
                       if "not judged" in line],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="a folder of problem packages (or one package)")
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--python", choices=("pypy3", "cpython"),
                        help="what runs Python 3 submissions (default: the commands' own)")
    args = parser.parse_args()
    python = ["--python", args.python] if args.python else []
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as suite:
        imported = _judge("import", "kattis", args.folder, "--output", suite,
                          "--sandbox", args.sandbox, *python)
    if imported.returncode not in (0, 1):
        print(imported.stdout + imported.stderr, file=sys.stderr)
        return 2
    verified = _judge("verify", args.folder, "--json", "--sandbox", args.sandbox, *python)
    try:
        outcome = json.loads(verified.stdout)
    except ValueError:
        print(verified.stdout + verified.stderr, file=sys.stderr)
        return 2
    found = figures(outcome)
    found["import_exit"] = imported.returncode
    found["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps(found, indent=1))
    else:
        print("%d packages, %d submissions judged (%d accepted), %.0f s" % (
            found["packages"], found["submissions"], found["accepted"], found["seconds"]))
        for name, why in found["not_verified"].items():
            print("  not verified: %s: %s" % (name, why))
        print("accepted submissions that pass:        %5.1f%% (target >= 98%%)"
              % (100 * found["accepted_pass"]))
        print("submissions with their folder verdict: %5.1f%% (target >= 95%%)"
              % (100 * found["folder_verdict"]))
        print("sandbox_error verdicts:                %5d (target 0)" % found["sandbox_error"])
        print("by language (agree/judged): " + ", ".join(
            "%s %d/%d" % (k, v.get("agree", 0), v["judged"])
            for k, v in found["by_language"].items()))
        print("by folder: " + ", ".join("%s %d" % kv for kv in found["by_folder"].items()))
        print("by package (agree/judged, time limit): " + ", ".join(
            "%s %d/%d %ss" % (k, v["agree"], v["judged"], v["time_limit_s"])
            for k, v in found["by_package"].items()))
        for miss in found["misses"]:
            print("  MISS %s (%s -> %s): %s" % (miss["file"], miss["folder"], miss["verdict"],
                                                miss["message"]))
        for line in found["not_judged"]:
            print("  %s" % line)
    ok = found["accepted_pass"] >= TARGETS["accepted_pass"] and \
        found["folder_verdict"] >= TARGETS["folder_verdict"] and found["sandbox_error"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
