"""lm-evaluation-harness with the judge as metric, offline.

    python examples/integrations/lm_eval_precomputed.py                  # reference solutions
    python examples/integrations/lm_eval_precomputed.py --outputs samples.jsonl --sandbox docker

Scores saved completions (a JSON Lines file: ``problem_id``/``task_id`` and
``completion``/``solution``, the judge's solutions format) on a judge suite with lm-eval's
``simple_evaluate``: no model, no download. Without ``--outputs`` the shipped ``basics``
suite's reference solutions are written to a temporary file and scored (pass@1 = 1.0).
With a real model, pass ``model="hf", model_args=...`` to ``simple_evaluate`` instead of
``PrecomputedLM``. Needs the ``lm-eval`` extra: ``pip install 'judge[lm-eval]'``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import lm_eval

from judge.integrations.common import default_suite
from judge.integrations.lm_eval import PrecomputedLM, task_config
from judge.kinds.loader import load_suite


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default=default_suite(), help="a judge suite")
    parser.add_argument("--outputs", help="completions (JSON Lines); default: references")
    parser.add_argument("--sandbox", default="auto", help="auto, process or docker")
    args = parser.parse_args()
    outputs = args.outputs
    if outputs is None:
        outputs = str(Path(tempfile.mkdtemp()) / "references.jsonl")
        with open(outputs, "w", encoding="utf-8") as handle:
            for problem in load_suite(args.suite):
                handle.write(json.dumps({"problem_id": problem.identifier,
                                         "completion": problem.optimal_solution}) + "\n")
    results = lm_eval.simple_evaluate(
        model=PrecomputedLM(outputs), tasks=[task_config(args.suite, sandbox=args.sandbox)],
        log_samples=False, bootstrap_iters=1000)
    for task, scores in results["results"].items():
        print("%s: pass@1 %.3f (stderr %s), tests passed %.3f" % (
            task, scores["pass@1,none"], scores.get("pass@1_stderr,none"),
            scores["tests_passed,none"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
