"""SandboxFusion's semantics on the judge's SandboxFusion routes (issue 35, item 1), with the
real ``sandbox-fusion`` client and SandboxFusion-style requests against a real `judge serve`
with its default ceilings, in both sandboxes: ``run_timeout`` is wall clock (a sleeper is
TimeLimitExceeded; a queued request does not lose its time), Java runs with assertions on,
a Python syntax error's standard error is Python's own, an output flood is never Success,
and verl's 10 s / 1,024 MB request runs Java and Go and a slow-but-correct program."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

sandbox_fusion = pytest.importorskip("sandbox_fusion")
from sandbox_fusion import RunCodeRequest, RunStatus, run_code  # noqa: E402

from tests.servers import Server  # noqa: E402

SLEEP_1S = {
    "python": "import time\ntime.sleep(1)\nprint('woke')\n",
    "cpp": "#include <chrono>\n#include <thread>\nint main(){"
           "std::this_thread::sleep_for(std::chrono::milliseconds(1000));}\n",
    "java": "public class Main { public static void main(String[] a) throws Exception {"
            " Thread.sleep(1000); } }\n",
    "go": "package main\nimport \"time\"\nfunc main() { time.Sleep(time.Second) }\n",
}


@pytest.fixture(scope="module", params=["process", pytest.param("docker", marks=pytest.mark.docker)])
def server(request):
    """`judge serve` with its defaults (no limit flags: the SandboxFusion routes' own
    ceilings, 10 s and 1,024 MB), one job, so requests queue."""
    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    srv = Server.start(["--sandbox", request.param, "--jobs", "1"], timeout=300)
    yield srv
    code, log, alive = srv.stop()
    assert alive == [], "processes left after shutdown: %s" % alive
    assert "sandbox closed" in log and "Traceback" not in log, log


def call(server, **fields):
    return run_code(RunCodeRequest(**fields), endpoint=server.url, max_attempts=1)


def raw(server, body):
    response = httpx.post(server.url + "/run_code", json=body, timeout=600)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("language", sorted(SLEEP_1S))
def test_a_sleeper_over_run_timeout_is_time_limit_exceeded(server, language):
    result = call(server, code=SLEEP_1S[language], language=language, run_timeout=0.5,
                  compile_timeout=60)
    assert result.status == RunStatus.Failed, result
    assert result.run_result.status == "TimeLimitExceeded", result
    assert result.run_result.return_code is None  # as SandboxFusion: killed, no code
    assert result.run_result.execution_time is not None


def test_a_sleeper_within_run_timeout_succeeds(server):
    result = call(server, code="import time\ntime.sleep(0.3)\nprint('ok')\n",
                  language="python", run_timeout=5)
    assert result.status == RunStatus.Success and result.run_result.stdout == "ok\n"
    assert result.run_result.execution_time >= 0.3


def test_queued_requests_do_not_lose_their_time(server):
    """Eight sleepers of 0.8 s under run_timeout 2 on a one-job server: they cannot all
    run at once, so some wait in the queue, longer than their run_timeout in total; the
    wall clock starts when each runs, so every one is Success."""
    body = {"code": "import time\ntime.sleep(0.8)\nprint('done')\n", "language": "python",
            "run_timeout": 2}
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: raw(server, body), range(8)))
    assert [r["status"] for r in results] == ["Success"] * 8, results
    assert all(r["run_result"]["stdout"] == "done\n" for r in results)


def test_java_runs_with_assertions_enabled(server):
    result = call(server, language="java", compile_timeout=60, code=(
        "public class Main { public static void main(String[] a) {"
        " System.out.println(\"before\"); assert 1 == 2 : \"one is not two\"; } }\n"))
    assert result.status == RunStatus.Failed, result
    assert result.run_result.status == "Finished" and result.run_result.return_code == 1
    assert "java.lang.AssertionError: one is not two" in result.run_result.stderr
    assert result.run_result.stdout == "before\n"
    assert result.compile_result.status == "Finished"


def test_a_python_syntax_error_is_pythons_own(server):
    result = call(server, language="python", code="int a = 1\n", run_timeout=5)
    assert result.status == RunStatus.Failed and result.compile_result is None
    assert result.run_result.status == "Finished" and result.run_result.return_code == 1
    stderr = result.run_result.stderr
    assert stderr.rstrip().endswith("SyntaxError: invalid syntax"), stderr
    assert 'File "' in stderr and "line 1" in stderr and "int a = 1" in stderr, stderr
    assert "error: invalid syntax" not in stderr  # not the judge's rewritten line


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_an_output_flood_is_never_success(server, stream):
    code = ("import signal, sys\nsignal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "try:\n    sys.%s.write('y' * (12 << 20))\n    sys.%s.flush()\n"
            "except OSError:\n    pass\n" % (stream, stream))
    result = raw(server, {"code": code, "language": "python", "run_timeout": 10})
    assert result["status"] == "Failed", result["status"]
    assert result["judge"]["verdict"] == "output_limit"
    # at most what SandboxFusion reads of a stream: its first MiB
    assert len(result["run_result"][stream].encode()) <= 1 << 20


def test_stderr_is_kept_whole_up_to_a_mebibyte(server):
    code = "import sys\nsys.stderr.write('e' * 100000 + 'END')\nsys.exit(3)\n"
    result = call(server, language="python", code=code)
    assert result.run_result.return_code == 3
    assert result.run_result.stderr == "e" * 100000 + "END"


def test_verls_request_gets_10_s_and_1024_mb(server):
    """verl's payload (run_timeout 10, memory_limit_MB 1024): nothing is cut, a program that
    computes for longer than the judge's own 2 s CPU default is Success, and so is one
    holding 700 MB."""
    verl = {"compile_timeout": 60, "run_timeout": 10, "memory_limit_MB": 1024,
            "files": {}, "fetch_files": []}
    slow = raw(server, {**verl, "language": "python", "stdin": "", "code": (
        "import time\nstart = time.process_time()\nn = 0\n"
        "while time.process_time() - start < 2.5:\n    n += 1\nprint('slow but right')\n")})
    assert slow["status"] == "Success", slow
    assert slow["judge"]["run_timeout"] == 10 and slow["judge"]["memory_limit_MB"] == 1024
    assert slow["judge"]["clamped"] == []
    big = raw(server, {**verl, "language": "python", "stdin": "",
                       "code": "x = bytearray(700 << 20)\nprint(len(x) >> 20)\n"})
    assert big["status"] == "Success" and big["run_result"]["stdout"] == "700\n", big


def test_a_1024_mb_request_runs_java_and_go(server):
    """memory_limit_MB (sent as verl sends it: the client's request model has no such
    field) is the program's resident memory; a JVM's heap is the request's whole limit."""
    def run(language, code, memory):
        return raw(server, {"language": language, "memory_limit_MB": memory,
                            "compile_timeout": 60, "run_timeout": 10, "code": code})

    java = run("java", "public class Main { public static void main(String[] a) {"
                       " byte[] b = new byte[600 << 20]; b[b.length - 1] = 1;"
                       " System.out.println(b.length >> 20); } }\n", 1024)
    assert java["status"] == "Success" and java["run_result"]["stdout"] == "600\n", java
    assert java["judge"]["memory_limit_MB"] == 1024
    go = run("go", "package main\nimport \"fmt\"\nfunc main() { b := make([]byte, 600<<20);"
                   " for i := range b { b[i] = 1 }; fmt.Println(len(b) >> 20) }\n", 1024)
    assert go["status"] == "Success" and go["run_result"]["stdout"] == "600\n", go
    over = run("java", "public class Main { public static void main(String[] a) {"
                       " byte[] b = new byte[600 << 20]; System.out.println(b.length); } }\n",
               256)
    assert over["status"] == "Failed" and "OutOfMemoryError" in over["run_result"]["stderr"]
