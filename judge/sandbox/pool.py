"""A pool of warm workers behind any transport: the judge's side of the worker protocol
(:class:`WorkerSession`) and the pooled sandbox the back ends build on
(:class:`PooledSandbox`: admission, retirement, warm reuse). Part of :mod:`judge.sandbox`;
the job and report types are in :mod:`judge.sandbox.base`."""

from __future__ import annotations

import json
import queue
import threading
import time
from abc import abstractmethod
from typing import Any

from judge.sandbox import admission, records
from judge.sandbox.base import (Job, JobReport, MalformedLine, Sandbox,
                                SandboxUnavailable, Transport, TransportError,
                                TransportTimeout)
from judge.sandbox.harness import PROTOCOL


class WorkerSession:
    """The judge's side of the worker protocol, over any transport."""

    READY_TIMEOUT_S = 30.0

    def __init__(self, transport: Transport, name: str) -> None:
        self.transport = transport
        self.name = name
        self.jobs_run = 0
        self.hello: dict[str, Any] = {}
        self.broken = False

    def handshake(self) -> dict[str, Any]:
        record = self._read(self.READY_TIMEOUT_S, line_limit=1 << 16)
        if record is None or record.get("event") != "ready":
            self.broken = True
            raise TransportError(
                "the sandbox worker did not start: %s %s"
                % (record, self.transport.diagnostics())
            )
        if record.get("protocol") != PROTOCOL:
            self.broken = True
            raise TransportError("worker speaks protocol %s, judge speaks %s"
                                 % (record.get("protocol"), PROTOCOL))
        self.hello = record
        return record

    def _read(self, timeout: float, line_limit: int) -> dict[str, Any] | None:
        line = self.transport.readline(line_limit, timeout)
        if line is None:
            return None
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise MalformedLine("worker sent a line that is not JSON: %s"
                                % str(exc)[:200]) from None
        if not isinstance(record, dict):
            raise MalformedLine("worker sent a non-object record")
        return record

    def run(self, job: Job, uid: int | None = None, gid: int | None = None) -> JobReport:
        """Run one job; never raises for candidate behaviour, only reports it."""
        report = JobReport(sandbox=self.name)
        payload = (json.dumps(job.to_wire(uid, gid), separators=(",", ":"),
                              allow_nan=False) + "\n").encode()
        line_limit = job.limits.value_kb * 1024 * 2 + (1 << 16)
        deadline = time.monotonic() + job.deadline_s()
        self.jobs_run += 1
        try:
            self.transport.send(payload)
            for stream in job.streams:  # right after the line, as the line says
                for chunk in stream.chunks():
                    self.transport.send(chunk)
        except TransportError as exc:
            self.broken = True
            report.infra_error = "could not send the job to the sandbox: %s" % exc
            report.unstarted = True
            return report
        except OSError as exc:  # the worker waits for bytes that will not come: replaced
            self.broken = True
            report.infra_error = "could not send a test's input to the sandbox: %s" % exc
            return report
        if job.relay is not None:
            job.relay.attach(self.transport.send)
        started = False
        while True:
            remaining = deadline - time.monotonic()
            try:
                record = self._read(max(0.0, remaining), line_limit)
            except TransportTimeout:
                self.broken = True
                self._lost(report, started, "the sandbox stopped answering (job deadline)",
                           blame_candidate=False)
                return report
            except MalformedLine as exc:
                # The worker checks and bounds every record it passes on; if one still cannot
                # be read while tests run, it came from the candidate's test: a failing
                # verdict about that test, never a sandbox_error the candidate could choose.
                self.broken = True
                if started and report.compiled:
                    index = _running(job, report)
                    if index < len(job.tests):
                        report.records[index] = {
                            "event": "test", "index": index, "status": records.MALFORMED,
                            "message": "malformed result: %s" % exc}
                        return report
                self._lost(report, started, str(exc), blame_candidate=False)
                return report
            except TransportError as exc:
                self.broken = True
                self._lost(report, started, str(exc), blame_candidate=False)
                report.unstarted = not started and job.relay is None
                return report
            if record is None:
                self.broken = True
                self._lost(report, started, "the sandbox worker died "
                           + self.transport.diagnostics(), blame_candidate=True, job=job)
                report.unstarted = not started and job.relay is None
                return report
            event = record.get("event")
            if event == "relay" and job.relay is not None:
                job.relay.event(record)
            elif event == "job":
                started = True
            elif event == "compile":
                report.compiled = bool(record.get("ok"))
                report.compile_info = record
                if not report.compiled:
                    report.compile_error = str(record.get("error"))
                    report.compile_line = record.get("line")
            elif event == "test":
                index = record.get("index")
                if isinstance(index, int) and 0 <= index < len(job.tests):
                    report.records[index] = record
                    if record.get("oom_kill"):
                        report.oom_killed = True
            elif event == "end":
                report.recycle = bool(record.get("recycle"))
                return report
            elif event == "error":
                self.broken = True
                report.infra_error = "sandbox worker error: %s" % record.get("message")
                return report

    @staticmethod
    def _lost(report: JobReport, started: bool, reason: str, blame_candidate: bool,
              job: Job | None = None) -> None:
        """The worker went away mid-job. If it had begun the tests, the candidate's test that
        was running is the prime suspect (a same-user candidate can kill its worker);
        otherwise it is our failure."""
        if started and report.compiled and blame_candidate:
            report.died_during = (_running(job, report) if job is not None else
                                  max(report.records) + 1 if report.records else 0)
            report.died_reason = reason.strip()
        else:
            report.infra_error = reason.strip()


