"""Resuming a run: what an earlier results file already holds, and keeping it one line per
candidate.

A results line carries ``key`` (who: the candidate's identity and code) and ``judged_with``
(against what: the problem's content and the limits). On ``--resume`` a candidate is judged
again unless a line with its key was judged with the same problem and limits and is not a
``sandbox_error``; new lines are appended (crash-safe), and when the run ends the file is
rewritten with only the newest line per key, so a summary never counts a candidate twice.
A truncated last line (a run killed mid-write) is reported and dropped, never glued to the
next record.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from judge import jsonl
from judge.errors import Issue


def load_previous(path: str | Path, report: Callable[[Issue], None] | None = None
                  ) -> dict[str, dict[str, Any]]:
    """The newest results line per key in ``path`` (empty when the file does not exist).
    Bad lines go to ``report`` and are ignored."""
    path = Path(path)
    if not path.exists():
        return {}
    newest: dict[str, dict[str, Any]] = {}
    for _, row in jsonl.read_objects(path, report):
        key = row.get("key")
        if isinstance(key, str):
            newest[key] = row
    return newest


def compact(path: str | Path, report: Callable[[Issue], None] | None = None
            ) -> list[dict[str, Any]]:
    """Rewrite ``path`` keeping the newest line per key, in the order of those lines (rows
    without a key are kept as they are); atomic: a crash leaves the old file. Returns the
    rows kept."""
    path = Path(path)
    rows: list[dict[str, Any]] = []
    position: dict[str, int] = {}
    for _, row in jsonl.read_objects(path, report):
        key = row.get("key")
        if isinstance(key, str) and key in position:
            rows[position[key]] = {}  # superseded: dropped below
        if isinstance(key, str):
            position[key] = len(rows)
        rows.append(row)
    kept = [row for row in rows if row]
    temporary = path.with_name(path.name + ".compacting")
    jsonl.write_all(temporary, kept)
    os.replace(temporary, path)
    return kept
