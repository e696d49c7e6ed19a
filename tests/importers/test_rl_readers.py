"""The RL / eval dataset readers (judge.importers.datasets, rl_apps, rl_contests): the
hand-written files of tests/data/rl in every format, broken records located and the
others kept, the LiveCodeBench loader refusing pickles that build objects (nothing runs),
Parquet, the in-memory API and ``judge import NAME FILE --output DIR`` whose suite loads
back. No sandbox: judging them is tests/api/test_rewards.py."""

from __future__ import annotations

import base64
import json
import os
import pickle
import zlib
from pathlib import Path

import pytest

from judge.importers import IMPORTERS
from judge.importers.datasets import read_dataset
from judge.importers.rl_contests import decode_lcb_tests, restricted_loads
from judge.kinds.loader import load_problem, load_suite
from judge.problem.program import ProgramProblem
from tests.paths import DATA

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

DATA = DATA / "rl"
MARK = Path("/tmp/judge-rl-pickle-ran")


def _read(kind: str, name: str):
    return IMPORTERS.get(kind).read(DATA / name)


def test_apps_stdin_and_call_based_with_located_errors():
    result = _read("taco", "apps.jsonl")
    ids = [p.identifier for p in result.problems]
    assert ids == ["1", "2", "3"]
    stdin, call, floats = result.problems
    assert isinstance(stdin, ProgramProblem) and len(stdin.tests) == 3
    assert stdin.checker.type == "tokens" and stdin.checker.case_sensitive
    assert stdin.tests[1].stdin == "10 -3\n" and stdin.tests[1].expected == "7\n"
    # call-based: Any-typed arguments, each test a check by APPS' rule (wrapped outputs)
    assert call.function_name == "sort_desc" and "def benchmark_equal" in call.checker
    assert [t.args for t in call.tests] == [([3, 1, 2],), ([],), ([5, 5, 1],)]
    assert [t.check for t in call.tests] == ["benchmark_equal(output, [[3, 2, 1]])",
                                             "benchmark_equal(output, [[]])",
                                             "benchmark_equal(output, [[5, 5, 1]])"]
    assert floats.limits.time_limit_s == 2 and floats.limits.memory_mb == 256
    issues = [str(i) for i in result.issues]
    assert len(issues) == 3
    assert issues[0].startswith(str(DATA / "apps.jsonl") + ":3: input_output: invalid JSON")
    assert issues[1] == str(DATA / "apps.jsonl") + ":5: input_output: 1 inputs but 0 outputs"
    assert issues[2].startswith(str(DATA / "apps.jsonl") + ":6: invalid JSON")


def test_verl_ground_truth_gzip_and_prime_json_lines_arguments():
    result = _read("prime", "verl.jsonl.gz")
    stdin, call = result.problems
    assert stdin.identifier == "codecontests_0" and len(stdin.tests) == 2
    assert stdin.statement == "Print the sum of two integers."
    # PRIME: arguments as one JSON value per line, outputs as JSON strings
    assert call.identifier == "taco_1"
    assert [t.args for t in call.tests] == [(1, 2), (-1, 1), ([1], [2])]
    assert [t.check for t in call.tests] == ["benchmark_equal(output, 3)",
                                             "benchmark_equal(output, 0)",
                                             "benchmark_equal(output, [1, 2])"]
    [issue] = result.issues
    assert issue.line == 3 and issue.location == "reward_model.ground_truth"


def test_codecontests_groups_limits_languages_and_broken_records():
    result = _read("code-contests", "codecontests.json")
    [problem] = result.problems
    assert [t.name for t in problem.tests] == ["public/1", "private/1", "private/2",
                                               "generated/1"]
    assert [t.sample for t in problem.tests] == [True, False, False, False]
    assert problem.samples[0].stdin == "2\n"
    assert problem.limits.time_limit_s == 2.5 and problem.limits.memory_mb == 256
    assert problem.languages == ["cpp", "python"]
    issues = [str(i) for i in result.issues]
    assert issues == [
        str(DATA / "codecontests.json") + ": [1].public_tests: 2 inputs but 1 outputs",
        str(DATA / "codecontests.json") + ": [2].public_tests: no tests: the judge could not "
        "give a verdict"]


