"""A trainer's client survives a server restart mid-batch (issue 35, item 5): `judge serve` is
killed (SIGKILL, as a crashed or preempted node) while a batch is being judged and started
again on the same port; the client (and a reward function through it) gets every sample's
result exactly once, in order, with its own verdict: nothing lost, nothing counted twice."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from judge.client import JudgeClient
from judge.kinds.loader import load_suite
from tests.paths import ROOT

JUDGE = str(Path(sys.executable).with_name("judge"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(port: int, log: Path) -> subprocess.Popen:
    handle = open(log, "a")
    process = subprocess.Popen([JUDGE, "serve", str(ROOT / "problems" / "basics"),
                                "--sandbox", "process", "--jobs", "2", "--host", "127.0.0.1",
                                "--port", str(port)], stdout=handle, stderr=handle,
                               start_new_session=True)
    handle.close()
    for _ in range(600):  # a bounded wait for it to answer
        if process.poll() is not None:
            raise RuntimeError("judge serve exited: %s" % log.read_text())
        try:
            httpx.get("http://127.0.0.1:%d/v1/health" % port, timeout=2).raise_for_status()
            return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("judge serve did not start: %s" % log.read_text())


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the server and every worker it started
    except ProcessLookupError:
        pass
    process.wait()


def test_a_batch_survives_a_server_killed_and_restarted_mid_way(tmp_path):
    suite = load_suite(ROOT / "problems" / "basics")
    problem = suite["basics_digital_root"]
    right = "def digital_root(n):\n    return 0 if n == 0 else 1 + (n - 1) % 9\n"
    wrong = "def digital_root(n):\n    return n % 9\n"
    slow = ("import time\ndef digital_root(n):\n    time.sleep(0.05)\n"
            "    return 0 if n == 0 else 1 + (n - 1) % 9\n")
    items = []
    for i in range(90):
        code = (right, wrong, slow)[i % 3] + "# sample %d\n" % i  # all distinct
        items.append(("basics_digital_root", code, {"sample": i}))
    port = _free_port()
    log = tmp_path / "serve.log"
    server = _start(port, log)
    got: list = []
    failure: list = []

    def consume() -> None:
        try:
            with JudgeClient("http://127.0.0.1:%d" % port, retries=12, backoff_s=0.5,
                             batch_size=8) as client:
                for result in client.judge_many(items):
                    got.append(result)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            failure.append(exc)

    reader = threading.Thread(target=consume)
    reader.start()
    try:
        for _ in range(6000):  # until some results are in (bounded)
            if len(got) >= 10 or failure or not reader.is_alive():
                break
            time.sleep(0.01)
        assert 10 <= len(got) < len(items), "the kill must land mid-batch"
        _kill(server)
        server = _start(port, log)  # the same address: the client finds it again
        reader.join(timeout=600)
        assert not reader.is_alive()
    finally:
        _kill(server)
    assert not failure, failure
    assert [r.sample for r in got] == list(range(90))  # every sample once, in order
    for result in got:
        expected = "wrong_answer" if result.sample % 3 == 1 else "pass"
        assert result.verdict == expected, (result.sample, result.verdict, result.message)
    assert problem.identifier == "basics_digital_root"


def test_the_reward_through_a_restarted_server_scores_every_sample(tmp_path):
    """The same through `Scorer(url=...)`: every score is there, none is None, no sample is
    scored twice (the scores list is the batch's length)."""
    from judge.rewards import Scorer, TRLReward

    port = _free_port()
    log = tmp_path / "serve.log"
    server = _start(port, log)
    truth = '{"inputs": ["3\\n"], "outputs": ["6\\n"]}'
    completions = ["```python\nimport time\ntime.sleep(0.05)\nprint(2 * int(input()))  # %d\n```"
                   % i for i in range(40)]
    scores: list = []

    def score() -> None:
        with Scorer(url="http://127.0.0.1:%d" % port,
                    client_options={"retries": 12, "backoff_s": 0.5, "batch_size": 4}) as s:
            scores.extend(TRLReward(s, format="apps", on_error="none")(
                completions=completions, input_output=[truth] * len(completions)))

    worker = threading.Thread(target=score)
    worker.start()
    try:
        judged = 0
        for _ in range(6000):  # until the server has judged part of the batch (bounded)
            judged = httpx.get("http://127.0.0.1:%d/v1/health" % port, timeout=5).json()["judged"]
            if judged >= 5 or not worker.is_alive():
                break
            time.sleep(0.01)
        assert 5 <= judged < 40, "the kill must land mid-batch"
        _kill(server)
        server = _start(port, log)
        worker.join(timeout=600)
        assert not worker.is_alive()
    finally:
        _kill(server)
    assert scores == [1.0] * 40


pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
