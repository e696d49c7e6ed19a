"""SandboxFusion's own runner tests, unchanged, against the judge's SandboxFusion routes.

tests/sandboxfusion/upstream/ holds SandboxFusion's runner tests for the languages the judge
runs (python, cpp, go, java, nodejs, rust, and the test frameworks pytest, go_test, junit,
D_ut, jest), byte for byte from its repository (commit
469de08; tests/sandboxfusion/NOTICE). They import ``sandbox.server.server.app`` and
SandboxFusion's models; tests/sandboxfusion/shim/ provides those names over the judge (the
app ``judge.service.app.create_app`` builds, with the server's defaults, and the models of
``judge.service.fusion_models``). Each sandbox runs them in a pytest of their own, the shim
first on ``sys.path``, and every test must pass (jest's too: judge/languages/jest.py),
except those that need what SandboxFusion ships beside its runners and the judge does not:
they must fail (so the list stays true) and docs/service.md says why (there are none now)."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest
from tests.paths import TESTS
from tests.service.fusion_upstream import run_upstream

HERE = TESTS
VENDORED = HERE / "sandboxfusion"
UPSTREAM = VENDORED / "upstream"
FILES = ("test_python.py", "test_cpp.py", "test_go.py", "test_java.py", "test_nodejs.py",
         "test_rust.py", "test_pytest.py", "test_go_test.py", "test_junit.py", "test_d_ut.py",
         "test_jest.py")
#: SHA-256 of each vendored file as it is at SandboxFusion's commit 469de08 (unchanged)
SHA256 = {
    "test_python.py":
        "b3b33839c7fae320117f31327f0762b25aaa4995361e6a9106c3ffab05a4582b",
    "test_cpp.py":
        "b6c0c3937c26212f237a07cea9a89ec085c2c89aa16f8734bc1f20d02315a5c4",
    "test_go.py":
        "3a1d71f9b0a974473dbb8c1884bac08c0300f252249137a3b966377802717495",
    "test_java.py":
        "eadb6a6fd33d72b663441038d60c4a9a1f2c1063f8652a0d3600a363b0d957a1",
    "test_nodejs.py":
        "92faddb8ad78765ec2887c5119be7881414f3f02adccd940c7591853d6e56f50",
    "test_rust.py":
        "f7c6f06c203b9e4ca56b8932d16a1de8d8ec092ac9e9824ae6d5eb27813ddff7",
    # the test-framework languages (judge/languages/frameworks.py)
    "test_pytest.py":
        "65a1e5c69d97a7d06e20d20029c6e23b7c2e89c0f9433c89fccb1d1f4eff6f95",
    "test_go_test.py":
        "b50ba4f520074ea818d539cfc216a9ebd2e7313b73350afa86ad78ba9e6d2289",
    "test_junit.py":
        "78a5ef47eb7a42e1b6335bf57b68d089e343769ff18f915facfcbfa4d27b02fd",
    "test_d_ut.py":
        "e4f7a6183c388296cff8436ae749d1178d7403d46adf67c0c0a839a985af857d",
    "test_jest.py":
        "6a3a2dd68c74ee210b29c101e1d57e3991cf2095b0f0cc2f2069d4da6541fa7f",
}
#: tests that need what SandboxFusion allows beside its runners (docs/service.md, "What
#: differs from SandboxFusion")
#: (none now: jest runs, judge/languages/jest.py, from the npm install of sandboxes/jest/)
NEEDS_SANDBOXFUSION_RUNTIME: set[str] = set()


def test_the_vendored_files_are_unchanged():
    # (the other languages' files beside them run in their own modules: tests/service/)
    assert set(FILES) <= {p.name for p in UPSTREAM.glob("test_*.py")}
    for name in FILES:
        digest = hashlib.sha256((UPSTREAM / name).read_bytes()).hexdigest()
        assert digest == SHA256[name], name
        assert (UPSTREAM / name).read_text().startswith("# Copyright 2024 Bytedance Ltd.")


def _run(sandbox: str, tmp_path: Path) -> dict[str, str]:
    """The files in a pytest of their own: {"file::test": outcome}."""
    return run_upstream(sandbox, FILES, tmp_path / ("upstream-%s.xml" % sandbox))


@pytest.mark.parametrize("sandbox", ["process", pytest.param("docker", marks=pytest.mark.docker)])
def test_sandboxfusions_own_runner_tests_pass(sandbox, tmp_path):
    if sandbox == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    outcomes = _run(sandbox, tmp_path)
    per_file = Counter()
    for name, outcome in outcomes.items():
        per_file[name.split("::")[0], outcome] += 1
    summary = ", ".join("%s %d/%d" % (f, per_file[f, "passed"],
                                       sum(per_file[f, o] for o in ("passed", "failed",
                                                                    "skipped")))
                        for f in FILES)
    print("SandboxFusion runner tests (%s sandbox): %s" % (sandbox, summary))
    assert len(outcomes) == 47, outcomes  # 34, and 13 of the test-framework languages
    wrong = {name: outcome for name, outcome in outcomes.items()
             if outcome != ("failed" if name in NEEDS_SANDBOXFUSION_RUNTIME else "passed")}
    assert wrong == {}, summary
