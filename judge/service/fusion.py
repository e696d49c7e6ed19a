"""A SandboxFusion-compatible surface on ``judge serve``: ``POST /run_code``, SandboxFusion's
``POST /submit`` and ScaleBox's ``POST /common_evaluate_batch`` (one candidate against its
test cases), and ``POST /v1/evaluate/batch`` (many candidates, each against its tests).

Code runs through the public API, :meth:`judge.Judge.run_program` on the server's Judge (its
warm sandbox: process or docker, whichever ``judge serve`` opened): compiled once per request
by the judge's one compile step, never in the server's process, and run as SandboxFusion
runs it: ``run_timeout`` and ``compile_timeout`` are wall-clock limits (not counting time the
program waited for a CPU), each language with the build flags it declares for SandboxFusion
(``Language.build_flags_in["sandboxfusion"]``: Java with assertions on, Python without a
compile step, so a syntax error is the run's, in Python's own words). Limits only tighten:
``run_timeout``, ``memory_limit_MB`` and ``compile_timeout`` are each at most the routes'
ceilings (:class:`Ceilings`: ``judge serve --fusion-run-timeout / --fusion-memory-mb``;
``judge.service.limits.clamp``); a request asking for more gets the ceiling, and the
response's extra ``judge`` object says what was applied. Expected outputs of an evaluation
never enter the sandbox: the outputs come back and are checked here, by the judge's output
checker (``tokens`` by default: the Kattis default validator, case-insensitive;
:mod:`judge.service.fusion_cases`).

This module only translates: a request into a :class:`~judge.api.RunSpec`, the API's
:class:`~judge.api.ProgramRuns` into SandboxFusion's response models.

What each SandboxFusion field does here is in docs/service.md ("SandboxFusion compatibility").
"""

from __future__ import annotations

import base64
import signal
from dataclasses import dataclass, field, replace
from typing import Any

from judge import languages
from judge.api import MAX_COMPILE_S, CompileOutcome, Judge, ProgramRun, ProgramRuns, RunSpec
from judge.candidates.submission import extract_fenced
from judge.engine.verdicts import Verdict
from judge.service import limits as service_limits
from judge.service.fusion_cases import (SCHEME, UNSUPPORTED, call_wrapper, checker_of,
                                        evaluation, language_of, not_run, passes, short,
                                        test_cases)
from judge.service.fusion_models import (CommandRunResult, CommandRunStatus, EvalResult,
                                         EvalTestCase, JudgeFacts, RunCodeRequest,
                                         RunCodeResponse, RunStatus, SubmitRequest,
                                         check_base64, check_file_path, input_bytes)

#: SandboxFusion reads at most this much of a run's standard output and of its standard
#: error (``get_output_non_blocking``: ``read(1024 * 1024)``)
READ_BYTES = 1024 * 1024
#: the routes' default ceilings: what trainers send (verl asks for 10 s and 1,024 MB)
DEFAULT_RUN_TIMEOUT_S = 10.0
DEFAULT_MEMORY_MB = 1024

__all__ = ["Applied", "Ceilings", "DEFAULT_MEMORY_MB", "DEFAULT_RUN_TIMEOUT_S",
           "FusionRunner", "READ_BYTES", "SCHEME", "UNSUPPORTED", "applied_limits",
           "checker_of", "evaluation", "language_of", "test_cases"]


@dataclass(frozen=True)
class Ceilings:
    """The most a request on these routes may ask (and what it gets when it asks nothing):
    ``run_timeout`` seconds of wall clock and ``memory_limit_MB`` of resident memory."""

    run_timeout_s: float = DEFAULT_RUN_TIMEOUT_S
    memory_mb: int = DEFAULT_MEMORY_MB

    @classmethod
    def of(cls, value: Any) -> Ceilings:
        """Ceilings, or a server's limits (``judge.Limits``: its time and memory limits) as
        ones."""
        if isinstance(value, Ceilings):
            return value
        return cls(float(value.time_limit_s), int(value.memory_mb))


