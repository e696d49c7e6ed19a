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
    #: the test's score in [0, 1] when its checker gave points (a testlib checker's partial
    #: points); None: a pass is 1 and anything else 0
    score: float | None = None
    #: the test's absolute score when its output validator wrote one (a Kattis
    #: ``score.txt``); a scored problem's groups add these up (judge.problem.scoring)
    points: float | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"index": self.index, "verdict": self.verdict.value,
                                "time_s": round(self.time_s, 6)}
        if self.message:
            data["message"] = self.message
        if self.score is not None:
            data["score"] = self.score
        if self.points is not None:
            data["points"] = self.points
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


#: the contract's fields of a results line (design.md), in the order they are written
CONTRACT = ("problem_id", "model", "prompt_id", "sample", "verdict", "passed", "total", "tests",
            "sandbox", "time_s", "message")


@dataclass
class CandidateResult:
    """One line of the results file (contract in design.md, extended with provenance).

    Beyond the contract, what the judge says about a result is a typed field each (written
    only when set, in this order); ``extra`` holds what a plug-in adds. The line is
    :meth:`to_json`; :meth:`from_line` reads one back."""

    problem_id: str
    verdict: Verdict
    tests: list[TestResult]
    sandbox: str
    time_s: float
    model: str | None = None
    prompt_id: str | None = None
    sample: int | None = None
    message: str | None = None
    #: what a plug-in (a kind, a checker) adds to the line, written after the typed facts
    extra: dict[str, Any] = field(default_factory=dict)
    # ---- how it was judged ----
    #: the sandbox's isolation facts in force (``Sandbox.isolation()``)
    sandbox_isolation: dict[str, Any] | None = None
    #: how the tests ran: "per-test" is not written; "batch", "batch, isolated: tests 2-3"...
    isolation: str | None = None
    #: the problem kind, when not a function problem
    kind: str | None = None
    #: the candidate's language
    language: str | None = None
    #: a program problem's time limit per test, and whether the contest rule stopped it
    time_limit_s: float | None = None
    contest_rule: bool | None = None
    #: the compile step: its seconds, and whether the compiled products came from the cache
    compile_s: float | None = None
    compile_cached: bool | None = None
    #: how the code was taken from the reply, when worth saying
    note: str | None = None
    #: a sandbox_error was retried once
    retried: bool | None = None
    #: the problem's own failures met while judging (a checker or validator that failed)
    problem_errors: list[str] | None = None
    # ---- a scored problem (its ``scoring``: test groups with points) ----
    #: the candidate's score and the most it could score (None: unbounded)
    score: float | None = None
    max_score: float | None = None
    #: each group's score: ``{"group", "score", "max_score", "passed", "total",
    #: "aggregation"[, "note"]}``, the root first
    groups: list[dict[str, Any]] | None = None
    # ---- who it is (the batch runner's stamp) ----
    key: str | None = None
    judged_with: str | None = None
    line: int | None = None
    extracted: bool | None = None
    #: the candidate this one duplicates (its line, else its key): judged once
    duplicate_of: Any = None
    #: the result came from the verdict cache
    cached: bool | None = None

    @property
    def passed(self) -> int:
        return sum(t.verdict is Verdict.PASS for t in self.tests)

    @property
    def total(self) -> int:
        return len(self.tests)

    def facts(self) -> dict[str, Any]:
        """The typed facts that are set, in the order they are written."""
        return {name: getattr(self, name) for name in FACTS if getattr(self, name) is not None}

    def set(self, **facts: Any) -> "CandidateResult":
        """Set facts by name: a typed field where there is one, else ``extra``."""
        for name, value in facts.items():
            if name in FACTS:
                setattr(self, name, value)
            else:
                self.extra[name] = value
        return self

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "problem_id": self.problem_id, "model": self.model, "prompt_id": self.prompt_id,
            "sample": self.sample, "verdict": self.verdict.value, "passed": self.passed,
            "total": self.total, "tests": [t.to_json() for t in self.tests],
            "sandbox": self.sandbox, "time_s": round(self.time_s, 6),
        }
        if self.message:
            data["message"] = self.message
        data.update(self.facts())
        data.update(self.extra)
        return data

    def to_dict(self) -> dict[str, Any]:
        """The results-file line for this candidate (same as :meth:`to_json`)."""
        return self.to_json()

    @classmethod
    def from_line(cls, line: dict[str, Any], skip: tuple[str, ...] = ()) -> "CandidateResult":
        """A results line as a result object (``skip``: keys left out). Its typed facts go to
        their fields, anything else but the contract's to ``extra``."""
        tests = [TestResult(int(t["index"]), Verdict(t["verdict"]),
                            float(t.get("time_s") or 0.0), t.get("message"), t.get("output"),
                            t.get("score"), t.get("points"))
                 for t in line.get("tests") or []]
        result = cls(str(line["problem_id"]), Verdict(line["verdict"]), tests,
                     str(line.get("sandbox", "")), float(line.get("time_s") or 0.0),
                     model=line.get("model"), prompt_id=line.get("prompt_id"),
                     sample=line.get("sample"), message=line.get("message"))
        return result.set(**{k: v for k, v in line.items()
                             if k not in CONTRACT and k not in skip})


#: the typed facts of a results line beyond the contract, in the order they are written
FACTS = tuple(f for f in CandidateResult.__dataclass_fields__
              if f not in CONTRACT and f != "extra")
