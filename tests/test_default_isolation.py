"""The default test isolation (``on-failure``): every failing verdict comes from an isolated test.

A candidate's tests run in one child until the first that does not pass; from there each test
gets a child of its own. These candidates pass every test alone but fail when their tests
share a process, so any failing verdict that came from a shared child would show here.
"""

from __future__ import annotations

import inspect
import textwrap

import pytest

from judge.api import Judge
from judge.execution.executor import Executor, Submission
from judge.execution.verdicts import Verdict
from judge.problem.model import problem_from_data
from judge.sandbox.base import Limits

LIMITS = Limits(time_limit_s=1.0, memory_mb=256, output_kb=64)
TESTS = 6


def _problem():
    return problem_from_data({
        "identifier": "leaky_double",
        "description": "Double a number.",
        "prompts": [{"prompt_id": "p", "prompt": "double", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "double",
                               "parameters": [{"name": "x", "type": "int"}],
                               "return_values": [{"type": "int"}]},
        "correctness_test_suite": [{"input": {"x": i}, "expected_output": [2 * i]}
                                   for i in range(TESTS)],
    }, "<leaky>")


PROBLEM = _problem()
#: right on its first call in a process, wrong on every later one
LEAKY = """
calls = []
def double(x):
    calls.append(x)
    return 2 * x if len(calls) == 1 else -1
"""
#: raises on any call after the first in a process
LEAKY_RAISES = """
calls = []
def double(x):
    calls.append(x)
    if len(calls) > 1:
        raise RuntimeError("state left by an earlier test")
    return 2 * x
"""
WRONG_ON_FIRST = "def double(x):\n    return 2 * x if x else 1\n"


@pytest.fixture(scope="module")
def executor(sandbox_factory):
    sandbox = sandbox_factory(LIMITS)
    try:
        yield Executor(sandbox, LIMITS, reference_timing=False)  # the default isolation
    finally:
        sandbox.close()


def test_on_failure_is_the_default():
    assert inspect.signature(Executor).parameters["test_isolation"].default == "on-failure"
    assert inspect.signature(Judge).parameters["test_isolation"].default == "on-failure"


@pytest.mark.parametrize("code", [LEAKY, LEAKY_RAISES], ids=["wrong", "raises"])
def test_failures_caused_by_an_earlier_test_in_the_batch_are_not_verdicts(executor, code):
    result = executor.judge(PROBLEM, Submission(textwrap.dedent(code), "double"))
    assert result.verdict is Verdict.PASS, [(t.verdict, t.message) for t in result.tests]
    assert (result.passed, result.total) == (TESTS, TESTS)
    assert result.extra["isolation"] == "batch, isolated from test 1"


def test_failing_first_test_of_a_batch_stands_and_the_rest_run_alone(executor):
    result = executor.judge(PROBLEM, Submission(WRONG_ON_FIRST, "double"))
    assert result.verdict is Verdict.WRONG_ANSWER
    assert [t.verdict for t in result.tests] == [Verdict.WRONG_ANSWER] + [Verdict.PASS] * 5
    assert result.extra["isolation"] == "batch, isolated from test 1"


def test_passing_candidate_runs_as_one_batch(executor):
    result = executor.judge(PROBLEM, Submission("def double(x):\n    return 2 * x\n", "double"))
    assert result.verdict is Verdict.PASS
    assert result.extra["isolation"] == "batch"
