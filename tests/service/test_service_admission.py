"""Hanging candidates never hold a core on the service path (issue 37): `judge serve`
dispatches as many candidates as its sandbox takes (its slots), so one that sleeps lends its
core to the next, as in `judge run`; the ones that compute still run ``--jobs`` at a time.
Shown without a clock: the server's own counters (``/v1/health``: most dispatched at once,
jobs admitted on a lent core), with every verdict the one the candidate gets alone."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.servers import Server  # noqa: E402

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]


def _problem(identifier: str) -> dict:
    return {"identifier": identifier, "description": "Add.",
            "prompts": [{"prompt_id": "p", "prompt": "add", "genericize": False,
                         "sample_inputs_outputs": []}],
            "function_prototype": {"function_name": "add",
                                   "parameters": [{"name": "a", "type": "int"},
                                                  {"name": "b", "type": "int"}],
                                   "return_values": [{"type": "int"}]},
            "correctness_test_suite": [{"input": {"a": 1, "b": 2}, "expected_output": [3]}],
            "limits": {"time_limit_s": 1, "memory_mb": 256}}


#: sleeps 1.2 s of wall clock (within the 1 s CPU limit's wall allowance: a pass)
SLEEPER = "import time\ndef add(a, b):\n    time.sleep(1.2)\n    return a + b\n"
LOOPER = "def add(a, b):\n    while True:\n        pass\n"
HONEST = "def add(a, b):\n    return a + b\n"


@pytest.fixture(scope="module", params=SANDBOXES)
def server(request):
    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    srv = Server.start(["--sandbox", request.param, "--jobs", "1", "--queue", "32",
                        "--time-limit", "2"])
    yield srv
    code, log, alive = srv.stop()
    assert alive == [], "processes left after shutdown: %s" % alive
    assert "Traceback" not in log, log


async def _judge_all(url: str, bodies: list[dict]) -> list[dict]:
    async with httpx.AsyncClient(timeout=120) as client:
        responses = await asyncio.gather(*(client.post(url + "/v1/judge", json=body)
                                           for body in bodies))
    for response in responses:
        assert response.status_code == 200, response.text
    return [r.json() for r in responses]


def test_sleepers_overlap_on_one_core_and_keep_their_verdicts(server):
    """Six sleepers, a looper and honest candidates at once on a one-job server: the
    sleepers were dispatched together (before: one at a time, each holding the only
    worker), the sandbox admitted jobs on the core they lent, and each verdict is its own."""
    before = httpx.get(server.url + "/v1/health", timeout=30).json()
    assert before["slots"] > before["jobs"] == 1
    bodies = ([{"problem": _problem("sleep%d" % i), "solution": SLEEPER} for i in range(6)]
              + [{"problem": _problem("loop"), "solution": LOOPER}]
              + [{"problem": _problem("honest%d" % i), "solution": HONEST} for i in range(3)])
    results = asyncio.run(_judge_all(server.url, bodies))
    verdicts = [r["verdict"] for r in results]
    assert verdicts == ["pass"] * 6 + ["timeout"] + ["pass"] * 3, results
    health = httpx.get(server.url + "/v1/health", timeout=30).json()
    assert health["peak_running"] >= 3, health  # several dispatched at once on one job
    assert health["lent"] > before["lent"], (health, before)  # on the core they lent
    assert health["running"] == 0 and health["in_flight"] == 0
