"""Scoring primitives and the weighted scoring spec.

Why this module exists: challenge authors describe how a submission is scored with a small
JSON spec (``shared/seeds/scoring-primitives.md``) instead of writing code, and the score must
be deterministic - same submission, same ground truth, same score.  The public implementation
of these primitives disagrees with its own documentation; this one follows the documentation
and offers the divergent behaviours only as explicit parameters.

Every primitive returns a :class:`PrimitiveScore` in ``0..1000`` with a short explanation.

Rules chosen where the documentation is silent or ambiguous (each one is tested):

* **Equality** (``exact_match``, ``exact_match_ratio``, the set primitives) is strict and
  typed: strings are case-sensitive; ``"3"`` never equals ``3``; ``True`` is not a number
  (``True != 1``); ``NaN`` equals nothing, not even ``NaN``; ``3 == 3.0`` (JSON does not
  distinguish them); arrays compare element by element, objects key by key.
  ``case_sensitive=False`` is the public implementation's behaviour, opt-in only.
* **exact_match_ratio** divides by the length of the *expected* array: submission elements
  past its end are ignored, missing ones count as misses.  An empty expected array scores
  1000 only for an empty submission array.
* **numeric_tolerance** is binary per number: 1000 when ``|s - g| <= tolerance``, the seed's
  rule *as written*, evaluated **exactly** on the numbers as they are written: an integer is
  itself, a float is the shortest decimal that reads back as it (``repr``: ``1.1`` is
  11/10, not the binary ``1.100000000000000088...``).  So ``numeric_tolerance(1.1, 1.0, 0.1)``
  scores 1000 although ``1.1 - 1.0`` is ``0.10000000000000009`` in binary floating point,
  ``10**12 + 1`` against ``10**12`` at tolerance 0.5 scores 0 (the difference is 1), and at
  tolerance 0 only equal numbers score (``3 == 3.0``; ``0.1 + 0.2``, which prints as
  ``0.30000000000000004``, is not ``0.3``).  There is no relative slack: a relative epsilon
  grows with the numbers and lets ``10**13 + 5`` pass for ``10**13`` at tolerance 0.  Numbers
  of any size are compared exactly (``fractions.Fraction``), never converted to a float that
  overflows.  Negative numbers are numbers; a string, even ``"3.5"``, is not one (the seed's
  "numeric values"; ``"3"`` is not ``3`` anywhere in this module), nor is a boolean.
  For arrays it scores the *fraction* of positions within tolerance (denominator: expected
  length, extra submission elements ignored, missing ones are misses, an empty expected
  array scores 1000 only for an empty submission); ``array="all"`` is the all-or-nothing
  reading (1000 only when the lengths agree and every position is within tolerance).
  ``NaN`` is never within tolerance; equal infinities are.  ``mode="linear"`` (the public
  implementation's decay) scores ``1000 * max(0, 1 - |s - g| / tolerance)`` per number
  instead (an exact match scores 1000, also at tolerance 0).
* **fuzzy_string** lower-cases (``str.casefold``), collapses whitespace, then scores
  ``difflib.SequenceMatcher(autojunk=False).ratio() * 1000``; two empty strings score 1000.
  difflib's ratio costs time quadratic in the lengths (48 s for two 32 KB strings), so above
  ``len(a) * len(b) > SIMILARITY_EXACT_LIMIT`` (4,000,000: two texts of 2,000 characters)
  the ratio is the Dice coefficient of the two multisets of character trigrams,
  ``2 |T(a) ∩ T(b)| / (|T(a)| + |T(b)|)``, linear in time; the detail says which was used
  (:func:`similarity_ratio`, also used by the offline equivalence judge).
* **time_decay** reads the submission field ``time_used_secs`` unless ``field`` names
  another one; the result is clamped to ``0..1000``; a negative or non-finite time scores 0,
  and so does any time at or past the limit (also an integer of hundreds of digits).
* **coverage_ratio** / **set_overlap** treat both sides as sets (duplicates collapse);
  an empty expected set scores 1000 for ``coverage_ratio`` and ``intersection`` (nothing
  to find), and Jaccard of two empty sets is 1000 (identical).  ``method`` is required.

The weighted spec that combines them lives in :mod:`judge.scoring.specs`.
"""

