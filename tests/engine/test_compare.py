"""judge.compare: typed comparison of an expected value and a decoded actual value."""

from __future__ import annotations

import math

import pytest

from judge.engine.compare import DEFAULT_TOLERANCE, Tolerance, compare
from judge.problem.types import parse_type

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure


def cmp(expected, actual, type_text, tolerance=DEFAULT_TOLERANCE):
    return compare(expected, actual, parse_type(type_text), tolerance)


def test_equal_values_match():
    assert cmp(3, 3, "int") is None
    assert cmp("a", "a", "str") is None
    assert cmp(True, True, "bool") is None
    assert cmp(None, None, "None") is None
    assert cmp([1, 2], [1, 2], "List[int]") is None
    assert cmp({"a": [1]}, {"a": [1]}, "Dict[str, List[int]]") is None
    assert cmp([], [], "List[int]") is None
    assert cmp(b"x", b"x", "bytes") is None


def test_mismatch_message_names_both_values():
    message = cmp("a", "b", "str")
    assert message is not None
    assert "'a'" in message and "'b'" in message


# ---- floats -----------------------------------------------------------------------------------

def test_default_tolerance_values():
    assert DEFAULT_TOLERANCE == Tolerance(rel=1e-9, abs=1e-6)


def test_absolute_tolerance_near_zero_and_small_values():
    assert cmp(1.0, 1.0 + 5e-7, "float") is None  # within abs 1e-6
    assert cmp(0.0, 9e-7, "float") is None
    assert cmp(1.0, 1.0 + 1e-5, "float") is not None
    assert cmp(0.0, 2e-6, "float") is not None


def test_relative_tolerance_for_large_values():
    assert cmp(1e9, 1e9 + 0.5, "float") is None  # rel 1e-9 of 1e9 is 1
    assert cmp(1e9, 1e9 + 5, "float") is not None
    assert cmp(1e15, 1e15 * (1 + 5e-10), "float") is None


def test_configurable_tolerance():
    loose = Tolerance(rel=0.1, abs=0.0)
    assert cmp(1.0, 1.05, "float", loose) is None
    assert cmp(1.0, 1.2, "float", loose) is not None
    exact = Tolerance(rel=0.0, abs=0.0)
    assert cmp(0.0, 1e-7, "float", exact) is not None
    assert cmp(0.1 + 0.2, 0.30000000000000004, "float", exact) is None
    wide_abs = Tolerance(rel=0.0, abs=0.5)
    assert cmp(10.0, 10.4, "float", wide_abs) is None


def test_tolerance_applies_recursively():
    near = 1.0 + 1e-7
    assert cmp([1.0, 2.0], [near, 2.0], "List[float]") is None
    assert cmp([[1.0]], [[near]], "List[List[float]]") is None
    assert cmp({"a": 1.0}, {"a": near}, "Dict[str, float]") is None
    assert cmp((1, 1.0), (1, near), "Tuple[int, float]") is None
    assert cmp((1.0, 2.0), (near, 2.0), "Tuple[float, ...]") is None
    assert cmp({"k": [(1.0, "x")]}, {"k": [(near, "x")]}, "Dict[str, List[Tuple[float, str]]]") is None
    assert cmp([1.0, 2.0], [1.0, 2.1], "List[float]") is not None


def test_tolerance_inside_sets():
    assert cmp({1.5, 2.5}, {2.5 + 1e-9, 1.5 - 1e-9}, "Set[float]") is None
    assert cmp({(1, 2.0)}, {(1, 2.0 + 1e-8)}, "Set[Tuple[int, float]]") is None
    assert cmp({1.5}, {1.6}, "Set[float]") is not None


def test_nan_equals_nan_under_float():
    assert cmp(math.nan, math.nan, "float") is None
    assert cmp([math.nan], [math.nan], "List[float]") is None
    assert cmp(math.nan, 1.0, "float") is not None
    assert cmp(1.0, math.nan, "float") is not None


