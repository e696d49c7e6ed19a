"""What the interpreted languages of the polyglot pool share (Bash, Lua, Perl, PHP, R, Racket,
Ruby): a whole program runs from its source with the language's interpreter, its syntax
checked once as the compile step (so a syntax error is the candidate's ``compile_error`` with
its line, as Python's is), and no typed function harness: a function problem in one of them
is not expressible, once per problem, with a message that says so.

Each language is one module (``judge/languages/<name>.py``) that fills in the facts below:
the interpreter's run command (the usual contest one, as SandboxFusion and Kattis run it),
the syntax check and the pattern of its first error, what a program file needs before it runs
(PHP's ``<?php`` tag, Racket's ``#lang`` line), the runtime's start-up CPU and memory.
SandboxFusion's routes run them without the syntax check
(``build_flags_in["sandboxfusion"]``): there a syntax error is the run's, in the
interpreter's own words on standard error, as SandboxFusion reports it.
"""

from __future__ import annotations

import functools
import re
import subprocess
from typing import Any

from judge.languages.base import Build, Language, NotExpressible, first_error, main_source
from judge.problem.types import TypeSpec

#: a sleep, a wait for a child, a lock or a socket, in the spelling of these languages
#: (``sleep 5``, ``Sys.sleep(5)``, ``(sleep 10)``, ``os.execute("sleep 3")``, ``wait``)
SCRIPT_BLOCKING = re.compile(r"\b(sleep|usleep|nanosleep|Sys\.sleep|wait|waitpid|pause|flock"
                             r"|select|accept|recv|socket|IO\.select|os\.execute|system"
                             r"|proc_open|popen)\b")


class Script(Language):
    """An interpreted language of the polyglot pool: whole programs only."""

    pool = "polyglot"
    comment = "#"
    #: SandboxFusion runs these without a syntax check: a syntax error is the run's
    build_flags_in = {"sandboxfusion": {"syntax_check": False}}
    may_block = SCRIPT_BLOCKING
    #: the run command before the program's file
    interpreter: tuple[str, ...] = ()
    #: the syntax check before the program's file (empty: none)
    syntax_check: tuple[str, ...] = ()
    #: the syntax check's messages: named groups ``file``, ``line``, ``message``
    error: re.Pattern[str] | None = None
    #: a function definition, ``%s`` the escaped name (for the reply-to-code step)
    function_pattern = ""
    #: what starts a program's main file among several (``main_source``)
    main_marker: str | None = None

    # ---- names and refusals ----------------------------------------------------------------

    @property
    def program_only(self) -> str:
        return ("%s judges whole programs only (program problems): function problems have no "
                "%s harness" % (self.title, self.title))

    def defines(self, code: str, name: str) -> bool:
        if not self.function_pattern:
            return False
        return re.search(self.function_pattern % re.escape(name), code, re.M) is not None

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        raise NotExpressible(self.program_only)

    def check_expressible(self, problem: Any) -> None:
        raise NotExpressible(self.program_only)  # asked of function problems only

    # ---- whole programs ------------------------------------------------------------------

    def prepare_source(self, code: str) -> tuple[str, int]:
        """The program's main file as it runs, and the lines added before the candidate's
        first line (negative: removed), for compile errors' lines."""
        return code, 0

    def run_command(self, main: str, memory_mb: int, files: dict[str, str]) -> list[str]:
        return [*self.interpreter, "{build}/" + main]

    def check_commands(self, main: str, files: dict[str, str]) -> list[list[str]]:
        return [[*self.syntax_check, main]] if self.syntax_check else []

    def products(self, main: str) -> list[str]:
        """What the syntax check leaves beside the sources that the run uses."""
        return []

    def extra_files(self, code: str) -> dict[str, str]:
        """Files the program's build carries beside its sources (a library it requires)."""
        return {}

    def program_build(self, sources: dict[str, str], memory_mb: int,
                      syntax_check: bool = True) -> Build:
        """``syntax_check=False``: no compile step, so a syntax error is the run's, in the
        interpreter's words on standard error (SandboxFusion's routes run them so)."""
        extensions = tuple("." + e.lower() for e in self.file_extensions())
        main = main_source(sources, *extensions, marker=self.main_marker)
        files = dict(sources)
        files[main], offset = self.prepare_source(sources[main])
        for name, text in self.extra_files(files[main]).items():
            files.setdefault(name, text)
        compile = self.check_commands(main, files) if syntax_check else []
        products = self.products(main) if compile else []
        return Build(files=files, compile=compile,
                     run=self.run_command(main, memory_mb, files),
                     artifacts=sorted(files) + products, line_offset=offset,
                     candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        if self.error is None:
            return super().compile_error(output, build)
        return first_error(output, self.error, build.candidate_file, build.line_offset)

    @functools.cached_property
    def toolchain(self) -> str:
        """The interpreter's version (the compile cache's key)."""
        if not self.tools:
            return self.name
        command = list(self.tools[0][1])
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return "%s (unknown version)" % self.name
        lines = [line.strip() for line in (done.stdout + done.stderr).splitlines()
                 if line.strip()]
        return "%s %s" % (self.name, lines[0][:120] if lines else "(unknown version)")


__all__ = ["SCRIPT_BLOCKING", "Script"]
