"""``judge verify PACKAGE...``: what problemtools' ``verifyproblem`` does for a package's
authors, for its submissions: every submission in ``submissions/accepted``,
``wrong_answer``, ``time_limit_exceeded`` and ``run_time_error`` is judged by the contest
rule (stop at the first failing test) and every one that does not get its folder's verdict
is listed. A package that publishes no time limit gets one by its format's rule first (the
slowest accepted submission measured here x the multiplier), and the log says so.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from judge.cli.common import (EXIT_INPUT, EXIT_OK, add_limits, add_sandbox, dump_json, err,
                              limits)
from judge.cli.terminal import printable

#: the CPU seconds per test while measuring accepted submissions for a missing time limit
MEASURE_LIMIT_S = 10.0
#: what runs a package's Python 3 submissions: PyPy 3, as Kattis and problemtools run them
#: (judge/languages/pypy.py), or the judge's CPython
PYTHON_RUNTIMES = ("pypy3", "cpython")


def add_python_runtime(parser: Any, prefix: str = "") -> None:
    parser.add_argument("--python", choices=PYTHON_RUNTIMES, default="pypy3",
                        help="%swhat runs a package's Python 3 submissions: pypy3 (the default, "
                             "as Kattis and problemtools run them; CPython where PyPy is "
                             "missing, said in the log) or cpython" % prefix)


def python_runtime(choice: str, sandbox: Any, log: list[str]) -> str | None:
    """The language Python 3 submissions run as (None: the judge's own, CPython): PyPy 3 when
    chosen and present (the docker image has it; the process sandbox needs the host's
    ``pypy3``), else CPython with a line in ``log``."""
    if choice != "pypy3":
        return None
    from judge import languages

    if sandbox.backend() == "process":
        missing = [p for p in languages.get("pypy3").prerequisites() if not p.met]
        if missing:
            log.append("pypy3 is not available (%s): Python 3 submissions run with CPython, "
                       "slower than the PyPy their time limits were set with" % missing[0].found)
            return None
    return "pypy3"


def _run_as(item: Any, python: str | None) -> str | None:
    """The language a submission is judged in: one in the default language (Python 3) as
    ``python`` says."""
    from judge import languages

    return python if python and item.language and languages.is_default(item.language) \
        else item.language


def register(sub: Any) -> None:
    p = sub.add_parser(
        "verify", help="judge a Kattis/ICPC package's own submissions against their folders",
        description="Run every submission of the package(s) in submissions/accepted, "
                    "wrong_answer, time_limit_exceeded and run_time_error by the contest rule "
                    "and list each one that does not get its folder's verdict.")
    p.add_argument("packages", nargs="+", metavar="PACKAGE",
                   help="a problem package, or a folder of packages")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    add_limits(p)
    add_sandbox(p, isolation=False)
    add_python_runtime(p)
    p.set_defaults(func=cmd_verify)


def _judge_all(judge: Any, problem: Any, items: list[Any], jobs: int,
               time_limit_s: float | None, python: str | None = None) -> list[Any]:
    from judge.candidates.submission import Submission

    def one(item: Any) -> Any:
        sources = item.sources or {}
        several = len(sources) > 1  # a multi-file program: its files under their names
        code = "" if several else next(iter(sources.values()), "")
        return judge.judge(problem, Submission(code, "", None, _run_as(item, python)),
                           time_limit_s=time_limit_s, sources=sources if several else None,
                           model=str(item.path))

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, items))


def _time_limit(judge: Any, package: Any, accepted: list[Any], jobs: int,
                log: list[str], python: str | None = None) -> float | None:
    """The package's time limit: its own, else its format's rule on measured runs."""
    problem = package.problem
    if problem.limits.time_limit_s is not None or problem.time_rule is None:
        return None
    if not accepted:
        log.append("%s: no time limit and no accepted submission to measure: the run's "
                   "default applies" % package.identifier)
        return None
    results = _judge_all(judge, problem, accepted, jobs, MEASURE_LIMIT_S, python)
    slowest = [max((t.time_s for t in r.tests), default=0.0) for r in results
               if r.verdict.value == "pass"]
    for item, result in zip(accepted, results):
        if result.verdict.value != "pass":
            log.append("%s: the accepted %s got %s while measuring (%g s per test): the time "
                       "limit comes from the others" % (package.identifier, item.path.name,
                                                        result.verdict.value, MEASURE_LIMIT_S))
    try:
        limit, why = problem.time_rule.time_limit(slowest)
    except ValueError as exc:
        log.append("%s: %s; the run's default applies" % (package.identifier, exc))
        return None
    log.append("%s: %s" % (package.identifier, why))
    return limit


def measure_imported(paths: list[str], output: Path, sandbox_kind: str, jobs: int,
                     run_limits: Any, python: str = "pypy3") -> list[str]:
    """``judge import kattis``: a package that publishes no time limit gets one now, by its
    format's rule on its accepted submissions measured here, written into its problem file.
    Returns the log lines (what was chosen and why)."""
    from judge.running.executor import Executor
    from judge.importers.kattis import read_packages
    from judge.languages.sandbox import for_languages
    from judge.sandbox import open_sandbox

    todo = [p for p in read_packages(*paths).packages
            if p.supported and p.problem.limits.time_limit_s is None and
            p.problem.time_rule is not None and (output / ("%s.json" % p.identifier)).is_file()]
    if not todo:
        return []
    log: list[str] = []
    sandbox = for_languages(open_sandbox(sandbox_kind, jobs, notice=err, limits=run_limits), jobs)
    try:
        executor = Executor(sandbox, run_limits)
        judge = executor.kind_judge("program")
        runtime = python_runtime(python, sandbox, log)
        for package in todo:
            accepted = [s for s in package.submissions if s.folder == "accepted" and s.judged
                        and s.sources]
            limit = _time_limit(judge, package, accepted, jobs, log, runtime)
            if limit is None:
                continue
            file = output / ("%s.json" % package.identifier)
            data = json.loads(file.read_text(encoding="utf-8"))
            data.setdefault("limits", {})["time_limit_s"] = limit
            file.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    finally:
        sandbox.close()
    return log


def _why_skipped(item: Any) -> str:
    if item.language == "python2":
        return "Python 2: no Python 2 runtime here"
    if not item.judged:
        return "%s: a language the judge does not run" % item.language if item.language \
            else "unknown language"
    if not item.expected_verdict:
        return "its folder has no single verdict"
    return "no code file"


def verify_package(judge: Any, package: Any, jobs: int, python: str | None = None
                   ) -> dict[str, Any]:
    log: list[str] = list(package.notes)
    outcome: dict[str, Any] = {"package": package.identifier, "path": str(package.path),
                               "log": log, "submissions": []}
    if not package.supported:
        outcome["not_verified"] = "; ".join(package.unsupported)
        return outcome
    scored = package.problem.scoring is not None
    items = [s for s in package.submissions if s.judged and s.sources and (
        s.expected_verdict or (scored and (s.folder == "partially_accepted"
                                           or s.expected_score is not None)))]
    skipped = [s for s in package.submissions if s not in items]
    for item in skipped:
        log.append("%s: not judged (%s)" % (item.path, _why_skipped(item)))
    accepted = [s for s in items if s.folder == "accepted"]
    limit = _time_limit(judge, package, accepted, jobs, log, python)
    outcome["time_limit_s"] = limit if limit is not None else package.problem.limits.time_limit_s
    results = _judge_all(judge, package.problem, items, jobs, limit, python)
    checks = [_check(item, result) for item, result in zip(items, results)]
    _with_margin(judge, package, items, checks, jobs, outcome["time_limit_s"], log, python,
                 results)
    for item, check, result in zip(items, checks, results):
        outcome["submissions"].append({"file": str(item.path), "folder": item.folder,
                                       "language": _run_as(item, python), "verdict": check.verdict.value,
                                       "agrees": check.agrees, "message": check.message})
        if scored:
            outcome["submissions"][-1].update(score=result.score, max_score=result.max_score,
                                              groups=result.groups)
    return outcome


def _check(item: Any, result: Any) -> Any:
    """Whether a submission's result agrees with its folder (and, for a scored problem,
    the score its folder or ``submissions.yaml`` asks)."""
    from judge.engine.program_verdicts import check_scored_submission, check_submission

    if result.score is None and item.expected_score is None:
        return check_submission(item.folder, result.tests, item.expected)
    return check_scored_submission(item.folder, result.tests, result.score, result.max_score,
                                   item.expected, item.expected_score)


def _with_margin(judge: Any, package: Any, items: list[Any], checks: list[Any], jobs: int,
                 limit: float | None, log: list[str], python: str | None = None,
                 first: list[Any] | None = None) -> None:
    """problemtools' rule: a submission that times out at the time limit and should not
    gets the limit x the format's safety margin; the verdict it gets then stands ("OK with
    extra time"). A time_limit_exceeded submission must time out at the limit itself."""
    todo = [i for i, (item, check) in enumerate(zip(items, checks))
            if check.agrees is False and check.verdict.value == "timeout" and limit]
    if not todo:
        return
    high = round(limit * package.tle_margin, 3)
    results = _judge_all(judge, package.problem, [items[i] for i in todo], jobs, high, python)
    for i, result in zip(todo, results):
        again = _check(items[i], result)
        if again.agrees:
            if first is not None:
                first[i] = result
            checks[i] = type(again)(again.folder, again.verdict, True, "%s with the safety "
                                    "margin (%g s x %g = %g s; timeout at %g s)" % (
                                        again.message, limit, package.tle_margin, high, limit))
    log.append("%s: %d submission%s timed out at %g s against their folder; rerun at %g s "
               "(x %g, the format's safety margin)" % (
                   package.identifier, len(todo), "" if len(todo) == 1 else "s", limit, high,
                   package.tle_margin))