from __future__ import annotations

import difflib
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import ValidationError

from judge import jsonl
from judge.errors import (InputError, InputFault, JudgeError, json_location) # noqa: F401 (InputError re-exported)

MAX_SCORE = 1000.0


class ScoringError(InputFault, ValueError):
    """The scoring spec or the ground truth cannot be used (the author's error, not the solver's)."""

    code = "scoring_error"


# --------------------------------------------------------------------------------------
# Input helpers shared by the scoring, matching and agreement modules (errors name file/line)
# --------------------------------------------------------------------------------------


def format_loc(loc: Sequence[Any]) -> str:
    """Render a pydantic/JSON location tuple as ``dimensions[1].weight`` for error messages."""
    return json_location(list(loc)) or "(top level)"


def validation_message(err: ValidationError, prefix: str = "", *, tags: Sequence[str] = ()) -> str:
    """One line per pydantic error, each naming its JSON location.

    ``tags`` are discriminator values pydantic inserts into locations; they are dropped so the
    location is the one in the user's file.
    """
    lines = []
    for e in err.errors(include_url=False):
        loc = format_loc([p for p in e["loc"] if p not in tags])
        msg = e["msg"].removeprefix("Value error, ")
        lines.append(f"{prefix}at {loc}: {msg}")
    return "\n".join(lines)


def read_jsonl(path: str | Path) -> Any:
    """The lines of a JSON Lines file through :func:`judge.jsonl.read_lines` (each a
    :class:`judge.jsonl.Line`: a JSON object, or a located issue for a bad line: not UTF-8,
    bad syntax, not an object, nested deeper than :data:`judge.jsonl.MAX_DEPTH`, too long)."""
    return jsonl.read_lines(path, max_depth=jsonl.MAX_DEPTH)


def read_json(path: str | Path) -> Any:
    """A whole JSON file through :func:`judge.jsonl.read_json`: every failure (unreadable,
    too large, not UTF-8, bad syntax, nested too deep, an over-long integer) is an
    :class:`InputError` naming the file and the line or JSON location."""
    return jsonl.read_json(path)


# --------------------------------------------------------------------------------------
# Typed equality and set keys
# --------------------------------------------------------------------------------------


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def strict_equal(a: Any, b: Any, *, case_sensitive: bool = True) -> bool:
    """Typed JSON equality: ``"3" != 3``, ``True != 1``, ``NaN`` equals nothing, ``3 == 3.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if _is_number(a) or _is_number(b):
        return _is_number(a) and _is_number(b) and not (_isnan(a) or _isnan(b)) and a == b
    if isinstance(a, str) or isinstance(b, str):
        if not (isinstance(a, str) and isinstance(b, str)):
            return False
        return a == b if case_sensitive else a.casefold() == b.casefold()
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(
            strict_equal(x, y, case_sensitive=case_sensitive) for x, y in zip(a, b)
        )
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return set(a) == set(b) and all(
            strict_equal(a[k], b[k], case_sensitive=case_sensitive) for k in a
        )
    return False


def _isnan(x: Any) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _item_key(x: Any) -> Any | None:
    """A hashable key with the same equality as :func:`strict_equal`; ``None`` if unmatchable (NaN)."""
    if isinstance(x, bool):
        return ("b", x)
    if _is_number(x):
        return None if _isnan(x) else ("n", x)  # hash(3) == hash(3.0) and 3 == 3.0
    if isinstance(x, str):
        return ("s", x)
    if x is None:
        return ("z",)
    if isinstance(x, (list, tuple)):
        keys = [_item_key(v) for v in x]
        return None if any(k is None for k in keys) else ("l", tuple(keys))
    if isinstance(x, Mapping):
        pairs = []
        for k, v in x.items():
            kv = _item_key(v)
            if kv is None:
                return None
            pairs.append((str(k), kv))
        return ("d", tuple(sorted(pairs)))  # JSON keys are unique: sorting never compares values
    return None


def _key_set(items: Sequence[Any]) -> tuple[set[Any], int]:
    """Distinct matchable keys and the number of distinct-by-definition unmatchable items."""
    keys: set[Any] = set()
    unmatchable = 0
    for item in items:
        k = _item_key(item)
        if k is None:
            unmatchable += 1
        else:
            keys.add(k)
    return keys, unmatchable


# --------------------------------------------------------------------------------------
# Primitives
# --------------------------------------------------------------------------------------


class PrimitiveScore(NamedTuple):
    """A primitive's score in ``0..1000`` and a one-line explanation of how it was reached."""

    score: float
    detail: str


