"""The SandboxFusion-compatible routes of ``judge serve`` (see :mod:`judge.service.fusion`).

Errors on these paths have SandboxFusion's (FastAPI's) shape, so its clients read them:
422 ``{"detail": [...]}`` for a malformed body or an unknown language, 400
``{"detail": "..."}`` for test cases that cannot be judged. Queue and sandbox conditions
are the service's: 429 / 503 with ``Retry-After``. Every route is admitted and dispatched
by the service's fair scheduler like ``/v1/judge``.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from judge.errors import UnknownName
from judge.jsonl import json_text
from judge.service.middleware import client_key
from judge.service.scheduler import likely_blocks
from judge.service.fusion import (DEFAULT_MEMORY_MB, DEFAULT_RUN_TIMEOUT_S, Ceilings,
                                  FusionRunner, evaluation, language_of)
from judge.service.fusion_models import (EvalResult, EvaluateBatchRequest,
                                         EvaluateBatchResponse, RunCodeRequest, RunCodeResponse,
                                         SubmitRequest)

PATHS = ("/run_code", "/submit", "/common_evaluate_batch", "/v1/evaluate/batch")


def is_fusion(path: str) -> bool:
    return path in PATHS


class Answer(JSONResponse):
    """A JSON answer that can always be written: a lone surrogate (from a candidate's code
    or output, which JSON and Python strings allow and UTF-8 does not) is sent as its JSON
    escape instead of failing the answer with a 500."""

    def render(self, content: Any) -> bytes:
        return json_text(content, allow_nan=False, separators=(",", ":")).encode("utf-8")


def _shown(value: Any) -> Any:
    """An error's ``input`` as JSON can carry it: a non-finite number as text, a long
    string cut (the whole code of a request is not echoed back)."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, str) and len(value) > 200:
        return value[:200] + "..."
    if isinstance(value, (dict, list)):
        text = json_text(value, default=str)
        return value if len(text) <= 200 else text[:200] + "..."
    return value


def invalid(exc: RequestValidationError) -> JSONResponse:
    """A malformed body, as SandboxFusion (FastAPI) answers it: 422 with each error's
    location, message and (shortened) input."""
    errors = []
    for error in exc.errors():
        error = dict(error)
        if "input" in error:
            error["input"] = _shown(error["input"])
        context = {k: str(v) for k, v in dict(error.pop("ctx", None) or {}).items()
                   if k != "error"}  # (a ValueError's text is the message already)
        if context:
            error["ctx"] = context
        error.pop("url", None)
        errors.append(error)
    return Answer({"detail": jsonable_encoder(errors)}, status_code=422)


def _unknown_language(name: str, where: tuple[str, ...], message: str) -> JSONResponse:
    return Answer({"detail": [{"type": "literal_error", "loc": ["body", *where],
                               "msg": message, "input": _shown(name)}]}, status_code=422)


def _bad(message: str) -> JSONResponse:
    return Answer({"detail": message}, status_code=400)


class _Runners:
    """One FusionRunner over the service's Judge (the public API; its sandbox opened on
    first use)."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self._runner: FusionRunner | None = None
        self._lock = threading.Lock()

    def get(self) -> FusionRunner:
        self.service.open()  # ApiError 503 while the sandbox cannot be opened
        with self._lock:
            if self._runner is None:
                self._runner = FusionRunner(self.service._main,
                                            ceilings(self.service.config))
            return self._runner

    def run_code(self, body: RunCodeRequest) -> dict[str, Any]:
        return self.get().run_code(body).model_dump(mode="json")

    def evaluate(self, body: SubmitRequest) -> dict[str, Any]:
        return self.get().evaluate(body).model_dump(mode="json")


def ceilings(config: Any) -> Ceilings:
    """The routes' own ceilings (``judge serve --fusion-run-timeout / --fusion-memory-mb``;
    10 s and 1,024 MB by default, what trainers send), not the judge's API limits."""
    return Ceilings(float(getattr(config, "fusion_run_timeout_s", None) or DEFAULT_RUN_TIMEOUT_S),
                    int(getattr(config, "fusion_memory_mb", None) or DEFAULT_MEMORY_MB))


