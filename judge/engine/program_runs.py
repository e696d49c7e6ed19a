"""Run a whole program once per input and say what happened: no expected output, no verdict
of the candidate as a whole, just each run as it ended.

The program is compiled once by the one compile step (:mod:`judge.engine.compile_step`) and
run once per input in one sandbox job, on the engine's sandbox. Time is the run's own: each
run's wall clock from its start (never the time the call queued) to its end, less the time it
waited for a CPU, at most :attr:`RunSpec.wall_s` (the worker's wall limit); its CPU time
(over every thread) at most that plus the runtime's start-up allowance
(``Language.startup_s``). Memory is resident memory, the spec's plus the runtime's headroom
(``Language.memory_headroom_mb``: a JVM's heap is the spec's). A whole program may write what
the program kind allows by default (``DEFAULT_OUTPUT_KB``), or the engine's output limit when
that is higher.

Our failure (the job could not be run) or a run the machine's load starved (stopped by the
wall clock's hard cap while its own time was within the limit) is retried once; what comes
back the second time is reported as it is. Each run is read into a :class:`ProgramRun`
(how it ended, its output, its times, and the judge's verdict of how it ended:
:func:`judge.engine.program_verdicts.run_verdict`); the compile into a
:class:`CompileOutcome`.

``judge.Judge.run_program`` is the public door to this module.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from judge.engine.checkers.validator import DEFAULT_OUTPUT_KB
from judge.engine.compile_step import (COMPILE_CPU_S, COMPILE_WALL_S, finish_compile,
                                       sandbox_job)
from judge.engine.program_verdicts import program_output, run_verdict
from judge.engine.verdicts import Verdict
from judge.languages import BLOCKING
from judge.sandbox import records
from judge.sandbox.base import JobReport, Limits

#: the most compile seconds a spec may ask (the compile step's own CPU limit)
MAX_COMPILE_S = COMPILE_CPU_S
#: runs of one call: the retry of a failed or starved job (one) and the first
_ATTEMPTS = 2


@dataclass(frozen=True)
class RunSpec:
    """How a program is run.

    ``wall_s``: each run's wall-clock limit (less the time it waited for a CPU);
    ``memory_mb``: its resident memory (the runtime's headroom added);
    ``compile_wall_s``: the compiler's wall clock (less its CPU wait; at most the compile
    step's own wall limit; None: that limit), its CPU bounded by the compile step's;
    ``build_flags``: keyword arguments of the language's program build (the flags a naming
    scheme runs it with: ``Language.build_flags_in``); ``compile_step=False``: no compile
    step even when the build has one (a syntax error is then the run's);
    ``stderr_bytes``: how much of each run's standard error is kept (None: the worker's
    default); ``budget``: the runs share the engine's candidate budget (a run after it is
    spent is not run); ``likely_blocked``: the program is likely to sleep or wait, so it may
    start on a core a blocked program lends (None: the language's guess from the code)."""

    wall_s: float
    memory_mb: int
    compile_wall_s: float | None = None
    build_flags: Mapping[str, Any] = field(default_factory=dict)
    compile_step: bool = True
    stderr_bytes: int | None = None
    budget: bool = False
    likely_blocked: bool | None = None
    #: files (relative to the run's work directory) each run's record brings back when the
    #: run left them (SandboxFusion's ``fetch_files``): :attr:`ProgramRun.files`
    fetch: tuple[str, ...] = ()


@dataclass(frozen=True)
class CompileOutcome:
    """How the compile step ended. ``step``: the build has a compile step (False: the
    program runs from its source); ``compiled``: the program is ready to run; ``status``:
    the worker's word for how the compiler ended (``exited``, ``timeout``, ``memory``...;
    None when it did not run, e.g. products from the compile cache); ``timed_out``: it was
    stopped at its time limit; ``seconds``: its time (None: unknown); ``output``: what it
    printed (or why it could not compile)."""

    step: bool
    compiled: bool
    status: str | None = None
    exit_code: int | None = None
    timed_out: bool = False
    seconds: float | None = None
    output: str = ""


@dataclass(frozen=True)
class ProgramRun:
    """How one run ended. ``status``: the worker's word (``exited``, ``signaled``,
    ``timeout``, ``memory``, ``budget_spent``, ``setup_error``...); ``exit_code``: the
    program's exit code when it exited (else None); ``signal``: the signal's name when one
    ended it; ``stdout``: its standard output (bounded by the output limit); ``stderr``:
    the kept head of its standard error; ``wall_s``/``cpu_s``: its times (None: not
    measured); ``waited_s``: time it waited for a CPU; ``starved``: stopped by the wall
    clock's hard cap while its own time was within the limit (the machine's load, not the
    program); ``verdict``/``message``: the judge's verdict of how it ended (None and "" when
    it exited 0: its output decides); ``files``: what it left of :attr:`RunSpec.fetch`
    (name -> bytes; a name it did not leave as a regular file in its work directory is
    absent; ``fetch_refused``: why none came back, e.g. together past the output limit)."""

    status: str
    exit_code: int | None = None
    signal: str | None = None
    stdout: bytes = b""
    stderr: str = ""
    wall_s: float | None = None
    cpu_s: float | None = None
    waited_s: float = 0.0
    starved: bool = False
    verdict: Verdict | None = None
    message: str = ""
    files: Mapping[str, bytes] = field(default_factory=dict)
    fetch_refused: str = ""


@dataclass(frozen=True)
class ProgramRuns:
    """What a call ran: the compile, then per input its run (None: no run was reported
    for it). ``infra_error``: the job could not be run at all (our failure, nothing is the
    program's); ``died_during``: the input whose run was going on when the worker died,
    ``died_reason`` why (later inputs were not run)."""

    compile: CompileOutcome
    runs: list[ProgramRun | None]
    infra_error: str | None = None
    died_during: int | None = None
    died_reason: str | None = None


class _Flagged:
    """A language built with ``flags`` (and, when ``compile_step`` is False, without a
    compile step); everything else the language's. The build's commands are part of the
    compile cache's key, so these builds never share an entry with the plain ones."""

    def __init__(self, lang: Any, flags: Mapping[str, Any], compile_step: bool) -> None:
        self._lang, self._flags, self._compile_step = lang, dict(flags), compile_step

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lang, name)

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Any:
        build = self._lang.program_build(sources, memory_mb, **self._flags)
        if not self._compile_step and build.compile:
            build = replace(build, compile=[])
        return build


