"""A testlib interactor: an interactive problem's C++ interactor written with testlib.h
(Codeforces, Polygon: ``registerInteraction``), compiled once per problem (through the
engine's compile cache) as C++17 with testlib.h, as a testlib checker is
(:mod:`judge.engine.checkers.testlib`), and run joined to the candidate by the judge's relay
(:mod:`judge.engine.interaction`), each in a sandbox worker of its own.

testlib's calling convention: ``interactor input tout answer``. Its ``inf`` is the test's
input, its ``ouf`` its standard input (what the candidate writes), its standard output the
candidate's input; ``tout`` is a file it writes for the checker, and ``ans`` the jury's
answer (an empty file when the test has none). When the problem has a testlib checker too
(``source``/``code`` beside ``interactor``), each test the interactor accepts is then
checked by it as Polygon does: ``checker input tout answer`` (what the interactor wrote
stands for the candidate's output), all of a candidate's tests in one checker job.

The interactor's exit codes are testlib's (:func:`judge.engine.checkers.testlib.outcome`):
0 accepts (then the checker, if any, decides), 1 (wa), 2 (pe; also testlib's "unexpected
end of file"), 4, 8 reject, 7 (``quitp``) and 16 + n (``_pc(n)``) score; 3 (FAIL), another
code, a crash, its limits, or not ending once the candidate ended are a problem error. The
verdict rules are the interactive ones (``interaction.verdict``): a rejection by an
interactor that ended first decides the test; else the candidate's own end (time, memory,
crash) decides; else the interactor's exit. A ``tout`` larger than the interactor's output
limit is a problem error.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from judge import languages
from judge.engine.checkers.base import ProgramCheck
from judge.engine.checkers.testlib import (OK, Testlib, _Cpp17, input_and_answer, outcome,
                                           run_failure, testlib_sources)
from judge.engine.checkers.validator import (ANSWER, DEFAULT_OUTPUT_KB, INPUT,
                                             VALIDATOR_MEMORY_MB, VALIDATOR_TIME_S)
from judge.engine.compile_step import sandbox_job
from judge.engine.interaction import Reading, kept_files
from judge.engine.program_verdicts import ValidatorRun, cut
from judge.engine.verdicts import Verdict
from judge.sandbox.base import JobReport
from judge.sandbox.streams import InputStream

#: the folder of the interactor's work directory its ``tout`` is written in (only what is
#: there comes back), and the file
TOUT_DIR = "tout"
TOUT = TOUT_DIR + "/tout"
#: the interactor's source file when it is given as text (``interactor_code``)
SOURCE_NAME = "interactor.cpp"
WHO = "testlib interactor"


def testlib_reading(max_points: float = 1.0) -> Callable[[ValidatorRun], Reading]:
    """How a testlib interactor's end reads (see the module doc)."""

    def read(run: ValidatorRun) -> Reading:
        failure = run_failure(run)
        if failure is not None:
            return Reading(failure=failure)
        assert run.exit_code is not None
        found = outcome(run.exit_code, run.stderr, max_points, who=WHO)
        if found.failure is not None:
            return Reading(failure=found.failure)
        if found.verdict is Verdict.WRONG_ANSWER and found.score is None:
            return Reading(rejected=found.message)
        return Reading(check=ProgramCheck(found.verdict, found.message or None,
                                          score=found.score))

    return read


class TestlibInteractor:
    """The problem's testlib interactor: its language, sources and limits, its jobs, how its
    end reads, and the checker it hands ``tout`` to (the interface of
    ``judge.kinds.program.interactive``'s validator)."""

    __test__ = False  # not a pytest class
    what = WHO

    def __init__(self, engine: Any, problem: Any) -> None:
        self.error: str | None = None
        options = problem.checker
        self.lang = _Cpp17(languages.get("cpp"))
        #: the problem's checker reads what the interactor wrote (``tout``)
        self.checks_tout = options.source is not None or options.code is not None
        self.read = testlib_reading(options.max_points or 1.0)
        own, run = problem.validator_limits, engine.limits
        output_kb = min(own.output_kb or DEFAULT_OUTPUT_KB,
                        max(DEFAULT_OUTPUT_KB, run.max_problem_output_kb))
        self.limits = replace(run, memory_mb=min(own.memory_mb or VALIDATOR_MEMORY_MB,
                                                 max(VALIDATOR_MEMORY_MB,
                                                     run.max_problem_memory_mb)),
                              output_kb=output_kb, value_kb=max(run.value_kb, output_kb + 64),
                              nproc=max(run.nproc, self.lang.nproc), budget_s=None)
        self.time_s = min(own.time_limit_s or VALIDATOR_TIME_S,
                          max(VALIDATOR_TIME_S, run.max_problem_time_s)) + self.lang.startup_s
        self.sources: dict[str, str] = {}
        try:
            self.sources = testlib_sources(problem, options.interactor,
                                           options.interactor_code, SOURCE_NAME)
        except (OSError, ValueError) as exc:
            self.error = "cannot be built: %s" % cut(str(exc), 300)

    def job(self, engine: Any, problem: Any, specs: list[dict[str, Any]],
            streams: list[InputStream]) -> Any:
        job, build, key = sandbox_job("interactor-" + problem.identifier, self.lang,
                                      self.sources, specs, self.limits, self.time_s,
                                      engine.compile_cache, engine.sandbox.name,
                                      confidential=True, streams=streams)
        job.build["accept_exit"] = OK
        return job, build, key

    def spec(self, problem: Any, test: Any, given: bytes | None, feedback: dict[str, bytes],
             streams: list[InputStream], relay: bool, output: bytes | None = None
             ) -> dict[str, Any]:
        """The interactor's run on one test: ``interactor input tout answer``, its standard
        streams relayed to the candidate's."""
        if not relay or given is not None:
            raise ValueError("a testlib interactor only runs interactively, one pass a test")
        files = input_and_answer(test, streams)
        spec: dict[str, Any] = {"file_streams": files, "feedback": TOUT_DIR, "relay": True,
                                "argv": [INPUT, TOUT, ANSWER]}
        if self.checks_tout:
            spec["feedback_keep"] = True  # tout comes back, whole, bounded
        return spec

    def tout(self, report: JobReport) -> bytes | None:
        """What the interactor wrote to ``tout`` (empty when it wrote nothing); None when it
        is larger than its output limit."""
        kept = kept_files(report)
        if kept is None:
            return None
        return kept.get(TOUT.rsplit("/", 1)[1], b"")

    def check_touts(self, engine: Any, problem: Any, touts: dict[int, bytes],
                    stop: bool) -> dict[int, ProgramCheck]:
        """The problem's testlib checker on what the interactor wrote: ``checker input tout
        answer``, the tests at once (one job per ``CHUNK_BYTES``)."""
        return Testlib().check(engine, problem, touts, stop)


def tout_too_large(test: str) -> ProgramCheck:
    message = "test %s: %s failed: its tout is larger than its output limit" % (test, WHO)
    return ProgramCheck(Verdict.WRONG_ANSWER, message, message)


__all__ = ["TOUT", "TestlibInteractor", "testlib_reading", "tout_too_large"]
