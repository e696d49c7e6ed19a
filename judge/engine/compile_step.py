"""The one compile step: the build a job carries (a function's harness in a compiled language,
or a whole program), the compile cache, and what the judge reads back from the compile.

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
from judge.engine.program_verdicts import ACCEPT
from judge.sandbox.base import Job, JobReport, Limits, TestInput
from judge.sandbox.streams import InputStream


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
    """Read a function job's compile record (:func:`finish_compile`)."""
    return finish_compile(get(native.job.language), native.build, native.key, report, cache)


def finish_compile(lang: Any, build: Build, key: str, report: JobReport,
                   cache: CompileCache | None) -> JobReport:
    """Read the compile record of any job: keep the products, turn a compiler's output into
    the first error with its line in the candidate's code."""
    info = report.compile_info or {}
    if cache is not None:
        cache.record(info)
        artifact = info.get("artifact")
        if report.compiled and isinstance(artifact, str):
            cache.put(key, artifact)
    info.pop("artifact", None)
    if not report.compiled and info and report.infra_error is None:
        if info.get("status") in ("timeout", "memory", "value_too_large") or info.get("signal"):
            what = {"timeout": "compilation exceeded its time limit",
                    "memory": "compilation exceeded its memory limit"}.get(
                        str(info.get("status")), "the compiler was stopped (%s)"
                        % (info.get("signal") or info.get("status")))
            report.compile_error, report.compile_line = what, None
        else:
            report.compile_error, report.compile_line = lang.compile_error(
                str(info.get("output") or info.get("error") or ""), build)
    return report


# ---- program jobs (every kind that runs a whole program) --------------------------------------

def wire_build(lang: Any, sources: dict[str, str], memory_mb: int, cache: CompileCache | None,
               sandbox: str) -> tuple[dict[str, Any], Build, str]:
    """The build a program job carries (compile once; the cached products when known)."""
    build = lang.program_build(sources, memory_mb)
    key = code_digest("program", lang.name, _toolchain(lang), sandbox,
                      json.dumps(build.files, sort_keys=True), json.dumps(build.compile),
                      json.dumps(build.run), json.dumps(build.env, sort_keys=True))
    wire = build.to_wire()
    if lang.program_in_worker:
        wire["in_worker"] = build.candidate_file
    wire.update(program=True, compile_memory_bytes=max(2048, memory_mb) << 20,
                compile_cpu_s=COMPILE_CPU_S, compile_wall_s=COMPILE_WALL_S)
    artifact = cache.get(key) if cache is not None else None
    if artifact is not None:
        wire.update(artifact=artifact, files={}, compile=[])
    return wire, build, key


def sandbox_job(job_id: str, lang: Any, sources: dict[str, str], specs: list[dict[str, Any]],
                limits: Limits, time_s: float, cache: CompileCache | None, sandbox: str,
                stop: bool = False, budget_s: float | None = None, confidential: bool = False,
                series: bool = False, streams: list[InputStream] | None = None
                ) -> tuple[Job, Build, str]:
    """A program job. ``confidential``: it carries expected answers (an output validator's
    job), so its worker is replaced afterwards: no later candidate forked from that worker
    can find them in its memory. ``streams``: what the specs' ``stdin_stream`` and
    ``file_streams`` name (sent after the job's line)."""
    wire, build, key = wire_build(lang, sources, limits.memory_mb, cache, sandbox)
    if confidential:  # an output validator's job: 42 accepts (a stop is at anything else)
        wire.update(confidential=True, accept_exit=ACCEPT)
    if series:  # the tests one after another in one child (judge.kinds.program.series)
        wire["series"] = True
    tests = [TestInput(spec, time_s, limits.wall_limit(time_s) + lang.startup_s)
             for spec in specs]
    job = Job(id=job_id, code="", function="", tests=tests, limits=limits,
              stop_on_failure=stop, budget_s=budget_s, language=lang.name, build=wire,
              streams=tuple(streams or ()))
    return job, build, key


__all__ = ["COMPILE_CPU_S", "COMPILE_WALL_S", "CacheStats", "CompileCache", "NativeJob",
           "finish", "finish_compile", "prepare", "sandbox_job", "wire_build"]
