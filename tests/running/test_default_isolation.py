"""The default test isolation (``on-failure``): every failing verdict comes from an isolated test,
or, for a wrong value, from code that provably carries no state from one call to the next.

A candidate's tests run in one child first; every test that did not pass there (or that it
never reached) runs again in a child of its own, unless it returned a wrong value and the
code cannot carry state (judge.languages.python_state). These candidates pass every test
alone but fail when their tests share a process, each keeping its state a different way, so
any failing verdict that came from a shared child would show here.
"""

from __future__ import annotations

import inspect
import textwrap

import pytest

from judge.api import Judge
from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.engine.verdicts import Verdict
from tests.conftest import scaled_int_problem
from judge.sandbox.base import Limits

LIMITS = Limits(time_limit_s=1.0, memory_mb=256, output_kb=64)
TESTS = 6


def _problem():
    return scaled_int_problem("leaky_double", "double", 2, TESTS)


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
#: the same, with the state kept in a mutable default argument
LEAKY_DEFAULT = """
def double(x, calls=[]):
    calls.append(x)
    return 2 * x if len(calls) == 1 else -1
"""
#: ... in an attribute of the function itself
LEAKY_ATTRIBUTE = """
def double(x):
    double.calls = getattr(double, "calls", 0) + 1
    return 2 * x if double.calls == 1 else -1
"""
#: ... in a list a cached helper hands out (the same list on every call)
LEAKY_CACHE = """
import functools

@functools.lru_cache(maxsize=None)
def _shared():
    return []

def double(x):
    calls = _shared()
    calls.append(x)
    return 2 * x if len(calls) == 1 else -1
"""
#: ... in a closure's cell, made once at load
LEAKY_CLOSURE = """
def _make():
    calls = []
    def double(x):
        calls.append(x)
        return 2 * x if len(calls) == 1 else -1
    return double

double = _make()
"""
#: ... in the module's globals, reached through globals()
LEAKY_GLOBALS = """
def double(x):
    g = globals()
    g["calls"] = g.get("calls", 0) + 1
    return 2 * x if g["calls"] == 1 else -1
"""
#: ... in a standard module's state (random's generator: its next number differs)
LEAKY_RANDOM = """
import random

def double(x):
    random.seed(1) if x == 0 else None
    return 2 * x if random.random() < 2 or x else -1
"""
#: ... in the memory an earlier test left behind, turned into a value by a broad handler
LEAKY_MEMORY = """
def double(x):
    try:
        return 2 * x
    except Exception:
        return -1
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


@pytest.mark.parametrize("code", [LEAKY, LEAKY_RAISES, LEAKY_DEFAULT, LEAKY_ATTRIBUTE,
                                  LEAKY_CACHE, LEAKY_CLOSURE, LEAKY_GLOBALS],
                         ids=["wrong", "raises", "default", "attribute", "cache", "closure",
                              "globals"])
def test_failures_caused_by_an_earlier_test_in_the_batch_are_not_verdicts(executor, code):
    result = executor.judge(PROBLEM, Submission(textwrap.dedent(code), "double"))
    assert result.verdict is Verdict.PASS, [(t.verdict, t.message) for t in result.tests]
    assert (result.passed, result.total) == (TESTS, TESTS)
    assert result.isolation == "batch, isolated: tests 1-5"


@pytest.mark.parametrize("code", [LEAKY, LEAKY_DEFAULT, LEAKY_ATTRIBUTE, LEAKY_CACHE,
                                  LEAKY_CLOSURE, LEAKY_GLOBALS, LEAKY_RANDOM, LEAKY_MEMORY])
def test_code_that_may_carry_state_is_never_vouched_for(code):
    from judge import languages

    assert not languages.get("python").carries_no_state(textwrap.dedent(code))


def test_failing_first_test_of_a_batch_stands_and_the_rest_run_alone(executor):
    result = executor.judge(PROBLEM, Submission(WRONG_ON_FIRST, "double"))
    assert result.verdict is Verdict.WRONG_ANSWER
    assert [t.verdict for t in result.tests] == [Verdict.WRONG_ANSWER] + [Verdict.PASS] * 5
    # its own first test: isolated by definition; the passes after it stand
    assert result.isolation == "batch"


def test_passing_candidate_runs_as_one_batch(executor):
    result = executor.judge(PROBLEM, Submission("def double(x):\n    return 2 * x\n", "double"))
    assert result.verdict is Verdict.PASS
    assert result.isolation == "batch"


#: wrong on tests 2 and 4 only, whatever ran before
WRONG_ON_TWO_AND_FOUR = "def double(x):\n    return -1 if x in (2, 4) else 2 * x\n"
#: raises on test 2, in any process: the batch stops there and never reaches 3-5
RAISES_ON_TWO = """
def double(x):
    if x == 2:
        raise ValueError("two")
    return 2 * x
