"""Types for problems that say ``Any``: HumanEval's later prompts have no annotations, so
the importer types their parameters and results as ``Any``, which no typed language can
express. Here each ``Any`` (at the top of a parameter or result) is replaced by the narrowest
type that covers every value the problem's tests and samples give for it (ints and floats
together are float; an empty list takes its element type from the other lists). The result
is a new, validated problem: a property of the problem, the same for every language. Where
the values fit no one type, the ``Any`` stays and the problem is "not expressible"."""

from __future__ import annotations

import functools
from typing import Any

from judge.problem.model import Problem, problem_from_data

_SCALARS = {bool: "bool", int: "int", float: "float", str: "str"}


def _join(a: str | None, b: str | None) -> str | None:
    """The narrowest type string covering both (None: no information yet)."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if {a, b} == {"int", "float"}:
        return "float"
    if a.startswith("List[") and b.startswith("List["):
        inner = _join(a[5:-1] or None, b[5:-1] or None)
        return "List[%s]" % inner if inner else None
    if a == "None" or b == "None":
        other = b if a == "None" else a
        return other if other.startswith("Optional[") else "Optional[%s]" % other
    if a.startswith("Optional[") and not b.startswith("Optional["):
        return _join(a, "Optional[%s]" % b)
    if b.startswith("Optional[") and not a.startswith("Optional["):
        return _join("Optional[%s]" % a, b)
    if a.startswith("Optional[") and b.startswith("Optional["):
        inner = _join(a[9:-1], b[9:-1])
        return "Optional[%s]" % inner if inner else None
    return "?"


def _of(value: Any) -> str | None:
    if value is None:
        return "None"
    kind = _SCALARS.get(type(value))
    if kind:
        return kind
    if isinstance(value, list):
        inner: str | None = None
        for item in value:
            inner = _join(inner, _of(item))
        return "List[%s]" % inner if inner else "List[]"
    if isinstance(value, dict):
        keys: str | None = None
        values: str | None = None
        for key, item in value.items():
            keys, values = _join(keys, _of(key)), _join(values, _of(item))
        return "Dict[%s, %s]" % (keys or "str", values or "int") if value else "Dict[]"
    return "?"


def _infer(values: list[Any]) -> str | None:
    joined: str | None = None
    for value in values:
        joined = _join(joined, _of(value))
    if joined is None or "?" in joined or "[]" in joined or joined == "None":
        return None
    return joined


@functools.lru_cache(maxsize=4096)
def _typed(problem: Problem) -> Problem:
    prototype = problem.function_prototype
    if not any(p.type == "Any" for p in prototype.parameters) and not any(
            r.type == "Any" for r in prototype.return_values):
        return problem
    cases = list(problem.correctness_test_suite)
    for prompt in problem.prompts:
        cases += list(prompt.sample_inputs_outputs)
    data = problem.model_dump(mode="json", exclude_none=True)
    changed = False
    for index, param in enumerate(prototype.parameters):
        if param.type == "Any":
            guess = _infer([c.input.get(param.name) for c in cases if param.name in c.input])
            if guess:
                data["function_prototype"]["parameters"][index]["type"] = guess
                changed = True
    for index, returned in enumerate(prototype.return_values):
        if returned.type == "Any":
            outputs = [c.expected_values()[index] for c in cases
                       if c.expected_output is not None and len(c.expected_values()) > index]
            guess = _infer(outputs)
            if guess:
                data["function_prototype"]["return_values"][index]["type"] = guess
                changed = True
    if not changed:
        return problem
    try:
        return problem_from_data(data, problem.source)
    except Exception:  # the guess does not validate against every test: keep Any
        return problem


def typed(problem: Problem) -> Problem:
    """The problem with ``Any`` replaced where its tests say what the type is."""
    try:
        return _typed(problem)
    except TypeError:  # not hashable: no cache
        return _typed.__wrapped__(problem)