def _require_list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise ScoringError(f"ground truth {what} must be an array, got {_type_name(value)}")
    return list(value)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def exact_match(value: Any, expected: Any, *, case_sensitive: bool = True) -> PrimitiveScore:
    """1000 when ``value`` equals ``expected`` under :func:`strict_equal`, else 0."""
    if strict_equal(value, expected, case_sensitive=case_sensitive):
        return PrimitiveScore(MAX_SCORE, "equal")
    return PrimitiveScore(0.0, "not equal")


def exact_match_ratio(value: Any, expected: Sequence[Any], *, case_sensitive: bool = True) -> PrimitiveScore:
    """``correct / len(expected) * 1000``, position by position; extras ignored, missing = miss."""
    exp = _require_list(expected, "for exact_match_ratio")
    if not isinstance(value, (list, tuple)):
        return PrimitiveScore(0.0, f"submission is {_type_name(value)}, not an array")
    if not exp:
        return (PrimitiveScore(MAX_SCORE, "both arrays empty") if not value
                else PrimitiveScore(0.0, "expected an empty array"))
    correct = sum(
        1 for i, e in enumerate(exp)
        if i < len(value) and strict_equal(value[i], e, case_sensitive=case_sensitive)
    )
    note = "" if len(value) == len(exp) else f" (submission has {len(value)} elements)"
    return PrimitiveScore(correct / len(exp) * MAX_SCORE, f"{correct}/{len(exp)} match{note}")


def _is_finite(x: Any) -> bool:
    """``math.isfinite`` that never overflows: every int is finite."""
    return not isinstance(x, float) or math.isfinite(x)


def num_text(x: Any, digits: int = 24) -> str:
    """A number for a message: ``repr`` for floats and short ints; a long int is shortened
    (``1234567890...123456 (401 digits)``) so no message hits the int-to-text limit."""
    if isinstance(x, int) and not isinstance(x, bool):
        if abs(x) < 10 ** digits:
            return str(x)
        sign, n = ("-" if x < 0 else ""), abs(x)
        if n.bit_length() < 14000:  # below the int-to-text limit (4,300 digits)
            text = str(n)
            return f"{sign}{text[:10]}...{text[-6:]} ({len(text)} digits)"
        approx = int(n.bit_length() * 0.30102999566398120) + 1  # log10(2)
        return f"{sign}...{n % 10 ** 6:06d} (about {approx} digits)"
    return repr(x)


def exact_number(x: int | float | Fraction) -> Fraction:
    """A finite number as the exact value it is written as: an int or a Fraction is itself, a
    float is the shortest decimal that reads back as it (``repr``), so ``1.1`` is 11/10."""
    if isinstance(x, float):
        return Fraction(Decimal(repr(x)))
    return Fraction(x)


def within_tolerance(v: int | float, g: int | float, tolerance: int | float) -> bool:
    """``|v - g| <= tolerance`` for finite numbers, exactly on the numbers as written (see the
    module docstring): no relative slack, no overflow at any size.  NaN is within nothing; an
    infinity only of an equal infinity (or at an infinite tolerance, of any finite number)."""
    if _isnan(v) or _isnan(g) or _isnan(tolerance):
        return False
    if not (_is_finite(v) and _is_finite(g)):
        return v == g or (not _is_finite(tolerance) and _is_finite(v) and _is_finite(g))
    if not _is_finite(tolerance):
        return True
    return abs(exact_number(v) - exact_number(g)) <= exact_number(tolerance)