def _blocks(language: str | None, code: str) -> bool:
    """The language's guess that the program sleeps or waits (it then lends its core, as
    on the judge's own routes; only an order, never a verdict)."""
    try:
        name = language_of(language or "python")
    except UnknownName:
        return False
    return name is not None and likely_blocks(code, name)


def _precheck(body: SubmitRequest, where: tuple[str, ...] = ()) -> JSONResponse | None:
    """A submission the judge cannot evaluate (an unknown language, test cases of no known
    shape, input that is no text, an unknown checker), answered before it is admitted:
    400 naming the field."""
    name = body.config.language or "python"
    try:
        language_of(name)
    except UnknownName as exc:
        return _unknown_language(name, (*where, "config", "language"), str(exc))
    try:
        evaluation(body.config)
    except ValueError as exc:
        return _bad("%s%s" % ("".join("%s." % w for w in where), exc))
    return None


def mount(app: FastAPI, service: Any, responses: dict[Any, Any]) -> None:
    """Add the SandboxFusion-compatible routes to the service's app."""

    runners = _Runners(service)

    async def _run(request: Request, count: int, calls: list[Any]) -> list[Any]:
        client = client_key(request)
        service.admit(count, client)
        try:
            return await service.scheduler.run_all(client, calls)
        finally:
            service.release(count, client)

    @app.post("/run_code", response_model=RunCodeResponse, tags=["sandboxfusion"],
              responses=responses)
    async def run_code(body: RunCodeRequest, request: Request) -> Any:
        """SandboxFusion's ``run_code``: one program with its standard input, in the judge's
        sandbox. ``status`` is Success (return code 0), Failed (non-zero, compile error, time
        limit) or SandboxError (the judge's failure: retry)."""
        try:
            language_of(body.language)
        except UnknownName as exc:
            return _unknown_language(body.language, ("language",), str(exc))
        result = (await _run(request, 1, [(runners.run_code, (body,),
                                           _blocks(body.language, body.code))]))[0]
        return Answer(result)

    async def _evaluate(body: SubmitRequest, request: Request) -> Any:
        refused = _precheck(body)
        if refused is not None:
            return refused
        result = (await _run(request, 1, [(runners.evaluate, (body,), _blocks(
            body.config.language, body.completion))]))[0]
        return Answer(result)

    @app.post("/submit", response_model=EvalResult, tags=["sandboxfusion"],
              responses=responses)
    async def submit(body: SubmitRequest, request: Request) -> Any:
        """SandboxFusion's ``submit`` for a completion whose tests come with it
        (``config.provided_data``; no dataset is registered here): compiled once, run per
        test in one sandbox job, outputs checked on the judge's side."""
        return await _evaluate(body, request)

    @app.post("/common_evaluate_batch", response_model=EvalResult, tags=["sandboxfusion"],
              responses=responses)
    async def common_evaluate_batch(body: SubmitRequest, request: Request) -> Any:
        """ScaleBox's ``common_evaluate_batch``: one completion against a batch of
        ``stdin_stdout`` or ``function_call`` (Python) test cases."""
        return await _evaluate(body, request)

    @app.post("/v1/evaluate/batch", response_model=EvaluateBatchResponse,
              tags=["sandboxfusion"], responses=responses)
    async def evaluate_batch(body: EvaluateBatchRequest, request: Request) -> Any:
        """Many candidates, each a ``/submit`` body with its own tests, in one request;
        results in the order of ``items``. Admitted whole (429 when the queue has no room
        for all of them) and dispatched fairly with other clients' work."""
        for index, item in enumerate(body.items):
            refused = _precheck(item, ("items", str(index)))
            if refused is not None:
                return refused
        results = await _run(request, len(body.items),
                             [(runners.evaluate, (item,), _blocks(item.config.language,
                                                                  item.completion))
                              for item in body.items])
        return Answer({"results": results})
