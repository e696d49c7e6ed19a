"""A SandboxFusion-compatible surface on ``judge serve``: ``POST /run_code``, SandboxFusion's
``POST /submit`` and ScaleBox's ``POST /common_evaluate_batch`` (one candidate against its
test cases), and ``POST /v1/evaluate/batch`` (many candidates, each against its tests).

Code runs through the judge's own sandbox (the server's warm pool: process or docker,
whichever ``judge serve`` opened), compiled once per request as the judge compiles whole
programs (``judge.kinds.program.judge``), never in the server's process, and run as
SandboxFusion runs it: ``run_timeout`` and ``compile_timeout`` are wall-clock limits (not
counting time the program waited for a CPU), Java with assertions on, Python without a
compile step (a syntax error is the run's, in Python's own words). Limits only tighten: ``run_timeout``, ``memory_limit_MB`` and ``compile_timeout``
are each at most the routes' ceilings (:class:`Ceilings`: ``judge serve
--fusion-run-timeout / --fusion-memory-mb``; ``judge.service.limits.clamp``); a request
asking for more gets the ceiling, and the response's extra ``judge`` object says what was
applied. Expected outputs of an evaluation
never enter the sandbox: the outputs come back and are checked here, by the judge's output
checker (``tokens`` by default: the Kattis default validator, case-insensitive).

What each SandboxFusion field does here is in docs/service.md ("SandboxFusion compatibility").
"""

from __future__ import annotations

import base64
import json
import signal
from dataclasses import dataclass, field, replace
from typing import Any

from judge.languages import BLOCKING

from pydantic import ValidationError

from judge import languages
from judge.candidates.submission import extract_fenced
from judge.errors import UnknownName
from judge.engine.checkers.base import CHECKERS, output_verdict
from judge.engine.checkers.validator import DEFAULT_OUTPUT_KB
from judge.engine.program_verdicts import run_verdict
from judge.engine.verdicts import Verdict
from judge.engine.compile_step import COMPILE_CPU_S, COMPILE_WALL_S, finish_compile, sandbox_job
from judge.problem.program import OutputChecker
from judge.sandbox import records
from judge.sandbox.base import JobReport, Limits
from judge.service import limits as service_limits
from judge.service.fusion_models import (MAX_CASES, CommandRunResult, CommandRunStatus,
                                         EvalResult, EvalTestCase, JudgeFacts, RunCodeRequest,
                                         RunCodeResponse, RunStatus, SubmitRequest, TestConfig,
                                         check_base64, check_file_path, input_bytes)

#: SandboxFusion's language names (and a few spellings of ScaleBox and the judge) -> the
#: judge's language registry
LANGUAGES = {"python": "python", "python3": "python", "cpp": "cpp", "c": "c", "java": "java",
             "nodejs": "js", "javascript": "js", "js": "js", "go": "go", "rust": "rust"}
#: SandboxFusion languages the judge does not run: answered with SandboxFusion's error
#: shape (status SandboxError), as SandboxFusion answers a runner it cannot use
UNSUPPORTED = ("python2", "go_test", "php", "csharp", "bash", "typescript", "sql", "cuda",
               "lua", "R", "perl", "D_ut", "ruby", "scala", "julia", "pytest", "junit",
               "kotlin_script", "jest", "verilog", "python_gpu", "lean", "swift", "racket",
               "gtest", "react")
#: SandboxFusion reads at most this much of a run's standard output and of its standard
#: error (``get_output_non_blocking``: ``read(1024 * 1024)``)
READ_BYTES = 1024 * 1024
#: the routes' default ceilings: what trainers send (verl asks for 10 s and 1,024 MB)
DEFAULT_RUN_TIMEOUT_S = 10.0
DEFAULT_MEMORY_MB = 1024
#: how SandboxFusion runs each language, as flags of the judge's program build (passed per
#: job, on these routes only): Java with ``-ea``; Python with no compile step (SandboxFusion
#: runs ``python file.py``). JavaScript keeps the judge's ``node --check`` step (a
#: ``compile_result``; docs/service.md says why)
_BUILD_FLAGS: dict[str, dict[str, Any]] = {"java": {"assertions": True},
                                           "python": {"syntax_check": False}}
_NO_COMPILE = ("python",)


