"""Importers by name: ``judge import NAME`` finds the benchmark format in :data:`IMPORTERS`.

An importer turns one record of a benchmark's JSON Lines file into a conversion
:class:`~judge.importers.convert.Source`; the conversion itself (tracing the tests,
checking them against the reference) is the same for every benchmark. Adding one is one
module and one decorator::

    from judge.importers.base import IMPORTERS, Importer
    from judge.importers.convert import Source

    @IMPORTERS.register("mybench", aliases=("my-bench",))
    class MyBench(Importer):
        label = "MyBench"

        def source(self, record: dict) -> Source:
            ...

and, for another package, an entry point in the ``judge.importers`` group
(``mybench = "package.module:MyBench"``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from judge.errors import InputError, Issue
from judge.registry import Registry

if TYPE_CHECKING:
    from judge.importers.convert import Source

#: importer name -> the :class:`Importer` (one instance, made on first use)
IMPORTERS: Registry["Importer"] = Registry("importer", group="judge.importers", factory=True)


class Importer:
    """One benchmark format."""

    #: how messages name the format ("MBPP")
    label: ClassVar[str] = "benchmark"
    #: put before a task id that starts with a digit, so a file name never does
    file_prefix: ClassVar[str] = ""

    def source(self, record: dict[str, Any]) -> "Source":
        """One record as a conversion source; ValueError or SyntaxError when unusable (the
        message is reported with the record's line, and the other records go on)."""
        raise NotImplementedError

    def default_path(self) -> Path:
        """The benchmark file to read when none is given; InputError when there is none."""
        raise InputError([Issue("<%s>" % self.label.lower(),
                                "the %s file path is needed (there is no default file)"
                                % self.label)])


__all__ = ["IMPORTERS", "Importer"]
