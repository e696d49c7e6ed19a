"""Batch judging: a stream of candidates in, a results file out.

Candidates are judged in parallel (``jobs`` at a time, each on its own warm worker), and
results are written incrementally, in input order, one JSON line each, flushed as they come.
A bad solutions line is reported and skipped; everything else is still judged and written.
``resume`` skips candidates already in the output with the same code, problem and limits.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator

from judge.candidates.extract import Candidate, extract_code, with_completion_prefix
from judge.errors import Issue
from judge.execution.executor import Executor, Submission
from judge.prompts.genericize import GENERIC_FUNCTION
from judge.problem.model import Problem, Suite
from judge.execution.verdicts import CandidateResult, TestResult, Verdict

#: candidates in flight per job: bounds memory while one slow candidate holds up the output
WINDOW_PER_JOB = 64
CandidateStream = Iterable[tuple["Candidate | None", "Issue | None"]]


def optimal_candidates(suite: Suite, language: str = "python"
                       ) -> Iterator[tuple[Candidate | None, Issue | None]]:
    """One candidate per problem: its own reference solution (in ``language``: the file
    ``<suite folder>/<language>/<problem id>.<ext>``)."""
    if language != "python":
        from judge.languages.candidates import reference_solution

        for problem in suite.problems:
            code = reference_solution(problem, language)
            if code is not None:  # problems without one are skipped (the CLI counts them)
                yield Candidate(problem.identifier, code, model="optimal",
                                language=language), None
        return
    for problem in suite.problems:
        if problem.optimal_solution:
            yield Candidate(problem.identifier, problem.optimal_solution, model="optimal"), None
        else:
            yield None, Issue(problem.source, "no optimal_solution to run", "optimal_solution")


def function_names(problem: Problem, prompt_id: str | None) -> list[str]:
    """Names the candidate's function may have, preferred first: the generic name for a
    genericized prompt, then the real name (and the other one as a fallback)."""
    prompt = problem.prompt(prompt_id)
    if prompt is not None and prompt.genericize:
        return [GENERIC_FUNCTION, problem.function_name]
    return [problem.function_name, GENERIC_FUNCTION]


def submission_for(problem: Problem, candidate: Candidate) -> Submission:
    names = function_names(problem, candidate.prompt_id)
    if candidate.language not in (None, "python"):
        from judge.languages.candidates import submission

        return submission(problem, candidate.solution, candidate.language, names)
    code, note = extract_code(candidate.solution, names)
    prefix = problem_prefix(problem, candidate.prompt_id)
    if prefix:
        code, note = with_completion_prefix(code, prefix, problem.function_name)
    defined = [n for n in names if re.search(r"^\s*(async\s+)?def\s+%s\s*\(" % n, code, re.M)]
    function = defined[0] if defined else names[0]
    if function != problem.function_name:
        note = ("%s; " % note if note else "") + "judged as %s (generic name)" % function
    return Submission(code, function, note)


def problem_prefix(problem: Problem, prompt_id: str | None) -> str | None:
    """Code that completions continue (HumanEval-style suites mark it with the tag
    ``completion``: the prompt's ``input_code`` is the prefix)."""
    if not problem.tags or "completion" not in problem.tags:
        return None
    prompt = problem.prompt(prompt_id) or problem.prompts[0]
    return prompt.input_code


def problem_fingerprint(problem: Problem) -> str:
    return hashlib.sha256(problem.model_dump_json().encode()).hexdigest()[:16]


def resume_key(candidate: Candidate, code: str, problem_fp: str, limits_fp: str) -> str:
    parts = [candidate.problem_id, candidate.prompt_id or "", candidate.model or "",
             str(candidate.sample), code, problem_fp, limits_fp]
    if candidate.language not in (None, "python"):
        parts.append(candidate.language)
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def done_keys(path: Path) -> set[str]:
    """Keys of candidates already judged in an earlier run (sandbox errors are redone)."""
    keys: set[str] = set()
    if not path.exists():
        return keys
    with open(path, "rb") as handle:
        for raw in handle:
            try:
                row = json.loads(raw)
            except ValueError:
                continue
            if isinstance(row, dict) and row.get("verdict") != "sandbox_error" and row.get("key"):
                keys.add(str(row["key"]))
    return keys


class Progress:
    """A one-line progress bar on a terminal; silent otherwise."""

    def __init__(self, total: int | None, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.total = total
        self.done = 0
        self.started = time.monotonic()
        self._last = 0.0

    def step(self, verdict: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.done != self.total:
            return
        self._last = now
        rate = self.done / max(now - self.started, 1e-9)
        if self.total:
            filled = int(30 * self.done / self.total)
            bar = "[%s%s] %d/%d" % ("#" * filled, "-" * (30 - filled), self.done, self.total)
        else:
            bar = "%d judged" % self.done
        self.stream.write("\r%s %.1f/s last: %s " % (bar, rate, verdict))
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.done:
            self.stream.write("\n")
            self.stream.flush()


@dataclass
class RunOutcome:
    results: list[dict[str, Any]] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    skipped: int = 0
    interrupted: bool = False
    seconds: float = 0.0


class BatchRunner:
    def __init__(self, suite: Suite, executor: Executor, jobs: int,
                 output: IO[str] | None = None, skip_keys: set[str] | None = None,
                 progress: Progress | None = None,
                 on_issue: Callable[[Issue], None] | None = None) -> None:
        self.suite = suite
        self.executor = executor
        self.jobs = max(1, jobs)
        self.output = output
        self.skip_keys = skip_keys or set()
        self.progress = progress
        self.on_issue = on_issue
        self._limits_fp = executor.limits.fingerprint()
        # per problem, not per candidate: serializing a problem is the costly part of a key
        self._problem_fps = {p.identifier: problem_fingerprint(p) for p in suite.problems}
        self.source = "<solutions>"

    def _issue(self, outcome: RunOutcome, issue: Issue) -> None:
        outcome.issues.append(issue)
        if self.on_issue:
            self.on_issue(issue)

    def _prepare(self, candidate: Candidate, outcome: RunOutcome
                 ) -> tuple[Problem, Submission, str] | CandidateResult | None:
        problem = self.suite.by_id.get(candidate.problem_id)
        if problem is None:
            self._issue(outcome, Issue("%s" % (self._source_name()),
                                       "unknown problem_id %r" % candidate.problem_id,
                                       line=candidate.line))
            return None
        if candidate.prompt_id is not None and problem.prompt(candidate.prompt_id) is None:
            self._issue(outcome, Issue(self._source_name(), "unknown prompt_id %r for %s; "
                                       "judged with the plain name" % (candidate.prompt_id,
                                                                       problem.identifier),
                                       line=candidate.line))
        if candidate.language not in (None, "python"):
            from judge.languages.infer import typed

            problem = typed(problem)  # Any -> the type its tests show (HumanEval)
        submission = submission_for(problem, candidate)
        key = resume_key(candidate, submission.code, self._problem_fps[problem.identifier],
                         self._limits_fp)
        if key in self.skip_keys:
            outcome.skipped += 1
            return None
        if not candidate.solution.strip():
            self._issue(outcome, Issue(self._source_name(), "empty solution for %s (judged as "
                                       "compile_error)" % problem.identifier, line=candidate.line))
            return self._empty_result(problem, candidate, key)
        return problem, submission, key

    def _source_name(self) -> str:
        return self.source

    def _empty_result(self, problem: Problem, candidate: Candidate, key: str) -> CandidateResult:
        tests = [TestResult(i, Verdict.COMPILE_ERROR, 0.0, "empty solution")
                 for i in range(len(problem.tests))]
        result = CandidateResult(problem.identifier, Verdict.COMPILE_ERROR, tests, "none", 0.0,
                                 candidate.model, candidate.prompt_id, candidate.sample,
                                 "empty solution")
        result.extra["key"] = key
        return result

    def _judge(self, problem: Problem, submission: Submission, candidate: Candidate,
               key: str) -> CandidateResult:
        result = self.executor.judge(problem, submission, model=candidate.model,
                                     prompt_id=candidate.prompt_id, sample=candidate.sample)
        result.extra["key"] = key
        result.extra["language"] = candidate.language or "python"
        if candidate.line is not None:
            result.extra["line"] = candidate.line
        return result

    def _emit(self, result: CandidateResult, outcome: RunOutcome) -> None:
        row = result.to_json()
        outcome.results.append(row)
        if self.output is not None:
            self.output.write(json.dumps(row, ensure_ascii=False) + "\n")
            self.output.flush()
        if self.progress:
            self.progress.step(row["verdict"])

    def run(self, stream: CandidateStream, source: str = "<solutions>") -> RunOutcome:
        """Judge everything in ``stream``. Ctrl-C stops cleanly: what was judged is written."""
        self.source = source
        outcome = RunOutcome()
        started = time.monotonic()
        pending: deque[Future[CandidateResult] | CandidateResult] = deque()
        pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="judge")
        stop = threading.Event()
        try:
            for candidate, issue in stream:
                if issue is not None:
                    self._issue(outcome, issue)
                    continue
                assert candidate is not None
                prepared = self._prepare(candidate, outcome)
                if prepared is None:
                    continue
                if isinstance(prepared, CandidateResult):
                    pending.append(prepared)
                else:
                    problem, submission, key = prepared
                    pending.append(pool.submit(self._judge, problem, submission, candidate, key))
                # results leave in input order; a wide window keeps the other workers busy
                # while one candidate runs into its time limits
                while len(pending) > WINDOW_PER_JOB * self.jobs or (
                        pending and _ready(pending[0])):
                    self._emit(_result(pending.popleft()), outcome)
            while pending:
                self._emit(_result(pending.popleft()), outcome)
        except KeyboardInterrupt:
            outcome.interrupted = True
            stop.set()
            for item in pending:
                if isinstance(item, Future):
                    item.cancel()
        finally:
            pool.shutdown(wait=not outcome.interrupted, cancel_futures=True)
            if self.progress:
                self.progress.close()
            outcome.seconds = time.monotonic() - started
        return outcome


def _ready(item: Future[CandidateResult] | CandidateResult) -> bool:
    return not isinstance(item, Future) or item.done()


def _result(item: Future[CandidateResult] | CandidateResult) -> CandidateResult:
    return item.result() if isinstance(item, Future) else item
