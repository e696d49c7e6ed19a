"""Checking a program's output on the judge's side: pure, bounded, no sandbox.

``check_output(answer, output, checker)`` returns ``None`` when the output is accepted and a
``Difference`` (where the output first differs, expected vs got, both cut to a readable
length) when it is not. Both sides may be ``bytes``, ``str`` (UTF-8) or binary files, read
in chunks: the work is linear in the two sizes, and a huge token or whitespace run is
never copied more than once.

The ``tokens`` checker is the Kattis default output validator
(problemtools' ``default_validator.cc``), rule for rule:

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

``exact``: byte for byte. ``lines``: line by line, ``\\r\\n`` as ``\\n``, trailing spaces and
tabs of each line and blank lines at the end ignored; case and inner spacing count.
A ``validator`` checker is a program and is not run here (``check_output`` refuses it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import BinaryIO

from judge.problem.program import OutputChecker, kattis_float

Source = bytes | bytearray | memoryview | str | BinaryIO

#: bytes read at a time from a file
CHUNK = 1 << 16
#: characters of a token or line shown in a message
SHOW = 60

_SPACE = re.compile(rb"[ \t\n\v\f\r]*")
_TOKEN = re.compile(rb"[^ \t\n\v\f\r]*")


@dataclass(frozen=True)
class Difference:
    """Where a wrong output first differs from the expected one."""

    message: str
    #: line of the candidate's output (1-based), and of the expected output
    line: int | None = None
    answer_line: int | None = None
    #: 1-based index of the answer token (tokens checker)
    token: int | None = None
    expected: str | None = None
    got: str | None = None

    def __str__(self) -> str:
        return self.message


def show(data: bytes | None, limit: int = SHOW) -> str:
    """A token, line or whitespace run as a short readable literal."""
    if data is None:
        return "end of output"
    text = bytes(data[: limit * 4]).decode("utf-8", "replace")
    if len(text) > limit or len(data) > limit * 4:
        return repr(text[:limit]) + "... (%d bytes)" % len(data)
    return repr(text)


class _Scanner:
    """Whitespace runs and tokens of bytes or a binary stream, left to right, with the
    line number of the current position."""

    def __init__(self, source: Source) -> None:
        self._file: BinaryIO | None = None
        if isinstance(source, str):
            self._buf = source.encode("utf-8", "surrogateescape")
        elif isinstance(source, (bytes, bytearray, memoryview)):
            self._buf = bytes(source)
        else:
            self._file, self._buf = source, b""
        self._pos = 0
        self.line = 1
        self.consumed = 0  # bytes consumed so far

    def _more(self) -> bool:
        """Replace the (fully consumed) buffer with the next chunk; False at the end."""
        if self._file is None:
            return False
        chunk = self._file.read(CHUNK)
        if not chunk:
            self._file = None
            return False
        self._buf, self._pos = chunk, 0
        return True

    def _run(self, pattern: re.Pattern[bytes], keep: bool) -> bytes:
        pieces = []
        while True:
            match = pattern.match(self._buf, self._pos)
            assert match is not None  # both patterns match the empty string
            piece = match.group()
            self._pos = match.end()
            self.consumed += len(piece)
            if pattern is _SPACE:
                self.line += piece.count(b"\n")
            if keep:
                pieces.append(piece)
            if self._pos < len(self._buf) or not self._more():
                return b"".join(pieces)

    def space(self, keep: bool = False) -> bytes:
        """Consume a whitespace run (returned when ``keep``)."""
        return self._run(_SPACE, keep)

    def token(self) -> bytes | None:
        """Consume the next token (after ``space()``); None at the end of the input."""
        token = self._run(_TOKEN, True)
        return token if token else None

    def rest(self) -> bytes:
        data = [self._buf[self._pos:]]
        if self._file is not None:
            data.append(self._file.read())
        self._pos = len(self._buf)
        return b"".join(data)


def _read_all(source: Source) -> bytes:
    return _Scanner(source).rest()


# ---- tokens (the Kattis default output validator) -------------------------------------------

def _where(out: _Scanner, ans: _Scanner, token: int | None) -> str:
    text = "line %d of the output (line %d of the answer)" % (out.line, ans.line)
    return text + (", token %d" % token if token else "")


def _first_difference(a: bytes, b: bytes) -> int:
    """Offset of the first byte where ``a`` and ``b`` differ (linear)."""
    step = 4096
    offset = 0
    while offset < min(len(a), len(b)) and a[offset:offset + step] == b[offset:offset + step]:
        offset += step
    limit = min(len(a), len(b), offset + step)
    while offset < limit and a[offset] == b[offset]:
        offset += 1
    return offset


def _space_difference(out: _Scanner, ans: _Scanner, expected: bytes, got: bytes,
                      token: int) -> Difference:
    at = _first_difference(expected, got)
    # line numbers of the place where the runs part ways, not of the end of the runs
    out_line = out.line - got[at:].count(b"\n")
    ans_line = ans.line - expected[at:].count(b"\n")
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
    ans, out = _Scanner(answer), _Scanner(output)
    sensitive = checker.space_change_sensitive
    absolute = checker.absolute_tolerance
    relative = checker.relative_tolerance
    floats = checker.uses_floats
    index = 0
    while True:
        index += 1
        expected_space = ans.space(sensitive)
        got_space = out.space(sensitive)
        if sensitive and expected_space != got_space:
            return _space_difference(out, ans, expected_space, got_space, index)
        expected = ans.token()
        if expected is None:
            break
        got = out.token()
        where = _where(out, ans, index)
        if got is None:
            empty = "" if index > 1 else (" (the output was empty)" if out.consumed == 0
                                          else " (the output held no tokens)")
            return Difference("wrong answer: the output ended early%s; on %s expected %s"
                              % (empty, where, show(expected)), out.line, ans.line, index,
                              show(expected), show(None))
        value = kattis_float(expected) if floats else None
        if value is not None:
            number = kattis_float(got)
            if number is None:
                return Difference("wrong answer on %s: expected a number %s, got %s" % (
                    where, show(expected), show(got)), out.line, ans.line, index,
                    show(expected), show(got))
            error = abs(value - number)
            if not (absolute is not None and error <= absolute) and \
                    not (relative is not None and error <= relative * abs(value)):
                return Difference(
                    "wrong answer on %s: expected %s, got %s (difference %.3g; tolerance %s)" % (
                        where, show(expected), show(got), error, _tolerance(absolute, relative)),
                    out.line, ans.line, index, show(expected), show(got))
        elif expected != got and (checker.case_sensitive or expected.lower() != got.lower()):
            return Difference("wrong answer on %s: expected %s, got %s" % (
                where, show(expected), show(got)), out.line, ans.line, index,
                show(expected), show(got))
    got = out.token()
    if got is not None:
        return Difference("wrong answer: trailing output on line %d of the output after the "
                          "answer's %d token%s: %s" % (out.line, index - 1,
                                                       "" if index == 2 else "s", show(got)),
                          out.line, ans.line, index, show(None), show(got))
    return None


def _tolerance(absolute: float | None, relative: float | None) -> str:
    parts = []
    if absolute is not None:
        parts.append("absolute %g" % absolute)
    if relative is not None:
        parts.append("relative %g" % relative)
    return " or ".join(parts)


# ---- exact and lines ------------------------------------------------------------------------

def _exact(answer: Source, output: Source) -> Difference | None:
    expected, got = _read_all(answer), _read_all(output)
    if expected == got:
        return None
    at = _first_difference(expected, got)
    line = expected.count(b"\n", 0, at) + 1
    column = at - (expected.rfind(b"\n", 0, at) + 1) + 1
    want, have = expected[at:at + SHOW] or None, got[at:at + SHOW] or None
    if have is None:
        what = "the output ended early; expected %s" % show(want)
    elif want is None:
        what = "trailing output %s" % show(have)
    else:
        what = "expected %s, got %s" % (show(want), show(have))
    return Difference("wrong answer at line %d, column %d (byte %d): %s" % (
        line, column, at + 1, what), line, line, None, show(want), show(have))


def _lines(data: bytes) -> list[bytes]:
    lines = [line.rstrip(b" \t\r") for line in data.split(b"\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _by_line(answer: Source, output: Source) -> Difference | None:
    expected, got = _lines(_read_all(answer)), _lines(_read_all(output))
    for number, (want, have) in enumerate(zip(expected, got), start=1):
        if want != have:
            return Difference("wrong answer on line %d: expected %s, got %s" % (
                number, show(want), show(have)), number, number, None, show(want), show(have))
    if len(expected) == len(got):
        return None
    number = min(len(expected), len(got)) + 1
    if len(got) < len(expected):
        return Difference("wrong answer: the output ended before line %d; expected %s" % (
            number, show(expected[number - 1])), number, number, None,
            show(expected[number - 1]), show(None))
    return Difference("wrong answer: trailing output on line %d: %s" % (
        number, show(got[number - 1])), number, number, None, show(None), show(got[number - 1]))


# ---- entry point ----------------------------------------------------------------------------

def check_output(answer: Source, output: Source,
                 checker: OutputChecker | None = None) -> Difference | None:
    """None when ``output`` is accepted against ``answer``; else where it first differs."""
    checker = checker or OutputChecker()
    if checker.type == "tokens":
        return _tokens(answer, output, checker)
    if checker.type == "exact":
        return _exact(answer, output)
    if checker.type == "lines":
        return _by_line(answer, output)
    raise ValueError("a %s checker is a program: it runs in a sandbox, not here" % checker.type)
