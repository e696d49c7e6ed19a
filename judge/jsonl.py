"""JSON Lines, read and written in one place.

Every file the judge reads or writes line by line (solutions, results, benchmark imports,
answer sheets, grades, caches) goes through here, so every one of them gets the same
guarantees:

- **located errors**: a bad line is an :class:`~judge.errors.Issue` naming the file and line
  (and, for a record that is valid JSON but of the wrong shape, the caller adds the JSON path);
- **bad lines reported and skipped**: one broken line never costs the others;
- **gzip** by content (the magic bytes), not by name, so ``samples.jsonl.gz`` and a
  misnamed file both work;
- **hostile text is data**: invalid UTF-8, JSON nested deeper than the parser can follow
  (or than ``max_depth``), numbers past Python's int-to-text limit and over-long lines are
  each one located error, never an exception escaping to the caller;
- **whole JSON files too** (:func:`read_json`): the same guarantees, plus a size limit;
- **a truncated last line is detected** (a file that ends mid-record: the writer was killed)
  and reported as such, not as a mysterious parse error;
- **appends never glue two records together**: :func:`open_append` repairs a file whose
  last line was cut off before writing after it.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Iterator

from judge.errors import InputError, Issue, json_location

#: a line longer than this is reported and skipped, not read into memory whole
MAX_LINE_BYTES = 64 * 1024 * 1024
#: a whole JSON file (read_json) larger than this is one located error, never read whole
MAX_JSON_BYTES = 256 * 1024 * 1024
#: containers nested deeper than this are one located error (with ``max_depth``): the
#: parser's own limit (about 1,000) is too close to Python's recursion limit for the code
#: that walks the value afterwards
MAX_DEPTH = 100
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class Line:
    """One line of a JSON Lines file: its number (1-based) and either a value or an issue."""

    number: int
    value: Any = None
    issue: Issue | None = None

    @property
    def ok(self) -> bool:
        return self.issue is None


def _open_binary(path: Path) -> IO[bytes]:
    try:
        handle: IO[bytes] = open(path, "rb")
        magic = handle.read(2)
        handle.seek(0)
    except OSError as exc:
        raise InputError([Issue(str(path), "cannot read: %s" % (exc.strerror or exc))]) from None
    if magic == _GZIP_MAGIC:
        handle.close()
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return handle


def loads(text: str | bytes) -> Any:
    """``json.loads`` whose every failure is a ``ValueError`` with a plain message: syntax,
    nesting deeper than the parser follows, and integers past the int-to-text limit."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError("invalid JSON: %s (column %d)" % (exc.msg, exc.colno)) from None
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. "Exceeds the limit (4300 digits) for integer string"
        raise ValueError("invalid JSON: %s" % exc) from None


def check_depth(value: Any, max_depth: int = MAX_DEPTH) -> str | None:
    """The JSON location of the first container nested deeper than ``max_depth`` (the
    top level is depth 1), or None. Iterative: safe on any depth the parser accepted."""
    stack: list[tuple[Any, int, tuple[Any, ...]]] = [(value, 1, ())]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, dict):
            children: Any = node.items()
        elif isinstance(node, list):
            children = enumerate(node)
        else:
            continue
        if depth > max_depth:
            where = json_location(list(path[:6])) or "(top level)"
            return where if len(path) <= 6 else "%s... (depth %d)" % (where, depth)
        for key, child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1, path + (key,)))
    return None


