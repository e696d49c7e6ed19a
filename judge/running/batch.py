"""Batch judging: a stream of candidates in, a results file out.

Candidates are judged in parallel (``jobs`` at a time, each on its own warm worker), and
results are written incrementally, in input order, one JSON line each, flushed as they come.
A bad solutions line is reported and skipped; everything else is still judged and written.
``resume`` skips candidates already in the output that were judged with the same code,
problem and limits (see :mod:`judge.running.resume`).

Duplicates are judged once (``dedup``, the default): a candidate whose code, function name,
language, problem and limits equal an earlier candidate's of the same run gets that
candidate's result, with its own identity and ``duplicate_of`` naming the one that was run.
Sampled LLM output repeats itself (the shared gpt-3.5 HumanEval corpus: 1,640 samples, 555
distinct), and running the same code against the same tests again only re-measures noise.
A ``sandbox_error`` (our failure, not the code's) is never passed on: its duplicates are
judged themselves.

With a ``cache`` (:mod:`judge.engine.cache`, opt-in) results are also remembered across
runs, by content: a candidate judged before with the same judge, problem, limits and options
takes the stored result (``cached: true``), and every new verdict is stored.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections import OrderedDict, deque
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Iterator

from judge import languages
from judge.candidates.extract import Candidate
from judge.candidates.submission import Submission, function_names, problem_prefix  # noqa: F401 (re-exported)
from judge.errors import Issue
from judge.engine.cache import VerdictCache
from judge.kinds.base import kind_of
from judge.running.executor import Executor
from judge.running.progress import Progress
from judge.running.schedule import PriorityPool, pool_for, rank
from judge.problem.model import Problem, Suite
from judge.engine.verdicts import CandidateResult, TestResult, Verdict

#: candidates in flight per job: bounds memory while one slow candidate holds up the output
WINDOW_PER_JOB = 512
#: distinct candidates remembered for ``dedup`` (the most recent ones): samples of one prompt
#: usually come together, so a bounded memory finds nearly every duplicate of a long run
DEDUP_MEMORY = 8192
CandidateStream = Iterable[tuple["Candidate | None", "Issue | None"]]


def optimal_candidates(suite: Suite, language: str | None = None
                       ) -> Iterator[tuple[Candidate | None, Issue | None]]:
    """One candidate per problem: its own reference solution in ``language`` (the default
    language's is the problem's ``optimal_solution``; another's, the file
    ``<suite folder>/<language>/<problem id>.<ext>``)."""
    lang = languages.get(language)
    for problem in suite.problems:
        code = kind_of(problem).reference_solution(problem, lang)
        if code is not None:
            yield Candidate(problem.identifier, code, model="optimal",
                            language=None if lang.default else lang.name), None
        elif lang.default:  # every problem should have one: say so
            yield None, Issue(problem.source, "no optimal_solution to run", "optimal_solution")
        # another language's missing files are skipped (the CLI counts them)


def language_of(candidate: Candidate) -> "languages.Language":
    """The language a candidate is in (the default one when it names none)."""
    return languages.get(candidate.language)


def submission_for(problem: Any, candidate: Candidate) -> Submission:
    """The code (and function) of a candidate, by the problem's kind."""
    return kind_of(problem).submission(problem, candidate)


def was_extracted(submission: Submission, candidate: Candidate) -> bool:
    """Whether the judged code was taken out of a reply (fences or prose around it dropped),
    not the reply as it is (a completion joined to its prompt counts as it is)."""
    if submission.extracted is not None:
        return submission.extracted
    text = candidate.solution.replace("\r\n", "\n").replace("\r", "\n")
    return submission.code.strip() != text.strip()


def problem_fingerprint(problem: Problem) -> str:
    return hashlib.sha256(problem.model_dump_json().encode()).hexdigest()[:16]


