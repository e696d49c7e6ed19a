"""judge.types: type strings parsed, JSON test data converted by them, and back."""

from __future__ import annotations

import math

import pytest

from judge.problem.types import (
    TypeParseError,
    TypeSpec,
    ValueTypeError,
    from_json,
    parse_type,
    return_type,
    to_json,
)

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

INT, FLOAT, STR, BOOL, NONE = (TypeSpec(k) for k in ("int", "float", "str", "bool", "none"))


# ---- parse_type ------------------------------------------------------------------------------

@pytest.mark.parametrize("text, kind", [
    ("int", "int"), ("float", "float"), ("str", "str"), ("bool", "bool"),
    ("None", "none"), ("NoneType", "none"), ("Any", "any"), ("object", "any"),
    ("bytes", "bytes"), ("complex", "complex"),
])
def test_scalars(text, kind):
    spec = parse_type(text)
    assert spec == TypeSpec(kind)
    assert spec.args == ()


@pytest.mark.parametrize("text", ["List[int]", "list[int]", "typing.List[int]", " List [ int ] "])
def test_list_spellings_are_the_same_type(text):
    assert parse_type(text) == TypeSpec("list", (INT,))


def test_dict_tuple_set():
    assert parse_type("Dict[str, int]") == TypeSpec("dict", (STR, INT))
    assert parse_type("dict[str, int]") == parse_type("Dict[str, int]")
    assert parse_type("Tuple[int, str]") == TypeSpec("tuple", (INT, STR), variadic=False)
    assert parse_type("Set[str]") == TypeSpec("set", (STR,))
    assert parse_type("FrozenSet[str]") == TypeSpec("set", (STR,))
    assert parse_type("Sequence[int]") == TypeSpec("sequence", (INT,))


def test_variadic_tuple():
    spec = parse_type("Tuple[int, ...]")
    assert spec == TypeSpec("tuple", (INT,), variadic=True)
    assert str(spec) == "Tuple[int, ...]"
    # a fixed one-item tuple is a different type
    assert parse_type("Tuple[int]") != spec


@pytest.mark.parametrize("text", ["Optional[float]", "float | None", "None | float",
                                  "Union[float, None]", "typing.Optional[float]"])
def test_optional_spellings(text):
    assert parse_type(text) == TypeSpec("optional", (FLOAT,))


def test_int_or_none():
    assert parse_type("int | None") == TypeSpec("optional", (INT,))
    assert str(parse_type("int | None")) == "Optional[int]"


def test_unions():
    assert parse_type("Union[int, str]") == TypeSpec("union", (INT, STR))
    assert parse_type("int | str") == parse_type("Union[int, str]")
    assert parse_type("int | str | None") == TypeSpec("union", (INT, STR, NONE))
    # a union of one type is that type; repeated members collapse
    assert parse_type("Union[int]") == INT
    assert parse_type("int | int") == INT


def test_nesting():
    spec = parse_type("Dict[str, List[Tuple[int, Optional[str]]]]")
    assert spec.kind == "dict"
    key, value = spec.args
    assert key == STR
    assert value.kind == "list"
    inner = value.args[0]
    assert inner == TypeSpec("tuple", (INT, TypeSpec("optional", (STR,))))
    assert str(spec) == "Dict[str, List[Tuple[int, Optional[str]]]]"


def test_str_round_trips_through_parse():
    for text in ["List[int]", "Dict[str, float]", "Tuple[int, ...]", "Set[Tuple[int, int]]",
                 "Optional[List[str]]", "Union[int, str]", "Any", "None"]:
        assert str(parse_type(text)) == text
        assert parse_type(str(parse_type(text))) == parse_type(text)


def test_bare_containers():
    assert parse_type("Tuple") == TypeSpec("tuple")
    # a bare generic holds anything (it used to crash the loader: see the bare List tests)
    assert parse_type("Dict") == TypeSpec("dict", (TypeSpec("any"), TypeSpec("any")))


@pytest.mark.parametrize("text, fragment", [
    ("TreeNode", "'TreeNode'"),
    ("List[TreeNode]", "'TreeNode'"),
    ("Dict[str, ListNode]", "'ListNode'"),
    ("numpy.ndarray", "'numpy.ndarray'"),
])
def test_unknown_types_are_named(text, fragment):
    with pytest.raises(TypeParseError) as info:
        parse_type(text)
    assert "unknown type" in str(info.value)
    assert fragment in str(info.value)


@pytest.mark.parametrize("text, hint", [
    ("string", "str"), ("integer", "int"), ("boolean", "bool"), ("double", "float"),
    ("List[string]", "str"),
])
def test_unknown_types_suggest_the_python_spelling(text, hint):
    with pytest.raises(TypeParseError) as info:
        parse_type(text)
    assert "did you mean %r" % hint in str(info.value)


