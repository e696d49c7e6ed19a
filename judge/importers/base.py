"""Importers by name: ``judge import NAME`` finds the benchmark format in :data:`IMPORTERS`.

An importer writes a suite folder from a benchmark's file (:meth:`Importer.import_suite`).
Most benchmarks are JSON Lines files of Python tasks with assert-based tests: a
:class:`RecordImporter` only turns one record into a conversion
:class:`~judge.importers.convert.Source`, and the conversion itself (tracing the tests,
checking them against the reference) is the same for every benchmark. Adding one is one
module and one decorator::

    from judge.importers.base import IMPORTERS, RecordImporter
    from judge.importers.convert import Source

    @IMPORTERS.register("mybench", aliases=("my-bench",))
    class MyBench(RecordImporter):
        label = "MyBench"

        def source(self, record: dict) -> Source:
            ...

and, for another package, an entry point in the ``judge.importers`` group
(``mybench = "package.module:MyBench"``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, ClassVar

from judge.errors import InputError, Issue
from judge.jsonl import json_text
from judge.importers.convert import Source, convert
from judge.importers.records import ImportReport, read_records
from judge.registry import Registry

#: importer name -> the :class:`Importer` (one instance, made on first use)
IMPORTERS: Registry["Importer"] = Registry("importer", group="judge.importers", factory=True)


class Importer:
    """One benchmark format."""

    #: how messages name the format ("MBPP")
    label: ClassVar[str] = "benchmark"

    def default_path(self) -> Path:
        """The benchmark file to read when none is given; InputError when there is none."""
        raise InputError([Issue("<%s>" % self.label.lower(),
                                "the %s file path is needed (there is no default file)"
                                % self.label)])

    def import_suite(self, kind: str, path: Path, output: Path,
                     progress: Callable[[str], None] | None = None) -> ImportReport:
        """Write the suite of ``path`` (which exists) into the folder ``output``; ``kind`` is
        the name the importer was found by. Bad tasks are reported, the others written."""
        raise NotImplementedError


class RecordImporter(Importer):
    """A JSON Lines benchmark (plain or gzip), one Python task per record, whose tests are
    converted by running them against the reference (see :mod:`judge.importers`)."""

    #: put before a task id that starts with a digit, so a file name never does
    file_prefix: ClassVar[str] = ""

    def source(self, record: dict[str, Any]) -> Source:
        """One record as a conversion source; ValueError or SyntaxError when unusable (the
        message is reported with the record's line, and the other records go on)."""
        raise NotImplementedError

    def import_suite(self, kind: str, path: Path, output: Path,
                     progress: Callable[[str], None] | None = None) -> ImportReport:
        if not path.is_file():
            raise InputError([Issue(str(path), "no such file")])
        output.mkdir(parents=True, exist_ok=True)
        report = ImportReport(kind, str(path), str(output))
        seen: dict[str, int] = {}
        for line, record, issue in read_records(path):
            if issue is not None:
                report.issues.append(issue)
                continue
            assert record is not None
            try:
                src = self.source(record)
            except (ValueError, SyntaxError) as exc:
                task = record.get("task_id")
                report.issues.append(Issue(str(path), "%s%s" % (
                    "task %s: " % task if task is not None else "", exc), line=line))
                continue
            if src.task_id in seen:
                report.issues.append(Issue(str(path), "task %s is already on line %d"
                                           % (src.task_id, seen[src.task_id]), line=line))
                continue
            seen[src.task_id] = line
            target = output / file_name(src.task_id, self)
            data, problem_report = convert(src, str(target))
            report.problems.append(problem_report)
            if data is None:
                report.issues.append(Issue(str(path), "task %s: %s" % (
                    src.task_id, problem_report.error), line=line))
                continue
            target.write_text(json_text(data, indent=1) + "\n",
                              encoding="utf-8")
            problem_report.file = str(target)
            if progress:
                progress(src.task_id)
        return report


def file_name(task_id: str, kind: str | RecordImporter) -> str:
    """The problem file of a task: its id made safe for a file name, never starting with a
    digit when the importer has a prefix for that (``mbpp_11.json``)."""
    importer = IMPORTERS.get(kind) if isinstance(kind, str) else kind
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", task_id).strip("_.") or "task"
    prefix = getattr(importer, "file_prefix", "")
    if prefix and stem[0].isdigit():
        stem = prefix + stem
    return stem + ".json"


__all__ = ["IMPORTERS", "Importer", "RecordImporter", "file_name"]
