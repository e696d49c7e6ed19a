"""inspect_ai with the judge as scorer.

    python examples/integrations/inspect_eval.py                       # offline: mockllm
    python examples/integrations/inspect_eval.py --model openai/gpt-4o-mini --sandbox docker

Offline (the default), the mockllm provider answers each problem of the shipped ``basics``
suite with its reference solution wrapped in prose and a markdown fence, except the first,
answered wrongly: the pass rate is 1 - 1/N and ``inspect view --log-dir LOGS`` shows the
failing tests of that sample in its score's metadata (and the sample's, under ``judge``).
Needs the ``inspect`` extra: ``pip install 'judge[inspect]'``.
"""

from __future__ import annotations

import argparse
import sys

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from judge.integrations.common import default_suite
from judge.integrations.inspect_ai import judge_samples, judge_task
from judge.kinds.loader import load_suite


def offline_model(suite: str):
    """mockllm replying with each problem's reference solution (the first one: wrongly)."""
    problems = load_suite(suite).by_id
    replies = []
    for index, sample in enumerate(judge_samples(suite)):
        problem = problems[sample.metadata["problem_id"]]
        code = problem.optimal_solution or ""
        if index == 0:  # a wrong answer: the function is replaced by one returning None
            code += "\n\ndef %s(*args):\n    return None\n" % problem.function_name
        output = ModelOutput.from_content(
            "mockllm/model", "Here is a solution:\n```python\n%s\n```\n" % code)
        # usage given: mockllm would otherwise count tokens with tiktoken (a download)
        output.usage = ModelUsage(input_tokens=100, output_tokens=100, total_tokens=200)
        replies.append(output)
    return get_model("mockllm/model", custom_outputs=replies)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default=default_suite(), help="a judge suite")
    parser.add_argument("--model", help="an inspect model (default: offline mockllm)")
    parser.add_argument("--sandbox", default="auto", help="auto, process or docker")
    parser.add_argument("--log-dir", default="logs", help="where inspect writes its log")
    args = parser.parse_args()
    model = args.model or offline_model(args.suite)
    logs = inspect_eval(judge_task(args.suite, sandbox=args.sandbox), model=model,
                        log_dir=args.log_dir, display="plain", max_samples=1)
    log = logs[0]
    if log.status != "success":
        print("eval failed: %s" % log.error, file=sys.stderr)
        return 1
    metrics = log.results.scores[0].metrics
    print("pass rate %.3f (stderr %.3f) over %d samples; log: %s" % (
        metrics["accuracy"].value, metrics["stderr"].value, len(log.samples or []),
        log.location))
    return 0


if __name__ == "__main__":
    sys.exit(main())
