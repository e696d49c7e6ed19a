"""A client of ``judge serve`` with the in-process API's shape: swap one for the other.

    from judge.client import JudgeClient
    with JudgeClient("http://127.0.0.1:8080", token=token) as j:   # or judge.Judge(...)
        r = j.judge("basics_digital_root", code)                  # a CandidateResult
        for r in j.judge_many([(problem, code, {"sample": i}) for i, code in ...]):
            print(r.verdict, r.passed, r.total)

:meth:`JudgeClient.judge` and :meth:`JudgeClient.judge_many` take what
:meth:`judge.Judge.judge` and :meth:`judge.Judge.judge_many` take (a problem given by
identifier is one of the server's suites; a ``Problem`` or program problem object is sent
inline, as data) and give the same :class:`~judge.engine.verdicts.CandidateResult`
objects. :class:`AsyncJudgeClient` is the same for asyncio.

Retries: a 429 (queue full) or 503 (sandbox unavailable, shutting down, a sandbox failure
on one candidate) is waited out as the server's ``Retry-After`` says (capped at
``max_wait_s``, plus a little random jitter so clients do not come back in step), at most
``retries`` times; a connection failure is retried with exponential backoff. Then
:class:`~judge.errors.ServiceUnavailable` (a ``ConnectionError``): infrastructure, never a
score. A 4xx is the caller's mistake: :class:`~judge.errors.ServiceError` at once.
"""

from __future__ import annotations

import asyncio
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable, Iterator

import httpx

from judge.errors import ServiceError, ServiceUnavailable
from judge.engine.verdicts import CandidateResult
from judge.jsonl import json_text

_LINE_FIELDS = ("problem_id", "model", "prompt_id", "sample", "verdict", "passed", "total",
                "tests", "sandbox", "time_s", "message")
_META = ("model", "prompt_id", "sample", "language")
#: statuses worth another try (the server says when)
RETRY_STATUSES = (429, 502, 503, 504)


def result_from_line(line: dict[str, Any]) -> CandidateResult:
    """A results-file line (what the service answers) as the in-process result object."""
    return CandidateResult.from_line(line)


def request_body(problem: Any, solution: str, meta: dict[str, Any] | None = None,
                 dumped: dict[int, Any] | None = None) -> dict[str, Any]:
    """One candidate as the service takes it: a problem identifier, or the problem inline
    (``dumped`` caches the JSON of problem objects seen before, by identity)."""
    body: dict[str, Any] = {"solution": solution}
    if isinstance(problem, str):
        body["problem_id"] = problem
    elif hasattr(problem, "model_dump"):
        data = dumped.get(id(problem)) if dumped is not None else None
        if data is None:
            data = problem.model_dump(mode="json", exclude_none=True)
            if dumped is not None:
                dumped[id(problem)] = data
        body["problem"] = data
    else:
        raise TypeError("a problem is an identifier or a Problem, got %s"
                        % type(problem).__name__)
    for key in _META:
        if meta and meta.get(key) is not None:
            body[key] = meta[key]
    return body


def _content(body: Any) -> dict[str, Any]:
    """A request body as UTF-8 JSON. A lone surrogate (valid in a Python string and in JSON,
    not in UTF-8: a candidate's code or a dataset's text may hold one) is sent as its JSON
    escape, as the server reads it back; httpx's own encoding would raise
    UnicodeEncodeError on the caller's side."""
    if body is None:
        return {}
    return {"content": json_text(body).encode("utf-8"),
            "headers": {"Content-Type": "application/json"}}


def _items(items: Iterable[Any]) -> list[dict[str, Any]]:
    bodies = []
    items = list(items)  # keeps every problem alive while its id() is a cache key
    dumped: dict[int, Any] = {}
    for index, item in enumerate(items):
        if not isinstance(item, tuple) or len(item) not in (2, 3):
            raise TypeError("judge_many item %d: expected (problem, code) or "
                            "(problem, code, metadata)" % index)
        meta = dict(item[2]) if len(item) == 3 else {}
        bodies.append(request_body(item[0], item[1], meta, dumped))
    return bodies


def _error(response: httpx.Response) -> tuple[str, str | None, Any]:
    try:
        body = response.json()
    except ValueError:
        return response.text[:500] or response.reason_phrase, None, None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message")), error.get("field"), body
    detail = body.get("detail") if isinstance(body, dict) else body
    return str(detail)[:500], None, body


