"""Genericizing: neutral names for a problem's function and parameters, used consistently.

The original framework renamed only the signature line, so the prompt text, the samples and
``input_code`` kept the real names and contradicted it. Here one ``Renaming`` is applied to
all of them: prose by whole-word replacement, code by tokens (identifiers, plus whole words
inside its comments and docstrings, so they agree; data strings keep their value). The judge maps the generic function
name back when it looks for the candidate's function.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from judge.candidates.submission import GENERIC_FUNCTION


@dataclass(frozen=True)
class Renaming:
    function: str
    generic_function: str
    parameters: tuple[tuple[str, str], ...]

    @property
    def mapping(self) -> dict[str, str]:
        mapping = {self.function: self.generic_function}
        mapping.update(dict(self.parameters))
        return mapping


def renaming_for(function: str, parameters: list[str]) -> Renaming:
    generic = tuple((name, "arg%d" % (i + 1)) for i, name in enumerate(parameters))
    return Renaming(function, GENERIC_FUNCTION, generic)


def _word_pattern(mapping: dict[str, str]) -> re.Pattern[str] | None:
    names = sorted((n for n in mapping if n != mapping[n]), key=len, reverse=True)
    if not names:
        return None
    return re.compile(r"(?<![\w.])(%s)(?!\w)" % "|".join(map(re.escape, names)))


def rename_text(text: str, mapping: dict[str, str]) -> str:
    """Whole-word renaming in prose (``x.name`` attribute accesses are left alone)."""
    pattern = _word_pattern(mapping)
    if pattern is None or not text:
        return text
    return pattern.sub(lambda m: mapping[m.group(1)], text)


def _is_doc_string(literal: str) -> bool:
    """Triple-quoted strings are prose (docstrings); other literals are data and keep their
    value, or renaming would change what the code does."""
    body = literal.lstrip("rRbBuUfF")
    return body.startswith(('"""', "'''"))


def _rename_fstring(literal: str, mapping: dict[str, str]) -> str:
    """Inside an f-string only the replacement fields are code."""
    return re.sub(r"(?<!\{)\{[^{}]*\}", lambda m: rename_text(m.group(0), mapping), literal)


def _is_fstring(literal: str) -> bool:
    prefix = re.match(r"[A-Za-z]*", literal).group(0).lower()  # type: ignore[union-attr]
    return "f" in prefix


def rename_code(code: str, mapping: dict[str, str]) -> str:
    """Rename identifiers by token, and whole words in comments and docstrings. Falls back to
    prose renaming when the code does not tokenize (it may be deliberately broken).

    Keyword arguments of calls to *other* functions keep their names (``sorted(xs,
    key=key)`` renames only the value). The source is rebuilt by slicing at token offsets,
    so layout is kept exactly."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return rename_text(code, mapping)
    line_starts = [0]
    for line in code.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    renamed_function = next(iter(mapping), None)
    pieces, cursor = [], 0
    callees: list[str | None] = []  # per open bracket: the called name; "def" for signatures
    meaningful = [t for t in tokens if t.type not in (tokenize.NL, tokenize.COMMENT)]
    following = {id(a): b for a, b in zip(meaningful, meaningful[1:])}
    previous = before = None
    for token in tokens:
        replacement = None
        if token.type == tokenize.OP and token.string in "([{":
            is_call = token.string == "(" and previous is not None and previous.type == tokenize.NAME
            if is_call and before is not None and before.string == "def":
                callees.append("def")
            else:
                callees.append(previous.string if is_call else None)
        elif token.type == tokenize.OP and token.string in ")]}" and callees:
            callees.pop()
        elif token.type == tokenize.NAME and token.string in mapping and not (
                previous is not None and previous.string == "."):
            after = following.get(id(token))
            keyword = after is not None and after.string == "=" and bool(callees) and \
                callees[-1] not in (None, "def", renamed_function)
            if not keyword:
                replacement = mapping[token.string]
        elif token.type == tokenize.COMMENT or (
                token.type == tokenize.STRING and _is_doc_string(token.string)):
            renamed = rename_text(token.string, mapping)
            replacement = renamed if renamed != token.string else None
        elif token.type == tokenize.STRING and _is_fstring(token.string):
            renamed = _rename_fstring(token.string, mapping)
            replacement = renamed if renamed != token.string else None
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            previous, before = token, previous
        if replacement is None:
            continue
        start = line_starts[token.start[0] - 1] + token.start[1]
        end = line_starts[token.end[0] - 1] + token.end[1]
        pieces.append(code[cursor:start])
        pieces.append(replacement)
        cursor = end
    pieces.append(code[cursor:])
    return "".join(pieces)