@dataclass
class Applied:
    """The limits one request runs under, after tightening."""

    run_timeout: float
    memory_mb: int
    compile_timeout: float
    clamped: list[str] = field(default_factory=list)


def applied_limits(ceilings: Any, run_timeout: float | None, memory_mb: int | None,
                   compile_timeout: float | None) -> Applied:
    """The request's limits tightened only (the ceiling where it asks for more or none);
    ``ceilings``: :class:`Ceilings` or a server's ``judge.Limits``."""
    top = Ceilings.of(ceilings)
    values, clamped = service_limits.clamp(
        {"run_timeout": (run_timeout, top.run_timeout_s),
         "memory_limit_MB": (memory_mb if memory_mb and memory_mb > 0 else None,
                             top.memory_mb),
         "compile_timeout": (compile_timeout, MAX_COMPILE_S)})
    return Applied(float(values["run_timeout"]), int(values["memory_limit_MB"]),
                   float(values["compile_timeout"]), clamped)


def run_spec(lang: Any, applied: Applied, budget: bool = False) -> RunSpec:
    """How SandboxFusion runs a program in ``lang``, under ``applied``: each run's wall clock
    from its start (never the time the request queued), less the time it waited for a CPU,
    at most ``run_timeout``; ``compile_timeout`` is the compiler's wall clock; the language's
    SandboxFusion build flags; the first ``READ_BYTES`` of standard error kept."""
    return RunSpec(wall_s=applied.run_timeout, memory_mb=applied.memory_mb,
                   compile_wall_s=applied.compile_timeout,
                   build_flags=dict(lang.build_flags_in.get(SCHEME, {})),
                   stderr_bytes=READ_BYTES, budget=budget)


def _decode_files(files: dict[str, str | None]) -> dict[str, str]:
    """Request files (path -> base64) as the worker writes them: relative paths inside the
    work directory, bounded in length and depth, base64 content (ValueError naming the
    first bad one; the request model refuses them first, with a 422)."""
    out: dict[str, str] = {}
    for name, data in files.items():
        if data is None:
            continue
        clean = check_file_path(name)
        check_base64(name, data)
        out[clean] = data
    return out


def _text(data: bytes) -> str:
    """A run's output as SandboxFusion reports it: its first ``READ_BYTES``, UTF-8 (what is
    not UTF-8 is replaced: SandboxFusion answers ``[DecodeError] ...`` instead)."""
    return data[:READ_BYTES].decode("utf-8", "replace")


def _stderr(run: ProgramRun) -> str:
    """The run's standard error: its first ``READ_BYTES`` (the worker keeps that much for
    these routes, ``stderr_bytes``), as SandboxFusion reads it."""
    return _text(run.stderr.encode("utf-8", "surrogateescape"))


def _return_code(run: ProgramRun) -> int:
    """The exit code, or minus the signal (Python's subprocess convention, as SandboxFusion
    reports it); a program stopped by a limit without either: -9 (killed)."""
    if run.exit_code is not None:
        return run.exit_code
    try:
        return -int(signal.Signals[str(run.signal)])
    except (KeyError, ValueError):
        return -int(signal.SIGKILL)


def _compile_result(compiled: CompileOutcome) -> CommandRunResult | None:
    """SandboxFusion's ``compile_result``: None for a language it has no compile step for."""
    if compiled.compiled:
        if not compiled.step:
            return None
        return CommandRunResult(status=CommandRunStatus.Finished,
                                execution_time=compiled.seconds, return_code=0, stdout="",
                                stderr="")
    if compiled.timed_out:
        return CommandRunResult(status=CommandRunStatus.TimeLimitExceeded,
                                execution_time=compiled.seconds, stdout="",
                                stderr=compiled.output[:READ_BYTES])
    return CommandRunResult(status=CommandRunStatus.Finished, execution_time=compiled.seconds,
                            return_code=compiled.exit_code if compiled.exit_code else 1,
                            stdout="", stderr=compiled.output[:READ_BYTES])


