"""The one chat-completions client of the judge, on httpx: every model call goes through it.

Why one client: proof grading (:mod:`judge.grading.proofs`) and the answer-equivalence judge
(:mod:`judge.grading.llm`) talk to the same kind of server, and a run that does both must
share one bound on requests in flight, one retry policy and one connection pool. Why httpx:
it gives keep-alive connection pooling across threads, separate connect/read/write/pool
timeouts and streamed bodies we can cap, while the retry policy stays ours and visible (the
``openai`` SDK would hide it, and adds eight packages for what is one POST).

Behaviour, chosen so that scores are reproducible and a flaky server costs time, not results:

* configuration from explicit arguments, else the environment: ``JUDGE_LLM_BASE_URL``
  (default ``https://api.openai.com/v1``), ``JUDGE_LLM_MODEL`` (required),
  ``JUDGE_LLM_API_KEY`` (fallback ``OPENAI_API_KEY``; optional for local servers),
  ``JUDGE_LLM_CACHE`` (default ``~/.cache/judge/llm``);
* **bounded concurrency**: at most ``concurrency`` requests in flight per client, whatever
  the number of threads asking (waiting for a retry does not hold a slot);
* **timeouts**: ``timeout_s`` per connect and per read, and a deadline of ``timeout_s`` for
  the whole attempt checked as the body arrives (a server that trickles bytes is cut there,
  not kept alive by each byte; the worst case is the deadline plus one read timeout);
* **retries** (``max_retries`` after the first attempt) on HTTP 408, 429, 5xx, timeouts,
  refused or reset connections and truncated bodies, with exponential backoff
  ``min(max_backoff_s, backoff_s * 2**n)`` shortened by up to ``jitter`` (a fraction), so
  many clients do not retry in step; a ``Retry-After`` header (seconds or an HTTP date) is
  honoured as the least wait, and one longer than ``max_retry_after_s`` gives up at once
  with the server's figure. Other HTTP errors (400, 401, 404...) fail at once; giving up
  raises :class:`LLMUnavailableError` naming the URL and the last reason;
* a 200 whose body is not a chat completion (HTML from a proxy, malformed or truncated JSON
  without a length, no ``choices``, a refusal) raises :class:`LLMResponseError` with the
  start of the body - not retried: the caller decides (the proof engine re-asks, the
  equivalence judge reports it on the entry); bodies over 8 MiB are refused unread;
* an optional disk cache of answers under :func:`cache_key` - sha256 of the base URL and the
  whole request body (model, messages, every parameter; never the key) - so a re-run is
  free and offline re-scoring gives the same numbers.
"""

from __future__ import annotations

import datetime
import email.utils
import functools
import hashlib
import json
import os
import random
import re
import ssl
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import httpx

from judge.errors import InfrastructureFault, JudgeError
from judge.settings import settings

ENV_BASE_URL = "JUDGE_LLM_BASE_URL"
ENV_MODEL = "JUDGE_LLM_MODEL"
ENV_API_KEY = "JUDGE_LLM_API_KEY"
ENV_API_KEY_FALLBACK = "OPENAI_API_KEY"
ENV_CACHE = "JUDGE_LLM_CACHE"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_RESPONSE_BYTES = 8 * 1024 * 1024
RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})


class LLMError(InfrastructureFault, RuntimeError):
    """Base class of LLM client errors."""

    code = "llm_error"


class LLMConfigError(LLMError):
    """The client is not configured (no model, bad URL, a bad setting)."""

    code = "llm_config"


class LLMUnavailableError(LLMError):
    """The endpoint could not be reached or kept failing after the retries."""

    code = "llm_unavailable"


class LLMResponseError(LLMError):
    """The endpoint answered, but not with something usable; the message has the raw text."""

    code = "llm_response_invalid"


class LLMCacheError(LLMError):
    """The answer cache cannot be written (the answer would not be replayable)."""

    code = "llm_cache"


def default_cache_dir() -> Path:
    """``$JUDGE_LLM_CACHE`` or ``~/.cache/judge/llm``."""
    return settings().llm_cache or Path.home() / ".cache" / "judge" / "llm"


