"""Hardening round four (issue 36) on the HTTP surfaces, against a real `judge serve` in both
sandboxes, called with the real `sandbox-fusion` client where it applies:

- 36.3: a run the judge calls ``output_limit`` (an stderr flood, a stdout flood with
  SIGXFSZ ignored, exit code 0) is ``Failed`` on ``/run_code`` and never ``accepted`` on
  ``/submit``; the same verdict as ``judge run`` gives (36.5: one output-limit rule);
- 36.4: a lone surrogate in code is the candidate's text (judged, never a 500); the remote
  scorer (``JudgeClient``) sends it and gets the verdict the in-process judge gives;
- 36.10: client mistakes are 4xx naming the field (NaN or infinite timeouts, an unknown
  checker shape, a test case that is not an object, a lone surrogate in stdin or a test's
  data), never a 500 and never a traceback in the server's log;
- 36.11: a ``files`` path 1,200 folders deep (or otherwise unbounded) is a 422 naming
  ``files``; the server serves on.
"""

from __future__ import annotations

import base64
import json

import httpx
import pytest

from tests.servers import Server  # noqa: E402
from tests.paths import ROOT

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
HEADERS = {"Content-Type": "application/json"}

STDERR_FLOOD = ("import sys\nprint(42)\nsys.stdout.flush()\n"
                "sys.stderr.write('x' * (9 << 20))\n")
STDOUT_FLOOD = ("import signal, sys\nsignal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
                "try:\n    sys.stdout.write('4' * (9 << 20))\n    sys.stdout.flush()\n"
                "except OSError:\n    pass\n")
CASES = {"test_cases": [{"input": "1\n", "output": "42"}, {"input": "2\n", "output": "42"}]}


@pytest.fixture(scope="module", params=SANDBOXES)
def server(request):
    """The server's own limits: 1 s of CPU, 256 MiB, 8 MiB of output; the basics suite."""
    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    srv = Server.start(["problems/basics", "--sandbox", request.param, "--jobs", "2",
                        "--time-limit", "1", "--memory-mb", "256"], timeout=300)
    yield srv
    code, log, alive = srv.stop()
    assert alive == [], "processes left after shutdown: %s" % alive
    assert "sandbox closed" in log and "Traceback" not in log, log


def post(server, path, body=None, raw=None):
    """A body as a client sends it: JSON, or raw bytes (NaN, escapes of lone surrogates)."""
    if raw is not None:
        return httpx.post(server.url + path, content=raw, headers=HEADERS, timeout=300)
    return httpx.post(server.url + path, json=body, timeout=300)


# ---- 36.3: an output-limit run is never Success / accepted ---------------------------------

@pytest.mark.parametrize("code", [STDERR_FLOOD, STDOUT_FLOOD], ids=["stderr", "stdout"])
def test_an_output_limit_run_is_failed_with_the_real_client(server, code):
    from sandbox_fusion import (RunCodeRequest, RunStatus, SubmitRequest, TestConfig,
                                run_code, submit)

    ran = run_code(RunCodeRequest(code=code, language="python"), endpoint=server.url,
                   max_attempts=1)
    assert ran.status == RunStatus.Failed, ran.message
    assert ran.message.startswith("output_limit") and ran.run_result.return_code == 0
    evaluated = submit(SubmitRequest(dataset="x", id=1, completion=code, config=TestConfig(
        language="python", provided_data=CASES, extra={"run_all_cases": True})),
        endpoint=server.url)
    assert evaluated.accepted is False
    assert [t.passed for t in evaluated.tests] == [False, False]
    assert {t.exec_info.status for t in evaluated.tests} == {RunStatus.Failed}


