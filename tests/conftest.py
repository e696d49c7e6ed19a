"""Shared fixtures: the sandboxes under test, and the rule that Docker tests are never
skipped silently.

``sandbox_factory`` is parametrized over the process sandbox and the docker sandbox. Docker
tests (marker ``docker``) are skipped when no engine answers, unless Docker is *required*:
``JUDGE_REQUIRE_DOCKER=1`` or ``CI=true`` (scripts/test.sh sets the former when an engine runs).
Then a missing engine is a failure, and so is **any** skip of a docker-marked test, whatever
skipped it (``pytest_runtest_makereport`` below turns the skip into a failure that shows the
skip's reason). When ``JUDGE_TEST_SUMMARY`` names a file, the session writes there how many
docker tests ran, passed and were skipped, for test.sh's final check.
"""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path

import pytest

# A package installed into the environment may ship a top-level ``tests`` package (verl 0.9
# does); a regular package there would win over this folder (a namespace package) and break
# ``from tests.test_x import y``. This folder is ``tests``.
_TESTS = Path(__file__).resolve().parent
if [Path(p) for p in getattr(sys.modules.get("tests"), "__path__", [])] != [_TESTS]:
    _package = types.ModuleType("tests")
    _package.__path__ = [str(_TESTS)]
    sys.modules["tests"] = _package

REQUIRE_DOCKER = os.environ.get("JUDGE_REQUIRE_DOCKER") == "1" or os.environ.get("CI") == "true"

_DOCKER_OUTCOMES: dict[str, str] = {}  # nodeid -> "passed" | "failed" | "skipped" (before any conversion)
_OUTCOMES: dict[str, str] = {}  # nodeid -> the test's outcome, for the summary's totals

def pytest_configure(config):
    # `judge run` writes a results file by default (judge-results/ in the current folder):
    # the tests' runs, and their subprocesses', write theirs to a temporary folder instead
    if "JUDGE_RESULTS_DIR" not in os.environ:
        import tempfile

        os.environ["JUDGE_RESULTS_DIR"] = tempfile.mkdtemp(prefix="judge-test-results-")
    # reference timings are remembered across runs (judge.engine.reference_cache): the
    # session keeps its own, so no test takes a measurement from an earlier session
    if "JUDGE_REFERENCE_CACHE" not in os.environ:
        import tempfile

        os.environ["JUDGE_REFERENCE_CACHE"] = tempfile.mkdtemp(prefix="judge-test-reference-")


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        if report.nodeid not in _OUTCOMES or report.outcome != "passed":
            _OUTCOMES[report.nodeid] = "skipped" if report.skipped else report.outcome


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if item.get_closest_marker("docker") is None:
        return
    previous = _DOCKER_OUTCOMES.get(item.nodeid)
    if report.skipped and not hasattr(report, "wasxfail"):
        _DOCKER_OUTCOMES[item.nodeid] = "skipped"
        if REQUIRE_DOCKER:
            report.outcome = "failed"
            report.longrepr = ("docker test skipped, but Docker tests are required here "
                               "(JUDGE_REQUIRE_DOCKER=1 or CI=true): " + _skip_reason(report))
    elif report.failed:
        _DOCKER_OUTCOMES[item.nodeid] = "failed"
    elif report.when == "call" and previous is None:
        _DOCKER_OUTCOMES[item.nodeid] = "passed"


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("JUDGE_TEST_SUMMARY")
    if not path or hasattr(session.config, "workerinput"):
        return  # an xdist worker: the controller writes the summary
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for outcome in _DOCKER_OUTCOMES.values():
        counts[outcome] += 1
    summary = {"require_docker": REQUIRE_DOCKER, "exitstatus": int(exitstatus),
               "collected": session.testscollected,
               "docker": counts,
               "totals": {k: sum(1 for o in _OUTCOMES.values() if o == k)
                          for k in ("passed", "failed", "skipped")},
               "docker_skipped": sorted(n for n, o in _DOCKER_OUTCOMES.items() if o == "skipped")}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=1)


