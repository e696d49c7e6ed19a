"""Output checking on the judge's side: the Kattis default output validator rule for rule,
plus the exact and line modes, with located, readable differences."""

from __future__ import annotations

import io
import random
import re

import pytest

from judge.engine.checkers.base import check_output
from judge.engine.output_check import CHUNK, Difference, show
from judge.problem.program import OutputChecker, checker_from_kattis_flags, kattis_float

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

DEFAULT = OutputChecker()


def tokens(**flags) -> OutputChecker:
    return OutputChecker(type="tokens", **flags)


# (id, answer, output, checker, accepted)
CASES = [
    # whitespace: any run of C whitespace is one separator, leading/trailing ignored
    ("same", "1 2 3\n", "1 2 3\n", DEFAULT, True),
    ("spaces-collapse", "1 2 3\n", "1   2\t\t3", DEFAULT, True),
    ("newlines-vs-spaces", "1 2\n3\n", "1\n2 3", DEFAULT, True),
    ("leading-trailing-ws", "42\n", "\n\n  42  \n\n\n", DEFAULT, True),
    ("crlf", "a b\n", "a b\r\n", DEFAULT, True),
    ("vtab-formfeed", "a b c\n", "a\vb\fc", DEFAULT, True),
    ("nbsp-is-not-space", "a b\n", "a\xa0b\n", DEFAULT, False),
    ("file-separator-is-not-space", "a b\n", "a\x1cb\n", DEFAULT, False),
    ("file-separator-in-token", "a\x1cb\n", "a \x1cb\n", DEFAULT, False),
    ("file-separator-same", "a\x1cb\n", "a\x1cb\n", DEFAULT, True),
    ("nul-byte-counts", "5\n", "5\x00junk\n", DEFAULT, False),
    ("empty-both", "", "", DEFAULT, True),
    ("empty-answer-ws-output", "\n", "   \n\n", DEFAULT, True),
    ("empty-answer-token-output", "", "x", DEFAULT, False),
    ("empty-output", "1\n", "", DEFAULT, False),
    ("ws-only-output", "1\n", " \n ", DEFAULT, False),
    ("missing-last", "1 2 3\n", "1 2\n", DEFAULT, False),
    ("trailing-token", "1 2\n", "1 2 3\n", DEFAULT, False),
    ("glued-tokens", "1 2\n", "12\n", DEFAULT, False),
    # case: insensitive by default (ASCII), case_sensitive makes it exact
    ("case-default", "Yes\n", "YES\n", DEFAULT, True),
    ("case-sensitive", "Yes\n", "YES\n", tokens(case_sensitive=True), False),
    ("case-sensitive-same", "Yes\n", "Yes\n", tokens(case_sensitive=True), True),
    ("case-non-ascii", "é\n", "É\n", DEFAULT, False),
    # no tolerance: numbers are strings
    ("no-tol-int-vs-float", "1\n", "1.0\n", DEFAULT, False),
    ("no-tol-exp", "0.001\n", "1e-3\n", DEFAULT, False),
    ("no-tol-same-text", "3.14\n", "3.14\n", DEFAULT, True),
    # absolute tolerance
    ("abs-inside", "1.0\n", "1.00009\n", tokens(float_absolute_tolerance=1e-4), True),
    ("abs-edge", "1.5\n", "1.75\n", tokens(float_absolute_tolerance=0.25), True),
    ("abs-outside", "1.0\n", "1.0002\n", tokens(float_absolute_tolerance=1e-4), False),
    ("abs-int-answer", "2\n", "2.00000001\n", tokens(float_absolute_tolerance=1e-6), True),
    ("abs-exp-output", "0.001\n", "1e-3\n", tokens(float_absolute_tolerance=1e-9), True),
    ("abs-exp-answer", "1E-3\n", "0.0010000001\n", tokens(float_absolute_tolerance=1e-9), True),
    ("abs-sci-kattis-doc", "0.0314\n", "3.14000000e-2\n", tokens(float_absolute_tolerance=1e-9),
     True),
    ("abs-zero-tol-exact", "0.5\n", "0.50\n", tokens(float_absolute_tolerance=0.0), True),
    ("abs-zero-tol-off", "0.5\n", "0.5000001\n", tokens(float_absolute_tolerance=0.0), False),
    ("abs-sign", "-1.5\n", "+1.5\n", tokens(float_absolute_tolerance=0.1), False),
    ("abs-plus-sign", "1.5\n", "+1.5\n", tokens(float_absolute_tolerance=0.1), True),
    ("abs-leading-dot", "0.5\n", ".5\n", tokens(float_absolute_tolerance=0), True),
    ("abs-trailing-dot", "5\n", "5.\n", tokens(float_absolute_tolerance=0), True),
    ("abs-hex-output", "0.25\n", "0x1p-2\n", tokens(float_absolute_tolerance=0), True),
    ("abs-output-not-number", "1.0\n", "one\n", tokens(float_absolute_tolerance=1), False),
    ("abs-output-trash", "1.0\n", "1.0abc\n", tokens(float_absolute_tolerance=1), False),
    ("abs-output-nan", "1.0\n", "nan\n", tokens(float_absolute_tolerance=1e9), False),
    ("abs-output-inf", "1.0\n", "inf\n", tokens(float_absolute_tolerance=1e9), False),
    ("abs-output-overflow", "1.0\n", "1e999\n", tokens(float_absolute_tolerance=1e9), False),
    ("abs-output-underscore", "10\n", "1_0\n", tokens(float_absolute_tolerance=0.5), False),
    ("abs-output-comma", "1.5\n", "1,5\n", tokens(float_absolute_tolerance=0.5), False),
    ("abs-output-exp-no-digits", "1\n", "1e\n", tokens(float_absolute_tolerance=0.5), False),
    # an answer token that is not a float compares as a string, even with a tolerance
    ("tol-answer-word", "YES 1.0\n", "yes 1.01\n", tokens(float_tolerance=0.1), True),
    ("tol-answer-nan-string", "nan\n", "NaN\n", tokens(float_tolerance=0.1), True),
    ("tol-answer-nan-vs-number", "nan\n", "0\n", tokens(float_tolerance=1e9), False),
    ("tol-answer-inf-string", "inf\n", "inf\n", tokens(float_tolerance=0.1), True),
    ("tol-answer-overflow-string", "1e999\n", "2e999\n", tokens(float_tolerance=1e300), False),
    ("tol-answer-word-case", "Impossible\n", "impossible\n",
     tokens(float_tolerance=0.1, case_sensitive=True), False),
    # relative tolerance: |out - ans| <= rel * |ans|
    ("rel-inside", "1000000\n", "1000001\n", tokens(float_relative_tolerance=1e-6), True),
    ("rel-outside", "1000000\n", "1000002\n", tokens(float_relative_tolerance=1e-6), False),
    ("rel-zero-answer", "0\n", "1e-300\n", tokens(float_relative_tolerance=1e-6), False),
    # the tolerance scales with the answer, not with the output
    ("rel-scales-with-answer", "2\n", "1\n", tokens(float_relative_tolerance=0.5), True),
    ("rel-not-with-output", "1\n", "2\n", tokens(float_relative_tolerance=0.5), False),
    # both: accepted within either
    ("both-abs-saves", "0\n", "1e-7\n",
     tokens(float_absolute_tolerance=1e-6, float_relative_tolerance=1e-6), True),
    ("both-rel-saves", "1e9\n", "1000000500\n",
     tokens(float_absolute_tolerance=1e-6, float_relative_tolerance=1e-6), True),
    ("both-neither", "1e9\n", "1000005000\n",
     tokens(float_absolute_tolerance=1e-6, float_relative_tolerance=1e-6), False),
    ("float-tol-abs", "0\n", "0.0000005\n", tokens(float_tolerance=1e-6), True),
    ("float-tol-rel", "123456789\n", "123456800\n", tokens(float_tolerance=1e-6), True),
    ("float-tol-off", "1\n", "1.001\n", tokens(float_tolerance=1e-6), False),
    ("float-huge-difference", "1e308\n", "-1e308\n", tokens(float_tolerance=1e-6), False),
    # space_change_sensitive: whitespace runs equal byte for byte, leading and trailing too
    ("space-same", "1 2\n3\n", "1 2\n3\n", tokens(space_change_sensitive=True), True),
    ("space-double", "1 2\n", "1  2\n", tokens(space_change_sensitive=True), False),
    ("space-tab", "1 2\n", "1\t2\n", tokens(space_change_sensitive=True), False),
    ("space-crlf", "1\n", "1\r\n", tokens(space_change_sensitive=True), False),
    ("space-missing-final-newline", "1\n", "1", tokens(space_change_sensitive=True), False),
    ("space-extra-final-newline", "1\n", "1\n\n", tokens(space_change_sensitive=True), False),
    ("space-leading", "1\n", " 1\n", tokens(space_change_sensitive=True), False),
    ("space-case-still-insensitive", "a b\n", "A b\n", tokens(space_change_sensitive=True),
     True),
    ("space-floats", "1.0 2.0\n", "1.00001 2\n",
     tokens(space_change_sensitive=True, float_tolerance=1e-3), True),
]