@dataclass(frozen=True)
class Ceilings:
    """The most a request on these routes may ask (and what it gets when it asks nothing):
    ``run_timeout`` seconds of wall clock and ``memory_limit_MB`` of resident memory."""

    run_timeout_s: float = DEFAULT_RUN_TIMEOUT_S
    memory_mb: int = DEFAULT_MEMORY_MB

    @classmethod
    def of(cls, value: Any) -> Ceilings:
        """Ceilings, or a server's :class:`Limits` (its time and memory limits) as ones."""
        if isinstance(value, Ceilings):
            return value
        return cls(float(value.time_limit_s), int(value.memory_mb))


class AsFusion:
    """A language as SandboxFusion runs it: its program build with the routes' flags
    (``_BUILD_FLAGS``), everything else the language's. The build's commands are part of
    the compile cache's key, so these builds never share a cache entry with the judge's."""

    def __init__(self, lang: Any) -> None:
        self._lang = lang

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lang, name)

    @property
    def compiles(self) -> bool:
        """Whether SandboxFusion has a compile step (and a ``compile_result``) for it."""
        return self._lang.name not in _NO_COMPILE

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Any:
        build = self._lang.program_build(sources, memory_mb,
                                         **_BUILD_FLAGS.get(self._lang.name, {}))
        if not self.compiles and build.compile:
            build = replace(build, compile=[])
        return build


@dataclass
class Applied:
    """The limits one request runs under, after tightening."""

    run_timeout: float
    memory_mb: int
    compile_timeout: float
    clamped: list[str] = field(default_factory=list)


def language_of(name: str) -> str | None:
    """The judge's language for a SandboxFusion name; None for one SandboxFusion knows but
    the judge does not run; UnknownName for one neither knows (answered 422, as
    SandboxFusion answers it)."""
    if name in LANGUAGES:
        return LANGUAGES[name]
    if name in UNSUPPORTED:
        return None
    raise UnknownName("language", name, known=sorted(LANGUAGES))


def applied_limits(ceilings: Ceilings | Limits, run_timeout: float | None,
                   memory_mb: int | None, compile_timeout: float | None) -> Applied:
    """The request's limits tightened only (the ceiling where it asks for more or none)."""
    top = Ceilings.of(ceilings)
    values, clamped = service_limits.clamp(
        {"run_timeout": (run_timeout, top.run_timeout_s),
         "memory_limit_MB": (memory_mb if memory_mb and memory_mb > 0 else None,
                             top.memory_mb),
         "compile_timeout": (compile_timeout, COMPILE_CPU_S)})
    return Applied(float(values["run_timeout"]), int(values["memory_limit_MB"]),
                   float(values["compile_timeout"]), clamped)


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


def _stderr(record: dict[str, Any]) -> str:
    """The run's standard error: its first ``READ_BYTES`` (the worker keeps that much for
    these routes, ``stderr_bytes``), as SandboxFusion reads it."""
    return _text(str(record.get("stderr_head") or "").encode("utf-8", "surrogateescape"))


def _starved(record: dict[str, Any] | None) -> bool:
    """A run stopped by the wall clock's hard cap while its own time (less the time it
    waited for a CPU) was within the limit: the machine's load, not the program."""
    return bool(record and record.get("status") == records.TIMEOUT and record.get("starved"))


def _stdout(record: dict[str, Any]) -> bytes:
    try:
        return base64.b64decode(record.get("stdout") or "", validate=True)
    except (ValueError, TypeError):
        return b""


def _return_code(record: dict[str, Any]) -> int:
    """The exit code, or minus the signal (Python's subprocess convention, as SandboxFusion
    reports it); a program stopped by a limit without either: -9 (killed)."""
    if record.get("status") == records.EXITED and record.get("exit_code") is not None:
        return int(record["exit_code"])
    name = record.get("signal")
    try:
        return -int(signal.Signals[str(name)])
    except (KeyError, ValueError):
        return -int(signal.SIGKILL)


