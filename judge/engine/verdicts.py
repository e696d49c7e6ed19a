"""The verdict vocabulary (contract) and the result records built from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Verdict(str, Enum):
    """What happened to a test or a candidate. ``sandbox_error`` is our failure, not the
    candidate's: it is retried, reported apart and never counted against the candidate."""

    PASS = "pass"
    WRONG_ANSWER = "wrong_answer"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    COMPILE_ERROR = "compile_error"
    SANDBOX_ERROR = "sandbox_error"

    def __str__(self) -> str:
        return self.value


@dataclass
class TestResult:
    index: int
    verdict: Verdict
    time_s: float = 0.0
    message: str | None = None
    output: Any = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"index": self.index, "verdict": self.verdict.value,
                                "time_s": round(self.time_s, 6)}
        if self.message:
            data["message"] = self.message
        if self.output is not None:
            data["output"] = self.output
        return data


def overall(tests: list[TestResult]) -> Verdict:
    """A candidate's verdict: sandbox_error if any test could not be judged, else the
    verdict of its first failing test, else pass."""
    if any(t.verdict is Verdict.SANDBOX_ERROR for t in tests):
        return Verdict.SANDBOX_ERROR
    for test in tests:
        if test.verdict is not Verdict.PASS:
            return test.verdict
    return Verdict.PASS if tests else Verdict.SANDBOX_ERROR


@dataclass
class CandidateResult:
    """One line of the results file (contract in design.md, extended with provenance)."""

    problem_id: str
    verdict: Verdict
    tests: list[TestResult]
    sandbox: str
    time_s: float
    model: str | None = None
    prompt_id: str | None = None
    sample: int | None = None
    message: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> int:
        return sum(t.verdict is Verdict.PASS for t in self.tests)

    @property
    def total(self) -> int:
        return len(self.tests)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "problem_id": self.problem_id, "model": self.model, "prompt_id": self.prompt_id,
            "sample": self.sample, "verdict": self.verdict.value, "passed": self.passed,
            "total": self.total, "tests": [t.to_json() for t in self.tests],
            "sandbox": self.sandbox, "time_s": round(self.time_s, 6),
        }
        if self.message:
            data["message"] = self.message
        data.update(self.extra)
        return data

    def to_dict(self) -> dict[str, Any]:
        """The results-file line for this candidate (same as :meth:`to_json`)."""
        return self.to_json()