"""
#: the second call in a process kills that process: only a batch sees it die
DIES_ON_SECOND_CALL = """
import os
calls = []
def double(x):
    calls.append(x)
    if len(calls) > 1:
        os._exit(7)
    return 2 * x
"""
#: passes its first test in a process, then loops: the batch stops at test 1 on its limit
LOOPS_AFTER_FIRST_CALL = """
calls = []
def double(x):
    calls.append(x)
    while len(calls) > 1:
        pass
    return 2 * x
"""


#: the same, with state it could carry (a module-level list): its failures run again alone
WRONG_ON_TWO_AND_FOUR_STATEFUL = """
seen = []
def double(x):
    seen.append(x)
    return -1 if x in (2, 4) else 2 * x
"""


def test_only_the_failing_tests_run_again_and_passes_after_a_failure_stand(executor):
    result = executor.judge(PROBLEM, Submission(WRONG_ON_TWO_AND_FOUR_STATEFUL, "double"))
    assert result.verdict is Verdict.WRONG_ANSWER
    assert [t.verdict for t in result.tests] == [Verdict.PASS] * 2 + [
        Verdict.WRONG_ANSWER, Verdict.PASS, Verdict.WRONG_ANSWER, Verdict.PASS]
    assert result.isolation == "batch, isolated: tests 2, 4"


def test_wrong_values_of_code_that_carries_no_state_stand_with_the_same_verdicts(executor):
    """The same wrong values, from code that cannot carry state: no test runs again, and
    every verdict and message is what the isolated runs give."""
    alone = Executor(executor.sandbox, LIMITS, reference_timing=False, test_isolation="per-test")
    isolated = alone.judge(PROBLEM, Submission(WRONG_ON_TWO_AND_FOUR, "double"))
    result = executor.judge(PROBLEM, Submission(WRONG_ON_TWO_AND_FOUR, "double"))
    assert result.isolation == "batch (no state carried)"
    assert [(t.verdict, t.message) for t in result.tests] == \
        [(t.verdict, t.message) for t in isolated.tests]
    assert result.verdict is Verdict.WRONG_ANSWER


def test_code_that_carries_no_state_goes_past_raises_with_the_same_verdicts(executor):
    """Its batch goes on past a test that raised: that exception is the one it raises alone,
    and the tests after it need no process of their own."""
    code = textwrap.dedent("""
        def double(x):
            if x == 1:
                return -1
            if x == 3:
                raise ValueError("three")
            if x == 4:
                return double(x)  # RecursionError: every call starts at the same depth
            return 2 * x
        """)
    alone = Executor(executor.sandbox, LIMITS, reference_timing=False, test_isolation="per-test")
    isolated = alone.judge(PROBLEM, Submission(code, "double"))
    result = executor.judge(PROBLEM, Submission(code, "double"))
    assert [t.verdict for t in result.tests] == [
        Verdict.PASS, Verdict.WRONG_ANSWER, Verdict.PASS, Verdict.RUNTIME_ERROR,
        Verdict.RUNTIME_ERROR, Verdict.PASS]
    assert [(t.verdict, t.message) for t in result.tests] == \
        [(t.verdict, t.message) for t in isolated.tests]
    assert result.isolation == "batch (no state carried)"


@pytest.mark.parametrize("kind, verdict", [("MemoryError", Verdict.MEMORY_LIMIT)])
def test_what_memory_may_cause_still_runs_alone(executor, kind, verdict):
    """A MemoryError could come from what an earlier test left behind: the batch stops
    there, and that test and the ones after it run alone."""
    code = textwrap.dedent("""
        def double(x):
            if x == 3:
                raise %s("test three")
            return 2 * x if x != 1 else -1
        """ % kind)
    result = executor.judge(PROBLEM, Submission(code, "double"))
    assert [t.verdict for t in result.tests] == [
        Verdict.PASS, Verdict.WRONG_ANSWER, Verdict.PASS, verdict, Verdict.PASS, Verdict.PASS]
    assert result.isolation == "batch (no state carried), isolated: tests 3-5"


def test_code_that_carries_no_state_still_runs_alone_a_test_stopped_by_a_limit(executor):
    code = textwrap.dedent("""
        def double(x):
            while x == 2:
                pass
            return 2 * x
        """)
    result = executor.judge(PROBLEM, Submission(code, "double"))
    assert [t.verdict for t in result.tests] == [Verdict.PASS] * 2 + [Verdict.TIMEOUT] + [
        Verdict.PASS] * 3
    assert result.isolation == "batch, isolated: tests 2-5"
