"""The tracer: a benchmark's test function instrumented and run once against the reference
solution, so every call of the candidate becomes a concrete test."""


from __future__ import annotations

import ast
import contextlib
import copy
import inspect
import io
import random
import signal
import threading
from typing import Any, Callable, Iterator
from judge.errors import JudgeError
from judge.importers.ast_tools import RawTest, _Call, _Raised, _Replace, _Statement, _Substitute, _assigned_names, _candidate_refs, _headers, _is_call_of, _locally_bound, _names, _simple_statements
from judge.importers.records import Unconverted
from judge.importers.values import literal_source, same


TRACE_NAME = "__judge_trace__"
TRACE_SECONDS = 30.0
KINDS = ("humaneval", "mbpp")

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


class _TraceTimeout(JudgeError):
    code = "import_trace_timeout"


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


