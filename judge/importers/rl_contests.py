"""CodeContests, LiveCodeBench (code generation) and open-r1 / PrimeIntellect
``verification_info`` records as problems.

- CodeContests: ``public_tests``, ``private_tests``, ``generated_tests`` (``{"input": [...],
  "output": [...]}``), ``time_limit`` (``{"seconds", "nanos"}``), ``memory_limit_bytes``, the
  languages of its ``solutions``. Program problems, public tests as samples; compared by the
  ``tokens`` checker, case-sensitive, no float tolerance (a problem that needs one or a
  special judge is not described by the dataset).
- LiveCodeBench: ``public_test_cases`` and ``private_test_cases`` (JSON strings; the private
  ones usually compressed: base64 -> zlib -> pickle -> JSON string), each test with
  ``testtype`` ``stdin`` or ``functional``; ``metadata.func_name``. A functional test's input is
  one JSON value per line (the arguments), its output the JSON of the return value, compared
  with ``==`` (LiveCodeBench's own rule); stdin tests with the ``tokens`` checker,
  case-sensitive (LiveCodeBench compares stripped lines, numbers as decimals: here ``1.0`` is
  not ``1``). The pickle is read by :func:`restricted_loads`, which builds plain data only.
- open-r1 / PrimeIntellect: ``verification_info`` with ``language`` and ``test_cases`` of
  ``type`` ``stdin_stdout`` (``input``, ``output``) or ``function_call`` (``fn_name``,
  ``input`` the arguments, ``output`` APPS-style wrapped); stdin compared like open-r1's
  script (stripped lines) by the ``tokens`` checker, case-sensitive.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
import pickle
import pickletools
import zlib
from typing import Any

from judge import languages
from judge.importers.datasets import (DatasetImporter, RecordError, dataset_limit,
                                      function_problem, identifier, json_field, program_problem,
                                      text)
from judge.jsonl import loads
from judge.problem.limits import MAX_MEMORY_MB, MAX_TIME_LIMIT_S
from judge.problem.program import OutputChecker

#: stdin/stdout tests of contest datasets: whitespace-insensitive tokens, case counts
CONTEST_CHECKER = OutputChecker(type="tokens", case_sensitive=True)
#: a compressed test blob may not expand past this
MAX_DECOMPRESSED = 512 * 1024 * 1024

# ---- the restricted unpickler ------------------------------------------------------------------

#: opcodes that build plain data (str, int, float, bool, None, list, dict) or only move it
#: around (memo, marks, framing): anything else (GLOBAL, REDUCE, BUILD, INST, OBJ, tuples,
#: bytes, persistent ids, extension codes...) refuses the pickle
_PLAIN_OPCODES = frozenset({
    "PROTO", "FRAME", "STOP", "MARK", "POP", "POP_MARK", "DUP",
    "PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE", "GET", "BINGET", "LONG_BINGET",
    "NONE", "NEWTRUE", "NEWFALSE", "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1",
    "LONG4", "FLOAT", "BINFLOAT", "UNICODE", "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8",
    "EMPTY_LIST", "APPEND", "APPENDS", "LIST", "EMPTY_DICT", "SETITEM", "SETITEMS", "DICT",
})


class _PlainUnpickler(pickle.Unpickler):
    """Resolves no class or function at all: a pickle that names one is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError("refused: the pickle asks for %s.%s (only plain data "
                                     "is read)" % (module, name))

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused: the pickle has a persistent id")


