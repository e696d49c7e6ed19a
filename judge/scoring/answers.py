"""Normalising and splitting solver and reference answers (the reference-solution format).

Why a module of its own: :mod:`judge.scoring.reference_match` scores entries, the LLM
equivalence judge (:mod:`judge.grading.llm`) compares normalised texts too, and both read
odd answers (numbers, booleans, lists) the same way.  What :func:`normalize_answer` strips
and keeps is described in :mod:`judge.scoring.reference_match`.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

#: dashes and minus signs that mean "-" (NFKC leaves them apart)
_DASHES = str.maketrans({"\u2212": "-", "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-",
                         "\u2019": "'", "\u2018": "'"})
#: a quote pair around the whole answer is stripped (a lone quote or apostrophe is kept)
_QUOTE_PAIRS = {'"': '"', "'": "'", "\u201c": "\u201d", "\u201e": "\u201c", "\u00ab": "\u00bb",
                "\u2039": "\u203a", "\u300c": "\u300d", "\u300e": "\u300f"}
#: markdown / LaTeX wrappers, stripped only in matching pairs (``**x**``, ``$x$``), longest first;
#: a lone leading ``*`` (a reconstructed form, ``*kuru``) is kept
_WRAPPERS = ("**", "__", "``", "$$", "*", "_", "`", "$")
#: sentence punctuation stripped at the end ...
_TRAILING = frozenset(".,;:\u3002\u3001")
#: ... and at the start
_LEADING = frozenset(",;:")
#: an answer made only of these is empty
_DECORATION = frozenset("*_`$\"'.,;: \u3002\u3001") | frozenset(_QUOTE_PAIRS.values())


def _strip_decoration(s: str) -> str:
    """The stripping loop of :func:`normalize_answer`, on two indices (no slicing per
    step: linear time even for ``"kuru" + "." * 10**6``)."""
    i, j = 0, len(s)
    while True:
        before = (i, j)
        while i < j and (s[i].isspace() or s[i] in _LEADING):
            i += 1
        while j > i and (s[j - 1].isspace() or s[j - 1] in _TRAILING):
            j -= 1
        if j - i >= 2 and s[i] in _QUOTE_PAIRS and s[j - 1] == _QUOTE_PAIRS[s[i]]:
            i, j = i + 1, j - 1
        else:
            for w in _WRAPPERS:
                if j - i > 2 * len(w) and s.startswith(w, i, j) and s.endswith(w, i, j):
                    i, j = i + len(w), j - len(w)
                    break
        if (i, j) == before:
            return s[i:j]


def normalize_answer(text: str) -> str:
    """The comparison form of an answer, applied to *both* sides: what is stripped and what
    is kept is listed in the module docstring (``"**Kuru.**"`` -> ``kuru``; ``-5``, ``5!``,
    ``(a)`` stay as they are)."""
    s = " ".join(unicodedata.normalize("NFKC", text).translate(_DASHES).casefold().split())
    if all(ch in _DECORATION for ch in s):
        return ""
    return _strip_decoration(s)


def split_items(value: str | list[Any]) -> list[str]:
    """Raw items of a select entry: list items, or a string split on newlines/semicolons/commas."""
    if isinstance(value, list):
        return ["" if v is None else str(v) for v in value]
    for sep in ("\n", ";", ","):
        if sep in value:
            return value.split(sep)
    return [value]


def normalized_items(value: str | list[Any]) -> list[str]:
    """Normalised, non-empty, de-duplicated items in first-seen order (linear: a dict)."""
    return list(dict.fromkeys(n for n in map(normalize_answer, split_items(value)) if n))


def answer_text(value: Any) -> str:
    """Any JSON-like answer as text: a string is itself, a number its decimal text (an
    integer too long to print is marked, never an error), a boolean ``true``/``false``,
    anything else its JSON (or ``str``) form."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        try:
            return str(value)
        except ValueError:  # past the int-to-text limit
            return f"<integer of {value.bit_length()} bits>"
    if isinstance(value, float):
        return repr(value)
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except Exception:  # noqa: BLE001 - nested too deep, a failing __str__: still text
        try:
            return str(value)
        except Exception:  # noqa: BLE001
            return f"<{type(value).__name__}>"


def coerce_answer(value: Any) -> str | list[str] | None:
    """A solver's answer as this module reads it: ``None``, a string, or a list of strings
    (a list's items through :func:`answer_text`, ``None`` items as empty strings)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return ["" if v is None else answer_text(v) for v in value]
    return answer_text(value)
