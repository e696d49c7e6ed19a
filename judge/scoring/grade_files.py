"""Reading grade files for the agreement metrics (``judge agreement``): ``id, grade`` pairs from
JSON Lines or CSV, every problem located by ``file:line``.

Split from :mod:`judge.scoring.agreement` (which re-exports :func:`read_grades` and
:func:`join_grades`) to keep each module one job: reading input, or computing metrics.
"""

from __future__ import annotations

import csv
import math
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge import jsonl
from judge.scoring.primitives import InputError, num_text, read_jsonl

if TYPE_CHECKING:
    from judge.scoring.agreement import Scale

Number = int | Fraction


def _short(n: int) -> str:
    return num_text(n)


def _grade(value: Any, where: str, scale: "Scale | None", fractional: bool = False) -> Number:
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 40:
            raise InputError(f"{where}: grade {text[:20]!r}... ({len(text)} characters) is not a grade")
        try:
            value = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise InputError(f"{where}: grade {value!r} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise InputError(f"{where}: grade must be a number, got {_clip(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where}: grade {value!r} is not finite")
    # a float is the decimal it is written as (3.5 is 7/2, 0.1 is 1/10)
    exact = Fraction(Decimal(repr(value))) if isinstance(value, float) else Fraction(value)
    if exact.denominator != 1 and not fractional:
        raise InputError(f"{where}: grade {value} is not an integer (grades are ordinal categories)")
    g: Number = int(exact) if exact.denominator == 1 else exact
    if scale is not None and not scale.lo <= g <= scale.hi:
        raise InputError(f"{where}: grade {_short(g) if isinstance(g, int) else value} is outside the scale {scale}")
    return g


def _clip(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) else _short(value)
    return text if len(text) <= 60 else text[:50] + "..."


def _read_text(p: Path) -> str:
    """The whole file as text; bad bytes are a located error (line and column), like JSON."""
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > jsonl.MAX_JSON_BYTES:
        raise InputError(f"{p}: larger than the limit of {jsonl.MAX_JSON_BYTES} bytes")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(f"{p}:{line}: not UTF-8 (byte 0x{raw[exc.start]:02x} at column {column})") from None


def read_grades(path: str | Path, scale: "Scale | None" = None, *,
                fractional: bool = False) -> dict[str, Number]:
    """Read ``id, grade`` pairs from JSON Lines (``{"id", "grade"}``) or CSV (header ``id,grade``).

    Grades are whole numbers unless ``fractional`` (averaged predictions: ``3.5``, the mean of
    sampled or ensembled grades), which are kept exactly as written.

    The format is CSV for a ``.csv`` file, or when the first non-blank line does not start
    with ``{``; JSON Lines go through :func:`judge.jsonl.read_lines`.  Every problem is
    collected and raised together, each naming ``file:line``."""
    p = Path(path)
    first = _first_line(p)
    rows: list[tuple[str, Any, Any]] = []
    errors: list[str] = []
    if p.suffix.lower() == ".csv" or (first and not first.startswith(b"{")):
        text = _read_text(p)
        reader = csv.reader(text.splitlines())
        try:
            header = next(reader, None)
            cols = [h.strip().lower() for h in header] if header else []
            if "id" not in cols or "grade" not in cols:
                raise InputError(f"{p}:1: CSV header must contain the columns id and grade, got {_clip(header)}")
            i_id, i_grade = cols.index("id"), cols.index("grade")
            for lineno, rec in enumerate(reader, start=2):
                if not any(c.strip() for c in rec):
                    continue
                if len(rec) <= max(i_id, i_grade):
                    errors.append(f"{p}:{lineno}: expected at least {max(i_id, i_grade) + 1} columns, got {len(rec)}")
                    continue
                rows.append((f"{p}:{lineno}", rec[i_id].strip(), rec[i_grade]))
        except csv.Error as exc:
            raise InputError(f"{p}:{reader.line_num}: invalid CSV: {exc}") from None
    else:
        for line in read_jsonl(p):
            where = f"{p}:{line.number}"
            obj = line.value
            if line.issue is not None:
                errors.append(str(line.issue))
            elif "id" not in obj or "grade" not in obj:
                errors.append(f"{where}: expected an object with keys id and grade")
            elif isinstance(obj["id"], bool) or not isinstance(obj["id"], (str, int)):
                errors.append(f"{where}: id must be a string or an integer")
            else:
                rows.append((where, obj["id"] if isinstance(obj["id"], str) else _short(obj["id"]), obj["grade"]))
    grades: dict[str, Number] = {}
    seen: dict[str, str] = {}
    for where, gid, raw in rows:
        if not gid:
            errors.append(f"{where}: empty id")
            continue
        if gid in seen:
            errors.append(f"{where}: id {gid[:60]!r} already given at {seen[gid]}")
            continue
        try:
            grades[gid] = _grade(raw, where, scale, fractional)
            seen[gid] = where
        except InputError as exc:
            errors.append(str(exc))
    if errors:
        raise InputError("\n".join(errors))
    if not grades:
        raise InputError(f"{p}: no grades")
    return grades


def _first_line(p: Path) -> bytes:
    """The first non-blank line's start (stripped bytes), to tell JSON Lines from CSV."""
    try:
        with open(p, "rb") as fh:
            for raw in iter(lambda: fh.readline(4096), b""):
                if raw.strip():
                    return raw.strip().lstrip(b"\xef\xbb\xbf")
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return b""


def join_grades(human: dict[str, Number], pred: dict[str, Number]
                ) -> tuple[list[str], list[Number], list[Number], list[str], list[str]]:
    """Pair grades by id: ``(ids, human, pred, missing_in_pred, missing_in_human)``, ids sorted."""
    ids = sorted(set(human) & set(pred))
    return (ids, [human[i] for i in ids], [pred[i] for i in ids],
            sorted(set(human) - set(pred)), sorted(set(pred) - set(human)))
