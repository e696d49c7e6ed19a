"""Java 17: a method (static or not) of the candidate's class (``Solution`` and ``Problem`` are
the usual names), camelCase names, ``long``/``double``, ``List``, ``Map``, ``Set``,
``Optional``. Parameter types are read by reflection from the candidate's own method, so
``int``, ``List<Integer>``, ``int[]`` work too. The heap is capped below the memory limit, so
running out of it is ``memory_limit``."""

from __future__ import annotations

import re
import subprocess
from typing import Any

from judge.languages.base import (main_source, source_files, Build, Language, NotExpressible, descriptor, first_error,
                                  float_literal, json_string, snake_to_camel)
from judge.problem.types import TypeSpec

#: third-party jars SandboxFusion's image has on the class path (Debian's libjavatuples-java)
LIBRARIES = ("/usr/share/java/javatuples.jar",)
_ERROR = re.compile(r"^(?P<file>[^\s:]+\.java):(?P<line>\d+): error: (?P<message>.*)$", re.M)
_PUBLIC_CLASS = re.compile(r"^\s*public\s+(?:final\s+|abstract\s+)*(?:class|interface|enum|record)\s+(\w+)",
                           re.M)
_BOXED = {"long": "Long", "double": "Double", "boolean": "Boolean", "int": "Integer"}


_CLASS = re.compile(r"^\s*(?:(?:public|final|abstract)\s+)*class\s+(\w+)", re.M)


_MAIN_METHOD = re.compile(r"\bstatic\s+(?:public\s+|final\s+)*void\s+main\s*\(|"
                          r"\bpublic\s+static\s+void\s+main\s*\(")
_CODE_OR_NOT = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[{}]',
                          re.S)


def _depths(code: str) -> list[tuple[int, int]]:
    """(offset, brace depth after it) at every brace outside comments and literals."""
    depth, marks = 0, []
    for match in _CODE_OR_NOT.finditer(code):
        if match.group() == "{":
            depth += 1
        elif match.group() == "}":
            depth -= 1
        else:
            continue
        marks.append((match.start(), depth))
    return marks


def _depth_at(marks: list[tuple[int, int]], offset: int) -> int:
    depth = 0
    for where, after in marks:
        if where >= offset:
            break
        depth = after
    return depth


def _main_class(code: str, file: str = "") -> str:
    """The class a whole program starts in: the top-level class whose body holds ``main``,
    else the public one (named as its file), else the first class, else ``Main``."""
    marks = _depths(code)
    main = _MAIN_METHOD.search(code)
    if main is not None:
        top = [m for m in _CLASS.finditer(code) if _depth_at(marks, m.start()) == 0
               and m.start() < main.start()]
        if top:
            return top[-1].group(1)
    match = _PUBLIC_CLASS.search(code) or _CLASS.search(code)
    if match:
        return match.group(1)
    return file.rsplit("/", 1)[-1][:-5] if file.endswith(".java") else "Main"


_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)


def _qualified(code: str, name: str) -> str:
    """A class's name as ``java`` wants it: with its package (``package se.kth;``), if any
    (javac -d puts the class under the package's folders)."""
    found = _PACKAGE.search(_CODE_OR_NOT.sub(lambda m: m.group() if m.group() in "{}" else
                                             " " * len(m.group()), code))
    return "%s.%s" % (found.group(1), name) if found else name


def _ty(desc: tuple[str, list[Any]]) -> str:
    code, children = desc
    return "t('%s'%s)" % (code, "".join(", " + _ty(c) for c in children))