def test_livecodebench_compressed_private_tests_and_functional():
    result = _read("lcb", "livecodebench.jsonl")
    stdin, functional = result.problems
    assert [t.name for t in stdin.tests] == ["public1", "test2", "test3"]
    assert stdin.tests[1].stdin == "9 2\n" and stdin.tests[1].sample is False
    assert functional.function_name == "double"
    assert [(t.args, t.check) for t in functional.tests] == [
        ((2,), "benchmark_equal(output, 4, False)"), ((-5,), "benchmark_equal(output, -10, False)"),
        ((0,), "benchmark_equal(output, 0, False)")]
    [issue] = result.issues  # the record with the malicious pickle
    assert issue.line == 3 and issue.location == "private_test_cases"
    assert "refused pickle" in issue.message and "GLOBAL" in issue.message


class _System:
    def __reduce__(self):
        return (os.system, ("touch %s" % MARK,))


class _Eval:
    def __reduce__(self):
        return (eval, ("__import__('pathlib').Path(%r).touch()" % str(MARK),))


def _compressed(obj) -> str:
    return base64.b64encode(zlib.compress(pickle.dumps(obj, protocol=2))).decode()


@pytest.mark.parametrize("payload", [_System(), _Eval(), {"a": ({1, 2}, b"x")},
                                     [("tuple",)], b"bytes"])
def test_restricted_unpickler_refuses_objects_and_runs_nothing(payload):
    MARK.unlink(missing_ok=True)
    with pytest.raises(ValueError, match="refused pickle"):
        restricted_loads(pickle.dumps(payload))
    result = IMPORTERS.get("livecodebench").from_records([{
        "question_id": "x", "public_test_cases": "[]",
        "private_test_cases": _compressed(payload)}])
    assert not result.problems
    [issue] = result.issues
    assert issue.location == "[0].private_test_cases" and "refused pickle" in issue.message
    assert not MARK.exists()


def test_restricted_unpickler_checks_the_loader_too():
    """Even past the opcode scan (a hand-made pickle with only allowed opcodes cannot name
    a global), the unpickler itself resolves nothing: find_class refuses."""
    from judge.importers.rl_contests import _PlainUnpickler
    import io

    with pytest.raises(pickle.UnpicklingError, match="refused"):
        _PlainUnpickler(io.BytesIO(pickle.dumps(_System()))).load()
    assert not MARK.exists()


def test_restricted_unpickler_reads_plain_data():
    value = {"a": [1, 2.5, "x", None, True, {"b": []}], "n": 10 ** 30}
    for protocol in range(0, pickle.HIGHEST_PROTOCOL + 1):
        assert restricted_loads(pickle.dumps(value, protocol=protocol)) == value
    with pytest.raises(ValueError, match="not a valid pickle"):
        restricted_loads(pickle.dumps(value)[:-3])
    assert decode_lcb_tests(_compressed(json.dumps([{"input": "1", "output": "2"}])), "f") == \
        [{"input": "1", "output": "2"}]


def test_open_r1_verification_info():
    result = _read("primeintellect", "open_r1.jsonl")
    stdin, call = result.problems
    assert stdin.languages == ["python"] and stdin.tests[0].expected == "cba\n"
    assert call.function_name == "is_even"
    assert [(t.args, t.check) for t in call.tests] == [
        ((2,), "benchmark_equal(output, [True])"), ((7,), "benchmark_equal(output, [False])")]
    [issue] = result.issues
    assert issue.line == 3 and "stdin_stdout or function_call" in issue.message


def test_in_memory_one_record_and_duplicate_ids_renamed():
    apps = IMPORTERS.get("apps")
    record = {"problem_id": "p", "input_output": {"inputs": ["1\n"], "outputs": ["1\n"]}}
    problem = apps.problem(record)
    assert problem.identifier == "p" and problem.tests[0].stdin == "1\n"
    result = apps.from_records([record, record, "not a dict"])
    assert [p.identifier for p in result.problems] == ["p", "p_2"]
    assert [str(i) for i in result.issues] == ["<records>: [2]: a record must be a dict, got str"]


