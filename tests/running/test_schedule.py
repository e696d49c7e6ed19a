"""The order candidates start in (judge.running.schedule): likely-long ones first, blocked
ones never holding every slot, results still in input order and verdicts unchanged."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from judge import languages
from judge.candidates.extract import Candidate
from judge.running.batch import BatchRunner
from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.running.schedule import BLOCKING, PriorityPool, pool_for, rank
from judge.engine.verdicts import CandidateResult
from judge.sandbox.base import Limits
from tests.conftest import docker_or_skip, scaled_int_problem

LIMITS = Limits(time_limit_s=0.5, memory_mb=256, output_kb=64, budget_s=1.0)
PROBLEM = scaled_int_problem("triple", "triple", 3, 6)
RIGHT = "def triple(x):\n    return 3 * x\n# %d\n"
WRONG = "def triple(x):\n    return x + x\n# %d\n"
LOOPS = "def triple(x):\n    while True:\n        pass\n# %d\n"
SLEEPS = "import time\n\ndef triple(x):\n    time.sleep(30)\n# %d\n"


# ---- the guess, by language --------------------------------------------------------------

@pytest.mark.parametrize("language, code, risk", [
    ("python", "import time\ndef f():\n    time.sleep(30)\n", 3),
    ("python", "def f(t):\n    t.join()\n", 3),
    ("python", "def f(q):\n    return q.acquire()\n", 3),
    ("python", "def f():\n    while True:\n        pass\n", 2),
    ("python", "def f():\n    while 1:\n        pass\n", 2),
    ("python", "import itertools\ndef f():\n    for i in itertools.count():\n        pass\n", 2),
    ("python", "def f(n):\n    while n > 1:\n        n //= 2\n", 1),
    ("python", "def f(xs):\n    return ', '.join(xs)\n", 0),  # str.join is not a wait
    ("python", "def f(d):\n    return d.get(1)\n", 0),
    ("python", "def f(s):\n    return s.count('a')\n", 0),
    ("cpp", "#include <unistd.h>\nint f() { usleep(100); return 0; }", 3),
    ("cpp", "int f() { std::this_thread::sleep_for(1s); return 0; }", 3),
    ("cpp", "int f() { for (;;) {} }", 2),
    ("cpp", "int f() { while (true) {} }", 2),
    ("cpp", "int f(int n) { while (n > 1) n /= 2; return n; }", 1),
    ("go", "func f() { for {} }", 2),
    ("go", "func f(c chan int) int { return <-c }", 3),
    ("rust", "fn f() { loop {} }", 2),
    ("java", "int f() throws Exception { Thread.sleep(100); return 0; }", 3),
    ("js", "function f() { setTimeout(() => 1, 100); }", 3),
])
def test_each_language_guesses_from_the_code_alone(language, code, risk):
    assert languages.get(language).stall_risk(code) == risk


def test_rank_puts_risk_before_size():
    small = scaled_int_problem("small", "f", 1, 2)
    big = scaled_int_problem("big", "f", 1, 50)
    assert rank(big, "def f(x):\n    return x\n", None) == (0, 50)
    assert rank(small, "def f(x):\n    while True:\n        pass\n", None) == (2, 2)
    assert rank(small, "def f(x):\n    while True:\n        pass\n", None) > rank(
        big, "def f(x):\n    return x\n", None)
    assert rank(small, "x", "no-such-language")[0] == 0  # reported where it is judged


# ---- the pool ------------------------------------------------------------------------------

def _gated_pool(workers: int = 1, caps: dict[int, int] | None = None
                ) -> tuple[PriorityPool, threading.Event, list[str]]:
    """A pool whose first call holds its only thread until the gate opens, so that what is
    submitted meanwhile queues up."""
    pool = PriorityPool(workers, "test", caps=caps)
    gate, order = threading.Event(), []
    started = threading.Event()

    def hold() -> None:
        started.set()
        gate.wait(10)

    pool.submit((9,), hold)
    assert started.wait(10)
    return pool, gate, order


def test_the_highest_rank_runs_first_and_ties_keep_their_order():
    pool, gate, order = _gated_pool()
    futures = [pool.submit(r, order.append, name) for r, name in
               [((0, 5), "plain-a"), ((2, 1), "loops"), ((3, 0), "blocks"), ((0, 5), "plain-b"),
                ((0, 9), "plain-big"), ((1, 0), "while")]]
    gate.set()
    for future in futures:
        future.result(10)
    pool.shutdown()
    assert order == ["blocks", "loops", "while", "plain-big", "plain-a", "plain-b"]


def test_a_call_that_raises_hands_its_exception_to_its_future():
    pool = PriorityPool(2, "test")
    try:
        future = pool.submit((0,), lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            future.result(10)
        assert pool.submit((0,), lambda: 7).result(10) == 7  # the thread lives on
    finally:
        pool.shutdown()


def test_shutdown_with_cancel_cancels_what_has_not_started():
    pool, gate, order = _gated_pool()
    waiting = [pool.submit((0,), order.append, i) for i in range(5)]
    pool.shutdown(wait=False, cancel_futures=True)
    gate.set()
    assert all(f.cancelled() for f in waiting)
    assert order == []
    with pytest.raises(RuntimeError):
        pool.submit((0,), order.append, 1)


def test_a_capped_tier_never_holds_more_threads_than_its_cap():
    """Four threads, blocking tier capped at 2: however many blocking calls wait, two threads
    stay for the others, which run meanwhile."""
    pool = PriorityPool(4, "test", caps={BLOCKING: 2})
    lock, running, most, log = threading.Lock(), [0], [0], []
    release = threading.Event()

    def blocker(i: int) -> None:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            log.append("block-%d" % i)
        release.wait(10)
        with lock:
            running[0] -= 1

    blockers = [pool.submit((BLOCKING,), blocker, i) for i in range(6)]
    others = [pool.submit((0,), log.append, "plain-%d" % i) for i in range(4)]
    for future in others:
        future.result(10)  # ran while blockers held their two threads
    with lock:
        assert most[0] == 2 and running[0] == 2, (most, running)
        assert sum(entry.startswith("block") for entry in log) == 2
    release.set()
    for future in blockers:
        future.result(10)
    pool.shutdown()
    assert most[0] == 2


def test_pool_for_caps_the_blocking_tier_at_the_slots_beyond_the_cores():
    pool = pool_for(8, 2)
    try:
        assert pool._caps == {BLOCKING: 6}
    finally:
        pool.shutdown()
    # no overcommit (a sandbox that lends nothing), or no local sandbox at all (the Ray
    # executor: each actor's own sandbox lends on its node): nothing capped, so blocking
    # candidates are never held to one at a time
    for slots, cores in ((2, 2), (8, None)):
        pool = pool_for(slots, cores)
        try:
            assert pool._caps == {}
            together = threading.Barrier(slots, timeout=10)  # broken unless all run at once
            running = [pool.submit((BLOCKING,), together.wait) for _ in range(slots)]
            assert sorted(f.result(20) for f in running) == list(range(slots))
        finally:
            pool.shutdown()


# ---- with the real sandbox -----------------------------------------------------------------

class Watching(Executor):
    """The real executor, logging when each candidate starts and ends. The first candidates
    wait until every item is queued (``queued``), so the order the rest start in is the
    pool's choice, whatever the machine's speed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.log: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.queued = threading.Event()

    def judge(self, problem: Any, submission: Submission, **meta: Any) -> CandidateResult:
        with self.lock:
            self.log.append(("start", submission.code))
        assert self.queued.wait(30)
        try:
            return super().judge(problem, submission, **meta)
        finally:
            with self.lock:
                self.log.append(("end", submission.code))