def test_no_hint_when_nothing_is_close():
    with pytest.raises(TypeParseError) as info:
        parse_type("TreeNode")
    assert "did you mean" not in str(info.value)


@pytest.mark.parametrize("text, fragment", [
    ("Dict[str]", "Dict takes 2 parameters, got 1"),
    ("Dict[str, int, float]", "Dict takes 2 parameters, got 3"),
    ("List[int, str]", "List takes 1 parameter, got 2"),
    ("Set[int, int]", "Set takes 1 parameter, got 2"),
    ("Optional[int, str]", "Optional takes 1 parameter, got 2"),
    ("int[str]", "takes no parameters"),
    ("Optional", "needs parameters"),
    ("Tuple[int, ..., str]", "exactly one type"),
    ("List[...]", "only allowed in Tuple"),
])
def test_wrong_arity(text, fragment):
    with pytest.raises(TypeParseError) as info:
        parse_type(text)
    assert fragment in str(info.value)


@pytest.mark.parametrize("text", ["", "   ", None])
def test_empty_type_string(text):
    with pytest.raises(TypeParseError, match="empty type string"):
        parse_type(text)


@pytest.mark.parametrize("text", ["List[int", "List[int]]", "List[]", "int str", "List[int,]x",
                                  "Dict[str; int]", "|int", "int |"])
def test_malformed_type_strings_raise_type_parse_error(text):
    with pytest.raises(TypeParseError):
        parse_type(text)


def test_type_parse_error_is_a_value_error():
    assert issubclass(TypeParseError, ValueError)


def test_return_type():
    assert return_type([INT]) == INT
    assert return_type([INT, STR]) == TypeSpec("tuple", (INT, STR))


# ---- from_json -------------------------------------------------------------------------------

def test_scalars_from_json():
    assert from_json(3, INT) == 3
    assert from_json("x", STR) == "x"
    assert from_json(True, BOOL) is True
    assert from_json(None, NONE) is None
    assert from_json({"anything": [1]}, parse_type("Any")) == {"anything": [1]}


def test_list_becomes_tuple_or_set_by_type():
    value = from_json([1, 2, 2], parse_type("List[int]"))
    assert value == [1, 2, 2] and type(value) is list
    value = from_json([1, "a"], parse_type("Tuple[int, str]"))
    assert value == (1, "a") and type(value) is tuple
    value = from_json([1, 2, 3], parse_type("Tuple[int, ...]"))
    assert value == (1, 2, 3) and type(value) is tuple
    value = from_json(["a", "b", "a"], parse_type("Set[str]"))
    assert value == {"a", "b"} and type(value) is set


def test_nested_tuples_inside_lists_and_dicts():
    value = from_json({"p": [[1, 2.5], [3, 4]]}, parse_type("Dict[str, List[Tuple[int, float]]]"))
    assert value == {"p": [(1, 2.5), (3, 4.0)]}
    assert all(type(t) is tuple for t in value["p"])
    assert type(value["p"][1][1]) is float


def test_set_of_tuples():
    value = from_json([[1, 2], [1, 2], [2, 1]], parse_type("Set[Tuple[int, int]]"))
    assert value == {(1, 2), (2, 1)}


def test_dict_int_keys_are_converted():
    value = from_json({"1": "a", "-2": "b"}, parse_type("Dict[int, str]"))
    assert value == {1: "a", -2: "b"}
    assert all(type(k) is int for k in value)


def test_dict_float_and_bool_keys():
    assert from_json({"1.5": 1}, parse_type("Dict[float, int]")) == {1.5: 1}
    assert from_json({"true": 1, "false": 0}, parse_type("Dict[bool, int]")) == {True: 1, False: 0}


def test_dict_bad_int_key_names_it():
    with pytest.raises(ValueTypeError) as info:
        from_json({"1": "a", "x": "b"}, parse_type("Dict[int, str]"))
    assert "'x'" in str(info.value)
    assert info.value.path == ".x"


def test_dict_as_pairs_for_non_string_keys():
    value = from_json([[[1, 2], "a"], [[3, 4], "b"]], parse_type("Dict[Tuple[int, int], str]"))
    assert value == {(1, 2): "a", (3, 4): "b"}
    with pytest.raises(ValueTypeError, match="list of \\[key, value\\] pairs"):
        from_json({"a": "b"}, parse_type("Dict[Tuple[int, int], str]"))


def test_float_accepts_int_and_special_words():
    value = from_json(3, FLOAT)
    assert value == 3.0 and type(value) is float
    assert math.isnan(from_json("nan", FLOAT))
    assert math.isnan(from_json("NaN", FLOAT))
    assert from_json("inf", FLOAT) == math.inf
    assert from_json("Infinity", FLOAT) == math.inf
    assert from_json("-inf", FLOAT) == -math.inf
    assert from_json(2.5, FLOAT) == 2.5


