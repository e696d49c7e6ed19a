"""What the schema cannot say of a testlib checker and interactor
(``OutputChecker(type="testlib")``: ``source``/``code``, ``max_points``, ``interactor``/
``interactor_code``), checked when a program problem loads
(:func:`judge.problem.program.check_program`)."""

from __future__ import annotations

from typing import Any

from judge.errors import Issue

#: the fields that belong to a testlib checker only
FIELDS = ("source", "code", "max_points", "absolute_points", "interactor", "interactor_code")


def checker_issues(checker: Any, where: str, file: str) -> list[Issue]:
    """A checker's testlib fields: only on a testlib checker; one source of each program;
    a checker's source unless the interactor alone judges."""
    found = []
    given = [name for name in FIELDS if getattr(checker, name) is not None]
    if checker.type != "testlib":
        if given:
            found.append(Issue(file, "%s only apply to a testlib checker, not %r" % (
                ", ".join(given), checker.type), where))
        return found
    if checker.source is not None and checker.code is not None:
        found.append(Issue(file, "a testlib checker's C++ source is a file (source) or its "
                                 "text (code), one of them, not both", where))
    if checker.source is None and checker.code is None and not checker.has_interactor:
        found.append(Issue(file, "a testlib checker needs its C++ source: a file (source) "
                                 "or its text (code), one of them", where))
    if checker.absolute_points and checker.max_points is not None:
        found.append(Issue(file, "a testlib checker's points are absolute (absolute_points) "
                                 "or out of max_points, not both", where))
    if checker.interactor is not None and checker.interactor_code is not None:
        found.append(Issue(file, "a testlib interactor is a file (interactor) or its text "
                                 "(interactor_code), not both", where))
    return found


def problem_issues(problem: Any, file: str) -> list[Issue]:
    """A problem's testlib files exist; an interactor belongs to an interactive problem."""
    found = []
    checker, root = problem.checker, problem.root
    for name, what in (("source", "checker"), ("interactor", "interactor")):
        path = getattr(checker, name)
        if checker.type == "testlib" and path is not None and not (root / path).exists():
            found.append(Issue(file, "testlib %s %s not found" % (what, root / path),
                               "checker." + name))
    if checker.has_interactor and not problem.interactive:
        found.append(Issue(file, "a testlib interactor is for interactive problems "
                                 "(\"interactive\": true)", "checker.interactor"))
    return found


__all__ = ["FIELDS", "checker_issues", "problem_issues"]
