"""The wire codec: how values cross the sandbox boundary as plain JSON data.

Design principle 2: values cross as data, never as objects, and never with pickle. Inside the
sandbox a candidate's return value is turned into JSON-compatible data; the judge decodes it
back into plain Python values it builds itself. So whatever object the candidate returns
(one with an ``__eq__`` that is always true, say) arrives at the comparison as inert data.

Encoding (both directions use the same tags):
    None, bool, str, finite float        -> themselves
    int                                  -> itself; {"$int": "<hex>"} past BIG_INT_BITS bits
                                            (decimal text of a big int costs quadratic time,
                                            and Python refuses it past 4,300 digits)
    list                                 -> JSON array
    NaN / inf / -inf                     -> {"$float": "nan" | "inf" | "-inf"}
    tuple                                -> {"$tuple": [...]}
    set, frozenset                       -> {"$set": [...]}
    dict (any hashable keys, ordered)    -> {"$dict": [[key, value], ...]}
    bytes                                -> {"$bytes": "<base64>"}
    complex                              -> {"$complex": [real, imag]}

This module must stay standard-library only and free of imports from the rest of ``judge``
(but the one below, made only inside the judge): the sandbox worker imports this very file
as ``judge_worker.wire`` (``runners/python/judge_worker/wire.py`` is a link to it, copied with
the worker wherever it runs), and runs with nothing but a Python interpreter.
"""

import base64
import math
import re

MAX_DEPTH = 100
#: ints longer than this travel as hexadecimal text (linear both ways, no digit limit)
BIG_INT_BITS = 3000
#: a set or dict whose elements share one hash value this often is refused: building it
#: would cost quadratic time (hash flooding), and honest data never gets near it
MAX_EQUAL_HASHES = 8


if __name__ == "judge.sandbox.wire":  # in the judge: rooted in its exception tree
    from judge.errors import InputFault

    _ERROR_BASES: tuple = (InputFault, ValueError)
else:  # in the sandbox worker (judge_worker.wire), which knows nothing of the judge
    _ERROR_BASES = (ValueError,)


class WireError(*_ERROR_BASES):
    """A value cannot be encoded, or data is not valid wire format."""

    code = "wire_format"


def _encode_float(value):
    if math.isnan(value):
        return {"$float": "nan"}
    if math.isinf(value):
        return {"$float": "inf" if value > 0 else "-inf"}
    return value


