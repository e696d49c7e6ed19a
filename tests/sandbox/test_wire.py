"""judge.wire: values cross the sandbox boundary as JSON data, and hostile data is rejected."""

from __future__ import annotations

import enum
import json
import math
from collections import Counter, OrderedDict, defaultdict, namedtuple

import pytest

from judge.sandbox import wire
from judge.sandbox.wire import WireError, decode, encode

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure


def through_json(value):
    """Encode, serialize as the sandbox does, parse and decode."""
    return decode(json.loads(json.dumps(encode(value), allow_nan=False)))


def same(a, b):
    """Structural equality that also checks types and treats NaN as equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a) and all(
            type(k1) is type(k2) for k1, k2 in zip(a, b))
    if isinstance(a, complex):
        return same(a.real, b.real) and same(a.imag, b.imag)
    return a == b


@pytest.mark.parametrize("value", [
    None, True, False, 0, -5, 2**100, "", "héllo ✓", 1.5, -0.25,
    [], (), set(), {}, b"", b"\x00\xff",
    [1, [2, [3, (4, 5)]]],
    (1, "a", None, (True, 2.5)),
    {1, 2, 3},
    {(1, 2), (3, 4)},
    {1: "a", (2, 3): [4], None: {5}, True: False, 2.5: "x"},
    {"z": 1, "a": 2, "m": 3},  # order is kept
    [math.inf, -math.inf, (math.nan,)],
    {"k": {"nested": ((1, 2), {3})}},
    1 + 2j, complex(math.inf, -1),
    [b"bytes", {b"k": 1}],
])
def test_round_trip(value):
    assert same(through_json(value), value)


def test_encoding_is_plain_json():
    data = encode({(1, 2): {3}, "n": math.nan, "b": b"\x01", "c": 1j})
    text = json.dumps(data, allow_nan=False)  # no NaN/Infinity tokens, no objects
    assert json.loads(text) == data


def test_tags():
    assert encode((1, 2)) == {"$tuple": [1, 2]}
    assert encode({2, 1}) == {"$set": [1, 2]}
    assert encode(frozenset({1})) == {"$set": [1]}
    assert encode({1: 2}) == {"$dict": [[1, 2]]}
    assert encode(math.nan) == {"$float": "nan"}
    assert encode(-math.inf) == {"$float": "-inf"}
    assert encode(b"hi") == {"$bytes": "aGk="}
    assert encode(1 + 2j) == {"$complex": [1.0, 2.0]}
    assert encode([1, "a", None, True]) == [1, "a", None, True]


def test_bool_and_int_stay_distinct():
    assert type(through_json(True)) is bool
    assert type(through_json(1)) is int
    assert type(through_json(1.0)) is float
    result = through_json({True: 1, 2: True})
    assert [type(k) for k in result] == [bool, int]


def test_set_encoding_is_deterministic():
    assert encode({"b", "a", "c"}) == encode({"c", "a", "b"}) == {"$set": ["a", "b", "c"]}


def test_namedtuple_reduces_to_tuple():
    Point = namedtuple("Point", "x y")
    value = through_json(Point(1, 2))
    assert value == (1, 2) and type(value) is tuple


def test_counter_ordereddict_defaultdict_reduce_to_dict():
    for mapping in (Counter("aab"), OrderedDict([("b", 1), ("a", 2)]),
                    defaultdict(list, {"k": [1]})):
        value = through_json(mapping)
        assert type(value) is dict
        assert value == dict(mapping)
        assert list(value) == list(mapping)


def test_int_enum_and_int_subclasses_reduce_to_int():
    class Color(enum.IntEnum):
        RED = 3

    value = through_json(Color.RED)
    assert value == 3 and type(value) is int

    class Liar(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

        def __int__(self):
            return 999

    value = through_json(Liar(7))
    assert value == 7 and type(value) is int


def test_builtin_subclass_with_lying_methods_is_reduced_by_the_base_type():
    class Sneaky(list):
        def __eq__(self, other):
            return True

        def __iter__(self):
            return iter([42])

    value = through_json(Sneaky([1, 2]))
    assert value == [1, 2] and type(value) is list

    class SneakyStr(str):
        def __str__(self):
            return "forged"

    assert through_json(SneakyStr("real")) == "real"


def test_object_with_custom_eq_cannot_be_encoded():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

        def __hash__(self):
            return 0

    with pytest.raises(WireError, match="AlwaysEqual"):
        encode(AlwaysEqual())
    with pytest.raises(WireError):
        encode([1, {"k": AlwaysEqual()}])


@pytest.mark.parametrize("value", [object(), lambda: 1, iter([1]), range(3), type,
                                   Ellipsis, bytearray(b"x")])
def test_other_objects_cannot_be_encoded(value):
    with pytest.raises(WireError, match="cannot encode"):
        encode(value)


def test_self_referential_list_raises_wire_error():
    loop = []
    loop.append(loop)
    with pytest.raises(WireError, match="deeper than|self-referential"):
        encode(loop)


def test_self_referential_dict_raises_wire_error():
    loop = {}
    loop["me"] = loop
    with pytest.raises(WireError):
        encode(loop)


def test_depth_limit_both_ways():
    deep = []
    node = deep
    for _ in range(wire.MAX_DEPTH + 5):
        node.append([])
        node = node[0]
    with pytest.raises(WireError):
        encode(deep)
    with pytest.raises(WireError, match="deeper than"):
        decode(json.loads("[" * 500 + "]" * 500))
    shallow = [[[1]]]
    assert decode(encode(shallow)) == shallow


# ---- hostile data: always WireError, never another exception -----------------------------------

HOSTILE = [
    {"$unknown": 1},
    {"$tuple": [1], "$set": [2]},
    {},
    {"a": 1, "b": 2},
    {"plain": "object"},
    {"$float": "bogus"},
    {"$float": 1.5},
    {"$float": None},
    {"$tuple": 3},
    {"$tuple": "abc"},
    {"$set": {"a": 1}},
    {"$set": [[1, 2]]},
    {"$dict": [[[1], 2]]},
    {"$dict": [[1]]},
    {"$dict": [1, 2]},
    {"$dict": "x"},
    {"$bytes": 5},
    {"$bytes": "not base64!"},
    {"$bytes": "é"},
    {"$complex": [1]},
    {"$complex": ["a", 1]},
    {"$complex": [True, 1]},
    {"$complex": 3},
    [1, {"$nope": 2}],
    {"$tuple": [{"$float": "bogus"}]},
]


@pytest.mark.parametrize("data", HOSTILE, ids=[json.dumps(d)[:40] for d in HOSTILE])
def test_decode_rejects_hostile_data(data):
    with pytest.raises(WireError):
        decode(data)


def test_decode_rejects_non_json_types():
    for data in (object(), (1, 2), {1, 2}, b"x", 1j):
        with pytest.raises(WireError, match="not wire data"):
            decode(data)


HOSTILE_UNHASHABLE = [
    {"$float": []},
    {"$float": {"x": 1}},
    {"$set": [{"$dict": []}]},
    {"$set": [{"$tuple": [[1]]}]},
    {"$dict": [[{"$dict": []}, 1]]},
]


@pytest.mark.parametrize("data", HOSTILE_UNHASHABLE,
                         ids=[json.dumps(d) for d in HOSTILE_UNHASHABLE])
def test_decode_rejects_unhashable_payloads_with_wire_error(data):
    try:
        decode(data)
    except WireError:
        return
    # any other outcome (another exception propagates and fails the test; success fails here)
    pytest.fail("decoded %r" % (data,))


@pytest.mark.parametrize("value", [{frozenset({1, 2}), frozenset({3})},
                                   {frozenset({"a"}): 1}],
                         ids=["set_of_frozensets", "frozenset_keys"])
def test_frozensets_inside_hashable_positions_round_trip(value):
    result = through_json(value)
    assert result == value


def test_wire_module_is_standalone():
    """It is inlined into the sandbox worker, so it may import only the standard library."""
    source = open(wire.__file__, encoding="utf-8").read()
    imports = [line.split()[1] for line in source.splitlines()
               if line.startswith(("import ", "from "))]
    assert imports and all(not name.startswith("judge") for name in imports)


def test_set_of_sets_decodes_as_frozensets():
    assert decode({"$set": [{"$set": []}]}) == {frozenset()}