@pytest.mark.parametrize("name,answer,output,checker,accepted", CASES, ids=[c[0] for c in CASES])
def test_tokens_checker(name, answer, output, checker, accepted):
    result = check_output(answer, output, checker)
    if accepted:
        assert result is None, result.message
    else:
        assert isinstance(result, Difference)
        assert result.message.startswith(("wrong answer", "space change"))
    # the same verdict from bytes and from streams read in chunks
    streamed = check_output(io.BytesIO(answer.encode()), io.BytesIO(output.encode()), checker)
    assert (streamed is None) == accepted
    if result is not None:
        assert streamed.message == result.message


@pytest.mark.parametrize("token,value", [
    ("1", 1.0), ("-2", -2.0), ("+3", 3.0), ("1.", 1.0), (".5", 0.5), ("-.5", -0.5),
    ("1e-3", 0.001), ("1E+3", 1000.0), ("2.5e2", 250.0), ("0x10", 16.0), ("0x1p-2", 0.25),
    ("-0X.8P1", -1.0), ("1e-400", 0.0), ("00012", 12.0),
    ("inf", None), ("-infinity", None), ("nan", None), ("NAN(12)", None), ("1e999", None),
    ("1e", None), ("1e+", None), ("e5", None), (".", None), ("+", None), ("", None),
    ("1.5x", None), ("1_000", None), ("1,5", None), ("0x", None), ("١", None), (" 1", None),
    ("0x1p", None), ("--1", None),
])
def test_kattis_float(token, value):
    assert kattis_float(token) == value


