"""Equivalence judges: an OpenAI-compatible chat-completions client and an offline fallback.

Why this module exists: fuzzy reference entries and rule checklists need someone to decide
"is this answer equivalent?".  :class:`LLMJudge` asks a language model through any
OpenAI-compatible ``/chat/completions`` endpoint; :class:`OfflineJudge` approximates the
decision with string similarity when no model is available and marks every verdict as
offline so nobody mistakes it for the real thing.

Client behaviour (:class:`ChatClient`), chosen so that scores are reproducible:

* configuration from explicit arguments, else the environment: ``JUDGE_LLM_BASE_URL``
  (default ``https://api.openai.com/v1``), ``JUDGE_LLM_MODEL`` (required),
  ``JUDGE_LLM_API_KEY`` (fallback ``OPENAI_API_KEY``; optional for local servers),
  ``JUDGE_LLM_CACHE`` (default ``~/.cache/judge/llm``);
* stdlib ``urllib.request`` only, a timeout per request, bounded retries with exponential
  backoff (honouring a numeric ``Retry-After``) on HTTP 429, 5xx, timeouts and connection
  errors; other HTTP errors fail at once; giving up raises :class:`LLMUnavailableError`
  naming the URL;
* temperature 0, and every answer cached on disk under ``sha256(canonical request JSON)``
  (the request body with sorted keys - model, messages, temperature; not the URL or key),
  so re-scoring offline gives the same numbers;
* the judge's answer must be exactly ``1`` or ``0`` (surrounding whitespace allowed);
  anything else raises :class:`LLMResponseError` carrying the raw text, and that answer
  is dropped from the cache so a retry can ask again.
"""

from __future__ import annotations

import datetime
import difflib
import email.utils
import hashlib
import http.client
import json
import os
import random
import re
import socket
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.scoring.reference_match import JudgeQuestion, JudgeVerdict, normalize_answer

ENV_BASE_URL = "JUDGE_LLM_BASE_URL"
ENV_MODEL = "JUDGE_LLM_MODEL"
ENV_API_KEY = "JUDGE_LLM_API_KEY"
ENV_API_KEY_FALLBACK = "OPENAI_API_KEY"
ENV_CACHE = "JUDGE_LLM_CACHE"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_RESPONSE_BYTES = 8 * 1024 * 1024


class LLMError(RuntimeError):
    """Base class of LLM client errors."""


class LLMConfigError(LLMError):
    """The client is not configured (no model, bad URL)."""


class LLMUnavailableError(LLMError):
    """The endpoint could not be reached or kept failing after the retries."""


class LLMResponseError(LLMError):
    """The endpoint answered, but not with something usable; the message has the raw text."""


def default_cache_dir() -> Path:
    """``$JUDGE_LLM_CACHE`` or ``~/.cache/judge/llm``."""
    env = os.environ.get(ENV_CACHE)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "judge" / "llm"


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to ask: endpoint, model, key, timeout, retry policy and cache folder.

    ``cache_dir=None`` disables the cache.  ``max_retries`` counts retries after the first
    attempt; the wait before retry ``n`` is ``min(max_backoff_s, backoff_s * 2**n)``.
    """

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 60.0
    max_retries: int = 3
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    cache_dir: Path | None = None
    jitter: float = 0.0  # each backoff wait is multiplied by uniform(1 - jitter, 1)

    @classmethod
    def from_env(cls, *, base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, cache_dir: Path | str | None = None,
                 use_cache: bool = True, **kwargs: Any) -> "LLMConfig":
        """Explicit arguments win over the environment; a missing model is a clear error."""
        url = base_url or os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
        mdl = model or os.environ.get(ENV_MODEL)
        if not mdl:
            raise LLMConfigError(f"no LLM model configured: pass one or set {ENV_MODEL}")
        if not re.match(r"https?://", url):
            raise LLMConfigError(f"LLM base URL must start with http:// or https://, got {url!r}")
        key = api_key or os.environ.get(ENV_API_KEY) or os.environ.get(ENV_API_KEY_FALLBACK) or None
        cache = (Path(cache_dir).expanduser() if cache_dir else default_cache_dir()) if use_cache else None
        return cls(base_url=url, model=mdl, api_key=key, cache_dir=cache, **kwargs)

    @property
    def endpoint(self) -> str:
        """The chat-completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"