def _limits(engine_limits: Limits, lang: Any, spec: RunSpec) -> Limits:
    output_kb = max(engine_limits.output_kb, DEFAULT_OUTPUT_KB)
    return replace(engine_limits, memory_mb=spec.memory_mb + lang.memory_headroom_mb,
                   output_kb=output_kb, value_kb=max(engine_limits.value_kb, output_kb + 64),
                   nproc=max(engine_limits.nproc, lang.nproc),
                   nofile=max(engine_limits.nofile, lang.nofile))


def _starved(record: dict[str, Any] | None) -> bool:
    return bool(record and record.get("status") == records.TIMEOUT and record.get("starved"))


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _compile_outcome(has_step: bool, report: JobReport) -> CompileOutcome:
    info = report.compile_info or {}
    code = info.get("exit_code")
    return CompileOutcome(
        step=has_step, compiled=report.compiled,
        status=str(info["status"]) if info.get("status") is not None else None,
        exit_code=int(code) if code is not None else None,
        timed_out=info.get("status") == records.TIMEOUT, seconds=_float(info.get("compile_s")),
        output="" if report.compiled else str(info.get("output") or info.get("error")
                                              or report.compile_error or ""))


def _run_outcome(record: dict[str, Any], limits: Limits, time_s: float,
                 report: JobReport) -> ProgramRun:
    ended = run_verdict(record, limits, time_s, report)
    status = str(record.get("status"))
    fetched = record.get("fetched") if isinstance(record.get("fetched"), dict) else {}
    refused = "the files together are larger than the output limit" if "" in fetched else ""
    files = {} if refused else {str(name): base64.b64decode(str(data))
                                for name, data in fetched.items()}
    exited = status == records.EXITED and record.get("exit_code") is not None
    return ProgramRun(
        status=status, exit_code=int(record["exit_code"]) if exited else None,
        signal=str(record["signal"]) if record.get("signal") else None,
        stdout=program_output(record), stderr=str(record.get("stderr_head") or ""),
        wall_s=_float(record.get("wall_s")), cpu_s=_float(record.get("cpu_s")),
        waited_s=float(record.get("waited_s") or 0.0), starved=_starved(record),
        verdict=ended[0] if ended else None, message=ended[1] if ended else "",
        files=files, fetch_refused=refused)


def run_program(engine: Any, lang: Any, code: str, inputs: Sequence[bytes],
                files: Mapping[str, str], spec: RunSpec) -> ProgramRuns:
    """Compile ``code`` (a whole program in ``lang``, a :class:`Language`) once and run it
    once per input (bytes of standard input) on ``engine``'s sandbox, each run with
    ``files`` (path -> base64 content) in its work directory."""
    built = _Flagged(lang, spec.build_flags, spec.compile_step)
    limits = _limits(engine.limits, lang, spec)
    time_s = spec.wall_s + lang.startup_s
    specs = [{"stdin": base64.b64encode(data).decode("ascii"), "argv": [], "files": dict(files),
              **({"fetch": list(spec.fetch)} if spec.fetch else {})} for data in inputs]
    budget_s = limits.budget([time_s] * len(inputs)) if spec.budget else None
    sources = {lang.program_file(code): code}
    blocked = spec.likely_blocked if spec.likely_blocked is not None \
        else lang.stall_risk(code) >= BLOCKING
    sandbox, cache = engine.sandbox, engine.compile_cache
    name = getattr(sandbox, "name", "?")
    report, has_step = JobReport(sandbox=name), spec.compile_step
    for _ in range(_ATTEMPTS):  # our failure (or the machine's load) is retried once
        job, build, key = sandbox_job("program-run", built, sources, specs, limits, time_s,
                                      cache, name, False, budget_s)
        has_step = bool(build.compile)
        for test in job.tests:
            test.wall_limit_s = spec.wall_s
        job.likely_blocked = blocked
        if job.build is not None:
            if spec.stderr_bytes is not None:
                job.build["stderr_bytes"] = spec.stderr_bytes
            if job.build.get("compile"):
                # the compiler's wall clock (less its CPU wait), as a run's; its CPU stays
                # bounded by the compile step's own limit
                job.build["compile_wall_s"] = COMPILE_WALL_S if spec.compile_wall_s is None \
                    else min(spec.compile_wall_s, COMPILE_WALL_S)
                job.build["compile_cpu_s"] = COMPILE_CPU_S
        report = finish_compile(built, build, key, sandbox.run(job), cache)
        if report.infra_error is None and not any(
                _starved(r) for r in report.records.values()):
            break
    runs: list[ProgramRun | None] = []
    for index in range(len(inputs)):
        record = report.records.get(index)
        runs.append(None if record is None else _run_outcome(record, limits, time_s, report))
    return ProgramRuns(compile=_compile_outcome(has_step, report), runs=runs,
                       infra_error=report.infra_error, died_during=report.died_during,
                       died_reason=report.died_reason)


__all__ = ["CompileOutcome", "MAX_COMPILE_S", "ProgramRuns", "ProgramRun", "RunSpec",
           "run_program"]
