"""Checker expressions run in bounded helper processes: a checker that hangs, eats memory or
raises on a legal value is a problem error reported apart (sandbox_error, "problem error"),
never the candidate's wrong_answer; a candidate whose ill-typed value makes a check raise is
still wrong; and the judge's own threads never run a check."""

from __future__ import annotations

import psutil
import pytest

import judge
from judge.engine.check_pool import CheckerPool
from judge.engine.verdicts import Verdict


def problem(checker: str, check: str, return_type: str = "int") -> judge.Problem:
    return judge.Problem.model_validate({
        "identifier": "checked",
        "description": "return a number",
        "prompts": [{"prompt_id": "p", "prompt": "return n", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "f", "parameters": [{"name": "n", "type": "int"}],
                               "return_values": [{"type": return_type}]},
        "correctness_test_suite": [{"input": {"n": 3}, "check": check}],
        "checker": checker,
    })


@pytest.fixture(scope="module")
def j():
    with judge.Judge(sandbox="process", jobs=2) as opened:
        yield opened


IDENTITY = "def f(n):\n    return n\n"


def test_a_passing_and_a_failing_check(j):
    p = problem("def near(x, y):\n    return abs(x - y) < 1\n", "near(output, n)")
    assert j.judge(p, IDENTITY).verdict is Verdict.PASS
    failed = j.judge(p, "def f(n):\n    return n + 5\n")
    assert failed.verdict is Verdict.WRONG_ANSWER and "check failed" in failed.tests[0].message


def test_a_hanging_checker_is_a_problem_error_and_does_not_stall_the_judge(j):
    p = problem("def slow(x):\n    while True:\n        x += 1\n", "slow(output)")
    pool = j.executor.engine.check_pool
    pool.time_s = 1.0
    try:
        result = j.judge(p, IDENTITY)
    finally:
        pool.time_s = 5.0
    assert result.verdict is Verdict.SANDBOX_ERROR
    assert result.tests[0].message.startswith("problem error")
    good = problem("", "output == n")
    assert j.judge(good, IDENTITY).verdict is Verdict.PASS  # the pool recovered


def test_a_checker_that_raises_on_a_legal_value_is_a_problem_error(j):
    p = problem("def broken(x):\n    return x / 0\n", "broken(output)")
    result = j.judge(p, IDENTITY)
    assert result.verdict is Verdict.SANDBOX_ERROR
    assert "ZeroDivisionError" in result.tests[0].message
    assert "problem error" in result.tests[0].message


def test_a_checker_that_does_not_load_is_a_problem_error(j):
    p = problem("import no_such_module_anywhere\n", "output == n")
    result = j.judge(p, IDENTITY)
    assert result.verdict is Verdict.SANDBOX_ERROR
    assert "checker does not load" in result.tests[0].message


def test_a_memory_hungry_checker_is_bounded(j):
    p = problem("def hog(x):\n    return len(bytearray(x * 1024 ** 3)) > 0\n",
                "hog(output + 100)")
    result = j.judge(p, IDENTITY)
    assert result.verdict is Verdict.SANDBOX_ERROR
    assert "MemoryError" in result.tests[0].message
    assert psutil.Process().memory_info().rss < 1024 ** 3  # never in the judge's process


def test_an_ill_typed_output_that_makes_the_check_raise_is_the_candidates_failure(j):
    p = problem("", "abs(output - n) < 1")
    result = j.judge(p, "def f(n):\n    return 'three'\n")
    assert result.verdict is Verdict.WRONG_ANSWER
    assert "raised TypeError" in result.tests[0].message


def test_big_integers_in_checks(j):
    p = problem("import math\n", "output == math.factorial(2000)")
    assert j.judge(p, "import math\ndef f(n):\n    return math.factorial(2000)\n").verdict \
        is Verdict.PASS


def test_pool_closes_its_helpers():
    pool = CheckerPool(2)
    assert pool.check("", "output + 1 == 2", {}, 1).ok
    helpers = list(pool._all)
    assert helpers and all(h.process.poll() is None for h in helpers)
    pool.close()
    assert all(h.process.poll() is not None for h in helpers)
