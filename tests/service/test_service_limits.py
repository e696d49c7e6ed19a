"""A service client can never loosen the server's limits (issue 22, items 2 and 8).

A real `judge serve` on 127.0.0.1 started with 1 s of CPU and 512 MiB (the process sandbox,
two workers, both kept busy): an inline problem that asks for 30 s and 4 GiB, an inline
problem whose reference solution burns CPU to buy a long limit, and request limits above
the server's: each gets the server's limit or a 400. /v1/problems shows no host path.
Nothing here bounds how long anything takes.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from judge.problem.model import function_from_data
from judge.sandbox.base import Limits
from judge.service import limits as service_limits
from tests.service.test_service import AUTH, ROOT, TOKEN, Server, error_of, post

BURN_3S = ("import time\ndef add(a, b):\n    end = time.process_time() + 3.0\n"
           "    while time.process_time() < end:\n        pass\n    return a + b\n")
BURN_2S = BURN_3S.replace("3.0", "2.0")
ALLOCATE_1_5_GIB = ("def add(a, b):\n    block = b'x' * (1536 * 1024 * 1024)\n"
                    "    return a + b + len(block) * 0\n")
HONEST = "def add(a, b):\n    return a + b\n"


def generous_problem(identifier: str, **extra) -> dict:
    """An inline problem asking for far more than the server gives."""
    return {
        "identifier": identifier,
        "description": "Add two integers.",
        "prompts": [{"prompt_id": "p", "prompt": "add", "genericize": False,
                 "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "add",
                               "parameters": [{"name": "a", "type": "int"},
                                              {"name": "b", "type": "int"}],
                               "return_values": [{"type": "int"}]},
        "correctness_test_suite": [{"input": {"a": 1, "b": 2}, "expected_output": [3]}],
        "limits": {"time_limit_s": 30.0, "memory_mb": 4096, "output_kb": 1 << 20,
                   "budget_s": 1000.0},
        **extra,
    }


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("limits-suite")
    problem = generous_problem("suite_add")
    problem.pop("limits")
    (folder / "suite_add.json").write_text(json.dumps(problem))
    return folder


@pytest.fixture(scope="module")
def server(suite_dir):
    srv = Server.start([str(suite_dir), "--sandbox", "process", "--jobs", "2",
                        "--time-limit", "1", "--time-floor", "1", "--time-factor", "4",
                        "--memory-mb", "512"], env={"JUDGE_API_TOKEN": TOKEN})
    yield srv
    code, log, alive = srv.stop()
    assert alive == [], alive
    assert "Traceback" not in log, log


def test_an_inline_problem_cannot_raise_time_or_memory_with_both_workers_busy(server):
    requests = [
        ({"problem": generous_problem("burn"), "solution": BURN_3S}, "timeout"),
        ({"problem": generous_problem("alloc"), "solution": ALLOCATE_1_5_GIB}, "memory_limit"),
        ({"problem": generous_problem("burn2"), "solution": BURN_3S}, "timeout"),
        ({"problem": generous_problem("honest"), "solution": HONEST}, "pass"),
    ]
    with ThreadPoolExecutor(4) as pool:
        responses = list(pool.map(lambda item: post(server, "/v1/judge", item[0]), requests))
    for (body, verdict), response in zip(requests, responses):
        assert response.status_code == 200, response.text
        line = response.json()
        assert line["verdict"] == verdict, (body["problem"]["identifier"], line)
    assert "512 MiB" in responses[1].json()["tests"][0]["message"]


def test_a_burning_reference_solution_buys_no_time(server):
    """Timed, this reference (3 s of CPU) would set a 12 s limit (factor 4): a candidate
    burning 2 s would pass. An inline reference is never timed: the server's 1 s holds."""
    problem = generous_problem("slow_reference", optimal_solution=BURN_3S)
    problem.pop("limits")
    with ThreadPoolExecutor(2) as pool:
        responses = list(pool.map(
            lambda solution: post(server, "/v1/judge", {"problem": problem, "solution": solution}),
            [BURN_2S, HONEST]))
    assert [r.json()["verdict"] for r in responses] == ["timeout", "pass"], \
        [r.text for r in responses]


