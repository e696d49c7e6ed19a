"""The SandboxFusion-compatible surface of `judge serve`, called by the real `sandbox-fusion`
client (PyPI) against a real server on 127.0.0.1: run_code in the seven languages with
standard input, compile errors, time and memory limits, hostile programs (fork bomb, flood,
reading standard input forever), files, the limits a request cannot raise, verl's request
as verl sends it, /submit and ScaleBox's /common_evaluate_batch, and the many-candidate
batch with back-pressure (429 + Retry-After) and fairness between clients."""

from __future__ import annotations

import base64
import importlib.util
import json
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from tests.paths import ROOT

sandbox_fusion = pytest.importorskip("sandbox_fusion")
from sandbox_fusion import (RunCodeRequest, RunStatus, SubmitRequest, SummaryMapping,  # noqa: E402
                            TestConfig, run_code, submit, summary_run_code_result)

if "service_load" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("service_load", ROOT / "benchmarks" /
                                                  "service_load.py")
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["service_load"] = _module
    _spec.loader.exec_module(_module)
Server = sys.modules["service_load"].Server

MAPPING = SummaryMapping(CompileFailed="compile", RunFailed="run", RunTimeout="timeout",
                         CompileTimeout="compile_timeout")

ECHO_SUM = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "c": "#include <stdio.h>\nint main(void){long a,b;scanf(\"%ld %ld\",&a,&b);"
         "printf(\"%ld\\n\",a+b);return 0;}\n",
    "cpp": "#include <bits/stdc++.h>\nint main(){long a,b;std::cin>>a>>b;"
           "std::cout<<a+b<<'\\n';}\n",
    "java": "import java.util.*;\npublic class Main { public static void main(String[] x) {"
            " Scanner s = new Scanner(System.in);"
            " System.out.println(s.nextLong() + s.nextLong()); } }\n",
    "nodejs": "const v = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/)"
              ".map(Number);\nconsole.log(v[0] + v[1]);\n",
    "go": "package main\nimport \"fmt\"\nfunc main() { var a, b int64; fmt.Scan(&a, &b);"
          " fmt.Println(a + b) }\n",
    "rust": "use std::io::Read;\nfn main() { let mut s = String::new();"
            " std::io::stdin().read_to_string(&mut s).unwrap();"
            " let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();"
            " println!(\"{}\", v[0] + v[1]); }\n",
}

BROKEN = {
    "c": "int main(void){ return undefined_name; }\n",
    "cpp": "int main(){ return undefined_name; }\n",
    "java": "public class Main { public static void main(String[] a) { int x = \"s\"; } }\n",
    "go": "package main\nfunc main() { x := 1 }\n",
    "rust": "fn main() { let x: i32 = \"s\"; }\n",
}


@pytest.fixture(scope="module")
def server():
    """A server whose own limits are 1 s of CPU and 256 MiB (the ceilings of every request)."""
    srv = Server.start(["--sandbox", "process", "--jobs", "2", "--queue", "16",
                        "--time-limit", "1", "--memory-mb", "256"])
    yield srv
    code, log, alive = srv.stop()
    assert alive == [], "processes left after shutdown: %s" % alive
    assert "sandbox closed" in log and "Traceback" not in log, log


def call(server, **fields):
    """The real client's run_code; for C (not in the client's language list, but a language
    SandboxFusion servers such as ScaleBox's take) the body is posted as the client posts it
    and read with the client's response model."""
    fields.setdefault("language", "python")
    if fields["language"] == "c":
        body = {**RunCodeRequest(**{**fields, "language": "cpp"}).dict(), "language": "c"}
        response = httpx.post(server.url + "/run_code", json=body, timeout=300)
        assert response.status_code == 200, response.text
        return sandbox_fusion.RunCodeResponse(**response.json())
    return run_code(RunCodeRequest(**fields), endpoint=server.url, max_attempts=1)


def raw(server, body, path="/run_code", **kwargs):
    return httpx.post(server.url + path, json=body, timeout=300, **kwargs)


# ---- run_code ------------------------------------------------------------------------------

