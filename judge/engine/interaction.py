"""Two programs at once, joined by the judge: an interactive problem's candidate and its
interactor (the problem's output validator, run as ``validator input answer feedback_dir
[flags]`` with its standard input the candidate's output and its standard output the
candidate's input).

Each program runs in a sandbox worker of its own, under its own limits and user (process
sandbox: a uid of its own per worker; docker: a container of its own), so the candidate
can neither read the interactor's files (the input and answer go to the interactor's job
only) nor signal, trace or look into it, nor write its feedback folder. The two workers
relay their programs' standard streams over their channels to the judge (the worker's
``relay`` module); the judge passes each chunk on (:class:`Relay`) with at most one chunk in
flight each way, so nothing is buffered here beyond one chunk per direction whatever either
program does. The interactor's worker runs no job of a candidate's afterwards (it is
replaced: confidential). The interactor's job does not wait for a free core (the candidate
waits for it), so a pool of one worker cannot hold the two apart.

The verdict follows problemtools' interactive runner (``verdict``): the interactor exiting
first with "wrong answer" (43) decides the test whatever the candidate does after, and one
that fails first (crash, another exit code, its limits), or does not end once the candidate
did (idle for ``grace_s``: it hangs, or floods), is a problem error; else the
candidate's own end (time, memory, crash, output limit) decides; else the interactor's exit
(42 accepts, 43 rejects); an interactor that crashes, exits otherwise, goes past its limits,
or does not end after the candidate did (``grace_s``), is a problem error, never the
candidate's verdict.
"""

from __future__ import annotations

import base64
import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from judge.engine.checkers.base import ProgramCheck
from judge.engine.program_verdicts import ValidatorRun, _failure, cut, validator_run
from judge.engine.verdicts import Verdict
from judge.languages.sandbox import LanguageSandbox, job_pool
from judge.sandbox.base import Job, JobReport, Sandbox
from judge.sandbox.pool import PooledSandbox

CANDIDATE, INTERACTOR = "candidate", "interactor"
#: bytes an interactor may write, once the candidate ended, that still count as its
#: progress (answers to queries the candidate sent before it ended; more is a flood)
GRACE_WRITTEN_BYTES = 1 << 20


@dataclass
class _Side:
    name: str
    send: Callable[[bytes], None] | None = None
    started: bool = False
    ended: bool = False
    #: messages for it before its program started (at most a few: one chunk and controls)
    pending: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    exit_status: Any = None