def _running(job: Job, report: JobReport) -> int:
    """The test a job was running: the first of its tests, in the order the worker runs
    them, that has no record yet (``len(job.tests)`` when all have one)."""
    if job.only is not None:
        order: Any = job.only
    else:
        order = range(job.first_test if not job.batch else 0, len(job.tests))
    return next((i for i in order if i not in report.records), len(job.tests))


class PooledSandbox(Sandbox):
    """A pool of warm workers: one job at a time per worker, recycled after an incident or
    after ``max_jobs_per_worker`` jobs. Subclasses only say how to start a worker.

    ``size`` jobs run at once (one per core asked for), and more, up to ``capacity``
    (``overcommit`` more; default ``admission.OVERCOMMIT`` per core, 0: none), while some of
    the running ones are blocked, using no CPU (see :mod:`judge.sandbox.admission`)."""

    #: whether a worker is retired after a timeout that left nothing behind: yes unless the
    #: back end says its worker kills everything below it (both shipped back ends do: their
    #: workers are child subreapers); a new back end keeps the safe default
    retire_after_timeout = True

    def __init__(self, size: int, max_jobs_per_worker: int = 200, fresh: bool = False,
                 overcommit: int | None = None) -> None:
        self.size = max(1, size)
        self.max_jobs_per_worker = 1 if fresh else max_jobs_per_worker
        self._idle: queue.LifoQueue[WorkerSession] = queue.LifoQueue()
        most = (admission.OVERCOMMIT * self.size if overcommit is None
                else self.size + max(0, overcommit))
        self.admission = admission.Admission(self.size, most)
        #: jobs in flight at most (callers may run this many at once)
        self.capacity = self.admission.most
        self._lock = threading.Lock()
        self._live: set[WorkerSession] = set()
        self._reserved: set[int] = set()  # slots of workers starting or being cleaned up
        self._closed = False

    @abstractmethod
    def _spawn(self, slot: int) -> WorkerSession:
        """Start one worker and return its session, already past the handshake."""

    def _job_identity(self, session: WorkerSession) -> tuple[int | None, int | None]:
        """The user the candidate runs as, when the back end switches users per worker."""
        return None, None

    def _free_slot(self) -> int:
        """The lowest slot no live, starting or closing worker holds (caller holds the lock).
        A slot is *reserved* from this moment until its worker is fully cleaned up, so two
        workers started together never share a slot (and so never a uid or work root)."""
        used = self._reserved | {getattr(s, "slot", -1) for s in self._live}
        return next(i for i in range(self.size + len(used) + 1) if i not in used)

    def _acquire(self) -> WorkerSession:
        while True:
            try:
                session = self._idle.get_nowait()
            except queue.Empty:
                break
            if session.transport.alive():
                return session
            self._discard(session)  # killed while idle (from outside): never handed a job
        with self._lock:
            if self._closed:
                raise SandboxUnavailable("sandbox is closed")
            slot = self._free_slot()
            self._reserved.add(slot)
        try:
            session = self._spawn(slot)
        except BaseException:
            with self._lock:
                self._reserved.discard(slot)
            raise
        session.slot = slot  # type: ignore[attr-defined]
        with self._lock:
            self._live.add(session)
            self._reserved.discard(slot)
            closed = self._closed
        if closed:  # close() ran while this worker was starting: it never saw it
            self._discard(session)
            raise SandboxUnavailable("sandbox is closed")
        return session

    def _discard(self, session: WorkerSession) -> None:
        """Stop a worker, then free its slot: the slot (and its uid) is not handed to a new
        worker until the old one's cleanup, which sweeps by uid, is over."""
        with self._lock:
            slot = getattr(session, "slot", None)
            held = session in self._live and slot is not None
            if held:
                self._reserved.add(slot)
            self._live.discard(session)
        try:
            session.transport.close()
        except Exception:
            pass
        finally:
            if held:
                with self._lock:
                    self._reserved.discard(slot)

    def run(self, job: Job) -> JobReport:
        ticket = self.admission.enter(job.limits.memory_mb << 20,
                                      urgent=job.urgent or job.likely_blocked)
        try:
            try:
                session = self._acquire()
            except (TransportError, SandboxUnavailable, OSError) as exc:
                return JobReport(sandbox=self.name, infra_error="could not start a sandbox "
                                 "worker: %s" % exc)
            self.admission.watch(ticket, getattr(session, "pid", None))
            uid, gid = self._job_identity(session)
            report = session.run(job, uid, gid)
            if report.unstarted:  # gone before it took the job: once more, on another worker
                self._discard(session)
                try:
                    session = self._acquire()
                except (TransportError, SandboxUnavailable, OSError) as exc:
                    report.infra_error = "%s; could not start another worker: %s" % (
                        report.infra_error, exc)
                    return report
                self.admission.watch(ticket, getattr(session, "pid", None))
                uid, gid = self._job_identity(session)
                report = session.run(job, uid, gid)
            self._after_job(session, report)
            retire = report.incident and (self.retire_after_timeout
                                          or not report.clean_timeout)
            if (session.broken or report.recycle or retire
                    or session.jobs_run >= self.max_jobs_per_worker):
                self._discard(session)
            else:
                self._idle.put(session)
            return report
        finally:
            self.admission.leave(ticket)

    def _after_job(self, session: WorkerSession, report: JobReport) -> None:
        """Hook for back ends that learn more after a job (e.g. an engine's OOM flag)."""

    def close(self) -> None:
        with self._lock:
            self._closed = True
            live = list(self._live)
        for session in live:
            self._discard(session)


__all__ = ["PooledSandbox", "WorkerSession"]
