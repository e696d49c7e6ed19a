"""Everything a candidate sends is untrusted data (issue 13, items 10 and 13).

Hostile candidates of our own, against the real sandboxes (process and docker, both test
isolation modes): records forged straight into the result pipe (nested ~1,000 deep, a claimed
``setup_error``, NaN, a decimal int past Python's digit limit, raw UTF-8 that outgrows the
line once escaped, a hash-flooded set), lone surrogates, an exception type name of 6 MiB,
the worker's own module globals broken, a work directory nested 1,500 deep, an output flood
then truncated. Each must come out as a failing verdict *about that test* (never
``sandbox_error``, never a crash of the judge), and every result must be writable as a
UTF-8 JSON line. Honest replies with big integers must be judged.
"""

from __future__ import annotations

import json
import math
import textwrap

import pytest

from judge.execution import Executor, Submission
from judge.problem import problem_from_data
from judge.sandbox.base import Limits
from judge.verdicts import Verdict

SUMS = [(3, 4, 7919007), (10, 20, 7919030), (0, 0, 7919000)]
HONEST = "def add(a, b):\n    return a + b + 7919000\n"
LIMITS = Limits(time_limit_s=1.0, memory_mb=256, output_kb=64, value_kb=2048,
                wall_factor=3.0, wall_extra_s=1.0)
P61 = 2 ** 61 - 1  # hash(k * P61) == 0 for every int k


