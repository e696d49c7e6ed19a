"""The type model: a problem's type strings, parsed.

The prototype's type strings (Python typing spelling: ``int``, ``List[int]``,
``Dict[str, Tuple[int, float]]``, ``Optional[str]``, ``int | None``...) decide three things:
how JSON test data becomes Python values (a JSON list is a tuple or a set where the type says
so; JSON object keys become ints for ``Dict[int, ...]``), what a prompt's signature says, and
how results are compared (``judge.compare``). An unknown type string is an error that names
it, never a crash and never a silent "anything goes".
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any
from judge.errors import InputFault

SCALARS = {"int", "float", "str", "bool", "none", "bytes", "complex", "any"}

_ALIASES = {
    "int": "int", "float": "float", "str": "str", "bool": "bool", "bytes": "bytes",
    "complex": "complex", "None": "none", "NoneType": "none", "Any": "any", "object": "any",
    "List": "list", "list": "list", "Sequence": "sequence", "Iterable": "sequence",
    "Tuple": "tuple", "tuple": "tuple", "Set": "set", "set": "set", "FrozenSet": "set",
    "frozenset": "set", "Dict": "dict", "dict": "dict", "Mapping": "dict",
    "Optional": "optional", "Union": "union",
}
_GENERIC_ARITY = {"list": 1, "sequence": 1, "set": 1, "dict": 2, "optional": 1}
_SUGGESTIONS = {
    "string": "str", "integer": "int", "boolean": "bool", "double": "float", "number": "float",
    "char": "str", "long": "int", "array": "List[...]", "map": "Dict[..., ...]",
    "null": "None", "void": "None",
}
_TOKEN = re.compile(r"\s*(?:(\.\.\.)|([A-Za-z_][A-Za-z_0-9.]*)|(\[|\]|,|\|))")


class TypeParseError(InputFault, ValueError):
    """A type string that is not in the supported Python typing spelling."""

    code = "invalid_type"


@dataclass(frozen=True)
class TypeSpec:
    """One parsed type. ``kind`` is a scalar name or a container/union kind."""

    kind: str
    args: tuple["TypeSpec", ...] = ()
    variadic: bool = False  # Tuple[int, ...]

    def __str__(self) -> str:
        names = {"none": "None", "any": "Any", "list": "List", "tuple": "Tuple", "set": "Set",
                 "dict": "Dict", "optional": "Optional", "union": "Union",
                 "sequence": "Sequence"}
        name = names.get(self.kind, self.kind)
        if not self.args:
            return name
        inner = ", ".join(str(a) for a in self.args) + (", ..." if self.variadic else "")
        return "%s[%s]" % (name, inner)


ANY = TypeSpec("any")


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise TypeParseError("unexpected character %r in type %r" % (text[pos], text))
        out.append(match.group(1) or match.group(2) or match.group(3))
        pos = match.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise TypeParseError("expected %r in type %r" % (expected or "a type", self.text))
        self.pos += 1
        return token

    def parse(self) -> TypeSpec:
        spec = self.union()
        if self.peek() is not None:
            raise TypeParseError("unexpected %r in type %r" % (self.peek(), self.text))
        return spec

    def union(self) -> TypeSpec:
        options = [self.single()]
        while self.peek() == "|":
            self.take("|")
            options.append(self.single())
        return _make_union(options)

    def single(self) -> TypeSpec:
        name = self.take()
        if name in ("[", "]", ",", "|", "..."):
            raise TypeParseError("expected a type name, got %r in %r" % (name, self.text))
        short = name.split(".")[-1] if name.startswith("typing.") else name
        kind = _ALIASES.get(short)
        if kind is None:
            hint = _SUGGESTIONS.get(short.lower())
            raise TypeParseError("unknown type %r in %r%s" % (
                name, self.text, " (did you mean %r?)" % hint if hint else ""))
        if self.peek() != "[":
            if kind in ("optional", "union"):
                raise TypeParseError("%s needs parameters in %r" % (short, self.text))
            if kind in _GENERIC_ARITY:  # bare List, Dict, Set...: of anything
                return TypeSpec(kind, (ANY,) * _GENERIC_ARITY[kind])
            return TypeSpec(kind)
        if kind in SCALARS:
            raise TypeParseError("%s takes no parameters in %r" % (short, self.text))
        self.take("[")
        args, variadic = [], False
        while True:
            if self.peek() == "...":
                self.take("...")
                variadic = True
            else:
                args.append(self.union())
            if self.peek() == ",":
                self.take(",")
                continue
            self.take("]")
            break
        return _make_generic(kind, args, variadic, self.text)


def _make_union(options: list[TypeSpec]) -> TypeSpec:
    flat: list[TypeSpec] = []
    for option in options:
        for item in (option.args if option.kind == "union" else (option,)):
            if item not in flat:
                flat.append(item)
    if len(flat) == 1:
        return flat[0]
    non_none = [o for o in flat if o.kind != "none"]
    if len(non_none) == 1 and len(flat) == 2:
        return TypeSpec("optional", (non_none[0],))
    return TypeSpec("union", tuple(flat))


def _make_generic(kind: str, args: list[TypeSpec], variadic: bool, text: str) -> TypeSpec:
    if kind == "tuple":
        if variadic and len(args) != 1:
            raise TypeParseError("Tuple[X, ...] takes exactly one type in %r" % text)
        return TypeSpec("tuple", tuple(args), variadic)
    if variadic:
        raise TypeParseError("'...' is only allowed in Tuple in %r" % text)
    if kind == "union":
        return _make_union(args)
    expected = _GENERIC_ARITY[kind]
    if len(args) != expected:
        raise TypeParseError("%s takes %d parameter%s, got %d in %r" % (
            kind.capitalize(), expected, "" if expected == 1 else "s", len(args), text))
    if kind == "optional":
        return _make_union([args[0], TypeSpec("none")])
    return TypeSpec(kind, tuple(args))


def parse_type(text: str) -> TypeSpec:
    """Parse a type string. Raises TypeParseError naming what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise TypeParseError("empty type string")
    return _Parser(text).parse()