def _run_result(outcome: ProgramRuns, index: int
                ) -> tuple[CommandRunResult | None, Verdict | None, str]:
    """(run result, the judge's verdict when the run ended badly, message); a None run
    result is the sandbox's failure."""
    run = outcome.runs[index]
    if run is not None and run.starved:  # twice: the machine is too loaded to time it
        return None, Verdict.SANDBOX_ERROR, (
            "sandbox error: the machine was too loaded to time this run (it waited "
            "%.3g s for a CPU)" % run.waited_s)
    if run is None and outcome.died_during is None:
        # every run of a request is reported (none stops at a failure): a run with no
        # record while the worker lived is our failure, never the candidate's verdict
        return None, Verdict.SANDBOX_ERROR, "sandbox error: no result was reported"
    if run is None:  # as the judge's program verdicts: the candidate's run broke it
        why = ("the sandbox worker died during this run: %s" % (
            outcome.died_reason or "no reason given")) if outcome.died_during == index \
            else "not run: an earlier run broke the sandbox worker"
        return (CommandRunResult(status=CommandRunStatus.Finished, return_code=-9,
                                 stdout="", stderr=""), Verdict.RUNTIME_ERROR,
                "runtime_error: " + why)
    common = dict(execution_time=run.wall_s, cpu_time=run.cpu_s, stdout=_text(run.stdout),
                  stderr=_stderr(run))
    verdict = run.verdict
    if verdict is None:
        return (CommandRunResult(status=CommandRunStatus.Finished,
                                 return_code=run.exit_code or 0, **common), None, "")
    if verdict is Verdict.SANDBOX_ERROR:
        return None, verdict, run.message
    if verdict is Verdict.TIMEOUT:
        return (CommandRunResult(status=CommandRunStatus.TimeLimitExceeded, **common),
                verdict, "%s: %s" % (verdict.value, run.message))
    return (CommandRunResult(status=CommandRunStatus.Finished, return_code=_return_code(run),
                             **common), verdict, "%s: %s" % (verdict.value, run.message))


def responses(outcome: ProgramRuns, count: int, facts: JudgeFacts) -> list[RunCodeResponse]:
    """The API's account of ``count`` runs as SandboxFusion's ``run_code`` responses."""
    if outcome.infra_error:
        return [RunCodeResponse(status=RunStatus.SandboxError, message="sandbox error: %s"
                                % outcome.infra_error, judge=facts)] * count
    compiled = _compile_result(outcome.compile)
    if not outcome.compile.compiled:
        failed = facts.model_copy(update={"verdict": "compile_error"})
        if not outcome.compile.step:  # (a syntax error is the run's, as SandboxFusion's)
            result = RunCodeResponse(status=RunStatus.Failed, message="compile_error",
                                     run_result=CommandRunResult(
                                         status=CommandRunStatus.Finished, return_code=1,
                                         execution_time=0.0, stdout="",
                                         stderr=outcome.compile.output[:READ_BYTES]),
                                     judge=failed)
        else:
            result = RunCodeResponse(status=RunStatus.Failed, message="compile_error",
                                     compile_result=compiled, judge=failed)
        return [result] * count
    out = []
    for index in range(count):
        run, verdict, message = _run_result(outcome, index)
        mine = facts.model_copy(update={"verdict": verdict.value if verdict else None})
        if run is None:
            out.append(RunCodeResponse(status=RunStatus.SandboxError, message=message,
                                       compile_result=compiled, judge=mine))
            continue
        # Success only when the judge has nothing against the run: an output or memory
        # limit reached by a program that still exits 0 (an stderr flood, SIGXFSZ
        # ignored) is Failed, with its return code as it was and the verdict in message
        ok = verdict is None and run.status is CommandRunStatus.Finished and \
            run.return_code == 0
        ran = outcome.runs[index] if index < len(outcome.runs) else None
        files = {name: base64.b64encode(data).decode("ascii")
                 for name, data in (ran.files.items() if ran is not None else ())}
        out.append(RunCodeResponse(status=RunStatus.Success if ok else RunStatus.Failed,
                                   message=message, compile_result=compiled,
                                   run_result=run, judge=mine, files=files))
    return out


