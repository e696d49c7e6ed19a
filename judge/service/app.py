"""The HTTP service: FastAPI routes over :class:`judge.Judge`.

One warm sandbox pool (opened by one ``Judge``) serves every request. Requests are admitted
into a bounded queue (``jobs`` judging + ``queue`` waiting, counted in candidates); past it the
answer is 429 with ``Retry-After``. Errors are JSON ``{"error": {"status", "message",
"field"}}`` and never carry a traceback. What a client sends reaches the judge's process only
as data: inline problems may not carry ``checker`` code or ``check`` expressions (those are
evaluated outside the sandbox, so only the server's own suites may use them).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from judge.api import Judge
from judge.errors import InputError, InputFault, json_location
from judge.running.batch import problem_fingerprint
from judge.engine.verdicts import Verdict
from judge.languages.base import NotExpressible
from judge.kinds.base import kind_of
from judge.kinds.loader import kind_named_in
from judge.problem.model import Problem
from judge.sandbox import admission
from judge.sandbox.base import Limits, SandboxUnavailable
from judge.service import fusion_routes
from judge.service import limits as service_limits
from judge.service.middleware import BodyLimit, client_key, error_body
from judge.service.scheduler import FairScheduler, QueueFull, likely_blocks
from judge.service.models import (
    BatchRequest,
    BatchResponse,
    ErrorResponse,
    HealthResponse,
    JudgeRequest,
    ProblemsResponse,
    ProblemSummary,
    RequestLimits,
    ResultLine,
)

log = logging.getLogger("judge.service")

#: how many per-limits / per-inline-problem Judges are kept (each is a small wrapper over
#: the one shared sandbox; the bound keeps memory flat whatever clients send)
JUDGE_CACHE = 64
#: how long to wait between attempts to open an unavailable sandbox
REOPEN_AFTER_S = 10.0
#: graceful shutdown: how long in-flight requests may take to finish
DRAIN_TIMEOUT_S = 120.0
_ERRORS = {400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 413: ErrorResponse,
           429: ErrorResponse, 503: ErrorResponse}
_RESPONSES: dict[int | str, dict[str, Any]] = {code: {"model": model} for code, model in
                                               _ERRORS.items()}


class ApiError(InputFault):
    """An error answered as JSON with its status (and the request field it is about)."""

    code = "api_error"

    def __init__(self, status: int, message: str, field: str | None = None,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.field = status, message, field
        self.headers = headers or {}
        self.extra = extra


def _location(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = list(loc)
    if parts and parts[0] == "body":
        parts = parts[1:]
    return json_location(parts) or "body"


@dataclass
class ServiceConfig:
    """What ``judge serve`` was started with."""

    problems: dict[str, Problem] = field(default_factory=dict)
    sandbox: str = "auto"
    jobs: int = 1
    queue: int = 64
    max_body_mb: float = 8.0
    limits: Limits = field(default_factory=Limits)
    token: str | None = None
    test_isolation: str = "per-test"
    reference_timing: bool = True
    allow_unisolated: bool = False
    #: candidates one client may have admitted at once (None: the whole capacity)
    client_cap: int | None = None
    #: the SandboxFusion routes' own ceilings: wall seconds of ``run_timeout`` and MB of
    #: ``memory_limit_MB`` (None: 10 s and 1,024 MB, what trainers send; judge.service.fusion)
    fusion_run_timeout_s: float | None = None
    fusion_memory_mb: int | None = None
    notice: Callable[[str], None] = field(default=lambda message: log.warning("%s", message))


class JudgeService:
    """The state behind the routes: the main Judge (owning the sandbox), a bounded cache of
    Judges sharing that sandbox for other limits and inline problems, and the admission
    counters."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.capacity = config.jobs + config.queue
        self._main: Judge | None = None
        self._reason: str | None = None
        self._last_attempt = 0.0
        self._open_lock = threading.Lock()
        self._judges: OrderedDict[tuple[str, str], Judge] = OrderedDict()
        self._judges_lock = threading.Lock()
        # as many in flight as the sandbox takes (its slots: a candidate that sleeps lends
        # its core, judge.sandbox.admission), ``jobs`` of them computing at once
        slots = max(config.jobs, admission.OVERCOMMIT * config.jobs)
        self._pool = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="serve")
        self.scheduler = FairScheduler(self._pool, slots, self.capacity, config.client_cap,
                                       cores=config.jobs, lendable=self.lendable)
        self.judged = 0
        self.shutting_down = False
        self._idle = asyncio.Event()
        self._idle.set()
        self._accepts_language = "language" in inspect.signature(Judge.judge).parameters

    # ---- sandbox -------------------------------------------------------------------------

    def open(self) -> None:
        """Open the sandbox (once; again after ``REOPEN_AFTER_S`` when it was unavailable).
        Raises ApiError(503) while it cannot be opened."""
        if self._main is not None:
            return
        with self._open_lock:
            if self._main is not None:
                return
            if self.shutting_down:
                raise ApiError(503, "the server is shutting down", headers={"Retry-After": "5"})
            now = time.monotonic()
            if self._reason is not None and now - self._last_attempt < REOPEN_AFTER_S:
                raise self._unavailable()
            self._last_attempt = now
            judge = Judge(self.config.sandbox, self.config.jobs, limits=self.config.limits,
                          test_isolation=self.config.test_isolation,
                          reference_timing=self.config.reference_timing,
                          allow_unisolated=self.config.allow_unisolated,
                          notice=self.config.notice)
            try:
                judge.open()
            except SandboxUnavailable as exc:
                judge.close()
                self._reason = str(exc)
                raise self._unavailable() from None
            self._main, self._reason = judge, None
            # a sandbox that lends no core (one without overcommit) takes only its own jobs
            capacity = judge.sandbox.capacity
            if isinstance(capacity, int) and 0 < capacity < self.scheduler.workers:
                self.scheduler.workers = capacity
                self.scheduler.blocking_cap = max(1, capacity - self.config.jobs) \
                    if capacity > self.config.jobs else capacity

    def _unavailable(self) -> ApiError:
        return ApiError(503, "sandbox unavailable: %s" % self._reason,
                        headers={"Retry-After": str(int(REOPEN_AFTER_S))})

    def _gates(self) -> list[Any]:
        """The sandbox's admissions (a Docker run's: its Python pool's and native pool's)."""
        box = getattr(self._main, "sandbox", None) if self._main is not None else None
        pools = box.pools() if box is not None else []
        return [p.admission for p in pools if p.admission is not None]

    def lendable(self) -> bool:
        """Would the sandbox start one more job now (a core free or lent by a job that
        sleeps)? The scheduler dispatches beyond ``jobs`` only then."""
        gates = self._gates()
        return bool(gates) and all(g.admissible(0) for g in gates if g.running)

    def lent(self) -> int:
        """Jobs the sandbox admitted on a core a blocked job lent, so far (0 when unknown)."""
        total = 0
        for gate in self._gates():
            value = getattr(gate, "lent", 0)
            total += value if isinstance(value, int) else 0
        return total

    def describe(self) -> dict[str, Any]:
        if self._main is None:
            return {}
        try:
            return self._main.describe()
        except Exception as exc:  # noqa: BLE001 - health must answer
            return {"error": str(exc)}

    def judge_for(self, problem: Problem, inline: bool, limits: Limits) -> Judge:
        """The Judge to use: the main one for a loaded problem with the server's limits;
        otherwise one sharing its sandbox, keyed by the limits (and, for an inline problem,
        by its content, so an inline problem never shares reference timings or checker
        caches with a loaded one of the same identifier)."""
        self.open()
        assert self._main is not None
        if not inline and limits == self.config.limits:
            return self._main
        key = (problem_fingerprint(problem) if inline else "", limits.fingerprint())
        with self._judges_lock:
            judge = self._judges.get(key)
            if judge is not None:
                self._judges.move_to_end(key)
                return judge
            # an inline problem's reference is the client's code: never timed (it would
            # set the time limit), see judge.service.limits
            judge = Judge(self._main.sandbox, self.config.jobs, limits=limits,
                          test_isolation=self.config.test_isolation,
                          reference_timing=self.config.reference_timing and not inline)
            self._judges[key] = judge
            while len(self._judges) > JUDGE_CACHE:
                _, old = self._judges.popitem(last=False)
                old.close()  # a Judge on a shared sandbox: closes nothing but itself
            return judge

    # ---- admission -----------------------------------------------------------------------

    def admit(self, count: int, client: str = "") -> None:
        """Admit ``count`` candidates of ``client`` (see judge.service.scheduler): 400 for
        a batch larger than the capacity, 429 + Retry-After when the queue (or the client's
        share of it) is full, 503 while shutting down."""
        if self.shutting_down:
            raise ApiError(503, "the server is shutting down", headers={"Retry-After": "5"})
        if count > self.capacity:
            raise ApiError(400, "at most %d items per batch on this server (jobs + queue)"
                           % self.capacity, "items")
        try:
            self.scheduler.admit(client, count)
        except QueueFull as exc:
            raise ApiError(429, str(exc), None,
                           headers={"Retry-After": str(exc.retry_after)}) from None
        self._idle.clear()

    def release(self, count: int, client: str = "") -> None:
        self.scheduler.release(client, count)
        if self.scheduler.admitted == 0:
            self._idle.set()

    @property
    def admitted(self) -> int:
        return self.scheduler.admitted

    @property
    def queue_depth(self) -> int:
        return self.scheduler.waiting

    # ---- judging -------------------------------------------------------------------------

    def resolve(self, request: JudgeRequest, where: str = "") -> tuple[Problem, bool, Limits]:
        """The problem, whether it is inline, and the limits of one request (ApiError on a
        bad one, naming the field)."""
        prefix = where + "." if where else ""
        language = request.language
        if language is not None and not self._accepts_language:
            from judge.languages import DEFAULT, is_default

            if not is_default(language):
                raise ApiError(400, "language %r is not supported by this server (supported: "
                               "%s)" % (language, DEFAULT), prefix + "language")
        if language is not None and self._accepts_language:
            from judge.languages import normalize

            try:
                normalize(language)
            except ValueError as exc:
                raise ApiError(400, str(exc), prefix + "language") from None
        if request.problem_id is not None:
            problem = self.config.problems.get(request.problem_id)
            if problem is None:
                raise ApiError(404, "unknown problem_id %r (GET /v1/problems lists them)"
                               % request.problem_id, prefix + "problem_id")
            inline = False
        else:
            problem = self._inline(request.problem or {}, prefix + "problem")
            inline = True
        if request.prompt_id is not None and getattr(problem, "prompt", lambda _: None)(
                request.prompt_id) is None:
            raise ApiError(400, "unknown prompt_id %r for %s" % (request.prompt_id,
                                                                problem.identifier),
                           prefix + "prompt_id")
        if not kind_of(problem).judgeable(problem):
            raise ApiError(400, "no tests: problem %s has no correctness_test_suite, so a candidate "
                           "cannot be judged" % problem.identifier,
                           prefix + ("problem.correctness_test_suite" if inline else "problem_id"))
        problem, limits = self._limits(request.limits, problem, inline, prefix + "limits")
        return problem, inline, limits

    def _inline(self, data: dict[str, Any], where: str) -> Problem:
        """A problem sent in the request: data only, as its kind allows (judge.kinds)."""
        return self._validated(lambda: kind_named_in(data, "<request>").inline(data), where)

    @staticmethod
    def _validated(load: Callable[[], Any], where: str) -> Any:
        try:
            return load()
        except InputError as exc:
            first = exc.issues[0]
            errors = [{"field": "%s.%s" % (where, i.location) if i.location else where,
                       "message": i.message} for i in exc.issues]
            raise ApiError(400, "invalid problem: %s" % first.message,
                           errors[0]["field"], errors=errors) from None

    def _limits(self, requested: RequestLimits | None, problem: Problem, inline: bool,
                where: str) -> tuple[Problem, Limits]:
        """The request's limits, tightened only (see :mod:`judge.service.limits`)."""
        try:
            problem, limits, _ = service_limits.effective(
                self.config.limits, requested.model_dump(exclude_none=True) if requested
                else None, problem, inline)
        except service_limits.LoosenedLimit as exc:
            raise ApiError(400, str(exc), "%s.%s" % (where, exc.name)) from None
        return problem, limits

    def _judge_blocking(self, problem: Problem, inline: bool, limits: Limits,
                        request: JudgeRequest) -> dict[str, Any]:
        judge = self.judge_for(problem, inline, limits)
        extra: dict[str, Any] = {}
        if self._accepts_language and request.language is not None:
            extra["language"] = request.language
        try:
            result = judge.judge(problem, request.solution, model=request.model,
                                 prompt_id=request.prompt_id, sample=request.sample, **extra)
        except NotExpressible as exc:  # a property of the problem in that language
            raise ApiError(400, "the problem cannot be judged in %s: %s"
                           % (request.language, exc), "language") from None
        self.judged += 1
        return result.to_dict()

    async def judge_items(self, items: list[tuple[Problem, bool, Limits, JudgeRequest]],
                          client: str = "") -> list[dict[str, Any]]:
        """Judge already-resolved items, ``jobs`` at a time (round robin between clients),
        results in input order; a client that went away cancels what has not started."""
        return await self.scheduler.run_all(client, [
            (self._judge_blocking, item, likely_blocks(item[3].solution, item[3].language))
            for item in items])

    async def drain(self, timeout: float = DRAIN_TIMEOUT_S) -> None:
        self.shutting_down = True
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except asyncio.TimeoutError:
            log.warning("shutdown: %d candidates still in flight after %.0fs",
                        self.admitted, timeout)

    def close(self) -> None:
        """Finish what runs, then close every Judge and the sandbox (no worker or container
        survives)."""
        self.shutting_down = True
        self._pool.shutdown(wait=True, cancel_futures=True)
        with self._judges_lock:
            judges, self._judges = list(self._judges.values()), OrderedDict()
        for judge in judges:
            judge.close()
        with self._open_lock:
            main, self._main = self._main, None
        if main is not None:
            main.close()