def test_where_it_differs_line_token_and_both_sides():
    result = check_output("a b\nc d\ne\n", "a b\nc x\ne\n")
    assert (result.line, result.answer_line, result.token) == (2, 2, 4)
    assert result.expected == "'d'" and result.got == "'x'"
    assert "line 2 of the output (line 2 of the answer), token 4" in result.message


def test_line_numbers_follow_each_side():
    result = check_output("1 2 3\n", "1\n\n2\n\n4\n")
    assert (result.line, result.answer_line, result.token) == (5, 1, 3)


def test_ended_early_and_trailing_messages():
    empty = check_output("5\n", "")
    assert "output was empty" in empty.message and empty.got == "end of output"
    blank = check_output("5\n", "\n\n")
    assert "held no tokens" in blank.message
    early = check_output("1 2 3\n", "1 2\n")
    assert early.token == 3 and "ended early" in early.message and "'3'" in early.message
    trailing = check_output("1 2\n", "1 2\n\n3 4\n")
    assert "trailing output on line 3" in trailing.message and trailing.got == "'3'"
    assert "after the answer's 2 tokens" in trailing.message


def test_float_messages_name_tolerance_and_difference():
    result = check_output("1.0\n", "1.5\n", tokens(float_absolute_tolerance=0.1))
    assert "difference 0.5" in result.message and "absolute 0.1" in result.message
    not_number = check_output("1.0\n", "abc\n", tokens(float_tolerance=0.1))
    assert "expected a number" in not_number.message


def test_space_change_message_points_at_the_whitespace():
    result = check_output("1 2\n3\n", "1 2\n\n3\n", tokens(space_change_sensitive=True))
    assert result.token == 3 and "extra whitespace" in result.message
    assert result.line == 2 and result.answer_line == 2
    tab = check_output("1 2\n", "1\t2\n", tokens(space_change_sensitive=True))
    assert "expected whitespace ' ', got '\\t'" in tab.message
    missing = check_output("1\n", "1", tokens(space_change_sensitive=True))
    assert "missing whitespace '\\n'" in missing.message


def test_long_tokens_are_cut_to_a_readable_length():
    long_expected, long_got = "a" * 10_000, "a" * 9_999 + "b"
    result = check_output(long_expected, long_got)
    assert len(result.message) < 400
    assert "(10000 bytes)" in result.expected and "(10000 bytes)" in result.got
    assert show(b"\xff\xfe") == repr("\ufffd\ufffd")  # undecodable bytes still show