def _number_score(v: Any, g: Any, tolerance: float, mode: str) -> float | None:
    """Score of one number in 0..1, or None when ``v`` is not a number."""
    if not _is_number(v):
        return None
    if _isnan(v) or _isnan(g):
        return 0.0
    if not (_is_finite(v) and _is_finite(g)):
        return 1.0 if v == g else 0.0
    if mode == "linear":
        diff = abs(exact_number(v) - exact_number(g))
        if diff == 0:
            return 1.0
        if tolerance == 0:
            return 0.0
        ratio = diff / exact_number(tolerance)
        return 0.0 if ratio >= 1 else float(1 - ratio)
    return 1.0 if within_tolerance(v, g, tolerance) else 0.0


def numeric_tolerance(value: Any, expected: Any, tolerance: float, *,
                      mode: Literal["binary", "linear"] = "binary",
                      array: Literal["fraction", "all"] = "fraction") -> PrimitiveScore:
    """1000 when ``|value - expected| <= tolerance``; for arrays the fraction within tolerance
    (``array="all"``: 1000 only when every position is, 0 otherwise)."""
    if not (_is_number(tolerance) and _is_finite(tolerance) and not _isnan(tolerance)
            and tolerance >= 0):
        raise ScoringError(f"tolerance must be a finite number >= 0, got {num_text(tolerance)}")
    if mode not in ("binary", "linear"):
        raise ScoringError(f"numeric_tolerance mode must be 'binary' or 'linear', got {mode!r}")
    if array not in ("fraction", "all"):
        raise ScoringError(f"numeric_tolerance array must be 'fraction' or 'all', got {array!r}")
    if isinstance(expected, (list, tuple)):
        if not all(_is_number(g) for g in expected):
            raise ScoringError("ground truth for numeric_tolerance must hold numbers only")
        if not isinstance(value, (list, tuple)):
            return PrimitiveScore(0.0, f"submission is {_type_name(value)}, expected an array of numbers")
        if not expected:
            return (PrimitiveScore(MAX_SCORE, "both arrays empty") if not value
                    else PrimitiveScore(0.0, "expected an empty array"))
        total = 0.0
        for i, g in enumerate(expected):
            s = _number_score(value[i], g, tolerance, mode) if i < len(value) else None
            total += s or 0.0
        score = total / len(expected) * MAX_SCORE
        if array == "all":
            ok = len(value) == len(expected) and total == len(expected)
            size = "" if len(value) == len(expected) else f"; submission has {len(value)} elements"
            return PrimitiveScore(MAX_SCORE if ok else 0.0,
                                  f"{total:g}/{len(expected)} within tolerance {num_text(tolerance)} "
                                  f"({mode}, all or nothing{size})")
        return PrimitiveScore(score, f"{total:g}/{len(expected)} within tolerance "
                                     f"{num_text(tolerance)} ({mode})")
    if not _is_number(expected):
        raise ScoringError(f"ground truth for numeric_tolerance must be a number or an array, "
                           f"got {_type_name(expected)}")
    s = _number_score(value, expected, tolerance, mode)
    if s is None:
        return PrimitiveScore(0.0, f"submission is {_type_name(value)}, not a number")
    return PrimitiveScore(s * MAX_SCORE, f"|{num_text(value)} - {num_text(expected)}| vs tolerance "
                                         f"{num_text(tolerance)} ({mode})")


def normalize_whitespace_case(text: str) -> str:
    """Casefold and collapse runs of whitespace to one space (the fuzzy_string normalisation)."""
    return " ".join(text.casefold().split())


#: above this many character pairs (``len(a) * len(b)``) similarity uses trigrams
SIMILARITY_EXACT_LIMIT = 4_000_000


def similarity_ratio(a: str, b: str) -> tuple[float, str]:
    """Similarity of two strings in 0..1 and the method: difflib's ratio, or, past
    :data:`SIMILARITY_EXACT_LIMIT` character pairs, the trigram Dice coefficient (linear)."""
    if len(a) * len(b) <= SIMILARITY_EXACT_LIMIT:
        return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio(), "difflib ratio"
    ta, tb = _trigrams(a), _trigrams(b)
    total = sum(ta.values()) + sum(tb.values())
    common = sum((ta & tb).values())
    return (2 * common / total if total else 1.0), "trigram Dice (long texts)"