def create_app(config: ServiceConfig) -> FastAPI:
    """The ASGI application. The sandbox opens at startup (in a thread) and closes at
    shutdown after in-flight requests finished."""
    service = JudgeService(config)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, service.open)
        except ApiError as exc:  # unavailable: health says so, judging answers 503
            config.notice(exc.message)
        try:
            yield
        finally:
            await service.drain()
            await loop.run_in_executor(None, service.close)
            config.notice("judge serve: stopped; sandbox closed (%d candidates judged)"
                          % service.judged)

    app = FastAPI(title="judge", version=_version(), lifespan=lifespan,
                  description="A sandboxed judge for LLM-generated code, over HTTP. Every "
                  "answer to a judge request is a results-file line, as `judge run` writes.")
    app.state.service = service

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error_body(exc.status, exc.message, exc.field, **exc.extra),
                            status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        if fusion_routes.is_fusion(request.url.path):  # SandboxFusion's own error shape
            return fusion_routes.invalid(exc)
        errors = []
        for error in exc.errors():
            where = _location(error.get("loc", ()))
            message = str(error.get("msg", "invalid"))
            if error.get("type") == "json_invalid":
                loc = error.get("loc", ())
                message = "malformed JSON: %s%s" % (
                    error.get("ctx", {}).get("error") or message,
                    " (at character %d)" % loc[1] if len(loc) > 1 and isinstance(loc[1], int)
                    else "")
                where = "body"
            errors.append({"field": where, "message": message})
        first = errors[0] if errors else {"field": "body", "message": "invalid request"}
        return JSONResponse(error_body(400, first["message"], first["field"], errors=errors),
                            status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = exc.detail if isinstance(exc.detail, str) else "HTTP %d" % exc.status_code
        return JSONResponse(error_body(exc.status_code, message), status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("internal error on %s %s: %s: %s", request.method, request.url.path,
                  type(exc).__name__, exc)
        return JSONResponse(error_body(500, "internal error (%s); the server log has more"
                                       % type(exc).__name__), status_code=500)

    @app.get("/v1/health", response_model=HealthResponse, responses=_RESPONSES)
    async def health() -> HealthResponse:
        """The sandbox in force (kind, engine, image), problems loaded and the queue."""
        detail = service.describe()
        status = "shutting_down" if service.shutting_down else (
            "ok" if detail else "unavailable")
        return HealthResponse(status=status, sandbox=detail.get("kind"),
                              engine=detail.get("engine"), image=detail.get("image"),
                              sandbox_detail=detail or None, reason=service._reason,
                              problems_loaded=len(config.problems), jobs=config.jobs,
                              queue_capacity=service.capacity,
                              queue_depth=service.queue_depth, in_flight=service.admitted,
                              judged=service.judged, slots=service.scheduler.workers,
                              running=service.scheduler.running,
                              peak_running=service.scheduler.peak, lent=service.lent())

    @app.get("/v1/problems", response_model=ProblemsResponse, responses=_RESPONSES)
    async def problems() -> ProblemsResponse:
        """The problems of the suites the server loaded (judge them by ``problem_id``)."""
        return ProblemsResponse(problems=[
            _summary(p) for p in config.problems.values()])

    @app.post("/v1/judge", response_model=ResultLine, response_model_exclude_unset=True,
              responses=_RESPONSES)
    async def judge_one(body: JudgeRequest, request: Request) -> Any:
        """Judge one candidate; the answer is its results-file line. A ``sandbox_error``
        (our infrastructure failed, after a retry) is a 503 carrying that line, so a client
        retries instead of scoring it."""
        item = service.resolve(body)
        client = client_key(request)
        service.admit(1, client)
        try:
            line = (await service.judge_items([(*item, body)], client))[0]
        finally:
            service.release(1, client)
        if line.get("verdict") == Verdict.SANDBOX_ERROR.value:
            raise ApiError(503, "the sandbox failed on this candidate (not the candidate's "
                           "fault); retry", headers={"Retry-After": "1"}, result=line)
        return JSONResponse(line)

    @app.post("/v1/judge/batch", response_model=BatchResponse, responses=_RESPONSES)
    async def judge_batch(body: BatchRequest, request: Request) -> Any:
        """Judge several candidates; results in the order of ``items``. A ``sandbox_error``
        line here means: retry that item."""
        items = [(*service.resolve(item, "items[%d]" % index), item)
                 for index, item in enumerate(body.items)]
        client = client_key(request)
        service.admit(len(items), client)
        try:
            lines = await service.judge_items(items, client)
        finally:
            service.release(len(items), client)
        return JSONResponse({"results": lines})

    fusion_routes.mount(app, service, _RESPONSES)

    return BodyLimit(app, int(config.max_body_mb * 1024 * 1024), config.token)  # type: ignore[return-value]


def public_source(source: str) -> str:
    """Where a problem came from, without the server's own paths: its suite folder and file
    name (``basics/digital_root.json``), never the absolute path."""
    if source.startswith("<"):
        return source
    parts = [part for part in source.replace("\\", "/").split("/") if part]
    return "/".join(parts[-2:])


def _summary(problem: Any) -> ProblemSummary:
    """A loaded problem as ``GET /v1/problems`` lists it (what its kind shows)."""
    kind = kind_of(problem)
    facts = kind.summary(problem)
    return ProblemSummary(problem_id=problem.identifier, kind=kind.name,
                          function_name=facts.get("function"), tests=facts["tests"],
                          prompts=facts.get("prompts", []), tags=problem.tags,
                          source=public_source(facts["source"]))


def _version() -> str:
    """The installed package's version (the package metadata: no import of the package root,
    which re-exports the layers above)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("judge")
    except PackageNotFoundError:
        return "unknown"