def read_json(path: str | Path, *, max_bytes: int = MAX_JSON_BYTES,
              max_depth: int | None = MAX_DEPTH) -> Any:
    """The value of a whole JSON file (gzip by content, like JSON Lines).

    Every failure is an ``InputError`` with one located :class:`~judge.errors.Issue`: the
    file cannot be read; it is larger than ``max_bytes``; a byte that is not UTF-8 (line and
    column of the byte); a syntax error (line and column); nesting deeper than ``max_depth``
    (the JSON location) or than the parser follows; an integer past Python's int-to-text
    limit."""
    path = Path(path)
    file = str(path)
    handle = _open_binary(path)
    try:
        with handle:
            raw = handle.read(max_bytes + 1)
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise InputError([Issue(file, "cannot read: %s" % _read_error(exc))]) from None
    if len(raw) > max_bytes:
        raise InputError([Issue(file, "larger than the limit of %d bytes" % max_bytes)])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError([Issue(file, "not UTF-8 (byte 0x%02x at column %d)"
                                % (raw[exc.start], column), line=line)]) from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError([Issue(file, "invalid JSON: %s (column %d)" % (exc.msg, exc.colno),
                                line=exc.lineno)]) from None
    except RecursionError:
        raise InputError([Issue(file, "invalid JSON: nested too deeply")]) from None
    except ValueError as exc:  # e.g. "Exceeds the limit (4300 digits) for integer string"
        raise InputError([_long_number_issue(file, text) or Issue(file, "invalid JSON: %s" % exc)]) from None
    if max_depth is not None:
        where = check_depth(value, max_depth)
        if where is not None:
            raise InputError([Issue(file, "nested deeper than %d levels" % max_depth,
                                    location=where)])
    return value


def _long_number_issue(file: str, text: str) -> Issue | None:
    """The located issue for an integer longer than Python's int-to-text limit, or None."""
    limit = sys.get_int_max_str_digits()
    m = re.search(r"\d{%d,}" % (limit + 1), text) if limit else None
    if m is None:
        return None
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    return Issue(file, "invalid JSON: a number of %d digits, more than the limit of %d (column %d)"
                 % (len(m.group()), limit, column), line=line)


def _read_lines(handle: IO[bytes], max_line_bytes: int) -> Iterator[tuple[bytes, int, bool]]:
    """(raw line, size when too long else 0, ends with a newline) for each line, reading at
    most ``max_line_bytes`` + 1 bytes of any line into memory."""
    while True:
        raw = handle.readline(max_line_bytes + 1)
        if not raw:
            return
        if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
            ended, size = False, len(raw)
            while True:  # skip the rest of the over-long line without keeping it
                rest = handle.readline(1 << 20)
                size += len(rest)
                if not rest:
                    break
                if rest.endswith(b"\n"):
                    ended = True
                    break
            yield raw[:64], size, ended
            continue
        yield raw, 0, raw.endswith(b"\n")


def read_lines(path: str | Path, *, max_line_bytes: int = MAX_LINE_BYTES,
               objects: bool = True, kind: str = "JSON Lines",
               max_depth: int | None = None) -> Iterator[Line]:
    """Every non-blank line of ``path`` as a :class:`Line`, in order.

    With ``objects`` (the default) a line must hold a JSON object. With ``max_depth`` a line
    nested deeper is a located issue (see :func:`check_depth`). Raises ``InputError`` only
    when the file itself cannot be read (missing, unreadable, a corrupt gzip stream)."""
    path = Path(path)
    file = str(path)
    handle = _open_binary(path)
    try:
        with handle:
            for number, (raw, too_long, ended) in enumerate(_read_lines(handle, max_line_bytes),
                                                            start=1):
                if too_long:
                    yield Line(number, issue=Issue(
                        file, "line of %d bytes is over the %s limit for a %s line (skipped)"
                        % (too_long, _size(max_line_bytes), kind), line=number))
                    continue
                if not raw.strip():
                    continue
                line = _parse(raw, file, number, ended, objects)
                if max_depth is not None and line.ok:
                    where = check_depth(line.value, max_depth)
                    if where is not None:
                        line = Line(number, issue=Issue(
                            file, "nested deeper than %d levels" % max_depth, location=where,
                            line=number))
                yield line
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise InputError([Issue(file, "cannot read: %s" % _read_error(exc))]) from None


def _read_error(exc: BaseException) -> str:
    """Why a file could not be read; a gzip header followed by corrupt data says so."""
    return "corrupt gzip data (%s)" % exc if isinstance(exc, zlib.error) else str(exc)


