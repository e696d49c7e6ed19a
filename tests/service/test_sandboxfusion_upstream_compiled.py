"""SandboxFusion's own runner tests for C#, Kotlin (``kotlin_script``), Scala and TypeScript,
unchanged, against the judge's SandboxFusion routes, in both sandboxes.

tests/sandboxfusion/upstream/test_{csharp,kotlin_script,scala,typescript}.py are byte for byte
SandboxFusion's (commit 469de08, sandbox/tests/runners/; tests/sandboxfusion/NOTICE), run as
tests/service/test_sandboxfusion_upstream.py runs the native languages' ones: a pytest of
their own, the shim (SandboxFusion's import paths over the judge's app) first on
``sys.path``. Every one must pass: C# as ``dotnet run`` builds it (implicit usings, a failing
``Debug.Assert`` ends the program), Kotlin scripts compiled once, Scala's ``object`` found
whatever its name, TypeScript with lodash importable (Debian's node-lodash: in the
``polyglot`` image only once its recipe has it, see NEEDS_LODASH). D's runner test is
``D_ut`` (a test framework), not here. Compiling Kotlin and Scala takes seconds: this module
adds about a minute per sandbox."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from tests.paths import TESTS
from tests.service.fusion_upstream import run_upstream

VENDORED = TESTS / "sandboxfusion"
UPSTREAM = VENDORED / "upstream"
#: SHA-256 of each vendored file as it is at SandboxFusion's commit 469de08 (unchanged)
SHA256 = {
    "test_csharp.py": "77c2c2deff81ecd1b62646bc506e5fe481fc88691a5e8d4a14f0153715fe2a0c",
    "test_kotlin_script.py": "89a78236ea75468bf4c85d5bd689578f2305eeb017da9ffd9b0f626c0c344c1e",
    "test_scala.py": "9769412dcfc88989f5c3898e331dd8553b355954c057eaeab6d931f51e75330b",
    "test_typescript.py": "cedd8c235759eab947346204b0dfc266bbda2621d06e8e4311179ca2d177866c",
}
FILES = tuple(SHA256)
#: the tests in those files (4 csharp, 4 kotlin_script, 4 scala, 6 typescript)
COUNT = 18
#: imports lodash: Debian's node-lodash, on the host (scripts/ensure-toolchains.sh) and in
#: the polyglot image when its recipe installs it (in Docker it must pass then, else fail)
NEEDS_LODASH = "test_typescript.py::test_typescript_lodash_dep"


def _image_has_lodash() -> bool:
    recipe = json.loads((TESTS.parent / "sandboxes" / "polyglot" / "base.json").read_text())
    return "node-lodash" in recipe["include"]


def test_the_vendored_files_are_unchanged():
    for name in FILES:
        data = (UPSTREAM / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == SHA256[name], name
        assert data.startswith(b"# Copyright 2024 Bytedance Ltd.")


def _run(sandbox: str, tmp_path: Path) -> dict[str, str]:
    """The files in a pytest of their own: {"file::test": outcome}."""
    return run_upstream(sandbox, FILES, tmp_path / ("upstream-compiled-%s.xml" % sandbox))


@pytest.mark.parametrize("sandbox", ["process", pytest.param("docker", marks=pytest.mark.docker)])
def test_sandboxfusions_runner_tests_of_the_compiled_languages_pass(sandbox, tmp_path):
    if sandbox == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    outcomes = _run(sandbox, tmp_path)
    assert len(outcomes) == COUNT, outcomes
    failing = set() if sandbox == "process" or _image_has_lodash() else {NEEDS_LODASH}
    assert {name for name, outcome in outcomes.items() if outcome != "passed"} == failing, \
        outcomes
