"""SandboxFusion's request and response bodies, as its server and its ``sandbox-fusion`` client
define them (field names and enum values kept exactly, ``memory_limit_MB`` included), plus
ScaleBox's ``common_evaluate_batch`` body and the judge's many-candidate batch.

Unlike the judge's own API these models are lenient about unknown fields (SandboxFusion's
are: its clients send fields of newer versions), but never about types.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
from enum import Enum
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: at most this many candidates in one /v1/evaluate/batch, and test cases in one evaluation
MAX_CANDIDATES = 512
MAX_CASES = 1000
MAX_CODE_CHARS = 1_000_000
#: a ``files`` path: at most this many characters and this many folders deep (a work
#: directory holds a program's data files, not trees thousands of levels deep)
MAX_FILE_PATH_CHARS = 1024
MAX_FILE_DEPTH = 32
MAX_FILES = 1000


def input_bytes(text: str, where: str) -> bytes:
    """A program's input text (``stdin``, a test case's input or expected output) as bytes:
    UTF-8, and bytes that are not (a client that read them with ``surrogateescape``) from
    their escapes U+DC80-U+DCFF. Any other lone surrogate is no text and no byte:
    ValueError naming ``where`` and the character (the client's mistake, answered 4xx)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise ValueError("%s holds a lone surrogate (U+%04X at character %d), which is "
                         "neither UTF-8 text nor a byte escaped by surrogateescape "
                         "(U+DC80-U+DCFF)" % (where, ord(text[exc.start]), exc.start)) from None


def check_base64(name: str, data: str) -> None:
    """A ``files`` content: base64 (ValueError naming the file)."""
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        shown = name if len(name) <= 80 else name[:80] + "..."
        raise ValueError("files: %r is not base64" % shown) from None


def check_code(text: str, where: str) -> str:
    """The candidate's code: any text (a lone surrogate included: it is the candidate's,
    judged as the bytes it writes), at most MAX_CODE_CHARS characters."""
    if len(text) > MAX_CODE_CHARS:
        raise ValueError("%s has %d characters, at most %d" % (where, len(text), MAX_CODE_CHARS))
    return text


def check_file_path(name: str) -> str:
    """A ``files`` path as the worker writes it: relative, inside the work directory, at
    most MAX_FILE_PATH_CHARS characters and MAX_FILE_DEPTH levels, encodable as a file
    name. Returns it normalized; ValueError naming the path and what is wrong."""
    shown = name if len(name) <= 80 else name[:80] + "..."
    if not name or "\x00" in name:
        raise ValueError("files: %r is not a file name" % shown)
    if len(name) > MAX_FILE_PATH_CHARS:
        raise ValueError("files: %r has %d characters, at most %d"
                         % (shown, len(name), MAX_FILE_PATH_CHARS))
    clean = posixpath.normpath(name)
    parts = clean.split("/")
    if name.startswith("/") or parts[0] == ".." or clean == ".":
        raise ValueError("files: %r is not a relative path inside the work directory" % shown)
    if len(parts) > MAX_FILE_DEPTH:
        raise ValueError("files: %r is %d levels deep, at most %d"
                         % (shown, len(parts), MAX_FILE_DEPTH))
    try:
        clean.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("files: %r holds a lone surrogate (U+%04X), not a file name"
                         % (shown, ord(name[exc.start]))) from None
    return clean


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
    compile_timeout: float = Field(10, allow_inf_nan=False, description=
                                   "the compiler's wall-clock seconds (less time waiting "
                                   "for a CPU), at most the judge's compile limit")
    run_timeout: float = Field(10, allow_inf_nan=False, description=
                               "the run's wall-clock seconds from its start (less time "
                               "waiting for a CPU); at most the server's "
                               "--fusion-run-timeout")
    memory_limit_MB: int = Field(-1, description="resident memory in MB; -1 or 0: the "
                                 "server's --fusion-memory-mb, which is also the most")
    #: (its length is checked by a validator: a length constraint would refuse a lone
    #: surrogate, which is the candidate's text)
    code: str = Field(..., description="the program to run (at most 1,000,000 characters)")
    stdin: Optional[str] = Field(None, description="its standard input")
    language: str = Field(..., max_length=40, description="python, cpp, c, java, nodejs "
                          "(javascript), go, rust")
    files: dict[str, Optional[str]] = Field({}, description="path -> base64 content, "
                                            "written into the program's work directory")
    fetch_files: list[str] = Field([], description="files (relative to the program's work "
                                   "directory) whose content comes back in the response's "
                                   "files (base64), when the run left them; a path outside "
                                   "the work directory is never read")

    @field_validator("code")
    @classmethod
    def _code(cls, value: str) -> str:
        return check_code(value, "code")

    @field_validator("stdin")
    @classmethod
    def _stdin(cls, value: Optional[str]) -> Optional[str]:
        if value is not None:
            input_bytes(value, "stdin")
        return value

    @field_validator("fetch_files")
    @classmethod
    def _fetch_files(cls, value: list[str]) -> list[str]:
        if len(value) > MAX_FILES:
            raise ValueError("at most %d files" % MAX_FILES)
        for name in value:
            if len(name) > 4096:
                raise ValueError("fetch_files: a path of %d characters" % len(name))
        return value

    @field_validator("files")
    @classmethod
    def _files(cls, value: dict[str, Optional[str]]) -> dict[str, Optional[str]]:
        if len(value) > MAX_FILES:
            raise ValueError("at most %d files" % MAX_FILES)
        for name, data in value.items():
            check_file_path(name)
            if data is not None:
                check_base64(name, data)
        return value


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
    compile_timeout: Optional[float] = Field(None, allow_inf_nan=False)
    run_timeout: Optional[float] = Field(None, allow_inf_nan=False)
    memory_limit_MB: Optional[int] = None
    custom_extract_logic: Optional[str] = None
    provided_data: Optional[Union[list[dict[str, Any]], dict[str, Any]]] = None
    extra: dict[str, Any] = {}


class SubmitRequest(_Open):
    dataset: str = ""
    id: Union[int, str] = 0
    completion: str = Field(..., description="the completion (at most 1,000,000 characters)")
    config: TestConfig

    @field_validator("completion")
    @classmethod
    def _completion(cls, value: str) -> str:
        return check_code(value, "completion")


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
