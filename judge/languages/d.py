"""D with LDC (``ldc2``, the LLVM D compiler): whole programs only (program problems),
compiled once with the usual contest flags (Codeforces' ``-O -release -inline
-noboundscheck`` in LDC's spelling: ``-O -release -boundscheck=off``) to a native binary.

D's own GC has no cap: the sandbox's resident-memory limit stops a program that holds more
than the limit (memory_limit); a deep recursion past the stack dies by SIGSEGV
(runtime_error). D's ``unittest`` blocks are a test program's business (SandboxFusion's
``D_ut``), not a whole program's."""

from __future__ import annotations

import re
from typing import Any

from judge.languages.base import (Build, Language, NotExpressible, first_error, main_source,
                                  source_files)
from judge.languages.cpp import _version
from judge.problem.types import TypeSpec

LDC = "/usr/bin/ldc2"
#: the usual contest flags
PROGRAM_FLAGS = ("-O", "-release", "-boundscheck=off")
_ERROR = re.compile(r"^(?P<file>[^\s(]+\.d)\((?P<line>\d+)(?:,\d+)?\): Error: (?P<message>.*)$",
                    re.M)
_ONLY = "D judges whole programs only (program problems)"


class D(Language):
    name = "d"
    pool = "polyglot"
    title = "D (LDC)"
    extension = "d"
    fence_tags = ("d", "dlang")
    source_extensions = ("d",)
    tools = (("ldc2", (LDC, "--version")),)
    names_in = {"kattis": ("d",)}
    allocation_errors = ("core.exception.OutOfMemoryError", "OutOfMemoryError")
    oom_markers = ("core.exception.OutOfMemoryError",)
    nproc = 32

    def defines(self, code: str, name: str) -> bool:
        return re.search(r"[\w\]\)]\s+%s\s*\(" % re.escape(name), code) is not None

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        raise NotExpressible(_ONLY)

    def check_expressible(self, problem: Any) -> None:
        raise NotExpressible(_ONLY)

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        files = source_files(sources, ".d")
        return Build(files=dict(sources),
                     compile=[[LDC, *PROGRAM_FLAGS, "-of=prog", *files]],
                     run=["{build}/prog"], artifacts=["prog"],
                     candidate_file=main_source(sources, ".d", marker=r"\bmain\s*\("))

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _ERROR, build.candidate_file, 0)

    @property
    def toolchain(self) -> str:
        return _version([LDC, "--version"])


__all__ = ["D", "PROGRAM_FLAGS"]
