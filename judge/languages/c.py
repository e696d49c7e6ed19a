"""C (gnu17) with gcc: whole programs only (program problems). A function problem in C is
not expressible (there is no typed harness), and says so once per problem."""

from __future__ import annotations

import re
from typing import Any

from judge.languages.base import (Build, Language, NotExpressible, first_error, main_source,
                                  source_files)
from judge.languages.cpp import _ERROR, _version
from judge.problem.types import TypeSpec

#: the usual contest flags
PROGRAM_FLAGS = ("-O2", "-std=gnu17", "-pipe", "-fmax-errors=5")


class C(Language):
    name = "c"
    title = "C (gnu17)"
    extension = "c"
    fence_tags = ("c",)
    tools = (("gcc", ("/usr/bin/gcc", "--version")),)
    header_extensions = ("h",)
    names_in = {"kattis": ("c",), "sandboxfusion": ("c",)}

    def defines(self, code: str, name: str) -> bool:
        return re.search(r"[\w*]\s+\**\s*%s\s*\(" % re.escape(name), code) is not None

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        raise NotExpressible("C judges whole programs only (program problems)")

    def check_expressible(self, problem: Any) -> None:
        raise NotExpressible("C judges whole programs only (program problems)")

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        files = source_files(sources, ".c")
        return Build(files=dict(sources),
                     compile=[["/usr/bin/gcc", *PROGRAM_FLAGS, "-o", "prog", *files, "-lm"]],
                     run=["{build}/prog"], artifacts=["prog"],
                     candidate_file=main_source(sources, ".c", marker=r"\bmain\s*\("))

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _ERROR, build.candidate_file, 0)

    @property
    def toolchain(self) -> str:
        return _version(["gcc", "--version"])


__all__ = ["C", "PROGRAM_FLAGS"]
