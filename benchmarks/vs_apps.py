"""`judge run` against APPS's own evaluator on real LLM programs: the same programs, one run.

The corpus (default: the shared ``apps-mapcoder-problems.jsonl.gz``, 128 APPS problems of about
12 standard-input tests each, and ``apps-mapcoder-chatgpt-programs.jsonl.gz``, 750 programs
gpt-3.5-turbo wrote for them) is judged by two evaluators, 2 workers each, in interleaved
rounds (``--rounds``; the order alternates, so a change of the machine's load falls on both):

- **APPS**: ``eval/testing_util.py`` of a checkout of github.com/hendrycks/apps (``--apps
  PATH``; imported from there, never copied here), called as its ``eval/test_one_solution.py``
  calls it: ``check_correctness`` starts one ``multiprocessing.Process`` per program (with
  its ``Manager`` list) that runs ``run_test`` (every test in-process, a 4 s
  ``signal.alarm`` per test, ``reliability_guard()`` first) and kills it at the global
  timeout (``TIMEOUT`` + 1 = 11 s); here two such calls run at a time (a pool of two
  threads, each waiting on its program's process). A program passes when every entry of its
  result is ``True`` (test_one_solution's strict accuracy). testing_util imports ``pyext``,
  whose last release (0.7, 2014) does not import on Python 3.11 (``inspect.getargspec``);
  when it is missing, a stand-in ``pyext.RuntimeModule.from_string`` does what 0.7's does
  (exec the code in a fresh dictionary, a module of what it defined), nothing more.
- **the judge**: the problems imported with ``judge import apps`` into a temporary suite,
  then ``judge run SUITE --solutions FILE --jobs 2`` with no other flag (its defaults: the
  auto sandbox, dedup, every test run as the imported problems say, on-failure isolation).

Both run every test of a program (neither stops at the first failure by default); what is
compared is pass/fail, which is what both report. Each evaluator is a separate process timed
from start to exit (the judge pays its start-up, suite loading and sandbox start; APPS its
interpreter and numpy import). CPU seconds of each (its process and the processes it reaped)
are printed beside the wall clock; the docker sandbox's test processes belong to the
container, not to ``judge run``'s process tree, so the judge's CPU then counts its own
process only (said in the output).

Every disagreement is listed with its reason: APPS's known artefact (a program whose code
runs under ``if __name__ == "__main__":`` prints nothing under its wrapper, which runs the
code as a function of a module that is not ``__main__``), APPS's global timeout (a program
killed at 11 s gets ``[-1] * 21``, failing whatever its tests did), a time limit (the judge's
CPU seconds per test against APPS's 4 s of wall clock), or the comparison (the judge's
``tokens`` checker against APPS's line rules).

    .venv/bin/python benchmarks/vs_apps.py --apps /tmp/apps [--rounds 3] [--jobs 2]
        [--limit N] [--json-out FILE]

(``git --git-dir=<bare apps clone> archive HEAD | tar -x -C /tmp/apps`` makes the work tree.)
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data"
BIN = Path(sys.executable).parent
#: test_one_solution.py's global timeout (the process is joined for TIMEOUT + 1 s)
APPS_TIMEOUT = 10
#: what test_one_solution's check_correctness returns for a program killed at its timeout
APPS_KILLED = [-1] * 21

#: The APPS side, run as a process of its own: argv = apps checkout, problems, programs,
#: results file, jobs, timeout. check_correctness is test_one_solution.py's (without its
#: debug prints; the module itself imports ``datasets``, which it needs only for
#: Hugging Face loading, so it is not imported).
APPS_RUNNER = r'''
import json, multiprocessing, sys, types
from concurrent.futures import ThreadPoolExecutor

apps, problems_path, programs_path, out_path, jobs, timeout = sys.argv[1:7]
jobs, timeout = int(jobs), float(timeout)
try:
    import pyext  # noqa: F401
except Exception:
    # pyext 0.7's RuntimeModule.from_string: exec in a fresh dict, a module of what it made
    stand_in = types.ModuleType("pyext")

    class _RuntimeModule:
        @staticmethod
        def from_string(name, docstring, source=None):
            if source is None:
                name, docstring, source = name, "", docstring
            g = {}
            exec(source, g)
            module = types.ModuleType(name, docstring)
            module.__dict__.update({k: v for k, v in g.items() if k != "__builtins__"})
            module.__file__ = "<runtime_module>"
            sys.modules[name] = module
            return module

    stand_in.RuntimeModule = _RuntimeModule()
    sys.modules["pyext"] = stand_in
sys.path.insert(0, apps + "/eval")
import numpy as np
import testing_util as test_util


def check_correctness(problem, generation, timeout, debug):
    """eval/test_one_solution.py's, as it is (its debug prints left out)."""
    def _temp_run(problem, generation, debug, result):
        try:
            result.append(test_util.run_test(problem=problem, test=generation, debug=debug))
        except Exception:
            pass

    manager = multiprocessing.Manager()
    result = manager.list()
    p = multiprocessing.Process(target=_temp_run, args=(problem, generation, debug, result))
    p.start()
    p.join(timeout=timeout + 1)
    if p.is_alive():
        p.kill()
    if not result:
        avg_number_tests = 21
        result = [[-1] * avg_number_tests]
    return result[0]


