"""APPS-style program problems (imported by ``judge.importers.rl_apps``: every test runs, no
contest rule) judged in series: each failure the series cannot vouch for is rerun alone, all
of a candidate's reruns in one job of one process per test (``series._confirm_together``),
and every test's verdict is still the one a process per test gives, for hostile programs too,
in both sandboxes."""

from __future__ import annotations

import pytest

from judge.candidates.submission import Submission
from judge.engine.engine import Engine, Options
from judge.engine.verdicts import Verdict
from judge.importers.rl_apps import problem_from_io
from judge.kinds.program.judge import ProgramJudge
from judge.sandbox.base import Limits

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
READ = "a, b = map(int, input().split())\n"
#: test i: a = i, b = 2 i, expected 3 i
IO = {"inputs": ["%d %d\n" % (i, 2 * i) for i in range(10)],
      "outputs": ["%d\n" % (3 * i) for i in range(10)]}


class _Counting:
    """A real sandbox that remembers how many tests each job it ran had."""

    def __init__(self, box):
        self.box, self.name, self.jobs = box, box.name, []

    def __getattr__(self, name):
        return getattr(self.box, name)

    def run(self, job):
        self.jobs.append(len(job.tests))
        return self.box.run(job)


@pytest.fixture(scope="module", params=SANDBOXES)
def sandbox(request):
    from judge.languages.sandbox import for_languages
    from judge.sandbox import open_sandbox

    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    box = for_languages(open_sandbox(request.param, 1), 1)
    yield box
    box.close()


def _judge(sandbox, code: str):
    problem = problem_from_io(IO, "apps_add", "Add.", field="input_output", time_limit_s=1,
                              memory_mb=256)
    assert not problem.contest.stop_at_first_failure
    counting = _Counting(sandbox)
    judge = ProgramJudge(Engine(counting, Limits(time_limit_s=1.0), Options()))
    return judge.judge(problem, Submission(code, "", None, "python")), counting.jobs


#: what each test of HOSTILE gets, as a process per test gives it
HOSTILE = READ + (
    "import os, sys, time\n"
    "if a == 1:\n    print(a - b)\n"                                  # wrong answer
    "elif a == 2:\n    raise ValueError('no')\n"                      # exception
    "elif a == 3:\n    os.kill(os.getpid(), 9)\n"                     # killed by a signal
    "elif a == 4:\n    x = b'x' * (6 * 10 ** 8)\n"                    # memory bomb
    "elif a == 6:\n    while True:\n        pass\n"                   # CPU loop
    "elif a == 7:\n    print(a + b)\n    sys.exit(3)\n"               # right output, bad exit
    "elif a == 8:\n    sys.stdout.write('x' * 10)\n    os.dup2(os.open('/dev/null', os.O_RDONLY), 0)\n"
    "else:\n    print(a + b)\n")
EXPECTED = [Verdict.PASS, Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR, Verdict.RUNTIME_ERROR,
            Verdict.MEMORY_LIMIT, Verdict.PASS, Verdict.TIMEOUT, Verdict.RUNTIME_ERROR,
            Verdict.WRONG_ANSWER, Verdict.PASS]


def test_hostile_tests_keep_their_verdicts_and_reruns_share_one_job(sandbox):
    result, jobs = _judge(sandbox, HOSTILE)
    assert [t.verdict for t in result.tests] == EXPECTED, [
        (t.verdict, t.message) for t in result.tests]
    assert result.passed == 3 and result.verdict is not Verdict.PASS
    # the series job(s), then every rerun together (one job, however many failures)
    assert jobs[0] == 10 and len(jobs) <= 3 and jobs[-1] <= 6, jobs
    assert "ValueError" in (result.tests[2].message or "")


def test_failures_after_a_changed_interpreter_are_judged_alone(sandbox):
    # test 0 silences print for every later test of its interpreter: the series sees wrong
    # answers, the reruns (one job) pass them all
    code = READ + ("import builtins\nif a == 0:\n    print(0)\n"
                   "    builtins.print = lambda *x, **k: None\nelse:\n    print(a + b)\n")
    result, jobs = _judge(sandbox, code)
    assert result.verdict is Verdict.PASS and result.passed == 10, result.message
    assert jobs in ([10], [10, 9]), jobs


def test_a_right_program_runs_in_one_job(sandbox):
    result, jobs = _judge(sandbox, READ + "print(a + b)\n")
    assert result.verdict is Verdict.PASS and jobs == [10]


def test_a_test_stopped_in_a_series_reports_its_own_cpu_time(sandbox):
    # test 0 computes for about 0.6 s and passes; test 1 loops: its time is its own second,
    # not the child's whole 1.6 s
    code = READ + ("import time\nif a == 0:\n    end = time.process_time() + 0.6\n"
                   "    while time.process_time() < end:\n        pass\n"
                   "if a == 1:\n    while True:\n        pass\nprint(a + b)\n")
    result, jobs = _judge(sandbox, code)
    assert [t.verdict for t in result.tests][:3] == [Verdict.PASS, Verdict.TIMEOUT,
                                                     Verdict.PASS]
    assert 1.0 <= result.tests[1].time_s < 1.45, result.tests[1].time_s
