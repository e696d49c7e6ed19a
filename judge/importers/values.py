"""Values of a traced test: JSON by declared type, Python literals, inferred types."""


from __future__ import annotations

import ast
import json
import math
from typing import Any
from judge.errors import JudgeError




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
    from judge.problem.types import TypeParseError, ValueTypeError, from_json, parse_type, to_json

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


class _NoType(JudgeError):
    code = "import_no_type"


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
    from judge.problem.types import TypeParseError, parse_type

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