def _trigrams(text: str) -> Counter[str]:
    return Counter(text[i:i + 3] for i in range(max(1, len(text) - 2)))


def fuzzy_string(value: Any, expected: Any) -> PrimitiveScore:
    """Similarity ``0..1000`` of two strings after case and whitespace normalisation."""
    if not isinstance(expected, str):
        raise ScoringError(f"ground truth for fuzzy_string must be a string, got {_type_name(expected)}")
    if not isinstance(value, str):
        return PrimitiveScore(0.0, f"submission is {_type_name(value)}, not a string")
    a, b = normalize_whitespace_case(value), normalize_whitespace_case(expected)
    if a == b:
        return PrimitiveScore(MAX_SCORE, "identical after normalisation")
    ratio, method = similarity_ratio(a, b)
    return PrimitiveScore(ratio * MAX_SCORE, f"similarity {ratio:.4f} ({method})")


def time_decay(time_used: Any, time_limit_secs: float) -> PrimitiveScore:
    """``max(0, 1000 * (1 - time_used / time_limit))``, clamped to 1000; bad times score 0."""
    if not (_is_number(time_limit_secs) and _is_finite(time_limit_secs) and time_limit_secs > 0):
        raise ScoringError(f"time_limit_secs must be a finite number > 0, got {num_text(time_limit_secs)}")
    if not _is_number(time_used):
        return PrimitiveScore(0.0, f"time used is {_type_name(time_used)}, not a number")
    if not _is_finite(time_used) or _isnan(time_used) or time_used < 0:
        return PrimitiveScore(0.0, f"time used {num_text(time_used)} is not a finite non-negative number")
    limit = num_text(time_limit_secs)
    if time_used >= time_limit_secs:  # exact int/float comparison: no overflow at any size
        return PrimitiveScore(0.0, f"{num_text(time_used)}s of {limit}s (at or past the limit)")
    score = min(MAX_SCORE, max(0.0, MAX_SCORE * (1 - float(time_used) / float(time_limit_secs))))
    return PrimitiveScore(score, f"{float(time_used):g}s of {limit}s")


def coverage_ratio(value: Any, expected: Sequence[Any]) -> PrimitiveScore:
    """Share of distinct expected items present in the submission, ``* 1000``."""
    exp = _require_list(expected, "for coverage_ratio")
    if not isinstance(value, (list, tuple)):
        return PrimitiveScore(0.0, f"submission is {_type_name(value)}, not an array")
    exp_keys, exp_unmatchable = _key_set(exp)
    total = len(exp_keys) + exp_unmatchable
    if total == 0:
        return PrimitiveScore(MAX_SCORE, "nothing expected")
    got, _ = _key_set(value)
    covered = len(exp_keys & got)
    return PrimitiveScore(covered / total * MAX_SCORE, f"{covered}/{total} covered")


def set_overlap(value: Any, expected: Sequence[Any], *,
                method: Literal["intersection", "jaccard"]) -> PrimitiveScore:
    """``|A∩B|/|B|`` (intersection, recall-like) or ``|A∩B|/|A∪B|`` (jaccard), ``* 1000``."""
    if method not in ("intersection", "jaccard"):
        raise ScoringError(f"set_overlap method must be 'intersection' or 'jaccard', got {method!r}")
    exp = _require_list(expected, "for set_overlap")
    if not isinstance(value, (list, tuple)):
        return PrimitiveScore(0.0, f"submission is {_type_name(value)}, not an array")
    a_keys, a_nan = _key_set(value)
    b_keys, b_nan = _key_set(exp)
    inter = len(a_keys & b_keys)
    size_a, size_b = len(a_keys) + a_nan, len(b_keys) + b_nan
    if method == "intersection":
        if size_b == 0:
            return PrimitiveScore(MAX_SCORE, "nothing expected")
        return PrimitiveScore(inter / size_b * MAX_SCORE, f"|A∩B|={inter}, |B|={size_b}")
    union = size_a + size_b - inter
    if union == 0:
        return PrimitiveScore(MAX_SCORE, "both sets empty")
    return PrimitiveScore(inter / union * MAX_SCORE, f"|A∩B|={inter}, |A∪B|={union}")