def return_type(specs: list[TypeSpec]) -> TypeSpec:
    """The function's overall return type: one value is itself, several are a tuple."""
    if len(specs) == 1:
        return specs[0]
    return TypeSpec("tuple", tuple(specs))


# ---- JSON test data -> Python values --------------------------------------------------------

class ValueTypeError(InputFault, ValueError):
    """A JSON value does not fit its declared type; ``path`` is the JSON location inside it."""

    code = "value_type_mismatch"

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


_FLOAT_WORDS = {"nan": math.nan, "NaN": math.nan, "inf": math.inf, "Infinity": math.inf,
                "+inf": math.inf, "-inf": -math.inf, "-Infinity": -math.inf}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def from_json(value: Any, spec: TypeSpec, path: str = "") -> Any:
    """Convert JSON data to the Python value the type describes, or raise ValueTypeError."""
    kind = spec.kind
    if kind == "any":
        return value
    if kind == "none":
        if value is not None:
            raise ValueTypeError(path, "expected null for None, got %s" % _short(value))
        return None
    if kind == "optional":
        return None if value is None else from_json(value, spec.args[0], path)
    if kind == "union":
        for option in spec.args:
            try:
                return from_json(value, option, path)
            except ValueTypeError:
                continue
        raise ValueTypeError(path, "%s fits none of %s" % (_short(value), spec))
    if kind == "bool":
        if type(value) is not bool:
            raise ValueTypeError(path, "expected bool, got %s" % _short(value))
        return value
    if kind == "int":
        if type(value) is not int:
            raise ValueTypeError(path, "expected int, got %s" % _short(value))
        return value
    if kind == "float":
        if type(value) in (int, float):
            return float(value)
        if isinstance(value, str) and value in _FLOAT_WORDS:
            return _FLOAT_WORDS[value]
        raise ValueTypeError(path, "expected float, got %s" % _short(value))
    if kind == "complex":
        if type(value) is list and len(value) == 2:
            return complex(from_json(value[0], TypeSpec("float"), path),
                           from_json(value[1], TypeSpec("float"), path))
        raise ValueTypeError(path, "expected complex as [real, imag], got %s" % _short(value))
    if kind in ("str", "bytes"):
        if type(value) is not str:
            raise ValueTypeError(path, "expected string, got %s" % _short(value))
        return value.encode("utf-8") if kind == "bytes" else value
    if kind == "dict":
        return _dict_from_json(value, spec, path)
    if type(value) is not list:
        raise ValueTypeError(path, "expected a JSON array for %s, got %s" % (spec, _short(value)))
    if kind in ("list", "sequence"):
        return [from_json(item, spec.args[0], "%s[%d]" % (path, i)) for i, item in enumerate(value)]
    if kind == "set":
        items = [from_json(item, spec.args[0], "%s[%d]" % (path, i)) for i, item in enumerate(value)]
        try:
            return set(items)
        except TypeError:
            raise ValueTypeError(path, "set elements must be hashable in %s" % spec) from None
    if kind == "tuple":
        return _tuple_from_json(value, spec, path)
    raise ValueTypeError(path, "unsupported type %s" % spec)  # pragma: no cover


