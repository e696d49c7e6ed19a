"""`judge serve` against a real uvicorn server on 127.0.0.1 (no mocks of the HTTP stack).

Every endpoint and error code, hostile candidates with the same verdicts as `judge run`,
graceful shutdown with a request in flight, and a load test (the small version of
benchmarks/service_load.py: 1,000 requests from 32 clients in both).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest
from tests.paths import ROOT

_spec = importlib.util.spec_from_file_location("service_load", ROOT / "benchmarks" /
                                              "service_load.py")
service_load = importlib.util.module_from_spec(_spec)
sys.modules["service_load"] = service_load
_spec.loader.exec_module(service_load)
Server = service_load.Server

TOKEN = "test-token-0123456789"
AUTH = {"Authorization": "Bearer " + TOKEN}


def hostile_problem(identifier: str = "serve_add") -> dict:
    return {
        "identifier": identifier,
        "description": "Add two integers plus a hidden offset.",
        "prompts": [{"prompt_id": "p", "prompt": "add", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "add",
                               "parameters": [{"name": "a", "type": "int"},
                                              {"name": "b", "type": "int"}],
                               "return_values": [{"type": "int"}]},
        "correctness_test_suite": [{"input": {"a": a, "b": b}, "expected_output": [s]}
                                   for a, b, s in [(3, 4, 7919007), (10, 20, 7919030),
                                                   (0, 0, 7919000)]],
        "limits": {"time_limit_s": 0.5, "memory_mb": 256, "output_kb": 64},
    }


#: holdout-style hostile candidates: each tries to cheat, crash, hang, flood or escape
HOSTILE = {
    "honest": "def add(a, b):\n    return a + b + 7919000\n",
    "raw_reply": "Sure!\n```python\ndef add(a, b):\n    return a + b + 7919000\n```\nDone.",
    "wrong": "def add(a, b):\n    return a + b\n",
    "always_equal": "class E:\n    def __eq__(self, o): return True\n"
                    "def add(a, b):\n    return E()\n",
    "lying_int": "class I(int):\n    def __eq__(self, o): return True\n"
                 "def add(a, b):\n    return I(1)\n",
    "forged_stdout": "import sys\ndef add(a, b):\n"
                     "    print('{\"index\": 0, \"status\": \"returned\", \"value\": 7919007}')\n"
                     "    sys.stdout.flush()\n    return 0\n",
    "os_exit": "import os\ndef add(a, b):\n    os._exit(0)\n",
    "sys_exit_import": "import sys\nsys.exit(0)\ndef add(a, b):\n    return 1\n",
    "segfault": "import ctypes\ndef add(a, b):\n    return ctypes.string_at(0)\n",
    "infinite_loop": "def add(a, b):\n    while True:\n        pass\n",
    "sleep": "import time\ndef add(a, b):\n    time.sleep(30)\n",
    "memory_bomb": "def add(a, b):\n    x = []\n    while True:\n"
                   "        x.append(bytearray(16 * 1024 * 1024))\n",
    "output_flood": "def add(a, b):\n    while True:\n        print('x' * 10000)\n",
    "fork_bomb": "import os, time\ndef add(a, b):\n    for _ in range(2000):\n        try:\n"
                 "            os.fork()\n        except OSError:\n            pass\n"
                 "    time.sleep(5)\n",
    "kill_parent": "import os, signal\ndef add(a, b):\n    os.kill(os.getppid(), signal.SIGKILL)\n"
                   "    return a + b + 7919000\n",
    "syntax_error": "def add(a, b)\n    return 1\n",
    "no_function": "def plus(a, b):\n    return a + b + 7919000\n",
    "recursion": "def add(a, b):\n    return add(a, b)\n",
    # three times the 8 MiB value cap; 64 MB took 0.3 s of the 0.5 s limit on a quiet
    # machine, and a loaded one pushed a test past it (a timeout, not the output_limit
    # this candidate is about)
    "huge_return": "def add(a, b):\n    return 'x' * (24 * 1024 * 1024)\n",
    "empty": "   \n",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve-suite")
    (folder / "serve_add.json").write_text(json.dumps(hostile_problem()))
    return folder


@pytest.fixture(scope="module")
def server(suite_dir):
    """The main server: the hostile suite and problems/basics, a token, a 1 MiB body cap."""
    srv = Server.start([str(suite_dir), str(ROOT / "problems" / "basics"), "--sandbox",
                        "process", "--jobs", "2", "--queue", "64", "--max-body-mb", "1"],
                       env={"JUDGE_API_TOKEN": TOKEN})
    yield srv
    code, log, alive = srv.stop()
    assert alive == [], "processes left after shutdown: %s" % alive
    assert "sandbox closed" in log and "Traceback" not in log, log


def post(server, path, body=None, **kwargs):
    headers = kwargs.pop("headers", AUTH)
    return httpx.post(server.url + path, json=body, headers=headers, timeout=120, **kwargs)


def error_of(response, status):
    assert response.status_code == status, response.text
    assert "Traceback" not in response.text and 'File "' not in response.text
    body = response.json()["error"]
    assert body["status"] == status and body["message"]
    return body


# ---- endpoints -------------------------------------------------------------------------------

def test_health_and_problems(server):
    health = httpx.get(server.url + "/v1/health", headers=AUTH).json()
    assert health["status"] == "ok" and health["sandbox"] == "process"
    assert health["problems_loaded"] == 20 and health["jobs"] == 2
    assert health["queue_capacity"] == 66 and health["queue_depth"] == 0
    problems = httpx.get(server.url + "/v1/problems", headers=AUTH).json()["problems"]
    ids = {p["problem_id"] for p in problems}
    assert "serve_add" in ids and "basics_digital_root" in ids
    add = next(p for p in problems if p["problem_id"] == "serve_add")
    assert add["function_name"] == "add" and add["tests"] == 3 and add["prompts"] == ["p"]


def test_judge_one_is_a_results_line(server):
    response = post(server, "/v1/judge", {"problem_id": "serve_add", "solution": HOSTILE["honest"],
                                          "model": "m", "prompt_id": "p", "sample": 3})
    assert response.status_code == 200
    line = response.json()
    assert line["verdict"] == "pass" and line["passed"] == line["total"] == 3
    assert (line["problem_id"], line["model"], line["prompt_id"], line["sample"]) == (
        "serve_add", "m", "p", 3)
    assert line["sandbox"] == "process" and [t["index"] for t in line["tests"]] == [0, 1, 2]


def test_batch_keeps_input_order(server):
    items = [{"problem_id": "serve_add", "solution": HOSTILE[name], "sample": i}
             for i, name in enumerate(["wrong", "honest", "syntax_error", "honest", "os_exit"])]
    response = post(server, "/v1/judge/batch", {"items": items})
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["sample"] for r in results] == [0, 1, 2, 3, 4]
    assert [r["verdict"] for r in results] == ["wrong_answer", "pass", "compile_error", "pass",
                                                "runtime_error"]


def test_other_languages_and_an_unknown_one(server):
    go = ("func PascalRow(n int) []int { r := []int{1}; for k := 0; k < n; k++ { "
          "r = append(r, r[len(r)-1]*(n-k)/(k+1)) }; return r }")
    response = post(server, "/v1/judge", {"problem_id": "basics_pascal_row", "solution": go,
                                          "language": "go"})
    assert response.status_code == 200, response.text
    line = response.json()
    assert (line["verdict"], line["language"]) == ("pass", "go"), line
    error = error_of(post(server, "/v1/judge", {"problem_id": "basics_pascal_row",
                                                "solution": go, "language": "cobol"}), 400)
    assert "unknown language 'cobol'" in error["message"]


def test_inline_problem_and_tighter_limits(server):
    problem = hostile_problem("inline_add")
    response = post(server, "/v1/judge", {"problem": problem, "solution": HOSTILE["honest"],
                                          "limits": {"memory_mb": 128, "time_limit_s": 0.2}})
    assert response.status_code == 200 and response.json()["verdict"] == "pass"
    assert response.json()["problem_id"] == "inline_add"
    slow = "import time\ndef add(a, b):\n    time.sleep(1.5)\n    return a + b + 7919000\n"
    no_limits = dict(problem)
    no_limits.pop("limits")
    response = post(server, "/v1/judge", {"problem": no_limits, "solution": slow,
                                          "limits": {"time_limit_s": 0.2}})
    assert response.json()["verdict"] == "timeout"  # wall clock 2 x 0.2 + 0.5 s < 1.5 s


def test_curl_style_body_without_json_content_type(server):
    body = json.dumps({"problem_id": "serve_add", "solution": HOSTILE["honest"]})
    response = httpx.post(server.url + "/v1/judge", content=body, headers={
        **AUTH, "Content-Type": "application/x-www-form-urlencoded"})
    assert response.status_code == 200 and response.json()["verdict"] == "pass"


def test_openapi_page(server):
    spec = httpx.get(server.url + "/openapi.json", headers=AUTH).json()
    assert {"/v1/judge", "/v1/judge/batch", "/v1/health", "/v1/problems"} <= set(spec["paths"])
    assert "JudgeRequest" in spec["components"]["schemas"]
    page = httpx.get(server.url + "/docs", headers=AUTH)
    assert page.status_code == 200 and "openapi.json" in page.text


# ---- errors ------------------------------------------------------------------------------------

def test_400_names_the_field(server):
    cases = [
        ({"problem_id": "serve_add", "soluton": "x"}, "solution"),
        ({"problem_id": "serve_add", "solution": 5}, "solution"),
        ({"solution": "x"}, "body"),
        ({"problem_id": "serve_add", "problem": {}, "solution": "x"}, "body"),
        ({"problem_id": "serve_add", "solution": "x", "limits": {"memory_mb": 10 ** 6}},
         "limits.memory_mb"),
        ({"problem_id": "serve_add", "solution": "x", "limits": {"time_limit_s": -1}},
         "limits.time_limit_s"),
        ({"problem_id": "serve_add", "solution": "x", "language": "cobol"}, "language"),
        ({"problem_id": "serve_add", "solution": "x", "prompt_id": "nope"}, "prompt_id"),
        ({"problem": {**hostile_problem(), "function_prototype": {
            "function_name": "add", "parameters": [], "return_values": [{"type": "integer"}]}},
          "solution": "x"}, "problem.function_prototype.return_values[0].type"),
        # a problem without tests (valid by the spec) cannot judge a candidate: "no tests"
        ({"problem": {**hostile_problem(), "correctness_test_suite": []}, "solution": "x"},
         "problem.correctness_test_suite"),
    ]
    for body, field in cases:
        error = error_of(post(server, "/v1/judge", body), 400)
        assert error["field"] == field, (body, error)
    error = error_of(post(server, "/v1/judge/batch", {"items": [
        {"problem_id": "serve_add", "solution": "x"}, {"problem_id": "serve_add"}]}), 400)
    assert error["field"] == "items[1].solution"
    error = error_of(post(server, "/v1/judge/batch", {"items": []}), 400)
    assert error["field"] == "items"
    error = error_of(httpx.post(server.url + "/v1/judge", content=b'{"problem_id": ',
                                headers=AUTH), 400)
    assert error["field"] == "body" and "malformed JSON" in error["message"]
    error = error_of(httpx.post(server.url + "/v1/judge", content=b"[1, 2]", headers=AUTH), 400)
    assert error["field"] == "body"


def test_inline_problems_carry_no_code_for_the_judge_process(server, tmp_path):
    """checker code and check expressions run outside the sandbox: refused inline."""
    marker = tmp_path / "pwned"
    problem = hostile_problem("inline_checker")
    problem["checker"] = "open(%r, 'w').write('x')" % str(marker)
    error = error_of(post(server, "/v1/judge", {"problem": problem, "solution": "x"}), 400)
    assert error["field"] == "problem.checker"
    problem = hostile_problem("inline_check")
    problem["correctness_test_suite"][1] = {"input": {"a": 1, "b": 2},
                                            "check": "__import__('os').system('touch %s')"
                                                     % marker}
    error = error_of(post(server, "/v1/judge", {"problem": problem, "solution": "x"}), 400)
    assert error["field"] == "problem.correctness_test_suite[1].check"
    assert not marker.exists()


def test_401_without_the_token(server):
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        for method, path in (("GET", "/v1/health"), ("GET", "/v1/problems"),
                             ("POST", "/v1/judge"), ("GET", "/openapi.json")):
            response = httpx.request(method, server.url + path, headers=headers,
                                     json={"problem_id": "serve_add", "solution": "x"})
            error = error_of(response, 401)
            assert response.headers["WWW-Authenticate"].startswith("Bearer")
            assert error["field"] == "Authorization"


def test_404_unknown_problem_and_path(server):
    error = error_of(post(server, "/v1/judge", {"problem_id": "nope", "solution": "x"}), 404)
    assert error["field"] == "problem_id" and "nope" in error["message"]
    error = error_of(post(server, "/v1/judge/batch", {"items": [
        {"problem_id": "serve_add", "solution": "x"}, {"problem_id": "nope", "solution": "x"}]}),
        404)
    assert error["field"] == "items[1].problem_id"
    error_of(httpx.get(server.url + "/v1/nothing", headers=AUTH), 404)


def test_413_body_too_large(server):
    big = {"problem_id": "serve_add", "solution": "#" * (2 * 1024 * 1024)}
    error = error_of(post(server, "/v1/judge", big), 413)
    assert error["field"] == "body"

    def chunks():  # no Content-Length: counted while read
        for _ in range(40):
            yield b" " * 65536
    error = error_of(httpx.post(server.url + "/v1/judge", content=chunks(), headers=AUTH), 413)
    assert error["field"] == "body"
    # the server is still fine
    assert post(server, "/v1/judge", {"problem_id": "serve_add",
                                      "solution": HOSTILE["honest"]}).status_code == 200


# ---- hostile candidates: the same verdicts as `judge run` ----------------------------------------

def test_hostile_candidates_same_verdicts_as_cli(server, suite_dir, tmp_path):
    check_hostile(server, suite_dir, tmp_path, "process")


@pytest.mark.docker
def test_hostile_candidates_in_docker_same_verdicts_as_cli(suite_dir, tmp_path):
    """The same through `judge serve --sandbox docker`: one warm container pool."""
    from tests.conftest import docker_or_skip

    docker_or_skip()
    srv = Server.start([str(suite_dir), "--sandbox", "docker", "--jobs", "2"],
                       env={"JUDGE_API_TOKEN": TOKEN})
    try:
        assert httpx.get(srv.url + "/v1/health", headers=AUTH).json()["sandbox"] == "docker"
        check_hostile(srv, suite_dir, tmp_path, "docker")
    finally:
        code, log, alive = srv.stop()
    assert alive == [] and "sandbox closed" in log and "Traceback" not in log, log
    import docker

    left = docker.from_env().containers.list(
        all=True, filters={"label": "org.judge.pid=%d" % srv.process.pid})
    assert left == [], "containers of the server left: %s" % [c.name for c in left]


def check_hostile(server, suite_dir, tmp_path, sandbox: str) -> None:
    """Every hostile candidate, one request each and as one batch: the verdicts of
    `judge run --sandbox SANDBOX` on the same candidates."""
    names = list(HOSTILE)
    solutions = tmp_path / "hostile.jsonl"
    solutions.write_text("".join(json.dumps({"problem_id": "serve_add", "solution": HOSTILE[n],
                                             "model": n, "sample": 0}) + "\n" for n in names))
    output = tmp_path / "cli.jsonl"
    run = subprocess.run([sys.executable, "-m", "judge", "run", str(suite_dir), "--solutions",
                          str(solutions), "--output", str(output), "--sandbox", sandbox,
                          "--jobs", "1"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode in (0, 1), run.stderr  # 1: the empty solution is reported
    cli = {row["model"]: row for row in map(json.loads, output.read_text().splitlines())}
    # one at a time, as `judge run --jobs 1` judged them: the same verdict for every test
    for name in names:
        single = post(server, "/v1/judge", {"problem_id": "serve_add",
                                            "solution": HOSTILE[name], "model": name}).json()
        expected = (cli[name]["verdict"], [t["verdict"] for t in cli[name]["tests"]])
        got = (single["verdict"], [t["verdict"] for t in single["tests"]])
        assert got == expected, (name, cli[name]["tests"], single["tests"])
    # and as one batch (judged two at a time): in order, the same candidate verdicts
    batch = post(server, "/v1/judge/batch", {"items": [
        {"problem_id": "serve_add", "solution": HOSTILE[n], "model": n, "sample": 0}
        for n in names]}).json()["results"]
    assert [line["model"] for line in batch] == names
    differ = {n: (line["verdict"], line["tests"], cli[n]["verdict"])
              for n, line in zip(names, batch) if line["verdict"] != cli[n]["verdict"]}
    assert differ == {}
    verdicts = {n: cli[n]["verdict"] for n in names}
    passed = {n for n, v in verdicts.items() if v == "pass"}
    # kill_parent returns the right sum after its SIGKILL: in a container the harness reports
    # it anyway (a pass: the answer is right); in the process sandbox it is not a pass
    assert passed - {"kill_parent"} == {"honest", "raw_reply"}, passed
    assert verdicts["sleep"] == "timeout" and verdicts["memory_bomb"] == "memory_limit"
    assert verdicts["output_flood"] == "output_limit" and verdicts["empty"] == "compile_error"
    assert "sandbox_error" not in verdicts.values()


# ---- queue, unavailable sandbox, shutdown -------------------------------------------------------

SLOW = "import time\ndef add(a, b):\n    time.sleep(1.0)\n    return a + b + 7919000\n"


def test_429_with_retry_after_when_the_queue_is_full(suite_dir):
    srv = Server.start([str(suite_dir), "--sandbox", "process", "--jobs", "1", "--queue", "1"])
    try:
        results = []

        def one():
            results.append(httpx.post(srv.url + "/v1/judge", timeout=60, json={
                "problem_id": "serve_add", "solution": SLOW}))
        threads = [threading.Thread(target=one) for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(90)
        codes = sorted(r.status_code for r in results)
        assert codes.count(200) >= 2 and codes.count(429) >= 1, codes
        assert set(codes) <= {200, 429}
        for response in results:
            if response.status_code == 429:
                assert int(response.headers["Retry-After"]) >= 1
                assert "queue is full" in error_of(response, 429)["message"]
        batch = httpx.post(srv.url + "/v1/judge/batch", timeout=60, json={"items": [
            {"problem_id": "serve_add", "solution": "x"}] * 3})
        assert error_of(batch, 400)["field"] == "items"
    finally:
        code, log, alive = srv.stop()
    assert alive == []


def test_503_when_the_sandbox_is_unavailable(suite_dir):
    srv = Server.start([str(suite_dir), "--sandbox", "docker"],
                       env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    try:
        health = httpx.get(srv.url + "/v1/health").json()
        assert health["status"] == "unavailable" and health["reason"]
        response = httpx.post(srv.url + "/v1/judge", json={"problem_id": "serve_add",
                                                           "solution": HOSTILE["honest"]})
        error = error_of(response, 503)
        assert "sandbox unavailable" in error["message"]
        assert int(response.headers["Retry-After"]) >= 1
    finally:
        code, log, alive = srv.stop()
    assert alive == [] and "Traceback" not in log


def test_graceful_shutdown_finishes_in_flight_requests(suite_dir):
    srv = Server.start([str(suite_dir), "--sandbox", "process", "--jobs", "2"])
    answers = []

    def one(i):
        answers.append(httpx.post(srv.url + "/v1/judge", timeout=60, json={
            "problem_id": "serve_add", "solution": SLOW, "sample": i}))
    threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # wait until all three are admitted
        if httpx.get(srv.url + "/v1/health").json()["in_flight"] == 3:
            break
        time.sleep(0.05)
    workers = srv.descendants()
    while not workers and time.monotonic() < deadline + 20:  # workers start on first job
        time.sleep(0.05)
        workers = srv.descendants()
    assert workers, "the sandbox has worker processes while judging"
    code, log, alive = srv.stop()
    for t in threads:
        t.join(30)
    assert sorted(a.status_code for a in answers) == [200, 200, 200]
    assert all(a.json()["verdict"] == "pass" for a in answers)
    assert alive == [] and not any(p.is_running() for p in workers)
    assert "sandbox closed (3 candidates judged)" in log
    with pytest.raises(httpx.ConnectError):
        httpx.get(srv.url + "/v1/health", timeout=2)


# ---- load ----------------------------------------------------------------------------------------

def test_load_32_clients_same_verdicts_as_cli_memory_flat(tmp_path):
    suite = str(ROOT / "problems" / "basics")
    rows = service_load.candidates(suite, 1000)
    reference = service_load.cli_verdicts(suite, rows, "process", 2, tmp_path)
    srv = Server.start([suite, "--sandbox", "process", "--jobs", "2", "--queue", "16"])
    srv.sample_memory(0.1)
    try:
        result = asyncio.run(service_load.load(srv.url, rows, 32, budget_s=400))
        health = httpx.get(srv.url + "/v1/health").json()
    finally:
        code, log, alive = srv.stop()
    assert result.errors == []
    assert service_load.compare(rows, result, reference) == []
    assert len(result.answers) == 1000 and set(result.statuses.values()) == {200}
    assert result.retries_429 > 0, "32 clients against a queue of 18 must meet 429s"
    assert health["judged"] == 1000 and health["in_flight"] == 0
    start, peak = service_load.memory_growth(srv.rss)
    assert peak - start < 24 * 2**20, "server memory grew by %.1f MiB" % ((peak - start) / 2**20)
    assert alive == [] and "sandbox closed" in log
