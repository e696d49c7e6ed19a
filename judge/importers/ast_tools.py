"""AST helpers for the tracer: names, candidate calls, simple statements, substitutions."""


from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import Any, Iterator




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