def _problem(identifier, function, params, return_type, cases, checker=None):
    data = {
        "identifier": identifier,
        "description": "untrusted data",
        "prompts": [{"prompt_id": "p", "prompt": "x", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": function,
                               "parameters": [{"name": n, "type": t} for n, t in params],
                               "return_values": [{"type": return_type}]},
        "correctness_test_suite": cases,
    }
    if checker is not None:
        data["checker"] = checker
    return problem_from_data(data, "<untrusted>")


ADD = _problem("untrusted_add", "add", [("a", "int"), ("b", "int")], "int",
               [{"input": {"a": a, "b": b}, "expected_output": [s]} for a, b, s in SUMS])
FACTORIAL = _problem("untrusted_factorial", "fact", [("n", "int")], "int",
                     [{"input": {"n": n}, "expected_output": [math.factorial(n)]}
                      for n in (5, 2000, 3000)])
FACTORIAL_CHECK = _problem("untrusted_factorial_check", "fact", [("n", "int")], "int",
                           [{"input": {"n": n}, "check": "output == math.factorial(n)"}
                            for n in (2000, 3000)], checker="import math\n")
COUNTS = _problem("untrusted_counts", "counts", [("n", "int")], "Dict[int, int]",
                  [{"input": {"n": 2}, "expected_output": [{"1": 1, "2": 4}]}])


@pytest.fixture(scope="module", params=["per-test", "on-failure"])
def executor(sandbox_factory, request):
    sandbox = sandbox_factory(LIMITS)
    try:
        yield Executor(sandbox, LIMITS, reference_timing=False, test_isolation=request.param)
    finally:
        sandbox.close()


def judge(executor, code, problem=ADD, function="add"):
    result = executor.judge(problem, Submission(textwrap.dedent(code), function))
    # whatever the candidate sent, the result is a line we can write as UTF-8 JSON
    line = json.dumps(result.to_json(), ensure_ascii=False)
    line.encode("utf-8")
    assert len(line) < 64 * 1024, "a result line of %d bytes" % len(line)
    return result


def assert_failing_about_itself(result, verdict, fragment=None):
    assert result.verdict is verdict, (result.verdict, result.message)
    assert all(t.verdict is not Verdict.SANDBOX_ERROR for t in result.tests)
    assert all(t.verdict is not Verdict.PASS for t in result.tests)
    if fragment is not None:
        assert fragment in result.tests[0].message, result.tests[0].message


# Writes bytes straight into the result pipe (the only FIFO a test child holds) and ends.
FORGE = '''
import os, stat
def _forge(data):
    for name in os.listdir("/proc/self/fd"):
        try:
            fd = int(name)
            if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode):
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
        except OSError:
            pass
    os._exit(0)
'''


def forging(payload: bytes) -> str:
    return FORGE + "PAYLOAD = %r\ndef add(a, b):\n    _forge(PAYLOAD)\n" % payload


def _deep(depth: int, inner: bytes = b"1") -> bytes:
    return b"[" * depth + inner + b"]" * depth


FORGED_MALFORMED = {
    "value nested 990 deep": b'{"status":"returned","value":' + _deep(990) + b"}",
    "value nested 100000 deep": b'{"status":"returned","value":' + _deep(100000) + b"}",
    "message nested 990 deep": b'{"status":"raised","exc_type":"E","message":'
                               + _deep(990) + b"}",
    "a setup_error claimed by the test": b'{"status":"setup_error","message":"oops"}',
    "NaN": b'{"status":"returned","value":NaN}',
    "a decimal int past the digit limit": b'{"status":"returned","value":'
                                          + b"7" * 5000 + b"}",
    "a hash-flooded set": json.dumps({"status": "returned", "value": {
        "$set": [k * P61 for k in range(1, 60001)]}}).encode(),
    "a hash-flooded dict": json.dumps({"status": "returned", "value": {
        "$dict": [[k * P61, 1] for k in range(1, 30001)]}}).encode(),
    "a wrongly typed field": b'{"status":"raised","exc_type":["E"],"message":"m"}',
    "an unknown tag": b'{"status":"returned","value":{"$object":"x"}}',
    "not JSON": b"\xff\xfe{status",
}


@pytest.mark.parametrize("name", sorted(FORGED_MALFORMED))
def test_forged_record_is_a_malformed_result(executor, name):
    result = judge(executor, forging(FORGED_MALFORMED[name]))
    assert_failing_about_itself(result, Verdict.RUNTIME_ERROR, "malformed result")


def test_record_that_outgrows_the_line_once_escaped_is_output_limit(executor):
    # raw UTF-8 within the value cap; as \uXXXX escapes (12 bytes per emoji) three times it
    emoji = "\U0001F600" * 500_000
    payload = ('{"status":"returned","value":"%s"}' % emoji).encode("utf-8")
    assert len(payload) <= LIMITS.value_kb * 1024
    result = judge(executor, forging(payload))
    assert_failing_about_itself(result, Verdict.OUTPUT_LIMIT)


def test_honest_value_that_escapes_past_the_cap_is_output_limit(executor):
    result = judge(executor, "def add(a, b):\n    return '\\u00e9' * 700_000\n")
    assert_failing_about_itself(result, Verdict.OUTPUT_LIMIT)


def test_returned_hash_flooded_set_cannot_be_judged(executor):
    # (building 60,000 of them costs the candidate itself quadratic time: 2,000 show it)
    result = judge(executor, """
        def add(a, b):
            return {k * (2 ** 61 - 1) for k in range(1, 2001)}
    """)
    assert_failing_about_itself(result, Verdict.WRONG_ANSWER, "hash flooding")


@pytest.mark.parametrize("code, fragment", [
    ("def add(a, b):\n    raise ValueError('bad \\ud800 text')\n", "\\ud800"),
    ("E = type('Bad\\udfffName', (Exception,), {})\n"
     "def add(a, b):\n    raise E('x')\n", "\\udfff"),
    ("def add(a, b):\n    raise KeyError('\\udc80' * 100000)\n", "\\udc80"),
])
def test_lone_surrogate_in_an_exception_is_escaped(executor, code, fragment):
    result = judge(executor, code)
    assert_failing_about_itself(result, Verdict.RUNTIME_ERROR, fragment)


def test_lone_surrogate_in_a_returned_string_is_shown_escaped(executor):
    result = judge(executor, "def add(a, b):\n    return 'x\\ud800y'\n")
    assert_failing_about_itself(result, Verdict.WRONG_ANSWER, "got str")
    assert "\\ud800" in json.dumps(result.to_json(), ensure_ascii=False)


def test_exception_type_name_of_6_mib_is_capped(executor):
    result = judge(executor, """
        def add(a, b):
            raise type("E" * (6 << 20), (Exception,), {})("boom")
    """)
    assert_failing_about_itself(result, Verdict.RUNTIME_ERROR, "EEEE")
    assert all(len(t.message) < 1000 for t in result.tests)


def test_forged_6_mib_type_name_is_capped(executor):
    # written as a record by the candidate itself: within the value cap, capped by the worker
    payload = b'{"status":"raised","exc_type":"' + b"T" * (1 << 20) + b'","message":"m"}'
    result = judge(executor, forging(payload))
    assert_failing_about_itself(result, Verdict.RUNTIME_ERROR, "TTTT")
    assert all(len(t.message) < 1000 for t in result.tests)


@pytest.mark.parametrize("breakage, can_pass", [
    ("w.decode = w.encode = w._call = None", False),
    ("w.json = None", False),
    ("w.json.dumps = None", False),
    ("import os\nos._exit = lambda *a: None\nw._write_raw = None", False),
    ("import os\nos._exit = lambda *a: None\nraise SystemExit(3)", False),
    ("import os\nos._exit = lambda *a: None\nw.os = None", True),
    # the child's copy of the worker's checks is not what checks the child
    ("w.CHILD_STATUSES.clear()\nw._parse_child_result = w._clean_field = None", True),
])
def test_breaking_the_worker_module_is_about_the_test(executor, breakage, can_pass):
    code = "import __main__ as w\n%s\ndef add(a, b):\n    return a + b + 7919000\n" % breakage
    result = judge(executor, code)
    assert all(t.verdict is not Verdict.SANDBOX_ERROR for t in result.tests), result.to_json()
    if not can_pass:
        assert result.verdict is Verdict.RUNTIME_ERROR, result.to_json()
    assert judge(executor, HONEST).verdict is Verdict.PASS


@pytest.mark.parametrize("depth, name", [(1500, "d"), (60, "n" * 250)])
def test_deeply_nested_work_directory_is_cleaned(executor, depth, name):
    # 1,500 levels (past the recursion limit), and a path of 15,000 characters (past PATH_MAX)
    result = judge(executor, f"""
        import os
        def add(a, b):
            for _ in range({depth}):
                if not os.path.isdir({name!r}):  # tests may share a work directory
                    os.mkdir({name!r})
                os.chdir({name!r})
            with open("f", "w") as handle:
                handle.write("x")
            return a + b + 7919000
    """)
    assert result.verdict is Verdict.PASS, result.to_json()
    assert judge(executor, HONEST).verdict is Verdict.PASS


@pytest.mark.parametrize("truncate", [
    "os.ftruncate(fd, 0); os.lseek(fd, 0, os.SEEK_SET)",
    "os.lseek(fd, 0, os.SEEK_SET); os.write(fd, b'ok')",
])
def test_output_flood_then_truncated_is_output_limit(executor, truncate):
    result = judge(executor, f"""
        import os, signal
        def add(a, b):
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            for _ in range(64):
                try:
                    os.write(1, b"x" * 65536)
                except OSError:
                    break
            for fd in (1, 2):
                try:
                    {truncate}
                except OSError:
                    pass
            return a + b + 7919000
    """)
    assert_failing_about_itself(result, Verdict.OUTPUT_LIMIT)


# ---- honest replies ---------------------------------------------------------------------------

def test_big_integers_are_judged(executor):
    result = judge(executor, "import math\ndef fact(n):\n    return math.factorial(n)\n",
                   FACTORIAL, "fact")
    assert result.verdict is Verdict.PASS, result.to_json()


def test_big_integers_are_judged_by_checks(executor):
    result = judge(executor, "import math\ndef fact(n):\n    return math.factorial(n)\n",
                   FACTORIAL_CHECK, "fact")
    assert result.verdict is Verdict.PASS, result.to_json()


def test_wrong_big_integer_is_wrong_answer(executor):
    result = judge(executor, "import math\ndef fact(n):\n    return math.factorial(n) + 1\n",
                   FACTORIAL, "fact")
    assert result.verdict is Verdict.WRONG_ANSWER
    assert [t.verdict for t in result.tests] == [Verdict.WRONG_ANSWER] * 3


def test_float_keys_for_dict_of_int_do_not_pass(executor):
    result = judge(executor, "def counts(n):\n    return {float(k): k * k for k in range(1, n + 1)}\n",
                   COUNTS, "counts")
    assert result.verdict is Verdict.WRONG_ANSWER
    assert "has type float, expected int" in result.message
    honest = judge(executor, "def counts(n):\n    return {k: k * k for k in range(1, n + 1)}\n",
                   COUNTS, "counts")
    assert honest.verdict is Verdict.PASS