def _positive(value: Any, *, integer: bool = False, zero: bool = False) -> bool:
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
        return False
    return (value >= 0 if zero else value > 0) and value < float("inf")


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to ask: endpoint, model, key, timeouts, retry policy, concurrency,
    model parameters and cache folder (``None`` disables the cache)."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 60.0
    max_retries: int = 3
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    cache_dir: Path | None = None
    jitter: float = 0.25
    max_retry_after_s: float = 120.0
    concurrency: int = 4
    temperature: float = 0.0
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        checks = [
            ("timeout_s", _positive(self.timeout_s), "a finite number of seconds > 0"),
            ("max_retries", _positive(self.max_retries, integer=True, zero=True), "an integer >= 0"),
            ("backoff_s", _positive(self.backoff_s, zero=True), "a finite number >= 0"),
            ("max_backoff_s", _positive(self.max_backoff_s, zero=True), "a finite number >= 0"),
            ("jitter", _positive(self.jitter, zero=True) and self.jitter <= 1, "a fraction 0..1"),
            ("max_retry_after_s", _positive(self.max_retry_after_s, zero=True), "a finite number >= 0"),
            ("concurrency", _positive(self.concurrency, integer=True), "an integer >= 1"),
            ("temperature", _positive(self.temperature, zero=True), "a finite number >= 0"),
            ("max_tokens", self.max_tokens is None or _positive(self.max_tokens, integer=True),
             "an integer >= 1"),
        ]
        for name, ok, wanted in checks:
            if not ok:
                raise LLMConfigError(f"LLM {name} must be {wanted}, got {getattr(self, name)!r}")
        if not (isinstance(self.base_url, str) and re.match(r"https?://[^/\s]", self.base_url)):
            raise LLMConfigError(f"LLM base URL must start with http:// or https://, got {self.base_url!r}")
        if not (isinstance(self.model, str) and self.model.strip()):
            raise LLMConfigError(f"LLM model must be a non-empty name, got {self.model!r}")

    @classmethod
    def from_env(cls, *, base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, cache_dir: Path | str | None = None,
                 use_cache: bool = True, **kwargs: Any) -> "LLMConfig":
        """Explicit arguments win over the environment; a missing model is a clear error."""
        env = settings()
        url = base_url or env.llm_base_url or DEFAULT_BASE_URL
        mdl = model or env.llm_model
        if not mdl:
            raise LLMConfigError(f"no LLM model configured: pass one or set {ENV_MODEL}")
        key = api_key or env.llm_api_key or env.openai_api_key or None
        cache = (Path(cache_dir).expanduser() if cache_dir else default_cache_dir()) if use_cache else None
        return cls(base_url=url, model=mdl, api_key=key, cache_dir=cache, **kwargs)

    @property
    def endpoint(self) -> str:
        """The chat-completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"


@dataclass(frozen=True)
class ChatResult:
    """The assistant's text, whether it came from the cache, its cache key, the server's
    token counts (when sent) and the time the request took (retries included)."""

    text: str
    cached: bool
    key: str
    usage: dict[str, Any] | None = None
    latency_s: float = 0.0


def request_key(payload: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of a request body (sorted keys, no whitespace)."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def cache_key(base_url: str, payload: Mapping[str, Any]) -> str:
    """The cache key of one request: the endpoint's base URL (trailing ``/`` ignored) and
    the whole request body - model, messages and every parameter."""
    return request_key({"base_url": base_url.rstrip("/"), "request": payload})


def _json_bytes(value: Any) -> bytes:
    """UTF-8 JSON; text holding a lone surrogate (from a candidate's output) is written with
    JSON escapes instead, which every server and file accepts."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, sort_keys=True).encode("ascii")


class _Retry(JudgeError):
    """One attempt failed in a way worth retrying; ``after`` is the server's Retry-After."""

    code = "llm_retry"

    def __init__(self, reason: str, after: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.after = reason, after


class ChatClient:
    """An OpenAI-compatible chat-completions client: bounded, retrying, cached; thread-safe.

    ``sleep`` is how the client waits between attempts (tests record the waits with it)."""

    def __init__(self, config: LLMConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(config.concurrency)
        self._lock = threading.Lock()
        self._sent = 0
        self._pool: httpx.Client | None = None

    def _http(self) -> httpx.Client:
        """The connection pool, made on the first request (a run served from the cache
        opens none); one TLS context for the whole process."""
        with self._lock:
            if self._pool is None:
                cfg = self.config
                limits = httpx.Limits(max_connections=cfg.concurrency,
                                      max_keepalive_connections=cfg.concurrency)
                self._pool = httpx.Client(timeout=httpx.Timeout(cfg.timeout_s), limits=limits,
                                          verify=_tls_context(), follow_redirects=False)
            return self._pool

    def close(self) -> None:
        """Close the pooled connections (a later request opens new ones)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def __enter__(self) -> "ChatClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def requests_sent(self) -> int:
        """HTTP requests made so far (retries included; cache hits not)."""
        return self._sent

    # ------------------------------------------------------------------ cache

    def _cache_path(self, key: str) -> Path | None:
        d = self.config.cache_dir
        return None if d is None else d / key[:2] / f"{key}.json"

    def _cache_get(self, key: str) -> str | None:
        path = self._cache_path(key)
        if path is None or not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None  # a corrupt entry is refetched and overwritten
        text = data.get("text") if isinstance(data, dict) else None
        return text if isinstance(text, str) else None

    def _cache_put(self, key: str, payload: dict[str, Any], text: str) -> None:
        path = self._cache_path(key)
        if path is None:
            return
        record = _json_bytes({"base_url": self.config.base_url, "request": payload, "text": text})
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "wb") as fh:
                fh.write(record)
            os.replace(tmp, path)
        except OSError as exc:  # a cache that cannot be written breaks the promise of a replay
            raise LLMCacheError(f"cannot write the LLM cache at {path.parent}: {exc.strerror or exc}") from None

    def forget(self, key: str) -> None:
        """Drop one cached answer (used when the answer turned out unusable)."""
        path = self._cache_path(key)
        if path is not None:
            path.unlink(missing_ok=True)

    # ------------------------------------------------------------------ requests

    def payload(self, messages: list[dict[str, str]], params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The request body: model, messages, the configured parameters, then ``params``
        (entries whose value is None are left out)."""
        body: dict[str, Any] = {"model": self.config.model, "messages": messages,
                                "temperature": self.config.temperature}
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        body.update({k: v for k, v in (params or {}).items() if v is not None})
        return body

    def complete(self, messages: list[dict[str, str]], params: Mapping[str, Any] | None = None, *,
                 response_format: dict[str, Any] | None = None, temperature: float | None = None,
                 seed: int | None = None, max_tokens: int | None = None) -> ChatResult:
        """The assistant's reply to ``messages``, from the cache when possible. Keyword
        parameters override the configuration and are sent only when given."""
        given = {"response_format": response_format, "temperature": temperature, "seed": seed,
                 "max_tokens": max_tokens}
        payload = self.payload(messages, {**(params or {}), **{k: v for k, v in given.items() if v is not None}})
        key = cache_key(self.config.base_url, payload)
        hit = self._cache_get(key)
        if hit is not None:
            return ChatResult(hit, True, key)
        start = time.monotonic()
        text, usage = self.post(payload)
        self._cache_put(key, payload, text)
        return ChatResult(text, False, key, usage, time.monotonic() - start)

    def post(self, payload: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Send one request body (no cache) with the retry policy; (content, usage)."""
        cfg = self.config
        body = _json_bytes(payload)
        attempts = 1 + cfg.max_retries
        last = "no attempt made"
        for attempt in range(attempts):
            try:
                with self._slots:
                    return self._attempt(body)
            except _Retry as exc:
                last = exc.reason
                wait = self._wait(attempt, exc.after)
            if attempt + 1 < attempts:
                self._sleep(wait)
        raise LLMUnavailableError(f"LLM endpoint {cfg.endpoint} unavailable after {attempts} attempt(s): {last}")

    def _wait(self, attempt: int, after: float | None) -> float:
        """Backoff before retry ``attempt + 1``: exponential, shortened by jitter; never
        less than the server's Retry-After, which past the cap ends the retries."""
        cfg = self.config
        wait = min(cfg.max_backoff_s, cfg.backoff_s * (2 ** attempt))
        wait *= random.uniform(1.0 - cfg.jitter, 1.0)
        if after is None:
            return wait
        if after > cfg.max_retry_after_s:
            raise LLMUnavailableError(
                f"LLM endpoint {cfg.endpoint} asks to retry after {after:.0f} s, more than the "
                f"limit of {cfg.max_retry_after_s:g} s")
        return max(wait, after)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        return headers

    def _attempt(self, body: bytes) -> tuple[str, dict[str, Any] | None]:
        url = self.config.endpoint
        deadline = time.monotonic() + self.config.timeout_s  # the whole attempt, headers included
        with self._lock:
            self._sent += 1
        try:
            with self._http().stream("POST", url, content=body, headers=self._headers()) as resp:
                raw = self._read_body(resp, deadline)
        except httpx.TimeoutException as exc:
            raise _Retry(f"timed out after {self.config.timeout_s:g} s ({type(exc).__name__})") from None
        except (httpx.TransportError, httpx.DecodingError) as exc:  # refused, reset, truncated, corrupt
            raise _Retry(f"{type(exc).__name__}: {exc}") from None
        except httpx.InvalidURL as exc:
            raise LLMConfigError(f"bad LLM endpoint {url!r}: {exc}") from None
        except httpx.HTTPError as exc:  # anything else httpx can say: the reply is unusable
            raise LLMResponseError(f"{url}: {type(exc).__name__}: {exc}") from None
        if resp.status_code in RETRY_STATUS:
            raise _Retry(f"HTTP {resp.status_code}: {_snippet(raw)}", retry_after_s(resp.headers.get("Retry-After")))
        if resp.status_code >= 300:
            raise LLMResponseError(f"{url}: HTTP {resp.status_code}: {_snippet(raw)}")
        return parse_completion(raw, url)

    def _read_body(self, resp: httpx.Response, deadline: float) -> bytes:
        """The body, read within the attempt's deadline and the size cap."""
        length = resp.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > MAX_RESPONSE_BYTES:
            raise LLMResponseError(f"{self.config.endpoint}: response of {length} bytes, more than "
                                   f"{MAX_RESPONSE_BYTES}")
        chunks: list[bytes] = []
        size = 0
        for chunk in resp.iter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                raise LLMResponseError(f"{self.config.endpoint}: response larger than {MAX_RESPONSE_BYTES} bytes")
            if time.monotonic() > deadline and not (length.isdigit() and size >= int(length)):
                raise httpx.ReadTimeout("the whole body took longer than the timeout")
        return b"".join(chunks)


@functools.lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    """The system's default TLS context, made once (it costs tens of milliseconds)."""
    return ssl.create_default_context()


def retry_after_s(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date."""
    if not value or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        seconds = None
    if seconds is not None:
        return max(0.0, seconds) if seconds == seconds and seconds < float("inf") else None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


def _snippet(raw: bytes) -> str:
    return raw[:2000].decode("utf-8", "replace").strip()[:500]


def parse_completion(raw: bytes, url: str) -> tuple[str, dict[str, Any] | None]:
    """(message content, usage) of a chat-completions response body; anything else is an
    :class:`LLMResponseError` quoting the start of the body."""
    text = raw.decode("utf-8", "replace")
    try:
        data = json.loads(text)
        message = data["choices"][0]["message"]
        content = message["content"]
    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
        raise LLMResponseError(f"{url}: not a chat-completions response: {text[:500]!r}") from None
    if not isinstance(content, str):
        if isinstance(message, dict) and message.get("refusal"):
            raise LLMResponseError(f"{url}: the model refused: {str(message['refusal'])[:500]!r}")
        raise LLMResponseError(f"{url}: message content is not text: {text[:500]!r}")
    usage = data.get("usage") if isinstance(data, dict) else None
    return content, usage if isinstance(usage, dict) else None
