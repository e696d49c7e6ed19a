"""Whether a Python candidate can carry state from one call to the next: a static check,
conservative (anything it cannot vouch for carries state).

Why it matters: with ``test_isolation="on-failure"`` (the default) a candidate's tests first
run one after another in one process, and every test that fails there runs again alone, so
that no failure is caused by what an earlier test left behind (a mutable default argument
that kept growing, a module-level cache a bug corrupted, a global counter). Those reruns
cost a process each, and on failure-heavy work they are most of the judge's CPU. For code
whose calls provably cannot see anything an earlier call changed, a test's failing value in
that process *is* its value alone, so :meth:`Executor._batch_then_isolated` lets it stand.

The check vouches for code when calling its functions can change nothing that outlives the
call, that is, when:

- the module binds only functions, imports of :data:`STATELESS_MODULES` (modules whose
  functions keep no state a caller can see) and constant expressions (numbers, strings,
  tuples of them), at its top level or under a top-level ``if``; it defines no class;
- no function uses ``global``, a decorator, a default value other than a constant
  expression, an attribute store or delete, an attribute whose name begins with ``_`` or
  reaches frames, code or ABC registries (``f_globals``, ``gi_frame``, ``register``...),
  a name beginning with ``__``, or a builtin that reaches or changes the interpreter's
  state (``globals``, ``setattr``, ``getattr``, ``exec``, ``open``, ``input``, ``id``...);
- no handler catches ``MemoryError`` or ``RecursionError`` (or a base of them, or
  anything, bare): an allocation that fails only because an earlier test left memory
  behind would otherwise become a wrong value;
- no import is of anything else, no ``async`` code, no walrus outside a function.

``nonlocal`` is fine (its cell belongs to the enclosing call); so are local lists, dicts and
sets and their mutation, nested functions, lambdas, comprehensions, generators, recursion,
``print``. What it cannot see is on the safe side by design: a false "carries state" only
costs the reruns the judge does anyway, and a candidate can never gain from a test that is
not rerun (a rerun may only turn a failure into a pass, never the other way).
"""

from __future__ import annotations

import ast
import re

from judge.candidates.extract import PARSE_LIMIT
from judge.pyparse import parse

#: modules whose functions and classes keep no state a later call could see (caches inside
#: ``re`` or ``typing`` return equal, immutable results); ``random``, ``sys``, ``os``,
#: ``time``, ``decimal`` (its context), ``calendar`` (its first weekday) are not among them
STATELESS_MODULES = frozenset({
    "array", "bisect", "cmath", "collections", "collections.abc", "copy", "fractions", "hashlib",
    "functools", "heapq", "itertools", "json", "math", "numbers", "operator", "re",
    "statistics", "string", "textwrap", "typing", "unicodedata",
})
#: builtins that read or change the interpreter's state, reach objects by name, or read input
STATEFUL_BUILTINS = frozenset({
    "globals", "locals", "vars", "eval", "exec", "compile", "setattr", "delattr", "getattr",
    "open", "input", "breakpoint", "exit", "quit", "help", "id", "super", "memoryview",
})
#: exceptions whose handlers could turn an earlier test's leftovers (memory, depth) into a value
SENSITIVE_EXCEPTIONS = frozenset({"BaseException", "Exception", "MemoryError",
                                  "RecursionError", "RuntimeError"})
#: attributes that reach frames, code objects, tracebacks or ABC registries
_REACHING = re.compile(r"^(_|(f|gi|cr|ag|tb|co)_|register$|mro$)")
#: names fine though they start with two underscores
_DUNDER_OK = frozenset({"__name__", "__doc__"})
#: the most code the check parses in the judge's process: the reply-to-code step's bound
#: (parsing takes hundreds of bytes of memory per byte of code); longer code is not vouched
#: for, so its reruns stay
MAX_CHARS = PARSE_LIMIT


def why_stateful(code: str) -> str | None:
    """None when calls of the code's functions cannot carry state from one to the next
    (see the module's docstring); else the first reason they might."""
    if len(code) > MAX_CHARS:
        return "code longer than the check reads"
    try:
        tree = parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError, SystemError):
        return "code that does not parse"
    if not isinstance(tree, ast.Module):
        return "not a module"
    try:
        reason = _module(tree.body, set()) or _walrus_at_top(tree)
        for node in ast.walk(tree):
            if reason is not None:
                break
            reason = _anywhere(node)
    except RecursionError:
        return "code nested too deeply to check"
    return reason


