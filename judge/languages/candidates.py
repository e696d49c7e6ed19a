"""Candidates by language name (kept for callers that hold a name, not a language): the code
taken from a reply and the shipped reference solutions
(``<suite folder>/<language>/<problem id>.<ext>``; Python's is the problem's
``optimal_solution``). The step itself is a method of each language:
``get(language).submission(problem, candidate)``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge.languages import get


def extract(text: str, language: str, names: list[str]) -> tuple[str, str | None]:
    """The code to judge from a reply in ``language``, and a note when there was a choice."""
    return get(language).extract(text, names)


def reference_path(problem: Any, language: str) -> Path:
    return get(language).reference_path(problem)


def reference_solution(problem: Any, language: str) -> str | None:
    return get(language).reference_solution(problem)
