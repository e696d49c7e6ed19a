"""Comparison on the judge's side, by the declared type (design principle 3).

Both sides are plain data here: the expected value comes from the problem file (converted
by ``judge.types.from_json``) and the actual value from ``judge.wire.decode``. Rules:
floats with tolerance (recursively inside containers), sets unordered, ``bool`` is not
``int``, a list and a tuple are equal only where the type is ``Sequence`` (or ``Any`` with a
list/tuple mix is *not* accepted: the container kind is part of the answer).
"""

from __future__ import annotations

from typing import Any

from judge.problem.types import DEFAULT_TOLERANCE, Tolerance, TypeSpec


_KIND_OF = {bool: "bool", int: "int", float: "float", str: "str", bytes: "bytes",
            list: "list", tuple: "tuple", set: "set", frozenset: "set", dict: "dict",
            complex: "complex", type(None): "none"}


def _show(value: Any) -> str:
    try:
        text = repr(value)
    except ValueError:  # an int past Python's 4,300-digit limit on int-to-text, inside value
        text = "<%s too large to show>" % _kind_name(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _where(path: str) -> str:
    return " at %s" % path if path else ""


def _kind_name(value: Any) -> str:
    return _KIND_OF.get(type(value), type(value).__name__)


def compare(expected: Any, actual: Any, spec: TypeSpec,
            tolerance: Tolerance = DEFAULT_TOLERANCE, path: str = "") -> str | None:
    """None when ``actual`` matches ``expected`` under ``spec``; else the first mismatch."""
    kind = spec.kind
    if kind == "any":
        return _compare_inferred(expected, actual, tolerance, path)
    if kind == "optional":
        if expected is None or actual is None:
            return None if expected is actual else _mismatch(expected, actual, path)
        return compare(expected, actual, spec.args[0], tolerance, path)
    if kind == "union":
        messages = [compare(expected, actual, option, tolerance, path) for option in spec.args]
        return None if any(m is None for m in messages) else messages[0]
    if kind == "float":
        if type(actual) not in (int, float):
            return "expected float%s, got %s %s" % (_where(path), _kind_name(actual), _show(actual))
        if tolerance.close(float(expected), float(actual)):
            return None
        return _mismatch(expected, actual, path)
    if kind == "complex":
        if type(actual) not in (int, float, complex):
            return "expected complex%s, got %s" % (_where(path), _kind_name(actual))
        actual = complex(actual)
        ok = tolerance.close(expected.real, actual.real) and tolerance.close(
            expected.imag, actual.imag)
        return None if ok else _mismatch(expected, actual, path)
    if kind in ("int", "bool", "str", "bytes", "none"):
        wanted = {"int": int, "bool": bool, "str": str, "bytes": bytes, "none": type(None)}[kind]
        if type(actual) is not wanted:
            return "expected %s%s, got %s %s" % (kind if kind != "none" else "None", _where(path),
                                                _kind_name(actual), _show(actual))
        return None if expected == actual else _mismatch(expected, actual, path)
    if kind in ("list", "sequence"):
        allowed = (list, tuple) if kind == "sequence" else (list,)
        if type(actual) not in allowed:
            return "expected list%s, got %s %s" % (_where(path), _kind_name(actual), _show(actual))
        return _compare_items(list(expected), list(actual),
                              [spec.args[0]] * len(expected), tolerance, path)
    if kind == "tuple":
        if type(actual) is not tuple:
            return "expected tuple%s, got %s %s" % (_where(path), _kind_name(actual), _show(actual))
        if spec.variadic:
            specs = [spec.args[0]] * len(expected)
        elif spec.args:
            specs = list(spec.args)
        else:
            return _compare_inferred(expected, actual, tolerance, path)
        return _compare_items(list(expected), list(actual), specs, tolerance, path)
    if kind == "set":
        if type(actual) not in (set, frozenset):
            return "expected set%s, got %s %s" % (_where(path), _kind_name(actual), _show(actual))
        return _compare_sets(expected, actual, spec.args[0], tolerance, path)
    if kind == "dict":
        if type(actual) is not dict:
            return "expected dict%s, got %s %s" % (_where(path), _kind_name(actual), _show(actual))
        key_spec = spec.args[0] if spec.args else TypeSpec("any")
        value_spec = spec.args[1] if spec.args else TypeSpec("any")
        return _compare_dicts(expected, actual, value_spec, tolerance, path, key_spec)
    return "cannot compare values of type %s" % spec  # pragma: no cover


def _mismatch(expected: Any, actual: Any, path: str) -> str:
    return "expected %s%s, got %s" % (_show(expected), _where(path), _show(actual))


def _compare_items(expected: list[Any], actual: list[Any], specs: list[TypeSpec],
                   tolerance: Tolerance, path: str) -> str | None:
    if len(expected) != len(actual):
        return "expected %d items%s, got %d" % (len(expected), _where(path), len(actual))
    for index, (want, got, spec) in enumerate(zip(expected, actual, specs)):
        message = compare(want, got, spec, tolerance, "%s[%d]" % (path, index))
        if message:
            return message
    return None


def _compare_sets(expected: set[Any], actual: set[Any], item_spec: TypeSpec,
                  tolerance: Tolerance, path: str) -> str | None:
    if len(expected) != len(actual):
        return "expected a set of %d items%s, got %d" % (len(expected), _where(path), len(actual))
    if item_spec.kind not in ("float", "any", "tuple"):
        if expected == actual and all(type(a) is type(e) or _same_kind(e, a)
                                      for e, a in _pair_equal(expected, actual)):
            return None
        missing = sorted(map(_show, expected - actual))[:3]
        extra = sorted(map(_show, actual - expected))[:3]
        if not missing and not extra:  # equal as Python sets, but {1} is not {True}
            bad = next(a for e, a in _pair_equal(expected, actual) if type(a) is not type(e))
            return "set differs%s: element %s has type %s, expected %s" % (
                _where(path), _show(bad), _kind_name(bad), item_spec)
        return "set differs%s: missing %s, unexpected %s" % (
            _where(path), ", ".join(missing) or "-", ", ".join(extra) or "-")
    remaining = list(actual)
    for want in expected:  # tolerant matching, one actual item per expected item
        for index, got in enumerate(remaining):
            if compare(want, got, item_spec, tolerance, path) is None:
                del remaining[index]
                break
        else:
            return "set differs%s: no match for %s" % (_where(path), _show(want))
    return None


def _same_kind(expected: Any, actual: Any) -> bool:
    return type(expected) is type(actual) or (
        type(expected) in (set, frozenset) and type(actual) in (set, frozenset))


def _pair_equal(expected: set[Any], actual: set[Any]) -> list[tuple[Any, Any]]:
    """Pair equal elements so ``{1} == {True}`` can be caught: bool is not int."""
    lookup = {a: a for a in actual}
    return [(e, lookup.get(e, e)) for e in expected]


def _compare_dicts(expected: dict[Any, Any], actual: dict[Any, Any], value_spec: TypeSpec,
                   tolerance: Tolerance, path: str,
                   key_spec: TypeSpec | None = None) -> str | None:
    missing = [k for k in expected if k not in actual]
    extra = [k for k in actual if k not in expected]
    if missing or extra:
        return "keys differ%s: missing %s, unexpected %s" % (
            _where(path), ", ".join(map(_show, missing[:3])) or "-",
            ", ".join(map(_show, extra[:3])) or "-")
    actual_keys = {k: k for k in actual}  # the actual key object equal to each expected key
    for key, want in expected.items():
        got_key = actual_keys[key]
        if key_spec is not None and key_spec.kind != "any":
            wrong_key = compare(key, got_key, key_spec, tolerance, path)
            if wrong_key is not None:  # e.g. 1.0 for a Dict[int, ...] key: bool/float are not int
                return "key %s%s has type %s, expected %s" % (
                    _show(got_key), _where(path), _kind_name(got_key), key_spec)
        elif type(got_key) is not type(key) and not _numeric_pair(key, got_key):
            return "key %s%s has type %s, expected %s" % (
                _show(got_key), _where(path), _kind_name(got_key), _kind_name(key))
        message = compare(want, actual[key], value_spec, tolerance, "%s[%s]" % (path, _show(key)))
        if message:
            return message
    return None


def _numeric_pair(a: Any, b: Any) -> bool:
    return type(a) in (int, float) and type(b) in (int, float)


def _compare_inferred(expected: Any, actual: Any, tolerance: Tolerance, path: str) -> str | None:
    """``Any``: the expected value's own shape is the type."""
    if isinstance(expected, float) and type(actual) in (int, float):
        return None if tolerance.close(expected, float(actual)) else _mismatch(
            expected, actual, path)
    if _kind_name(expected) != _kind_name(actual):
        return "expected %s%s, got %s %s" % (_kind_name(expected), _where(path),
                                             _kind_name(actual), _show(actual))
    any_spec = TypeSpec("any")
    if isinstance(expected, (list, tuple)):
        return _compare_items(list(expected), list(actual), [any_spec] * len(expected),
                              tolerance, path)
    if isinstance(expected, (set, frozenset)):
        return _compare_sets(expected, actual, any_spec, tolerance, path)
    if isinstance(expected, dict):
        return _compare_dicts(expected, actual, any_spec, tolerance, path)
    return None if expected == actual else _mismatch(expected, actual, path)


# ---- the benchmark's own equality ---------------------------------------------------------------

_NUMBERS = (bool, int, float)


def python_equal(expected: Any, actual: Any, tolerance: Tolerance = DEFAULT_TOLERANCE,
                 path: str = "") -> str | None:
    """Python's ``==`` on decoded *data* (never on a candidate's objects: values crossed the
    wire as data), as a benchmark's ``assert candidate(x) == y`` sees it: ``5.0 == 5`` and
    ``True == 1`` hold, a list is not a tuple, a set equals a frozenset, dicts ignore order.
    Floats still get the problem's tolerance (never stricter than the benchmark). None when
    equal, else the first mismatch and where. Iterative, so a deep value cannot exhaust the
    stack."""
    stack: list[tuple[Any, Any, str]] = [(expected, actual, path)]
    while stack:
        want, got, where = stack.pop()
        if isinstance(want, _NUMBERS) and isinstance(got, _NUMBERS):
            if isinstance(want, float) or isinstance(got, float):
                try:
                    same = tolerance.close(float(want), float(got))
                except OverflowError:  # an int past the float range equals no float
                    same = False
                if not same:
                    return _mismatch(want, got, where)
            elif int(want) != int(got):
                return _mismatch(want, got, where)
            continue
        if isinstance(want, (list, tuple)) and type(want) is type(got):
            if len(want) != len(got):
                return "expected length %d%s, got %d" % (len(want), _where(where), len(got))
            stack.extend((w, g, "%s[%d]" % (where, i)) for i, (w, g) in
                         reversed(list(enumerate(zip(want, got)))))
            continue
        if isinstance(want, dict) and isinstance(got, dict):
            if want.keys() != got.keys():
                return _mismatch(want, got, where)
            stack.extend((want[k], got[k], "%s[%r]" % (where, k)) for k in want)
            continue
        try:
            same = bool(want == got)
        except Exception:  # e.g. comparing huge ints with floats; data only, never objects
            same = False
        if not same:
            return _mismatch(want, got, where)
    return None
