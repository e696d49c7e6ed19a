"""Hostile candidates against the real sandboxes (design principles 1-8).

Each candidate tries to cheat, crash, hang, flood or leak. None may pass; each gets the
verdict that says what happened; nothing is left running afterwards. The same candidates run
under the process sandbox and, when an engine answers, under docker (see conftest.py).
"""

from __future__ import annotations

import json
import os
import textwrap
import time

import psutil
import pytest

from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.problem.model import function_from_data
from judge.sandbox.base import Limits
from judge.engine.verdicts import Verdict

# Expected outputs are distinctive numbers, so a candidate that finds them anywhere in its
# reach (memory, environment, files, stdout of the worker) would be caught returning them.
SECRET_SUMS = [(3, 4, 7919007), (10, 20, 7919030), (0, 0, 7919000)]
MARKER = "judge-hostile-marker"


def _problem(function: str = "add") -> object:
    data = {
        "identifier": "hostile_add",
        "description": "Add two integers plus a hidden offset.",
        "prompts": [{"prompt_id": "p", "prompt": "add", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": function,
                               "parameters": [{"name": "a", "type": "int"},
                                              {"name": "b", "type": "int"}],
                               "return_values": [{"type": "int"}]},
        "correctness_test_suite": [{"input": {"a": a, "b": b}, "expected_output": [s]}
                                   for a, b, s in SECRET_SUMS],
    }
    return function_from_data(data, "<hostile>")


PROBLEM = _problem()
LIMITS = Limits(time_limit_s=0.5, memory_mb=256, output_kb=64, wall_factor=2.0,
                wall_extra_s=0.5)
HONEST = "def add(a, b):\n    return a + b + 7919000\n"


@pytest.fixture(scope="module", params=["per-test", "on-failure"])
def executor(sandbox_factory, request):
    """Both test-isolation modes: in "on-failure" every hostile candidate first runs all its
    tests in one child, and must still end with the verdict that says what happened."""
    sandbox = sandbox_factory(LIMITS)
    try:
        yield Executor(sandbox, LIMITS, reference_timing=False, test_isolation=request.param)
    finally:
        sandbox.close()


def leftover_processes() -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline", "uids"]):
        try:
            cmdline = " ".join(proc.info["cmdline"] or [])
        except psutil.Error:
            continue
        if MARKER in cmdline:
            found.append(proc)
    return found


def judge(executor: Executor, code: str):
    result = executor.judge(PROBLEM, Submission(textwrap.dedent(code), "add"))
    # Principle 6: nothing the candidate started survives the job.
    deadline = time.monotonic() + 5
    while leftover_processes() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert leftover_processes() == [], "candidate processes survived"
    return result


def test_honest_candidate_passes(executor):
    result = judge(executor, HONEST)
    assert result.verdict is Verdict.PASS
    assert result.passed == result.total == 3


def test_infinite_loop_is_timeout(executor):
    result = judge(executor, """
        def add(a, b):
            while True:
                pass
    """)
    assert result.verdict is Verdict.TIMEOUT
    assert "CPU time" in result.message


def test_sleep_is_timeout_by_wall_clock(executor):
    result = judge(executor, """
        import time
        def add(a, b):
            time.sleep(60)
    """)
    assert result.verdict is Verdict.TIMEOUT
    assert "wall-clock" in result.message


def test_memory_bomb_is_memory_limit(executor):
    result = judge(executor, """
        def add(a, b):
            blocks = []
            while True:
                blocks.append(bytearray(16 * 1024 * 1024))
    """)
    assert result.verdict is Verdict.MEMORY_LIMIT


def test_single_huge_allocation_is_memory_limit(executor):
    result = judge(executor, """
        def add(a, b):
            return len(bytearray(10 ** 12))
    """)
    assert result.verdict is Verdict.MEMORY_LIMIT


def test_fork_bomb_fails_and_leaves_nothing(executor):
    result = judge(executor, f"""
        import os, time
        def add(a, b):
            for _ in range(10000):
                try:
                    if os.fork() == 0:
                        os.execvp("sleep", ["sleep", "300", "{MARKER}"])
                except OSError:
                    pass
            time.sleep(30)
    """)
    assert result.verdict in (Verdict.MEMORY_LIMIT, Verdict.TIMEOUT, Verdict.RUNTIME_ERROR)
    assert result.passed == 0


def test_output_flood_is_output_limit(executor):
    result = judge(executor, """
        def add(a, b):
            while True:
                print("x" * 4096)
    """)
    assert result.verdict is Verdict.OUTPUT_LIMIT


def test_big_file_write_is_output_limit(executor):
    result = judge(executor, """
        def add(a, b):
            with open("big.bin", "wb") as handle:
                while True:
                    handle.write(b"x" * 65536)
    """)
    assert result.verdict is Verdict.OUTPUT_LIMIT


def test_sys_exit_at_import_is_runtime_error(executor):
    result = judge(executor, """
        import sys
        sys.exit(0)
        def add(a, b):
            return a + b + 7919000
    """)
    assert result.verdict is Verdict.RUNTIME_ERROR
    assert "SystemExit" in result.message


def test_os_exit_is_runtime_error_not_pass(executor):
    result = judge(executor, """
        import os
        def add(a, b):
            os._exit(0)
    """)
    assert result.verdict is Verdict.RUNTIME_ERROR
    assert "exited" in result.message


def test_segfault_is_runtime_error_not_timeout(executor):
    result = judge(executor, """
        import ctypes
        def add(a, b):
            ctypes.string_at(0)
    """)
    assert result.verdict is Verdict.RUNTIME_ERROR
    assert "SIGSEGV" in result.message


def test_always_equal_object_is_wrong_answer(executor):
    result = judge(executor, """
        class Anything(int):
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__
        class Liar:
            def __eq__(self, other):
                return True
        def add(a, b):
            return Liar()
    """)
    assert result.verdict is Verdict.WRONG_ANSWER
    assert "cannot be judged" in result.message


def test_int_subclass_with_lying_eq_is_judged_by_value(executor):
    result = judge(executor, """
        class Anything(int):
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__
        def add(a, b):
            return Anything(0)
    """)
    assert result.verdict is Verdict.WRONG_ANSWER


def test_forged_records_on_stdout_do_not_count(executor):
    forged = [json.dumps({"event": "test", "index": i, "status": "returned", "value": s})
              for i, (_, _, s) in enumerate(SECRET_SUMS)]
    result = judge(executor, f"""
        import sys
        FORGED = {forged!r}
        def add(a, b):
            for line in FORGED:
                print(line)
                sys.stderr.write(line + "\\n")
            print('{{"event": "end", "recycle": false}}')
            return -1
    """)
    assert result.verdict is Verdict.WRONG_ANSWER
    assert result.passed == 0


def test_writing_into_every_open_fd_does_not_forge_a_pass(executor):
    result = judge(executor, """
        import os, json
        def add(a, b):
            fake = json.dumps({"status": "returned", "value": a + b + 7919000}).encode()
            for name in os.listdir("/proc/self/fd"):
                try:
                    os.write(int(name), fake)
                except OSError:
                    pass
            return 0
    """)
    assert result.verdict is not Verdict.PASS
    assert result.passed == 0


def test_memory_search_finds_no_expected_answers(executor):
    result = judge(executor, """
        import gc, os, re
        def add(a, b):
            pattern = re.compile(rb"79190[0-9][0-9]")
            for obj in gc.get_objects():
                text = repr(obj).encode(errors="ignore")
                match = pattern.search(text)
                if match:
                    return int(match.group())
            for pid in ("self", str(os.getppid())):
                try:
                    maps = open("/proc/%s/maps" % pid).read().splitlines()
                    mem = open("/proc/%s/mem" % pid, "rb")
                except OSError:
                    continue
                for line in maps:
                    span, perms = line.split()[:2]
                    if "r" not in perms:
                        continue
                    start, end = (int(x, 16) for x in span.split("-"))
                    try:
                        mem.seek(start)
                        chunk = mem.read(min(end - start, 1 << 24))
                    except (OSError, ValueError, OverflowError):
                        continue
                    match = pattern.search(chunk)
                    if match:
                        return int(match.group())
            return -1
    """)
    assert result.verdict is Verdict.WRONG_ANSWER
    assert result.passed == 0


def test_background_process_is_killed(executor):
    result = judge(executor, f"""
        import os, subprocess
        def add(a, b):
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    os.execvp("sleep", ["sleep", "300", "{MARKER}"])
                os._exit(0)
            subprocess.Popen(["sleep", "301", "{MARKER}"], start_new_session=True)
            return a + b + 7919000
    """)
    # The answer is right; the leftovers are killed (judge() asserts none survive).
    assert result.verdict is Verdict.PASS


def test_environment_holds_no_judge_secrets(executor, monkeypatch):
    monkeypatch.setenv("JUDGE_TEST_SECRET", "7919007")
    result = judge(executor, """
        import os
        def add(a, b):
            values = [v for k, v in os.environ.items()]
            secret = os.environ.get("JUDGE_TEST_SECRET")
            if secret:
                return int(secret)
            for v in values:
                if v.isdigit():
                    return int(v)
            return -1
    """)
    assert result.verdict is Verdict.WRONG_ANSWER
    assert os.environ["JUDGE_TEST_SECRET"] == "7919007"


def test_killing_the_worker_is_blamed_on_the_candidate(executor):
    result = judge(executor, """
        import os, signal
        def add(a, b):
            os.kill(os.getppid(), signal.SIGKILL)
            return a + b + 7919000
    """)
    # The candidate is never paid with a sandbox_error. Where the kill lands (a same-user
    # worker outside a container) the test that killed it is a runtime_error; where it cannot
    # (another uid: PermissionError; PID 1 of a container: the kernel ignores it) the
    # candidate carries on, and a candidate that raised is a runtime_error too.
    assert result.verdict is not Verdict.SANDBOX_ERROR
    first = result.tests[0]
    if first.verdict is Verdict.RUNTIME_ERROR:
        assert "died" in first.message or "PermissionError" in first.message
    else:
        assert executor.sandbox.name == "docker" and first.verdict is Verdict.PASS
    # and the sandbox still works for the next candidate
    assert judge(executor, HONEST).verdict is Verdict.PASS


def test_huge_return_value_is_output_limit(executor):
    result = judge(executor, """
        def add(a, b):
            return "x" * (64 * 1024 * 1024)
    """)
    assert result.verdict in (Verdict.OUTPUT_LIMIT, Verdict.MEMORY_LIMIT)


def test_crash_in_one_test_does_not_leak_into_the_next(executor):
    result = judge(executor, """
        STATE = []
        def add(a, b):
            STATE.append(1)
            if a == 3:
                raise ValueError("boom")
            assert len(STATE) == 1, "state leaked between tests"
            return a + b + 7919000
    """)
    assert [t.verdict for t in result.tests] == [Verdict.RUNTIME_ERROR, Verdict.PASS,
                                                 Verdict.PASS]
    assert "ValueError at line 6: boom" in result.tests[0].message


@pytest.mark.parametrize("code, fragment", [
    ("def add(a, b) return 1", "SyntaxError"),
    ("import module_that_does_not_exist\ndef add(a, b):\n    return 1", "import failed"),
    ("def plus(a, b):\n    return a + b", "function 'add' is not defined (defined: plus)"),
])
def test_compile_errors(executor, code, fragment):
    result = judge(executor, code)
    assert result.verdict is Verdict.COMPILE_ERROR
    assert fragment in result.message


def test_function_found_by_name_not_last_callable(executor):
    result = judge(executor, """
        def add(a, b):
            return a + b + 7919000
        def helper(a, b):
            return 0
        class Last:
            pass
    """)
    assert result.verdict is Verdict.PASS


def test_network_is_unreachable_where_isolated(executor, tcp_listener):
    """The candidate tries a listener this test started (on 127.0.0.1 and every other address
    of the host); the same connections work from the test process, so without isolation the
    candidate would connect and pass."""
    assert judge(executor, HONEST).verdict is Verdict.PASS  # a worker runs: describe() knows
    if not executor.sandbox.describe().get("network_isolated"):
        pytest.skip("this sandbox shares the host network: %s" % executor.sandbox.describe())
    targets = tcp_listener.host_addresses()
    for host in targets:
        tcp_listener.connect_from_here(host)  # the control: reachable from outside the sandbox
    controls = tcp_listener.accepted()
    result = judge(executor, """
        import socket
        def add(a, b):
            for host in %r:
                try:
                    socket.create_connection((host, %d), timeout=0.3).close()
                    return a + b + 7919000  # connected: the right answer, so the test would fail
                except OSError:
                    pass
            return -1
    """ % (targets, tcp_listener.port))
    assert result.verdict is Verdict.WRONG_ANSWER, result
    assert all(t.verdict is Verdict.WRONG_ANSWER for t in result.tests), result.tests
    time.sleep(0.2)
    assert tcp_listener.accepted() == controls, "a connection from inside the sandbox arrived"