def _plain(value):
    """Reduce instances of builtin subclasses (namedtuple, Counter, numpy scalars...) to the
    builtin value, through the base type's own methods so an override cannot interfere."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bytes):
        return bytes(memoryview(value))
    if isinstance(value, tuple):
        return tuple(tuple.__iter__(value))
    if isinstance(value, list):
        return list(list.__iter__(value))
    if isinstance(value, dict):
        return dict(dict.items(value))
    if isinstance(value, frozenset):
        return frozenset(frozenset.__iter__(value))
    if isinstance(value, set):
        return set(set.__iter__(value))
    module = getattr(type(value), "__module__", "") or ""
    if module.split(".")[0] == "numpy" and hasattr(value, "tolist"):
        return value.tolist()
    raise WireError("cannot encode a value of type %s" % _type_name(value))


def _type_name(value):
    cls = type(value)
    module = getattr(cls, "__module__", "")
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if module in ("builtins", None, "") else "%s.%s" % (module, name)


def _check_hashes(items):
    """Refuse elements that share one hash value more than MAX_EQUAL_HASHES times (a set of
    ``k * (2**61 - 1)`` all hash to 0: each insertion would compare against all the others)."""
    counts = {}
    for item in items:
        key = hash(item)
        seen = counts.get(key, 0) + 1
        if seen > MAX_EQUAL_HASHES:
            raise WireError("more than %d elements share one hash value (hash flooding)"
                            % MAX_EQUAL_HASHES)
        counts[key] = seen


def _encode_int(value):
    if value.bit_length() > BIG_INT_BITS:
        return {"$int": "%x" % value}
    return value


def _set_items(items, depth):
    _check_hashes(items)
    encoded = [encode(item, depth + 1) for item in items]
    try:
        return sorted(encoded, key=repr)
    except Exception:  # pragma: no cover - repr of plain data does not fail
        return encoded


def encode(value, depth=0):
    """Encode a Python value into wire data. Raises WireError for anything else."""
    if depth > MAX_DEPTH:
        raise WireError("value nested deeper than %d levels (or self-referential)" % MAX_DEPTH)
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return _encode_int(value)
    if kind is float:
        return _encode_float(value)
    if kind is list:
        return [encode(item, depth + 1) for item in value]
    if kind is tuple:
        return {"$tuple": [encode(item, depth + 1) for item in value]}
    if kind is dict:
        _check_hashes(value)
        return {"$dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if kind is set or kind is frozenset:
        return {"$set": _set_items(value, depth)}
    if kind is bytes:
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    if kind is complex:
        return {"$complex": [_encode_float(value.real), _encode_float(value.imag)]}
    return encode(_plain(value), depth + 1)


_HEX = re.compile(r"-?[0-9a-f]+")
_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _hashable(value):
    """A decoded value used as a set element or dict key: sets become frozensets (which is
    what they must have been to be hashable), anything still unhashable is an error."""
    if isinstance(value, set):
        value = frozenset(value)
    try:
        hash(value)
    except TypeError:
        raise WireError("unhashable %s used as a set element or dict key"
                        % type(value).__name__) from None
    return value


def _decode_float(data):
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        if (isinstance(data, dict) and set(data) == {"$float"} and isinstance(data["$float"], str)
                and data["$float"] in _FLOATS):
            return _FLOATS[data["$float"]]
        raise WireError("malformed float: %r" % (data,))
    return float(data)


def _decode_tagged(tag, body, depth):
    if tag == "$float":
        if not isinstance(body, str) or body not in _FLOATS:
            raise WireError("unknown float tag value %r" % (body,))
        return _FLOATS[body]
    if tag in ("$tuple", "$set", "$dict", "$complex") and not isinstance(body, list):
        raise WireError("%s must hold a list" % tag)
    if tag == "$tuple":
        return tuple(decode(item, depth + 1) for item in body)
    if tag == "$set":
        items = [_hashable(decode(item, depth + 1)) for item in body]
        _check_hashes(items)
        return set(items)
    if tag == "$dict":
        pairs = []
        for pair in body:
            if not isinstance(pair, list) or len(pair) != 2:
                raise WireError("$dict entries must be [key, value] pairs")
            pairs.append((_hashable(decode(pair[0], depth + 1)), decode(pair[1], depth + 1)))
        _check_hashes([key for key, _ in pairs])
        return dict(pairs)
    if tag == "$int":
        if not isinstance(body, str) or not _HEX.fullmatch(body):
            raise WireError("$int must hold hexadecimal text")
        return int(body, 16)
    if tag == "$bytes":
        if not isinstance(body, str):
            raise WireError("$bytes must hold base64 text")
        try:
            return base64.b64decode(body.encode("ascii"), validate=True)
        except Exception as exc:
            raise WireError("bad base64 in $bytes: %s" % exc) from None
    if tag == "$complex":
        if len(body) != 2:
            raise WireError("$complex must hold [real, imag]")
        return complex(_decode_float(body[0]), _decode_float(body[1]))
    raise WireError("unknown tag %r" % tag)


def decode(data, depth=0):
    """Decode wire data into plain Python values, validating strictly.

    The data may come from a hostile sandbox, so nothing here trusts its shape.
    """
    if depth > MAX_DEPTH:
        raise WireError("data nested deeper than %d levels" % MAX_DEPTH)
    if data is None or isinstance(data, (bool, int, str)):
        return data
    if isinstance(data, float):
        return data
    if isinstance(data, list):
        return [decode(item, depth + 1) for item in data]
    if isinstance(data, dict):
        if len(data) != 1:
            raise WireError("a tagged value must have exactly one key, got %d" % len(data))
        (tag, body), = data.items()
        return _decode_tagged(tag, body, depth)
    raise WireError("not wire data: %s" % type(data).__name__)