@pytest.fixture(params=["process", pytest.param("docker", marks=pytest.mark.docker)])
def two_core_box(request):
    if request.param == "docker":
        docker_or_skip()
        from judge.sandbox.backends.docker.sandbox import DockerSandbox

        box = DockerSandbox(size=2)
    else:
        from judge.sandbox.backends.process.sandbox import ProcessSandbox

        box = ProcessSandbox(size=2)
    try:
        yield box
    finally:
        box.close()


def test_sleepers_start_first_never_take_every_slot_and_results_keep_input_order(two_core_box):
    """Two cores, eight slots: a run whose sleepers all come last. The first eight
    candidates start as they come (nothing else is queued yet); of the rest, the sleepers
    start first, at most six at once, then the looper, and computing candidates run beside
    them; every verdict and the output order are as without the reordering."""
    codes = [RIGHT % i for i in range(6)] + [WRONG % i for i in range(3)] + \
        [LOOPS % 0] + [SLEEPS % i for i in range(8)]
    candidates = [Candidate(PROBLEM.identifier, code, line=i + 1, sample=i)
                  for i, code in enumerate(codes)]
    executor = Watching(two_core_box, LIMITS, reference_timing=False)

    def started() -> int:
        with executor.lock:
            return sum(event == "start" for event, _ in executor.log)

    def items():
        for i, candidate in enumerate(candidates):
            # the first eight each start before the next is queued: a pool thread that
            # took its first call late would otherwise pick a sleeper queued meanwhile
            deadline = time.monotonic() + 30
            while i <= 8 and started() < i:
                assert time.monotonic() < deadline, "candidate %d never started" % i
                time.sleep(0.005)
            yield PROBLEM, candidate, None
        executor.queued.set()

    outcome = BatchRunner(executor, executor.slots).run(items())
    assert executor.slots == 8
    rows = outcome.results
    assert [r["line"] for r in rows] == list(range(1, len(codes) + 1))
    assert [r["verdict"] for r in rows] == ["pass"] * 6 + ["wrong_answer"] * 3 + \
        ["timeout"] * 9
    starts = [code for event, code in executor.log if event == "start"]
    assert starts[:8] == codes[:8], starts  # taken as they came
    assert starts[8:14] == [SLEEPS % i for i in range(6)], starts  # blocking, capped at 6
    assert starts[14] == LOOPS % 0, starts  # then the endless loop
    in_flight, most, computed_beside = 0, 0, False
    for event, code in executor.log:
        if code.startswith("import time"):
            in_flight += 1 if event == "start" else -1
            most = max(most, in_flight)
        elif event == "end" and in_flight:
            computed_beside = True
    assert most == 6
    assert computed_beside  # the cores were not left idle behind the sleepers


