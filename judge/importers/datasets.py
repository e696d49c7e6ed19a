"""RL and eval datasets as problems: the reading and building shared by their readers.

The formats RL trainers and code benchmarks ship (APPS/TACO, CodeContests, LiveCodeBench,
verl/PRIME ground truth, open-r1/PrimeIntellect ``verification_info``; the readers are
``rl_apps`` and ``rl_contests``) are records of tests, not Python asserts: each record
becomes one problem of the right kind, in memory, with the benchmark's own comparison:

- tests given as standard input and expected output -> a program problem
  (:mod:`judge.problem.program`), its tests inline (or, written to a suite, as files when
  they are large);
- tests given as function calls (``fn_name`` with a list of arguments) -> a function
  problem whose parameters and return value are typed ``Any`` and compared with the
  benchmark's own ``==`` (``"equality": "python"``).

A :class:`DatasetImporter` turns one record into one problem (:meth:`~DatasetImporter.problem`,
no file written), many records into problems and located issues
(:meth:`~DatasetImporter.from_records`), a file into the same (:meth:`~DatasetImporter.read`:
JSON, JSON Lines plain or gzip, Parquet through the ``parquet`` extra), and a file into a
suite folder (``judge import NAME FILE --output DIR``). A broken record is an issue naming
the file, its line (JSON Lines) or index (JSON, Parquet) and the field; the other records
are still imported.
"""

from __future__ import annotations

import math
import re
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Iterator

from judge import jsonl
from judge.errors import InputError, InputFault, Issue
from judge.importers.base import Importer, file_name
from judge.importers.records import ImportReport, ProblemReport
from judge.problem.limits import MAX_TIME_LIMIT_S
from judge.kinds.base import kind_of
from judge.problem.model import Problem, function_from_data
from judge.problem.program import OutputChecker, ProgramProblem, program_from_data

#: a test's input or output larger than this is written to a file of the suite, not inline
INLINE_BYTES = 64 * 1024
#: how a record's identifier is looked for, in order
ID_FIELDS = ("problem_id", "task_id", "question_id", "id", "name", "index")


class RecordError(InputFault, ValueError):
    """A record that cannot become a problem: the message, and the field it is about."""

    code = "invalid_record"

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Record:
    """One record of a dataset file: where it is, and its value or why it has none."""

    file: str
    index: int  # 0-based position among the file's records
    line: int | None = None  # JSON Lines: the line number
    value: Any = None
    issue: Issue | None = None

    def issue_for(self, message: str, where: str = "") -> Issue:
        location = where if self.line is not None else \
            ("[%d]" % self.index) + ("." + where if where else "")
        return Issue(self.file, message, location, self.line)


# ---- reading files ---------------------------------------------------------------------------

def _parquet_rows(path: Path) -> Iterator[Record]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError([Issue(str(path), "reading Parquet needs pyarrow: install the "
                                           "'parquet' extra (pip install 'judge[parquet]')")]
                         ) from None
    try:
        table = pq.ParquetFile(path)
        index = 0
        for batch in table.iter_batches(batch_size=256):
            for row in batch.to_pylist():
                yield Record(str(path), index, value=row)
                index += 1
    except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
        raise InputError([Issue(str(path), "cannot read Parquet: %s" % exc)]) from None


def _is_json_array_or_object(path: Path) -> bool:
    """A whole JSON document (``.json``, or content starting with ``[``) rather than JSON
    Lines (``.jsonl``/``.ndjson``, or one object per line)."""
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson")):
        return False
    if name.endswith(".json"):
        return True
    with jsonl._open_binary(path) as handle:
        head = handle.read(4096).lstrip()
    return head.startswith(b"[")