def test_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in (DATA / "open_r1.jsonl").read_text().splitlines()]
    path = tmp_path / "data.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    records = list(read_dataset(path))
    assert [r.index for r in records] == [0, 1, 2]
    result = IMPORTERS.get("open-r1").read(path)
    assert [p.identifier for p in result.problems] == ["pi_1", "pi_2"]
    [issue] = result.issues
    assert issue.location == "[2].verification_info.test_cases"


def test_json_array_elements_that_are_not_objects(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps([1, {"problem_id": "a", "input_output":
                                    json.dumps({"inputs": ["1"], "outputs": ["1"]})}]))
    result = IMPORTERS.get("apps").read(path)
    assert [p.identifier for p in result.problems] == ["a"]
    assert [str(i) for i in result.issues] == [
        "%s: [0]: a record must be a JSON object, got int" % path]


@pytest.mark.parametrize("kind,name,count", [
    ("apps", "apps.jsonl", 3), ("verl", "verl.jsonl.gz", 2),
    ("codecontests", "codecontests.json", 1), ("livecodebench", "livecodebench.jsonl", 2),
    ("open-r1", "open_r1.jsonl", 2)])
def test_cli_import_writes_a_suite_that_loads(tmp_path, capsys, kind, name, count):
    from judge.cli.main import main

    out = tmp_path / "suite"
    status = main(["import", kind, str(DATA / name), "--output", str(out)])
    assert status == 1  # every fixture has broken records: reported, the others written
    err = capsys.readouterr().err
    assert "error: %s" % (DATA / name) in err
    files = sorted(out.glob("*.json"))
    assert len(files) == count
    for file in files:
        problem = load_problem(file)
        assert len(problem.tests) >= 1
    assert len(load_suite(out)) == count


def test_large_tests_are_written_as_files(tmp_path):
    from judge.importers import import_suite

    big = "1 " * 40000 + "\n"
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"problem_id": "big", "input_output": json.dumps(
        {"inputs": [big, "1\n"], "outputs": ["40000\n", "1\n"]})}) + "\n")
    report = import_suite("apps", path, tmp_path / "out")
    assert not report.issues
    data = json.loads((tmp_path / "out" / "big.json").read_text())
    assert data["tests"][0]["stdin_file"] == "big/001.in" and "stdin" not in data["tests"][0]
    assert data["tests"][1]["stdin"] == "1\n"
    problem = load_problem(tmp_path / "out" / "big.json")
    assert problem.tests[0].run_input().stdin == big.encode()


def test_the_call_checker_is_the_apps_rule():
    """CALL_CHECKER evaluated as the judge does (plain Python over decoded data), against
    what APPS' run_test accepts and rejects; it never raises."""
    from judge.importers.datasets import CALL_CHECKER

    scope: dict = {}
    exec(CALL_CHECKER, scope)
    equal = scope["benchmark_equal"]
    assert equal([3, 2, 1], [[3, 2, 1]])          # unwrapped return value
    assert equal([[3, 2, 1]], [[3, 2, 1]])        # or the wrapped list itself
    assert equal((1, 2), [[1, 2]])                # a tuple read as a list
    assert equal([(1, 2), (3, 4)], [[[1, 2], [3, 4]]])
    assert equal(5, [5]) and equal(5.0, [5]) and equal(True, [1])
    assert not equal([3, 1, 2], [[3, 2, 1]]) and not equal(None, [])
    assert not equal(5, 5.5) and not equal("5", [5])
    # LiveCodeBench: no wrapping
    assert equal((1, 2), [1, 2], False) and not equal(5, [5], False)
    assert not equal(object(), [object()])  # never raises


def test_parquet_without_pyarrow_names_the_extra(tmp_path, monkeypatch):
    import sys

    from judge.errors import InputError

    path = tmp_path / "data.parquet"
    path.write_bytes(b"PAR1" + b"\0" * 16)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(InputError, match=r"install the 'parquet' extra"):
        IMPORTERS.get("apps").read(path)


def test_a_compressed_blob_that_expands_too_far_is_refused(monkeypatch):
    from judge.importers import rl_contests

    monkeypatch.setattr(rl_contests, "MAX_DECOMPRESSED", 1000)
    blob = base64.b64encode(zlib.compress(pickle.dumps("x" * 100000))).decode()
    result = IMPORTERS.get("lcb").from_records([{"public_test_cases": "[]",
                                                 "private_test_cases": blob}])
    [issue] = result.issues
    assert "expand past" in issue.message and issue.location == "[0].private_test_cases"


