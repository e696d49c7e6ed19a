"""The ``validator`` checker: the problem's output validator, a program compiled once per
problem (through the engine's compile cache) and run in a sandbox job of its own with the
validator's limits, as ``validator input answer feedback_dir [flags] < candidate_output``
(the Kattis/ICPC protocol: exit 42 accepts, 43 rejects, anything else is the validator's
failure, never the candidate's verdict). The input and answer files go to the validator's
job, never the candidate's; the job is confidential (its worker is replaced afterwards).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from judge import languages
from judge.engine.checkers.base import Checker, ProgramCheck
from judge.engine.compile_step import finish_compile, sandbox_job
from judge.engine.program_inputs import CHUNK_BYTES, _b64, _file_stream, _size
from judge.engine.program_verdicts import cut, validator_run, validator_sources, validator_verdict
from judge.engine.verdicts import Verdict
from judge.languages.programs import SCRIPT, program_language
from judge.sandbox.base import Limits
from judge.sandbox.streams import InputStream

#: the output validator's own limits when the package gives none (Kattis's), and the output
#: limit of a program (the validator may write as much feedback)
VALIDATOR_TIME_S = 30.0
VALIDATOR_MEMORY_MB = 2048
DEFAULT_OUTPUT_KB = 8192
#: the validator's view of the test: file names in its work directory
INPUT, ANSWER, FEEDBACK = "input", "answer", "feedback"
#: under the contest rule, an output after the first one the validator rejected
_NOT_VALIDATED = ProgramCheck(Verdict.WRONG_ANSWER, "not validated: an earlier test failed")


class Validator(Checker):
    name = "validator"
    description = "the problem's output validator program (Kattis/ICPC protocol)"
    in_process = False

    def check(self, engine: Any, problem: Any, outputs: dict[int, bytes],
              stop: bool = False) -> dict[int, ProgramCheck]:
        """Run the problem's output validator on each candidate output (one sandbox job for
        all of them, the validator compiled once per problem through the compile cache).
        With ``stop`` (the contest rule) validation ends at the first output it rejects (or
        fails on): a crafted output cannot make every test cost the validator's time limit."""
        order = sorted(outputs)
        names = [problem.tests[i].name or str(i + 1) for i in order]

        def failed_all(why: str) -> dict[int, ProgramCheck]:
            message = "output validator failed: " + why
            return {i: ProgramCheck(Verdict.WRONG_ANSWER, "test %s: %s" % (n, message),
                                    "test %s: %s" % (n, message)) for i, n in zip(order, names)}

        path = problem.validator_path()
        if path is None or not path.exists():
            return failed_all("not found (%s)" % path)
        language = problem.checker.validator_language or program_language(path)
        try:
            lang = languages.named_in("kattis", language) \
                if language not in (None, SCRIPT) else None
        except ValueError:
            lang = None
        if lang is None:
            return failed_all("cannot run a validator in %s" % (language or "an unknown "
                                                                "language"))
        own, run = problem.validator_limits, engine.limits
        # the package's validator limits, else the defaults; the package may raise them up
        # to the run's ceilings for a problem's limits (or the defaults, if higher)
        output_kb = min(own.output_kb or DEFAULT_OUTPUT_KB,
                        max(DEFAULT_OUTPUT_KB, run.max_problem_output_kb))
        limits = replace(run, memory_mb=min(own.memory_mb or VALIDATOR_MEMORY_MB,
                                            max(VALIDATOR_MEMORY_MB, run.max_problem_memory_mb)),
                         output_kb=output_kb, value_kb=max(run.value_kb, output_kb + 64),
                         nproc=max(run.nproc, lang.nproc), budget_s=None)
        time_s = min(own.time_limit_s or VALIDATOR_TIME_S,
                     max(VALIDATOR_TIME_S, run.max_problem_time_s)) + lang.startup_s
        try:
            sources = validator_sources(path)
        except (OSError, ValueError) as exc:
            return failed_all("cannot be built: %s" % exc)
        checks: dict[int, ProgramCheck] = {}
        group: list[int] = []
        size = 0
        for position, index in enumerate(order):
            weight = _size(problem.tests[index]) * 2 + len(outputs[index])  # input, answer
            group.append(index)
            size += weight
            if size >= CHUNK_BYTES or position == len(order) - 1:
                checks.update(self._validate(engine, problem, group, outputs, lang, sources,
                                             limits, time_s, stop))
                group, size = [], 0
                if stop and any(checks[i].verdict is not Verdict.PASS for i in checks):
                    for rest in order[position + 1:]:
                        checks[rest] = _NOT_VALIDATED
                    break
        return checks

    def _validate(self, engine: Any, problem: Any, order: list[int], outputs: dict[int, bytes],
                  lang: Any, sources: dict[str, str], limits: Limits, time_s: float,
                  stop: bool = False) -> dict[int, ProgramCheck]:
        """One sandbox job of the validator over some of the outputs."""
        names = [problem.tests[i].name or str(i + 1) for i in order]
        specs = []
        streams: list[InputStream] = []
        for index in order:
            test = problem.tests[index]
            checker = problem.checker_for(test)
            answer = test.answer_path()
            input_path = test.input_path()
            files: dict[str, int] = {}  # the input and answer: streamed, as a run's input
            for name, path, inline in ((INPUT, input_path, lambda: test.run_input().stdin),
                                       (ANSWER, answer, lambda: test.expected_output() or b"")):
                if path is not None:
                    files[name] = _file_stream(path, streams)
                else:
                    data = inline()
                    streams.append(InputStream(len(data), data=data))
                    files[name] = len(streams) - 1
            specs.append({"stdin": _b64(outputs[index]), "file_streams": files,
                          "feedback": FEEDBACK,
                          "argv": [INPUT, ANSWER, FEEDBACK + "/", *checker.validator_flags]})
        job, build, key = sandbox_job("validator-" + problem.identifier, lang, sources,
                                      specs, limits, time_s, engine.compile_cache,
                                      engine.sandbox.name,
                                      stop=stop, confidential=True, streams=streams)
        report = finish_compile(lang, build, key, engine.sandbox.run(job),
                                engine.compile_cache)
        if report.infra_error:
            # our failure, not the candidate's: the tests are not judged
            message = "output validator not run: " + cut(report.infra_error, 300)
            return {i: ProgramCheck(Verdict.SANDBOX_ERROR, message) for i in order}
        if not report.compiled:
            message = "output validator failed: does not compile: %s" % cut(
                str(report.compile_error), 300)
            return {i: ProgramCheck(Verdict.WRONG_ANSWER, "test %s: %s" % (n, message),
                                    "test %s: %s" % (n, message)) for i, n in zip(order, names)}
        checks: dict[int, ProgramCheck] = {}
        for position, (index, name) in enumerate(zip(order, names)):
            record = report.records.get(position)
            if record is None and stop and any(c.verdict is not Verdict.PASS
                                               for c in checks.values()):
                checks[index] = _NOT_VALIDATED  # the validator stopped at an earlier test
                continue
            died = report.died_reason if report.died_during == position else None
            checks[index] = validator_verdict(validator_run(record, died), name)
        return checks


__all__ = ["DEFAULT_OUTPUT_KB", "Validator"]
