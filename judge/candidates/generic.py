"""Genericizing: neutral names for a problem's function and parameters, from its structure.

One :class:`Renaming` (the function -> ``func``, its parameters in order -> ``arg1``,
``arg2``...) is applied to the prompt text, the samples, ``input_code`` and the additional
instructions, so they agree with the generic signature. What is renamed is decided by what a
name *is*, never by spelling alone:

* **Code** (``input_code``, an imported prompt's module) is renamed by token, scoped by its
  syntax tree: the function's name everywhere it is used; its parameters only inside that
  function (a helper of the prompt with a parameter of the same name keeps its own); an
  attribute (``x.name``), a data string, and a keyword argument of another function's call
  keep theirs.
* **Prose** (the prompt text, docstrings, comments) is English with code in it. A name is
  renamed only where it is code: in a doctest line (``>>> f(x)``, ``... x``), in backticks,
  in a call ``name(...)`` (the whole call, arguments included), as the target of
  ``name = value``, or when it is spelled as no English word can be (``snake_case``,
  ``camelCase``, a digit). A plain word stays a word: "Given a list a, return a sorted copy
  of a." is unchanged, and "any two numbers closer than threshold" keeps its English.

The judge maps the generic names back (:func:`completion_frame`): a reply to a genericized
prompt is judged in the frame that prompt asked for.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from typing import Any

from judge.candidates.submission import GENERIC_FUNCTION
from judge.pyparse import parse


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


def rename_words(text: str, mapping: dict[str, str]) -> str:
    """Every whole-word occurrence renamed (``x.name`` attribute accesses are left alone):
    for text that is all code but does not tokenize."""
    pattern = _word_pattern(mapping)
    if pattern is None or not text:
        return text
    return pattern.sub(lambda m: mapping[m.group(1)], text)


# ---- prose -------------------------------------------------------------------------------------

#: a name no English word is spelled like: snake_case, camelCase, or with a digit
_CODE_SPELLING = re.compile(r"_|\d|[a-z][A-Z]")
_DOCTEST = re.compile(r"^(\s*(?:>>>|\.\.\.)[ \t]?)(.*)$")
_BACKTICKS = re.compile(r"(`+)([^`\n]+?)\1")


def _code_span(text: str, mapping: dict[str, str]) -> str:
    """A short span of code inside prose (a doctest line, a backticked name, a call)."""
    return _rename_tokens(text, mapping, None) if text.strip() else text


def _call_end(text: str, open_at: int) -> int:
    """The index after the parenthesis that closes the one at ``open_at`` (same line), or -1."""
    depth = 0
    for i in range(open_at, len(text)):
        char = text[i]
        if char == "\n":
            return -1
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


_IDENTIFIER = re.compile(r"(?<![\w.])([A-Za-z_]\w*)(?!\w)")


def _rename_plain(text: str, mapping: dict[str, str]) -> str:
    """Prose outside doctest lines and backticks: calls (``name(`` with no space between, as
    code writes them and English does not: ``len(arr)``), assignments ``name = value`` and
    code-spelled names."""
    out, cursor = [], 0
    for match in _IDENTIFIER.finditer(text):
        if match.start() < cursor:
            continue
        name, end = match.group(1), match.end()
        rest = text[end:]
        stripped = rest.lstrip(" ")
        if rest.startswith("("):
            close = _call_end(text, end)
            if close > 0:  # the whole call is code: name(arg, ...)
                span = _code_span(text[match.start():close], mapping)
                out.append(text[cursor:match.start()])
                out.append(span)
                cursor = close
                continue
        if name in mapping and name != mapping[name] and (
                (stripped.startswith("=") and not stripped.startswith("=="))
                or _CODE_SPELLING.search(name)):
            out.append(text[cursor:match.start()])
            out.append(mapping[name])
            cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _rename_line(line: str, mapping: dict[str, str]) -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body):]
    doctest = _DOCTEST.match(body)
    if doctest:
        return doctest.group(1) + _code_span(doctest.group(2), mapping) + ending
    out, cursor = [], 0
    for match in _BACKTICKS.finditer(line):
        out.append(_rename_plain(line[cursor:match.start()], mapping))
        ticks = match.group(1)
        out.append(ticks + _code_span(match.group(2), mapping) + ticks)
        cursor = match.end()
    out.append(_rename_plain(line[cursor:], mapping))
    return "".join(out)


def rename_text(text: str, mapping: dict[str, str]) -> str:
    """Rename the code inside prose (see the module's docstring for the rule); plain words
    that happen to equal a name are left as they are."""
    if not text or _word_pattern(mapping) is None:
        return text
    return "".join(_rename_line(line, mapping) for line in text.splitlines(keepends=True))


# ---- code --------------------------------------------------------------------------------------

def _is_doc_string(literal: str) -> bool:
    """Triple-quoted strings are prose (docstrings); other literals are data and keep their
    value, or renaming would change what the code does."""
    body = literal.lstrip("rRbBuUfF")
    return body.startswith(('"""', "'''"))


def _rename_fstring(literal: str, mapping: dict[str, str]) -> str:
    """Inside an f-string only the replacement fields are code."""
    return re.sub(r"(?<!\{)\{[^{}]*\}", lambda m: rename_words(m.group(0), mapping), literal)


def _is_fstring(literal: str) -> bool:
    prefix = re.match(r"[A-Za-z]*", literal).group(0).lower()  # type: ignore[union-attr]
    return "f" in prefix


def _scope_lines(code: str, function: str) -> tuple[int, int] | None:
    """The lines (first, last; 1-based) of the last top-level definition of ``function``."""
    try:
        tree = parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            found = (start, node.end_lineno or node.lineno)
    return found


def rename_code(code: str, mapping: dict[str, str], scope: str | None = None) -> str:
    """Rename identifiers by token, and the code inside comments and docstrings (the prose
    rule). The first key of ``mapping`` is the function; with ``scope`` (its original name)
    the other names (its parameters) are renamed only inside that function's definition,
    when the code parses. Falls back to whole-word renaming when the code does not tokenize
    (it may be deliberately broken).

    Keyword arguments of calls to *other* functions keep their names (``sorted(xs,
    key=key)`` renames only the value). The source is rebuilt by slicing at token offsets,
    so layout is kept exactly."""
    lines = _scope_lines(code, scope) if scope else None
    return _rename_tokens(code, mapping, lines)


def _rename_tokens(code: str, mapping: dict[str, str], lines: tuple[int, int] | None) -> str:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return rename_words(code, mapping)
    line_starts = [0]
    for line in code.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    renamed_function = next(iter(mapping), None)
    outside = {k: v for k, v in mapping.items() if k == renamed_function}

    def names_at(row: int) -> dict[str, str]:
        return mapping if lines is None or lines[0] <= row <= lines[1] else outside

    pieces, cursor = [], 0
    callees: list[str | None] = []  # per open bracket: the called name; "def" for signatures
    meaningful = [t for t in tokens if t.type not in (tokenize.NL, tokenize.COMMENT)]
    following = {id(a): b for a, b in zip(meaningful, meaningful[1:])}
    previous = before = None
    for token in tokens:
        replacement = None
        here = names_at(token.start[0])
        if token.type == tokenize.OP and token.string in "([{":
            is_call = token.string == "(" and previous is not None and previous.type == tokenize.NAME
            if is_call and before is not None and before.string == "def":
                callees.append("def")
            else:
                callees.append(previous.string if is_call else None)
        elif token.type == tokenize.OP and token.string in ")]}" and callees:
            callees.pop()
        elif token.type == tokenize.NAME and token.string in here and not (
                previous is not None and previous.string == "."):
            after = following.get(id(token))
            keyword = after is not None and after.string == "=" and bool(callees) and \
                callees[-1] not in (None, "def", renamed_function)
            if not keyword:
                replacement = here[token.string]
        elif token.type == tokenize.COMMENT or (
                token.type == tokenize.STRING and _is_doc_string(token.string)):
            renamed = rename_text(token.string, here)
            replacement = renamed if renamed != token.string else None
        elif token.type == tokenize.STRING and _is_fstring(token.string):
            renamed = _rename_fstring(token.string, here)
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


# ---- judging a reply in the frame its prompt asked for ---------------------------------------------

def _names_used(code: str) -> set[str]:
    try:
        tokens = tokenize.generate_tokens(io.StringIO(code).readline)
        return {t.string for t in tokens if t.type == tokenize.NAME}
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return set(re.findall(r"[A-Za-z_]\w*", code))


def generic_prefix(problem: Any, prefix: str) -> str:
    """A completion prompt's code (``input_code``) as its genericized prompt shows it."""
    renaming = renaming_for(problem.function_name, list(problem.parameter_names))
    return rename_code(prefix, renaming.mapping, scope=problem.function_name)


def answers_generic(problem: Any, code: str, asked: bool) -> bool:
    """Whether a reply continues the genericized prompt: it was asked for (the prompt or the
    solutions line says so), or its code defines ``func`` and not the real function, or it
    uses the generic parameter names and none of the real ones."""
    real = problem.function_name
    if _defines_top_level(code, real):
        return False
    if _defines_top_level(code, GENERIC_FUNCTION):
        return True
    if asked:
        return True
    renaming = renaming_for(real, list(problem.parameter_names))
    used = _names_used(code)
    generic = {g for _, g in renaming.parameters} | {GENERIC_FUNCTION}
    original = {n for n, _ in renaming.parameters} | {real}
    return bool(used & generic) and not used & original


def _defines_top_level(code: str, name: str) -> bool:
    from judge.candidates.extract import def_pattern

    return def_pattern(name, "top").search(code) is not None


__all__ = ["Renaming", "answers_generic", "generic_prefix", "rename_code", "rename_text",
           "rename_words", "renaming_for"]