class _Policy:
    """When and how long to wait before another try."""

    def __init__(self, retries: int, max_wait_s: float, backoff_s: float) -> None:
        self.retries, self.max_wait_s, self.backoff_s = retries, max_wait_s, backoff_s

    def wait(self, attempt: int, response: httpx.Response | None) -> float:
        if response is not None:
            try:
                seconds = float(response.headers.get("Retry-After", "1"))
            except ValueError:
                seconds = 1.0
        else:
            seconds = self.backoff_s * (2 ** attempt)
        seconds = min(max(seconds, 0.0), self.max_wait_s)
        return seconds + random.uniform(0, min(1.0, 0.25 * seconds + 0.1))

    def give_up(self, url: str, attempts: int, response: httpx.Response | None,
                exc: Exception | None) -> ServiceUnavailable:
        if response is not None:
            message, _, _ = _error(response)
            return ServiceUnavailable("%s answered %d after %d attempts: %s" % (
                url, response.status_code, attempts, message), response.status_code)
        return ServiceUnavailable("cannot reach the judge service at %s after %d attempts: "
                                  "%s: %s" % (url, attempts, type(exc).__name__, exc))


def _sandbox_error_line(response: httpx.Response | None) -> dict[str, Any] | None:
    """The results line of /v1/judge's 503 for a candidate that ended in sandbox_error
    (after the server's own retry); None for any other answer."""
    if response is None or response.status_code != 503:
        return None
    _, _, body = _error(response)
    error = body.get("error") if isinstance(body, dict) else None
    result = error.get("result") if isinstance(error, dict) else None
    return result if isinstance(result, dict) else None


def _accept(response: httpx.Response) -> Any:
    """The JSON of a final answer, or ServiceError for a 4xx."""
    if response.status_code >= 400:
        message, field, body = _error(response)
        raise ServiceError(response.status_code, message, field, body)
    return response.json()