def test_tokens_spanning_chunks_and_huge_runs_stream_linearly():
    # tokens and whitespace runs that cross many chunk borders compare as one piece
    big = b"x" * (3 * CHUNK + 17)
    answer = big + b" " + b"7"
    output = big + b" " * (2 * CHUNK + 5) + b"7" + b"\n" * CHUNK
    assert check_output(io.BytesIO(answer), io.BytesIO(output)) is None
    assert check_output(io.BytesIO(answer), io.BytesIO(big + b"y 7")) is not None
    # a flood of tokens against a short answer is stopped at the first trailing one
    flood = io.BytesIO(b"1 " + b"2 " * (4 * CHUNK))
    result = check_output(b"1", flood)
    assert "trailing output" in result.message
    # a multi-megabyte token in the output is compared once, not rescanned per chunk
    huge = b"9" * (64 * CHUNK)
    assert check_output(b"9", io.BytesIO(huge)) is not None
    assert check_output(io.BytesIO(huge), io.BytesIO(huge)) is None


def test_exact_mode():
    exact = OutputChecker(type="exact")
    assert check_output("a b\n", "a b\n", exact) is None
    assert check_output("a b\n", "a b", exact).message.startswith("wrong answer at line 1, "
                                                                  "column 4 (byte 4)")
    result = check_output("line1\nline2\n", "line1\nLine2\n", exact)
    assert (result.line, result.expected, result.got) == (2, "'line2\\n'", "'Line2\\n'")
    assert "column 1" in result.message
    assert "trailing output" in check_output("x", "xy", exact).message
    assert "ended early" in check_output("xy", "x", exact).message
    assert check_output("A", "a", exact) is not None
    long = "z" * 20_000
    assert check_output(long + "1", long + "2", exact).message.endswith("expected '1', got '2'")


def test_lines_mode():
    lines = OutputChecker(type="lines")
    assert check_output("a b\nc\n", "a b  \r\nc\t\n\n\n", lines) is None
    assert check_output("a b\nc\n", "a b\nc", lines) is None
    inner = check_output("a b\n", "a  b\n", lines)
    assert inner.line == 1 and inner.expected == "'a b'" and inner.got == "'a  b'"
    assert check_output("x\n", " x\n", lines) is not None  # leading spaces count
    assert check_output("X\n", "x\n", lines) is not None   # case counts
    early = check_output("a\nb\nc\n", "a\nb\n", lines)
    assert early.line == 3 and "ended before line 3" in early.message
    extra = check_output("a\n", "a\n\nb\n", lines)
    assert extra.line == 2 and "trailing output on line 2" in extra.message


def test_validator_checker_is_not_run_here():
    with pytest.raises(ValueError, match="sandbox"):
        check_output("1", "1", OutputChecker(type="validator", validator="v.py"))


# ---- the default validator's flags --------------------------------------------------------

@pytest.mark.parametrize("flags,expected", [
    ("", {}),
    ("case_sensitive", {"case_sensitive": True}),
    ("space_change_sensitive case_sensitive",
     {"space_change_sensitive": True, "case_sensitive": True}),
    ("float_tolerance 1e-6", {"float_tolerance": 1e-6}),
    ("float_absolute_tolerance 1e-6", {"float_absolute_tolerance": 1e-6}),
    ("float_relative_tolerance .5", {"float_relative_tolerance": 0.5}),
    ("float_absolute_tolerance 1e-6 float_relative_tolerance 1e-4",
     {"float_absolute_tolerance": 1e-6, "float_relative_tolerance": 1e-4}),
    # later flags override earlier ones, as in the C validator's argument loop
    ("float_tolerance 1e-6 float_absolute_tolerance 1e-3",
     {"float_absolute_tolerance": 1e-3, "float_relative_tolerance": 1e-6}),
    ("float_absolute_tolerance 1 float_absolute_tolerance 2", {"float_absolute_tolerance": 2.0}),
    # a negative tolerance leaves it unset (the validator tests tol >= 0)
    ("float_tolerance -1", {}),
    (["float_tolerance", "0"], {"float_tolerance": 0.0}),
])
def test_checker_from_kattis_flags(flags, expected):
    checker = checker_from_kattis_flags(flags)
    assert checker.type == "tokens"
    for key in ("case_sensitive", "space_change_sensitive", "float_tolerance",
                "float_absolute_tolerance", "float_relative_tolerance"):
        default = False if key.endswith("sensitive") else None
        assert getattr(checker, key) == expected.get(key, default), key
    assert checker_from_kattis_flags(checker.kattis_flags()) == checker


@pytest.mark.parametrize("flags,message", [
    ("case_insensitive", "unknown default validator flag 'case_insensitive'"),
    ("float_tolerance", "float_tolerance needs a value"),
    ("float_tolerance abc", "needs a finite number, got 'abc'"),
    ("float_tolerance inf", "needs a finite number"),
    ("float_relative_tolerance 1e-6x", "needs a finite number"),
])
def test_bad_kattis_flags(flags, message):
    with pytest.raises(ValueError, match=message):
        checker_from_kattis_flags(flags)