def test_infinity():
    assert cmp(math.inf, math.inf, "float") is None
    assert cmp(-math.inf, -math.inf, "float") is None
    assert cmp(math.inf, -math.inf, "float") is not None
    assert cmp(math.inf, 1e308, "float") is not None
    assert cmp(1e308, math.inf, "float") is not None


def test_int_accepted_for_float_but_float_not_for_int():
    assert cmp(3.0, 3, "float") is None
    message = cmp(3, 3.0, "int")
    assert message is not None and "expected int" in message and "float" in message


def test_non_number_for_float():
    assert "expected float" in cmp(1.0, "1.0", "float")
    assert "expected float" in cmp(1.0, True, "float")
    assert "expected float" in cmp(1.0, None, "float")


def test_complex_with_tolerance():
    assert cmp(1 + 2j, 1 + (2 + 1e-9) * 1j, "complex") is None
    assert cmp(1 + 2j, 1 + 3j, "complex") is not None


# ---- bool is not int --------------------------------------------------------------------------

def test_true_is_not_1_for_int_and_1_is_not_true_for_bool():
    message = cmp(1, True, "int")
    assert message is not None and "bool" in message
    message = cmp(True, 1, "bool")
    assert message is not None and "int" in message
    assert cmp(0, False, "int") is not None
    assert cmp([1, 0], [True, False], "List[int]") is not None


def test_bool_vs_int_inside_sets():
    message = cmp({1}, {True}, "Set[int]")
    assert message is not None and "set differs" in message
    assert cmp({True}, {1}, "Set[bool]") is not None
    assert cmp({1, 2}, {True, 2}, "Set[int]") is not None
    assert cmp({(1, 2)}, {(True, 2)}, "Set[Tuple[int, int]]") is not None
    assert cmp({"a": {1}}, {"a": {True}}, "Dict[str, Set[int]]") is not None


def test_bool_vs_int_dict_keys():
    message = cmp({1: "a"}, {True: "a"}, "Dict[int, str]")
    assert message is not None and "bool" in message


# ---- containers -------------------------------------------------------------------------------

def test_sets_are_unordered():
    assert cmp({1, 2, 3}, {3, 1, 2}, "Set[int]") is None
    assert cmp({"b", "a"}, frozenset({"a", "b"}), "Set[str]") is None
    message = cmp({1, 2}, {1, 3}, "Set[int]")
    assert message is not None and "missing 2" in message and "unexpected 3" in message
    assert "3 items" in cmp({1, 2, 3}, {1, 2}, "Set[int]")


def test_list_vs_tuple():
    message = cmp([1, 2], (1, 2), "List[int]")
    assert message is not None and "expected list" in message and "tuple" in message
    message = cmp((1, 2), [1, 2], "Tuple[int, int]")
    assert message is not None and "expected tuple" in message
    assert cmp((1, 2), [1, 2], "Tuple[int, ...]") is not None
    # Sequence: the container kind doesn't matter
    assert cmp([1, 2], (1, 2), "Sequence[int]") is None
    assert cmp([1, 2], [1, 2], "Sequence[int]") is None
    assert cmp([1, 2], (1, 3), "Sequence[int]") is not None


def test_list_length_and_position():
    message = cmp([1, 2, 3], [1, 2], "List[int]")
    assert message is not None and "3 items" in message and "got 2" in message
    message = cmp([[1, 2], [3]], [[1, 2], [4]], "List[List[int]]")
    assert message is not None and "[1][0]" in message and "3" in message and "4" in message