@pytest.mark.parametrize("language", sorted(ECHO_SUM))
def test_run_code_in_every_language_with_stdin(server, language):
    result = call(server, code=ECHO_SUM[language], stdin="40 2\n", language=language,
                  compile_timeout=30)
    assert result.status == RunStatus.Success, result
    assert result.run_result.stdout.strip() == "42" and result.run_result.return_code == 0
    assert result.run_result.execution_time is not None
    assert summary_run_code_result(result, MAPPING) == "Success"
    if language == "python":
        assert result.compile_result is None  # as SandboxFusion: no compile step
    else:
        assert result.compile_result.status == "Finished"
        assert result.compile_result.return_code == 0


@pytest.mark.parametrize("language", sorted(BROKEN))
def test_compile_errors(server, language):
    result = call(server, code=BROKEN[language], language=language, compile_timeout=30)
    assert result.status == RunStatus.Failed and result.run_result is None
    assert result.compile_result.return_code != 0 and result.compile_result.stderr
    assert summary_run_code_result(result, MAPPING) == "compile"


def test_a_python_syntax_error_is_the_runs_exit_code_1(server):
    result = call(server, code="def f(:\n    pass\n")
    assert result.status == RunStatus.Failed and result.compile_result is None
    assert result.run_result.return_code == 1
    assert "SyntaxError" in result.run_result.stderr or "invalid syntax" in \
        result.run_result.stderr
    assert summary_run_code_result(result, MAPPING) == "run"


def test_runtime_errors_keep_stdout_stderr_and_the_return_code(server):
    result = call(server, code="import sys\nprint('partial')\nsys.stderr.write('boom\\n')\n"
                               "sys.exit(3)\n")
    assert result.status == RunStatus.Failed
    assert (result.run_result.return_code, result.run_result.stdout,
            result.run_result.stderr) == (3, "partial\n", "boom\n")
    crash = call(server, code="#include <cstdlib>\nint main(){ std::abort(); }\n",
                 language="cpp")
    assert crash.status == RunStatus.Failed and crash.run_result.return_code == -6  # SIGABRT
    assert summary_run_code_result(crash, MAPPING) == "run"


def test_a_time_limit_and_one_asking_for_more_than_the_server_allows(server):
    started = time.monotonic()
    body = raw(server, {"code": "while True:\n    pass\n", "language": "python",
                        "run_timeout": 600}).json()
    assert time.monotonic() - started < 60  # the server's 1 s, not the 600 s asked for
    assert body["status"] == "Failed" and body["run_result"]["status"] == "TimeLimitExceeded"
    assert body["judge"]["run_timeout"] == 1.0 and "run_timeout" in body["judge"]["clamped"]
    tighter = raw(server, {"code": "while True:\n    pass\n", "language": "python",
                           "run_timeout": 0.3}).json()
    assert tighter["run_result"]["status"] == "TimeLimitExceeded"
    assert tighter["judge"]["run_timeout"] == 0.3 and tighter["judge"]["clamped"] == []
    assert tighter["run_result"]["cpu_time"] < 1.0


def test_memory_and_one_asking_for_more_than_the_server_allows(server):
    hog = "x = bytearray(200 * 1024 * 1024)\nprint(len(x))\n"
    fits = raw(server, {"code": hog, "language": "python"}).json()
    assert fits["status"] == "Success" and fits["judge"]["memory_limit_MB"] == 256
    small = raw(server, {"code": hog, "language": "python", "memory_limit_MB": 64}).json()
    assert small["status"] == "Failed" and small["run_result"]["return_code"] != 0
    assert small["judge"]["memory_limit_MB"] == 64
    greedy = "x = bytearray(1500 * 1024 * 1024)\nprint(len(x))\n"
    more = raw(server, {"code": greedy, "language": "python", "memory_limit_MB": 100000}).json()
    assert more["judge"]["memory_limit_MB"] == 256 and "memory_limit_MB" in \
        more["judge"]["clamped"]
    assert more["status"] == "Failed", more  # 1.5 GB does not fit the server's 256 MiB