#: opcodes that push one new object on the stack (the unpickler keeps every one of them
#: until the pickle ends): counted against ``max_objects``
_PUSHES = frozenset({
    "NONE", "NEWTRUE", "NEWFALSE", "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1",
    "LONG4", "FLOAT", "BINFLOAT", "UNICODE", "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8",
    "EMPTY_LIST", "LIST", "EMPTY_DICT", "DICT", "DUP", "GET", "BINGET", "LONG_BINGET",
})
_STRINGS = frozenset({"UNICODE", "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8"})
#: a plain-data pickle may push at most this many objects (each costs the unpickler tens of
#: bytes however small its opcode: an ``EMPTY_LIST`` is one byte of pickle and ~64 of memory)
MAX_PICKLE_OBJECTS = 1_000_000
#: the largest int a plain-data pickle may hold, in bytes of its LONG1/LONG4 encoding
MAX_PICKLE_INT_BYTES = 1024
#: what parsing a test list's JSON may cost, estimated from its text before it is parsed
#: (a list is ~64 bytes however short its ``[]``, a string ~50, any item a pointer)
MAX_JSON_ESTIMATE = 1024 * 1024 * 1024


def json_estimate(text: str) -> int:
    """An upper estimate of the memory ``json.loads(text)`` takes, in bytes: the text
    itself, ~64 bytes a container, ~50 a string, 8 an item (brackets, quotes and commas
    inside strings are counted too: it only errs on the high side)."""
    return (len(text) + 64 * (text.count("[") + text.count("{"))
            + 25 * text.count('"') + 8 * text.count(","))


def _parse_tests(text: str, where: str) -> Any:
    if json_estimate(text) > MAX_JSON_ESTIMATE:
        raise RecordError("the test cases' JSON would take more than %d MB to read"
                          % (MAX_JSON_ESTIMATE >> 20), where)
    try:
        return loads(text)
    except ValueError as exc:
        raise RecordError(str(exc), where) from None


def restricted_loads(data: bytes, *, only_text: bool = False,
                     max_objects: int = MAX_PICKLE_OBJECTS) -> Any:
    """Plain data from a pickle, never an object: every opcode is checked first, as a
    stream in constant memory (a ValueError names the first one that is not plain data and
    its byte offset), then the pickle is read by an unpickler that resolves no global at
    all. What the unpickler builds is bounded before it runs: at most ``max_objects``
    objects pushed, ints of at most ``MAX_PICKLE_INT_BYTES``; with ``only_text`` the pickle
    must be exactly one string (LiveCodeBench's tests are a pickled JSON string), so what it
    builds is that string and nothing more."""
    pushed = strings = 0
    shape: ValueError | None = None
    max_opcodes = 4 * max_objects + 16  # a push, its memo and its share of an APPENDS/MARK
    try:
        for count, (op, arg, position) in enumerate(pickletools.genops(data)):
            name = op.name
            if count >= max_opcodes:
                raise ValueError("refused pickle: more than %d opcodes (at byte %s)"
                                 % (max_opcodes, position))
            if name not in _PLAIN_OPCODES:
                raise ValueError("refused pickle: opcode %s at byte %s builds something "
                                 "other than plain data" % (name, position))
            if name in _PUSHES:
                pushed += 1
                if pushed > max_objects:
                    raise ValueError("refused pickle: more than %d objects (at byte %s)"
                                     % (max_objects, position))
                if name in ("LONG1", "LONG4", "LONG", "INT") and \
                        isinstance(arg, int) and arg.bit_length() > 8 * MAX_PICKLE_INT_BYTES:
                    raise ValueError("refused pickle: an integer of more than %d bytes at "
                                     "byte %s" % (MAX_PICKLE_INT_BYTES, position))
                if only_text:
                    strings += name in _STRINGS
                    if (name not in _STRINGS or strings > 1) and shape is None:
                        # said once the whole stream is known to be plain data: a pickle
                        # that names a global is refused for that, not for its shape
                        shape = ValueError("refused pickle: opcode %s at byte %s: the "
                                           "pickle must hold one string only"
                                           % (name, position))
    except ValueError as exc:
        if str(exc).startswith("refused pickle"):
            raise
        raise ValueError("not a valid pickle: %s" % exc) from None
    except Exception as exc:  # a truncated or malformed pickle
        raise ValueError("not a valid pickle: %s" % exc) from None
    if shape is not None:
        raise shape
    try:
        return _PlainUnpickler(io.BytesIO(data)).load()
    except Exception as exc:
        raise ValueError("refused pickle: %s" % exc) from None


