"""The ``testlib`` checker: a problem's C++ checker written with testlib.h (Codeforces,
Polygon and the datasets built from them), compiled once per problem (through the engine's
compile cache) as C++17 with testlib.h and run in a sandbox job of its own with the
checker's limits (the problem's ``validator_limits``), as testlib's calling convention says:
``checker input output answer`` (the test's input, the candidate's output, the jury's
answer: three files in the checker's work directory). The job is confidential (its worker
is replaced afterwards); the candidate's output reaches it bounded by the candidate's own
output limit, and the checker's message (standard error) comes back bounded.

testlib's exit codes:

==========  ================================================================================
exit code   what the test gets
==========  ================================================================================
0 (ok)      ``pass``
1 (wa)      ``wrong_answer``, with the checker's message
2 (pe)      ``wrong_answer``: a presentation error (said in the message)
4 (dirt)    ``wrong_answer``: extra output
8 (eof)     ``wrong_answer``: the output ended too early
7 (points)  ``quitp(p)``: a score p / ``max_points`` (default 1); a pass when it is the
            whole score, else ``wrong_answer`` "partially correct"
16 + n      ``quitf(_pc(n), ...)`` (the checker is compiled with ``PC_BASE_EXIT_CODE=16``
            so that no partial result is another outcome): n points, scored as ``quitp(n)``
3 (fail)    a problem error: the checker or the jury failed, never the candidate's verdict
others      a problem error, as is a checker that crashes, hangs, goes over its memory or
            writes past its output limit (a flood)
==========  ================================================================================

A problem error is reported as an output validator's failure is
(:mod:`judge.engine.program_verdicts`): the test is ``wrong_answer`` with the message
"testlib checker failed: ...", and the failure goes to the result's ``problem_errors``; what
the candidate's output does to a checker never turns into a pass or an excluded verdict.

testlib.h: the problem's own, when one is beside the checker's source (Polygon packages ship
theirs), else the one the judge finds installed (:func:`testlib_header`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judge import languages
from judge.engine.checkers.base import Checker, ProgramCheck
from judge.engine.checkers.validator import (DEFAULT_OUTPUT_KB, VALIDATOR_MEMORY_MB,
                                             VALIDATOR_TIME_S)
from judge.engine.compile_step import finish_compile, sandbox_job
from judge.engine.program_inputs import CHUNK_BYTES, _b64, _file_stream, _size
from judge.engine.program_verdicts import MESSAGE_CHARS, cut, validator_run, validator_sources
from judge.engine.verdicts import Verdict
from judge.problem.scoring import per_test_maxima
from judge.sandbox.base import Limits
from judge.sandbox.streams import InputStream

#: the checker's view of the test: file names in its work directory
INPUT, OUTPUT, ANSWER = "input", "output", "answer"
#: testlib's exit codes (its default mode), and the base the judge compiles ``_pc`` with
OK, WA, PE, FAIL, DIRT, POINTS, UNEXPECTED_EOF = 0, 1, 2, 3, 4, 7, 8
PC_BASE = 16
#: the file testlib checkers include
HEADER = "testlib.h"
#: where an installed copy of testlib.h is looked for: (distribution, file in it). rbx-cp
#: (PyPI) ships testlib.h unchanged (MIT license, Mikhail Mirzayanov)
INSTALLED = (("rbx-cp", "rbx/resources/predownloaded/testlib.h"),)
#: the checker's source file when it is given as text (``code``)
SOURCE_NAME = "checker.cpp"
_NOT_CHECKED = ProgramCheck(Verdict.WRONG_ANSWER, "not checked: an earlier test failed")
_POINTS = re.compile(r"^\s*points\s+([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(?:\s|$)")
_WRONG = {WA: "wrong answer", PE: "presentation error", DIRT: "presentation error (extra "
          "output)", UNEXPECTED_EOF: "wrong answer (unexpected end of the output)"}
#: the outcome testlib writes before its message (said once here, by the judge)
_SAID = re.compile(r"^\s*(?:ok|wrong answer|wrong output format|FAIL|unexpected eof)\s+")


def installed_header() -> Path | None:
    """testlib.h as an installed package ships it (``pip install --no-deps rbx-cp``), or
    None."""
    from importlib import metadata
    for distribution, name in INSTALLED:
        try:
            found = metadata.distribution(distribution)
        except metadata.PackageNotFoundError:
            continue
        path = Path(str(found.locate_file(name)))
        if path.is_file():
            return path
    return None


def testlib_header() -> str | None:
    """The text of the testlib.h the judge compiles checkers with when the problem ships
    none; None when none is installed."""
    path = installed_header()
    return None if path is None else path.read_text(encoding="utf-8", errors="replace")


def input_and_answer(test: Any, streams: list[InputStream]) -> dict[str, int]:
    """A test's input and answer as the files ``INPUT`` and ``ANSWER`` of a job (streams:
    a file is sent as it is read, inline text as it is; an absent answer is empty)."""
    files: dict[str, int] = {}
    for name, path, inline in ((INPUT, test.input_path(), lambda: test.run_input().stdin),
                               (ANSWER, test.answer_path(),
                                lambda: test.expected_output() or b"")):
        if path is not None:
            files[name] = _file_stream(path, streams)
        else:
            data = inline()
            streams.append(InputStream(len(data), data=data))
            files[name] = len(streams) - 1
    return files


class _Cpp17:
    """The C++ language as testlib checkers are built: C++17, ``_pc(n)`` exiting 16 + n."""

    def __init__(self, lang: Any) -> None:
        self._lang = lang

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lang, name)

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Any:
        build = self._lang.program_build(sources, memory_mb)
        compile = [[("-std=gnu++17" if arg.startswith("-std=") else arg) for arg in command]
                   + ["-DPC_BASE_EXIT_CODE=%d" % PC_BASE] for command in build.compile]
        return replace(build, compile=compile)


def checker_sources(problem: Any, options: Any) -> dict[str, str]:
    """The checker's files (name -> text): its source (a file, a folder, or its text), the
    problem's testlib.h beside it if there is one, else the installed one. ValueError (an
    InputError for a refused file) saying why when there is none."""
    return testlib_sources(problem, options.source, options.code, SOURCE_NAME)


def testlib_sources(problem: Any, source: str | None, code: str | None,
                    name: str) -> dict[str, str]:
    """A testlib program's files (a checker's, an interactor's): ``code`` as the file
    ``name``, else the file or folder ``source`` (relative to the problem), with testlib.h
    (see :func:`checker_sources`)."""
    if code is not None:
        sources = {name: code}
    else:
        if source is None:
            raise ValueError("no source given")
        path = problem.root / source
        sources = validator_sources(path)
        beside = path.parent / HEADER
        if path.is_file() and beside.is_file():
            sources.update(validator_sources(beside))
    if not any(Path(name).name == HEADER for name in sources):
        header = testlib_header()
        if header is None:
            raise ValueError("no %s: ship it beside the checker, or install one "
                             "(pip install --no-deps rbx-cp)" % HEADER)
        sources[HEADER] = header
    return sources


@dataclass(frozen=True)
class _Outcome:
    verdict: Verdict
    message: str
    failure: str | None = None
    score: float | None = None
    points: float | None = None


#: the most points an absolute ``quitp`` may give a test of an unscored problem
MOST_ABSOLUTE_POINTS = 1e6


def outcome(exit_code: int, said: str, max_points: float | None = 1.0,
            who: str = "testlib checker", absolute: bool = False) -> _Outcome:
    """What a testlib checker's exit code and message (its standard error) make of a test.
    ``failure``: the checker failed (a problem error). ``who`` names the program in the
    messages (a testlib interactor exits with the same codes). ``absolute``: the points are
    the test's (Polygon's default), ``max_points`` the test's maximum (more is the whole
    score); with no maximum (an unscored problem) the test passes carrying the points."""
    said = cut(said, MESSAGE_CHARS)
    if exit_code != POINTS:
        said = _SAID.sub("", said, count=1)
    if exit_code == OK:
        return _Outcome(Verdict.PASS, "")
    if exit_code in _WRONG:
        return _Outcome(Verdict.WRONG_ANSWER, "%s (%s)%s" % (
            _WRONG[exit_code], who, ": " + said if said else ""))
    if exit_code == FAIL:
        return _Outcome(Verdict.WRONG_ANSWER, "", "FAIL%s" % (": " + said if said else ""))
    if exit_code == POINTS or exit_code >= PC_BASE:
        if exit_code == POINTS:
            found = _POINTS.match(said)
            if found is None:
                return _Outcome(Verdict.WRONG_ANSWER, "", "exit code 7 (points) without a "
                                "number of points%s" % (": " + said if said else ""))
            points = float(found.group(1))
        else:
            points = float(exit_code - PC_BASE)
        if absolute and not max_points:
            if not 0 <= points <= MOST_ABSOLUTE_POINTS:
                return _Outcome(Verdict.WRONG_ANSWER, "", "gave %g points, outside 0..%g%s" % (
                    points, MOST_ABSOLUTE_POINTS, ": " + said if said else ""))
            return _Outcome(Verdict.PASS, "", points=points)
        if absolute:
            points = min(points, max_points) if points >= 0 else points
        max_points = max_points or 1.0
        if not 0 <= points <= max_points * (1 + 1e-9):
            return _Outcome(Verdict.WRONG_ANSWER, "", "gave %g points, outside 0..%g (the "
                            "checker's max_points)%s" % (points, max_points,
                                                         ": " + said if said else ""))
        score = min(1.0, points / max_points)
        if score >= 1.0:
            return _Outcome(Verdict.PASS, "", score=1.0)
        return _Outcome(Verdict.WRONG_ANSWER, "partially correct: score %.6g (%g of %g "
                        "points, %s)%s" % (score, points, max_points, who,
                                           ": " + said if said else ""),
                        score=score)
    return _Outcome(Verdict.WRONG_ANSWER, "", "exit code %d (testlib's are 0 ok, 1 wa, 2 pe, "
                    "3 fail, 7 points, 16+n partially correct)%s" % (
                        exit_code, ": " + said if said else ""))


def run_failure(run: Any) -> str | None:
    """Why a testlib program's run (a ``ValidatorRun``) ended with no exit code to read."""
    if run.timed_out:
        return "timed out after %.1f s" % run.time_s
    if run.memory_exceeded:
        return "went over its memory limit"
    if run.output_exceeded:
        return "wrote more than its output limit"
    if run.signal is not None:
        return "killed by signal %d" % run.signal
    if run.exit_code is None:
        return "did not run: %s" % cut(run.stderr, 200)
    return None