def cmd_verify(args: argparse.Namespace) -> int:
    from judge.running.executor import Executor
    from judge.importers.polygon import read_any_packages
    from judge.sandbox import open_sandbox

    found = read_any_packages(*args.packages)  # Kattis/ICPC and Polygon packages
    for issue in found.issues:  # a package's text: escaped for the terminal
        err("error: %s" % printable(issue))
    if not found.packages:
        return EXIT_INPUT
    from judge.languages.sandbox import for_languages

    sandbox = for_languages(open_sandbox(args.sandbox, args.jobs, notice=err,
                                         limits=limits(args)), args.jobs)
    outcomes = []
    try:
        executor = Executor(sandbox, limits(args))
        judge = executor.kind_judge("program")
        said: list[str] = []
        runtime = python_runtime(args.python, sandbox, said)
        for package in found.packages:
            outcome = verify_package(judge, package, args.jobs, runtime)
            outcome["log"][:0] = said
            outcomes.append(outcome)
    finally:
        sandbox.close()
    wrong = [s for o in outcomes for s in o["submissions"] if s["agrees"] is False]
    unknown = [s for o in outcomes for s in o["submissions"] if s["agrees"] is None]
    if args.json:
        dump_json({"packages": outcomes, "disagree": len(wrong), "undecided": len(unknown)})
    else:
        # what a package or its validator wrote is escaped (``printable``): no control
        # sequence of theirs reaches the terminal; the JSON above stays exact
        for outcome in outcomes:
            for line in outcome["log"]:
                print("note: %s" % printable(line))
            if "not_verified" in outcome:
                print("%s: not verified: %s" % (printable(outcome["package"]),
                                                printable(outcome["not_verified"])))
                continue
            subs = outcome["submissions"]
            bad = [s for s in subs if s["agrees"] is not True]
            print("%s: %d of %d submissions get their folder's verdict%s" % (
                printable(outcome["package"]), len(subs) - len(bad), len(subs),
                " (time limit %g s)" % outcome["time_limit_s"]
                if outcome.get("time_limit_s") else ""))
            for s in bad:
                print("  %s %s: %s" % ("WRONG" if s["agrees"] is False else "UNDECIDED",
                                       printable(s["file"]), printable(s["message"])))
    return EXIT_INPUT if wrong or unknown or found.issues else EXIT_OK


__all__ = ["PYTHON_RUNTIMES", "add_python_runtime", "cmd_verify", "python_runtime", "register",
           "verify_package"]