class Java(Language):
    name = "java"
    title = "Java 17"
    extension = "java"
    fence_tags = ("java",)
    startup_s = 0.6
    memory_headroom_mb = 192
    nproc = 96
    tools = (("javac", ("/usr/bin/javac", "-version")), ("java", ("/usr/bin/java", "-version")))
    names_in = {"kattis": ("java",), "sandboxfusion": ("java",), "codecontests": (4, "JAVA")}
    #: SandboxFusion's routes: assertions on, javatuples; MultiPL-E's evaluator puts
    #: javatuples on the class path of every Java test program (its prompts import it)
    build_flags_in = {"sandboxfusion": {"assertions": True, "libraries": True},
                      "multipl-e": {"libraries": True}}
    allocation_errors = ("OutOfMemoryError", "java.lang.OutOfMemoryError")
    oom_markers = ("java.lang.OutOfMemoryError",)  # the JVM, outside the harness
    prompt_where = "a method of class Solution"

    def conventional_name(self, name: str) -> str:
        return snake_to_camel(name)

    def defines(self, code: str, name: str) -> bool:
        # a return type, the name, an opening parenthesis (not a call after ``return``...)
        return any(m.group(1) not in ("return", "else", "new", "throw", "case", "yield")
                   for m in re.finditer(r"(\w+|[>\]])\s+%s\s*\(" % re.escape(name), code))

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        kind = spec.kind
        simple = {"int": "long", "float": "double", "str": "String", "bool": "boolean",
                  "none": "void"}
        if kind in simple:
            name = simple[kind]
            return name if top else _BOXED.get(name, name)
        if kind in ("list", "sequence") or (kind == "tuple" and spec.variadic):
            return "List<%s>" % self.type_name(spec.args[0], False)
        if kind == "tuple":
            inner = {self.type_name(a, False) for a in spec.args}
            return "List<%s>" % (inner.pop() if len(inner) == 1 else "Object")
        if kind == "set":
            return "Set<%s>" % self.type_name(spec.args[0], False)
        if kind == "dict":
            return "Map<%s, %s>" % (self.type_name(spec.args[0], False),
                                    self.type_name(spec.args[1], False))
        if kind == "optional":
            return "Optional<%s>" % self.type_name(spec.args[0], False)
        if kind in ("any", "union"):
            return "Object"
        raise NotExpressible("type %s has no Java counterpart here" % spec)

    def signature(self, function, names, params, returns):
        args = ", ".join("%s %s" % (self.type_name(s), n) for n, s in zip(names, params))
        return "public static %s %s(%s)" % (self.return_type_name(returns), function, args)

    def stub(self, function, names, params, returns, doc):
        if "Object" in self.signature(function, names, params, returns):
            doc += ("\n(Object values: integers are Integer, or Long beyond it; floats Double; "
                    "strings String; lists List<Object>; dicts Map<Object, Object>.)")
        comment = "\n".join(("     * " + line).rstrip() for line in doc.strip().splitlines())
        return ("import java.util.*;\n\nclass Solution {\n    /**\n%s\n     */\n    %s {\n"
                % (comment, self.signature(function, names, params, returns)))

    def literal(self, value: Any, spec: TypeSpec) -> str:
        kind = spec.kind
        if kind == "optional":
            return "Optional.empty()" if value is None else "Optional.of(%s)" % self.literal(
                value, spec.args[0])
        if value is None:
            return "null"
        if kind == "bool":
            return "true" if value else "false"
        if kind == "int":
            return "%dL" % value
        if kind == "float":
            return float_literal(value)
        if kind == "str":
            return json_string(value)
        if kind in ("list", "sequence", "tuple"):
            specs = spec.args if kind == "tuple" and not spec.variadic else [spec.args[0]] * len(value)
            return "List.of(%s)" % ", ".join(self.literal(v, s) for v, s in zip(value, specs))
        if kind == "set":
            return "Set.of(%s)" % ", ".join(self.literal(v, spec.args[0])
                                            for v in sorted(value, key=repr))
        if kind == "dict":
            return "Map.of(%s)" % ", ".join("%s, %s" % (self.literal(k, spec.args[0]),
                                                        self.literal(v, spec.args[1]))
                                            for k, v in value.items())
        raise NotExpressible("a %s value" % spec)

    def call(self, function: str, args: list[str]) -> str:
        return "Solution.%s(%s)" % (function, ", ".join(args))

    def candidate_file(self, code: str) -> str:
        match = _PUBLIC_CLASS.search(code)
        return "%s.java" % (match.group(1) if match else "Solution")

    def build(self, code: str, function: str, params: list[TypeSpec], returns: TypeSpec,
              memory_mb: int) -> Build:
        candidate = self.candidate_file(code)
        harness = self.render("JudgeHarness.java.j2", functions=self.function_names(function),
                              candidate_file=candidate, return_ty=_ty(descriptor(returns)))
        heap = max(64, memory_mb - 192)
        quick = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                 "-Xshare:auto"]
        return Build(
            files={candidate: code, "JudgeHarness.java": harness},
            compile=[["/usr/bin/javac", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1",
                      "-J-Xmx512m", "-encoding", "UTF-8", "-nowarn", "-Xmaxerrs", "5", "-d", "out",
                      candidate, "JudgeHarness.java"]],
            run=["/usr/bin/java", "-Xmx%dm" % heap, "-Xss256m", "-XX:CICompilerCount=1",
                 "-XX:MaxMetaspaceSize=64m", "-XX:ReservedCodeCacheSize=32m", *quick,
                 "-Djava.io.tmpdir={tmp}", "-cp", "{build}/out", "JudgeHarness", "{args}"],
            artifacts=["out"],
            candidate_file=candidate,
        )

    def program_file(self, code: str) -> str:
        return self.candidate_file(code) if _PUBLIC_CLASS.search(code) else \
            "%s.java" % _main_class(code)

    def program_build(self, sources: dict[str, str], memory_mb: int,
                      assertions: bool = False, libraries: bool = False) -> Build:
        """``assertions``: run with ``-ea`` (SandboxFusion's routes run Java so; the judge's
        own programs run as Kattis runs them, without). ``libraries``: the third-party jars
        SandboxFusion's image puts on the class path (:data:`LIBRARIES`, from Debian
        packages), for its routes and for test programs that declare ``libraries``
        (MultiPL-E's)."""
        jars = [jar for jar in LIBRARIES if libraries]
        files = source_files(sources, ".java")
        main = main_source(sources, ".java", marker=r"static\s+(?:public\s+)?void\s+main\s*\(")
        # ``memory_mb`` is the problem's limit plus the headroom (``program_limits``): the
        # heap is the limit itself, as Kattis runs Java, the JVM's own memory beside it
        heap = max(64, memory_mb - self.memory_headroom_mb)
        return Build(files=dict(sources),
                     compile=[["/usr/bin/javac", "-J-XX:+UseSerialGC", "-J-Xmx512m",
                               "-encoding", "UTF-8", "-nowarn", "-Xmaxerrs", "5", "-d", "out",
                               *(["-cp", ":".join(jars)] if jars else []), *files]],
                     run=["/usr/bin/java", *(["-ea"] if assertions else []), "-Xmx%dm" % heap,
                          "-Xss64m", "-XX:+UseSerialGC",
                          "-XX:-UsePerfData", "-Djava.io.tmpdir={tmp}",
                          "-cp", ":".join(["{build}/out", *jars]),
                          _qualified(sources[main], _main_class(sources[main], main))],
                     artifacts=["out"], candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _ERROR, build.candidate_file, 0)

    @property
    def toolchain(self) -> str:
        try:
            out = subprocess.run(["javac", "-version"], capture_output=True, text=True,
                                 timeout=60)
            return (out.stdout + out.stderr).strip()
        except (OSError, subprocess.SubprocessError):
            return "javac (unknown version)"