def candidate_key(candidate: Candidate, code: str) -> str:
    """Who a results line is about: the candidate's identity, code and language. Two samples
    with the same code and no ``sample`` number stay apart by their line in the solutions file."""
    sample = str(candidate.sample) if candidate.sample is not None else "line:%s" % candidate.line
    parts = [candidate.problem_id, candidate.prompt_id or "", candidate.model or "", sample,
             code]
    lang = language_of(candidate)
    if not lang.default:
        parts.append(lang.name)
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def judged_with(problem_fp: str, limits_fp: str) -> str:
    """What a results line was judged against: the problem's content and the limits."""
    return hashlib.sha256(("%s\x00%s" % (problem_fp, limits_fp)).encode()).hexdigest()[:16]


@dataclass
class RunOutcome:
    results: list[dict[str, Any]] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    skipped: int = 0
    #: candidates of problems without tests: no verdict is given (see NoTests)
    not_judged: int = 0
    interrupted: bool = False
    #: remarks that are not input errors (an empty reply: judged compile_error, as a model's
    #: real output may be empty; it does not make the run fail)
    notes: list[Issue] = field(default_factory=list)
    seconds: float = 0.0


#: what a batch judges: a problem and a candidate, or an issue (a bad input line) to report
WorkItem = tuple["Problem | None", "Candidate | None", "Issue | None"]


def with_problems(suite: Suite, stream: CandidateStream, source: str = "<solutions>"
                  ) -> Iterator[WorkItem]:
    """Pair each candidate of a solutions stream with its problem in ``suite``; a candidate
    naming no known problem becomes an issue (file and line), and the rest go on."""
    for candidate, issue in stream:
        if issue is not None or candidate is None:
            yield None, None, issue
            continue
        problem = suite.by_id.get(candidate.problem_id)
        if problem is None:
            yield None, None, Issue(source, "unknown problem_id %r" % candidate.problem_id,
                                    line=candidate.line)
            continue
        if candidate.language is not None:
            try:
                candidate.language = languages.normalize(candidate.language)
            except ValueError as exc:
                yield None, None, Issue(source, str(exc), line=candidate.line)
                continue
        yield problem, candidate, None


@dataclass
class _Duplicate:
    """A candidate whose code, function, language, problem and limits equal an earlier one's
    in this run (its ``leader``): it takes the leader's result when the leader is done."""

    leader: "Future[CandidateResult] | CandidateResult"
    problem: Problem
    submission: Submission
    candidate: Candidate
    stamp: dict[str, Any]


def same_code_key(judged: str, submission: Submission) -> str:
    """What makes two candidates the same run: problem and limits (``judged``), language,
    function name and code."""
    parts = [judged, submission.language, submission.function, submission.code]
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


