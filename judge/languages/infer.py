"""Types for problems that say ``Any``: HumanEval's later prompts have no annotations, so
the importer types their parameters and results as ``Any`` (or ``List[Any]``...), which a
typed language cannot write well. Here each ``Any`` (anywhere in a parameter or result type)
is replaced by the narrowest type that covers every value the problem's tests and samples
give for it: the inputs, the expected outputs, and the literal a ``check`` compares the output
with (``output == ('Saturn', 'Uranus')``, ``output is True``). Ints and floats together are
float; an empty list takes its element type from the other lists; tuples of different lengths
are a variadic tuple. The result is a new, validated problem: a property of the problem, the
same for every language. Where the values fit no one type (``filter_integers``' mixed list,
``compare_one``'s int, float or string), the ``Any`` stays: every language carries it as a
tagged value (see :func:`judge.languages.base.descriptor`)."""

from __future__ import annotations

import ast
import functools
from typing import Any

from judge.problem.model import Problem, function_from_data

_SCALARS = {bool: "bool", int: "int", float: "float", str: "str"}
#: an inferred type: a scalar name, "None", "?" (values of no one type), or a tuple
#: ("List", inner) / ("Dict", key, value) / ("Opt", inner) / ("Tup", (items...)) /
#: ("VTup", inner); None is "no information yet" (an empty list's element)
Ty = Any
CONFLICT = "?"


def _join(a: Ty, b: Ty) -> Ty:
    """The narrowest type covering both."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if CONFLICT in (a, b):
        return CONFLICT
    if {a, b} == {"int", "float"}:
        return "float"
    if a == "None" or b == "None":
        other = b if a == "None" else a
        return other if isinstance(other, tuple) and other[0] == "Opt" else ("Opt", other)
    if isinstance(a, tuple) and a[0] == "Opt":
        inner = _join(a[1], b[1] if isinstance(b, tuple) and b[0] == "Opt" else b)
        return CONFLICT if inner == CONFLICT else ("Opt", inner)
    if isinstance(b, tuple) and b[0] == "Opt":
        return _join(b, a)
    if not (isinstance(a, tuple) and isinstance(b, tuple)):
        return CONFLICT
    if a[0] == b[0] == "List" or a[0] == b[0] == "VTup":
        inner = _join(a[1], b[1])
        return CONFLICT if inner == CONFLICT else (a[0], inner)
    if a[0] == b[0] == "Dict":
        key, value = _join(a[1], b[1]), _join(a[2], b[2])
        return CONFLICT if CONFLICT in (key, value) else ("Dict", key, value)
    if {a[0], b[0]} <= {"Tup", "VTup"}:
        if a[0] == b[0] == "Tup" and len(a[1]) == len(b[1]):
            items = tuple(_join(x, y) for x, y in zip(a[1], b[1]))
            return CONFLICT if CONFLICT in items else ("Tup", items)
        inner = None
        for side in (a, b):
            for item in (side[1] if side[0] == "Tup" else (side[1],)):
                inner = _join(inner, item)
        return CONFLICT if inner == CONFLICT else ("VTup", inner)
    return CONFLICT


def _of(value: Any) -> Ty:
    if value is None:
        return "None"
    kind = _SCALARS.get(type(value))
    if kind:
        return kind
    if isinstance(value, list):
        inner: Ty = None
        for item in value:
            inner = _join(inner, _of(item))
        return CONFLICT if inner == CONFLICT else ("List", inner)
    if isinstance(value, tuple):
        items = tuple(_of(item) for item in value)
        return CONFLICT if CONFLICT in items else ("Tup", items)
    if isinstance(value, dict):
        keys: Ty = None
        values: Ty = None
        for key, item in value.items():
            keys, values = _join(keys, _of(key)), _join(values, _of(item))
        return CONFLICT if CONFLICT in (keys, values) else ("Dict", keys, values)
    return CONFLICT


def _text(ty: Ty) -> str | None:
    """The type string, None when some part is unknown or of no one type."""
    if ty is None or ty == CONFLICT:
        return None
    if isinstance(ty, str):
        return ty
    head = ty[0]
    if head == "Tup":
        if not ty[1]:
            return None
        items = [_text(t) for t in ty[1]]
        return None if None in items else "Tuple[%s]" % ", ".join(items)  # type: ignore[arg-type]
    parts = [_text(t) for t in ty[1:]]
    if None in parts:
        return None
    name = {"List": "List", "Dict": "Dict", "Opt": "Optional", "VTup": "Tuple"}[head]
    if head == "VTup":
        return "Tuple[%s, ...]" % parts[0]
    return "%s[%s]" % (name, ", ".join(parts))  # type: ignore[arg-type]


def _infer(values: list[Any], declared: str) -> str | None:
    joined: Ty = None
    for value in values:
        joined = _join(joined, _of(value))
    if declared.startswith("Tuple[") and isinstance(joined, tuple) and joined[0] == "List":
        joined = ("VTup", joined[1])
    text = _text(joined)
    if text is None or text == "None":
        return None
    return text


def check_literal(check: str) -> tuple[bool, Any]:
    """(True, value) when a check compares the output with a literal
    (``output == (8, 13)``, ``output is True``); (False, None) otherwise."""
    try:
        tree = ast.parse(check, mode="eval").body
    except SyntaxError:
        return False, None
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1
            and isinstance(tree.ops[0], (ast.Eq, ast.Is))):
        return False, None
    left, right = tree.left, tree.comparators[0]
    if isinstance(right, ast.Name) and right.id == "output":
        left, right = right, left
    if not (isinstance(left, ast.Name) and left.id == "output"):
        return False, None
    try:
        return True, ast.literal_eval(right)
    except (ValueError, SyntaxError, TypeError):
        return False, None


def _outputs(cases: list[Any], index: int) -> list[Any]:
    values = []
    for case in cases:
        if case.expected_output is not None:
            expected = case.expected_values()
            if len(expected) > index:
                values.append(expected[index])
        elif getattr(case, "check", None) and index == 0:
            found, value = check_literal(case.check)
            if found:
                values.append(value)
    return values


@functools.lru_cache(maxsize=4096)
def _typed(problem: Problem) -> Problem:
    prototype = problem.function_prototype
    if not any("Any" in p.type for p in prototype.parameters) and not any(
            "Any" in r.type for r in prototype.return_values):
        return problem
    cases = list(problem.correctness_test_suite)
    for prompt in problem.prompts:
        cases += list(prompt.sample_inputs_outputs)
    data = problem.model_dump(mode="json", exclude_none=True)
    changed = False
    for index, param in enumerate(prototype.parameters):
        if "Any" in param.type:
            guess = _infer([c.input.get(param.name) for c in cases if param.name in c.input],
                           param.type)
            if guess:
                data["function_prototype"]["parameters"][index]["type"] = guess
                changed = True
    if len(prototype.return_values) == 1 or all(c.expected_output is not None for c in cases):
        for index, returned in enumerate(prototype.return_values):
            if "Any" in returned.type:
                guess = _infer(_outputs(cases, index), returned.type)
                if guess:
                    data["function_prototype"]["return_values"][index]["type"] = guess
                    changed = True
    if not changed:
        return problem
    try:
        return function_from_data(data, problem.source)
    except Exception:  # the guess does not validate against every test: keep Any
        return problem


def typed(problem: Problem) -> Problem:
    """The problem with ``Any`` replaced where its tests say what the type is."""
    try:
        return _typed(problem)
    except TypeError:  # not hashable: no cache
        return _typed.__wrapped__(problem)
