"""SandboxFusion's request and response bodies, as its server and its ``sandbox-fusion`` client
define them (field names and enum values kept exactly, ``memory_limit_MB`` included), plus
ScaleBox's ``common_evaluate_batch`` body and the judge's many-candidate batch.

Unlike the judge's own API these models are lenient about unknown fields (SandboxFusion's
are: its clients send fields of newer versions), but never about types.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

#: at most this many candidates in one /v1/evaluate/batch, and test cases in one evaluation
MAX_CANDIDATES = 512
MAX_CASES = 1000
MAX_CODE_CHARS = 1_000_000


class _Open(BaseModel):
    model_config = ConfigDict(extra="ignore")


class CommandRunStatus(str, Enum):
    Finished = "Finished"
    Error = "Error"
    TimeLimitExceeded = "TimeLimitExceeded"


class RunStatus(str, Enum):
    #: every command finished with return code 0
    Success = "Success"
    #: a command had a non-zero return code or exceeded its time limit
    Failed = "Failed"
    #: the sandbox failed (not the code's fault): retry
    SandboxError = "SandboxError"


class CommandRunResult(BaseModel):
    status: CommandRunStatus
    execution_time: Optional[float] = Field(default=None, description="wall-clock seconds")
    cpu_time: Optional[float] = Field(default=None, description="CPU seconds (the judge's "
                                      "measure; the time limit is on it)")
    return_code: Optional[int] = Field(default=None, description=
                                       "exit code; minus the signal number when killed")
    stdout: Optional[str] = None
    stderr: Optional[str] = None


class RunCodeRequest(_Open):
    compile_timeout: float = Field(10, description="compile timeout for compiled languages "
                                   "(tightens the judge's compile limit, never loosens it)")
    run_timeout: float = Field(10, description="run time limit in seconds (CPU time, with "
                               "the judge's wall-clock backstop); at most the server's")
    memory_limit_MB: int = Field(-1, description="memory limit; -1 or 0: the server's; at "
                                 "most the server's")
    code: str = Field(..., max_length=MAX_CODE_CHARS, description="the program to run")
    stdin: Optional[str] = Field(None, description="its standard input")
    language: str = Field(..., max_length=40, description="python, cpp, c, java, nodejs "
                          "(javascript), go, rust")
    files: dict[str, Optional[str]] = Field({}, description="path -> base64 content, "
                                            "written into the program's work directory")
    fetch_files: list[str] = Field([], description="not supported: always answered with "
                                   "no files")


class JudgeFacts(BaseModel):
    """What the judge applied (an extra field: SandboxFusion clients ignore it)."""

    language: Optional[str] = None
    run_timeout: Optional[float] = None
    memory_limit_MB: Optional[int] = None
    compile_timeout: Optional[float] = None
    clamped: list[str] = []
    verdict: Optional[str] = None


class RunCodeResponse(BaseModel):
    status: RunStatus
    message: str
    compile_result: Optional[CommandRunResult] = None
    run_result: Optional[CommandRunResult] = None
    executor_pod_name: Optional[str] = None
    files: dict[str, str] = {}
    judge: Optional[JudgeFacts] = None


# ---- evaluation (SandboxFusion /submit, ScaleBox /common_evaluate_batch) ------------------

class TestConfig(_Open):
    __test__ = False
    dataset_type: Optional[str] = None
    language: Optional[str] = None
    locale: Optional[str] = None
    is_fewshot: Optional[bool] = None
    compile_timeout: Optional[float] = None
    run_timeout: Optional[float] = None
    memory_limit_MB: Optional[int] = None
    custom_extract_logic: Optional[str] = None
    provided_data: Optional[Union[list[dict[str, Any]], dict[str, Any]]] = None
    extra: dict[str, Any] = {}


class SubmitRequest(_Open):
    dataset: str = ""
    id: Union[int, str] = 0
    completion: str = Field(..., max_length=MAX_CODE_CHARS)
    config: TestConfig


class EvalTestCase(BaseModel):
    __test__ = False
    passed: bool
    exec_info: RunCodeResponse
    test_info: Optional[dict[str, Any]] = None


class EvalResult(BaseModel):
    id: Union[int, str]
    accepted: bool
    extracted_code: str
    full_code: Optional[str] = None
    test_code: Optional[str] = None
    tests: list[EvalTestCase]
    extracted_type: Optional[str] = None
    extra: Optional[dict[str, Any]] = None


class EvaluateBatchRequest(BaseModel):
    """Many candidates, each with its own tests, in one request."""

    model_config = ConfigDict(extra="forbid")
    items: list[SubmitRequest] = Field(min_length=1, max_length=MAX_CANDIDATES)


class EvaluateBatchResponse(BaseModel):
    results: list[EvalResult]