def _size(count: int) -> str:
    return "%d KiB" % (count // 1024) if count % 1024 == 0 else "%d-byte" % count


def _parse(raw: bytes, file: str, number: int, ended: bool, objects: bool) -> Line:
    try:
        text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        return Line(number, issue=Issue(file, "not UTF-8 (byte 0x%02x at column %d)"
                                        % (raw[exc.start], exc.start + 1), line=number))
    try:
        value = loads(text)
    except ValueError as exc:
        long_number = _long_number_issue(file, text)
        message = long_number.message if long_number is not None else str(exc)
        if not ended:
            message = "truncated last line (the file ends in the middle of a record): " + message
        return Line(number, issue=Issue(file, message, line=number))
    if objects and not isinstance(value, dict):
        return Line(number, issue=Issue(file, "a line must hold a JSON object, got %s"
                                        % _json_type(value), line=number))
    return Line(number, value=value)


def _json_type(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def read_objects(path: str | Path, report: Callable[[Issue], None] | None = None,
                 **kwargs: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every good line; each bad line goes to ``report`` (when
    given) and is skipped."""
    for line in read_lines(path, **kwargs):
        if line.issue is not None:
            if report is not None:
                report(line.issue)
            continue
        yield line.number, line.value


def json_text(value: Any, **options: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)``, except that a value holding a
    string no UTF-8 can encode (a lone surrogate, which JSON and Python strings allow: from a
    candidate's output or a dataset's text) is written with JSON escapes, so writing the text
    never fails."""
    text = json.dumps(value, ensure_ascii=False, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, **options)
    return text


def dumps(value: Any) -> str:
    """One record as one line of text (no newline). Strings that cannot be encoded as UTF-8
    (a lone surrogate from a candidate's output) are written as JSON escapes instead of
    failing the write."""
    text = json_text(value, separators=(", ", ": "))
    return text


def repair_tail(path: str | Path) -> str | None:
    """Make ``path`` end at a record boundary before appending to it.

    A file that ends without a newline either holds a complete last record (a newline is
    added) or a truncated one (cut off: it is removed, since appending after it would glue
    two records into one bad line). Returns a note saying what was done, or None."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    if size == 0:
        return None
    with open(path, "rb+") as handle:
        handle.seek(-1, os.SEEK_END)
        if handle.read(1) == b"\n":
            return None
        start = _last_line_start(handle, size)
        handle.seek(start)
        tail = handle.read()
        try:
            loads(tail.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            handle.truncate(start)
            return "%s: removed a truncated last line (%d bytes) before appending" % (path,
                                                                                       len(tail))
        handle.seek(0, os.SEEK_END)
        handle.write(b"\n")
        return None


def _last_line_start(handle: IO[bytes], size: int) -> int:
    position = size
    while position > 0:
        step = min(1 << 16, position)
        position -= step
        handle.seek(position)
        chunk = handle.read(step)
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            return position + cut + 1
    return 0


class Writer:
    """Writes records one line each, flushed per record so a crash loses at most the line
    being written (which :func:`repair_tail` then removes on the next append)."""

    def __init__(self, handle: IO[str]) -> None:
        self._handle = handle

    def write(self, record: Any) -> None:
        self._handle.write(dumps(record) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_write(path: str | Path, append: bool = False,
               notice: Callable[[str], None] | None = None) -> Writer:
    """A :class:`Writer` on ``path``: truncating, or appending after repairing the tail."""
    path = Path(path)
    if append:
        note = repair_tail(path)
        if note and notice is not None:
            notice(note)
    handle = open(path, "a" if append else "w", encoding="utf-8", newline="\n")
    return Writer(handle)


def write_all(path: str | Path, records: Any) -> int:
    """Write an iterable of records to ``path`` (replacing it); returns how many."""
    count = 0
    with open_write(path) as writer:
        for record in records:
            writer.write(record)
            count += 1
    return count


__all__ = ["Line", "MAX_DEPTH", "MAX_JSON_BYTES", "MAX_LINE_BYTES", "Writer", "check_depth",
           "dumps", "loads", "open_write", "read_json", "read_lines", "read_objects",
           "repair_tail", "write_all"]