def _checked(record: dict[str, Any] | None, died: str | None, test: str,
             max_points: float | None, absolute: bool = False) -> ProgramCheck:
    """A test's verdict from its checker's run."""
    run = validator_run(record, died)
    where = "test %s: " % test
    failure = run_failure(run)
    if failure is None:
        found = outcome(run.exit_code, run.stderr, max_points, absolute=absolute)
        if found.failure is None:
            return ProgramCheck(found.verdict, where + found.message if found.message else None,
                                score=found.score, points=found.points)
        failure = found.failure
    message = where + "testlib checker failed: " + failure
    return ProgramCheck(Verdict.WRONG_ANSWER, message, message)


class Testlib(Checker):
    name = "testlib"
    description = "the problem's testlib.h checker (checker input output answer)"
    in_process = False

    def check(self, engine: Any, problem: Any, outputs: dict[int, bytes],
              stop: bool = False) -> dict[int, ProgramCheck]:
        """Run the checker on each candidate output (sandbox jobs of at most
        ``CHUNK_BYTES`` of files, the checker compiled once per problem). With ``stop`` (the
        contest rule) checking ends at the first output that is not accepted."""
        order = sorted(outputs)
        names = [problem.tests[i].name or str(i + 1) for i in order]
        options = problem.checker
        try:
            sources = checker_sources(problem, options)
        except (OSError, ValueError) as exc:
            return _failed_all(order, names, "cannot be built: %s" % cut(str(exc), 300))
        lang = _Cpp17(languages.get("cpp"))
        own, run = problem.validator_limits, engine.limits
        output_kb = min(own.output_kb or DEFAULT_OUTPUT_KB,
                        max(DEFAULT_OUTPUT_KB, run.max_problem_output_kb))
        limits = replace(run, memory_mb=min(own.memory_mb or VALIDATOR_MEMORY_MB,
                                            max(VALIDATOR_MEMORY_MB, run.max_problem_memory_mb)),
                         output_kb=output_kb, value_kb=max(run.value_kb, output_kb + 64),
                         nproc=max(run.nproc, lang.nproc), budget_s=None)
        time_s = min(own.time_limit_s or VALIDATOR_TIME_S,
                     max(VALIDATOR_TIME_S, run.max_problem_time_s)) + lang.startup_s
        checks: dict[int, ProgramCheck] = {}
        group: list[int] = []
        size = 0
        for position, index in enumerate(order):
            group.append(index)
            size += _size(problem.tests[index]) * 2 + len(outputs[index])
            if size >= CHUNK_BYTES or position == len(order) - 1:
                checks.update(self._run(engine, problem, group, outputs, lang, sources,
                                        limits, time_s, stop))
                group, size = [], 0
                if stop and any(c.verdict is not Verdict.PASS for c in checks.values()):
                    for rest in order[position + 1:]:
                        checks[rest] = _NOT_CHECKED
                    break
        return checks

    def _run(self, engine: Any, problem: Any, order: list[int], outputs: dict[int, bytes],
             lang: Any, sources: dict[str, str], limits: Limits, time_s: float,
             stop: bool) -> dict[int, ProgramCheck]:
        """One sandbox job of the checker over some of the outputs."""
        names = [problem.tests[i].name or str(i + 1) for i in order]
        specs = []
        streams: list[InputStream] = []
        for index in order:
            test = problem.tests[index]
            files = input_and_answer(test, streams)
            output = outputs[index]
            streams.append(InputStream(len(output), data=output))
            files[OUTPUT] = len(streams) - 1
            specs.append({"stdin": _b64(b""), "file_streams": files,
                          "argv": [INPUT, OUTPUT, ANSWER]})
        job, build, key = sandbox_job("testlib-" + problem.identifier, lang, sources, specs,
                                      limits, time_s, engine.compile_cache, engine.sandbox.name,
                                      stop=stop and not _may_give_points(sources),
                                      confidential=True, streams=streams)
        # the worker stops at any exit but 0: a checker that may give points (exit 7 or
        # 16 + n, a pass when they are the whole score or an unscored problem's absolute
        # points) is run on every output, and the contest rule's stop applied below
        job.build["accept_exit"] = OK
        report = finish_compile(lang, build, key, engine.sandbox.run(job), engine.compile_cache)
        if report.infra_error:
            message = "testlib checker not run: " + cut(report.infra_error, 300)
            return {i: ProgramCheck(Verdict.SANDBOX_ERROR, message) for i in order}
        if not report.compiled:
            return _failed_all(order, names, "does not compile: %s" % cut(
                str(report.compile_error), 300))
        absolute = bool(problem.checker.absolute_points)
        max_points = problem.checker.max_points or 1.0
        # absolute points: out of each test's own maximum (none in an unscored problem)
        most = (per_test_maxima(problem.scoring, problem.tests)
                if absolute and problem.scoring is not None else {})
        checks: dict[int, ProgramCheck] = {}
        for position, (index, name) in enumerate(zip(order, names)):
            record = report.records.get(position)
            if stop and any(c.verdict is not Verdict.PASS for c in checks.values()):
                checks[index] = _NOT_CHECKED  # checking stops at the first failure
                continue
            died = report.died_reason if report.died_during == position else None
            checks[index] = _checked(record, died, name,
                                     most.get(index) if absolute else max_points, absolute)
        return checks


#: what in a checker's own source can give points: ``quitp``/``quitpi``, ``_pc(n)``,
#: ``_points`` (testlib.h itself, which defines them all, is not read)
_GIVES_POINTS = re.compile(r"quitp|_pc\s*\(|\b_points\b")


def _may_give_points(sources: dict[str, str]) -> bool:
    return any(_GIVES_POINTS.search(text) for name, text in sources.items()
               if Path(name).name != HEADER)


def _failed_all(order: list[int], names: list[str], why: str) -> dict[int, ProgramCheck]:
    checks = {}
    for index, name in zip(order, names):
        message = "test %s: testlib checker failed: %s" % (name, why)
        checks[index] = ProgramCheck(Verdict.WRONG_ANSWER, message, message)
    return checks


__all__ = ["HEADER", "Testlib", "checker_sources", "installed_header", "outcome",
           "run_failure", "testlib_header", "testlib_sources"]