def test_first_mismatch_path_in_nested_structures():
    message = cmp({"a": [1.0, 2.0], "b": [3.0]}, {"a": [1.0, 2.0], "b": [3.5]},
                  "Dict[str, List[float]]")
    assert message is not None and "['b'][0]" in message
    message = cmp({1: [1.0]}, {1: [1.5]}, "Dict[int, List[float]]")
    assert message is not None and "[1][0]" in message
    message = cmp((1, ("x", [True])), (1, ("x", [False])), "Tuple[int, Tuple[str, List[bool]]]")
    assert message is not None and "[1][1][0]" in message
    # only the first mismatch is reported
    message = cmp([1, 2, 3], [9, 8, 7], "List[int]")
    assert "[0]" in message and "[1]" not in message


def test_fixed_tuple_item_types():
    assert cmp((1, "a"), (1, "a"), "Tuple[int, str]") is None
    assert cmp((1, "a"), (1, "b"), "Tuple[int, str]") is not None
    assert cmp((1, "a"), (1, "a", 2), "Tuple[int, str]") is not None
    assert cmp((1, 2.0), (1.0, 2.0), "Tuple[int, float]") is not None


def test_optional():
    spec = "Optional[int]"
    assert cmp(None, None, spec) is None
    assert cmp(1, 1, spec) is None
    assert cmp(None, 0, spec) is not None
    assert cmp(1, None, spec) is not None
    assert cmp(1, 2, spec) is not None
    assert cmp(1.0, 1.0 + 1e-8, "Optional[float]") is None
    assert cmp([None, 1], [None, 1], "List[Optional[int]]") is None
    assert cmp([None, 1], [0, 1], "List[Optional[int]]") is not None


def test_union():
    assert cmp("a", "a", "Union[int, str]") is None
    assert cmp(1, 1, "Union[int, str]") is None
    assert cmp(1, "1", "Union[int, str]") is not None
    assert cmp(1, True, "Union[int, str]") is not None


def test_dict_missing_and_extra_keys():
    message = cmp({"a": 1, "b": 2}, {"a": 1}, "Dict[str, int]")
    assert message is not None and "missing 'b'" in message
    message = cmp({"a": 1}, {"a": 1, "c": 3}, "Dict[str, int]")
    assert message is not None and "unexpected 'c'" in message
    message = cmp({"a": 1}, {"a": 2}, "Dict[str, int]")
    assert message is not None and "['a']" in message
    assert cmp({"a": 1, "b": 2}, {"b": 2, "a": 1}, "Dict[str, int]") is None  # order-free
    assert "expected dict" in cmp({"a": 1}, [("a", 1)], "Dict[str, int]")


def test_dict_with_tuple_keys():
    assert cmp({(1, 2): "x"}, {(1, 2): "x"}, "Dict[Tuple[int, int], str]") is None
    assert cmp({(1, 2): "x"}, {(2, 1): "x"}, "Dict[Tuple[int, int], str]") is not None


# ---- Any: the expected value's own shape is the type ---------------------------------------------

def test_any_infers_from_expected():
    assert cmp([1, [2, 3]], [1, [2, 3]], "Any") is None
    message = cmp([1, [2, 3]], [1, [2, 4]], "Any")
    assert message is not None and "[1][1]" in message
    assert cmp(1.0, 1.0 + 1e-8, "Any") is None  # float tolerance from the expected float
    assert cmp(1.0, 1, "Any") is None
    assert cmp(1, 1.0, "Any") is not None
    assert cmp(1, True, "Any") is not None
    assert cmp((1, 2), [1, 2], "Any") is not None
    assert cmp({1, 2}, {2, 1}, "Any") is None
    assert cmp({1}, {True}, "Any") is not None
    assert cmp({"a": [1.0]}, {"a": [1.0 + 1e-9]}, "Any") is None
    assert cmp({"a": 1}, {"b": 1}, "Any") is not None
    assert cmp([1.0, 2.0], [1.0, 2.0 + 1e-8], "List[Any]") is None


def test_bare_tuple_infers_items():
    assert cmp((1, "a"), (1, "a"), "Tuple") is None
    assert cmp((1, "a"), (1, "b"), "Tuple") is not None
