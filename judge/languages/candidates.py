"""Candidates in other languages: the code taken from a reply (fenced blocks tagged with the
language, or untagged), the function found the way people write it, and the shipped
reference solutions (``<suite folder>/<language>/<problem id>.<ext>``)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

from judge.languages import get

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)",
                    re.S | re.M)


def extract(text: str, language: str, names: list[str]) -> tuple[str, str | None]:
    """The code to judge from a reply in ``language``, and a note when there was a choice."""
    lang = get(language)
    tags = set(lang.fence_tags) | {""}
    blocks = [textwrap.dedent(m.group(3)) for m in _FENCE.finditer(text)
              if m.group(2).lower() in tags]
    if not blocks:
        return text, None
    defining = [b for b in blocks if lang.find_function(b, names)]
    if defining:
        chosen = defining[-1]
        note = None if len(blocks) == 1 else "took code block %d of %d" % (
            blocks.index(chosen) + 1, len(blocks))
        return chosen, note
    if len(blocks) == 1:
        return blocks[0], None
    return "\n\n".join(blocks), "joined %d code blocks" % len(blocks)


def reference_path(problem: Any, language: str) -> Path:
    lang = get(language)
    source = Path(problem.source)
    return source.parent / language / ("%s.%s" % (problem.identifier, lang.extension))


def reference_solution(problem: Any, language: str) -> str | None:
    path = reference_path(problem, language)
    return path.read_text(encoding="utf-8") if path.is_file() else None
