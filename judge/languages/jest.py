"""Jest (SandboxFusion's ``jest``): TypeScript or JavaScript test files run by jest 29.7.0,
through babel (``@babel/preset-env`` for the running Node, ``@babel/preset-typescript``: types
are stripped, not checked), as SandboxFusion's ``runtime/node`` runs them; tests import from
``@jest/globals`` (or use jest's globals). Its browser packages (puppeteer, jsdom,
testing-library) are not installed: the test environment is ``node``.

The toolchain is pinned by ``sandboxes/jest/package.json`` and ``package-lock.json`` and
installed with ``npm ci`` by scripts/ensure-toolchains.sh into :data:`JEST_HOME` (and into
the polyglot image, at the same place, from that install), with the judge's runner and
reporter (``sandboxes/jest/judge/``) beside it and a stamp naming what was installed.

**The verdict** (the guard of docs/test-programs.md): the run is the judge's ``run.js``,
which starts jest in band (one process, no workers, no watchman, its cache in the run's own
temporary directory, ``CI=true``, ``FORCE_COLOR=0``) on the candidate's file, and exits 0
only when jest exits 0 **and** the judge's reporter, in a line carrying a per-run nonce it
received through a pipe and closed before any test was loaded, says every test passed and
there was at least one. A test that calls ``process.exit(0)`` early, prints jest's summary
itself, or defines no test does not pass; the first failing test's name and assertion are
the last line of standard error. Not guaranteed: a test that patches the runtime jest itself
runs on (its ``fs``, through the outer realm) can still forge a pass, as in every framework.

Missing or stale (the stamp is not this checkout's): the compile step fails with one line
naming :data:`JEST_HOME` and scripts/ensure-toolchains.sh."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

from judge.languages.base import Build, source_files
from judge.languages.frameworks import _Framework
from judge.resources import sandbox_dir
from judge.sandbox.prerequisites import Prerequisite, tool_version

NODE = "/usr/bin/node"
#: where the toolchain is installed, on the host (the process sandbox) and in the image
JEST_HOME = "/usr/local/lib/judge-jest"
#: the file in JEST_HOME naming what was installed (:func:`expected_stamp`)
STAMP = "judge-jest.stamp"
#: the judge's own files installed beside node_modules (sandboxes/jest/)
OWN_FILES = ("package.json", "package-lock.json", "judge/run.js", "judge/reporter.js")
#: the test file (SandboxFusion's ``tmpXXXX.test.ts``)
TEST_FILE = "main.test.ts"
#: the compile step: is the toolchain there, and this checkout's? One line when it is not
CHECK = """\
const fs = require('fs');
let found = '';
try { found = fs.readFileSync(%r, 'utf8').trim(); } catch (e) { found = ''; }
if (found !== process.argv[1]) {
  console.log(found ? 'jest: the toolchain in %s is not this judge\\'s (stamp ' + found +
                      ', wanted ' + process.argv[1] + '): run scripts/ensure-toolchains.sh'
                    : 'jest: not installed (no %s; npm and the npm registry are needed): run '
                      + 'scripts/ensure-toolchains.sh');
  process.exit(1);
}
"""


def source_root() -> Path:
    """sandboxes/jest/ of this checkout (what ensure-toolchains.sh installs)."""
    return sandbox_dir("jest")


def expected_stamp() -> str:
    """The stamp an install of this checkout's files has: the SHA-256 of its lockfile and
    the judge's runner and reporter (scripts/ensure-toolchains.sh writes the same)."""
    digest = hashlib.sha256()
    for name in ("package-lock.json", "judge/run.js", "judge/reporter.js"):
        digest.update((source_root() / name).read_bytes())
    return digest.hexdigest()


def installed_stamp(home: str = JEST_HOME) -> str:
    """The stamp of the install at ``home`` ("" when there is none)."""
    try:
        return (Path(home) / STAMP).read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def installed(home: str = JEST_HOME) -> bool:
    """Whether this checkout's toolchain is installed at ``home``."""
    return installed_stamp(home) == expected_stamp()


def jest_version(home: str = JEST_HOME) -> str:
    """The installed jest's version ("" when none)."""
    try:
        found = json.loads((Path(home) / "node_modules/jest/package.json").read_text())
        return str(found.get("version", ""))
    except (OSError, ValueError):
        return ""


class Jest(_Framework):
    """jest on the candidate's TypeScript (or JavaScript) test file, through the judge's
    runner (module docstring)."""

    name, title, extension, language = "jest", "TypeScript (jest)", "ts", "typescript"
    fence_tags = ("typescript", "ts", "javascript", "js")
    source_extensions = ("ts", "js", "tsx", "jsx", "mts", "cts", "mjs", "cjs")
    pool = "polyglot"
    names_in = {"sandboxfusion": ("jest",)}
    oom_markers = ("JavaScript heap out of memory",)
    # two Node processes (the runner, jest) start, and jest loads babel: more than Node's 0.3
    startup_s = 1.5
    nproc = 64
    #: the runner's own Node beside jest's heap
    memory_headroom_mb = 0

    def program_file(self, code: str) -> str:
        return TEST_FILE

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        files = source_files(sources, *(".%s" % ext for ext in self.source_extensions))
        tests = [name for name in files if re.search(r"\.(test|spec)\.[cm]?[jt]sx?$", name)]
        main = TEST_FILE if TEST_FILE in tests else (tests[0] if tests else files[0])
        run_as = main
        if main not in tests:  # SandboxFusion names its file tmpXXXX.test.ts
            run_as = re.sub(r"(\.[cm]?[jt]sx?)$", r".test\1", main)
        contents = dict(sources)
        if run_as != main:
            contents[run_as] = contents.pop(main)
        # jest's heap: the limit less the runner's Node and jest's own beside its heap
        heap = max(64, memory_mb - 160)
        return Build(files=contents,
                     compile=[[NODE, "-e", CHECK % ("%s/%s" % (JEST_HOME, STAMP), JEST_HOME,
                                                    "%s/%s" % (JEST_HOME, STAMP)),
                               expected_stamp()]],
                     run=[NODE, "--max-old-space-size=48", "%s/judge/run.js" % JEST_HOME,
                          JEST_HOME, "{build}", "{tmp}", run_as, str(heap)],
                     artifacts=sorted(contents), candidate_file=run_as)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        lines = [line for line in output.splitlines() if line.strip()]
        return (lines[0][:500] if lines else "jest: the toolchain check failed"), None

    @functools.cached_property
    def toolchain(self) -> str:
        return "jest %s (%s)" % (jest_version() or "not installed", installed_stamp()[:12])

    def prerequisites(self) -> list[Prerequisite]:
        hint = "scripts/ensure-toolchains.sh installs it with npm ci (sandboxes/jest/)"
        version = jest_version()
        node = tool_version("node", [NODE, "--version"], needed="node for %s" % self.title)
        if installed():
            return [node, Prerequisite("jest", "jest for %s" % self.title, True,
                                 "jest %s in %s" % (version, JEST_HOME), hint=hint)]
        why = ("jest %s in %s, not this checkout's lockfile" % (version, JEST_HOME)
               if version else "not installed in %s" % JEST_HOME)
        return [node, Prerequisite("jest", "jest for %s" % self.title, False, why, hint=hint)]


__all__ = ["JEST_HOME", "Jest", "expected_stamp", "installed", "jest_version"]
