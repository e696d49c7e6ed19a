"""Request and response bodies of the HTTP service (pydantic; they make the OpenAPI page).

Requests are strict: unknown fields are errors (a typo such as ``"soluton"`` is a 400 naming
the field, never silently ignored). A problem is named by ``problem_id`` (from the suites the
server loaded) or given inline as ``problem`` (validated like a problem file).
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: upper bounds on what a request may ask for, whatever the server's own limits
MAX_SOLUTION_CHARS = 1_000_000
MAX_BATCH_ITEMS = 1024


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RequestLimits(_Strict):
    """Per-request limits. A request may tighten the server's limits, never loosen them: a
    value above the server's is refused (400), an inline problem's own ``limits`` are clamped
    to these, and an inline problem's reference solution is never timed (see
    ``judge.service.limits``)."""

    time_limit_s: Optional[float] = Field(default=None, gt=0, description=
                                          "CPU seconds per test (problems without a reference)")
    time_floor_s: Optional[float] = Field(default=None, gt=0)
    time_factor: Optional[float] = Field(default=None, gt=0)
    memory_mb: Optional[int] = Field(default=None, ge=16)
    output_kb: Optional[int] = Field(default=None, ge=1)


class JudgeRequest(_Strict):
    """One candidate: a problem (by id or inline) and a solution (code or a raw model reply)."""

    problem_id: Optional[str] = Field(default=None, min_length=1, max_length=500,
                                      description="a problem of the suites the server loaded")
    problem: Optional[dict[str, Any]] = Field(default=None, description=
                                              "an inline problem definition (problem-file "
                                              "format; no checker or check expressions)")
    #: (its length is checked by a validator: pydantic's length constraint refuses a lone
    #: surrogate, which is the candidate's text, judged as the bytes it writes)
    solution: str = Field(description="code, or a raw model reply with prose and fences "
                          "(at most 1,000,000 characters)")
    language: Optional[str] = Field(default=None, max_length=40)
    prompt_id: Optional[str] = Field(default=None, max_length=500)
    model: Optional[str] = Field(default=None, max_length=500)
    sample: Optional[int] = None
    limits: Optional[RequestLimits] = None

    @field_validator("solution")
    @classmethod
    def _solution(cls, value: str) -> str:
        if len(value) > MAX_SOLUTION_CHARS:
            raise ValueError("String should have at most %d characters" % MAX_SOLUTION_CHARS)
        return value

    @model_validator(mode="after")
    def _one_problem(self) -> "JudgeRequest":
        if (self.problem_id is None) == (self.problem is None):
            raise ValueError("give exactly one of problem_id or problem")
        return self


class BatchRequest(_Strict):
    items: list[JudgeRequest] = Field(min_length=1, max_length=MAX_BATCH_ITEMS)


class TestLine(BaseModel):
    index: int
    verdict: str
    time_s: float
    message: Optional[str] = None
    output: Any = None


class ResultLine(BaseModel):
    """One results-file line (the same as ``judge run`` writes; extra fields pass through)."""

    model_config = ConfigDict(extra="allow")
    problem_id: str
    model: Optional[str] = None
    prompt_id: Optional[str] = None
    sample: Optional[int] = None
    verdict: str
    passed: int
    total: int
    tests: list[TestLine]
    sandbox: str
    time_s: float
    message: Optional[str] = None
    note: Optional[str] = None


class BatchResponse(BaseModel):
    results: list[ResultLine]


class ErrorBody(BaseModel):
    status: int
    message: str
    field: Optional[str] = Field(default=None, description=
                                 "where in the request the problem is, e.g. items[2].solution")
    errors: Optional[list[dict[str, Any]]] = Field(default=None, description=
                                                   "every validation error, when several")
    result: Optional[dict[str, Any]] = Field(default=None, description=
                                             "the sandbox_error line, for a 503 on a judge")


class ErrorResponse(BaseModel):
    error: ErrorBody


class ProblemSummary(BaseModel):
    problem_id: str
    kind: str = "function"
    function_name: Optional[str] = None
    tests: int
    prompts: list[str]
    tags: Optional[list[str]] = None
    source: str


class ProblemsResponse(BaseModel):
    problems: list[ProblemSummary]


class HealthResponse(BaseModel):
    status: str = Field(description="ok, unavailable (sandbox cannot run) or shutting_down")
    sandbox: Optional[str] = None
    engine: Optional[str] = None
    image: Optional[str] = None
    sandbox_detail: Optional[dict[str, Any]] = None
    reason: Optional[str] = None
    problems_loaded: int
    jobs: int
    queue_capacity: int
    queue_depth: int
    in_flight: int
    judged: int
    slots: int = Field(0, description="candidates dispatched at once at most (the sandbox's "
                                      "slots: more than jobs, a sleeping one lends its core)")
    running: int = Field(0, description="candidates dispatched now")
    peak_running: int = Field(0, description="most candidates dispatched at once so far")
    lent: int = Field(0, description="jobs the sandbox admitted beyond its cores so far, on a "
                                     "core a blocked job lent")