def decode_lcb_tests(value: Any, where: str) -> list[Any]:
    """LiveCodeBench test cases: a JSON string (or list), or the compressed form
    base64 -> zlib -> pickle (plain data only) -> JSON string."""
    if isinstance(value, list):
        return value
    if not isinstance(value, str):
        raise RecordError("expected a JSON string, got %s" % type(value).__name__, where)
    stripped = value.lstrip()
    if stripped.startswith(("[", "{")):
        parsed = _parse_tests(value, where)
    else:
        try:
            raw = base64.b64decode(value, validate=False)
            inflater = zlib.decompressobj()
            blob = inflater.decompress(raw, MAX_DECOMPRESSED)
            if inflater.unconsumed_tail:
                raise RecordError("compressed tests expand past %d MB" % (
                    MAX_DECOMPRESSED >> 20), where)
        except (binascii.Error, zlib.error) as exc:
            raise RecordError("neither JSON nor base64+zlib: %s" % exc, where) from None
        try:
            plain = restricted_loads(blob, only_text=True)
        except ValueError as exc:
            raise RecordError(str(exc), where) from None
        if not isinstance(plain, str):
            raise RecordError("the unpickled tests are %s, not a JSON string"
                              % type(plain).__name__, where)
        parsed = _parse_tests(plain, where)
    if not isinstance(parsed, list):
        raise RecordError("test cases must be a list, got %s" % type(parsed).__name__, where)
    return parsed


# ---- LiveCodeBench-style test lists -------------------------------------------------------------

def problem_from_tests(tests: list[Any], ident: str, statement: str = "", *, field: str,
                       fn_name: str | None = None, time_limit_s: float | None = None,
                       starter_code: str | None = None, source: str | None = None,
                       samples: int = 0, wrapped: bool = False) -> Any:
    """A problem from ``[{"input", "output", "testtype"}]`` tests (LiveCodeBench; DeepCoder's
    ground truth). The first ``samples`` tests are the public ones."""
    kinds = set()
    for i, test in enumerate(tests):
        if not isinstance(test, dict) or "input" not in test or "output" not in test:
            raise RecordError("a test needs input and output", "%s[%d]" % (field, i))
        kinds.add(test.get("testtype", "stdin"))
    if kinds - {"stdin", "functional"}:
        raise RecordError("unknown testtype %s (stdin or functional)" % ", ".join(
            sorted(map(repr, kinds - {"stdin", "functional"}))), field)
    if len(kinds) > 1:
        raise RecordError("stdin and functional tests mixed in one problem", field)
    if kinds == {"functional"}:
        if not fn_name:
            fn_name = next((t.get("metadata", {}).get("func_name") for t in tests
                            if isinstance(t.get("metadata"), dict)), None)
        if not fn_name:
            raise RecordError("functional tests need metadata.func_name", "metadata.func_name")
        calls = []
        for i, test in enumerate(tests):
            where = "%s[%d]" % (field, i)
            args = test["input"]
            if isinstance(args, str):
                try:
                    args = [loads(line) for line in args.split("\n") if line.strip()]
                except ValueError as exc:
                    raise RecordError("input: %s" % exc, where + ".input") from None
            expected = test["output"]
            if isinstance(expected, str):
                try:
                    expected = loads(expected)
                except ValueError as exc:
                    raise RecordError("output: %s" % exc, where + ".output") from None
            calls.append((args if isinstance(args, list) else [args], expected))
        return function_problem(ident, statement, fn_name, calls, wrapped=wrapped,
                                time_limit_s=time_limit_s, starter_code=starter_code,
                                where=field)
    program_tests = [{"name": "%s%d" % ("public" if i < samples else "test", i + 1),
                      "stdin": text(t["input"], "%s[%d].input" % (field, i)),
                      "expected": text(t["output"], "%s[%d].output" % (field, i)),
                      "sample": i < samples} for i, t in enumerate(tests)]
    return program_problem(ident, statement, program_tests, checker=CONTEST_CHECKER,
                           time_limit_s=time_limit_s, source=source, where=field)


