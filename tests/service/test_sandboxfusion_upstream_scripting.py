"""SandboxFusion's own runner tests for Bash, Lua, Perl, PHP, R, Racket and Ruby, unchanged,
against the judge's SandboxFusion routes, in both sandboxes.

tests/sandboxfusion/upstream/test_{bash,lua,perl,php,r,racket,ruby}.py are byte for byte
SandboxFusion's (commit 469de08, sandbox/tests/runners/; tests/sandboxfusion/NOTICE), run
as tests/service/test_sandboxfusion_upstream.py runs the native languages' ones: a pytest of
their own, the shim (SandboxFusion's import paths over the judge's app) first on
``sys.path``. Every one must pass: they need LuaUnit (shipped with the Lua language,
runners/lua/), Perl's Test::Deep and Data::Compare and Ruby's test/unit (Debian packages in
the polyglot image and on the host), Racket's rackunit (in Debian's racket)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from tests.paths import TESTS
from tests.service.fusion_upstream import run_upstream

VENDORED = TESTS / "sandboxfusion"
UPSTREAM = VENDORED / "upstream"
#: SHA-256 of each vendored file as it is at SandboxFusion's commit 469de08 (unchanged)
SHA256 = {
    "test_bash.py": "dccf176a864d3d6a568fa69b805fd0bb717e50014541277397cba19f0447479f",
    "test_lua.py": "33fbbecc0ed8385abb8e5f5bed4a84cc184485370ab2a6cbef135e768f1c7092",
    "test_perl.py": "8d06e1739e5f671cc355b4e0ba2d43d6174818babb08fd7f6c87256bc7cb3f3f",
    "test_php.py": "c5f9e0233d2b784fcd367ee09b7756a82d3d7bd44fddf1830269098a2e92746f",
    "test_r.py": "e9dc30831d0b2af7ea8f5dabb13143a823dc1d92b179a437aaaab791276ca868",
    "test_racket.py": "f8b6ba6dc1060c6c7dbc38ace4b3ad15bc043750bc1337ef1e047956418e998f",
    "test_ruby.py": "f83a82a2839616db6025cc3a700f3e6260c88556b721b0d5408cc426c94b4be9",
}
FILES = tuple(SHA256)
#: the tests in those files (6 bash, 4 lua, 4 perl, 4 php, 4 R, 3 racket, 4 ruby)
COUNT = 29


def test_the_vendored_files_are_unchanged():
    for name in FILES:
        data = (UPSTREAM / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == SHA256[name], name
        assert data.startswith(b"# Copyright 2024 Bytedance Ltd.")


def _run(sandbox: str, tmp_path: Path) -> dict[str, str]:
    """The files in a pytest of their own: {"file::test": outcome}."""
    return run_upstream(sandbox, FILES, tmp_path / ("upstream-scripting-%s.xml" % sandbox))


@pytest.mark.parametrize("sandbox", ["process", pytest.param("docker", marks=pytest.mark.docker)])
def test_sandboxfusions_runner_tests_of_the_scripting_languages_pass(sandbox, tmp_path):
    if sandbox == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    outcomes = _run(sandbox, tmp_path)
    assert len(outcomes) == COUNT, outcomes
    assert {name for name, outcome in outcomes.items() if outcome != "passed"} == set(), \
        outcomes
