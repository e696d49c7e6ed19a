"""Where ``judge run`` writes its results when ``--output`` is not given.

By default a run is never lost: its results go to ``judge-results/<input>-<UTC time>.jsonl``
in the current folder (the setting ``JUDGE_RESULTS_DIR`` names another folder), where ``<input>`` is the
solutions file's name without its extensions, or ``<suite>-optimal`` for ``--solutions
optimal``. An existing file is never overwritten (a ``-2``, ``-3``... suffix is added). The
path is printed at the end of the run; ``--no-output`` writes nothing.
"""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path

from judge.settings import settings


def _stem(path: str) -> str:
    name = Path(path.rstrip("/\\")).name or "results"
    for suffix in (".gz", ".jsonl", ".json", ".jsonlines", ".ndjson"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "results"


def default_results_path(suite: str, solutions: str, now: _dt.datetime | None = None,
                         folder: str | Path | None = None) -> Path:
    """A fresh results path derived from the input (see the module's docstring)."""
    folder = Path(folder or settings().results_dir)
    stem = "%s-optimal" % _stem(suite) if solutions == "optimal" else _stem(solutions)
    stamp = (now or _dt.datetime.now(_dt.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    path = folder / ("%s-%s.jsonl" % (stem, stamp))
    number = 2
    while path.exists():
        path = folder / ("%s-%s-%d.jsonl" % (stem, stamp, number))
        number += 1
    return path
