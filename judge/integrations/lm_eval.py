"""lm-evaluation-harness with the judge as metric, offline (``pip install 'judge[lm-eval]'``).

lm-eval's own code tasks (``humaneval``, ``mbpp``) score with ``evaluate``'s ``code_eval``,
which runs the model's code in the evaluating process itself, unsandboxed, behind
``HF_ALLOW_CODE_EVAL=1``. Here the code goes to the judge's sandbox instead, and the suite is
any judge suite (shipped, imported from HumanEval/MBPP, your own), in any of its languages::

    import lm_eval
    from judge.integrations.lm_eval import task_config

    lm_eval.simple_evaluate(model="hf", model_args="pretrained=...",
                            tasks=[task_config("problems/basics", sandbox="docker")])

or for the ``lm_eval`` command line, a task folder: ``python -m judge.integrations.lm_eval
problems/basics --folder tasks/judge`` and then ``lm_eval --include_path tasks/judge --tasks
judge_basics ...``.

- :func:`task_config` is a ``generate_until`` task: one document per problem (its first
  prompt, or every prompt with ``all_prompts``) as ``judge prompts`` renders it; its
  metrics are ``pass@1`` (the judge's verdict is ``pass``) and ``tests_passed`` (the share of
  the problem's tests passed), both means over documents.
- :func:`process_results` is the metric alone, for a task of your own whose documents carry a
  ``problem_id`` (and optionally ``prompt_id``, ``language``).
- :class:`PrecomputedLM` (model name ``judge-precomputed``) answers from completions already
  generated (a JSON Lines file with ``problem_id`` and ``completion`` or ``solution``, the
  judge's solutions format): scoring saved outputs with no model at all.

A ``sandbox_error`` (the judge's failure, never the candidate's) raises
:class:`~judge.integrations.common.NotJudged` instead of scoring 0.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

try:
    import datasets
    from lm_eval.api.model import LM
    from lm_eval.api.registry import register_model
except ImportError as exc:  # pragma: no cover - depends on the extra
    raise ImportError("judge.integrations.lm_eval needs lm-eval: pip install "
                      "'judge[lm-eval]' (%s)" % exc, name=exc.name) from exc

from judge.integrations.common import (
    checked, default_suite, prompt_rows, result_metadata, shared_judge,
)
from judge.scoring.passk import pass_at_k

__all__ = ["PrecomputedLM", "dataset", "process_results", "task_config", "write_task"]

#: the k of pass@k reported with ``repeats`` samples per document (those up to ``repeats``)
KS = (1, 2, 5, 10, 20, 50, 100)


def metrics(repeats: int = 1) -> list[dict[str, Any]]:
    """pass@k for every k in :data:`KS` up to ``repeats``, and ``tests_passed``: means."""
    names = ["pass@%d" % k for k in KS if k <= max(1, repeats)] + ["tests_passed"]
    return [{"metric": name, "aggregation": "mean", "higher_is_better": True}
            for name in names]


def _filters(repeats: int) -> list[dict[str, Any]] | None:
    """Every sample kept (lm-eval's default keeps the first of the repeats)."""
    if repeats <= 1:
        return None
    return [{"name": "all", "filter": [{"function": "take_first_k", "k": repeats}]}]


def dataset(suite: str | None = None, language: str | None = None, genericize: bool = False,
            all_prompts: bool = False, **_metadata: Any) -> dict[str, Any]:
    """The task's documents (split ``test``), built in memory from the suite: no download.
    lm-eval passes the task's metadata as keyword arguments; the ones not named are unused."""
    rows = prompt_rows(suite or default_suite(), language, genericize, all_prompts)
    return {"test": datasets.Dataset.from_list(rows)}


def process_results(doc: dict[str, Any], results: list[Any], *, suite: Any = None,
                    sandbox: str = "auto", jobs: int = 1, **limits: Any) -> dict[str, float]:
    """Judge the ``generate_until`` replies of a document (code or raw replies: prose and
    fences are stripped) against the judge problem ``doc["problem_id"]``: pass@k (the
    unbiased estimator) for every k in :data:`KS` up to the number of replies, and
    ``tests_passed`` (the mean share of the problem's tests passed)."""
    replies = results[0] if len(results) == 1 and isinstance(results[0], list) else results
    replies = [str(r) for r in replies] or [""]
    judge = shared_judge(suite, sandbox, jobs, **limits)
    judged = list(judge.judge_many(
        (doc["problem_id"], reply, {"prompt_id": doc.get("prompt_id"), "sample": index,
                                    "language": doc.get("language")})
        for index, reply in enumerate(replies)))
    details = [result_metadata(checked(result)) for result in judged]
    n, c = len(details), sum(d["verdict"] == "pass" for d in details)
    scores = {"pass@%d" % k: pass_at_k(n, c, k) for k in KS if k <= n}
    scores["tests_passed"] = sum(d["passed"] / d["total"] if d["total"] else 0.0
                                 for d in details) / n
    return scores


def task_config(suite: str | None = None, *, name: str | None = None,
                language: str | None = None, genericize: bool = False,
                all_prompts: bool = False, sandbox: str = "auto", jobs: int = 1,
                max_gen_toks: int = 1024, repeats: int = 1, temperature: float = 0.8,
                **limits: Any) -> dict[str, Any]:
    """A task for ``lm_eval.simple_evaluate(tasks=[...])``: the suite's prompts, the judge as
    metric (``limits`` are the judge's: ``time_limit_s=2``...). ``repeats`` > 1 samples that
    many replies per document (at ``temperature``) and reports pass@k up to it."""
    suite = str(suite or default_suite())
    config = {
        "task": name or "judge_%s" % Path(suite.rstrip("/")).stem,
        "custom_dataset": functools.partial(dataset, suite, language, genericize,
                                            all_prompts),
        "test_split": "test",
        "output_type": "generate_until",
        "doc_to_text": "{{prompt}}",
        "doc_to_target": "{{problem_id}}",
        "generation_kwargs": _generation(max_gen_toks, repeats, temperature),
        "process_results": functools.partial(process_results, suite=suite, sandbox=sandbox,
                                             jobs=jobs, **limits),
        "metric_list": metrics(repeats),
        "metadata": {"version": 1.0},
    }
    if repeats > 1:
        config.update(repeats=repeats, filter_list=_filters(repeats))
    return config


def _generation(max_gen_toks: int, repeats: int, temperature: float) -> dict[str, Any]:
    if repeats <= 1:
        return {"until": [], "max_gen_toks": max_gen_toks, "do_sample": False}
    return {"until": [], "max_gen_toks": max_gen_toks, "do_sample": True,
            "temperature": temperature}


_UTILS = '''"""lm-eval task utilities written by judge.integrations.lm_eval.write_task."""
import functools

from judge.integrations import lm_eval as _judge

SETTINGS = %(settings)s
dataset = functools.partial(_judge.dataset, SETTINGS["suite"], SETTINGS["language"],
                            SETTINGS["genericize"], SETTINGS["all_prompts"])
process_results = functools.partial(_judge.process_results, suite=SETTINGS["suite"],
                                    sandbox=SETTINGS["sandbox"], jobs=SETTINGS["jobs"],
                                    **SETTINGS["limits"])
'''

def write_task(folder: str | Path, suite: str | None = None, *, name: str | None = None,
               language: str | None = None, genericize: bool = False,
               all_prompts: bool = False, sandbox: str = "auto", jobs: int = 1,
               max_gen_toks: int = 1024, repeats: int = 1, temperature: float = 0.8,
               **limits: Any) -> Path:
    """A task folder for ``lm_eval --include_path FOLDER --tasks NAME``: ``NAME.yaml`` (the
    :func:`task_config` task) and the module its ``!function`` entries name. Returns the
    YAML file."""
    import yaml

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    suite = str(Path(suite).resolve()) if suite else default_suite()
    config = task_config(suite, name=name, language=language, genericize=genericize,
                         all_prompts=all_prompts, sandbox=sandbox, jobs=jobs,
                         max_gen_toks=max_gen_toks, repeats=repeats,
                         temperature=temperature, **limits)
    module = "%s_utils" % config["task"]
    settings = {"suite": suite, "language": language, "genericize": genericize,
                "all_prompts": all_prompts, "sandbox": sandbox, "jobs": jobs,
                "limits": limits}
    (folder / ("%s.py" % module)).write_text(
        _UTILS % {"settings": repr(settings)}, encoding="utf-8")
    plain = {k: v for k, v in config.items() if not callable(v)}
    text = "custom_dataset: !function %s.dataset\nprocess_results: !function %s." \
           "process_results\n" % (module, module)
    path = folder / ("%s.yaml" % config["task"])
    path.write_text(yaml.safe_dump(plain, sort_keys=False) + text, encoding="utf-8")
    return path


def _read_outputs(path: str | Path) -> dict[str, list[str]]:
    from judge import jsonl

    outputs: dict[str, list[str]] = {}
    for _, row in jsonl.read_objects(Path(path)):
        problem = row.get("problem_id", row.get("task_id"))
        text = row.get("completion", row.get("solution"))
        if isinstance(problem, str) and isinstance(text, str):
            outputs.setdefault(problem, []).append(text)
    return outputs


@register_model("judge-precomputed")
class PrecomputedLM(LM):
    """An "LM" that answers each document with completions generated earlier: ``outputs``
    maps a problem id to a completion or a list of them, or is a JSON Lines file of the
    judge's solutions format (``problem_id``/``task_id`` and ``completion``/``solution``; a
    problem's lines in order). The i-th request of a document (lm-eval's ``repeats``) gets
    its i-th completion (the last one again past the end); a problem with none gets an empty
    reply (judged ``compile_error``)."""

    def __init__(self, outputs: dict[str, Any] | str | Path, **_: Any) -> None:
        super().__init__()
        if isinstance(outputs, dict):
            self.outputs = {str(k): [v] if isinstance(v, str) else [str(x) for x in v]
                            for k, v in outputs.items()}
        else:
            self.outputs = _read_outputs(outputs)

    @classmethod
    def create_from_arg_string(cls, arg_string: str, additional_config: dict | None = None
                               ) -> "PrecomputedLM":
        args = dict(part.split("=", 1) for part in arg_string.split(",") if "=" in part)
        if "outputs" not in args:
            raise ValueError("judge-precomputed needs model_args outputs=FILE.jsonl")
        return cls(args["outputs"])

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        served: dict[str, int] = {}
        replies = []
        for request in requests:
            doc = request.doc or {}
            problem, key = str(doc.get("problem_id")), json.dumps(
                [doc.get("problem_id"), doc.get("prompt_id")])
            index = served[key] = served.get(key, -1) + 1
            texts = self.outputs.get(problem) or [""]
            replies.append(texts[min(index, len(texts) - 1)])
        return replies

    def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError("judge-precomputed only answers generate_until tasks")

    def loglikelihood_rolling(self, requests: list[Any], disable_tqdm: bool = False
                              ) -> list[Any]:
        raise NotImplementedError("judge-precomputed only answers generate_until tasks")


def main(argv: list[str] | None = None) -> int:
    """``python -m judge.integrations.lm_eval SUITE --folder DIR``: write a task folder."""
    parser = argparse.ArgumentParser(prog="python -m judge.integrations.lm_eval",
                                     description=main.__doc__)
    parser.add_argument("suite", help="a judge suite (problem file or folder)")
    parser.add_argument("--folder", required=True, help="where to write the task")
    parser.add_argument("--name", help="task name (default: judge_<suite>)")
    parser.add_argument("--language", help="the language the prompts ask for")
    parser.add_argument("--sandbox", default="auto", help="auto, process or docker")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    path = write_task(args.folder, args.suite, name=args.name, language=args.language,
                      sandbox=args.sandbox, jobs=args.jobs)
    print(json.dumps({"task": path.stem, "include_path": str(path.parent)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
