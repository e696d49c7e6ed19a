"""Scala 2.11 (``scalac`` from Debian, on the JDK 17): whole programs only (program
problems), compiled once as Kattis compiles them (``scalac -encoding UTF-8 -d <dir>``) and
run on the JVM with the Scala library on the class path, as Kattis runs Scala (``scala
-J-Xmx<limit>m``) without the runner script's own start-up: the heap is the memory limit,
the JVM's own memory the language's headroom (as for Java and Kotlin).

The entry point is the ``object`` that has a ``main`` method or ``extends App`` (any name:
``object Main``, ``object HelloWorld``), else the first ``object`` (SandboxFusion's rule), in
its package if the file has one. ``assert`` failing is ``java.lang.AssertionError:
assertion failed`` on standard error (runtime_error); running out of heap
``java.lang.OutOfMemoryError`` (memory_limit)."""

from __future__ import annotations

import functools
import re
from typing import Any

from judge.languages.base import (Build, Language, NotExpressible, first_error, main_source,
                                  source_files)
from judge.languages.kotlin import COMPILER_JAVA_OPTS, JAVA, JVM_HEADROOM_MB, jvm_run, jvm_version
from judge.problem.types import TypeSpec

SCALAC = "/usr/bin/scalac"
SCALA_LIBRARY = "/usr/share/scala/lib/scala-library.jar"
_ERROR = re.compile(r"^(?P<file>[^\s:]+\.scala):(?P<line>\d+): error: (?P<message>.*)$", re.M)
_OBJECT = re.compile(r"\bobject\s+(\w+)")
_RUNNABLE = re.compile(r"\bobject\s+(\w+)\s*(?:extends\s+App\b|(?:extends|with)[^{]*\bApp\b)")
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;?\s*$", re.M)
_COMMENTS = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"', re.S)
_ONLY = "Scala judges whole programs only (program problems)"


def main_object(code: str) -> str:
    """The object a Scala program starts in (qualified by its package)."""
    plain = _COMMENTS.sub(lambda m: " " * len(m.group()), code)
    found = _RUNNABLE.search(plain)
    if found is None:
        objects = list(_OBJECT.finditer(plain))
        with_main = [m for m, after in zip(objects, objects[1:] + [None])
                     if re.search(r"\bdef\s+main\s*\(",
                                  plain[m.end():after.start() if after else len(plain)])]
        found = (with_main or objects or [None])[0]
    name = found.group(1) if found else "Main"
    package = _PACKAGE.search(plain)
    return "%s.%s" % (package.group(1), name) if package else name


class Scala(Language):
    name = "scala"
    pool = "polyglot"
    title = "Scala 2.11"
    extension = "scala"
    fence_tags = ("scala",)
    source_extensions = ("scala", "sc")
    tools = (("scalac", (SCALAC, "-version")), ("java", (JAVA, "-version")))
    names_in = {"kattis": ("scala",), "sandboxfusion": ("scala",)}
    allocation_errors = ("OutOfMemoryError", "java.lang.OutOfMemoryError")
    oom_markers = ("java.lang.OutOfMemoryError",)
    startup_s = 1.0
    memory_headroom_mb = JVM_HEADROOM_MB
    nproc = 96

    def defines(self, code: str, name: str) -> bool:
        return re.search(r"\bdef\s+%s\b" % re.escape(name), code) is not None

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        raise NotExpressible(_ONLY)

    def check_expressible(self, problem: Any) -> None:
        raise NotExpressible(_ONLY)

    def program_file(self, code: str) -> str:
        return "Main.scala"

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        files = source_files(sources, ".scala", ".sc")
        main = main_source(sources, ".scala", ".sc",
                           marker=r"\bdef\s+main\s*\(|\bextends\s+App\b")
        heap = max(64, memory_mb - self.memory_headroom_mb)
        return Build(files=dict(sources),
                     compile=[["/bin/mkdir", "-p", "out"],
                              [SCALAC, "-encoding", "UTF-8", "-nowarn", "-d", "out", *files]],
                     run=jvm_run(heap, "{build}/out:" + SCALA_LIBRARY, main_object(sources[main])),
                     artifacts=["out"], env={"JAVA_OPTS": COMPILER_JAVA_OPTS},
                     candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _ERROR, build.candidate_file, 0)

    @functools.cached_property
    def toolchain(self) -> str:
        return jvm_version([SCALAC, "-version"], "scalac")


__all__ = ["Scala", "main_object"]
