"""The reference solution is timed only when a verdict depends on it (judge.kinds.function.judge).

Until a problem's reference times are known, a candidate is judged under the least limits
they could give (the floor). A test that ends within them ends the same way within larger
ones, so only a candidate stopped at a limit needs the real limits: then the reference is
timed, once per problem, and the candidate judged again when its limits are larger. The
verdicts are those of timing the reference first, which these tests compare against, with
the real process sandbox.
"""

from __future__ import annotations

import pytest

from judge.candidates.submission import Submission
from judge.running.executor import Executor
from judge.engine.reference_cache import ReferenceTimes, sandbox_identity
from judge.problem.model import function_from_data
from judge.sandbox.base import Limits
from judge.sandbox.backends.process.sandbox import ProcessSandbox
from tests.conftest import scaled_int_data
from tests.engine.test_reference_cache import Counting

#: floor 0.2 s, 4x the reference: a reference of 0.15 s of CPU per test gives 0.6 s
LIMITS = Limits(time_limit_s=2.0, time_floor_s=0.2, time_factor=4.0, memory_mb=256,
                wall_factor=3.0)


def busy(seconds: float) -> str:
    """Code for ``triple`` that computes for ``seconds`` of CPU per call, then answers."""
    return ("import time\n\ndef triple(x):\n    start = time.process_time()\n"
            "    while time.process_time() - start < %r:\n        pass\n"
            "    return 3 * x\n" % seconds)


def problem(reference: str | None, identifier: str = "deferred_triple"):
    data = scaled_int_data(identifier, "triple", 3, 2)
    if reference is not None:
        data["optimal_solution"] = reference
    return function_from_data(data, "<%s>" % identifier)


FAST = "def triple(x):\n    return 3 * x\n"
WRONG = "def triple(x):\n    return 2 * x\n"
CRASH = "def triple(x):\n    raise ValueError(x)\n"
LOOPS = "def triple(x):\n    while True:\n        pass\n"


@pytest.fixture
def box():
    sandbox = Counting(ProcessSandbox(size=1))
    try:
        yield sandbox
    finally:
        sandbox.close()


def verdicts(result) -> tuple[str, list[tuple[str, str | None]]]:
    return result.verdict.value, [(t.verdict.value, t.message) for t in result.tests]


def judged(executor: Executor, target, code: str):
    return executor.judge(target, Submission(code, "triple"))


def test_verdicts_that_need_no_limit_never_time_the_reference(box):
    target = problem(FAST)
    lazy = Executor(box, LIMITS, reference_cache=False)
    got = [verdicts(judged(lazy, target, code)) for code in (FAST, WRONG, CRASH)]
    assert box.references == 0
    eager = Executor(box, LIMITS, reference_cache=False)
    eager.kind_judge("function").test_limits(target)  # timed first, as before
    assert box.references == 1
    assert got == [verdicts(judged(eager, target, code)) for code in (FAST, WRONG, CRASH)]
    assert [v for v, _ in got] == ["pass", "wrong_answer", "runtime_error"]


def test_a_timeout_times_the_reference_once_and_stands_when_its_limits_are_the_floor(box):
    """A fast reference gives the floor: the looper's timeout under the least limits is
    its verdict (the same job), not judged twice."""
    target = problem(FAST)
    lazy = Executor(box, LIMITS, reference_cache=False)
    first = judged(lazy, target, LOOPS)
    assert box.references == 1
    jobs_first = box.candidates
    again = judged(lazy, target, LOOPS + "# again\n")
    assert box.references == 1  # known now
    jobs_again = box.candidates - jobs_first
    eager = Executor(box, LIMITS, reference_cache=False)
    eager.kind_judge("function").test_limits(target)
    before = box.candidates
    expected = judged(eager, target, LOOPS)
    # the same sandbox jobs as when the limits were known from the start: not judged twice
    assert jobs_first == jobs_again == box.candidates - before
    assert verdicts(first) == verdicts(again) == verdicts(expected)
    assert first.verdict.value == "timeout"


def test_a_slow_but_fair_candidate_is_judged_again_under_the_references_limits(box, tmp_path):
    """The reference takes 0.15 s of CPU a test, so each test's limit is 0.6 s; a candidate
    taking 0.35 s a test is stopped at the 0.2 s floor first, then judged again under the
    real limits and passes, as it does when the reference is timed first; one taking 1 s
    a test is a timeout either way."""
    target = problem(busy(0.15))
    # one store: the eager executor below takes the times the lazy one measured
    store = ReferenceTimes(tmp_path, sandbox_identity(box))
    lazy = Executor(box, LIMITS, reference_cache=store)
    fair = judged(lazy, target, busy(0.35))
    assert box.references == 1 and box.candidates >= 2  # stopped, then judged again
    assert fair.verdict.value == "pass", verdicts(fair)
    slow = judged(lazy, target, busy(1.0))
    eager = Executor(box, LIMITS, reference_cache=store)
    limits = eager.kind_judge("function").test_limits(target)[1]
    assert box.references == 1  # remembered
    assert all(0.55 < limit < 1.0 for limit in limits), limits
    assert verdicts(fair) == verdicts(judged(eager, target, busy(0.35)))
    assert verdicts(slow) == verdicts(judged(eager, target, busy(1.0)))
    assert slow.verdict.value == "timeout"


def test_an_unusable_reference_gives_the_plain_limit_and_a_plain_limit_below_the_floor(box):
    """An unusable reference (it raises) gives every test the plain limit, larger than the
    floor here: a candidate stopped at the floor is judged again under it. With a plain
    limit below the floor, the least limit is that one, never more."""
    target = problem("def triple(x):\n    raise RuntimeError('broken reference')\n")
    lazy = Executor(box, LIMITS, reference_cache=False)
    fair = judged(lazy, target, busy(0.35))
    assert fair.verdict.value == "pass", verdicts(fair)  # under the plain 2 s
    assert lazy.kind_judge("function").test_limits(target)[1] == [2.0, 2.0]
    tight = Limits(time_limit_s=0.1, time_floor_s=0.2, memory_mb=256)
    lazy = Executor(box, tight, reference_cache=False)
    assert lazy.kind_judge("function").least_limits(target)[1:] == ([0.1, 0.1], False)
    over = judged(lazy, target, busy(0.15))
    assert over.verdict.value == "timeout", verdicts(over)  # as under the 0.1 s it gets
    eager = Executor(box, tight, reference_cache=False)
    assert eager.kind_judge("function").test_limits(target)[1] == [0.1, 0.1]
    assert verdicts(over) == verdicts(judged(eager, target, busy(0.15)))


def test_no_reference_or_timing_off_is_settled_at_once(box):
    plain = problem(None, "deferred_plain")
    executor = Executor(box, LIMITS, reference_cache=False)
    assert executor.kind_judge("function").least_limits(plain)[1:] == ([2.0, 2.0], True)
    untimed = Executor(box, LIMITS, reference_timing=False)
    assert untimed.kind_judge("function").least_limits(problem(FAST))[1:] == ([2.0, 2.0], True)
    assert box.references == 0
