"""Imported suites compare with their benchmark's own ``==`` on data values; native problems
keep strict declared types; either can be switched per problem; a lying ``__eq__`` fails
everywhere because values cross as data."""

from __future__ import annotations

import json

import pytest

import judge
from judge.engine.compare import python_equal
from judge.engine.verdicts import Verdict
from judge.importers import import_suite
from tests.paths import DATA, ROOT



def test_python_equal_is_pythons_eq_on_data():
    assert python_equal([1, 5, 7], [1, 5.0, 7.0]) is None
    assert python_equal(1, True) is None  # True == 1 in Python, so in the benchmark
    assert python_equal({"a": [1, 2]}, {"a": [1.0, 2]}) is None
    assert python_equal({1, 2}, frozenset({1, 2})) is None
    assert python_equal(0.1 + 0.2, 0.3) is None  # never stricter than our tolerance
    assert "expected" in python_equal([1, 2], (1, 2))  # a list is not a tuple in Python
    assert python_equal([1, 2], [1, 3]) == "expected 2 at [1], got 3"
    assert python_equal("1", 1) is not None
    assert python_equal(10 ** 5000, 10 ** 5000) is None
    assert python_equal(10 ** 5000, 1e308) is not None


def test_python_equal_on_deep_values_does_not_recurse():
    deep_a: list = []
    deep_b: list = []
    a, b = deep_a, deep_b
    for _ in range(100_000):
        a.append([])
        b.append([])
        a, b = a[0], b[0]
    assert python_equal(deep_a, deep_b) is None


def problem(equality: str) -> judge.Problem:
    return judge.Problem.model_validate({
        "identifier": "evens_as_floats",
        "description": "the even numbers below n",
        "prompts": [{"prompt_id": "p", "prompt": "evens below n", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "evens",
                               "parameters": [{"name": "n", "type": "int"}],
                               "return_values": [{"type": "List[int]"}]},
        "correctness_test_suite": [{"input": {"n": 7}, "expected_output": [[0, 2, 4, 6]]}],
        "equality": equality,
    })


FLOATS = "def evens(n):\n    return [float(i) for i in range(0, n, 2)]\n"
TUPLE = "def evens(n):\n    return tuple(range(0, n, 2))\n"
LIAR = """
class Liar(list):
    def __eq__(self, other):
        return True
    __hash__ = None
def evens(n):
    return Liar([99])
"""
ALWAYS_EQUAL = """
class Anything:
    def __eq__(self, other):
        return True
def evens(n):
    return Anything()
"""


@pytest.fixture(scope="module")
def j():
    with judge.Judge(sandbox="process", jobs=1) as opened:
        yield opened


def test_declared_equality_is_strict(j):
    strict = problem("declared")
    assert strict.equality == "declared"
    result = j.judge(strict, FLOATS)
    assert result.verdict is Verdict.WRONG_ANSWER and "int" in result.tests[0].message


def test_python_equality_accepts_what_the_benchmark_accepts(j):
    assert j.judge(problem("python"), FLOATS).verdict is Verdict.PASS
    assert j.judge(problem("python"), TUPLE).verdict is Verdict.WRONG_ANSWER


@pytest.mark.parametrize("equality", ["declared", "python"])
@pytest.mark.parametrize("code", [LIAR, ALWAYS_EQUAL], ids=["lying-list", "lying-object"])
def test_lying_eq_fails_under_both(j, equality, code):
    assert j.judge(problem(equality), code).verdict is Verdict.WRONG_ANSWER


def test_default_for_native_problems_is_declared():
    suite = judge.load_suite(ROOT / "problems" / "basics")
    assert {p.equality for p in suite} == {"declared"}


def test_bad_equality_value_is_a_located_error(tmp_path):
    data = problem("python").model_dump(mode="json", exclude_none=True)
    data["equality"] = "loose"
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(judge.InputError) as caught:
        judge.load_problem(path)
    assert "%s: equality" % path in str(caught.value)


def test_importers_record_the_benchmark_equality(tmp_path):
    report = import_suite("mbpp", DATA / "mbpp_sample.jsonl", tmp_path / "mbpp")
    files = sorted((tmp_path / "mbpp").glob("*.json"))
    assert files and report.problems
    for path in files:
        assert json.loads(path.read_text(encoding="utf-8"))["equality"] == "python"
