"""Reading and showing a program's output on the judge's side: pure, bounded, no sandbox.

The output checkers (:mod:`judge.engine.checkers`: ``tokens``, ``exact``, ``lines``, the
output validator) share these: both sides of a comparison may be ``bytes``, ``str`` (UTF-8)
or binary files, read in chunks, so the work is linear in the two sizes and a huge token or
whitespace run is never copied more than once; a :class:`Difference` says where a wrong
output first differs (expected vs got, both cut to a readable length).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator


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


def as_bytes(source: Source) -> bytes | BinaryIO:
    return _as_bytes(source)


def read_all(source: Source) -> bytes:
    return _read_all(source)


def tokens(source: Source) -> Iterator[tuple[bytes, bytes | None]]:
    """``(whitespace before, token)`` pairs of ``source``, then ``(trailing whitespace,
    None)`` (:func:`_stream`)."""
    return _stream(source)


def first_difference(a: bytes, b: bytes) -> int:
    return _first_difference(a, b)


__all__ = ["CHUNK", "Difference", "SHOW", "Source", "as_bytes", "first_difference", "read_all", "show",
           "tokens"]