def docker_or_skip() -> None:
    """Skip (or fail in CI) when the docker sandbox cannot run here. With an engine but a
    stale or missing image, build it (about 2 s once the base image is cached)."""
    try:
        from judge.sandbox.backends.docker import build, image

        if not image.engine_available():
            ready, reason = False, "no Docker engine answers"
        elif image.image_ready() is None:
            build.build_image(progress=lambda message: None)
            ready, reason = image.image_ready() is not None, "the sandbox image did not build"
        else:
            ready, reason = True, ""
    except Exception as exc:  # no SDK socket, a failed build: say why
        ready, reason = False, "docker sandbox unavailable: %s" % exc
    if not ready:
        if REQUIRE_DOCKER:
            pytest.fail("JUDGE_REQUIRE_DOCKER=1 but " + reason)
        pytest.skip(reason)


@pytest.fixture(scope="module", params=["process", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox_factory(request):
    """A callable building a fresh sandbox of the parametrized kind (size 1)."""
    if request.param == "docker":
        docker_or_skip()

        def make(limits=None):
            from judge.sandbox.backends.docker.sandbox import DockerSandbox

            return DockerSandbox(size=1)
    else:
        def make(limits=None):
            from judge.sandbox.backends.process.sandbox import ProcessSandbox

            return ProcessSandbox(size=1)
    return make


# ---- a listener the network tests start themselves ------------------------------------------

class TcpListener:
    """A TCP server on every IPv4 address of this host (port chosen by the kernel), accepting
    and counting connections in a thread. Network tests point candidates at it *and* connect
    to it from the test process, so they fail where isolation is missing instead of passing
    because nothing listens."""

    def __init__(self) -> None:
        import socket
        import threading

        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("0.0.0.0", 0))
        self._socket.listen(64)
        self.port = self._socket.getsockname()[1]
        self.peers: list[tuple[str, int]] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, name="test-listener", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, peer = self._socket.accept()
            except OSError:
                return
            with self._lock:
                self.peers.append(peer)
            conn.close()

    @staticmethod
    def host_addresses() -> list[str]:
        """127.0.0.1 first, then this host's other IPv4 addresses (e.g. the docker bridge's
        gateway, which a container on the default network reaches)."""
        import socket

        import psutil

        found = ["127.0.0.1"]
        for addresses in psutil.net_if_addrs().values():
            for address in addresses:
                if address.family == socket.AF_INET and address.address not in found:
                    found.append(address.address)
        return found

    def connect_from_here(self, host: str) -> None:
        """The control: the same connection works from the test process (raises if not)."""
        import socket
        import time

        before = len(self.peers)
        socket.create_connection((host, self.port), timeout=2).close()
        deadline = time.monotonic() + 2
        while len(self.peers) == before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.peers) > before, "the listener did not see the control connection"

    def accepted(self) -> int:
        with self._lock:
            return len(self.peers)

    def close(self) -> None:
        self._socket.close()


@pytest.fixture
def tcp_listener():
    listener = TcpListener()
    try:
        yield listener
    finally:
        listener.close()


# ---- small problems built in memory ------------------------------------------------------------

def scaled_int_data(identifier: str, function: str, factor: int, tests: int,
                    generic_prompt: bool = False, limits: dict | None = None) -> dict:
    """A problem file's data: ``function(x) == factor * x`` for x in 0..tests-1, one int
    parameter. ``generic_prompt`` adds a genericized prompt (id ``generic``, function
    ``func``) beside the plain one (id ``p``)."""
    prompts = [{"prompt_id": "p", "prompt": function, "genericize": False,
                "sample_inputs_outputs": []}]
    if generic_prompt:
        prompts.append({"prompt_id": "generic", "prompt": function, "genericize": True,
                        "sample_inputs_outputs": []})
    data = {
        "identifier": identifier,
        "description": "Multiply a number by %d." % factor,
        "prompts": prompts,
        "function_prototype": {"function_name": function,
                               "parameters": [{"name": "x", "type": "int"}],
                               "return_values": [{"type": "int"}]},
        "correctness_test_suite": [{"input": {"x": i}, "expected_output": [factor * i]}
                                   for i in range(tests)],
    }
    if limits:
        data["limits"] = limits
    return data


def scaled_int_problem(identifier: str, function: str, factor: int, tests: int,
                       generic_prompt: bool = False, limits: dict | None = None):
    """:func:`scaled_int_data`, validated and prepared as a loaded problem."""
    from judge.problem.model import function_from_data

    return function_from_data(scaled_int_data(identifier, function, factor, tests,
                                             generic_prompt, limits), "<%s>" % identifier)
