"""Integers beyond 64 bits in every language (issue 22, item 4; judge.languages.bigints).

``add(10**20, 1)`` with the real toolchains, in the process sandbox (both workers busy) and in
docker: Java (BigInteger), Go (*big.Int) and JavaScript (BigInt) candidates pass; a candidate
that declared a 64-bit type is told the value does not fit (runtime_error naming it), never
given a wrapped number; Rust candidates with i128 pass up to 128 bits; C++ (no standard big
integer) refuses the problem at load with the test and the value, and its harness names any
value beyond its types. No test bounds how long anything takes.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from judge.problem.model import function_from_data  # noqa: I001 (before execution)
from judge.api import Judge
from judge.languages import get
from judge.languages.base import NotExpressible

BIG = [(10 ** 20, 1), (2 ** 64, 2 ** 64), (-(10 ** 30), 7), (1, 2)]


def add_problem(pairs=BIG, identifier="big_add"):
    return function_from_data({
        "identifier": identifier, "description": "a + b",
        "prompts": [{"prompt_id": "p", "prompt": "Return a + b.", "genericize": False,
                 "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "add",
                               "parameters": [{"name": "a", "type": "int"},
                                              {"name": "b", "type": "int"}],
                               "return_values": [{"type": "int"}]},
        "correctness_test_suite": [{"input": {"a": a, "b": b}, "expected_output": [a + b]}
                                   for a, b in pairs]}, "<%s>" % identifier)


HONEST = {
    "java": ("import java.math.BigInteger;\nclass Solution {\n"
             "    public static BigInteger add(BigInteger a, BigInteger b) { return a.add(b); }\n}\n"),
    "go": ("package main\n\nimport \"math/big\"\n\n"
           "func Add(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }\n"),
    "js": "function add(a, b) { return BigInt(a) + BigInt(b); }\n",
    "python": "def add(a, b):\n    return a + b\n",
}
NATIVE_64 = {
    "java": "class Solution {\n    public static long add(long a, long b) { return a + b; }\n}\n",
    "go": "package main\n\nfunc Add(a, b int64) int64 { return a + b }\n",
    "rust": "fn add(a: i64, b: i64) -> i64 { a + b }\n",
}
RUST_128 = "fn add(a: i128, b: i128) -> i128 { a + b }\n"
CPP = "long long add(long long a, long long b) { return a + b; }\n"
CPP_UNSIGNED = ("unsigned long long add(unsigned long long a, unsigned long long b) "
                "{ return a + b; }\n")
CPP_INT = "int add(int a, int b) { return a + b; }\n"


def judge_all(sandbox: str, items):
    with Judge(sandbox=sandbox, jobs=2, reference_timing=False, time_limit_s=10.0) as judge:
        with ThreadPoolExecutor(2) as pool:  # both workers busy
            return list(pool.map(lambda item: judge.judge(item[0], item[1], language=item[2]),
                                 items))


def _check_results(results, names):
    by_name = dict(zip(names, results))
    for language in HONEST:
        result = by_name["honest-" + language]
        assert result.verdict.value == "pass", (language, result.message,
                                                [(t.verdict.value, t.message) for t in result.tests])
    for language in NATIVE_64:
        result = by_name["native64-" + language]
        verdicts = [t.verdict.value for t in result.tests]
        # the 64-bit candidate: its first three tests are told precisely; 1 + 2 passes
        assert verdicts == ["runtime_error"] * 3 + ["pass"], (language, verdicts, result.message)
        assert "does not fit" in result.tests[0].message and "100000000000000000000" in \
            result.tests[0].message, (language, result.tests[0].message)
    rust = by_name["rust128"]
    assert rust.verdict.value == "pass", (rust.message, [t.message for t in rust.tests])


def _items():
    problem = add_problem()
    items, names = [], []
    for language, code in HONEST.items():
        items.append((problem, code, language))
        names.append("honest-" + language)
    for language, code in NATIVE_64.items():
        items.append((problem, code, language))
        names.append("native64-" + language)
    items.append((problem, RUST_128, "rust"))
    names.append("rust128")
    return items, names


def test_big_integers_in_the_process_sandbox():
    if os.geteuid() != 0:
        pytest.skip("the process sandbox isolates candidates only as root")
    items, names = _items()
    _check_results(judge_all("process", items), names)


@pytest.mark.docker
def test_big_integers_in_docker():
    from tests.conftest import docker_or_skip

    docker_or_skip()
    items, names = _items()
    _check_results(judge_all("docker", items), names)


def test_cpp_refuses_a_problem_beyond_64_bits_at_load_and_rust_beyond_128():
    with pytest.raises(NotExpressible) as refused:
        get("cpp").for_problem(add_problem())
    assert "test 0: input a holds 100000000000000000000" in str(refused.value)
    assert "C++ has no standard integer type beyond 64 bits" in str(refused.value)
    get("rust").for_problem(add_problem())  # within i128
    with pytest.raises(NotExpressible) as refused:
        get("rust").for_problem(add_problem([(1, 2), (2 ** 130, 1)], "huge"))
    assert "test 1" in str(refused.value) and "128 bits" in str(refused.value)
    # the expected output alone beyond the range is refused too
    with pytest.raises(NotExpressible) as refused:
        get("cpp").for_problem(add_problem([(2 ** 63, 2 ** 63)], "sum_over"))
    assert "expected output" in str(refused.value)
    # within 64 bits (unsigned included): expressible
    get("cpp").for_problem(add_problem([(2 ** 62, 2 ** 62), (1, 2)], "fits"))


def test_cpp_harness_names_values_beyond_its_types():
    """Where a C++ candidate's own type is narrower than a test value (int for 3e9; a value
    at 2**63 for long long) the harness names the value: never a wrapped number."""
    if os.geteuid() != 0:
        pytest.skip("the process sandbox isolates candidates only as root")
    problem = add_problem([(3_000_000_000, 1), (2 ** 63, 1), (1, 2)], "cpp_range")
    items = [(problem, CPP_INT, "cpp"), (problem, CPP, "cpp"), (problem, CPP_UNSIGNED, "cpp")]
    narrow, signed, unsigned = judge_all("process", items)
    assert [t.verdict.value for t in narrow.tests] == ["runtime_error"] * 2 + ["pass"]
    assert "3000000000 does not fit in int" in narrow.tests[0].message, narrow.tests[0].message
    assert [t.verdict.value for t in signed.tests] == ["pass", "runtime_error", "pass"]
    assert "9223372036854775808 does not fit in long long" in signed.tests[1].message
    assert unsigned.verdict.value == "pass", [t.message for t in unsigned.tests]


def test_a_cpp_candidate_for_a_big_problem_is_not_judged_but_said_why():
    with Judge(sandbox="process", jobs=1, reference_timing=False) as judge:
        # not a verdict against the candidate: the problem cannot be judged in C++
        assert list(judge.judge_many([(add_problem(), CPP, {"language": "cpp"})])) == []
        with pytest.raises(NotExpressible) as refused:
            judge.judge(add_problem(), CPP, language="cpp")
    assert "beyond C++'s integers" in str(refused.value)