class FusionRunner:
    """Runs SandboxFusion requests on an open sandbox (the server's) with its compile cache."""

    def __init__(self, sandbox: Any, cache: Any, server: Limits,
                 ceilings: Ceilings | None = None) -> None:
        self.sandbox, self.cache, self.server = sandbox, cache, server
        self.ceilings = ceilings or Ceilings.of(server)

    def _job(self, lang: Any, code: str, inputs: list[bytes], files: dict[str, str],
             applied: Applied, budget: bool) -> tuple[JobReport, Limits, float]:
        """One sandbox job: the program compiled once and run once per input. Time is
        SandboxFusion's: each run's wall clock from its start (never the time the request
        queued) to its end, less the time it waited for a CPU, at most ``run_timeout``
        (the worker's wall limit, ``supervise``); its CPU time (over every thread) at most
        ``run_timeout`` plus the runtime's start-up allowance. Memory is resident memory,
        the request's plus the runtime's headroom (a JVM's heap is the request's)."""
        lang = lang if isinstance(lang, AsFusion) else AsFusion(lang)
        output_kb = max(self.server.output_kb, DEFAULT_OUTPUT_KB)
        limits = replace(self.server, memory_mb=applied.memory_mb + lang.memory_headroom_mb,
                         output_kb=output_kb, value_kb=max(self.server.value_kb, output_kb + 64),
                         nproc=max(self.server.nproc, lang.nproc))
        time_s = applied.run_timeout + lang.startup_s
        specs = [{"stdin": base64.b64encode(data).decode("ascii"), "argv": [], "files": files}
                 for data in inputs]
        budget_s = limits.budget([time_s] * len(inputs)) if budget else None
        sources = {lang.program_file(code): code}
        report = JobReport(sandbox=getattr(self.sandbox, "name", "?"))
        for _ in range(2):  # our failure (or the machine's load) is retried once
            job, build, key = sandbox_job("fusion", lang, sources, specs, limits, time_s,
                                          self.cache, self.sandbox.name, False, budget_s)
            for test in job.tests:
                test.wall_limit_s = applied.run_timeout
            job.likely_blocked = lang.stall_risk(code) >= BLOCKING
            if job.build is not None:
                job.build["stderr_bytes"] = READ_BYTES
                if job.build.get("compile"):
                    # compile_timeout is the compiler's wall clock (less its CPU wait), as
                    # the run's; its CPU stays bounded by the judge's compile limit
                    job.build["compile_wall_s"] = min(applied.compile_timeout, COMPILE_WALL_S)
                    job.build["compile_cpu_s"] = COMPILE_CPU_S
            report = finish_compile(lang, build, key, self.sandbox.run(job), self.cache)
            if report.infra_error is None and not any(
                    _starved(r) for r in report.records.values()):
                break
        return report, limits, time_s

    def _compile_result(self, lang: Any, report: JobReport) -> CommandRunResult | None:
        info = report.compile_info or {}
        seconds = info.get("compile_s")
        if report.compiled:
            if not AsFusion(lang).compiles:  # SandboxFusion has no compile step for it
                return None
            return CommandRunResult(status=CommandRunStatus.Finished, execution_time=seconds,
                                    return_code=0, stdout="", stderr="")
        output = str(info.get("output") or info.get("error") or report.compile_error or "")
        if info.get("status") == records.TIMEOUT:
            return CommandRunResult(status=CommandRunStatus.TimeLimitExceeded,
                                    execution_time=seconds, stdout="",
                                    stderr=output[:READ_BYTES])
        code = info.get("exit_code")
        return CommandRunResult(status=CommandRunStatus.Finished, execution_time=seconds,
                                return_code=int(code) if code else 1, stdout="",
                                stderr=output[:READ_BYTES])

    def _run_result(self, report: JobReport, index: int, limits: Limits, time_s: float
                    ) -> tuple[CommandRunResult | None, Verdict | None, str]:
        """(run result, the judge's verdict when the run ended badly, message); a None run
        result is the sandbox's failure."""
        record = report.records.get(index)
        if _starved(record):  # twice: the machine is too loaded to time it (retry)
            return None, Verdict.SANDBOX_ERROR, (
                "sandbox error: the machine was too loaded to time this run (it waited "
                "%.3g s for a CPU)" % float(record.get("waited_s") or 0.0))
        if record is None and report.died_during is None:
            # every run of a request is reported (none stops at a failure): a run with no
            # record while the worker lived is our failure, never the candidate's verdict
            return None, Verdict.SANDBOX_ERROR, "sandbox error: no result was reported"
        if record is None:  # as the judge's program verdicts: the candidate's run broke it
            why = ("the sandbox worker died during this run: %s" % (
                report.died_reason or "no reason given")) if report.died_during == index \
                else "not run: an earlier run broke the sandbox worker"
            return (CommandRunResult(status=CommandRunStatus.Finished, return_code=-9,
                                     stdout="", stderr=""), Verdict.RUNTIME_ERROR,
                    "runtime_error: " + why)
        ended = run_verdict(record, limits, time_s, report)
        out = _text(_stdout(record))
        common = dict(execution_time=record.get("wall_s"), cpu_time=record.get("cpu_s"),
                      stdout=out, stderr=_stderr(record))
        if ended is None:
            return (CommandRunResult(status=CommandRunStatus.Finished,
                                     return_code=int(record.get("exit_code") or 0), **common),
                    None, "")
        verdict, why = ended
        if verdict is Verdict.SANDBOX_ERROR:
            return None, verdict, why
        if verdict is Verdict.TIMEOUT:
            return (CommandRunResult(status=CommandRunStatus.TimeLimitExceeded, **common),
                    verdict, "%s: %s" % (verdict.value, why))
        return (CommandRunResult(status=CommandRunStatus.Finished,
                                 return_code=_return_code(record), **common),
                verdict, "%s: %s" % (verdict.value, why))

    def _responses(self, lang: Any, report: JobReport, count: int, limits: Limits,
                   time_s: float, facts: JudgeFacts) -> list[RunCodeResponse]:
        if report.infra_error:
            return [RunCodeResponse(status=RunStatus.SandboxError, message="sandbox error: %s"
                                    % report.infra_error, judge=facts)] * count
        compiled = self._compile_result(lang, report)
        if not report.compiled:
            if not AsFusion(lang).compiles:  # (a syntax error is the run's, as SandboxFusion's)
                result = RunCodeResponse(status=RunStatus.Failed, message="compile_error",
                                         run_result=CommandRunResult(
                                             status=CommandRunStatus.Finished, return_code=1,
                                             execution_time=0.0, stdout="",
                                             stderr=compiled.stderr if compiled else ""),
                                         judge=facts.model_copy(update={
                                             "verdict": "compile_error"}))
            else:
                result = RunCodeResponse(status=RunStatus.Failed, message="compile_error",
                                         compile_result=compiled,
                                         judge=facts.model_copy(update={
                                             "verdict": "compile_error"}))
            return [result] * count
        out = []
        for index in range(count):
            run, verdict, message = self._run_result(report, index, limits, time_s)
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
            out.append(RunCodeResponse(status=RunStatus.Success if ok else RunStatus.Failed,
                                       message=message, compile_result=compiled,
                                       run_result=run, judge=mine))
        return out

    def run_many(self, language: str, code: str, inputs: list[bytes],
                 files: dict[str, str | None], applied: Applied,
                 budget: bool = False) -> list[RunCodeResponse]:
        """One program, compiled once, run once per input (in one sandbox job)."""
        lang = languages.get(language)
        facts = JudgeFacts(language=lang.name, run_timeout=applied.run_timeout,
                           memory_limit_MB=applied.memory_mb,
                           compile_timeout=applied.compile_timeout, clamped=applied.clamped)
        report, limits, time_s = self._job(lang, code, inputs, _decode_files(files), applied,
                                           budget)
        return self._responses(lang, report, len(inputs), limits, time_s, facts)

    def run_code(self, request: RunCodeRequest) -> RunCodeResponse:
        language = language_of(request.language)
        if language is None:
            return RunCodeResponse(status=RunStatus.SandboxError, message=(
                "language %r is not run by this judge (it runs: %s)"
                % (request.language, ", ".join(sorted(LANGUAGES)))))
        applied = applied_limits(self.ceilings, request.run_timeout, request.memory_limit_MB,
                                 request.compile_timeout)
        try:
            files = _decode_files(request.files)
        except ValueError as exc:
            return RunCodeResponse(status=RunStatus.SandboxError, message=str(exc))
        stdin = input_bytes(request.stdin or "", "stdin")
        return self.run_many(language, request.code, [stdin], files, applied)[0]

    # ---- evaluation: one completion against its test cases ------------------------------

    def evaluate(self, request: SubmitRequest) -> EvalResult:
        config = request.config
        lang, cases, function, inputs, checker = evaluation(config)
        code, _ = extract_fenced(request.completion.replace("\r\n", "\n"), lang.fence_tags,
                                 lambda block: True)
        program = _call_wrapper(code, function) if function else code
        applied = applied_limits(self.ceilings, config.run_timeout, config.memory_limit_MB,
                                 config.compile_timeout)
        runs = self.run_many(lang.name, program, inputs, {}, applied, budget=True)
        run_all = bool(config.extra.get("run_all_cases", False))
        tests = []
        for case, run in zip(cases, runs):
            passed = run.status is RunStatus.Success and run.run_result is not None and \
                self._passes(case, run.run_result.stdout or "", checker, bool(function))
            tests.append(EvalTestCase(passed=passed, exec_info=run, test_info={
                "input": _short(case.get("input")), "output": _short(case.get("output"))}))
            if not passed and not run_all:
                break
        accepted = len(tests) == len(cases) and all(t.passed for t in tests)
        return EvalResult(id=request.id, accepted=accepted, extracted_code=code, tests=tests,
                          extracted_type="fenced" if code != request.completion else None)

    @staticmethod
    def _passes(case: dict[str, Any], stdout: str, checker: OutputChecker,
                function: bool) -> bool:
        expected = case.get("output", "")
        if function:  # the returned value, as JSON, against the expected one
            try:
                got = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else None
            except ValueError:
                return False
            want = expected
            if isinstance(want, str):
                try:
                    want = json.loads(want)
                except ValueError:
                    pass
            if isinstance(want, list) and len(want) == 1 and not isinstance(got, list):
                want = want[0]
            return _plain(got) == _plain(want)
        answer = expected if isinstance(expected, str) else json.dumps(expected)
        return output_verdict(input_bytes(answer, "output"),
                              stdout.encode("utf-8", "surrogateescape"),
                              checker).verdict is Verdict.PASS


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _short(value: Any, limit: int = 500) -> Any:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "..."