def plain(values):
    fixed = []
    for e in values:
        if isinstance(e, np.ndarray):
            e = e.item(0)
        if isinstance(e, np.bool_):
            e = bool(e)
        fixed.append(e)
    return fixed


problems = {}
with open(problems_path, encoding="utf-8") as handle:
    for line in handle:
        if line.strip():
            record = json.loads(line)
            record["input_output"] = json.loads(record["input_output"])
            problems[str(record["problem_id"])] = record
programs = [json.loads(line) for line in open(programs_path, encoding="utf-8") if line.strip()]


def one(program):
    try:
        return plain(check_correctness(problems[str(program["problem_id"])],
                                       program["solution"], timeout, False))
    except Exception as exc:
        return ["framework: %r" % exc]


with ThreadPoolExecutor(jobs) as pool:
    results = list(pool.map(one, programs))
with open(out_path, "w", encoding="utf-8") as out:
    json.dump(results, out)
'''


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def timed(command: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Wall and CPU seconds (its own and its reaped children's) of a command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        raise RuntimeError("%s exited %d: %s" % (command[0], done.returncode,
                                                 done.stderr.decode(errors="replace")[-800:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def prepare(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """The problems (plain JSON Lines, for APPS), the programs (``--limit``: the first N)
    as a solutions file both read, and the suite ``judge import apps`` writes."""
    problems = read_jsonl(args.problems)
    programs = read_jsonl(args.programs)
    if args.limit:
        programs = programs[:args.limit]
    problems_file = workdir / "problems.jsonl"
    with open(problems_file, "w", encoding="utf-8") as out:
        for row in problems:
            out.write(json.dumps(row) + "\n")
    solutions = workdir / "programs.jsonl"
    with open(solutions, "w", encoding="utf-8") as out:
        for row in programs:
            out.write(json.dumps({"problem_id": str(row["problem_id"]),
                                  "solution": row["solution"], "model": row.get("model"),
                                  "sample": row.get("sample")}) + "\n")
    suite = workdir / "suite"
    started = time.perf_counter()
    subprocess.run([str(BIN / "judge"), "import", "apps", str(args.problems), "--output",
                    str(suite)], check=True, stdout=subprocess.DEVNULL)
    return {"problems": problems_file, "solutions": solutions, "suite": suite,
            "programs": programs, "tests": {str(p["problem_id"]): len(json.loads(
                p["input_output"])["inputs"]) for p in problems},
            "import_s": time.perf_counter() - started}


def run_apps(corpus: dict[str, Any], args: argparse.Namespace,
             workdir: Path) -> tuple[float, float, list[list[Any]]]:
    out = workdir / "apps-results.json"
    out.unlink(missing_ok=True)
    wall, cpu = timed([sys.executable, "-c", APPS_RUNNER, str(args.apps),
                       str(corpus["problems"]), str(corpus["solutions"]), str(out),
                       str(args.jobs), str(args.timeout)])
    return wall, cpu, json.loads(out.read_text(encoding="utf-8"))


def run_judge(corpus: dict[str, Any], args: argparse.Namespace,
              workdir: Path) -> tuple[float, float, list[dict[str, Any]]]:
    out = workdir / "judge-results.jsonl"
    out.unlink(missing_ok=True)
    # exit 1: judged, with input issues reported (every line is still judged: counted below)
    wall, cpu = timed([str(BIN / "judge"), "run", str(corpus["suite"]), "--solutions",
                       str(corpus["solutions"]), "--jobs", str(args.jobs), "--output",
                       str(out), "--progress", "off", "--format", "json"], ok=(0, 1))
    results = sorted(read_jsonl(out), key=lambda r: r.get("line", 0))
    if len(results) != len(corpus["programs"]):
        raise RuntimeError("judge wrote %d results for %d programs"
                           % (len(results), len(corpus["programs"])))
    return wall, cpu, results


def apps_passed(result: list[Any]) -> bool:
    """test_one_solution's strict accuracy: every entry > 0 (True; -1, -2, False fail)."""
    return bool(result) and all(not isinstance(x, str) and x is not None and x > 0
                                for x in result)


def reason(program: dict[str, Any], ours: dict[str, Any], theirs: list[Any],
           tests: int) -> str:
    """Why the two disagree on a program, as far as the records tell."""
    code = program["solution"]
    failing = [t for t in ours.get("tests") or [] if t.get("verdict") != "pass"]
    if "__name__" in code and "__main__" in code and (theirs == APPS_KILLED or not
                                                      apps_passed(theirs)):
        return "APPS artefact: the code runs under `if __name__ == \"__main__\":`, which " \
            "APPS's wrapper never enters (it prints nothing)"
    if theirs == APPS_KILLED and tests != 21:
        return "APPS's global timeout (%d s): the program was killed, [-1]*21" % (
            APPS_TIMEOUT + 1)
    if any(t.get("verdict") == "timeout" for t in failing):
        return "time limit: the judge's %s s CPU per test, APPS's 4 s wall clock" % (
            ours.get("time_limit_s"))
    if any(x == -1 for x in theirs):
        return "APPS: a runtime error or its 4 s alarm (-1) on test(s) %s" % [
            i + 1 for i, x in enumerate(theirs) if x == -1]
    if any(x == -2 for x in theirs):
        return "APPS: its wrapper did not compile the code (-2)"
    if failing:
        return "comparison: the judge's %s on test %d (%s); APPS passed it" % (
            failing[0].get("verdict"), failing[0].get("index", 0) + 1,
            (failing[0].get("message") or "")[:120])
    return "comparison: the judge passed; APPS failed test(s) %s" % [
        i + 1 for i, x in enumerate(theirs) if not (x is True or x == 1)]


def measure(corpus: dict[str, Any], args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    rounds: list[dict[str, Any]] = []
    last: dict[str, Any] = {}
    for index in range(args.rounds):
        order = ["apps", "judge"] if index % 2 == 0 else ["judge", "apps"]
        entry: dict[str, Any] = {"order": order}
        for name in order:
            log("round %d: %s" % (index + 1, name))
            if name == "apps":
                entry["apps_s"], entry["apps_cpu_s"], last["apps"] = run_apps(corpus, args,
                                                                              workdir)
            else:
                entry["judge_s"], entry["judge_cpu_s"], last["judge"] = run_judge(
                    corpus, args, workdir)
        entry["ratio"] = entry["apps_s"] / entry["judge_s"]
        rounds.append(entry)
        log("round %d: APPS %.1f s (%.1f CPU s), judge %.1f s (%.1f CPU s), ratio %.2fx"
            % (index + 1, entry["apps_s"], entry["apps_cpu_s"], entry["judge_s"],
               entry["judge_cpu_s"], entry["ratio"]))
    ours = [r.get("verdict") == "pass" for r in last["judge"]]
    theirs = [apps_passed(r) for r in last["apps"]]
    disagreements = []
    for i, (program, a, b) in enumerate(zip(corpus["programs"], ours, theirs)):
        if a != b:
            disagreements.append({
                "line": i + 1, "problem_id": str(program["problem_id"]),
                "model": program.get("model"), "sample": program.get("sample"),
                "judge": last["judge"][i].get("verdict"), "apps": last["apps"][i],
                "reason": reason(program, last["judge"][i], last["apps"][i],
                                 corpus["tests"].get(str(program["problem_id"]), 0))})
    verdicts: dict[str, int] = {}
    for r in last["judge"]:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    return {"rounds": rounds, "agree": len(ours) - len(disagreements), "programs": len(ours),
            "judge_passed": sum(ours), "apps_passed": sum(theirs), "judge_verdicts": verdicts,
            "apps_killed": sum(1 for r in last["apps"] if r == APPS_KILLED),
            "sandbox": ",".join(sorted({str(r.get("sandbox")) for r in last["judge"]})),
            "disagreements": disagreements}


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def report(summary: dict[str, Any]) -> None:
    rounds = summary["rounds"]
    apps_s = _median([r["apps_s"] for r in rounds])
    judge_s = _median([r["judge_s"] for r in rounds])
    n = summary["programs"]
    print("machine: %s; %d workers each; %d round(s); load %s before, %s after" % (
        summary["machine"], summary["jobs"], len(rounds), summary["load_before"],
        summary["load_after"]))
    print("| evaluator | median s | programs/s | CPU s (median) | passed |")
    print("|---|---|---|---|---|")
    print("| APPS testing_util (process per program, %d s global timeout) | %.1f | %.2f | "
          "%.1f | %d |" % (APPS_TIMEOUT + 1, apps_s, n / apps_s,
                           _median([r["apps_cpu_s"] for r in rounds]), summary["apps_passed"]))
    print("| judge run (defaults) | %.1f | %.2f | %.1f%s | %d |" % (
        judge_s, n / judge_s, _median([r["judge_cpu_s"] for r in rounds]),
        summary["cpu_note"], summary["judge_passed"]))
    print("ratio of the medians %.2fx; per round %s" % (
        apps_s / judge_s, ", ".join("%.2f" % r["ratio"] for r in rounds)))
    print("pass/fail agreement: %d/%d (%.2f%%); APPS killed %d program(s) at its global "
          "timeout; judge verdicts %s" % (
              summary["agree"], n, 100.0 * summary["agree"] / max(n, 1),
              summary["apps_killed"], summary["judge_verdicts"]))
    for d in summary["disagreements"]:
        print("- line %d, problem %s (%s #%s): judge %s, APPS %s: %s" % (
            d["line"], d["problem_id"], d["model"], d["sample"], d["judge"],
            d["apps"] if len(d["apps"]) <= 24 else "%d results" % len(d["apps"]),
            d["reason"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", type=Path, required=True,
                        help="a work tree of github.com/hendrycks/apps (its eval/testing_util.py)")
    parser.add_argument("--problems", type=Path,
                        default=DATA / "apps-mapcoder-problems.jsonl.gz")
    parser.add_argument("--programs", type=Path,
                        default=DATA / "apps-mapcoder-chatgpt-programs.jsonl.gz")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="the first N programs only "
                        "(a smoke run)")
    parser.add_argument("--timeout", type=float, default=APPS_TIMEOUT,
                        help="APPS's global timeout, test_one_solution's TIMEOUT (10)")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    if not (args.apps / "eval" / "testing_util.py").is_file():
        parser.error("--apps %s: no eval/testing_util.py there (a work tree of "
                     "hendrycks/apps is needed)" % args.apps)
    args.apps = args.apps.resolve()
    with tempfile.TemporaryDirectory(prefix="vs-apps-") as tmp:
        workdir = Path(tmp)
        corpus = prepare(args, workdir)
        log("imported %d problems in %.1f s; %d programs" % (
            len(corpus["tests"]), corpus["import_s"], len(corpus["programs"])))
        load_before = [round(x, 2) for x in os.getloadavg()]
        summary = measure(corpus, args, workdir)
    summary.update({
        "command": " ".join([Path(sys.executable).name] + sys.argv),
        "machine": "%d CPUs, %s, Python %s" % (os.cpu_count() or 0, platform.platform(),
                                               platform.python_version()),
        "jobs": args.jobs, "load_before": load_before,
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "cpu_note": " (its process only: tests ran in docker)"
        if summary["sandbox"] == "docker" else ""})
    report(summary)
    if args.json_out:
        args.json_out.write_text(json.dumps(summary, indent=1, default=str) + "\n",
                                 encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
