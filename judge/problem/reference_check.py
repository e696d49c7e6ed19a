"""Static checks of a problem's reference solution, done by ``judge validate`` without running
anything: the ``optimal_solution`` (Python) must parse.

Parsing is :func:`ast.parse` only: nothing of the code is executed or imported, so a
validation of untrusted problem files stays safe without a sandbox. A solution nested past
what the parser follows is reported like a syntax error, never a crash.
"""

from __future__ import annotations

import warnings

from judge.errors import Issue
from judge.pyparse import parse
from judge.problem.model import Problem


def syntax_issues(problem: Problem) -> list[Issue]:
    """One issue when the problem's ``optimal_solution`` is not valid Python, else none."""
    code = getattr(problem, "optimal_solution", None)  # a program problem has none
    if not code or not code.strip():
        return []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning: invalid escapes and the like
            parse(code, filename=problem.source)
    except SyntaxError as exc:
        where = "line %s" % exc.lineno if exc.lineno else "somewhere"
        if exc.lineno and exc.offset:
            where += ", column %s" % exc.offset
        return [Issue(problem.source, "optimal_solution does not parse (%s): %s"
                      % (where, exc.msg), "optimal_solution")]
    except (RecursionError, MemoryError, ValueError) as exc:
        return [Issue(problem.source, "optimal_solution does not parse: %s"
                      % (str(exc) or type(exc).__name__), "optimal_solution")]
    return []
