"""C# on Mono (``mcs``, Mono 6.8): whole programs only (program problems), compiled once as
Kattis compiles them (``mcs -optimize+ -r:System.Numerics``) and run by ``mono``.

Two conventions of today's C# (``dotnet new console``, which SandboxFusion runs) are kept:
the implicit ``using`` directives of a .NET 6+ console project (``System``,
``System.Collections.Generic``, ``System.IO``, ``System.Linq``, ``System.Threading``,
``System.Threading.Tasks``: those the code does not import itself are put before it, a
``#line 1`` after them so errors and stack traces keep the candidate's line numbers), and,
with ``debug=True`` (SandboxFusion's routes: ``dotnet run`` builds the Debug configuration),
``DEBUG``/``TRACE`` defined and a failed ``Debug.Assert`` ending the program as .NET does
("Process terminated. Assertion failed.", exit code 134) instead of Mono's silent trace.
The entry point is whatever class holds ``Main`` (``Program`` by convention): ``mcs`` finds
it. Top-level statements (C# 9) are beyond ``mcs``: a compile error.

Memory: Mono's garbage collector is told the limit as its soft heap limit (it collects harder
there instead of growing); the sandbox's resident-memory cap, the limit plus a little
headroom for the runtime itself, stops a program that holds more (memory_limit)."""

from __future__ import annotations

import re
from typing import Any

from judge.languages.base import (Build, Language, NotExpressible, first_error, main_source,
                                  source_files)
from judge.languages.cpp import _version
from judge.problem.types import TypeSpec

MCS = "/usr/bin/mcs"
MONO = "/usr/bin/mono"
#: Kattis's flags (problemtools' languages.yaml)
PROGRAM_FLAGS = ("-optimize+", "-r:System.Numerics")
#: the implicit usings of a .NET 6+ console project (System.Net.Http aside: not in Mono's
#: default references)
IMPLICIT_USINGS = ("System", "System.Collections.Generic", "System.IO", "System.Linq",
                   "System.Threading", "System.Threading.Tasks")
_USING = re.compile(r"^\s*(?:global\s+)?using\s+([\w.]+)\s*;", re.M)
_ERROR = re.compile(r"^(?P<file>[^\s(]+\.cs)\((?P<line>\d+),\d+\): error (?P<message>.*)$",
                    re.M)
_ONLY = "C# judges whole programs only (program problems)"
#: ``Debug.Assert`` as .NET fails it: the message on standard error, the process ended
ASSERT_LISTENER = """\
sealed class JudgeAssertListener : System.Diagnostics.DefaultTraceListener {
    public override void Fail(string message, string detail) {
        System.Console.Out.Flush();
        System.Console.Error.WriteLine("Process terminated. Assertion failed.");
        if (message != null) System.Console.Error.WriteLine(message);
        if (detail != null) System.Console.Error.WriteLine(detail);
        System.Console.Error.WriteLine(new System.Diagnostics.StackTrace(2, true).ToString());
        System.Console.Error.Flush();
        System.Environment.Exit(134);
    }
}
"""
ASSERT_CONFIG = """\
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <system.diagnostics>
    <trace autoflush="true">
      <listeners>
        <remove name="Default"/>
        <add name="judge" type="JudgeAssertListener, prog"/>
      </listeners>
    </trace>
  </system.diagnostics>
</configuration>
"""


def with_implicit_usings(code: str) -> str:
    """The code with the implicit usings it lacks before it, its lines numbered as its own."""
    have = set(_USING.findall(code))
    missing = [name for name in IMPLICIT_USINGS if name not in have]
    if not missing:
        return code
    return "%s\n#line 1\n%s" % (" ".join("using %s;" % name for name in missing), code)


class CSharp(Language):
    name = "csharp"
    pool = "polyglot"
    title = "C# (Mono)"
    extension = "cs"
    fence_tags = ("csharp", "cs", "c#")
    source_extensions = ("cs",)
    tools = (("mcs", (MCS, "--version")), ("mono", (MONO, "--version")))
    names_in = {"kattis": ("csharp",), "sandboxfusion": ("csharp",)}
    build_flags_in = {"sandboxfusion": {"debug": True}}
    allocation_errors = ("System.OutOfMemoryException", "OutOfMemoryException")
    oom_markers = ("System.OutOfMemoryException",)
    startup_s = 0.3
    memory_headroom_mb = 64
    nproc = 64

    def defines(self, code: str, name: str) -> bool:
        return re.search(r"[\w>\]]\s+%s\s*\(" % re.escape(name), code) is not None

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        raise NotExpressible(_ONLY)

    def check_expressible(self, problem: Any) -> None:
        raise NotExpressible(_ONLY)

    def program_file(self, code: str) -> str:
        return "Program.cs"

    def program_build(self, sources: dict[str, str], memory_mb: int,
                      debug: bool = False) -> Build:
        """``debug``: as ``dotnet run`` builds (SandboxFusion): DEBUG and TRACE defined,
        a failed ``Debug.Assert`` ends the program."""
        files = source_files(sources, ".cs")
        main = main_source(sources, ".cs", marker=r"\bstatic\s+(?:async\s+)?\w+\s+Main\s*\(")
        built = {name: (with_implicit_usings(text) if name in files else text)
                 for name, text in sources.items()}
        flags = list(PROGRAM_FLAGS)
        artifacts = ["prog.exe"]
        if debug:
            built["JudgeAssertListener.cs"] = ASSERT_LISTENER
            built["prog.exe.config"] = ASSERT_CONFIG
            files = files + ["JudgeAssertListener.cs"]
            flags += ["-d:DEBUG", "-d:TRACE"]
            artifacts.append("prog.exe.config")
        heap = max(16, memory_mb - self.memory_headroom_mb)
        return Build(files=built,
                     compile=[[MCS, *flags, "-out:prog.exe", *files]],
                     run=[MONO, "{build}/prog.exe"], artifacts=artifacts,
                     env={"MONO_GC_PARAMS": "soft-heap-limit=%dm" % heap},
                     candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _ERROR, build.candidate_file, 0)

    @property
    def toolchain(self) -> str:
        return _version([MCS, "--version"]) + "; " + _version([MONO, "--version"])


__all__ = ["CSharp", "IMPLICIT_USINGS", "PROGRAM_FLAGS", "with_implicit_usings"]