class Relay:
    """The judge's half of one interaction: what each side's worker sends, passed on."""

    def __init__(self, grace_s: float) -> None:
        self.sides = {CANDIDATE: _Side(CANDIDATE), INTERACTOR: _Side(INTERACTOR)}
        self.order: list[str] = []          # the sides in the order their programs ended
        self.grace_s = grace_s
        self.killed_interactor = False
        self.killed_candidate = False
        self._timer: threading.Timer | None = None
        self._over = False
        self._written_after = 0             # bytes the interactor wrote once the timer ran
        self._close_candidate = False       # the interactor closed its input, still runs
        self._lock = threading.Lock()

    def for_side(self, name: str) -> "_Hook":
        return _Hook(self, name)

    def other(self, name: str) -> _Side:
        return self.sides[INTERACTOR if name == CANDIDATE else CANDIDATE]

    # ---- sending -------------------------------------------------------------------------
    def tell(self, side: _Side, op: str, **fields: Any) -> None:
        """A message to a side's worker: now if its program runs, kept until it does, dropped
        once it ended."""
        message = dict(fields, relay=op)
        with side.lock:
            if side.ended:
                return
            if not side.started or side.send is None:
                side.pending.append(message)
                return
            self._write(side, message)

    @staticmethod
    def _write(side: _Side, message: dict[str, Any]) -> None:
        import json

        try:
            assert side.send is not None
            side.send((json.dumps(message, separators=(",", ":")) + "\n").encode())
        except Exception:  # noqa: BLE001 - its worker is gone: its own job reports that
            side.ended = True

    # ---- events ----------------------------------------------------------------------------
    def event(self, name: str, record: dict[str, Any]) -> None:
        side, other = self.sides[name], self.other(name)
        op = record.get("op")
        if op == "started":
            with side.lock:
                side.started = True
                pending, side.pending = side.pending, []
                for message in pending:
                    self._write(side, message)
        elif op == "data":
            with other.lock:
                gone = other.ended
            if gone:  # nobody reads it any more: swallowed, as a pipe's buffer would
                self.tell(side, "ack")
            else:
                self.tell(other, "data", b64=str(record.get("b64") or ""))
            if name == INTERACTOR:
                self._progress(len(str(record.get("b64") or "")) * 3 // 4)
        elif op == "ack":
            self.tell(other, "ack")
            if name == INTERACTOR:
                self._progress()
        elif op == "eof":
            # a worker sends the end of a program's output only once the program ended
            # (its ``exit`` can come after, when the worker stopped it): it ended by now
            self._ended_first(name)
            self.tell(other, "eof")
        elif op == "closed":
            # the interactor's output is never cut (problemtools keeps that pipe open: an
            # interactor writing to a candidate that is gone must not die of SIGPIPE); what
            # it writes is dropped by the candidate's worker. The candidate's output is cut
            # once the interactor is known to have ended (it closed its input by exiting,
            # usually): a candidate that dies of the SIGPIPE before the judge knows the
            # interactor ended would otherwise count as ending first
            if name == INTERACTOR:
                with self._lock:
                    known = INTERACTOR in self.order
                    self._close_candidate = not known
                if known:
                    self.tell(other, "close")
        elif op == "exit":
            self._ended_first(name)
        elif op == "ended":
            with side.lock:
                if side.started and not side.ended:
                    self._write(side, {"relay": "done"})
                side.ended = True
            self._ended_first(name)
            self.tell(other, "eof")
            if name == CANDIDATE:
                self._kill_later()

    def _ended_first(self, name: str) -> None:
        """``name``'s program ended: it takes its place in the order of ends, and the
        candidate's output is cut if the interactor closed its input before it ended."""
        with self._lock:
            if name not in self.order:
                self.order.append(name)
            cut_now = name == INTERACTOR and self._close_candidate
            self._close_candidate = False
        if cut_now:
            self.tell(self.sides[CANDIDATE], "close")

    def _kill_later(self) -> None:
        """The candidate ended: the interactor has ``grace_s`` to end too, counted again each
        time it reads more of what the candidate wrote or writes (an interactor still
        answering a flood of queries the candidate sent before it ended is busy, not hung;
        writing more than ``GRACE_WRITTEN_BYTES`` floods: that earns no more time)."""
        with self._lock:
            if self._timer is None and not self._over:
                self._start_timer()

    def _start_timer(self) -> None:
        self._timer = threading.Timer(self.grace_s, self._kill_interactor)
        self._timer.daemon = True
        self._timer.start()

    def _progress(self, written: int = 0) -> None:
        with self._lock:
            if self._timer is None or self._over:
                return
            self._written_after += written
            if self._written_after <= GRACE_WRITTEN_BYTES:
                self._timer.cancel()
                self._start_timer()

    def _kill_interactor(self) -> None:
        with self.sides[INTERACTOR].lock:
            alive = not self.sides[INTERACTOR].ended
        if alive:
            self.killed_interactor = True
            self.tell(self.sides[INTERACTOR], "kill")

    def job_over(self, name: str) -> None:
        """A side's job returned (its worker answers no more): the other is stopped if it
        still waits for it (a side that never started: compile, set-up or sandbox failure)."""
        side = self.sides[name]
        with side.lock:
            never = not side.started
            side.ended = True
        other = self.other(name)
        self.tell(other, "eof")
        if never:
            if other.name == INTERACTOR:
                self.killed_interactor = True
            else:
                self.killed_candidate = True
            self.tell(other, "kill")
        if name == CANDIDATE:
            self._kill_later()

    def close(self) -> None:
        with self._lock:
            self._over = True
            if self._timer is not None:
                self._timer.cancel()


class _Hook:
    """What a job carries (``Job.relay``): the worker's send, and its relay events."""

    def __init__(self, relay: Relay, name: str) -> None:
        self.relay, self.name = relay, name

    def attach(self, send: Callable[[bytes], None]) -> None:
        side = self.relay.sides[self.name]
        with side.lock:
            side.send = send

    def event(self, record: dict[str, Any]) -> None:
        self.relay.event(self.name, record)


# ---- running both ----------------------------------------------------------------------------

def _pool_of(sandbox: Sandbox, job: Job) -> Sandbox | None:
    """The sandbox that holds the job's worker (a language's pool in docker)."""
    if isinstance(sandbox, LanguageSandbox):
        pool = job_pool(job)
        if pool is not None and sandbox.backend_of.own_pool(pool):
            return sandbox._pool(pool)
        return sandbox.python
    return sandbox


def run_unadmitted(sandbox: Sandbox, job: Job) -> JobReport:
    """Run an interactor's job on a worker of its own, without waiting for a free core (its
    candidate, admitted, waits for it), and retire that worker after it (it saw the
    answer)."""
    box = _pool_of(sandbox, job)
    if box is None:
        return JobReport(sandbox=sandbox.name, infra_error="no sandbox pool for %s"
                         % job.language)
    if not isinstance(box, PooledSandbox):
        return box.run(job)
    try:
        session = box._acquire()
    except Exception as exc:  # noqa: BLE001 - ours: the test is not judged
        return JobReport(sandbox=box.name, infra_error="could not start a sandbox worker "
                         "for the interactor: %s" % exc)
    try:
        uid, gid = box._job_identity(session)
        report = session.run(job, uid, gid)
        box._after_job(session, report)
        return report
    finally:
        box._discard(session)


def interact(sandbox: Sandbox, candidate: Job, interactor: Job, grace_s: float
             ) -> tuple[JobReport, JobReport, Relay]:
    """Run one test's candidate and interactor at once, joined (see the module doc)."""
    relay = Relay(grace_s)
    candidate = replace(candidate, relay=relay.for_side(CANDIDATE))
    interactor = replace(interactor, relay=relay.for_side(INTERACTOR), urgent=True)
    reports: dict[str, JobReport] = {}

    def run_interactor() -> None:
        try:
            reports[INTERACTOR] = run_unadmitted(sandbox, interactor)
        except Exception as exc:  # noqa: BLE001
            reports[INTERACTOR] = JobReport(sandbox=sandbox.name,
                                            infra_error="interactor: %s" % exc)
        finally:
            relay.job_over(INTERACTOR)

    thread = threading.Thread(target=run_interactor, name="interactor", daemon=True)
    thread.start()
    try:
        reports[CANDIDATE] = sandbox.run(candidate)
    finally:
        relay.job_over(CANDIDATE)
    thread.join()
    relay.close()
    return reports[CANDIDATE], reports[INTERACTOR], relay


# ---- the verdict -------------------------------------------------------------------------------

@dataclass
class Outcome:
    """A test's verdict from an interaction: ``check`` (the verdict, its message and any
    problem error); ``ended`` is the candidate's own end when it decided."""

    check: ProgramCheck
    interactor: ValidatorRun


@dataclass(frozen=True)
class Reading:
    """What an interactor's own end says, in its protocol: ``rejected`` (a wrong answer,
    which decides the test when the interactor ended first), ``failure`` (why it is no
    judgement: a problem error, unless the candidate's end decides), else ``check`` (its
    judgement: a pass, or a partial score). Messages without the test's name."""

    failure: str | None = None
    rejected: str | None = None
    check: ProgramCheck | None = None


def kattis_reading(interactor: ValidatorRun) -> Reading:
    """The Kattis protocol: 42 accepts, 43 rejects (``judgemessage.txt`` says why)."""
    rejected = None
    if interactor.exit_code == 43 and not (interactor.signal or interactor.timed_out):
        said = cut(interactor.judge_message or interactor.team_message)
        rejected = "wrong answer (interactor): " + said if said else \
            "wrong answer: rejected by the interactor"
    return Reading(failure=_failure(interactor), rejected=rejected,
                   check=ProgramCheck(Verdict.PASS))


def verdict(candidate_end: tuple[Verdict, str] | None, interactor: ValidatorRun,
            first: str | None, killed_interactor: bool, test: str = "",
            read: Callable[[ValidatorRun], Reading] = kattis_reading) -> ProgramCheck:
    """problemtools' rules (see the module doc). ``candidate_end``: how the candidate's run
    ended when not by a normal exit (``program_verdicts.run_verdict``); ``first``: whose
    program ended first; ``killed_interactor``: the judge stopped it (the candidate had
    ended ``grace_s`` before, or never started); ``read``: the interactor's protocol (Kattis
    exit codes, or testlib's)."""
    where = "test %s: " % test if test else ""
    reading = read(interactor)
    if reading.rejected is not None and first == INTERACTOR:
        return ProgramCheck(Verdict.WRONG_ANSWER, where + reading.rejected)
    failure = "did not end after the candidate did" if killed_interactor else reading.failure
    # an interactor that never ends (it hangs, or floods a candidate that is gone) is the
    # problem's: once the candidate ended, a correct one reads the end of its input and exits
    hung = killed_interactor or interactor.timed_out
    if candidate_end is not None and (failure is None or (first != INTERACTOR and not hung)):
        # the candidate's own end came first: its verdict (what the interactor did after,
        # reading a closed pipe, is not the problem's fault)
        return ProgramCheck(candidate_end[0], where + candidate_end[1])
    if failure is not None:
        message = "interactor failed: " + failure
        return ProgramCheck(Verdict.WRONG_ANSWER, where + message, where + message)
    if reading.rejected is not None:
        return ProgramCheck(Verdict.WRONG_ANSWER, where + reading.rejected)
    check = reading.check or ProgramCheck(Verdict.PASS)
    return replace(check, message=where + check.message if check.message else None)


def interactor_run(report: JobReport) -> ValidatorRun:
    record = report.records.get(0)
    died = report.died_reason if report.died_during == 0 else None
    return validator_run(record, died)


def kept_files(report: JobReport) -> dict[str, bytes] | None:
    """The feedback folder a validator left (multi-pass: its state and ``nextpass.in``),
    None when it was past the bound."""
    record = report.records.get(0) or {}
    kept = record.get("feedback_kept")
    if not isinstance(kept, dict) or "" in kept:
        return None
    out: dict[str, bytes] = {}
    for name, data in kept.items():
        try:
            out[str(name)] = base64.b64decode(str(data), validate=True)
        except ValueError:
            return None
    return out


__all__ = ["CANDIDATE", "INTERACTOR", "Reading", "Relay", "interact", "interactor_run",
           "kattis_reading", "kept_files", "run_unadmitted", "verdict"]