class FusionRunner:
    """Runs SandboxFusion requests through the public API: ``judge`` (the server's
    :class:`judge.Judge`) runs each program (:meth:`judge.Judge.run_program`); this class
    only translates. ``ceilings``: the routes' own (default: the Judge's time and memory
    limits)."""

    def __init__(self, judge: Judge, ceilings: Ceilings | None = None) -> None:
        self.judge = judge
        self.ceilings = ceilings or Ceilings.of(judge.limits)

    def _job(self, lang: Any, code: str, inputs: list[bytes], files: dict[str, str],
             applied: Applied, budget: bool, fetch: tuple[str, ...] = ()
             ) -> tuple[ProgramRuns, RunSpec, Applied]:
        """One program compiled once and run once per input (the API's one call): what
        happened, and the spec and limits it ran under (``fetch``: the files each run's
        response brings back)."""
        spec = replace(run_spec(lang, applied, budget), fetch=tuple(fetch))
        return self.judge.run_program(lang, code, inputs, spec, files=files), spec, applied

    def _responses(self, lang: Any, outcome: ProgramRuns, count: int, spec: Any,
                   applied: Any, facts: JudgeFacts) -> list[RunCodeResponse]:
        """:func:`responses` (``lang``, ``spec`` and ``applied`` are what :meth:`_job` ran
        with: the outcome says all the translation needs)."""
        return responses(outcome, count, facts)

    def run_many(self, language: str, code: str, inputs: list[bytes],
                 files: dict[str, str | None], applied: Applied,
                 budget: bool = False, fetch: tuple[str, ...] = ()) -> list[RunCodeResponse]:
        """One program, compiled once, run once per input (in one sandbox job); ``fetch``:
        the files (relative to its work directory) each response brings back."""
        lang = languages.get(language)
        facts = JudgeFacts(language=lang.name, run_timeout=applied.run_timeout,
                           memory_limit_MB=applied.memory_mb,
                           compile_timeout=applied.compile_timeout, clamped=applied.clamped)
        outcome, _, _ = self._job(lang, code, inputs, _decode_files(files), applied, budget,
                                  fetch)
        return responses(outcome, len(inputs), facts)

    def run_code(self, request: RunCodeRequest) -> RunCodeResponse:
        language = language_of(request.language)
        if language is None:
            return RunCodeResponse(status=RunStatus.SandboxError,
                                   message=not_run(request.language))
        applied = applied_limits(self.ceilings, request.run_timeout, request.memory_limit_MB,
                                 request.compile_timeout)
        try:
            files = _decode_files(request.files)
        except ValueError as exc:
            return RunCodeResponse(status=RunStatus.SandboxError, message=str(exc))
        stdin = input_bytes(request.stdin or "", "stdin")
        return self.run_many(language, request.code, [stdin], files, applied,
                             fetch=tuple(request.fetch_files))[0]

    # ---- evaluation: one completion against its test cases ------------------------------

    def evaluate(self, request: SubmitRequest) -> EvalResult:
        config = request.config
        lang, cases, function, inputs, checker = evaluation(config)
        code, _ = extract_fenced(request.completion.replace("\r\n", "\n"), lang.fence_tags,
                                 lambda block: True)
        program = call_wrapper(code, function) if function else code
        applied = applied_limits(self.ceilings, config.run_timeout, config.memory_limit_MB,
                                 config.compile_timeout)
        runs = self.run_many(lang.name, program, inputs, {}, applied, budget=True)
        run_all = bool(config.extra.get("run_all_cases", False))
        tests = []
        for case, run in zip(cases, runs):
            passed = run.status is RunStatus.Success and run.run_result is not None and \
                passes(case, run.run_result.stdout or "", checker, bool(function))
            tests.append(EvalTestCase(passed=passed, exec_info=run, test_info={
                "input": short(case.get("input")), "output": short(case.get("output"))}))
            if not passed and not run_all:
                break
        accepted = len(tests) == len(cases) and all(t.passed for t in tests)
        return EvalResult(id=request.id, accepted=accepted, extracted_code=code, tests=tests,
                          extracted_type="fenced" if code != request.completion else None)
