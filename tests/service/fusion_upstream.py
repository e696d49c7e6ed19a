"""Running SandboxFusion's vendored runner tests (tests/sandboxfusion/upstream/) against the
judge's app, in a pytest of their own with the shim (SandboxFusion's import paths over the
judge's routes) first on the path: shared by the modules that check them by language group."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterable

from tests.paths import TESTS

VENDORED = TESTS / "sandboxfusion"
UPSTREAM = VENDORED / "upstream"


def run_upstream(sandbox: str, files: Iterable[str], report: Path) -> dict[str, str]:
    """The vendored ``files`` run in ``sandbox`` (process or docker): {"file::test": outcome}
    (passed, failed or skipped); ``report``: where pytest writes its JUnit XML."""
    env = dict(os.environ, JUDGE_FUSION_SANDBOX=sandbox, JUDGE_FUSION_JOBS="2",
               PYTHONPATH=os.pathsep.join([str(VENDORED / "shim"),
                                           *filter(None, [os.environ.get("PYTHONPATH")])]))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(VENDORED / "pytest.ini"),
         "--rootdir", str(VENDORED), "--confcutdir", str(UPSTREAM), "-q",
         "--junitxml", str(report), *(str(UPSTREAM / name) for name in files)],
        cwd=str(TESTS.parent), env=env, capture_output=True, text=True, timeout=3600)
    assert report.exists(), proc.stdout[-4000:] + proc.stderr[-4000:]
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = "%s.py::%s" % (case.get("classname", "").rsplit(".", 1)[-1], case.get("name"))
        failed = case.find("failure") is not None or case.find("error") is not None
        outcomes[name] = "skipped" if case.find("skipped") is not None else (
            "failed" if failed else "passed")
    return outcomes