def test_every_test_of_a_flood_is_output_limit_in_a_batch(server):
    """The flood's verdict on /run_code and on each test of /v1/evaluate/batch is
    output_limit, as a program problem's tests get it (tests/kinds/test_program_text_and_floods.py:
    one rule on every surface); an honest candidate beside it is accepted."""
    line = post(server, "/run_code", {"code": STDERR_FLOOD, "language": "python"}).json()
    assert line["judge"]["verdict"] == "output_limit" and line["status"] == "Failed"
    batch = post(server, "/v1/evaluate/batch", {"items": [
        {"id": i, "completion": code, "config": {"language": "python", "provided_data": CASES,
                                                 "extra": {"run_all_cases": True}}}
        for i, code in enumerate([STDERR_FLOOD, "print(42)"])]}).json()["results"]
    assert [r["accepted"] for r in batch] == [False, True]
    assert [t["exec_info"]["judge"]["verdict"] for t in batch[0]["tests"]] == [
        "output_limit", "output_limit"]


# ---- 36.4: a lone surrogate in code is the candidate's text -------------------------------

def test_a_lone_surrogate_in_code_is_judged_never_a_500(server):
    ran = post(server, "/run_code", raw=json.dumps(
        {"code": "print(40 + 2)  # \ud800", "language": "python"}).encode())
    assert ran.status_code == 200 and ran.json()["status"] == "Success", ran.text
    assert ran.json()["run_result"]["stdout"] == "42\n"
    go = post(server, "/run_code", raw=json.dumps(
        {"code": 'package main\nimport "fmt"\nfunc main() { fmt.Println(42) } // \ud800\n',
         "language": "go", "compile_timeout": 60}).encode())
    assert go.status_code == 200 and go.json()["status"] == "Failed", go.text
    assert go.json()["compile_result"]["return_code"] != 0  # Go refuses invalid UTF-8
    submitted = post(server, "/submit", raw=json.dumps(
        {"id": "s", "completion": "```python\nprint(42)  # \ud800\n```",
         "config": {"language": "python", "provided_data": CASES}}).encode())
    assert submitted.status_code == 200 and submitted.json()["accepted"], submitted.text
    assert submitted.json()["extracted_code"] == "print(42)  # \ud800\n"  # as it came


def test_the_remote_scorer_sends_surrogates_and_gets_the_in_process_verdict(server, tmp_path):
    from judge import Judge, load_suite
    from judge.client import JudgeClient
    from judge.problem.program import program_from_data

    program = program_from_data(
        {"kind": "program", "identifier": "add", "statement": "Add.",
         "tests": [{"name": "1", "stdin": "1 2\n", "expected": "3\n"}],
         "limits": {"time_limit_s": 1, "memory_mb": 256}}, str(tmp_path / "add.json"), tmp_path)
    function = load_suite(ROOT / "problems" / "basics")["basics_digital_root"]
    candidates = [
        (program, "a, b = map(int, input().split())\nprint(a + b)  # \ud800\n", "python"),
        (program, '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);'
                  'printf("%d\\n",a+b);return 0;} // \ud800\n', "c"),
        (program, "print('\ud800')\n", "python"),
        (function, "def digital_root(n):\n    s = '\ud800'\n"
                   "    return 0 if n == 0 else 1 + (n - 1) % 9\n", None),
        (function, "def digital_root(n):\n    return '\ud800'\n", None),
        (function, "def digital_root(n):  # \ud800\n    return n\n", None),
    ]
    with JudgeClient(server.url, retries=0) as remote, Judge(sandbox="process") as local:
        for problem, code, language in candidates:
            there = remote.judge(problem, code, language=language)
            here = local.judge(problem, code, language=language)
            assert there.verdict is here.verdict, (code, there.message, here.message)
            assert there.verdict.value != "sandbox_error"


# ---- 36.10: client mistakes are 4xx naming the field -------------------------------------

