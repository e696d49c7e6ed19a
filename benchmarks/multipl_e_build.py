"""MultiPL-E's HumanEval and MBPP in every language it ships and the judge runs, built with
MultiPL-E's own translators, as the JSON Lines ``judge import multipl-e`` reads.

MultiPL-E publishes its prompts on Hugging Face (``nuprl/MultiPL-E``, one configuration per
``<dataset>-<lang>``); they are made by its ``dataset_builder``: ``all_prepare_prompts.py``
runs, per language and variation,

    python3 prepare_prompts_json.py --lang humaneval_to_<lang>.py --prompt-terminology P \\
        --doctests D --originals O --output ../prompts/<dataset>-<lang>-<variation>.jsonl

(HumanEval from ``datasets/originals-with-cleaned-doctests``, MBPP from ``datasets/mbpp-typed``;
the published ``reworded`` variation is ``--doctests transform --prompt-terminology reworded``).
This script runs that same command, unchanged, from a MultiPL-E checkout (or a bare git
directory, as the ``fetch`` tool brings it: the three folders it needs are taken out with
``git archive``), for every ``humaneval_to_<lang>.py`` whose language the judge runs, and
writes each result as JSON Lines (``prepare_prompts_json.py`` writes one JSON array), one row
a problem: ``{"name", "language", "prompt", "doctests", "original", "prompt_terminology",
"tests", "stop_tokens"}``, the fields of the published dataset.

    .venv/bin/python benchmarks/multipl_e_build.py --multipl-e ~/src/MultiPL-E --out /tmp/multipl-e
    .venv/bin/judge import multipl-e /tmp/multipl-e/humaneval-lua-reworded.jsonl --output /tmp/he-lua

Keep the output outside this repository (no third-party data is committed here). A language
whose translator fails is reported and the others are still built; the exit status is 1 then.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.languages.frameworks import BENCHMARK_LANGUAGES  # noqa: E402

#: the variations all_prepare_prompts.py knows: (doctests, terminology, HumanEval's originals)
VARIATIONS = {"reworded": ("transform", "reworded", "originals-with-cleaned-doctests"),
              "keep": ("keep", "verbatim", "originals"),
              "transform": ("transform", "verbatim", "originals-with-cleaned-doctests"),
              "remove": ("remove", "verbatim", "originals-with-cleaned-doctests")}
NEEDED = ("dataset_builder", "datasets/originals", "datasets/originals-with-cleaned-doctests",
          "datasets/mbpp-typed")


def judged_translators(builder: Path) -> dict[str, Path]:
    """``humaneval_to_<lang>.py`` of every MultiPL-E language the judge runs (by the name
    MultiPL-E gives the language: its translator's file extension; Go's is ``go_test.go``)."""
    names = {name.split("_test.")[0] if name.endswith("_test.go") else name
             for name in BENCHMARK_LANGUAGES["multipl-e"]}
    return {name: builder / ("humaneval_to_%s.py" % name) for name in sorted(names)
            if (builder / ("humaneval_to_%s.py" % name)).is_file()}


def checkout(path: Path, scratch: Path) -> Path:
    """The folder holding ``dataset_builder``: the checkout itself, or the needed folders of a
    bare git directory written into ``scratch``."""
    if (path / "dataset_builder").is_dir():
        return path
    if not (path / "HEAD").is_file():
        raise SystemExit("%s: not a MultiPL-E checkout (no dataset_builder/) nor a git directory"
                         % path)
    present = [p for p in NEEDED if subprocess.run(
        ["git", "--git-dir", str(path), "cat-file", "-e", "HEAD:" + p],
        capture_output=True).returncode == 0]
    archive = subprocess.run(["git", "--git-dir", str(path), "archive", "HEAD", *present],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(scratch, filter="data")
    return scratch


def build_one(root: Path, translator: Path, dataset: str, variation: str, out: Path
              ) -> tuple[Path, int]:
    """Run prepare_prompts_json.py for one language and dataset; its JSON array -> JSON Lines."""
    doctests, terminology, originals = VARIATIONS[variation]
    if dataset == "mbpp":
        originals = "mbpp-typed"
    target = out / ("%s-%s-%s.jsonl" % (dataset, translator.stem[len("humaneval_to_"):],
                                        variation))
    raw = target.with_suffix(".array.json")
    command = [sys.executable, "prepare_prompts_json.py", "--lang", translator.name,
               "--prompt-terminology", terminology, "--doctests", doctests,
               "--originals", "../datasets/" + originals, "--output", str(raw)]
    done = subprocess.run(command, cwd=root / "dataset_builder", capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["exit status %d" % done.returncode])[-1]
        raise RuntimeError("%s %s: %s" % (dataset, translator.name, tail))
    rows = json.loads(raw.read_text(encoding="utf-8"))
    raw.unlink()
    with target.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return target, len(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--multipl-e", required=True, type=Path,
                        help="a MultiPL-E checkout, or its bare git directory")
    parser.add_argument("--out", required=True, type=Path, help="the folder to write (outside "
                        "this repository)")
    parser.add_argument("--dataset", action="append", choices=("humaneval", "mbpp"),
                        help="humaneval, mbpp (default: both)")
    parser.add_argument("--variation", default="reworded", choices=sorted(VARIATIONS),
                        help="MultiPL-E's prompt variation (default: reworded, the published one)")
    parser.add_argument("--lang", action="append", help="only these MultiPL-E language names")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    if out == ROOT or ROOT in out.parents:
        parser.error("--out %s is inside the repository: write it elsewhere" % out)
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        root = checkout(args.multipl_e.resolve(), Path(scratch))
        translators = judged_translators(root / "dataset_builder")
        for name in args.lang or []:
            if name not in translators:
                parser.error("language %r: no translator the judge runs (have: %s)"
                             % (name, ", ".join(translators)))
        for dataset in args.dataset or ["humaneval", "mbpp"]:
            if dataset == "mbpp" and args.variation in ("transform", "remove"):
                print("mbpp has no doctests: no %s variation" % args.variation)
                continue
            for name, translator in translators.items():
                if args.lang and name not in args.lang:
                    continue
                try:
                    target, count = build_one(root, translator, dataset, args.variation, out)
                except (RuntimeError, OSError, ValueError) as exc:
                    failed += 1
                    print("FAILED %s" % exc, file=sys.stderr)
                    continue
                print("%-40s %4d problems" % (target.name, count))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
