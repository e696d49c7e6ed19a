"""Blocked candidates lend their core (judge.sandbox.admission): more candidates than cores
run while the running ones sleep, and a sleeper's verdict does not depend on how many others
sleep beside it, nor a looper's on how many sleepers it shares the machine with."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

import judge
from judge.candidates.submission import Submission
from judge.running.executor import Executor
from judge.sandbox.admission import Admission, tree_cpu
from judge.sandbox.base import Limits
from judge.sandbox.backends.process.sandbox import ProcessSandbox
from tests.conftest import docker_or_skip

SLEEPER = "import time\n\ndef digital_root(n):\n    time.sleep(30)\n# %d\n"
LOOPER = "def digital_root(n):\n    while True:\n        pass\n# %d\n"
LIMITS = dict(time_limit_s=0.5, budget_s=0.5)


def _problem():
    return judge.load_suite("problems/basics")["basics_digital_root"]


def _summary(result):
    """What a verdict is: the candidate's verdict and each test's verdict and message."""
    return result.verdict.value, [(t.verdict.value, t.message) for t in result.tests]


def test_tree_cpu_reads_a_process_and_its_children():
    child = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time;"
                              "p = subprocess.Popen([sys.executable, '-c', 'import time; "
                              "time.sleep(30)']); time.sleep(30)"])
    try:
        assert tree_cpu(child.pid) is not None
        assert tree_cpu(2 ** 22 + 7) is None  # no such process: not readable, so busy
    finally:
        child.kill()
        child.wait()


def test_a_sleeping_job_lends_its_core_and_an_unreadable_one_never_does():
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        gate = Admission(cores=1, most=3, window=0.02)
        first = gate.enter()
        gate.watch(first, sleeper.pid)
        while not gate.admissible(0):  # once the first is seen using no CPU
            time.sleep(0.02)
        assert not gate.admissible(1 << 60)  # memory the machine does not have is not lent
        second = gate.enter()
        assert gate.running == 2 and gate.lent == 1
        gate.watch(second, None)  # a worker whose tree cannot be read counts as busy
        blocked = threading.Event()

        def third() -> None:
            gate.leave(gate.enter())
            blocked.set()

        waiter = threading.Thread(target=third)
        waiter.start()
        gate.leave(second)  # now the sleeping one is alone again: the third may run
        waiter.join()
        assert blocked.is_set()
        gate.leave(first)
        assert gate.running == 0 and gate.peak == 2
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_pool_runs_no_more_than_its_capacity():
    with ProcessSandbox(size=1, overcommit=0) as box:
        assert box.capacity == 1
    with ProcessSandbox(size=2) as box:
        assert box.capacity > 2


def test_a_sleepers_verdict_does_not_depend_on_how_many_others_sleep():
    problem = _problem()
    with judge.Judge(sandbox=ProcessSandbox(size=1, overcommit=0), jobs=1, **LIMITS) as alone:
        single = list(alone.judge_many([(problem, SLEEPER % 0), (problem, LOOPER % 0)]))
        assert alone.sandbox.admission.peak == 1
    box = ProcessSandbox(size=1)
    try:
        with judge.Judge(sandbox=box, jobs=1, **LIMITS) as crowded:
            items = [(problem, SLEEPER % i) for i in range(6)] + [(problem, LOOPER % 0)]
            many = list(crowded.judge_many(items))
        assert box.admission.lent > 0  # sleepers ran beside each other, beyond the one core
        assert box.admission.peak > 1
    finally:
        box.close()
    assert _summary(single[0])[0] == "timeout"
    assert _summary(single[1])[0] == "timeout"
    for result in many[:-1]:
        assert _summary(result) == _summary(single[0])
    assert _summary(many[-1]) == _summary(single[1])


@pytest.mark.docker
def test_docker_sleepers_lend_their_core_too():
    from judge.sandbox.backends.docker.sandbox import DockerSandbox

    docker_or_skip()
    problem = _problem()
    box = DockerSandbox(size=1)
    try:
        with judge.Judge(sandbox=box, jobs=1, **LIMITS) as crowded:
            many = list(crowded.judge_many([(problem, SLEEPER % i) for i in range(3)]))
        assert box.admission.lent > 0  # the containers' process trees were read: lent
    finally:
        box.close()
    assert {_summary(r)[0] for r in many} == {"timeout"}
    assert len({str(_summary(r)) for r in many}) == 1


def test_an_urgent_job_does_not_wait_for_a_busy_core_only_for_a_place():
    """A problem's reference timing and code that likely blocks are admitted beside jobs
    busy on every core (``urgent``), never beyond ``most``."""
    gate = Admission(cores=1, most=2, window=0.01, probe=lambda pid: time.monotonic())
    first = gate.enter()
    gate.watch(first, 1)  # its CPU grows as fast as the clock: busy on the one core
    time.sleep(0.05)
    assert not gate.admissible(0)  # an ordinary job waits for the core
    assert gate.admissible(0, urgent=True)
    second = gate.enter(urgent=True)  # at once
    assert gate.running == 2 and gate.lent == 1
    assert not gate.admissible(0, urgent=True)  # no place left under most
    assert not gate.admissible(1 << 60, urgent=True)  # nor memory the machine lacks
    gate.leave(second)
    gate.leave(first)
    assert gate.running == 0


def _while_a_looper_computes(box, problem, then):
    """Run ``then()`` while a looper holds the sandbox's only core (two of its CPU seconds
    left at least); answer whether ``then`` was done before the looper's verdict came."""
    executor = Executor(box, Limits(time_limit_s=4.0, budget_s=4.0), reference_timing=False)
    looper = threading.Thread(target=executor.judge,
                              args=(problem, Submission(LOOPER % 99, "digital_root")))
    looper.start()
    try:
        while box.admission.running == 0 or box.admission.admissible(0):
            time.sleep(0.01)  # until the looper runs and is seen busy
        then()
        return looper.is_alive()
    finally:
        looper.join()


def test_a_reference_timing_is_not_held_behind_a_looper_on_every_core():
    """Every candidate of a problem waits for its reference timing: it runs beside a
    looper busy on the only core, not after it (the reference's CPU time, and so the
    limits, do not depend on it: the same as timed alone)."""
    problem = _problem()
    with ProcessSandbox(size=1) as box:
        alone = Executor(box, Limits(), reference_cache=False).kind_judge("function").reference_times(problem)
        timed = {}
        beside = Executor(box, Limits(), reference_cache=False)
        done_first = _while_a_looper_computes(
            box, problem, lambda: timed.setdefault("times", beside.kind_judge("function").reference_times(problem)))
    assert done_first
    assert alone is not None and timed["times"] is not None
    assert len(timed["times"]) == len(alone)


def test_a_likely_sleeper_is_not_held_behind_a_looper_on_every_core():
    """The run starts code that likely blocks first, so that its waiting overlaps the
    computing; the sandbox admits it beside a looper busy on the only core, and its
    verdict is the one it gets alone."""
    problem = _problem()
    with ProcessSandbox(size=1, overcommit=0) as box:
        single = Executor(box, Limits(**LIMITS), reference_timing=False).judge(
            problem, Submission(SLEEPER % 7, "digital_root"))
    with ProcessSandbox(size=1) as box:
        executor = Executor(box, Limits(**LIMITS), reference_timing=False)
        judged = {}
        done_first = _while_a_looper_computes(box, problem, lambda: judged.setdefault(
            "result", executor.judge(problem, Submission(SLEEPER % 7, "digital_root"))))
        assert box.admission.lent > 0
    assert done_first
    assert _summary(judged["result"]) == _summary(single)
    assert _summary(single)[0] == "timeout"