@pytest.mark.parametrize("name,value", [("time_factor", 10), ("time_factor", 4.5),
                                        ("time_limit_s", 5), ("time_floor_s", 2),
                                        ("memory_mb", 1536), ("output_kb", 1 << 20)])
def test_request_limits_above_the_servers_are_refused(server, name, value):
    for body in ({"problem_id": "suite_add", "solution": HONEST, "limits": {name: value}},
                 {"problem": generous_problem("x"), "solution": HONEST,
                  "limits": {name: value}}):
        error = error_of(post(server, "/v1/judge", body), 400)
        assert error["field"] == "limits." + name
        assert "at most" in error["message"]


def test_tighter_request_limits_are_kept(server):
    response = post(server, "/v1/judge", {"problem": generous_problem("tight"),
                                          "solution": BURN_2S.replace("2.0", "0.6"),
                                          "limits": {"time_limit_s": 0.3}})
    assert response.json()["verdict"] == "timeout", response.text
    response = post(server, "/v1/judge", {"problem_id": "suite_add", "solution": HONEST,
                                          "limits": {"time_factor": 2, "memory_mb": 256}})
    assert response.json()["verdict"] == "pass", response.text


def test_problems_show_no_host_path(server, suite_dir):
    problems = httpx.get(server.url + "/v1/problems", headers=AUTH).json()["problems"]
    assert problems
    for problem in problems:
        assert not problem["source"].startswith("/"), problem
        assert str(suite_dir.parent) not in problem["source"]
        assert str(ROOT) not in problem["source"]
    assert problems[0]["source"] == "%s/suite_add.json" % suite_dir.name


# ---- the merge itself (no server) -------------------------------------------------------------

def test_effective_limits_only_tighten():
    server = Limits(time_limit_s=1.0, memory_mb=512, output_kb=64, time_factor=4.0)
    problem = function_from_data(generous_problem("g", optimal_solution=HONEST), "<test>")
    clamped, limits, timing = service_limits.effective(server, None, problem, inline=True)
    assert timing is False and limits == server
    assert clamped.limits.time_limit_s == 1.0 and clamped.limits.memory_mb == 512
    assert clamped.limits.output_kb == 64 and clamped.limits.budget_s == server.budget_cap_s
    assert problem.limits.time_limit_s == 30.0  # the request's problem is not changed
    # the tests are still there, prepared
    assert len(clamped.tests) == 1 and clamped.tests[0].args == (1, 2)
    tighter = function_from_data({**generous_problem("t"), "limits": {"memory_mb": 64}},
                                "<test>")
    assert service_limits.effective(server, {"memory_mb": 128}, tighter,
                                    True)[0].limits.memory_mb == 64
    loaded, limits, timing = service_limits.effective(server, {"time_factor": 2.0}, problem,
                                                      inline=False)
    assert timing is True and limits.time_factor == 2.0 and loaded is problem
    for name, value in (("time_factor", 4.01), ("memory_mb", 513), ("budget_cap_s", 1.0)):
        with pytest.raises(service_limits.LoosenedLimit):
            service_limits.effective(server, {name: value}, problem, True)


def test_public_source_hides_the_host_path():
    from judge.service.app import public_source

    assert public_source("/srv/judge/problems/basics/digital_root.json") == \
        "basics/digital_root.json"
    assert public_source("<request>") == "<request>"
    assert not public_source(str(Path("/a/b/c.json"))).startswith("/")


def test_a_problem_beyond_a_languages_integers_is_refused_with_the_reason(server):
    problem = generous_problem("big_cpp")
    problem.pop("limits")
    problem["correctness_test_suite"] = [{"input": {"a": 10 ** 20, "b": 1},
                                          "expected_output": [10 ** 20 + 1]}]
    error = error_of(post(server, "/v1/judge", {
        "problem": problem, "language": "cpp",
        "solution": "long long add(long long a, long long b) { return a + b; }"}), 400)
    assert error["field"] == "language" and "beyond C++'s integers" in error["message"]
    java = ("import java.math.BigInteger;\nclass Solution {\n    public static BigInteger "
            "add(BigInteger a, BigInteger b) { return a.add(b); }\n}\n")
    response = post(server, "/v1/judge", {"problem": problem, "language": "java",
                                          "solution": java})
    assert response.json()["verdict"] == "pass", response.text