def test_cases(config: TestConfig) -> list[dict[str, Any]]:
    """The test cases of ``config.provided_data`` in any of the shapes SandboxFusion and
    ScaleBox send: ``{"test_cases": {"type", "fn_name", "input": [...], "output": [...]}}``
    (common_evaluate_batch), ``{"test_cases": [{"input", "output"}, ...]}``
    (common_evaluate), ``{"test": [{"input": {"stdin"}, "output": {"stdout"}}]}`` (a
    SandboxFusion dataset row), or ``{"inputs": [...], "outputs": [...], "fn_name"}``
    (APPS / verl ground truth). Each case says where it came from (``where``). ValueError,
    naming the place, when it holds none or one of another shape."""
    data = config.provided_data
    top = "config.provided_data"
    if isinstance(data, list):
        data, top = {"test_cases": data}, "config.provided_data"
    if not isinstance(data, dict):
        raise ValueError("config.provided_data must hold the test cases")
    cases: list[dict[str, Any]] = []
    raw = data.get("test_cases")
    if raw is not None and not isinstance(config.provided_data, list):
        top = "config.provided_data.test_cases"
    if isinstance(raw, dict):
        ins, outs = _list(raw, "input", top), _list(raw, "output", top)
        if len(ins) != len(outs):
            raise ValueError("%s: %d inputs, %d outputs" % (top, len(ins), len(outs)))
        kind = raw.get("type") or ("function_call" if raw.get("fn_name") else "stdin_stdout")
        cases = [{"input": i, "output": o, "fn_name": raw.get("fn_name")
                  if kind == "function_call" else None, "where": "%s.input[%d]" % (top, n),
                  "where_output": "%s.output[%d]" % (top, n)}
                 for n, (i, o) in enumerate(zip(ins, outs))]
    elif isinstance(raw, list):
        for n, c in enumerate(raw):
            where = "%s[%d]" % (top, n)
            if not isinstance(c, dict):
                raise ValueError("%s is not an object {\"input\", \"output\"}" % where)
            cases.append({"input": c.get("input"), "output": c.get("output"),
                          "fn_name": c.get("fn_name")
                          if c.get("type") in (None, "function_call") else None,
                          "where": where + ".input", "where_output": where + ".output"})
    elif raw is not None:
        raise ValueError("%s must be a list of test cases or an object of inputs and outputs"
                         % top)
    elif isinstance(data.get("test"), list):
        for n, c in enumerate(data["test"]):
            where = "config.provided_data.test[%d]" % n
            if not isinstance(c, dict):
                raise ValueError("%s is not an object {\"input\", \"output\"}" % where)
            stdin, stdout = c.get("input") or {}, c.get("output") or {}
            for name, part in (("input", stdin), ("output", stdout)):
                if not isinstance(part, dict):
                    raise ValueError("%s.%s is not an object {\"std%s\": ...}"
                                     % (where, name, "in" if name == "input" else "out"))
            cases.append({"input": stdin.get("stdin", ""), "output": stdout.get("stdout", ""),
                          "where": where + ".input.stdin",
                          "where_output": where + ".output.stdout"})
    elif data.get("inputs") is not None:
        ins = _list(data, "inputs", "config.provided_data")
        outs = _list(data, "outputs", "config.provided_data")
        if len(ins) != len(outs):
            raise ValueError("config.provided_data: %d inputs, %d outputs"
                             % (len(ins), len(outs)))
        cases = [{"input": i, "output": o, "fn_name": data.get("fn_name"),
                  "where": "config.provided_data.inputs[%d]" % n,
                  "where_output": "config.provided_data.outputs[%d]" % n}
                 for n, (i, o) in enumerate(zip(ins, outs))]
    if not cases:
        raise ValueError("config.provided_data holds no test cases")
    if len(cases) > MAX_CASES:
        raise ValueError("at most %d test cases per candidate" % MAX_CASES)
    return cases


