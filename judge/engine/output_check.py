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
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

from judge.problem.program import OutputChecker, kattis_float

Source = bytes | bytearray | memoryview | str | BinaryIO | Path

#: bytes read at a time from a file
CHUNK = 1 << 16
#: characters of a token or line shown in a message
SHOW = 60

_TOKEN = re.compile(rb"[^ \t\n\v\f\r]+")


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


def _chunks(source: Source) -> Iterator[bytes]:
    if isinstance(source, str):
        yield source.encode("utf-8", "surrogateescape")
    elif isinstance(source, (bytes, bytearray, memoryview)):
        yield bytes(source)
    else:
        while chunk := source.read(CHUNK):
            yield chunk


def _as_bytes(source: Source) -> bytes | BinaryIO:
    if isinstance(source, str):
        return source.encode("utf-8", "surrogateescape")
    if isinstance(source, (bytearray, memoryview)):
        return bytes(source)
    return source


def _read_all(source: Source) -> bytes:
    return b"".join(_chunks(source))


def _stream(source: Source) -> Iterator[tuple[bytes, bytes | None]]:
    """``(whitespace before, token)`` pairs, left to right, then ``(trailing whitespace,
    None)``. Chunks are scanned by the regex engine; a token or whitespace run cut by a
    chunk border is joined once, so the work stays linear in the size."""
    gap: list[bytes] = []
    token: list[bytes] = []
    for chunk in _chunks(source):
        pos, size = 0, len(chunk)
        for match in _TOKEN.finditer(chunk):
            start, end = match.span()
            if start > pos:
                if token:  # a token from the previous chunk ended at the border
                    yield b"".join(gap), b"".join(token)
                    gap, token = [], []
                gap.append(chunk[pos:start])
            token.append(match.group())
            pos = end
            if end < size:
                yield b"".join(gap), b"".join(token)
                gap, token = [], []
        if pos < size:
            if token:
                yield b"".join(gap), b"".join(token)
                gap, token = [], []
            gap.append(chunk[pos:])
    if token:
        yield b"".join(gap), b"".join(token)
        gap = []
    yield b"".join(gap), None


# ---- tokens (the Kattis default output validator) -------------------------------------------

def _where(out_line: int, ans_line: int, token: int) -> str:
    return "line %d of the output (line %d of the answer), token %d" % (out_line, ans_line,
                                                                         token)


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


def _space_difference(out_line: int, ans_line: int, expected: bytes, got: bytes,
                      token: int) -> Difference:
    at = _first_difference(expected, got)
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
    out_tokens = _stream(output)
    out_line = ans_line = 1
    index = 0
    for ans_gap, expected in _stream(answer):
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
    """None when ``output`` is accepted against ``answer``; else where it first differs.
    Either side may be bytes, text, a binary file or a ``Path`` (read in chunks)."""
    checker = checker or OutputChecker()
    if checker.type not in ("tokens", "exact", "lines"):
        raise ValueError("a %s checker is a program: it runs in a sandbox, not here"
                         % checker.type)
    with ExitStack() as files:
        answer, output = (files.enter_context(side.open("rb")) if isinstance(side, Path)
                          else _as_bytes(side) for side in (answer, output))
        if checker.type == "tokens":
            return _tokens(answer, output, checker)
        if checker.type == "exact":
            return _exact(answer, output)
        return _by_line(answer, output)
