"""Model calls for proof grading: prompts, the call cache, re-asking, the trace and counters.

* Prompts are jinja2 templates beside this module (``templates/*.j2``); each defines a
  ``system`` and a ``user`` block.  Untrusted text (solutions, reference posts) goes through
  the ``fence`` filter: it is wrapped in tags, and any tag-like text inside it that could
  close the fence early is neutralised.
* Every call is cached on disk under ``sha256`` of the canonical JSON of
  ``{base_url, request body}`` (the body holds the model, messages with the rendered prompt,
  temperature, seed and the JSON Schema), so a change of server, model, template wording or
  input is a different key.  The raw reply is cached *before* it is validated: a replay
  re-asks exactly as the live run did and reaches the same result.  ``offline`` turns a miss
  into a :class:`StepError` saying so.
* A reply that does not validate is re-asked with the validation error (``max_reasks``
  times), then the step fails with a :class:`StepError` naming the step and the reason.
* Every call (hit or miss) is one JSON Lines record in the trace, and counted per step.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import jinja2
from pydantic import BaseModel

from judge.errors import InfrastructureFault
from judge.grading.client import ChatClient, LLMConfig, LLMError, LLMUnavailableError, cache_key
from judge.grading.proofs.schemas import ReplyInvalid, json_schema_format, parse_reply

TEMPLATE_DIR = Path(__file__).parent / "templates"


class StepError(InfrastructureFault, RuntimeError):
    """A step could not produce a valid output; ``kind`` groups the reasons in the summary."""

    code = "grading_step_failed"

    def __init__(self, step: str, kind: str, message: str) -> None:
        self.step, self.kind = step, kind
        super().__init__(f"{step}: {message}")


def _fence(text: str, tag: str, label: Any = None) -> str:
    inner = re.sub(r"<(/?)\s*(" + re.escape(tag) + r")", lambda m: "&lt;" + m.group(1) + m.group(2), str(text),
                   flags=re.I)
    attr = f' id="{label}"' if label is not None else ""
    return f"<{tag}{attr}>\n{inner}\n</{tag}>"


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)), undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False, autoescape=False)
    env.filters["fence"] = _fence
    return env


_ENV = _env()


@functools.lru_cache(maxsize=None)
def template_version(name: str) -> str:
    """First 12 hex digits of sha256 over the template and the shared macros."""
    h = hashlib.sha256()
    for part in (name, "_common.j2"):
        h.update((TEMPLATE_DIR / part).read_bytes())
    return h.hexdigest()[:12]


def render(name: str, **ctx: Any) -> list[dict[str, str]]:
    """The chat messages of template ``name`` (its ``system`` and ``user`` blocks)."""
    tmpl = _ENV.get_template(name)
    context = tmpl.new_context(ctx)
    out = []
    for role in ("system", "user"):
        text = "".join(tmpl.blocks[role](context)).strip()
        text = re.sub(r"\n{3,}", "\n\n", text)
        out.append({"role": role, "content": text})
    return out


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _dumps_text(record: Any) -> str:
    """A cache or trace record as text a UTF-8 file can hold: a lone surrogate from a
    solution's text or id is written as a JSON escape (it reads back as the same string)."""
    text = json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(record, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    return text


@dataclass
class StepStats:
    calls: int = 0          # requests sent to the server (after a cache miss)
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    reasks: int = 0
    errors: int = 0
    latency_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "cache_hits": self.cache_hits, "tokens_in": self.tokens_in,
                "tokens_out": self.tokens_out, "reasks": self.reasks, "errors": self.errors,
                "latency_s": round(self.latency_s, 3)}


@dataclass
class EngineSettings:
    """How to ask: the client config, the cache folder, replay mode and output limits."""

    llm: LLMConfig
    cache_dir: Path | None = None
    offline: bool = False
    max_reasks: int = 2
    temperature: float = 0.0
    max_tokens: int | None = None
    response_format: bool = True   # send each step's JSON Schema as response_format
    trace_path: Path | None = None