def _tuple_from_json(value: list[Any], spec: TypeSpec, path: str) -> tuple[Any, ...]:
    if spec.variadic:
        return tuple(from_json(v, spec.args[0], "%s[%d]" % (path, i)) for i, v in enumerate(value))
    if not spec.args:  # bare Tuple: any length, any items
        return tuple(value)
    if len(value) != len(spec.args):
        raise ValueTypeError(path, "expected %d items for %s, got %d" % (
            len(spec.args), spec, len(value)))
    return tuple(from_json(v, s, "%s[%d]" % (path, i))
                 for i, (v, s) in enumerate(zip(value, spec.args)))


def _dict_key(key: str, spec: TypeSpec, path: str) -> Any:
    """JSON object keys are strings; convert them to the declared key type."""
    kind = spec.kind
    try:
        if kind == "int":
            return int(key)
        if kind == "float":
            return float(key)
        if kind == "bool":
            return {"true": True, "false": False}[key]
    except (ValueError, KeyError):
        raise ValueTypeError(path, "key %r is not a valid %s" % (key, spec)) from None
    if kind in ("str", "any"):
        return key
    raise ValueTypeError(path, "JSON object keys cannot be %s; write the dict as a list of "
                         "[key, value] pairs" % spec)


def _dict_from_json(value: Any, spec: TypeSpec, path: str) -> dict[Any, Any]:
    key_spec, value_spec = spec.args if spec.args else (ANY, ANY)
    if type(value) is dict:
        return {_dict_key(k, key_spec, "%s.%s" % (path, k)):
                from_json(v, value_spec, "%s.%s" % (path, k)) for k, v in value.items()}
    if type(value) is list and all(type(p) is list and len(p) == 2 for p in value):
        out = {}
        for i, (k, v) in enumerate(value):
            key = from_json(k, key_spec, "%s[%d][0]" % (path, i))
            try:
                out[key] = from_json(v, value_spec, "%s[%d][1]" % (path, i))
            except TypeError:
                raise ValueTypeError(path, "unhashable key %s" % _short(k)) from None
        return out
    raise ValueTypeError(path, "expected a JSON object for %s, got %s" % (spec, _short(value)))


def to_json(value: Any) -> Any:
    """The inverse for display: Python values back to readable JSON (tuples and sets as
    lists, non-finite floats as strings, dicts with non-string keys as pair lists)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [to_json(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return sorted(items, key=repr)
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: to_json(v) for k, v in value.items()}
        return [[to_json(k), to_json(v)] for k, v in value.items()]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, complex):
        return [to_json(value.real), to_json(value.imag)]
    return value


# ---- float tolerance (a problem's comparison setting; applied by judge.engine.compare)

@dataclass(frozen=True)
class Tolerance:
    """Floats match when within ``rel`` relative or ``abs`` absolute difference."""

    rel: float = 1e-9
    abs: float = 1e-6

    def close(self, expected: float, actual: float) -> bool:
        if math.isnan(expected) or math.isnan(actual):
            return math.isnan(expected) and math.isnan(actual)
        if math.isinf(expected) or math.isinf(actual):
            return expected == actual
        return math.isclose(expected, actual, rel_tol=self.rel, abs_tol=self.abs)


DEFAULT_TOLERANCE = Tolerance()
