"""Python programs in series (one forked child runs a candidate's tests one after another,
runners/python/judge_worker/program_batch.py), in both sandboxes: every verdict is the one
a process per test gives, whatever the program does to the interpreter, to the descriptors
it finds or to the result protocol."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.engine.engine import Engine, Options
from judge.kinds.program.judge import ProgramJudge
from judge.engine.verdicts import Verdict
from judge.problem.program import program_from_data
from judge.sandbox.base import Limits

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]


class _Counting:
    """A real sandbox that remembers how many tests each job it ran had."""

    def __init__(self, box):
        self.box, self.name, self.jobs = box, box.name, []

    def __getattr__(self, name):  # everything else: the real sandbox's
        return getattr(self.box, name)

    def run(self, job):
        self.jobs.append(len(job.tests))
        return self.box.run(job)


TESTS = [{"name": str(i), "stdin": "%d %d\n" % (i, 2 * i), "expected": "%d\n" % (3 * i)}
         for i in range(10)]
READ = "a, b = map(int, input().split())\n"


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


def _judge(sandbox, tmp_path: Path, code: str, all_tests: bool = False, tests=TESTS):
    from judge.candidates.submission import Submission

    problem = program_from_data(
        {"kind": "program", "identifier": "add", "statement": "Add.", "tests": tests,
         "limits": {"time_limit_s": 1, "memory_mb": 256}, "contest": {"stop_at_first_failure": True}},
        str(tmp_path / "add.json"), tmp_path)
    counting = _Counting(sandbox)
    judge = ProgramJudge(Engine(counting, Limits(time_limit_s=1.0), Options(all_tests=all_tests)))
    return judge.judge(problem, Submission(code, "", None, "python")), counting.jobs


def test_a_right_program_runs_in_one_job(sandbox, tmp_path):
    result, jobs = _judge(sandbox, tmp_path, READ + "print(a + b)\n")
    assert result.verdict is Verdict.PASS and jobs == [10]


def test_what_a_test_changes_in_the_interpreter_is_put_back(sandbox, tmp_path):
    # test 0 silences print, lifts the digit limit, turns the collector off and stays in
    # another folder: each later test must see a fresh interpreter (so 10**5000 fails)
    code = (READ + "import builtins, gc, os, sys\n"
            "if a == 0:\n"
            "    sys.set_int_max_str_digits(0)\n"
            "    builtins.print = lambda *x, **k: None\n"
            "    gc.disable()\n    os.chdir('/')\n"
            "    sys.stdout.write('0\\n')\n"
            "else:\n"
            "    assert gc.isenabled() and os.getcwd() != '/'\n"
            "    print(a + b)\n"
            "if a == 4:\n    str(10 ** 5000)\n")
    result, _ = _judge(sandbox, tmp_path, code)
    assert result.verdict is Verdict.RUNTIME_ERROR, result.message
    assert result.passed == 4 and "digits" in result.tests[4].message


def test_forged_result_lines_never_make_a_pass(sandbox, tmp_path):
    # every descriptor the program finds gets result lines ("0", ended tests, the end)
    forge = ("import os\nfor fd in range(3, 64):\n"
             "    try:\n        os.write(fd, b'0\\n0\\n0\\n0.\\n')\n"
             "    except OSError:\n        pass\n")
    wrong, _ = _judge(sandbox, tmp_path, forge + READ + "print(a - b)\n")
    assert wrong.verdict is Verdict.WRONG_ANSWER and wrong.passed == 1  # 0 - 0 == 0 + 0
    right, _ = _judge(sandbox, tmp_path, forge + READ + "print(a + b)\n")
    assert right.verdict is Verdict.PASS, right.message


def test_no_test_reads_another_tests_input(sandbox, tmp_path):
    # anything found on another descriptor or by receiving on one is printed: a wrong answer
    code = ("import os, socket\nfound = []\nfor fd in range(3, 64):\n"
            "    try:\n        found.append(os.read(fd, 64))\n    except OSError:\n        pass\n"
            "    try:\n        s = socket.socket(fileno=os.dup(fd))\n"
            "        s.setblocking(False)\n"
            "        found.append(socket.recv_fds(s, 16, 4)[1])\n"
            "    except (OSError, ValueError):\n        pass\n"
            + READ + "print(a + b, *[f for f in found if f])\n")
    result, _ = _judge(sandbox, tmp_path, code)
    assert result.verdict is Verdict.PASS, result.message


def test_threads_alarms_and_exits_end_the_child_not_the_verdicts(sandbox, tmp_path):
    code = ("import os, signal, sys, threading, time\n" + READ +
            "if a == 1:\n"
            "    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
            "if a == 2:\n    signal.signal(signal.SIGALRM, lambda *x: None)\n"
            "    signal.alarm(50)\n"
            "print(a + b)\nsys.stdout.flush()\n"
            "if a == 3:\n    os._exit(0)\n")
    result, _ = _judge(sandbox, tmp_path, code)
    assert result.verdict is Verdict.PASS, result.message


@pytest.mark.parametrize("body, verdict", [
    ("while a > 4:\n    pass\nprint(a + b)\n", Verdict.TIMEOUT),
    ("import time\nif a > 4:\n    time.sleep(30)\nprint(a + b)\n", Verdict.TIMEOUT),
    ("print([a + b][a // 5])\n", Verdict.RUNTIME_ERROR),
    ("import os\nif a > 4:\n    os.kill(os.getpid(), 9)\nprint(a + b)\n",
     Verdict.RUNTIME_ERROR),
    ("x = b'x' * ((a > 4) * 6 * 10 ** 8)\nprint(a + b)\n", Verdict.MEMORY_LIMIT),
    ("import sys\nprint(a + b)\nsys.exit(a == 5)\n", Verdict.RUNTIME_ERROR),
    ("if a < 5:\n    print(a + b)\n", Verdict.WRONG_ANSWER),
])
def test_the_first_failure_is_the_one_a_process_per_test_gives(sandbox, tmp_path, body,
                                                               verdict):
    result, _ = _judge(sandbox, tmp_path, READ + body)
    assert result.verdict is verdict, result.message
    assert result.passed == 5 and result.tests[5].verdict is verdict


def test_all_tests_reruns_each_failure_alone(sandbox, tmp_path):
    code = READ + "print(a + b if a % 3 else a - b)\n"
    result, jobs = _judge(sandbox, tmp_path, code, all_tests=True)
    # each failure rerun alone: one process per test, the three in one job (all tests run)
    assert result.passed == 7 and jobs == [10, 3]
    assert [t.verdict for t in result.tests].count(Verdict.WRONG_ANSWER) == 3
