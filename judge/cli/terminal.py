"""Text from someone else's files, made safe for a terminal.

A package's names and notes, an output validator's feedback, a file name: all are written
to a human's terminal by ``judge verify`` and ``judge import``, and none of them may drive
it. ``printable(text)`` renders every character that could (C0 controls but the tab, DEL,
C1 controls, Unicode bidirectional overrides and isolates, line and paragraph separators)
as a visible escape (``\\x1b``, ``\\n``, ``\\u202e``), and a lone surrogate (a file name
that is not UTF-8) as ``\\udcff`` instead of failing the write. JSON outputs are not passed
through it: JSON escapes controls itself, and its strings stay exact.
"""

from __future__ import annotations

import re

#: what a terminal may act on, and what reorders or hides what follows it
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                     "\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return "\\x%02x" % code if code < 0x100 else "\\u%04x" % code


def printable(text: object) -> str:
    """``str(text)`` with every control, bidi override and lone surrogate escaped (see the
    module): one line, shown as it is, never acted on."""
    return _UNSAFE.sub(_escape, str(text))


__all__ = ["printable"]
