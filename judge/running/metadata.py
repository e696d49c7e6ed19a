"""Run metadata: how a results file was made, recorded on its lines.

Every line ``judge run`` writes carries a ``run`` object::

    "run": {"judge_version": "0.1.0", "date": "2026-11-25T10:40:02+00:00",
            "command": "judge run problems/basics --solutions s.jsonl",
            "suite": "problems/basics", "suite_fingerprint": "3f0c...", "limits": {...},
            "sandbox": "docker", "image": "judge-python:ab12...", "isolation": "on-failure
            tests, warm workers", "dedup": "on", "executor": "local", "jobs": 2}

A field on each line rather than a header line: every reader of results files (``judge
report``, ``judge score``, ``--resume``, HumanEval tools, ``pandas.read_json(lines=True)``)
keeps seeing one result per line, and a line copied out of a file still says how it was judged.
:mod:`judge.reports.runs` reads it (and also accepts a ``{"run": {...}}`` header line).

The **suite fingerprint** is a hash of the sorted (problem id, ``judged_with``) pairs of the
suite's problems, the same hash :mod:`judge.reports.runs` derives from the lines when no
fingerprint was recorded: two runs with the same fingerprint judged the same problems with
the same limits.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import shlex
import sys
from typing import Any, Iterable, Sequence

import judge
from judge.running.batch import judged_with, problem_fingerprint
from judge.problem.model import Problem
from judge.sandbox import Limits


def suite_fingerprint(problems: Iterable[Problem], limits: Limits) -> str | None:
    """A hash of the sorted (problem id, problem content and limits) pairs; None without
    problems."""
    limits_fp = limits.fingerprint()
    pairs = sorted({(p.identifier, judged_with(problem_fingerprint(p), limits_fp))
                    for p in problems})
    if not pairs:
        return None
    text = "\n".join("%s\x00%s" % pair for pair in pairs)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command as typed (``judge run ...``), shell-quoted."""
    args = list(sys.argv[1:] if argv is None else argv)
    return " ".join(["judge"] + [shlex.quote(str(a)) for a in args])


def collect(*, limits: Limits, sandbox: str | None = None,
            isolation_facts: dict[str, Any] | None = None, test_isolation: str | None = None,
            worker_isolation: str | None = None, dedup: bool | None = None,
            executor: str | None = None, jobs: int | None = None, suite: str | None = None,
            problems: Iterable[Problem] | None = None, command: str | None = None,
            date: str | None = None) -> dict[str, Any]:
    """The ``run`` object of a results line; what is unknown is left out (a reader shows it
    as not recorded), never guessed."""
    facts = isolation_facts or {}
    problems = list(problems) if problems is not None else None
    isolation = ", ".join(part for part in (
        "%s tests" % test_isolation if test_isolation else None,
        "%s workers" % worker_isolation if worker_isolation else None) if part)
    meta: dict[str, Any] = {
        "judge_version": judge.__version__,
        "date": date or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "suite": suite,
        "suite_fingerprint": suite_fingerprint(problems, limits) if problems is not None
        else None,
        # the suite's size: reports say how many of its problems had candidates (coverage)
        "suite_problems": len(problems) if problems is not None else None,
        "limits": dataclasses.asdict(limits),
        "sandbox": sandbox or facts.get("backend"),
        "image": facts.get("image"),
        "isolation": isolation or None,
        "dedup": None if dedup is None else ("on" if dedup else "off"),
        "executor": executor,
        "jobs": jobs,
    }
    return {key: value for key, value in meta.items() if value is not None}


def for_judge(judge_: Any, *, suite: str | None = None,
              problems: Iterable[Problem] | None = None, command: str | None = None
              ) -> dict[str, Any]:
    """The ``run`` object for a :class:`judge.Judge` (duck-typed: this layer is below it)."""
    return collect(limits=judge_.limits, sandbox=judge_.backend_name,
                   isolation_facts=judge_.isolation_facts(),
                   test_isolation=judge_.test_isolation, worker_isolation=judge_.isolation,
                   dedup=judge_.dedup, executor=judge_.executor_kind, jobs=judge_.jobs,
                   suite=suite, problems=problems, command=command)


class Stamped:
    """A results writer that puts ``run`` on every line it writes (and passes the rest on)."""

    def __init__(self, output: Any, run: dict[str, Any]) -> None:
        self.output = output
        self.run = run

    def write(self, record: dict[str, Any]) -> Any:
        if "run" not in record:
            record = {**record, "run": self.run}
        return self.output.write(record)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.output, name)