class _Base:
    def __init__(self, url: str, *, token: str | None = None, timeout: float = 600.0,
                 retries: int = 8, max_wait_s: float = 30.0, backoff_s: float = 0.5,
                 client_id: str | None = None, batch_size: int = 64,
                 concurrency: int = 4) -> None:
        self.url = url.rstrip("/")
        self.headers = {"Accept": "application/json"}
        if token:
            self.headers["Authorization"] = "Bearer " + token
        if client_id:
            self.headers["X-Judge-Client"] = client_id
        self.timeout = timeout
        self.policy = _Policy(retries, max_wait_s, backoff_s)
        self.batch_size = batch_size
        self.concurrency = max(1, concurrency)
        #: how many times a request was tried again (429/503/connection)
        self.retried = 0
        self._capacity: int | None = None

    def _chunk(self, capacity: int | None) -> int:
        if not capacity:
            return self.batch_size
        return max(1, min(self.batch_size, capacity // self.concurrency or 1))


class JudgeClient(_Base):
    """A blocking client of ``judge serve`` (see the module doc). Thread-safe."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self._http = httpx.Client(base_url=self.url, headers=self.headers,
                                  timeout=self.timeout)

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        response: httpx.Response | None = None
        error: Exception | None = None
        for attempt in range(self.policy.retries + 1):
            try:
                response = self._http.request(method, path, **_content(body))
                error = None
            except httpx.TransportError as exc:  # refused, reset, timed out
                response, error = None, exc
            if response is not None and response.status_code not in RETRY_STATUSES:
                return _accept(response)
            line = _sandbox_error_line(response) if attempt == self.policy.retries else None
            if line is not None:
                return line  # still sandbox_error after the retries: that result, as Judge
            if attempt < self.policy.retries:
                self.retried += 1
                time.sleep(self.policy.wait(attempt, response))
        raise self.policy.give_up(self.url, self.policy.retries + 1, response, error)

    # ---- the service's calls ---------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        return self._call("GET", "/v1/health")

    def problems(self) -> list[dict[str, Any]]:
        return self._call("GET", "/v1/problems")["problems"]

    def judge(self, problem: Any, solution: str, *, model: str | None = None,
              prompt_id: str | None = None, sample: int | None = None,
              language: str | None = None) -> CandidateResult:
        """:meth:`judge.Judge.judge` through the service."""
        body = request_body(problem, solution, dict(model=model, prompt_id=prompt_id,
                                                    sample=sample, language=language))
        return result_from_line(self._call("POST", "/v1/judge", body))

    def judge_many(self, items: Iterable[Any], *, progress: Any = False,
                   total: int | None = None) -> Iterator[CandidateResult]:
        """:meth:`judge.Judge.judge_many` through the service: batches of at most the
        server's capacity, ``concurrency`` at once, results in input order."""
        bodies = _items(items)
        if not bodies:
            return iter(())
        if self._capacity is None:
            self._capacity = int(self.health().get("queue_capacity") or 0) or None
        size = self._chunk(self._capacity)
        batches = [bodies[i:i + size] for i in range(0, len(bodies), size)]
        pool = ThreadPoolExecutor(max_workers=min(self.concurrency, len(batches)),
                                  thread_name_prefix="judge-client")

        def send(batch: list[dict[str, Any]]) -> list[CandidateResult]:
            lines = self._call("POST", "/v1/judge/batch", {"items": batch})["results"]
            return [result_from_line(line) for line in lines]

        futures = [pool.submit(send, batch) for batch in batches]

        def results() -> Iterator[CandidateResult]:
            try:
                for future in futures:
                    yield from future.result()
            finally:
                for future in futures:
                    future.cancel()
                pool.shutdown(wait=False)

        return results()

    async def ajudge(self, problem: Any, solution: str, **meta: Any) -> CandidateResult:
        return await asyncio.to_thread(self.judge, problem, solution, **meta)

    async def ajudge_many(self, items: Iterable[Any]) -> list[CandidateResult]:
        return await asyncio.to_thread(lambda: list(self.judge_many(items)))

    def run_code(self, code: str, language: str = "python", stdin: str | None = None,
                 **fields: Any) -> dict[str, Any]:
        """SandboxFusion's ``run_code`` (``run_timeout``, ``memory_limit_MB``,
        ``compile_timeout``, ``files``): its response as a dict."""
        return self._call("POST", "/run_code", {"code": code, "language": language,
                                                "stdin": stdin, **fields})

    def evaluate_many(self, submissions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``/v1/evaluate/batch``: SandboxFusion submit bodies -> their EvalResults."""
        return self._call("POST", "/v1/evaluate/batch", {"items": submissions})["results"]

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "JudgeClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncJudgeClient(_Base):
    """:class:`JudgeClient` for asyncio (``await client.judge(...)``); one per event loop."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self._http = httpx.AsyncClient(base_url=self.url, headers=self.headers,
                                       timeout=self.timeout)

    async def _call(self, method: str, path: str, body: Any = None) -> Any:
        response: httpx.Response | None = None
        error: Exception | None = None
        for attempt in range(self.policy.retries + 1):
            try:
                response = await self._http.request(method, path, **_content(body))
                error = None
            except httpx.TransportError as exc:
                response, error = None, exc
            if response is not None and response.status_code not in RETRY_STATUSES:
                return _accept(response)
            line = _sandbox_error_line(response) if attempt == self.policy.retries else None
            if line is not None:
                return line  # still sandbox_error after the retries: that result, as Judge
            if attempt < self.policy.retries:
                self.retried += 1
                await asyncio.sleep(self.policy.wait(attempt, response))
        raise self.policy.give_up(self.url, self.policy.retries + 1, response, error)

    async def health(self) -> dict[str, Any]:
        return await self._call("GET", "/v1/health")

    async def problems(self) -> list[dict[str, Any]]:
        return (await self._call("GET", "/v1/problems"))["problems"]

    async def judge(self, problem: Any, solution: str, *, model: str | None = None,
                    prompt_id: str | None = None, sample: int | None = None,
                    language: str | None = None) -> CandidateResult:
        body = request_body(problem, solution, dict(model=model, prompt_id=prompt_id,
                                                    sample=sample, language=language))
        return result_from_line(await self._call("POST", "/v1/judge", body))

    async def judge_many(self, items: Iterable[Any]) -> list[CandidateResult]:
        bodies = _items(items)
        if not bodies:
            return []
        if self._capacity is None:
            self._capacity = int((await self.health()).get("queue_capacity") or 0) or None
        size = self._chunk(self._capacity)
        gate = asyncio.Semaphore(self.concurrency)

        async def send(batch: list[dict[str, Any]]) -> list[CandidateResult]:
            async with gate:
                lines = (await self._call("POST", "/v1/judge/batch", {"items": batch}))
            return [result_from_line(line) for line in lines["results"]]

        parts = await asyncio.gather(*(send(bodies[i:i + size])
                                       for i in range(0, len(bodies), size)))
        return [result for part in parts for result in part]

    ajudge = judge
    ajudge_many = judge_many

    async def run_code(self, code: str, language: str = "python", stdin: str | None = None,
                       **fields: Any) -> dict[str, Any]:
        return await self._call("POST", "/run_code", {"code": code, "language": language,
                                                      "stdin": stdin, **fields})

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncJudgeClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
