"""Python 3 on PyPy: whole programs only (program problems), run as Kattis runs Python 3.

Kattis and problemtools run a package's Python 3 submissions with PyPy 3
(``pypy3 "{mainfile}"``, problemtools' ``languages.yaml``), and a jury sets its time limits
and files its ``time_limit_exceeded`` Python programs against that speed: CPython is several
times slower on the loops contest code is made of, so an accepted Python program can time out
under CPython where the package's time limit was set with PyPy. ``judge verify`` and the
time-limit measure of ``judge import kattis`` therefore run ``.py`` submissions here by
default (``--python cpython`` keeps CPython); a candidate chooses it with ``--language
pypy3``.

The syntax check is PyPy's own (its Python version, 3.9 in Debian 12, not the judge's), run
once per candidate as the compile step; each test runs ``pypy3 main.py`` (no start-up is added
to the limits: PyPy starts in about 30 ms of CPU). Function problems stay with ``python``."""

from __future__ import annotations

import re
import subprocess
from typing import Any

from judge.languages.base import Build, Language, NotExpressible, first_error, main_source, \
    source_files
from judge.problem.types import TypeSpec

PYPY = "/usr/bin/pypy3"
#: the compile step: every source compiled by PyPy's own parser, errors as file:line: error: ...
SYNTAX_CHECK = (
    "import sys\n"
    "status = 0\n"
    "for name in sys.argv[1:]:\n"
    "    try:\n"
    "        with open(name, 'rb') as f:\n"
    "            compile(f.read(), name, 'exec', dont_inherit=True)\n"
    "    except SyntaxError as exc:\n"
    "        print('%s:%s: error: %s: %s' % (name, exc.lineno or 0, type(exc).__name__,"
    " exc.msg))\n"
    "        status = 1\n"
    "    except (ValueError, OverflowError, MemoryError, RecursionError) as exc:\n"
    "        print('%s:0: error: %s: %s' % (name, type(exc).__name__, exc))\n"
    "        status = 1\n"
    "sys.exit(status)\n")
_ERROR = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+): error: (?P<message>.*)$", re.M)
_ONLY = "PyPy judges whole programs only (program problems): function problems use python"


class PyPy(Language):
    name = "pypy3"
    title = "Python 3 (PyPy 3)"
    extension = "py"
    #: the same files as Python's: a ``.py`` file is Python's (registered first); PyPy runs
    #: it when a problem's ``runtimes`` say so
    source_extensions = ("py", "py3")
    allocation_errors = ("MemoryError",)
    fence_tags = ("python", "py", "python3", "pypy")
    tools = (("pypy3", (PYPY, "--version")),)
    comment = "#"

    def defines(self, code: str, name: str) -> bool:
        return re.search(r"^\s*def\s+%s\s*\(" % re.escape(name), code, re.M) is not None

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        raise NotExpressible(_ONLY)

    def check_expressible(self, problem: Any) -> None:
        raise NotExpressible(_ONLY)  # asked of function problems only: programs need no types

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        main = main_source(sources, ".py", ".py3", marker=r"^if\s+__name__\s*==")
        return Build(files=dict(sources),
                     compile=[[PYPY, "-c", SYNTAX_CHECK, *source_files(sources, ".py", ".py3")]],
                     run=[PYPY, "{build}/" + main], artifacts=sorted(sources),
                     candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _ERROR, build.candidate_file, 0)

    @property
    def toolchain(self) -> str:
        try:
            done = subprocess.run([PYPY, "--version"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return "pypy3 (unknown version)"
        lines = [line.strip() for line in (done.stdout + done.stderr).splitlines()
                 if line.strip()]
        return "pypy3 " + " ".join(lines[:2])[:120] if lines else "pypy3 (unknown version)"


__all__ = ["PyPy", "SYNTAX_CHECK"]
