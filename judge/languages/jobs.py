"""Jobs of non-Python languages: the build the worker needs, the compile cache, and what the
judge reads back from the compile step.

Compile once per candidate: the worker compiles in the sandbox under the compile limits and
returns the products (a zip) with its compile record; the judge keeps them in a per-run cache
keyed by the rendered sources, the compile commands, the toolchain and the sandbox, and sends
them with any later job of the same code (the same candidate rerun per test, the same code
sampled twice, a sandbox_error retry), which then skips the compiler.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field, replace
from typing import Any

from judge.languages import get
from judge.languages.base import Build, code_digest
from judge.problem.types import TypeSpec
from judge.sandbox.base import Job, JobReport, TestInput


#: the compile step's own limits (per compile command), apart from the tests' limits
COMPILE_CPU_S = 60.0
COMPILE_WALL_S = 120.0


@dataclass
class CacheStats:
    compiles: int = 0
    hits: int = 0
    compile_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        total = self.compiles + self.hits
        return {"compiles": self.compiles, "hits": self.hits,
                "hit_rate": round(self.hits / total, 4) if total else None,
                "compile_s": round(self.compile_s, 3)}


@dataclass
class CompileCache:
    """Compile products by key, for one run (thread-safe)."""

    max_bytes: int = 512 << 20
    _items: dict[str, str] = field(default_factory=dict)
    _size: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    stats: CacheStats = field(default_factory=CacheStats)

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: str, artifact: str) -> None:
        with self._lock:
            if key in self._items or self._size + len(artifact) > self.max_bytes:
                return
            self._items[key] = artifact
            self._size += len(artifact)

    def record(self, info: dict[str, Any] | None) -> None:
        if not info:
            return
        with self._lock:
            if info.get("cached"):
                self.stats.hits += 1
            else:
                self.stats.compiles += 1
                self.stats.compile_s += float(info.get("compile_s") or 0.0)


_TOOLCHAINS: dict[str, str] = {}


def _toolchain(lang: Any) -> str:
    """A language's toolchain identity, asked once per process (it runs the compiler)."""
    if lang.name not in _TOOLCHAINS:
        _TOOLCHAINS[lang.name] = lang.toolchain
    return _TOOLCHAINS[lang.name]


@dataclass
class NativeJob:
    """A job of another language, with what the judge needs to read its report."""

    job: Job
    build: Build
    key: str


def prepare(job: Job, language: str, params: list[TypeSpec], returns: TypeSpec, cache: CompileCache | None,
            sandbox_identity: str) -> NativeJob:
    """Give ``job`` (built for Python) the language's build, its limits and any cached
    compile products."""
    lang = get(language)
    code = lang.prepare_code(job.code)
    build = lang.build(code, job.function, params, returns, job.limits.memory_mb)
    key = code_digest(lang.name, _toolchain(lang), sandbox_identity,
                      json.dumps(build.files, sort_keys=True), json.dumps(build.compile),
                      json.dumps(build.run), json.dumps(build.env, sort_keys=True))
    wire = build.to_wire()
    wire["compile_memory_bytes"] = max(2048, job.limits.memory_mb) << 20
    wire["compile_cpu_s"] = COMPILE_CPU_S
    wire["compile_wall_s"] = COMPILE_WALL_S
    artifact = cache.get(key) if cache is not None else None
    if artifact is not None:
        wire["artifact"] = artifact
        wire["files"] = {}
        wire["compile"] = []
    tests = [TestInput(t.args, t.time_limit_s + lang.startup_s,
                       t.wall_limit_s + 2 * lang.startup_s) for t in job.tests]
    limits = replace(job.limits, nproc=max(job.limits.nproc, lang.nproc))
    native = replace(job, code=code, tests=tests, limits=limits, language=lang.name, build=wire,
                     batch=False)
    return NativeJob(native, build, key)


def finish(native: NativeJob, report: JobReport, cache: CompileCache | None) -> JobReport:
    """Read the compile record: keep the products, turn a compiler's output into the first
    error with its line in the candidate's code."""
    info = report.compile_info or {}
    if cache is not None:
        cache.record(info)
        artifact = info.get("artifact")
        if report.compiled and isinstance(artifact, str):
            cache.put(native.key, artifact)
    info.pop("artifact", None)
    if not report.compiled and info and report.infra_error is None:
        if info.get("status") in ("timeout", "memory", "value_too_large") or info.get("signal"):
            what = {"timeout": "compilation exceeded its time limit",
                    "memory": "compilation exceeded its memory limit"}.get(
                        str(info.get("status")), "the compiler was stopped (%s)"
                        % (info.get("signal") or info.get("status")))
            report.compile_error, report.compile_line = what, None
        else:
            message, line = get(native.job.language).compile_error(
                str(info.get("output") or info.get("error") or ""), native.build)
            report.compile_error, report.compile_line = message, line
    return report
