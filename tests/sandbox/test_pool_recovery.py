"""A warm worker killed while idle (from outside: an operator, the OOM killer, a stopped
container) is never handed a job: the pool checks an idle worker before it sends, and a job
its worker was gone before it took runs once more on another worker. Either way the job's
answer is the candidate's, never a sandbox error (a CI run once scored a reward "not judged"
because two idle workers had been killed by another test). Real workers, real kills."""

from __future__ import annotations

import os
import signal

import pytest

from tests.sandbox.test_isolation import make_sandbox, raw_job, returned

ANSWER = """
    def f():
        return 6 * 7
"""


@pytest.fixture(params=["process", pytest.param("docker", marks=pytest.mark.docker)])
def kind(request):
    return request.param


def _idle(sandbox) -> list:
    return list(sandbox._idle.queue)


def _kill(kind: str, session) -> None:
    if kind == "docker":
        import docker

        docker.from_env().containers.get(session.transport.container_id).kill()
    else:
        os.kill(session.pid, signal.SIGKILL)
        session.transport.process.wait()


def test_a_worker_killed_while_idle_is_replaced_before_a_job(kind):
    with make_sandbox(kind, size=2) as sandbox:
        for _ in range(2):
            assert returned(sandbox.run(raw_job(ANSWER))) == 42
        idle = _idle(sandbox)
        assert idle
        for session in idle:
            _kill(kind, session)
        for _ in range(3):
            report = sandbox.run(raw_job(ANSWER))
            assert report.infra_error is None, report
            assert returned(report) == 42
        assert not set(map(id, idle)) & set(map(id, _idle(sandbox)))


def test_a_worker_that_dies_after_the_check_runs_the_job_on_another(kind):
    """The race the check cannot close: the worker passes the check, then is gone before it
    reads the job (its liveness check is made to say yes after the kill)."""
    with make_sandbox(kind, size=1) as sandbox:
        assert returned(sandbox.run(raw_job(ANSWER))) == 42
        [session] = _idle(sandbox)
        _kill(kind, session)
        session.transport.alive = lambda: True
        report = sandbox.run(raw_job(ANSWER))
        assert report.infra_error is None, report
        assert returned(report) == 42
        assert _idle(sandbox) and _idle(sandbox)[0] is not session


def test_a_worker_gone_twice_in_a_row_is_an_infrastructure_error_not_a_verdict():
    """One more try only: a sandbox whose every new worker dies says so (our failure, the
    candidate is not blamed), and does not loop."""
    from judge.sandbox.backends.process.sandbox import ProcessSandbox

    with ProcessSandbox(size=1) as sandbox:
        assert returned(sandbox.run(raw_job(ANSWER))) == 42
        spawn = sandbox._spawn
        spawned = []

        def dying_spawn(slot):
            session = spawn(slot)
            spawned.append(session)
            os.kill(session.pid, signal.SIGKILL)
            session.transport.process.wait()
            session.transport.alive = lambda: True
            return session

        [session] = _idle(sandbox)
        _kill("process", session)
        session.transport.alive = lambda: True
        sandbox._spawn = dying_spawn
        report = sandbox.run(raw_job(ANSWER))
        assert report.infra_error and not report.records and report.died_during is None
        assert len(spawned) == 1