class LiveCodeBench(DatasetImporter):
    """LiveCodeBench code generation records (``public_test_cases``,
    ``private_test_cases``, ``metadata``)."""

    label = "LiveCodeBench"
    file_prefix = "lcb_"
    marker_fields = ("public_test_cases", "private_test_cases")

    def problem(self, record: dict[str, Any], index: int = 0) -> Any:
        public = decode_lcb_tests(record.get("public_test_cases") or "[]", "public_test_cases")
        private = decode_lcb_tests(record.get("private_test_cases") or "[]",
                                   "private_test_cases")
        metadata = json_field(record, "metadata", required=False) or {}
        if not isinstance(metadata, dict):
            raise RecordError("metadata must be an object", "metadata")
        title = str(record.get("question_title") or "")
        statement = "\n\n".join(p for p in (title, str(record.get("question_content") or ""))
                                if p)
        starter = record.get("starter_code")
        return problem_from_tests(
            public + private, identifier(record, "lcb_%d" % index), statement,
            field="public_test_cases" if public else "private_test_cases",
            fn_name=metadata.get("func_name"), samples=len(public),
            starter_code=starter if isinstance(starter, str) else None,
            source=str(record["platform"]) if isinstance(record.get("platform"), str)
            else None)


# ---- CodeContests ------------------------------------------------------------------------------

def _time_limit(value: Any) -> float | None:
    """CodeContests' ``{"seconds", "nanos"}`` (or a number of seconds), bounded as every
    limit from a dataset is (``dataset_limit``); None when it cannot be read."""
    if isinstance(value, dict):
        whole = dataset_limit(value.get("seconds"), MAX_TIME_LIMIT_S) or 0.0
        nanos = dataset_limit(value.get("nanos"), 1e9) or 0.0
        return dataset_limit(whole + nanos / 1e9, MAX_TIME_LIMIT_S)
    return dataset_limit(value, MAX_TIME_LIMIT_S)


def _listed_tests(record: dict[str, Any], field: str) -> list[dict[str, Any]]:
    """``[{"input", "output"}]`` tests (CodeContests+ ``test_cases``, open-r1 codeforces
    ``official_tests``) as program tests."""
    block = json_field(record, field, required=False) or []
    if not isinstance(block, list):
        raise RecordError("expected a list of {input, output}", field)
    tests = []
    for i, case in enumerate(block):
        where = "%s[%d]" % (field, i)
        if not isinstance(case, dict) or "input" not in case or "output" not in case:
            raise RecordError("a test needs input and output", where)
        tests.append({"name": "test%d" % (i + 1), "stdin": text(case["input"], where + ".input"),
                      "expected": text(case["output"], where + ".output")})
    return tests


def contest_checker(record: dict[str, Any]) -> OutputChecker:
    """The checker a contest record names: its testlib checker (CodeContests+ ``checker``,
    open-r1 codeforces ``generated_checker`` when it is a testlib C++ checker), else the
    contest datasets' token comparison. A checker in another protocol (open-r1's Python
    ``checker.py input correct_output solution_output`` printing 1 or 0) is refused: no
    problem is judged as another kind of problem."""
    for field in ("checker", "generated_checker"):
        code = record.get(field)
        if code is None or (isinstance(code, str) and not code.strip()):
            continue
        if not isinstance(code, str):
            raise RecordError("a checker must be source text, got %s" % type(code).__name__,
                              field)
        if "testlib.h" not in code:
            raise RecordError("the checker is not a testlib C++ checker (open-r1's Python "
                              "checkers are not supported yet)", field)
        return OutputChecker(type="testlib", code=code)
    return CONTEST_CHECKER