@pytest.mark.parametrize("raw, where", [
    (b'{"code": "print(1)", "language": "python", "run_timeout": NaN}', ["body", "run_timeout"]),
    (b'{"code": "print(1)", "language": "python", "compile_timeout": NaN}',
     ["body", "compile_timeout"]),
    (b'{"code": "print(1)", "language": "python", "run_timeout": Infinity}',
     ["body", "run_timeout"]),
    (b'{"code": "print(input())", "language": "python", "stdin": "\\ud800"}', ["body", "stdin"]),
    (b'{"code": "print(1)", "language": "python", "files": {"../x": "eA=="}}', ["body", "files"]),
    (b'{"code": "print(1)", "language": "python", "files": {"a": "not base64!"}}',
     ["body", "files"]),
])
def test_run_code_client_mistakes_are_422_located(server, raw, where):
    answer = post(server, "/run_code", raw=raw)
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"][0]["loc"] == where, answer.text


@pytest.mark.parametrize("config, named", [
    ({"extra": {"checker": "tokens"}}, "config.extra.checker"),
    ({"extra": {"checker": {"type": "nope"}}}, "config.extra.checker.type"),
    ({"extra": {"checker": {"float_tolerance": "x"}}}, "config.extra.checker"),
    ({"provided_data": {"test_cases": [{"input": "", "output": "42"}, 7]}},
     "config.provided_data.test_cases[1]"),
    ({"provided_data": {"test": [{"input": "1", "output": "2"}]}},
     "config.provided_data.test[0].input"),
    ({"provided_data": {"test_cases": {"input": "12", "output": "34"}}},
     "config.provided_data.test_cases.input"),
    ({"provided_data": {"inputs": ["\ud800"], "outputs": ["1"]}},
     "config.provided_data.inputs[0]"),
    ({"provided_data": {"test_cases": [{"input": "1", "output": "\udfff"}]}},
     "config.provided_data.test_cases[0].output"),
])
def test_submit_client_mistakes_are_400_naming_the_field(server, config, named):
    body = {"id": 1, "completion": "print(42)",
            "config": {"language": "python", "provided_data": CASES, **config}}
    for path, wrapped, prefix in (("/submit", body, ""),
                                  ("/v1/evaluate/batch", {"items": [body]}, "items.0.")):
        answer = post(server, path, raw=json.dumps(wrapped).encode())
        assert answer.status_code == 400, answer.text
        assert answer.json()["detail"].startswith(prefix + named), answer.text


def test_submit_with_nan_timeouts_is_422(server):
    for field in ("run_timeout", "compile_timeout"):
        answer = post(server, "/submit", raw=(
            b'{"completion": "print(42)", "config": {"language": "python", "%s": NaN, '
            b'"provided_data": {"inputs": [""], "outputs": ["42"]}}}' % field.encode()))
        assert answer.status_code == 422, answer.text
        assert answer.json()["detail"][0]["loc"] == ["body", "config", field]


def test_surrogate_escaped_bytes_in_stdin_still_run(server):
    """``surrogateescape`` escapes (U+DC80-U+DCFF) are bytes a client read as text: they
    reach the program as those bytes."""
    ran = post(server, "/run_code", raw=json.dumps(
        {"code": "import sys\nprint(sys.stdin.buffer.read().hex())", "language": "python",
         "stdin": "a\udcff"}).encode()).json()
    assert ran["status"] == "Success" and ran["run_result"]["stdout"] == "61ff\n", ran


# ---- 36.11: files paths are bounded at the route -----------------------------------------

def test_a_files_path_1200_deep_is_a_422_and_the_server_serves_on(server):
    data = base64.b64encode(b"x").decode()
    for name in ("/".join(["a"] * 1200) + "/f", "/".join(["a"] * 40) + "/f",
                 "b" * 2000, "/etc/passwd"):
        answer = post(server, "/run_code", {"code": "print(1)", "language": "python",
                                            "files": {name: data}})
        assert answer.status_code == 422, answer.text
        assert answer.json()["detail"][0]["loc"] == ["body", "files"]
        assert "files: " in answer.json()["detail"][0]["msg"]
    fine = post(server, "/run_code", {
        "code": "print(open('a/b/c/d.txt').read())", "language": "python",
        "files": {"a/b/c/d.txt": base64.b64encode(b"ok").decode()}}).json()
    assert fine["status"] == "Success" and fine["run_result"]["stdout"] == "ok\n", fine