class BatchRunner:
    """Judges a stream of (problem, candidate) items on an executor, ``jobs`` at a time, and
    hands results back in input order. The one path: the CLI, the Python API and the
    service all judge through it. With ``dedup`` (the default) a candidate identical to an
    earlier one of the run is not run again (see the module's docstring)."""

    def __init__(self, executor: Executor, jobs: int,
                 output: Any | None = None, previous: dict[str, dict[str, Any]] | None = None,
                 progress: Progress | None = None,
                 on_issue: Callable[[Issue], None] | None = None, dedup: bool = True,
                 cache: "VerdictCache | None" = None) -> None:
        self.executor = executor
        self.cache = cache
        options = getattr(executor, "options", None)  # a local executor's (Ray's: a dict)
        self._how = {"executor": type(executor).__name__,
                     "sandbox": getattr(getattr(executor, "sandbox", None), "name", None),
                     "test_isolation": getattr(options, "test_isolation", None),
                     "fail_fast": getattr(options, "stop_on_failure", None),
                     "all_tests": getattr(options, "all_tests", None),
                     "reference_timing": getattr(options, "reference_timing", None)}
        self.jobs = max(1, jobs)
        self.dedup = dedup
        self._leaders: OrderedDict[str, Future[CandidateResult] | CandidateResult] = \
            OrderedDict()
        self.output = output  # a judge.jsonl.Writer (or anything with .write(record))
        self.previous = previous or {}
        self.progress = progress
        self.on_issue = on_issue
        self.on_note: Callable[[Issue], None] | None = None
        self._limits_fp = executor.limits.fingerprint()
        self._problem_fps: dict[int, str] = {}
        #: the reply-to-code step's result for replies seen before (sampled output repeats
        #: itself: parsing each copy again is most of the judge's own time per candidate)
        self._submissions: OrderedDict[tuple[Any, ...], tuple[Problem, Submission]] = \
            OrderedDict()
        self._expressible: dict[tuple[str, str], bool] = {}
        #: (problem, the problem as judged in a language) by (id of the problem, language)
        self._judged: dict[tuple[int, str], tuple[Problem, Problem]] = {}
        self.source = "<solutions>"

    def _issue(self, outcome: RunOutcome, issue: Issue) -> None:
        outcome.issues.append(issue)
        if self.on_issue:
            self.on_issue(issue)

    def _in_language(self, problem: Problem, language: str | None, outcome: RunOutcome
                     ) -> Problem | None:
        """The problem as judged in the candidate's language (in a typed one, ``Any`` typed
        from its tests), or None when that language cannot express its types: a property of
        the problem, said once per problem and language, never a candidate's failure (its
        candidates are left out)."""
        lang = languages.get(language)
        kind = kind_of(problem)
        if not kind.judgeable(problem):  # valid by the spec; no verdict without tests
            if self._expressible.get((problem.identifier, "")) is None:
                note = Issue(problem.source, "%s: no tests (no correctness_test_suite): its "
                             "candidates are not judged" % problem.identifier)
                outcome.notes.append(note)  # not an input error: the file is valid
                if self.on_note:
                    self.on_note(note)
            self._expressible[(problem.identifier, "")] = False
            outcome.not_judged += 1
            return None
        known = self._judged.get((id(problem), lang.name))
        if known is not None and known[0] is problem:
            return known[1]
        judged = None
        key = (problem.identifier, lang.name)
        if self._expressible.get(key) is not False:
            try:
                judged = kind.in_language(problem, lang)
            except languages.NotExpressible as exc:
                self._issue(outcome, Issue(problem.source, "not expressible in %s (%s): its %s "
                                           "candidates are not judged"
                                           % (lang.name, exc, lang.name)))
        self._expressible[key] = judged is not None
        if judged is None:
            outcome.skipped += 1
            return None
        self._judged[(id(problem), lang.name)] = (problem, judged)  # held: its id stays its own
        return judged

    def _problem_fp(self, problem: Problem) -> str:
        # per problem, not per candidate: serialising a problem is the costly part of a key
        fp = self._problem_fps.get(id(problem))
        if fp is None:
            fp = self._problem_fps.setdefault(id(problem), problem_fingerprint(problem))
        return fp

    def _judged_with(self, problem: Problem) -> str:
        return judged_with(self._problem_fp(problem), self._limits_fp)

    def _submission(self, problem: Problem, candidate: Candidate) -> Submission:
        """``submission_for``, once per distinct reply: it depends on the problem and on
        these fields of the candidate only (a frozen Submission is shared)."""
        key = (id(problem), candidate.language, candidate.prompt_id, candidate.genericized,
               candidate.strict, candidate.solution)
        found = self._submissions.get(key)
        if found is not None and found[0] is problem:  # held: its id stays its own
            self._submissions.move_to_end(key)
            return found[1]
        made = submission_for(problem, candidate)
        self._submissions[key] = (problem, made)
        if len(self._submissions) > DEDUP_MEMORY:
            self._submissions.popitem(last=False)
        return made

    def _prepare(self, problem: Problem, candidate: Candidate, outcome: RunOutcome
                 ) -> tuple[Submission, dict[str, Any]] | CandidateResult | None:
        if candidate.prompt_id is not None and hasattr(problem, "prompt") and \
                problem.prompt(candidate.prompt_id) is None:
            self._issue(outcome, Issue(self.source, "unknown prompt_id %r for %s; "
                                       "judged with the plain name" % (candidate.prompt_id,
                                                                       problem.identifier),
                                       line=candidate.line))
        submission = self._submission(problem, candidate)
        stamp = {"key": candidate_key(candidate, submission.code),
                 "judged_with": self._judged_with(problem)}
        if candidate.line is not None:
            stamp["line"] = candidate.line
        if was_extracted(submission, candidate):
            stamp["extracted"] = True
        earlier = self.previous.get(stamp["key"])
        if earlier is not None and earlier.get("judged_with") == stamp["judged_with"] \
                and earlier.get("verdict") != Verdict.SANDBOX_ERROR.value:
            outcome.skipped += 1
            return None
        if not candidate.solution.strip():
            note = Issue(self.source, "empty solution for %s (judged as compile_error)"
                         % problem.identifier, line=candidate.line)
            outcome.notes.append(note)
            if self.on_note:
                self.on_note(note)
            return self._empty_result(problem, candidate, stamp)
        return submission, stamp

    def _empty_result(self, problem: Problem, candidate: Candidate,
                      stamp: dict[str, Any]) -> CandidateResult:
        tests = [TestResult(i, Verdict.COMPILE_ERROR, 0.0, "empty solution")
                 for i in range(len(problem.tests))]
        result = CandidateResult(problem.identifier, Verdict.COMPILE_ERROR, tests, "none", 0.0,
                                 candidate.model, candidate.prompt_id, candidate.sample,
                                 "empty solution")
        result.set(**stamp)
        return result

    def _judge(self, problem: Problem, submission: Submission, candidate: Candidate,
               stamp: dict[str, Any], cache_key: str | None = None) -> CandidateResult:
        result = self.executor.judge(problem, submission, model=candidate.model,
                                     prompt_id=candidate.prompt_id, sample=candidate.sample)
        if cache_key is not None and self.cache is not None:
            self.cache.put(cache_key, result)
        result.set(**stamp)
        result.language = candidate.language or languages.DEFAULT
        return result

    def _skip(self) -> None:
        """An input that gives no result (a bad line, a candidate already judged)."""
        if self.progress is not None:
            self.progress.skip()

    def _emit(self, result: CandidateResult) -> CandidateResult:
        if self.output is not None:
            self.output.write(result.to_json())
        if self.progress:
            self.progress.step(result.verdict.value)
        return result

    def results(self, items: Iterable[WorkItem], outcome: RunOutcome | None = None,
                source: str = "<solutions>") -> Iterator[CandidateResult]:
        """Judge every item; yield results in input order as they are ready. Bad items go
        to ``outcome.issues`` (and ``on_issue``). Stopping the iteration (or Ctrl-C)
        cancels what has not started; what was yielded is complete."""
        self.source = source
        outcome = outcome if outcome is not None else RunOutcome()
        pending: deque[Future[CandidateResult] | CandidateResult] = deque()
        # likely-long candidates start first (judge.running.schedule); output order stays
        cores = getattr(getattr(self.executor, "sandbox", None), "size", None)
        pool = pool_for(self.jobs, int(cores) if isinstance(cores, int) else None)
        finished = False
        try:
            for problem, candidate, issue in items:
                if issue is not None or problem is None or candidate is None:
                    if issue is not None:
                        self._issue(outcome, issue)
                    self._skip()
                    continue
                problem = self._in_language(problem, candidate.language, outcome)
                if problem is None:
                    self._skip()
                    continue
                prepared = self._prepare(problem, candidate, outcome)
                if prepared is None:
                    self._skip()
                    continue
                if isinstance(prepared, CandidateResult):
                    pending.append(prepared)
                else:
                    pending.append(self._submit(pool, problem, candidate, *prepared))
                # results leave in input order; a wide window keeps the other workers busy
                # while one candidate runs into its time limits
                while len(pending) > WINDOW_PER_JOB * self.jobs or (
                        pending and _ready(pending[0])):
                    yield self._emit(self._result(pending.popleft()))
            while pending:
                yield self._emit(self._result(pending.popleft()))
            finished = True
        finally:
            for item in pending:
                if isinstance(item, Future):
                    item.cancel()
            pool.shutdown(wait=finished, cancel_futures=True)
            if self.progress:
                self.progress.close()

    def _submit(self, pool: PriorityPool, problem: Problem, candidate: Candidate,
                submission: Submission, stamp: dict[str, Any]
                ) -> "Future[CandidateResult] | _Duplicate":
        """Start judging a candidate, or, when an identical one is already judged or on its
        way, wait for that one's result; or take it from the cache."""
        cache_key = None
        if self.cache is not None:
            cache_key = self.cache.key(problem_fp=self._problem_fp(problem),
                                       limits_fp=self._limits_fp, how=self._how,
                                       language=submission.language,
                                       function=submission.function, code=submission.code)
            stored = self.cache.get(cache_key)
            if stored is not None:
                return self._identity(stored, submission, candidate, stamp, cached=True)
        if not self.dedup:
            order = rank(problem, submission.code, submission.language)
            return pool.submit(order, self._judge, problem,
                               replace(submission, stall_risk=order[0]), candidate, stamp,
                               cache_key)
        key = same_code_key(stamp["judged_with"], submission)
        leader = self._leaders.get(key)
        if leader is not None:
            self._leaders.move_to_end(key)
            return _Duplicate(leader, problem, submission, candidate, stamp)
        order = rank(problem, submission.code, submission.language)
        submission = replace(submission, stall_risk=order[0])  # guessed once (the executor)
        future = pool.submit(order, self._judge, problem, submission, candidate, stamp,
                             cache_key)
        self._leaders[key] = future
        if len(self._leaders) > DEDUP_MEMORY:
            self._leaders.popitem(last=False)
        return future

    def _result(self, item: "Future[CandidateResult] | CandidateResult | _Duplicate"
                ) -> CandidateResult:
        if not isinstance(item, _Duplicate):
            return _result(item)
        leader = _result(item.leader)
        if leader.verdict is Verdict.SANDBOX_ERROR:
            # our failure, not the code's: this one is judged itself (and later duplicates
            # follow it, not the failed one)
            key = same_code_key(item.stamp["judged_with"], item.submission)
            current = self._leaders.get(key)
            if current is not None and current is not item.leader:
                # an earlier duplicate of the same failed leader was judged again already
                replacement = _result(current)
                if replacement.verdict is not Verdict.SANDBOX_ERROR:
                    return self._duplicate(replacement, item)
            result = self._judge(item.problem, item.submission, item.candidate, item.stamp)
            self._leaders[key] = result
            return result
        return self._duplicate(leader, item)

    @classmethod
    def _duplicate(cls, leader: CandidateResult, item: _Duplicate) -> CandidateResult:
        """The leader's result under the duplicate's own identity."""
        result = cls._identity(leader, item.submission, item.candidate, item.stamp)
        result.duplicate_of = leader.line if leader.line is not None else leader.key
        return result

    @staticmethod
    def _identity(judged: CandidateResult, submission: Submission, candidate: Candidate,
                  stamp: dict[str, Any], cached: bool = False) -> CandidateResult:
        """A result judged for other code of the same content, under this candidate's own
        identity (a duplicate's, or one from the cache)."""
        result = dataclasses.replace(judged, tests=list(judged.tests), model=candidate.model,
                                     prompt_id=candidate.prompt_id, sample=candidate.sample,
                                     extra=dict(judged.extra))
        result.note = submission.note or None
        result.line = None
        result.set(**stamp)
        result.language = candidate.language or languages.DEFAULT
        if cached:
            result.cached = True
        return result

    def run(self, items: Iterable[WorkItem], source: str = "<solutions>") -> RunOutcome:
        """Judge everything; results are written to ``output`` and kept in the outcome.
        Ctrl-C stops cleanly: what was judged is written."""
        outcome = RunOutcome()
        started = time.monotonic()
        try:
            for result in self.results(items, outcome, source):
                outcome.results.append(result.to_json())
        except KeyboardInterrupt:
            outcome.interrupted = True
        finally:
            outcome.seconds = time.monotonic() - started
        return outcome


def _ready(item: "Future[CandidateResult] | CandidateResult | _Duplicate") -> bool:
    if isinstance(item, _Duplicate):
        return _ready(item.leader)
    return not isinstance(item, Future) or item.done()


def _result(item: Future[CandidateResult] | CandidateResult) -> CandidateResult:
    return item.result() if isinstance(item, Future) else item