class CodeContests(DatasetImporter):
    """DeepMind CodeContests records, and the contest records built on the same problems
    with tests as a list and a checker: CodeContests+ (``test_cases``, ``checker``,
    ``time_limit`` in milliseconds, ``memory_limit`` in MB) and open-r1 codeforces
    (``official_tests``, ``generated_checker``, ``time_limit`` in seconds, ``memory_limit``
    in MB; ``input_mode`` file and interactive problems are refused)."""

    label = "CodeContests"
    file_prefix = "cc_"
    marker_fields = ("public_tests", "private_tests", "generated_tests", "test_cases",
                     "official_tests", "checker", "generated_checker")

    def problem(self, record: dict[str, Any], index: int = 0) -> Any:
        if record.get("test_cases") is not None or record.get("official_tests") is not None:
            return self._listed(record, index)
        tests: list[dict[str, Any]] = []
        for group in ("public_tests", "private_tests", "generated_tests"):
            block = json_field(record, group, required=False)
            if block is None:
                continue
            if not isinstance(block, dict):
                raise RecordError("expected an object with input and output lists", group)
            inputs, outputs = block.get("input") or [], block.get("output") or []
            if not isinstance(inputs, list) or not isinstance(outputs, list):
                raise RecordError("input and output must be lists", group)
            if len(inputs) != len(outputs):
                raise RecordError("%d inputs but %d outputs" % (len(inputs), len(outputs)),
                                  group)
            short = group.split("_")[0]
            for i, (stdin, expected) in enumerate(zip(inputs, outputs)):
                tests.append({"name": "%s/%d" % (short, i + 1),
                              "stdin": text(stdin, "%s.input[%d]" % (group, i)),
                              "expected": text(expected, "%s.output[%d]" % (group, i)),
                              "sample": group == "public_tests"})
        memory = record.get("memory_limit_bytes")
        memory = dataset_limit(memory, MAX_MEMORY_MB * 2**20)
        memory_mb = math.ceil(memory / 2**20) if memory else None
        return program_problem(
            identifier(record, "cc_%d" % index), str(record.get("description") or ""),
            tests, checker=CONTEST_CHECKER, time_limit_s=_time_limit(record.get("time_limit")),
            memory_mb=memory_mb, languages=_languages(record),
            source=str(record["source"]) if isinstance(record.get("source"), str) else None,
            where="public_tests")

    def _listed(self, record: dict[str, Any], index: int) -> Any:
        """A CodeContests+ or open-r1 codeforces record."""
        plus = record.get("test_cases") is not None
        field = "test_cases" if plus else "official_tests"
        file_io = None
        if not plus:
            mode = record.get("input_mode")
            if mode == "file":  # Codeforces' file problems: input.txt and output.txt
                file_io = {"input_file": _file_name(record, "input_file", "input.txt"),
                      "output_file": _file_name(record, "output_file", "output.txt")}
            elif mode not in (None, "stdio"):
                raise RecordError("input_mode %r: expected \"stdio\" or \"file\"" % (mode,),
                                  "input_mode")
            if str(record.get("interaction_format") or "").strip():
                # open-r1 codeforces ships no interactor (its interaction_format is statement
                # text): a testlib interactor is declared in a problem file instead
                raise RecordError("an interactive problem (interaction_format): the record "
                                  "carries no interactor to judge it with (write a problem "
                                  "file with a testlib interactor)", "interaction_format")
        tests = _listed_tests(record, field)
        checker = contest_checker(record)
        # CodeContests+ gives milliseconds, open-r1 codeforces seconds; both MB of memory
        time_limit = dataset_limit(record.get("time_limit"), MAX_TIME_LIMIT_S * (
            1000 if plus else 1))
        memory = dataset_limit(record.get("memory_limit"), MAX_MEMORY_MB)
        statement = "\n\n".join(str(record[k]) for k in ("title", "description", "input_format",
                                                         "output_format", "note")
                                if isinstance(record.get(k), str) and record[k].strip())
        return program_problem(
            identifier(record, "cc_%d" % index), statement, tests, checker=checker,
            time_limit_s=time_limit / 1000 if plus and time_limit else time_limit,
            memory_mb=math.ceil(memory) if memory else None,
            source=str(record["source"]) if isinstance(record.get("source"), str) else None,
            where=field, io=file_io)