HOSTILE = {
    "fork_bomb": ("python", "import os\nwhile True:\n    try:\n        os.fork()\n"
                            "    except OSError:\n        pass\n"),
    "c_fork_bomb": ("c", "#include <unistd.h>\nint main(void){for(;;)fork();}\n"),
    "flood": ("python", "while True:\n    print('y' * 1000)\n"),
    "stderr_flood": ("python", "import sys\nwhile True:\n    sys.stderr.write('e' * 1000)\n"),
    "stdin_forever": ("python", "import sys\nwhile True:\n    sys.stdin.read()\n"),
    "sleep": ("python", "import time\ntime.sleep(60)\n"),
    "kill_parent": ("python", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"
                              "print('still here')\n"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_programs_fail_and_never_hurt_the_server(server, name):
    language, code = HOSTILE[name]
    started = time.monotonic()
    body = raw(server, {"code": code, "language": language, "stdin": "1\n"}).json()
    assert time.monotonic() - started < 120
    assert body["status"] in ("Failed", "Success"), body
    if name != "kill_parent":
        assert body["status"] == "Failed", body
    assert len(body["run_result"]["stdout"] or "") <= 8192 * 1024 + 64
    after = call(server, code="print('alive')")  # the pool still serves
    assert after.status == RunStatus.Success and after.run_result.stdout == "alive\n"


def test_files_are_written_into_the_work_directory(server):
    data = base64.b64encode(b"hello from a file\n").decode()
    result = call(server, code="print(open('data/in.txt').read().strip())",
                  files={"data/in.txt": data})
    assert result.status == RunStatus.Success and result.run_result.stdout == \
        "hello from a file\n"
    # a path outside the work directory is the client's mistake: 422 naming files (36.10)
    outside = raw(server, {"code": "print(1)", "language": "python",
                           "files": {"../../etc/x": data}})
    assert outside.status_code == 422 and outside.json()["detail"][0]["loc"] == [
        "body", "files"] and "relative path" in outside.json()["detail"][0]["msg"]


def test_unknown_and_unsupported_languages(server):
    unknown = raw(server, {"code": "x", "language": "cobol"})
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["loc"] == [
        "body", "language"]
    with pytest.raises(Exception, match="Sandbox responded with error"):  # the client's
        call(server, code='println("1")', language="julia")
    julia = raw(server, {"code": 'println("1")', "language": "julia"}).json()
    assert julia["status"] == "SandboxError" and "not run by this judge" in julia["message"]
    malformed = raw(server, {"language": "python"})
    assert malformed.status_code == 422 and malformed.json()["detail"][0]["loc"] == [
        "body", "code"]


def test_verls_request_as_verl_sends_it(server):
    """verl's sandbox_fusion reward (verl/utils/reward_score/sandbox_fusion/utils.py) posts
    this payload to the URL it is given and reads status, compile_result and run_result."""
    payload = json.dumps({"compile_timeout": 10, "run_timeout": 10, "code":
                          "print(int(input()) + 1)", "stdin": "41", "memory_limit_MB": 1024,
                          "language": "python", "files": {}, "fetch_files": []})
    response = httpx.post(server.url + "/run_code", content=payload, timeout=60,
                          headers={"Content-Type": "application/json",
                                   "Accept": "application/json"})
    response.raise_for_status()
    api = response.json()
    assert api["status"] == "Success" and api["run_result"]["status"] == "Finished"
    assert api["run_result"]["stdout"].rstrip("\n") == "42"  # verl's comparison
    for key in ("execution_time", "return_code", "stderr"):
        assert key in api["run_result"]
    failed = httpx.post(server.url + "/run_code", timeout=60, json={
        **json.loads(payload), "code": "raise SystemExit(2)"}).json()
    # verl: Failed + run_result Finished with a non-zero return code -> runtime error (-2)
    assert failed["status"] == "Failed" and failed["run_result"]["status"] == "Finished"
    assert failed["run_result"]["return_code"] == 2 and failed["compile_result"] is None


def _verl_sandbox_fusion():
    """verl's own SandboxFusion reward module (verl/utils/reward_score/sandbox_fusion), loaded
    from the installed verl without importing verl's package root (which needs torch):
    ``pip install --no-deps verl`` is enough. Skipped when verl is not installed."""
    import importlib.util

    spec = importlib.util.find_spec("verl")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("verl is not installed (pip install --no-deps verl)")
    folder = Path(list(spec.submodule_search_locations)[0]) / "utils" / "reward_score" / \
        "sandbox_fusion"
    package = importlib.util.spec_from_file_location(
        "verl_sandbox_fusion", folder / "__init__.py", submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(package)
    sys.modules["verl_sandbox_fusion"] = module
    package.loader.exec_module(module)
    return module


def test_verls_own_sandbox_fusion_reward(server):
    """verl's compute_score / check_correctness, unchanged, against this server."""
    verl = _verl_sandbox_fusion()
    url = server.url + "/run_code"
    cases = {"inputs": ["1 2\n", "40 2\n"], "outputs": ["3\n", "42\n"]}
    right = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
    score, _ = verl.compute_score(url, None, 256, right, json.dumps(cases))
    assert score == 1.0
    half = "```python\nprint(3)\n```"
    assert verl.compute_score(url, None, 256, half, cases)[0] == 0.5
    results, meta = verl.check_correctness(url, cases, "import sys\nsys.exit(1)\n")
    assert results == [-2, -2] and meta[0]["status"] == "runtime_error"
    results, meta = verl.check_correctness(url, cases, "while True:\n    pass\n", timeout=1)
    assert results == [-3, -3] and meta[0]["status"] == "timeout"
    results, _ = verl.check_correctness(url, cases, "int main({", language="cpp")
    assert results == [-4, -4]  # compile error
    calls = {"inputs": ["[1, 2]", "[3, 4]"], "outputs": ["[1, 2, 3]", "[3, 4, 3]"],
             "fn_name": "grow"}
    score, _ = verl.compute_score(url, None, 256, "```python\ndef grow(xs):\n"
                                  "    return xs + [3]\n```", calls)
    assert score == 1.0  # verl's own call wrapper, run here


# ---- evaluation: /submit, /common_evaluate_batch, /v1/evaluate/batch -------------------------

STDIO_CASES = {"test_cases": {"type": "stdin_stdout", "input": ["1 2\n", "40 2\n", "0 0\n"],
                              "output": ["3\n", "42\n", "0\n"]}}


def test_submit_with_the_real_client(server):
    reply = "Here you go:\n```python\na, b = map(int, input().split())\nprint(a + b)\n```\n"
    result = submit(SubmitRequest(dataset="mine", id=7, completion=reply, config=TestConfig(
        language="python", provided_data=STDIO_CASES)), endpoint=server.url, max_attempts=1)
    assert result.accepted and result.id == 7 and len(result.tests) == 3
    assert result.extracted_code.startswith("a, b = map")
    wrong = submit(SubmitRequest(dataset="mine", id=8, completion="print(0)",
                                 config=TestConfig(language="python",
                                                   provided_data=STDIO_CASES)),
                   endpoint=server.url, max_attempts=1)
    assert not wrong.accepted and [t.passed for t in wrong.tests] == [False]  # stops there


def test_common_evaluate_batch_stdio_in_cpp_and_function_calls(server):
    cpp = ("```cpp\n#include <iostream>\nint main(){long a,b;std::cin>>a>>b;"
           "std::cout<<a+b<<std::endl;}\n```")
    body = {"dataset": "x", "id": "c1", "completion": cpp,
            "config": {"language": "cpp", "provided_data": STDIO_CASES,
                       "extra": {"run_all_cases": True}}}
    result = raw(server, body, "/common_evaluate_batch").json()
    assert result["accepted"] and [t["passed"] for t in result["tests"]] == [True] * 3
    assert result["tests"][0]["exec_info"]["compile_result"]["return_code"] == 0
    calls = {"test_cases": {"type": "function_call", "fn_name": "add",
                            "input": [[1, 2], [3, 4]], "output": [[3], [7]]}}
    good = raw(server, {"id": 1, "completion": "def add(a, b):\n    return a + b\n",
                        "config": {"language": "python", "provided_data": calls}},
               "/common_evaluate_batch").json()
    assert good["accepted"], good
    cls = raw(server, {"id": 2, "completion": "class Solution:\n    def add(self, a, b):\n"
                                              "        return a - b\n",
                       "config": {"language": "python", "provided_data": calls,
                                  "extra": {"run_all_cases": True}}},
              "/common_evaluate_batch").json()
    assert not cls["accepted"] and [t["passed"] for t in cls["tests"]] == [False, False]
    refused = raw(server, {"id": 3, "completion": "x", "config": {
        "language": "go", "provided_data": calls}}, "/common_evaluate_batch")
    assert refused.status_code == 400 and "Python only" in refused.json()["detail"]
    empty = raw(server, {"id": 4, "completion": "x", "config": {"language": "python"}},
                "/common_evaluate_batch")
    assert empty.status_code == 400 and "test cases" in empty.json()["detail"]


def test_a_looping_candidate_costs_its_budget_not_every_test(server):
    cases = {"test_cases": {"type": "stdin_stdout", "input": ["1\n"] * 40,
                            "output": ["1\n"] * 40}}
    started = time.monotonic()
    result = raw(server, {"id": 5, "completion": "while True:\n    pass\n", "config": {
        "language": "python", "provided_data": cases, "extra": {"run_all_cases": True}}},
        "/common_evaluate_batch").json()
    assert not result["accepted"] and len(result["tests"]) == 40
    assert time.monotonic() - started < 100  # bounded by the budget (10 s), not 40 x 1 s x 2
    assert all(t["exec_info"]["status"] == "Failed" for t in result["tests"])


def test_many_candidates_in_one_request_in_order(server):
    replies = ["a, b = map(int, input().split())\nprint(a + b)\n", "print(0)\n",
               "import sys\nsys.exit(1)\n", "def f(:\n", "a, b = map(int, input().split())\n"
               "print(a + b)\n"]
    items = [{"dataset": "x", "id": i, "completion": r,
              "config": {"language": "python", "provided_data": STDIO_CASES}}
             for i, r in enumerate(replies)]
    response = raw(server, {"items": items}, "/v1/evaluate/batch")
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert [r["id"] for r in results] == [0, 1, 2, 3, 4]
    assert [r["accepted"] for r in results] == [True, False, False, False, True]
    bad = raw(server, {"items": [items[0], {**items[1], "config": {"language": "cobol",
                                                                   "provided_data": STDIO_CASES}}]},
              "/v1/evaluate/batch")
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"][:3] == [
        "body", "items", "1"]


SLOW = {"code": "import time\nt = time.time()\nwhile time.time() - t < 0.6:\n    pass\n"
                "print('done')\n", "language": "python"}


def test_back_pressure():
    """A server with one job and a queue of 2: a fourth candidate is refused with 429 and
    Retry-After, and the three admitted are all answered."""
    srv = Server.start(["--sandbox", "process", "--jobs", "1", "--queue", "2",
                        "--time-limit", "1"])
    try:
        slow = SLOW
        finished: dict[str, float] = {}

        def send(name: str, client: str) -> None:
            response = httpx.post(srv.url + "/run_code", json=slow, timeout=120,
                                  headers={"X-Judge-Client": client})
            assert response.status_code == 200, response.text
            finished[name] = time.monotonic()

        threads = [threading.Thread(target=send, args=("a%d" % i, "A")) for i in range(3)]
        for thread in threads:
            thread.start()
            time.sleep(0.15)
        full = httpx.post(srv.url + "/run_code", json=slow, timeout=60,
                          headers={"X-Judge-Client": "C"})
        assert full.status_code == 429 and int(full.headers["Retry-After"]) >= 1
        assert "queue is full" in full.json()["error"]["message"]
        for thread in threads:
            thread.join()
        assert len(finished) == 3
    finally:
        code, log, alive = srv.stop()
        assert alive == [] and "Traceback" not in log, log


def test_round_robin_between_clients():
    """Client A queues three slow candidates, then client B one: with one job, B's is judged
    after at most one of A's, not after all of them (FIFO would serve B last)."""
    srv = Server.start(["--sandbox", "process", "--jobs", "1", "--queue", "8",
                        "--time-limit", "1"])
    try:
        finished: dict[str, float] = {}

        def send(name: str, client: str) -> None:
            response = httpx.post(srv.url + "/run_code", json=SLOW, timeout=120,
                                  headers={"X-Judge-Client": client})
            assert response.status_code == 200, response.text
            finished[name] = time.monotonic()

        threads = [threading.Thread(target=send, args=("a%d" % i, "A")) for i in range(3)]
        for thread in threads:
            thread.start()
            time.sleep(0.1)
        late = threading.Thread(target=send, args=("b", "B"))
        late.start()
        for thread in threads + [late]:
            thread.join()
        assert len(finished) == 4
        assert finished["b"] < max(finished["a0"], finished["a1"], finished["a2"])
    finally:
        code, log, alive = srv.stop()
        assert alive == [] and "Traceback" not in log, log


def test_a_client_cap():
    srv = Server.start(["--sandbox", "process", "--jobs", "1", "--queue", "8",
                        "--client-cap", "1", "--time-limit", "1"])
    try:
        slow = {"code": "import time\nt = time.time()\nwhile time.time() - t < 1.0:\n"
                        "    pass\n", "language": "python"}
        first = threading.Thread(target=httpx.post, args=(srv.url + "/run_code",),
                                 kwargs={"json": slow, "timeout": 60,
                                         "headers": {"X-Judge-Client": "A"}})
        first.start()
        time.sleep(0.3)
        second = httpx.post(srv.url + "/run_code", json=slow, timeout=60,
                            headers={"X-Judge-Client": "A"})
        other = httpx.post(srv.url + "/run_code", json={"code": "print(1)",
                                                        "language": "python"},
                           timeout=60, headers={"X-Judge-Client": "B"})
        first.join()
        assert second.status_code == 429 and "per client" in second.json()["error"]["message"]
        assert other.status_code == 200 and other.json()["status"] == "Success"
    finally:
        srv.stop()


@pytest.mark.docker
def test_run_code_and_evaluation_in_docker():
    """The same surface over the Docker sandbox (Python image and the native image of the
    other languages): stdin, a compile error, a time limit, a fork bomb, an evaluation."""
    from tests.conftest import docker_or_skip

    docker_or_skip()
    srv = Server.start(["--sandbox", "docker", "--jobs", "2", "--time-limit", "1",
                        "--memory-mb", "256"], timeout=300)
    try:
        for language in ("python", "cpp", "java", "go"):
            result = call(srv, code=ECHO_SUM[language], stdin="40 2\n", language=language,
                          compile_timeout=60)
            assert result.status == RunStatus.Success, (language, result)
            assert result.run_result.stdout.strip() == "42"
        broken = call(srv, code=BROKEN["rust"], language="rust", compile_timeout=60)
        assert broken.status == RunStatus.Failed and broken.compile_result.return_code != 0
        loop = raw(srv, {"code": "while True:\n    pass\n", "language": "python",
                         "run_timeout": 100}).json()
        assert loop["run_result"]["status"] == "TimeLimitExceeded"
        assert loop["judge"]["run_timeout"] == 1.0
        bomb = raw(srv, {"code": HOSTILE["c_fork_bomb"][1], "language": "c"}).json()
        assert bomb["status"] == "Failed", bomb
        evaluated = raw(srv, {"id": 1, "completion": ECHO_SUM["python"], "config": {
            "language": "python", "provided_data": STDIO_CASES}}, "/common_evaluate_batch")
        assert evaluated.json()["accepted"], evaluated.text
        assert call(srv, code="print('alive')").run_result.stdout == "alive\n"
    finally:
        code, log, alive = srv.stop()
        assert alive == [] and "Traceback" not in log, log