class Engine:
    """Runs one step call: cache lookup, request, validation, re-ask; thread-safe."""

    def __init__(self, settings: EngineSettings, client: ChatClient | None = None) -> None:
        """``client``: a chat client to share (with an equivalence judge, say), so one bound
        on requests in flight holds for both; by default one of the engine's own. The engine
        caches per step itself and never uses the client's cache."""
        self.settings = settings
        self._own_client = client is None
        self.client = client if client is not None else ChatClient(replace(settings.llm, cache_dir=None))
        self.stats: dict[str, StepStats] = {}
        self._lock = threading.Lock()
        self._trace_fh = None
        if settings.trace_path is not None:
            settings.trace_path.parent.mkdir(parents=True, exist_ok=True)
            self._trace_fh = settings.trace_path.open("a", encoding="utf-8")

    def close(self) -> None:
        if self._own_client:
            self.client.close()
        if self._trace_fh is not None:
            self._trace_fh.close()
            self._trace_fh = None

    # ------------------------------------------------------------------ cache

    def _key(self, body: dict[str, Any]) -> str:
        return cache_key(self.client.config.base_url, body)  # the endpoint the body goes to

    def _path(self, step: str, key: str) -> Path | None:
        d = self.settings.cache_dir
        return None if d is None else d / "calls" / step / key[:2] / f"{key}.json"

    def _get(self, step: str, key: str) -> dict[str, Any] | None:
        path = self._path(step, key)
        if path is None or not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        return data if isinstance(data, dict) and isinstance(data.get("reply"), str) else None

    def _put(self, step: str, key: str, record: dict[str, Any]) -> None:
        path = self._path(step, key)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(_dumps_text(record))
            os.replace(tmp, path)
        except OSError as exc:
            raise StepError(step, "cache_write", f"cannot write the cache at {path.parent}: "
                                                 f"{exc.strerror or exc}") from None

    # ------------------------------------------------------------------ trace

    def _trace(self, record: dict[str, Any]) -> None:
        with self._lock:
            st = self.stats.setdefault(record["step"], StepStats())
            if record["cache_hit"]:
                st.cache_hits += 1
            elif record.get("sent", True):
                st.calls += 1
            if not record["cache_hit"]:  # tokens spent now; a hit's recorded tokens stay in the trace
                st.tokens_in += record.get("tokens_in") or 0
                st.tokens_out += record.get("tokens_out") or 0
            st.latency_s += record.get("latency_s") or 0.0
            if record.get("attempt", 0) > 0:
                st.reasks += 1
            if record["outcome"] == "error":
                st.errors += 1
            if self._trace_fh is not None:
                self._trace_fh.write(_dumps_text(record) + "\n")
                self._trace_fh.flush()

    def total(self) -> StepStats:
        t = StepStats()
        with self._lock:
            for st in self.stats.values():
                for f in ("calls", "cache_hits", "tokens_in", "tokens_out", "reasks", "errors", "latency_s"):
                    setattr(t, f, getattr(t, f) + getattr(st, f))
        return t

    # ------------------------------------------------------------------ one call

    def _call(self, step: str, messages: list[dict[str, str]], fmt: dict[str, Any] | None, seed: int | None,
              where: dict[str, Any], attempt: int, template: str = "",
              temperature: float | None = None) -> tuple[str, str]:
        s = self.settings
        temp = s.temperature if temperature is None else temperature
        body: dict[str, Any] = {"model": s.llm.model, "messages": messages, "temperature": temp}
        if fmt is not None:
            body["response_format"] = fmt
        if seed is not None:
            body["seed"] = seed
        if s.max_tokens is not None:
            body["max_tokens"] = s.max_tokens
        key = self._key(body)
        prompt_hash = hashlib.sha256(_canonical(messages).encode("utf-8", "surrogatepass")).hexdigest()[:16]
        rec = {"time": round(time.time(), 3), "step": step, **where, "attempt": attempt, "key": key,
               "prompt_hash": prompt_hash, "model": s.llm.model, "template": template,
               "template_version": template_version(template) if template else None}
        hit = self._get(step, key)
        if hit is not None:
            usage = hit.get("usage") or {}
            self._trace({**rec, "cache_hit": True, "outcome": "reply", "tokens_in": usage.get("prompt_tokens"),
                         "tokens_out": usage.get("completion_tokens"), "latency_s": 0.0})
            return hit["reply"], key
        if s.offline:
            self._trace({**rec, "cache_hit": False, "sent": False, "outcome": "error", "error": "cache miss"})
            raise StepError(step, "cache_miss", f"--offline and no cached reply for this request (key {key[:16]})")
        start = time.monotonic()
        try:
            text, usage = self.client.post(body)  # the body the key was made from, sent as it is
        except LLMError as exc:
            kind = "unavailable" if isinstance(exc, LLMUnavailableError) else "bad_response"
            hint = (" (if the server rejects response_format, use --no-response-format)"
                    if fmt is not None and "HTTP 400" in str(exc) else "")
            self._trace({**rec, "cache_hit": False, "outcome": "error", "error": str(exc)[:500],
                         "latency_s": round(time.monotonic() - start, 3)})
            raise StepError(step, kind, str(exc) + hint) from None
        usage = usage or {}
        latency = time.monotonic() - start
        stored = dict(body)  # the schema is long and repeated: keep its hash (it is in the key anyway)
        if fmt is not None:
            stored["response_format"] = "sha256:" + hashlib.sha256(_canonical(fmt).encode("utf-8", "surrogatepass")).hexdigest()[:16]
        self._trace({**rec, "cache_hit": False, "outcome": "reply", "tokens_in": usage.get("prompt_tokens"),
                     "tokens_out": usage.get("completion_tokens"), "latency_s": round(latency, 3)})
        self._put(step, key, {"base_url": self.client.config.base_url, "request": stored, "reply": text,
                              "usage": usage})
        return text, key

    def ask(self, step: str, template: str, schema: type[BaseModel], *, where: dict[str, Any],
            check: Callable[[Any], None] | None = None, seed: int | None = None,
            temperature: float | None = None, **ctx: Any) -> Any:
        """Render ``template``, ask, validate against ``schema`` (and ``check``), re-ask on
        failure. ``temperature`` overrides the settings' for this step (the grading step's
        sampling temperature; every other step asks at the settings' one)."""
        messages = render(template, **ctx)
        fmt = json_schema_format(schema, step.replace("-", "_")) if self.settings.response_format else None
        last = ""
        keys: list[str] = []
        for attempt in range(1 + max(0, self.settings.max_reasks)):
            text, key = self._call(step, messages, fmt, seed, where, attempt, template, temperature)
            keys.append(key)
            try:
                obj = parse_reply(text, schema)
                if check is not None:
                    check(obj)
                return obj
            except ReplyInvalid as exc:
                last = str(exc)
                reask = _ENV.get_template("reask.j2").render(error=last, hint=None).strip()
                messages = messages + [{"role": "assistant", "content": text}, {"role": "user", "content": reask}]
        with self._lock:
            self.stats.setdefault(step, StepStats()).errors += 1
        if not self.settings.offline:  # a chain that ended in failure is not kept: the next run asks again
            for key in keys:
                path = self._path(step, key)
                if path is not None:
                    path.unlink(missing_ok=True)
        raise StepError(step, "invalid_reply",
                        f"no valid reply after {1 + max(0, self.settings.max_reasks)} attempt(s); last problem: {last}")
