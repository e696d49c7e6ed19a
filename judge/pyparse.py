"""``ast.parse`` for the judge's threads.

CPython 3.11 up to 3.11.7 keeps the AST converter's recursion counter per interpreter, not
per thread (gh-106905): two threads parsing at once can fail one of them with
``SystemError: AST constructor recursion depth mismatch``. The judge parses candidates' code
from several threads (a run's pool threads, the service's requests, ``Judge.ajudge``), so
every parse of candidate code goes through :func:`parse`, one at a time. A parse is a
fraction of a millisecond for a model's reply; the lock costs nothing measurable.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """:func:`ast.parse`, one thread at a time (see the module's docstring). Raises what it
    raises: SyntaxError, ValueError (null bytes), MemoryError, RecursionError."""
    with _LOCK:
        return ast.parse(source, filename=filename, mode=mode)
