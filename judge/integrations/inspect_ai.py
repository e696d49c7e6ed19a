"""inspect_ai with the judge as scorer (``pip install 'judge[inspect]'``).

    from inspect_ai import eval
    from judge.integrations.inspect_ai import judge_task

    eval(judge_task("problems/basics", sandbox="docker"), model="openai/gpt-4o-mini")

or from the command line: ``inspect eval judge/integrations/inspect_ai.py@judge_task -T
suite=problems/basics --model ...``.

- :func:`judge_scorer` judges ``state.output.completion`` (code or a raw reply: prose and
  fences are stripped) against the judge problem named by the sample's ``problem_id``
  metadata (else its id). The score is ``C``/``I`` (so ``accuracy`` and ``stderr`` are the
  pass rate and its standard error); its metadata, and the sample's under ``judge``, hold the
  verdict and the per-test results (index, verdict, time, message, the value returned), so
  ``inspect view`` shows why a sample failed. A ``sandbox_error`` (the judge's failure, never
  the candidate's) raises: inspect records an error for the sample, not a wrong answer.
- :func:`judge_task` is a ready task: one sample per problem (or per prompt) of a judge suite (as ``judge
  prompts`` renders it, in any language), ``generate()``, and the judge as scorer.

The scorer judges through one warm :class:`judge.Judge` per configuration, kept for the
process (closed at exit), at most ``jobs`` candidates at once.
"""

from __future__ import annotations

from typing import Any

try:
    from inspect_ai import Epochs, Task, task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.scorer import (
        CORRECT, INCORRECT, Score, Target, accuracy, pass_at, scorer, stderr,
    )
    from inspect_ai.solver import TaskState, generate
except ImportError as exc:  # pragma: no cover - depends on the extra
    raise ImportError("judge.integrations.inspect_ai needs inspect_ai: pip install "
                      "'judge[inspect]' (%s)" % exc, name=exc.name) from exc

from judge.integrations.common import (
    checked, default_suite, prompt_rows, result_metadata, shared_judge,
)

__all__ = ["judge_samples", "judge_scorer", "judge_task"]


@scorer(metrics=[accuracy(), stderr()])
def judge_scorer(suite: str | list[str] | None = None, sandbox: str = "auto", jobs: int = 1,
                 language: str | None = None, **limits: Any):
    """Judge the completion against the sample's judge problem (``problem_id`` in its
    metadata, else the sample id), looked up in ``suite`` (a path or several; default: the
    shipped suites). ``limits`` are the judge's (``time_limit_s=2``, ``memory_mb=256``...)."""

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata if isinstance(state.metadata, dict) else {}
        problem_id = str(metadata.get("problem_id") or state.sample_id)
        judge = shared_judge(suite, sandbox, jobs, **limits)
        result = checked(await judge.ajudge(
            problem_id, state.output.completion, model=str(state.model),
            prompt_id=metadata.get("prompt_id"), sample=state.epoch,
            language=metadata.get("language") or language))
        details = result_metadata(result)
        state.metadata["judge"] = details
        failing = next((t for t in details["tests"] if t.get("verdict") != "pass"), None)
        explanation = "%s: %d/%d tests passed" % (details["verdict"], details["passed"],
                                                  details["total"])
        if failing is not None:
            explanation += "; test %s %s%s" % (failing.get("index"), failing.get("verdict"),
                                               ": %s" % failing["message"]
                                               if failing.get("message") else "")
        elif details.get("message") and details["verdict"] != "pass":
            explanation += "; %s" % details["message"]
        return Score(value=CORRECT if details["verdict"] == "pass" else INCORRECT,
                     explanation=explanation, metadata=details)

    return score


def judge_samples(suite: str | None = None, language: str | None = None,
                  genericize: bool = False, all_prompts: bool = False) -> list[Sample]:
    """One sample per problem of ``suite`` (default: the shipped basics; its first prompt,
    or one per prompt with ``all_prompts``): the prompt as input, ``problem_id``,
    ``prompt_id`` and ``language`` as metadata."""
    rows = prompt_rows(suite or default_suite(), language, genericize, all_prompts)
    several = len({r["problem_id"] for r in rows}) < len(rows)
    return [Sample(input=row["prompt"],
                   id="%s/%s" % (row["problem_id"], row["prompt_id"]) if several
                   else row["problem_id"],
                   metadata={k: row[k] for k in ("problem_id", "prompt_id", "language")})
            for row in rows]


@task
def judge_task(suite: str | None = None, language: str | None = None,
               genericize: bool = False, all_prompts: bool = False, sandbox: str = "auto",
               jobs: int = 1, time_limit_s: float | None = None, epochs: int = 1) -> Task:
    """A judge suite as an inspect task: its prompts, ``generate()``, the judge as scorer.
    With ``epochs`` > 1 each sample is generated and judged that many times and reduced to
    pass@k (the unbiased estimator) for k = 1, 2, 5, 10, ... up to ``epochs``."""
    suite = suite or default_suite()
    limits = {} if time_limit_s is None else {"time_limit_s": float(time_limit_s)}
    ks = [k for k in (1, 2, 5, 10, 20, 50, 100) if k <= epochs]
    return Task(dataset=MemoryDataset(judge_samples(suite, language, genericize, all_prompts),
                                      name="judge:%s" % suite),
                solver=generate(),
                epochs=Epochs(epochs, [pass_at(k) for k in ks]) if epochs > 1 else None,
                scorer=judge_scorer(suite, sandbox=sandbox, jobs=jobs, language=language,
                                    **limits))