def _list(data: dict[str, Any], key: str, where: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError("%s.%s must be a list" % (where, key))
    return value


def checker_of(config: TestConfig) -> OutputChecker:
    """``config.extra.checker`` (an output checker object; the Kattis default validator
    when absent). ValueError naming the field when it is not one."""
    given = config.extra.get("checker")
    if given is None:
        return OutputChecker()
    if not isinstance(given, dict):
        raise ValueError("config.extra.checker must be an output checker object such as "
                         "{\"type\": \"tokens\"} or {\"float_tolerance\": 1e-6}, not %s"
                         % type(given).__name__)
    try:
        checker = OutputChecker.model_validate(given)
    except ValidationError as exc:
        first = exc.errors()[0]
        place = ".".join(str(part) for part in first.get("loc", ()))
        raise ValueError("config.extra.checker%s: %s" % (
            "." + place if place else "", first.get("msg", "invalid"))) from None
    try:
        known = CHECKERS.get(checker.type)
    except UnknownName as exc:
        raise ValueError("config.extra.checker.type: %s" % exc) from None
    if not known.in_process:
        raise ValueError("config.extra.checker.type: a %s checker runs a program of the "
                         "server's: it cannot come with a request" % known.name)
    return checker


def evaluation(config: TestConfig) -> tuple[Any, list[dict[str, Any]], str | None,
                                           list[bytes], OutputChecker]:
    """What an evaluation runs: (language, test cases, the function called or None, each
    case's standard input, the output checker). ValueError, naming the field, for a request
    that cannot be evaluated (a client's mistake: answered 400 before it is admitted)."""
    language = language_of(config.language or "python")
    if language is None:
        raise ValueError("config.language %r is not run by this judge (it runs: %s)"
                         % (config.language, ", ".join(sorted(LANGUAGES))))
    lang = languages.get(language)
    cases = test_cases(config)
    names = [c.get("fn_name") for c in cases if c.get("fn_name")]
    function = str(names[0]) if names else None
    if function and not lang.default:  # the wrapper is written in the default language
        raise ValueError("function_call test cases are run in Python only here")
    inputs = []
    for case in cases:
        text = _call_input(case.get("input")) if function else str(case.get("input", ""))
        inputs.append(input_bytes(text, case["where"]))
        expected = case.get("output", "")
        if isinstance(expected, str) and not function:  # compared as bytes, on our side
            input_bytes(expected, case["where_output"])
    return lang, cases, function, inputs, checker_of(config)


def _call_input(value: Any) -> str:
    """A function call's arguments as the wrapper reads them: one JSON value per line
    (a string of such lines is kept as it is, as the APPS and verl formats give it)."""
    if isinstance(value, str):
        return value
    args = value if isinstance(value, list) else [value]
    return "\n".join(json.dumps(a) for a in args)


def _call_wrapper(code: str, name: str) -> str:
    """The candidate's code, then a call of ``name`` with the JSON arguments of standard
    input (one per line) whose result is printed as JSON: the expected value stays here."""
    return code + "\n\n" + (
        "def _judge_call():\n"
        "    import json as _j, sys as _s\n"
        "    _raw = _s.stdin.read()\n"
        "    _args = [_j.loads(l) for l in _raw.split('\\n') if l.strip()]\n"
        "    _f = globals().get(%r)\n"
        "    if _f is None and 'Solution' in globals():\n"
        "        _f = getattr(globals()['Solution'](), %r)\n"
        "    if _f is None:\n"
        "        _s.stderr.write('function %s not found\\n')\n"
        "        _s.exit(1)\n"
        "    _r = _f(*_args)\n"
        "    _s.stdout.write('\\n' + _j.dumps(_r, default=str) + '\\n')\n"
        "_judge_call()\n" % (name, name, name))