@dataclass(frozen=True)
class ChatResult:
    """The assistant's text, whether it came from the cache, and its cache key."""

    text: str
    cached: bool
    key: str
    usage: dict[str, Any] | None = None  # the server's token counts, when it sent them
    latency_s: float = 0.0


def request_key(payload: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a request body (sorted keys, no whitespace)."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


class ChatClient:
    """A minimal OpenAI-compatible chat-completions client with retries and a disk cache."""

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self.requests_sent = 0

    def _cache_path(self, key: str) -> Path | None:
        d = self.config.cache_dir
        return None if d is None else d / key[:2] / f"{key}.json"

    def _cache_get(self, key: str) -> str | None:
        path = self._cache_path(key)
        if path is None or not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # a corrupt entry is refetched and overwritten
        text = data.get("text") if isinstance(data, dict) else None
        return text if isinstance(text, str) else None

    def _cache_put(self, key: str, payload: dict[str, Any], text: str) -> None:
        path = self._cache_path(key)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"request": payload, "text": text}, fh, ensure_ascii=False, sort_keys=True)
        os.replace(tmp, path)

    def forget(self, key: str) -> None:
        """Drop one cached answer (used when the answer turned out unusable)."""
        path = self._cache_path(key)
        if path is not None:
            path.unlink(missing_ok=True)

    def complete(self, messages: list[dict[str, str]], *, response_format: dict[str, Any] | None = None,
                 temperature: float = 0, seed: int | None = None,
                 max_tokens: int | None = None) -> ChatResult:
        """The assistant's reply to ``messages`` (temperature 0 by default), from the cache when possible.

        ``response_format`` (e.g. ``{"type": "json_schema", ...}``), ``seed`` and ``max_tokens``
        are sent only when given, so a plain request (and its cache key) is unchanged."""
        payload: dict[str, Any] = {"model": self.config.model, "messages": messages, "temperature": temperature}
        if response_format is not None:
            payload["response_format"] = response_format
        if seed is not None:
            payload["seed"] = seed
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens
        key = request_key(payload)
        hit = self._cache_get(key)
        if hit is not None:
            return ChatResult(hit, True, key)
        start = time.monotonic()
        text, usage = self._post(payload)
        self._cache_put(key, payload, text)
        return ChatResult(text, False, key, usage, time.monotonic() - start)

    def _post(self, payload: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        cfg, url = self.config, self.config.endpoint
        body = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if cfg.api_key:
            headers["Authorization"] = f"Bearer {cfg.api_key}"
        attempts = 1 + max(0, cfg.max_retries)
        last = "no attempt made"
        for attempt in range(attempts):
            wait = min(cfg.max_backoff_s, cfg.backoff_s * (2 ** attempt))
            if cfg.jitter:
                wait *= random.uniform(1.0 - min(cfg.jitter, 1.0), 1.0)
            try:
                self.requests_sent += 1
                req = urllib.request.Request(url, data=body, headers=headers, method="POST")
                with urllib.request.urlopen(req, timeout=cfg.timeout_s) as resp:
                    raw = resp.read(MAX_RESPONSE_BYTES + 1)
                return _parse_completion(raw, url)
            except urllib.error.HTTPError as exc:
                detail = _read_error_body(exc)
                if exc.code not in _RETRY_STATUS:
                    raise LLMResponseError(f"{url}: HTTP {exc.code}: {detail}") from exc
                last = f"HTTP {exc.code}: {detail}"
                retry_after = exc.headers.get("Retry-After") if exc.headers else None
                delay = _retry_after_s(retry_after)
                if delay is not None:
                    wait = min(cfg.max_backoff_s, delay)
            except (urllib.error.URLError, TimeoutError, socket.timeout, ConnectionError,
                    http.client.HTTPException) as exc:
                reason = getattr(exc, "reason", exc)
                last = f"{type(exc).__name__}: {reason}"
            if attempt + 1 < attempts:
                time.sleep(wait)
        raise LLMUnavailableError(f"LLM endpoint {url} unavailable after {attempts} attempt(s): {last}")


def _retry_after_s(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date."""
    if not value or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


def _read_error_body(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read(2000).decode("utf-8", "replace").strip() or exc.reason or ""
    except Exception:  # noqa: BLE001 - the body is only decoration for the message
        return str(exc.reason or "")


def _parse_completion(raw: bytes, url: str) -> tuple[str, dict[str, Any] | None]:
    if len(raw) > MAX_RESPONSE_BYTES:
        raise LLMResponseError(f"{url}: response larger than {MAX_RESPONSE_BYTES} bytes")
    text = raw.decode("utf-8", "replace")
    try:
        data = json.loads(text)
        message = data["choices"][0]["message"]
        content = message["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise LLMResponseError(f"{url}: not a chat-completions response: {text[:500]!r}") from None
    if not isinstance(content, str):
        if isinstance(message, dict) and message.get("refusal"):
            raise LLMResponseError(f"{url}: the model refused: {str(message['refusal'])[:500]!r}")
        raise LLMResponseError(f"{url}: message content is not text: {text[:500]!r}")
    usage = data.get("usage") if isinstance(data, dict) else None
    return content, usage if isinstance(usage, dict) else None


SYSTEM_PROMPT = ("You are a strict, careful grader. Answer with exactly one character: "
                 "1 for yes or 0 for no. Do not explain.")


def build_messages(q: JudgeQuestion) -> list[dict[str, str]]:
    """The chat messages for one judge question (part of the cache key: keep stable)."""
    ctx = f"Context: {q.context}\n" if q.context else ""
    if q.kind == "rule":
        user = (f"{ctx}Criterion: {q.reference}\n\nExplanation:\n{q.candidate}\n\n"
                "Does the explanation satisfy the criterion? Answer 1 or 0.")
    else:
        user = (f"{ctx}Reference answer: {q.reference}\nCandidate answer: {q.candidate}\n\n"
                "Is the candidate answer equivalent to the reference answer? Answer 1 or 0.")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


_VERDICT = re.compile(r"\s*([01])\s*")


def parse_verdict(text: str) -> bool:
    """``"1"`` -> True, ``"0"`` -> False (whitespace allowed); anything else raises with the raw text."""
    m = _VERDICT.fullmatch(text)
    if not m:
        raise LLMResponseError(f"judge answer is not 1 or 0: {text[:500]!r}")
    return m.group(1) == "1"


class LLMJudge:
    """An :class:`~judge.reference_match.EquivalenceJudge` backed by a chat-completions model."""

    def __init__(self, client: ChatClient) -> None:
        self.client = client

    @classmethod
    def from_env(cls, **kwargs: Any) -> "LLMJudge":
        """Build from explicit settings and/or the ``JUDGE_LLM_*`` environment."""
        return cls(ChatClient(LLMConfig.from_env(**kwargs)))

    @property
    def name(self) -> str:
        """``llm:<model>``."""
        return f"llm:{self.client.config.model}"

    def judge(self, question: JudgeQuestion) -> JudgeVerdict:
        """Ask the model; an unparsable answer is an error (and is not kept in the cache)."""
        result = self.client.complete(build_messages(question))
        try:
            ok = parse_verdict(result.text)
        except LLMResponseError as exc:
            self.client.forget(result.key)
            raise LLMResponseError(f"{self.name}: {exc}") from None
        return JudgeVerdict(ok, self.name, offline=False)


def similarity(a: str, b: str) -> float:
    """difflib ratio of the normalised strings (0 when either is empty)."""
    x, y = normalize_answer(a), normalize_answer(b)
    if not x or not y:
        return 0.0
    return difflib.SequenceMatcher(None, x, y, autojunk=False).ratio()


class OfflineJudge:
    """Offline stand-in: normalised string similarity >= ``threshold`` (default 0.85).

    For ``rule`` questions it takes the best similarity of the rule to any sentence of the
    explanation - a crude approximation, which is why every verdict says ``offline=True``.
    """

    def __init__(self, threshold: float = 0.85) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold

    @property
    def name(self) -> str:
        """``offline-difflib>=<threshold>`` (shown wherever its verdicts appear)."""
        return f"offline-difflib>={self.threshold:g}"

    def judge(self, question: JudgeQuestion) -> JudgeVerdict:
        """Similarity verdict, marked offline."""
        if question.kind == "rule":
            parts = [p for p in re.split(r"(?<=[.!?;\n])\s+", question.candidate) if p.strip()]
            best = max((similarity(question.reference, p) for p in parts), default=0.0)
        else:
            best = similarity(question.reference, question.candidate)
        return JudgeVerdict(best >= self.threshold, self.name, offline=True, detail=f"similarity {best:.3f}")