def read_dataset(path: str | Path) -> Iterator[Record]:
    """The records of a dataset file: a JSON array (or one object), JSON Lines (plain or
    gzip, by content), or Parquet (by the ``.parquet`` suffix or its magic bytes). A line
    or element that is not a JSON object is a Record with an issue; a file that cannot be
    read at all is an InputError."""
    path = Path(path)
    if not path.is_file():
        raise InputError([Issue(str(path), "no such file")])
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if path.suffix.lower() in (".parquet", ".pq") or magic == b"PAR1":
        yield from _parquet_rows(path)
        return
    file = str(path)
    if _is_json_array_or_object(path):
        data = jsonl.read_json(path)
        items = data if isinstance(data, list) else [data]
        for index, item in enumerate(items):
            if isinstance(item, dict):
                yield Record(file, index, value=item)
            else:
                yield Record(file, index, issue=Issue(file, "a record must be a JSON object, "
                                                      "got %s" % type(item).__name__,
                                                      "[%d]" % index))
        return
    index = 0
    for line in jsonl.read_lines(path):
        if line.issue is not None:
            yield Record(file, index, line.number, issue=line.issue)
        elif not isinstance(line.value, dict):
            yield Record(file, index, line.number, issue=Issue(
                file, "a record must be a JSON object, got %s" % type(line.value).__name__,
                line=line.number))
        else:
            yield Record(file, index, line.number, value=line.value)
        index += 1


# ---- field helpers -----------------------------------------------------------------------------

def json_field(record: dict[str, Any], name: str, required: bool = True) -> Any:
    """A field that datasets ship either as a JSON string or already parsed."""
    if name not in record or record[name] is None:
        if required:
            raise RecordError("missing field %r" % name, name)
        return None
    value = record[name]
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        if not value.strip():
            if required:
                raise RecordError("field %r is empty" % name, name)
            return None
        try:
            return jsonl.loads(value)
        except ValueError as exc:
            raise RecordError(str(exc), name) from None
    return value


def text(value: Any, where: str) -> str:
    """A test's input or output: a string, or a list of lines (joined with newlines)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value)
    raise RecordError("expected text, got %s" % type(value).__name__, where)


def identifier(record: dict[str, Any], fallback: str) -> str:
    for name in ID_FIELDS:
        value = record.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    extra = record.get("extra_info")
    if isinstance(extra, dict) and isinstance(extra.get("index"), (str, int)):
        return str(extra["index"])
    return fallback


def dataset_limit(value: Any, ceiling: float) -> float | None:
    """A limit read from a dataset record: a finite positive number, at most ``ceiling``
    (a larger one is the ceiling: a dataset's limit is bounded where it enters, and the
    run's own ceilings apply after); None for anything else (NaN, infinity, zero, text,
    an int too large for a float), so the judge's default applies."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return float(ceiling) if value > 0 else None
    if not math.isfinite(number) or number <= 0:
        return None
    return min(number, float(ceiling))


def seconds(value: Any) -> float | None:
    """A time limit in seconds from ``2``, ``"2"``, ``"2 seconds"``, ``"1.5s"``; None when
    there is none or it cannot be read; at most the judge's ceiling for a test
    (:data:`judge.problem.limits.MAX_TIME_LIMIT_S`)."""
    if isinstance(value, str):
        match = re.match(r"\s*(\d{1,12}(?:\.\d{1,12})?)(?!\d)", value)
        value = float(match.group(1)) if match else None
    return dataset_limit(value, MAX_TIME_LIMIT_S)


# ---- building problems ---------------------------------------------------------------------------

def program_problem(ident: str, statement: str, tests: list[dict[str, Any]], *,
                    checker: OutputChecker, time_limit_s: float | None = None,
                    memory_mb: int | None = None, languages: list[str] | None = None,
                    source: str | None = None, tags: list[str] | None = None,
                    where: str = "tests", io: dict[str, str] | None = None
                    ) -> ProgramProblem:
    """A program problem from ``{"name", "stdin", "expected", "sample"}`` tests, in memory
    (``io``: its input and output files, ``{"input_file", "output_file"}``)."""
    if not tests:
        raise RecordError("no tests: the judge could not give a verdict", where)
    data: dict[str, Any] = {
        "kind": "program", "identifier": ident, "statement": statement or ident,
        "samples": [{"stdin": t["stdin"], "expected": t["expected"]}
                    for t in tests if t.get("sample")][:3],
        "tests": tests, "checker": checker.model_dump(exclude_defaults=True),
        "limits": {k: v for k, v in (("time_limit_s", time_limit_s),
                                     ("memory_mb", memory_mb)) if v is not None},
    }
    if languages:
        data["languages"] = languages
    if source:
        data["source"] = source
    if tags:
        data["tags"] = tags
    if io:
        data["io"] = io
    try:
        return program_from_data(data, "<%s>" % ident, Path("."))
    except InputError as exc:
        raise RecordError("; ".join(i.message for i in exc.issues), where) from None