def carries_no_state(code: str) -> bool:
    return why_stateful(code) is None


def _module(body: list[ast.stmt], constants: set[str]) -> str | None:
    """The top level: what it may bind (functions, stateless imports, constants)."""
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.Import, ast.ImportFrom, ast.Expr,
                                  ast.Pass)):
            continue  # bodies, imports and names: _anywhere (everywhere)
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            if isinstance(statement, ast.AnnAssign) and statement.value is None:
                continue  # an annotation binds nothing
            targets = statement.targets if isinstance(statement, ast.Assign) \
                else [statement.target]
            if not _constant(statement.value, constants):
                return "a module-level name bound to something not constant"
            for target in targets:
                names = _names(target)
                if names is None:
                    return "a module-level assignment to something other than a name"
                constants.update(names)
            continue
        if isinstance(statement, ast.If):
            reason = _module(statement.body, constants) or _module(statement.orelse, constants)
            if reason is not None:
                return reason
            continue
        return "a module-level %s" % type(statement).__name__
    return None


def _names(target: ast.expr) -> list[str] | None:
    """The names an assignment target binds, or None when it is not only names."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        names: list[str] = []
        for element in target.elts:
            inner = _names(element)
            if inner is None:
                return None
            names.extend(inner)
        return names
    return None


def _constant(node: ast.expr | None, constants: set[str]) -> bool:
    """A value nothing can change: a literal number, string, bytes, bool or None, a tuple of
    such, arithmetic on them, or an earlier module-level constant."""
    if node is None or isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Tuple):
        return all(_constant(e, constants) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand, constants)
    if isinstance(node, ast.BinOp):
        return _constant(node.left, constants) and _constant(node.right, constants)
    if isinstance(node, ast.Name):
        return node.id in constants
    return False


def _anywhere(node: ast.AST) -> str | None:
    """The rules that hold at every depth: why the node may carry state, or None."""
    if isinstance(node, (ast.ClassDef, ast.AsyncFunctionDef, ast.Await, ast.AsyncFor,
                         ast.AsyncWith, ast.Global, ast.TryStar)):
        return "a %s" % type(node).__name__
    if isinstance(node, (ast.FunctionDef, ast.Lambda)):
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            return "a decorator"
        arguments = node.args
        for default in list(arguments.defaults) + [d for d in arguments.kw_defaults if d]:
            if not _constant(default, set()):
                return "a default value that is not constant"
    elif isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name not in STATELESS_MODULES:
                return "an import of %s" % alias.name
    elif isinstance(node, ast.ImportFrom):
        if node.level or node.module not in STATELESS_MODULES:
            return "an import from %s" % (node.module or ".")
        for alias in node.names:
            if alias.name != "*" and _REACHING.match(alias.name):
                return "an import of %s" % alias.name
    elif isinstance(node, ast.Attribute):
        if not isinstance(node.ctx, ast.Load):
            return "an attribute store"
        if _REACHING.match(node.attr):
            return "the attribute %s" % node.attr
    elif isinstance(node, ast.Name):
        if node.id.startswith("__") and node.id not in _DUNDER_OK:
            return "the name %s" % node.id
        if node.id in STATEFUL_BUILTINS:
            return "the builtin %s" % node.id
    elif isinstance(node, ast.ExceptHandler):
        caught = node.type
        if caught is None:
            return "a bare except"
        for kind in (caught.elts if isinstance(caught, ast.Tuple) else [caught]):
            if not isinstance(kind, ast.Name) or kind.id in SENSITIVE_EXCEPTIONS:
                return "a handler of %s" % ast.unparse(kind)
    elif isinstance(node, ast.Delete):
        for target in node.targets:
            if not isinstance(target, (ast.Name, ast.Subscript)):
                return "a delete of an attribute"
    return None


def _walrus_at_top(tree: ast.AST) -> str | None:
    """A walrus outside every function binds a module-level name."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.FunctionDef, ast.Lambda)):
            continue
        if isinstance(child, ast.NamedExpr):
            return "a walrus at the module level"
        reason = _walrus_at_top(child)
        if reason is not None:
            return reason
    return None
