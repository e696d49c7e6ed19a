"""The ``tokens`` checker: the Kattis default output validator (problemtools'
``default_validator.cc``), rule for rule:

- both sides are split into tokens on the C whitespace bytes (space, ``\\t \\n \\v \\f \\r``);
  other bytes (also non-ASCII ones) belong to tokens;
- tokens compare case-*insensitively* (ASCII letters only) unless ``case_sensitive``;
- with a float tolerance set, an answer token that is a float (the whole token in C
  ``strtod`` syntax, finite: ``1``, ``-.5``, ``1e-3``, ``0x1p-2``; not ``inf``/``nan``/``1e999``)
  is compared as a number: the output token must be a float too and
  ``|out - ans| <= abs_tol`` or ``|out - ans| <= rel_tol * |ans|``; an answer token that
  is not a float compares as a string (so integers in the answer are floats too);
- ``space_change_sensitive``: the whitespace runs (leading and trailing too) must be equal
  byte for byte;
- output that ends early is wrong; output tokens after the answer's last token are
  ``trailing output`` (whitespace after it is fine unless ``space_change_sensitive``).

One deliberate difference: the C validator compares tokens with ``strcmp``, so a NUL byte
ends a token for it (``5\\0junk`` equals ``5``); here every byte counts.
"""

from __future__ import annotations

from judge.engine.checkers.base import Checker
from judge.engine.output_check import Difference, Source, first_difference, show, tokens
from judge.problem.program import OutputChecker, kattis_float


class Tokens(Checker):
    name = "tokens"
    description = "the Kattis default output validator: tokens, optional float tolerance"

    def difference(self, answer: Source, output: Source,
                   options: OutputChecker) -> Difference | None:
        return _tokens(answer, output, options)


def _where(out_line: int, ans_line: int, token: int) -> str:
    return "line %d of the output (line %d of the answer), token %d" % (out_line, ans_line,
                                                                         token)


def _space_difference(out_line: int, ans_line: int, expected: bytes, got: bytes,
                      token: int) -> Difference:
    at = first_difference(expected, got)
    # the lines where the runs part ways (the counts include the whole runs)
    out_line -= got[at:].count(b"\n")
    ans_line -= expected[at:].count(b"\n")
    want = expected[at:at + 1] or None
    have = got[at:at + 1] or None
    if want is None:
        what = "extra whitespace %s" % show(have)
    elif have is None:
        what = "missing whitespace %s" % show(want)
    else:
        what = "expected whitespace %s, got %s" % (show(want), show(have))
    return Difference("space change on line %d of the output (line %d of the answer), "
                      "before token %d: %s" % (out_line, ans_line, token, what),
                      out_line, ans_line, token, show(want), show(have))


def _tokens(answer: Source, output: Source, checker: OutputChecker) -> Difference | None:
    sensitive = checker.space_change_sensitive
    if not sensitive and isinstance(answer, bytes) and isinstance(output, bytes) and \
            answer.split() == output.split():
        return None  # the common case at C speed (bytes.split() splits on the C whitespace)
    absolute = checker.absolute_tolerance
    relative = checker.relative_tolerance
    floats = checker.uses_floats
    case_sensitive = checker.case_sensitive
    out_tokens = tokens(output)
    out_line = ans_line = 1
    index = 0
    for ans_gap, expected in tokens(answer):
        index += 1
        out_gap, got = next(out_tokens)
        if b"\n" in ans_gap:
            ans_line += ans_gap.count(b"\n")
        if b"\n" in out_gap:
            out_line += out_gap.count(b"\n")
        if sensitive and ans_gap != out_gap:
            return _space_difference(out_line, ans_line, ans_gap, out_gap, index)
        if expected is None:
            if got is not None:
                return Difference(
                    "wrong answer: trailing output on line %d of the output after the answer's "
                    "%d token%s: %s" % (out_line, index - 1, "" if index == 2 else "s",
                                        show(got)),
                    out_line, ans_line, index, show(None), show(got))
            return None
        if got is None:
            empty = "" if index > 1 else (" (the output was empty)" if not out_gap
                                          else " (the output held no tokens)")
            return Difference("wrong answer: the output ended early%s; on %s expected %s" % (
                empty, _where(out_line, ans_line, index), show(expected)),
                out_line, ans_line, index, show(expected), show(None))
        if expected == got:
            continue
        value = kattis_float(expected) if floats else None
        if value is not None:
            number = kattis_float(got)
            if number is None:
                return Difference("wrong answer on %s: expected a number %s, got %s" % (
                    _where(out_line, ans_line, index), show(expected), show(got)),
                    out_line, ans_line, index, show(expected), show(got))
            error = abs(value - number)
            if not (absolute is not None and error <= absolute) and \
                    not (relative is not None and error <= relative * abs(value)):
                return Difference(
                    "wrong answer on %s: expected %s, got %s (difference %.3g; tolerance %s)" % (
                        _where(out_line, ans_line, index), show(expected), show(got), error,
                        _tolerance(absolute, relative)),
                    out_line, ans_line, index, show(expected), show(got))
        elif case_sensitive or expected.lower() != got.lower():
            return Difference("wrong answer on %s: expected %s, got %s" % (
                _where(out_line, ans_line, index), show(expected), show(got)),
                out_line, ans_line, index, show(expected), show(got))
    raise AssertionError("unreachable: the answer stream ends with (gap, None)")


def _tolerance(absolute: float | None, relative: float | None) -> str:
    parts = []
    if absolute is not None:
        parts.append("absolute %g" % absolute)
    if relative is not None:
        parts.append("relative %g" % relative)
    return " or ".join(parts)


__all__ = ["Tokens"]