def _file_name(record: dict[str, Any], key: str, default: str) -> str:
    """A file name a record gives (``input_file``/``output_file``), else the default;
    a name with a path or odd characters is refused, located."""
    name = record.get(key)
    if name is None or name == "":
        return default
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}", name):
        raise RecordError("%s must be a plain file name, got %r" % (key, name), key)
    return name


def _languages(record: dict[str, Any]) -> list[str] | None:
    """The problem's languages: a ``languages`` list, else those of its solutions."""
    given = record.get("languages")
    if isinstance(given, list) and given:
        return sorted({str(x) for x in given})
    solutions = record.get("solutions")
    if isinstance(solutions, dict) and isinstance(solutions.get("language"), list):
        # CodeContests' ``Language`` enum: each language declares its numbers and names
        named = languages.all_named_in("codecontests")
        found = {named[x].name for x in solutions["language"] if x in named}
        return sorted(found) or None
    return None


# ---- open-r1 / PrimeIntellect -----------------------------------------------------------------

def _columns_to_cases(block: dict[str, Any]) -> list[dict[str, Any]]:
    """``{"type", "input": [...], "output": [...], "fn_name"}`` as one test case per pair."""
    inputs, outputs = block.get("input"), block.get("output")
    where = "verification_info.test_cases"
    if not isinstance(inputs, list) or not isinstance(outputs, list):
        raise RecordError("input and output must be lists", where)
    if len(inputs) != len(outputs):
        raise RecordError("%d inputs but %d outputs" % (len(inputs), len(outputs)), where)
    fn_name = block.get("fn_name")
    kind = "function_call" if fn_name else block.get("type", "stdin_stdout")
    return [{"type": kind, "fn_name": fn_name, "input": i, "output": o}
            for i, o in zip(inputs, outputs)]


class VerificationInfo(DatasetImporter):
    """open-r1 / PrimeIntellect records with ``verification_info``."""

    label = "verification_info"
    file_prefix = "v_"
    marker_fields = ("verification_info",)

    def problem(self, record: dict[str, Any], index: int = 0) -> Any:
        info = json_field(record, "verification_info")
        if not isinstance(info, dict):
            raise RecordError("expected an object", "verification_info")
        cases = info.get("test_cases")
        if isinstance(cases, dict):  # the columnar form: one object with input/output lists
            cases = _columns_to_cases(cases)
        if not isinstance(cases, list) or not cases:
            raise RecordError("no test_cases", "verification_info.test_cases")
        language = info.get("language") or "python"
        statement = str(record.get("prompt") or record.get("problem") or
                        record.get("question") or "")
        if not isinstance(record.get("prompt"), (str, type(None))):
            statement = ""
        ident = identifier(record, "v_%d" % index)
        types = {c.get("type") if isinstance(c, dict) else None for c in cases}
        field = "verification_info.test_cases"
        if types == {"function_call"}:
            names = {c.get("fn_name") for c in cases}
            if len(names) != 1:
                raise RecordError("function_call tests name %d functions" % len(names), field)
            calls = []
            for i, case in enumerate(cases):
                args = case.get("input")
                calls.append((args if isinstance(args, list) else [args], case.get("output")))
            return function_problem(ident, statement, names.pop(), calls, where=field)
        if types != {"stdin_stdout"}:
            raise RecordError("test types %s: each problem takes stdin_stdout or "
                              "function_call tests" % ", ".join(sorted(map(repr, types))),
                              field)
        tests = [{"name": "test%d" % (i + 1),
                  "stdin": text(c.get("input"), "%s[%d].input" % (field, i)),
                  "expected": text(c.get("output"), "%s[%d].output" % (field, i))}
                 for i, c in enumerate(cases)]
        return program_problem(ident, statement, tests, checker=CONTEST_CHECKER,
                               languages=[str(language)], where=field)


__all__ = ["CONTEST_CHECKER", "CodeContests", "LiveCodeBench", "VerificationInfo",
           "decode_lcb_tests", "problem_from_tests", "restricted_loads"]