def test_the_batch_guesses_once_per_distinct_candidate_and_the_executor_takes_its_guess(
        monkeypatch):
    """The stall guess the run's order uses travels on the Submission: the executor takes it
    (admission's ``likely_blocked``) instead of guessing again, and a duplicate is not
    guessed at all; the verdicts are those of the real sandbox."""
    from judge.sandbox.backends.process.sandbox import ProcessSandbox

    python = languages.get("python")
    calls: list[str] = []
    guess = type(python).stall_risk

    def counted(self, code: str) -> int:
        calls.append(code)
        return guess(self, code)
    monkeypatch.setattr(type(python), "stall_risk", counted)
    seen: list[tuple[str, int | None]] = []

    class Seeing(Executor):
        def judge(self, problem: Any, submission: Submission, **meta: Any) -> CandidateResult:
            seen.append((submission.code, submission.stall_risk))
            return super().judge(problem, submission, **meta)

    codes = [RIGHT % 0, SLEEPS % 0, LOOPS % 0, RIGHT % 0]
    box = ProcessSandbox(size=1)
    try:
        executor = Seeing(box, Limits(time_limit_s=0.3, memory_mb=256, output_kb=64,
                                      budget_s=0.6), reference_timing=False)
        outcome = BatchRunner(executor, executor.slots).run(
            (PROBLEM, Candidate(PROBLEM.identifier, code, line=i + 1, sample=i), None)
            for i, code in enumerate(codes))
    finally:
        box.close()
    assert [r["verdict"] for r in outcome.results] == ["pass", "timeout", "timeout", "pass"]
    assert sorted(seen) == sorted([(RIGHT % 0, 0), (SLEEPS % 0, 3), (LOOPS % 0, 2)])
    assert sorted(calls) == sorted(codes[:3])  # once each; the duplicate never