def test_checker_from_flags_behaves_like_the_flags():
    checker = checker_from_kattis_flags("float_tolerance 1e-4 case_sensitive")
    assert check_output("Pi 3.14159\n", "Pi 3.1416\n", checker) is None
    assert check_output("Pi 3.14159\n", "pi 3.1416\n", checker) is not None


# ---- a randomized cross-check against a direct reading of the validator's rules ----------

_POOL = ["1", "1.0", "1e0", "0.1", "1.00001", "0.99999", "abc", "ABC", "Abc", "nan", "inf",
         "-0", "0x10", "16", "1e999", ".5", "5.", "+2", "x1", "é"]
_GAPS = [" ", "  ", "\n", "\t", "\r\n", "\n\n", "\v", "\f"]


def _reference(answer: bytes, output: bytes, checker: OutputChecker) -> bool:
    """Accepted? Written from the rules, independently of the module under test."""
    def same(judge: bytes, team: bytes) -> bool:
        value = kattis_float(judge) if checker.uses_floats else None
        if value is not None:
            number = kattis_float(team)
            if number is None:
                return False
            error = abs(value - number)
            absolute, relative = checker.absolute_tolerance, checker.relative_tolerance
            return (absolute is not None and error <= absolute) or \
                (relative is not None and error <= relative * abs(value))
        return judge == team if checker.case_sensitive else judge.lower() == team.lower()

    if checker.space_change_sensitive:
        pieces = [re.findall(rb"[ \t\n\v\f\r]+|[^ \t\n\v\f\r]+", data)
                  for data in (answer, output)]
        if len(pieces[0]) != len(pieces[1]):
            return False
        for a, b in zip(*pieces):
            a_space, b_space = a[:1].isspace(), b[:1].isspace()
            if a_space != b_space or (a_space and a != b) or (not a_space and not same(a, b)):
                return False
        return True
    a, b = answer.split(), output.split()
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))


def test_randomized_against_the_rules():
    rng = random.Random(20)
    checkers = [DEFAULT, tokens(case_sensitive=True), tokens(space_change_sensitive=True),
                tokens(float_tolerance=1e-4), tokens(float_absolute_tolerance=0.5),
                tokens(float_relative_tolerance=1e-3, case_sensitive=True),
                tokens(float_tolerance=1e-4, space_change_sensitive=True)]
    accepted = rejected = 0
    for _ in range(3000):
        words = [rng.choice(_POOL) for _ in range(rng.randint(0, 6))]
        gaps = [rng.choice(["", *_GAPS])] + [rng.choice(_GAPS) for _ in words[1:]] + \
            [rng.choice(["", "\n"])]
        answer = gaps[0] + "".join(w + g for w, g in zip(words, gaps[1:]))
        out_words, out_gaps = list(words), list(gaps)
        for _ in range(rng.randint(0, 2)):
            kind = rng.randrange(4)
            if kind == 0 and out_words:
                out_words[rng.randrange(len(out_words))] = rng.choice(_POOL)
            elif kind == 1:
                out_gaps[rng.randrange(len(out_gaps))] = rng.choice(_GAPS)
            elif kind == 2 and out_words:
                i = rng.randrange(len(out_words))
                out_words[i] = out_words[i].swapcase()
            else:
                out_words.append(rng.choice(_POOL))
                out_gaps.insert(-1, " ")
        output = out_gaps[0] + "".join(w + g for w, g in zip(out_words, out_gaps[1:]))
        checker = rng.choice(checkers)
        want = _reference(answer.encode(), output.encode(), checker)
        got = check_output(answer, output, checker) is None
        streamed = check_output(io.BytesIO(answer.encode()), io.BytesIO(output.encode()),
                                checker) is None
        assert got == streamed == want, (answer, output, checker)
        accepted, rejected = accepted + want, rejected + (not want)
    assert accepted > 300 and rejected > 300  # both outcomes well covered


def test_paths_are_read_in_chunks(tmp_path):
    answer, output = tmp_path / "1.ans", tmp_path / "out"
    answer.write_bytes(b"1 2\n" * 50_000)
    output.write_bytes(b"1 2 " * 50_000)
    assert check_output(answer, output) is None
    output.write_bytes(b"1 2 " * 49_999 + b"1 3")
    result = check_output(answer, output)
    assert result.token == 100_000 and result.answer_line == 50_000
    assert check_output(answer, b"1 2\n" * 50_000, OutputChecker(type="exact")) is None