def test_open_r1_columnar_test_cases():
    reader = IMPORTERS.get("verification-info")
    stdin = reader.problem({"problem_id": "c", "verification_info": {"language": "python",
                            "test_cases": {"type": "stdin_stdout", "input": ["3", "7"],
                                           "output": ["1 2", "3 4"], "fn_name": None}}})
    assert [(t.stdin, t.expected) for t in stdin.tests] == [("3", "1 2"), ("7", "3 4")]
    call = reader.problem({"problem_id": "d", "verification_info": json.dumps({
        "test_cases": {"type": "function_call", "fn_name": "f", "input": [[1], [2]],
                       "output": [[2], [4]]}})})
    assert call.function_name == "f" and [t.args for t in call.tests] == [(1,), (2,)]
    result = reader.from_records([{"verification_info": {"test_cases": {
        "input": ["1"], "output": []}}}])
    assert [str(i) for i in result.issues] == [
        "<records>: [0].verification_info.test_cases: 1 inputs but 0 outputs"]


def test_verl_ground_truth_as_a_list_of_tests():
    """DeepCoder-style ground truth: a JSON list of LiveCodeBench-style tests."""
    from judge.importers.rl_apps import verl_ground_truth

    stdin = verl_ground_truth(json.dumps([{"input": "1\n", "output": "2\n", "testtype": "stdin"},
                                          {"input": "3\n", "output": "6\n"}]))
    assert [(t.stdin, t.expected) for t in stdin.tests] == [("1\n", "2\n"), ("3\n", "6\n")]
    call = verl_ground_truth([{"input": "1\n2", "output": "3", "testtype": "functional",
                               "metadata": {"func_name": "add"}}])
    assert call.function_name == "add" and call.tests[0].args == (1, 2)
    assert call.tests[0].check == "benchmark_equal(output, 3, False)"


# ---- the pickle check streams in constant memory (issue 36, defect 2) -----------------------

def _bomb_record(body: bytes, repeat: int) -> dict:
    blob = b"\x80\x02" + body * repeat + b"N."  # PROTO 2, the body, NONE, STOP
    return {"question_id": "bomb", "public_test_cases": "[]",
            "private_test_cases": base64.b64encode(zlib.compress(blob, 9)).decode()}


@pytest.mark.parametrize("body, why", [
    (b"N0", "more than"),            # NONE POP: 2.5 million pushes, nothing kept
    (b"(1", "more than"),            # MARK POP_MARK: pushes nothing, five million opcodes
    (b"]0", "more than"),            # EMPTY_LIST POP: 64 bytes of memory per byte of pickle
])
def test_pickle_check_streams_a_zlib_bomb_in_constant_memory(body, why):
    """A ~5 KB record that inflates to a 5 MB pickle: the check used to list every opcode
    first (~110x the pickle's size: 1.67 GB for such a record); it now reads them as a stream
    and stops at its bounds. Refused with a located issue; Python's own allocations during
    the import stay far below the pickle's size times ten."""
    import tracemalloc

    record = _bomb_record(body, 2_500_000)  # 5 MB of pickle, ~550 MB listed
    assert len(record["private_test_cases"]) < 50_000
    tracemalloc.start()
    try:
        result = IMPORTERS.get("livecodebench").from_records([record])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not result.problems
    [issue] = result.issues
    assert issue.location == "[0].private_test_cases" and "refused pickle" in issue.message
    assert peak < 50 * 1024 * 1024, peak  # the 5 MB pickle itself, and not 110 times it


