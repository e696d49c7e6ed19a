"""Reading the three input files of proof grading, with located errors.

PROBLEMS (JSON Lines): ``problem_id``, ``statement``, ``references`` (a non-empty list of
reference solutions or raw forum posts), optional ``topic``; unknown fields are errors (a
typo such as ``reference`` must not silently drop the references).
SOLUTIONS (JSON Lines): ``problem_id``, ``solution_id``, ``solution``; other fields are kept
out of the way (ignored).
GRADES (JSON Lines): ``solution_id`` (or ``id``), ``grade`` (an integer on the declared scale).

A bad line is reported as an :class:`~judge.errors.Issue` (file, line, JSON location) and
skipped; the other lines are still used.  Only an unreadable or empty file is fatal.
All three go through :mod:`judge.jsonl` (bad bytes, depth, size and huge integers located).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from judge.errors import Issue, json_location
from judge.jsonl import MAX_DEPTH, read_objects


class ProofProblem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    problem_id: str = Field(min_length=1)
    statement: str = Field(min_length=1)
    references: tuple[str, ...] = Field(min_length=1)
    topic: str | None = None

    @field_validator("references")
    @classmethod
    def _non_blank(cls, refs: tuple[str, ...]) -> tuple[str, ...]:
        for i, r in enumerate(refs):
            if not r.strip():
                raise ValueError(f"reference [{i}] is blank")
        return refs


class ProofSolution(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    problem_id: str = Field(min_length=1)
    solution_id: str = Field(min_length=1)
    solution: str


@dataclass
class Loaded:
    """What a file yielded: the good records, and one issue per bad line."""

    items: list[Any]
    issues: list[Issue]


def _objects(path: Path, issues: list[Issue]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, object) of every good line, through the project's one JSON Lines reader:
    a line that is not UTF-8, not JSON, nested deeper than ``MAX_DEPTH``, holding an integer
    past the int-to-text limit, longer than the line limit or not an object is an issue
    (file, line, column or JSON location) and the rest of the file is still read."""
    yield from read_objects(path, issues.append, max_depth=MAX_DEPTH)


def _records(path: Path, model: type[BaseModel]) -> Loaded:
    items: list[Any] = []
    issues: list[Issue] = []
    for lineno, data in _objects(path, issues):
        try:
            items.append((lineno, model.model_validate(data)))
        except ValidationError as exc:
            for err in exc.errors():
                loc = json_location(err.get("loc", ()))
                issues.append(Issue(str(path), err.get("msg", "invalid"), location=loc, line=lineno))
    return Loaded(items, issues)


def load_problems(path: str | Path) -> tuple[dict[str, ProofProblem], list[Issue]]:
    """Problems by id (a repeated id is an issue; the first one is kept)."""
    p = Path(path)
    loaded = _records(p, ProofProblem)
    out: dict[str, ProofProblem] = {}
    first_line: dict[str, int] = {}
    for lineno, prob in loaded.items:
        if prob.problem_id in out:
            loaded.issues.append(Issue(str(p), f"problem_id {prob.problem_id!r} already defined on line "
                                       f"{first_line[prob.problem_id]}", location="problem_id", line=lineno))
            continue
        out[prob.problem_id] = prob
        first_line[prob.problem_id] = lineno
    if not out and not loaded.issues:
        loaded.issues.append(Issue(str(p), "no problems in the file"))
    return out, loaded.issues


def load_solutions(path: str | Path, problems: dict[str, ProofProblem]) -> tuple[list[tuple[int, ProofSolution]], list[Issue]]:
    """Solutions in file order; an unknown problem or a repeated solution_id is an issue."""
    p = Path(path)
    loaded = _records(p, ProofSolution)
    out: list[tuple[int, ProofSolution]] = []
    seen: dict[str, int] = {}
    for lineno, sol in loaded.items:
        if sol.problem_id not in problems:
            loaded.issues.append(Issue(str(p), f"unknown problem {sol.problem_id!r} (not among the valid "
                                       "problems of the problems file)", location="problem_id", line=lineno))
            continue
        if sol.solution_id in seen:
            loaded.issues.append(Issue(str(p), f"solution_id {sol.solution_id!r} already used on line "
                                       f"{seen[sol.solution_id]}", location="solution_id", line=lineno))
            continue
        seen[sol.solution_id] = lineno
        out.append((lineno, sol))
    return out, loaded.issues


def load_grades(path: str | Path, lo: int, hi: int) -> tuple[dict[str, int], list[Issue]]:
    """Human grades by solution id, each an integer in ``lo..hi``."""
    p = Path(path)
    grades: dict[str, int] = {}
    issues: list[Issue] = []
    for lineno, data in _objects(p, issues):
        key = "solution_id" if "solution_id" in data else "id"
        sid = data.get(key)
        if not isinstance(sid, str) or not sid:
            issues.append(Issue(str(p), "missing or empty (must be a string)", location="solution_id", line=lineno))
            continue
        g = data.get("grade")
        if isinstance(g, bool) or not isinstance(g, (int, float)) or (isinstance(g, float) and not math.isfinite(g)):
            issues.append(Issue(str(p), f"grade must be a number, got {g!r}", location="grade", line=lineno))
            continue
        if g != int(g):
            issues.append(Issue(str(p), f"grade {g} is not an integer", location="grade", line=lineno))
            continue
        if not lo <= int(g) <= hi:
            issues.append(Issue(str(p), f"grade {int(g)} is outside the scale {lo}-{hi}", location="grade", line=lineno))
            continue
        if sid in grades:
            issues.append(Issue(str(p), f"solution_id {sid!r} graded twice", location="solution_id", line=lineno))
            continue
        grades[sid] = int(g)
    return grades, issues
