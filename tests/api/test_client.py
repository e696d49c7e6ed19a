"""judge.client.JudgeClient against a real `judge serve` on 127.0.0.1: the in-process API's
calls and result objects (verdicts equal to judge.Judge on the same candidates, function
and program problems, by id and inline), run_code, token auth, 429 waited out as
Retry-After says, a server that is down, and the async client."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
import sys
import threading
import time

import pytest

from judge.api import Judge
from judge.client import AsyncJudgeClient, JudgeClient
from judge.errors import JudgeError, ServiceError, ServiceUnavailable
from judge.engine.verdicts import CandidateResult, Verdict
from judge.kinds.loader import load_suite
from judge.problem.program import program_from_data
from tests.paths import ROOT

if "service_load" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("service_load", ROOT / "benchmarks" /
                                                  "service_load.py")
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["service_load"] = _module
    _spec.loader.exec_module(_module)
Server = sys.modules["service_load"].Server
TOKEN = "client-token-0123456789"
BASICS = ROOT / "problems" / "basics"


def adder(**extra):
    data = {"kind": "program", "identifier": "adder", "statement": "Add two numbers.",
            "tests": [{"stdin": "1 2\n", "expected": "3\n"}, {"stdin": "40 2\n",
                                                             "expected": "42\n"}],
            "limits": {"time_limit_s": 1}}
    data.update(extra)
    return program_from_data(data, "<test>", ROOT)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    programs = tmp_path_factory.mktemp("programs")
    (programs / "adder.json").write_text(json.dumps({
        "kind": "program", "identifier": "load_adder", "statement": "Add.",
        "tests": [{"stdin": "1 2\n", "expected": "3\n"}]}))
    srv = Server.start([str(BASICS), str(programs), "--sandbox", "process", "--jobs", "2",
                        "--queue", "16"], env={"JUDGE_API_TOKEN": TOKEN})
    yield srv
    code, log, alive = srv.stop()
    assert alive == [] and "Traceback" not in log, log


@pytest.fixture(scope="module")
def client(server):
    with JudgeClient(server.url, token=TOKEN) as c:
        yield c


def candidates():
    suite = load_suite(BASICS)
    items = []
    for index, problem in enumerate(list(suite)[:6]):
        name, params = problem.function_name, ", ".join(problem.parameter_names)
        codes = [problem.optimal_solution, "def %s(%s):\n    return None\n" % (name, params),
                 "def %s(%s):\n    raise ValueError('x')\n" % (name, params),
                 "def %s(%s)\n" % (name, params)]
        for k, code in enumerate(codes):
            items.append((problem, code, {"sample": index * 10 + k, "model": "m"}))
    program = adder()
    for k, code in enumerate(["a, b = map(int, input().split())\nprint(a + b)\n",
                              "print(0)\n", "while True:\n    pass\n"]):
        items.append((program, code, {"sample": 100 + k}))
    return items


def test_same_results_as_the_in_process_judge(client):
    items = candidates()
    remote = list(client.judge_many(items))
    assert all(isinstance(r, CandidateResult) for r in remote)
    with Judge("process", 2, time_limit_s=2.0) as judge:
        local = list(judge.judge_many(items))
    assert [r.sample for r in remote] == [item[2]["sample"] for item in items]
    assert [(r.verdict, [t.verdict for t in r.tests]) for r in remote] == \
        [(r.verdict, [t.verdict for t in r.tests]) for r in local]
    verdicts = {r.verdict for r in remote}
    assert {Verdict.PASS, Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR,
            Verdict.COMPILE_ERROR, Verdict.TIMEOUT} <= verdicts
    assert remote[0].passed == remote[0].total > 0 and remote[0].model == "m"


def test_judge_by_id_inline_and_program(client):
    suite = load_suite(BASICS)
    problem = list(suite)[0]
    by_id = client.judge(problem.identifier, problem.optimal_solution, sample=3)
    inline = client.judge(problem, problem.optimal_solution)
    assert by_id.verdict is inline.verdict is Verdict.PASS and by_id.sample == 3
    program = client.judge(adder(), "```python\nprint(sum(map(int, input().split())))\n```")
    assert program.verdict is Verdict.PASS and program.kind == "program"
    go = client.judge(adder(), "package main\nimport \"fmt\"\nfunc main() { var a, b int;"
                      " fmt.Scan(&a, &b); fmt.Println(a + b) }\n", language="go")
    assert go.verdict is Verdict.PASS


def test_inline_programs_carry_no_server_files(client):
    with pytest.raises(ServiceError) as caught:
        client.judge(adder(tests=[{"stdin_file": "/etc/hostname", "expected": "x"}]),
                     "print(1)")
    assert caught.value.status == 400 and caught.value.field == "problem.tests[0].stdin_file"


def test_health_problems_and_run_code(client):
    assert client.health()["status"] == "ok"
    problems = {p["problem_id"]: p for p in client.problems()}
    assert any(name.startswith("basics_") for name in problems)
    assert problems["load_adder"]["kind"] == "program" and problems["load_adder"]["tests"] == 1
    assert client.judge("load_adder", "print(3)").verdict is Verdict.PASS  # by id
    result = client.run_code("print(input()[::-1])", stdin="abc\n")
    assert result["status"] == "Success" and result["run_result"]["stdout"] == "cba\n"


def test_4xx_is_the_callers_mistake(server, client):
    with pytest.raises(ServiceError) as caught:
        client.judge("no_such_problem", "x")
    assert caught.value.status == 404 and isinstance(caught.value, JudgeError)
    with JudgeClient(server.url) as anonymous, pytest.raises(ServiceError) as caught:
        anonymous.health()
    assert caught.value.status == 401


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_server_that_is_down():
    url = "http://127.0.0.1:%d" % _free_port()
    client = JudgeClient(url, retries=2, backoff_s=0.05)
    started = time.monotonic()
    with pytest.raises(ServiceUnavailable) as caught:
        client.judge("basics_digital_root", "x")
    assert isinstance(caught.value, ConnectionError) and isinstance(caught.value, JudgeError)
    assert caught.value.code == "service_unavailable" and "3 attempts" in str(caught.value)
    assert client.retried == 2 and time.monotonic() - started < 30
    with pytest.raises(ServiceUnavailable):
        asyncio.run(AsyncJudgeClient(url, retries=1, backoff_s=0.05).health())


def test_429_is_waited_out_as_retry_after_says():
    """One job and no queue: while a slow candidate runs, the next is refused with 429; the
    client waits the Retry-After and gets its result."""
    srv = Server.start(["--sandbox", "process", "--jobs", "1", "--queue", "0",
                        "--time-limit", "2"])
    try:
        slow_code = "import time\nt = time.time()\nwhile time.time() - t < 1.5:\n    pass\n"
        busy = threading.Thread(target=lambda: JudgeClient(srv.url).run_code(slow_code))
        busy.start()
        time.sleep(0.5)
        with JudgeClient(srv.url, retries=20, max_wait_s=2) as client:
            result = client.judge(adder(), "print(sum(map(int, input().split())))")
            assert result.verdict is Verdict.PASS
            assert client.retried >= 1  # it met the 429 and came back
        busy.join()
        with JudgeClient(srv.url, retries=0) as impatient:
            blocker = threading.Thread(target=lambda: JudgeClient(srv.url).run_code(slow_code))
            blocker.start()
            time.sleep(0.5)
            with pytest.raises(ServiceUnavailable) as caught:
                impatient.run_code("print(1)")
            blocker.join()
        assert caught.value.status == 429
    finally:
        code, log, alive = srv.stop()
        assert alive == [] and "Traceback" not in log, log


def test_the_async_client(server):
    async def main():
        async with AsyncJudgeClient(server.url, token=TOKEN) as client:
            health = await client.health()
            items = candidates()[-3:]
            results = await client.judge_many(items)
            one = await client.judge(adder(), "print(3)\n")
            return health, results, one

    health, results, one = asyncio.run(main())
    assert health["status"] == "ok"
    assert [r.verdict for r in results] == [Verdict.PASS, Verdict.WRONG_ANSWER,
                                            Verdict.TIMEOUT]
    assert one.verdict is Verdict.WRONG_ANSWER and one.passed == 1


def test_a_server_whose_sandbox_is_unavailable():
    """503 + Retry-After (no Docker engine behind --sandbox docker) is waited out, then
    ServiceUnavailable with the status: never a result, never a zero score."""
    srv = Server.start([str(BASICS), "--sandbox", "docker"],
                       env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    try:
        with JudgeClient(srv.url, retries=1, max_wait_s=0.2) as client:
            with pytest.raises(ServiceUnavailable) as caught:
                client.judge("basics_digital_root", "def digital_root(n):\n    return 0\n")
            assert caught.value.status == 503 and "sandbox unavailable" in str(caught.value)
            assert client.retried == 1
            with pytest.raises(ServiceUnavailable):
                client.run_code("print(1)")
    finally:
        code, log, alive = srv.stop()
    assert alive == [] and "Traceback" not in log
