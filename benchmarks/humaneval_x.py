"""Human-written HumanEval solutions in C++, JavaScript, Go, Rust and Java (HumanEval-X's kind
of code), judged against the imported HumanEval suite: per language, how many pass, and every
one that does not, with its verdict and message.

Sources, per language (``--source``):

- ``corpus`` (default): ``tests/data/humaneval-x/<lang>.jsonl`` (written in HumanEval-X's
  style), ``tests/data/humaneval-x/humanevalpack.jsonl`` (HumanEval-X's own solutions as
  HumanEvalPack ships them) and ``tests/data/langs/humaneval_human.jsonl``, each marked with
  the verdict it should get (a mismatch is listed as a judge bug);
- a folder holding HumanEval-X's release files (``humaneval_cpp.jsonl.gz``, ``humaneval_go...``,
  or unpacked ``.jsonl``; Apache-2.0, THUDM/CodeGeeX): each problem's ``declaration`` +
  ``canonical_solution`` is one candidate, as HumanEval-X's own evaluator builds it.

    .venv/bin/python benchmarks/humaneval_x.py                          # the corpus, process
    .venv/bin/python benchmarks/humaneval_x.py --source ~/humaneval-x --sandbox docker
    .venv/bin/python benchmarks/humaneval_x.py --languages go,rust --json figures.json

It takes a while (every candidate is compiled): run it as a script, not in the unit tests
(tests/languages/test_lang_humaneval_x.py judges the corpus's representative part).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "humaneval-x"
OLDER = ROOT / "tests" / "data" / "langs" / "humaneval_human.jsonl"
LANGUAGES = ("cpp", "js", "go", "rust", "java")
#: HumanEval-X's task prefixes and file names per language
PREFIX = {"cpp": "CPP", "js": "JavaScript", "go": "Go", "rust": "Rust", "java": "Java"}


def corpus_rows(languages: list[str]) -> list[dict]:
    rows = []
    for path in [OLDER, CORPUS / "humanevalpack.jsonl"] + [CORPUS / ("%s.jsonl" % lang)
                                                         for lang in languages]:
        if path.is_file():
            rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r["language"] in languages]


def _open(path: Path):
    return gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open()


def release_rows(folder: Path, languages: list[str]) -> list[dict]:
    """HumanEval-X's release records as candidates: declaration + canonical solution (Rust and
    Go: the prompt's ``fn main`` / package line are in the declaration already)."""
    rows = []
    for lang in languages:
        found = sorted(folder.rglob("humaneval_%s.jsonl*" % lang))
        if not found:
            print("no HumanEval-X file for %s under %s" % (lang, folder), file=sys.stderr)
            continue
        with _open(found[0]) as handle:
            for line in handle:
                if not line.strip():
                    continue
                record = json.loads(line)
                number = int(re.sub(r"\D", "", record["task_id"].split("/")[-1]))
                code = record["declaration"] + record["canonical_solution"]
                rows.append({"task_id": "HumanEval/%d" % number, "language": lang,
                             "completion": code, "model": "humaneval-x"})
    return rows


def judge(rows: list[dict], sandbox: str, jobs: int) -> list[dict]:
    from judge.cli.main import main
    from judge.importers import import_suite

    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "humaneval"
        suite.mkdir()
        import_suite("humaneval", None, suite)
        solutions, results = Path(tmp) / "solutions.jsonl", Path(tmp) / "results.jsonl"
        solutions.write_text("".join(json.dumps(r) + "\n" for r in rows))
        main(["run", str(suite), "--solutions", str(solutions), "--sandbox", sandbox,
              "--jobs", str(jobs), "--output", str(results)])
        return [json.loads(line) for line in results.read_text().splitlines()]


def summary(rows: list[dict], results: list[dict]) -> dict:
    """Per language: candidates, passes, sandbox errors, each failure, and each verdict that
    disagrees with the candidate's mark (results come in the order of the solutions)."""
    figures: dict = defaultdict(lambda: {"candidates": 0, "pass": 0, "sandbox_error": 0,
                                         "failures": [], "unexpected": []})
    if len(results) != len(rows):
        raise SystemExit("%d results for %d candidates" % (len(results), len(rows)))
    for row, result in zip(rows, results):
        assert (result["problem_id"], result["language"]) == (row["task_id"], row["language"])
        lang = figures[row["language"]]
        lang["candidates"] += 1
        verdict = result["verdict"]
        if verdict == "pass":
            lang["pass"] += 1
        else:
            if verdict == "sandbox_error":
                lang["sandbox_error"] += 1
            lang["failures"].append({"task_id": row["task_id"], "verdict": verdict,
                                     "message": result.get("message"), "why": row.get("why")})
        if "expect" in row and (verdict == "pass") != (row["expect"] == "pass"):
            lang["unexpected"].append({"task_id": row["task_id"], "expect": row["expect"],
                                       "verdict": verdict})
    return dict(figures)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default="corpus",
                        help="'corpus' or a folder with HumanEval-X's humaneval_<lang>.jsonl(.gz)")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--sandbox", default="process")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    languages = [lang.strip() for lang in args.languages.split(",") if lang.strip()]
    rows = corpus_rows(languages) if args.source == "corpus" else release_rows(
        Path(args.source).expanduser(), languages)
    started = time.monotonic()
    results = judge(rows, args.sandbox, args.jobs)
    figures = summary(rows, results)
    print("\n%-6s %10s %6s %8s %14s" % ("lang", "candidates", "pass", "pass %", "sandbox_error"))
    for lang, f in sorted(figures.items()):
        print("%-6s %10d %6d %7.1f%% %14d" % (lang, f["candidates"], f["pass"],
                                              100.0 * f["pass"] / max(1, f["candidates"]),
                                              f["sandbox_error"]))
    for lang, f in sorted(figures.items()):
        for failure in f["failures"]:
            print("  %s %-14s %-14s %s" % (lang, failure["task_id"], failure["verdict"],
                                           (failure["why"] or failure["message"] or "")[:150]))
        for odd in f["unexpected"]:
            print("  UNEXPECTED %s %s: marked %s, judged %s" % (lang, odd["task_id"],
                                                                odd["expect"], odd["verdict"]))
    print("%.0f s" % (time.monotonic() - started))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 1 if any(f["unexpected"] or f["sandbox_error"] for f in figures.values()) else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
