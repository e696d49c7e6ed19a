"""Problem files and suites, each file loaded by the kind it names (``"kind"``, default
``function``: the seed format). An unknown kind is a located issue with a did-you-mean."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge.errors import InputError, Issue, UnknownName
from judge.kinds.base import DEFAULT_KIND, KINDS, ProblemKind
from judge.problem.model import Suite, read_json_file, suite_files


def kind_named_in(data: Any, file: str) -> ProblemKind:
    """The kind parsed JSON names (``"kind"``, else the default)."""
    name = data.get("kind", DEFAULT_KIND) if isinstance(data, dict) else DEFAULT_KIND
    if not isinstance(name, str):
        raise InputError([Issue(file, "kind must be a string (a problem kind: %s)"
                                % ", ".join(KINDS.names()), "kind")])
    try:
        return KINDS.get(name)
    except UnknownName as exc:
        raise InputError([Issue(file, str(exc), "kind")]) from None


def problem_from_data(data: Any, file: str, root: Path | None = None) -> Any:
    """Validate parsed JSON as a problem of the kind it names; InputError with every issue."""
    if not isinstance(data, dict):
        raise InputError([Issue(file, "a problem file must hold a JSON object, got %s"
                                % type(data).__name__)])
    return kind_named_in(data, file).load(data, file, root)


def load_problem(path: str | Path) -> Any:
    """A problem file, loaded by its kind."""
    path = Path(path)
    return problem_from_data(read_json_file(path), str(path))


def load_suite(path: str | Path) -> Suite:
    """Load every problem under ``path``; raise InputError listing every issue found."""
    root = Path(path)
    if not root.exists():
        raise InputError([Issue(str(root), "no such file or directory")])
    issues: list[Issue] = []
    problems: list[Any] = []
    owner: dict[str, str] = {}
    files = suite_files(root)
    if not files:
        raise InputError([Issue(str(root), "no problem files (*.json) found")])
    for file in files:
        try:
            problem = load_problem(file)
        except InputError as exc:
            issues.extend(exc.issues)
            continue
        if problem.identifier in owner:
            issues.append(Issue(str(file), "identifier %r is already used by %s" % (
                problem.identifier, owner[problem.identifier]), "identifier"))
            continue
        owner[problem.identifier] = str(file)
        problems.append(problem)
    if issues:
        raise InputError(issues)
    return Suite(name=root.stem if root.is_file() else root.name, root=root, problems=problems)


__all__ = ["kind_named_in", "load_problem", "load_suite", "problem_from_data"]
