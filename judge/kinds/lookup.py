"""A problem by its identifier: ``j.judge("basics_digital_root", code)``.

Looked up in the suites a :class:`judge.Judge` was given (``suite=``), else in the shipped
suites (``problems/``, loaded once). An unknown identifier is an
:class:`~judge.errors.UnknownName` with a did-you-mean, never an ``AttributeError``.
"""

from __future__ import annotations

import difflib
import functools
from pathlib import Path
from typing import Iterable, Union

from judge.errors import UnknownName
from judge.kinds.loader import load_suite
from judge.problem.model import Problem, Suite
from judge.resources import shipped_problems

SuiteLike = Union[Suite, str, Path]


@functools.lru_cache(maxsize=1)
def _shipped() -> Suite:
    return load_suite(shipped_problems())


def suites_of(suites: SuiteLike | Iterable[SuiteLike] | None) -> list[Suite]:
    """Suites from a suite, a path, or several of them (loaded now: a bad file fails here)."""
    if suites is None:
        return []
    if isinstance(suites, (Suite, str, Path)):
        suites = [suites]
    return [s if isinstance(s, Suite) else load_suite(s) for s in suites]


def find_problem(problem: Problem | str, suites: list[Suite] | None = None) -> Problem:
    """``problem`` itself, or the problem with that identifier in ``suites`` (default: the
    shipped suites)."""
    if not isinstance(problem, str):
        if hasattr(problem, "kind") and hasattr(problem, "identifier"):
            return problem  # a problem object, of any kind
        raise TypeError("expected a Problem or a problem identifier, got %s"
                        % type(problem).__name__)
    searched = suites or [_shipped()]
    for suite in searched:
        if problem in suite:
            return suite[problem]
    known = sorted({p for suite in searched for p in suite.by_id})
    close = difflib.get_close_matches(problem, known, n=1)
    raise UnknownName("problem", problem, close[0] if close else None,
                      known if len(known) <= 10 else None)