def test_float_rejects_numeric_strings_and_bools():
    with pytest.raises(ValueTypeError):
        from_json("1.5", FLOAT)
    with pytest.raises(ValueTypeError):
        from_json(True, FLOAT)


def test_bool_is_not_int():
    with pytest.raises(ValueTypeError, match="expected int, got True"):
        from_json(True, INT)
    with pytest.raises(ValueTypeError, match="expected bool, got 1"):
        from_json(1, BOOL)
    with pytest.raises(ValueTypeError):
        from_json(0, BOOL)
    with pytest.raises(ValueTypeError):
        from_json(1.0, INT)


def test_none_and_optional():
    spec = parse_type("Optional[int]")
    assert from_json(None, spec) is None
    assert from_json(4, spec) == 4
    with pytest.raises(ValueTypeError):
        from_json("4", spec)
    with pytest.raises(ValueTypeError, match="expected null"):
        from_json(0, NONE)


def test_union_tries_each_member():
    spec = parse_type("Union[int, str]")
    assert from_json(1, spec) == 1
    assert from_json("a", spec) == "a"
    with pytest.raises(ValueTypeError, match="fits none of Union\\[int, str\\]"):
        from_json(1.5, spec)


def test_wrong_container_kind():
    with pytest.raises(ValueTypeError, match="expected a JSON array"):
        from_json({"a": 1}, parse_type("List[int]"))
    with pytest.raises(ValueTypeError, match="expected a JSON object"):
        from_json(3, parse_type("Dict[str, int]"))


def test_fixed_tuple_length_is_checked():
    with pytest.raises(ValueTypeError, match="expected 2 items"):
        from_json([1], parse_type("Tuple[int, str]"))


def test_unhashable_set_elements():
    with pytest.raises(ValueTypeError, match="hashable"):
        from_json([[1], [2]], parse_type("Set[List[int]]"))


@pytest.mark.parametrize("type_text, value, path", [
    ("List[List[int]]", [[1], [2, "x"]], "[1][1]"),
    ("Dict[str, List[int]]", {"a": [1], "b": [2, 3, None]}, ".b[2]"),
    ("List[Tuple[int, str]]", [[1, "a"], [2, 3]], "[1][1]"),
    ("Dict[int, Dict[str, float]]", {"1": {"k": "heavy"}}, ".1.k"),
    ("Set[Tuple[int, int]]", [[1, 2], [3, True]], "[1][1]"),
    ("Optional[List[bool]]", [True, 0], "[1]"),
    ("Tuple[int, ...]", [1, 2, 3.5], "[2]"),
])
def test_value_type_error_path_points_inside(type_text, value, path):
    with pytest.raises(ValueTypeError) as info:
        from_json(value, parse_type(type_text))
    assert info.value.path == path


def test_path_prefix_is_kept():
    with pytest.raises(ValueTypeError) as info:
        from_json([1, "x"], parse_type("List[int]"), "input.nums")
    assert info.value.path == "input.nums[1]"


def test_bytes_and_complex():
    assert from_json("ab", parse_type("bytes")) == b"ab"
    assert from_json([1, 2], parse_type("complex")) == 1 + 2j
    with pytest.raises(ValueTypeError):
        from_json("1+2j", parse_type("complex"))


@pytest.mark.parametrize("text", ["List", "Set", "Sequence"])
def test_bare_list_like_types_convert_or_are_rejected(text):
    try:
        spec = parse_type(text)
    except TypeParseError:
        return  # rejecting the bare form at parse time would be fine too
    value = from_json([1, 2], spec)
    assert list(value) == [1, 2]


# ---- to_json ---------------------------------------------------------------------------------

def test_to_json():
    assert to_json((1, 2)) == [1, 2]
    assert to_json({3, 1, 2}) == [1, 2, 3]
    assert to_json({"a": (1, {2})}) == {"a": [1, [2]]}
    assert to_json({1: "a"}) == [[1, "a"]]
    assert to_json(math.inf) == "inf"
    assert to_json(-math.inf) == "-inf"
    assert to_json(math.nan) == "nan"
    assert to_json(b"ab") == "ab"
    assert to_json(1 + 2j) == [1.0, 2.0]
    assert to_json({(1, "a"), (2, "b")}) == [[1, "a"], [2, "b"]]
    assert to_json({1, "a"}) in ([1, "a"], ["a", 1])  # mixed: sorted by repr, no crash


def test_to_json_inverts_from_json():
    for type_text, data in [
        ("Dict[str, List[Tuple[int, float]]]", {"p": [[1, 2.5]]}),
        ("Set[int]", [1, 2, 3]),
        ("Optional[float]", "inf"),
        ("Tuple[int, str]", [1, "x"]),
    ]:
        spec = parse_type(type_text)
        assert from_json(to_json(from_json(data, spec)), spec) == from_json(data, spec)