#: the benchmarks' call-based comparison, as a trusted check helper evaluated by the judge
#: outside the sandbox over the decoded return value: APPS' ``run_test`` (a returned tuple
#: read as a list; ``output == expected``, or, for APPS' one-element wrapping,
#: ``output == expected[0]``, also with a list of tuples read as lists) and LiveCodeBench's
#: (the tuple rule and ``==``, ``wrapped=False``). It never raises: a raising check would be
#: the problem's error, not the candidate's.
CALL_CHECKER = """
def benchmark_equal(output, expected, wrapped=True):
    try:
        if isinstance(output, tuple):
            output = list(output)
        if output == expected:
            return True
        if not (wrapped and isinstance(expected, list) and expected):
            return False
        if output == expected[0]:
            return True
        if isinstance(output, list) and output and isinstance(output[0], tuple):
            return [list(x) for x in output] == expected[0]
    except Exception:
        return False
    return False
"""


def _literal(value: Any, where: str) -> str:
    """A JSON value as a Python literal for a check expression."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise RecordError("a non-finite number (%r) cannot be an expected value" % item,
                              where)
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    try:
        return repr(value)
    except ValueError as exc:  # an int past the int-to-text limit
        raise RecordError(str(exc), where) from None


#: how call-based tests compare: ``"check"`` (the benchmark's own rule, :data:`CALL_CHECKER`,
#: the default) or ``"equality"`` (the unwrapped expected value and Python's ``==`` on data:
#: a returned tuple is not an expected list), for a remote ``judge serve``, which refuses
#: inline checker code
CALL_COMPARISON: ContextVar[str] = ContextVar("call_comparison", default="check")


def _expected_case(expected: Any, wrapped: bool) -> list[Any]:
    if wrapped and isinstance(expected, list) and len(expected) == 1:
        expected = expected[0]  # APPS' one-element wrapping
    return [expected]


def function_problem(ident: str, statement: str, fn_name: str,
                     calls: list[tuple[list[Any], Any]], *, wrapped: bool = True,
                     time_limit_s: float | None = None, tags: list[str] | None = None,
                     starter_code: str | None = None, where: str = "tests") -> Problem:
    """A function problem from ``(arguments, expected value)`` calls: ``fn_name(arg0, arg1,
    ...)``, every parameter and the return value typed ``Any``, each test a check that
    compares as the benchmark does (:data:`CALL_CHECKER`; ``wrapped``: the expected value
    is APPS' one-element list)."""
    if not isinstance(fn_name, str) or not fn_name.isidentifier():
        raise RecordError("fn_name %r is not a function name" % (fn_name,), "fn_name")
    if not calls:
        raise RecordError("no tests: the judge could not give a verdict", where)
    arity = {len(args) for args, _ in calls}
    if len(arity) != 1:
        raise RecordError("the calls take different numbers of arguments (%s)" % ", ".join(
            str(n) for n in sorted(arity)), where)
    names = ["arg%d" % i for i in range(arity.pop())]
    prompt = statement or "Write a Python function %s." % fn_name
    if starter_code and starter_code.strip():
        prompt += "\n\n```python\n%s\n```" % starter_code.strip()
    by_check = CALL_COMPARISON.get() == "check"
    cases = [{"input": dict(zip(names, args)),
              "check": "benchmark_equal(output, %s%s)" % (
                  _literal(expected, "%s[%d]" % (where, i)), "" if wrapped else ", False")}
             if by_check else {"input": dict(zip(names, args)),
                               "expected_output": _expected_case(expected, wrapped)}
             for i, (args, expected) in enumerate(calls)]
    data: dict[str, Any] = {
        "identifier": ident, "description": statement or fn_name,
        "prompts": [{"prompt_id": "default", "prompt": prompt, "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": fn_name,
                               "parameters": [{"name": n, "type": "Any"} for n in names],
                               "return_values": [{"type": "Any"}]},
        "correctness_test_suite": cases, "equality": "python",
    }
    if by_check:
        data["checker"] = CALL_CHECKER
    if time_limit_s is not None:
        data["limits"] = {"time_limit_s": time_limit_s}
    if tags:
        data["tags"] = tags
    try:
        return function_from_data(data, "<%s>" % ident)
    except InputError as exc:
        raise RecordError("; ".join(i.message for i in exc.issues), where) from None


def problem_data(problem: Problem | ProgramProblem) -> dict[str, Any]:
    """A problem as the JSON of its problem file (inline tests), as its kind writes it."""
    return kind_of(problem).data(problem)


def tests_of(problem: Problem | ProgramProblem) -> int:
    return len(problem.tests)


# ---- the importer -----------------------------------------------------------------------------

@dataclass
class DatasetRead:
    """What reading records gave: the problems (in record order) and the located issues."""

    problems: list[Problem | ProgramProblem] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    #: for each problem, the record it came from (its index in the file)
    records: list[int] = field(default_factory=list)


class DatasetImporter(Importer):
    """One dataset format: :meth:`problem` turns one record into one problem."""

    #: the format's name in messages and identifiers
    label: ClassVar[str] = "dataset"
    #: fields whose presence says a record is in this format (``judge.rewards`` detection)
    marker_fields: ClassVar[tuple[str, ...]] = ()

    def problem(self, record: dict[str, Any], index: int = 0) -> Problem | ProgramProblem:
        """One record as a problem (nothing written); RecordError when it cannot be one."""
        raise NotImplementedError

    def _records(self, records: Iterable[Record]) -> DatasetRead:
        out = DatasetRead()
        seen: dict[str, int] = {}
        for record in records:
            if record.issue is not None:
                out.issues.append(record.issue)
                continue
            try:
                problem = self.problem(record.value, record.index)
            except RecordError as exc:
                out.issues.append(record.issue_for(str(exc), exc.field))
                continue
            except (InputError, ValueError, TypeError, KeyError) as exc:
                out.issues.append(record.issue_for("%s: %s" % (type(exc).__name__, exc)))
                continue
            if problem.identifier in seen:  # never silently dropped: renamed
                seen[problem.identifier] += 1
                problem.identifier = "%s_%d" % (problem.identifier, seen[problem.identifier])
            seen.setdefault(problem.identifier, 1)
            out.problems.append(problem)
            out.records.append(record.index)
        return out

    def from_records(self, records: Iterable[dict[str, Any]], source: str = "<records>"
                     ) -> DatasetRead:
        """Problems from records in memory (dicts): issues name the record's index."""
        return self._records(Record(source, i, value=r) if isinstance(r, dict) else
                             Record(source, i, issue=Issue(source, "a record must be a dict, "
                                                           "got %s" % type(r).__name__,
                                                           "[%d]" % i))
                             for i, r in enumerate(records))

    def read(self, path: str | Path) -> DatasetRead:
        """Problems from a dataset file (JSON, JSON Lines, Parquet)."""
        return self._records(read_dataset(path))

    def import_suite(self, kind: str, path: Path, output: Path,
                     progress: Callable[[str], None] | None = None) -> ImportReport:
        result = self.read(path)
        output.mkdir(parents=True, exist_ok=True)
        report = ImportReport(kind, str(path), str(output), issues=list(result.issues))
        for problem in result.problems:
            name = file_name(problem.identifier, self)
            data = problem_data(problem)
            _externalize(data, output, Path(name).stem)
            target = output / name
            target.write_text(jsonl.json_text(data, indent=1) + "\n",
                              encoding="utf-8")
            checks = sum(1 for t in problem.tests if getattr(t, "check", None) is not None)
            report.problems.append(ProblemReport(problem.identifier, str(target),
                                                 expected=tests_of(problem) - checks,
                                                 checks=checks))
            if progress:
                progress(problem.identifier)
        return report


def _externalize(data: dict[str, Any], output: Path, stem: str) -> None:
    """Large inputs and outputs of a program problem's tests go to files of the suite
    (``<stem>/<n>.in`` and ``.ans``), the problem file refers to them (a function problem
    has no ``tests`` field: nothing moves)."""
    for number, test in enumerate(data.get("tests", []), start=1):
        for key, suffix in (("stdin", ".in"), ("expected", ".ans")):
            value = test.get(key)
            if isinstance(value, str) and len(value) > INLINE_BYTES:
                folder = output / stem
                folder.mkdir(exist_ok=True)
                (folder / ("%03d%s" % (number, suffix))).write_text(value, encoding="utf-8")
                del test[key]
                test[key + "_file"] = "%s/%03d%s" % (stem, number, suffix)


__all__ = ["DatasetImporter", "DatasetRead", "Record", "RecordError", "function_problem",
           "identifier", "json_field", "problem_data", "program_problem", "read_dataset",
           "seconds", "text", "CALL_CHECKER", "CALL_COMPARISON"]