def test_restricted_loads_bounds_what_the_unpickler_builds():
    many = pickle.dumps([[] for _ in range(2000)], protocol=2)
    assert len(restricted_loads(many)) == 2000
    with pytest.raises(ValueError, match="more than 1000 objects"):
        restricted_loads(many, max_objects=1000)
    with pytest.raises(ValueError, match="integer of more than"):
        restricted_loads(pickle.dumps(1 << 20000, protocol=2))
    with pytest.raises(ValueError, match="one string only"):
        restricted_loads(pickle.dumps(["x"], protocol=4), only_text=True)
    with pytest.raises(ValueError, match="one string only"):
        # PROTO 4, BINUNICODE "a", BINUNICODE "b", POP, STOP: two strings
        restricted_loads(b"\x80\x04X\x01\x00\x00\x00aX\x01\x00\x00\x00b0.", only_text=True)
    assert restricted_loads(pickle.dumps('[{"input": "1"}]', protocol=5),
                            only_text=True) == '[{"input": "1"}]'


def test_test_lists_whose_json_would_explode_are_refused_before_parsing():
    from judge.importers.rl_contests import MAX_JSON_ESTIMATE, json_estimate

    assert json_estimate('[{"input": "1", "output": "2"}]') < 1000
    text = "[" + "[]," * 20_000_000 + "[]]"  # 60 MB of text, ~1.3 GB parsed
    assert json_estimate(text) > MAX_JSON_ESTIMATE
    result = IMPORTERS.get("livecodebench").from_records([{
        "question_id": "big", "public_test_cases": "[]",
        "private_test_cases": base64.b64encode(zlib.compress(pickle.dumps(text, 4))).decode()}])
    [issue] = result.issues
    assert "would take more than" in issue.message


# ---- hostile text and nesting in records (issue 36, defect 8) ------------------------------

def test_a_lone_surrogate_in_a_stdin_test_is_a_located_error_and_later_records_survive(
        tmp_path):
    """An APPS test whose input holds ``\\ud800`` (valid JSON, no UTF-8 text): the import
    died with a UnicodeEncodeError writing the suite and lost every later record."""
    import subprocess
    import sys

    lines = [json.dumps({"question": "bad", "input_output": json.dumps(
        {"inputs": ["\ud800\n"], "outputs": ["1\n"]})}),
        json.dumps({"question": "good", "input_output": json.dumps(
            {"inputs": ["1\n"], "outputs": ["1\n"]})})]
    source = tmp_path / "apps.jsonl"
    source.write_text("\n".join(lines) + "\n")
    judge = str(Path(sys.executable).with_name("judge"))
    run = subprocess.run([judge, "import", "apps", str(source), "--output",
                          str(tmp_path / "suite")], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in run.stderr + run.stdout
    assert "apps.jsonl:1" in run.stderr + run.stdout and "lone surrogate" in run.stderr
    assert [p.name for p in (tmp_path / "suite").iterdir()] == ["apps_1.json"]
    [problem] = load_suite(tmp_path / "suite")
    assert isinstance(problem, ProgramProblem)


def test_a_lone_surrogate_in_a_function_value_is_data_and_is_written():
    """A functional test may carry any Python string, a lone surrogate too: the suite file
    is written with JSON escapes and loads back to the same value."""
    import tempfile

    record = {"question_id": "s", "public_test_cases": json.dumps([
        {"input": json.dumps("\ud800x"), "output": json.dumps(5), "testtype": "functional"}]),
        "private_test_cases": "[]", "metadata": json.dumps({"func_name": "f"})}
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "lcb.jsonl"
        source.write_text(json.dumps(record) + "\n")
        IMPORTERS.get("livecodebench").import_suite("livecodebench", source, Path(folder) / "s")
        [problem] = load_suite(Path(folder) / "s")
        assert problem.tests[0].args == ("\ud800x",)


def test_a_verl_argument_nested_800_deep_is_refused_where_it_is_read():
    """It was read, then killed the judging (pydantic: maximum serialization depth) with a
    traceback for every surface: now a located error of the record."""
    deep: object = 1
    for _ in range(800):
        deep = [deep]
    truth = {"inputs": [[deep]], "outputs": [[1]], "fn_name": "f"}
    result = IMPORTERS.get("verl").from_records([
        {"reward_model": {"ground_truth": json.dumps(truth)}},
        {"reward_model": {"ground_truth": json.dumps({"inputs": [[1]], "outputs": [[1]],
                                                      "fn_name": "f"})}}])
    assert len(result.problems) == 1
    [issue] = result.issues
    assert "nested deeper than 100 levels" in issue.message and issue.location.startswith("[0]")
