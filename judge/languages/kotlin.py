"""Kotlin/JVM (``kotlinc`` 1.3 from Debian, on the JDK 17): whole programs only (program
problems), compiled once as Kattis compiles them (``kotlinc -d <dir>``) and run on the JVM as
Kattis runs them: the heap is the memory limit (``-Xmx``), a 64 MiB thread stack, the serial
collector; the JVM's own memory beside the heap is the language's headroom, as for Java.

The entry point is found whatever it is called: a top-level ``fun main`` (the class
``MainKt`` of the file ``main.kt``, in its package if it has one), else the ``object`` or
class holding a ``@JvmStatic fun main``. A script (``.kts``, or ``script=True``: SandboxFusion's
``kotlin_script``, which runs code as ``kotlin file.kts`` does) is compiled once too, beside a
two-line launcher that constructs it, so top-level statements (``main()`` at the end of
MBXP's and MultiPL-E's Kotlin) run in order.

Running out of heap is ``java.lang.OutOfMemoryError`` (memory_limit); a recursion past the
stack is ``java.lang.StackOverflowError`` (runtime_error)."""

from __future__ import annotations

import functools
import re
import subprocess
from typing import Any

from judge.languages.base import (Build, Language, NotExpressible, first_error, main_source,
                                  source_files)
from judge.problem.types import TypeSpec

KOTLINC = "/usr/bin/kotlinc"
JAVA = "/usr/bin/java"
KOTLIN_LIB = "/usr/share/kotlin/kotlinc/lib"
#: the compilers' own JVM (read by the kotlinc and scalac scripts): a short-lived JVM
COMPILER_JAVA_OPTS = "-Xmx768m -Xss16m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto"
#: the JVM's own memory (metaspace, code cache, threads) beside a heap as large as the limit
JVM_HEADROOM_MB = 192
_ERROR = re.compile(r"^(?P<file>[^\s:]+\.kts?):(?P<line>\d+):(?:\d+:)? error: (?P<message>.*)$",
                    re.M)
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)", re.M)
_TOP_MAIN = re.compile(r"^fun\s+main\s*\(", re.M)
_STATIC_MAIN = re.compile(r"^\s*(?:(?:public|internal|private|data|final)\s+)*"
                          r"(?:object|class)\s+(\w+)[^{]*\{(?:(?!^(?:object|class)\s).)*?"
                          r"@JvmStatic\s+(?:public\s+)?fun\s+main\s*\(", re.M | re.S)
_ONLY = "Kotlin judges whole programs only (program problems)"
LAUNCHER_FILE = "JudgeScriptLauncher.kt"
#: Kotlin 1.4-1.6 standard library functions models write every day and Debian's kotlinc 1.3
#: lacks, as a package the candidate's file star-imports (on its first line, so its lines
#: stay its own): a candidate's own function of the same name wins over a star import, so
#: one that defines ``readln`` itself compiles as before. Behaviour as the newer stdlib's.
COMPAT_PACKAGE = "judge.kotlin.compat"
COMPAT_FILE = "JudgeKotlinCompat.kt"
COMPAT_SOURCE = """@file:JvmName("JudgeKotlinCompat")
package judge.kotlin.compat

fun readln(): String = readLine() ?: throw RuntimeException("EOF has already been reached")
fun readlnOrNull(): String? = readLine()
inline fun <T> Iterable<T>.sumOf(selector: (T) -> Int): Int {
    var sum = 0
    for (element in this) sum += selector(element)
    return sum
}
inline fun <T> Array<out T>.sumOf(selector: (T) -> Int): Int {
    var sum = 0
    for (element in this) sum += selector(element)
    return sum
}
fun String.lowercase(): String = this.toLowerCase(java.util.Locale.ROOT)
fun String.uppercase(): String = this.toUpperCase(java.util.Locale.ROOT)
fun Char.lowercaseChar(): Char = Character.toLowerCase(this)
fun Char.uppercaseChar(): Char = Character.toUpperCase(this)
fun Char.lowercase(): String = this.toString().toLowerCase(java.util.Locale.ROOT)
fun Char.uppercase(): String = this.toString().toUpperCase(java.util.Locale.ROOT)
val Char.code: Int get() = this.toInt()
fun Char.digitToInt(): Int {
    val digit = Character.digit(this, 10)
    if (digit < 0) throw IllegalArgumentException("Char $this is not a decimal digit")
    return digit
}
fun <T : Comparable<T>> Iterable<T>.maxOrNull(): T? = this.max()
fun <T : Comparable<T>> Iterable<T>.minOrNull(): T? = this.min()
fun IntArray.maxOrNull(): Int? = this.max()
fun IntArray.minOrNull(): Int? = this.min()
fun LongArray.maxOrNull(): Long? = this.max()
fun LongArray.minOrNull(): Long? = this.min()
"""
_FILE_ANNOTATION = re.compile(r"^\s*@file:", re.M)
_PACKAGE_HEADER = re.compile(r"^(\s*package\s+[\w.]+)", re.M)
LAUNCHER_CLASS = "JudgeScriptLauncherKt"


def jvm_run(heap_mb: int, classpath: str, main: str, assertions: bool = False) -> list[str]:
    """A whole program's JVM, as Kattis runs Java and Kotlin: the heap the limit, a 64 MiB
    stack, the serial collector, no performance data file, temporary files in the test's
    own folder; ``assertions``: ``-ea`` (Kotlin's ``assert`` is a no-op without it)."""
    return [JAVA, *(["-ea"] if assertions else []), "-Xmx%dm" % heap_mb, "-Xss64m",
            "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Dfile.encoding=UTF-8",
            "-Djava.io.tmpdir={tmp}", "-cp", classpath, main]


def _qualified(code: str, name: str) -> str:
    found = _PACKAGE.search(code)
    return "%s.%s" % (found.group(1), name) if found else name


def _file_class(file: str) -> str:
    """The class of a Kotlin file's top-level functions: ``main.kt`` -> ``MainKt``."""
    stem = file.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    parts = re.split(r"[^\w]", stem)
    return "".join(p[:1].upper() + p[1:] for p in parts if p) + "Kt"


def main_class(code: str, file: str) -> str:
    """The class a Kotlin program starts in: its file's class when ``main`` is a top-level
    function, else the object or class with a ``@JvmStatic fun main``."""
    if not _TOP_MAIN.search(code):
        holder = _STATIC_MAIN.search(code)
        if holder:
            return _qualified(code, holder.group(1))
    return _qualified(code, _file_class(file))


def with_compat(code: str) -> str | None:
    """The candidate's code star-importing :data:`COMPAT_PACKAGE` on a line it already has
    (after its ``package`` header, else before its first line); None where that cannot be
    done without moving its lines (a shebang, file annotations)."""
    if code.startswith("#!") or _FILE_ANNOTATION.search(code):
        return None
    header = _PACKAGE_HEADER.search(code)
    if header:
        return code[:header.end()] + "; import %s.*" % COMPAT_PACKAGE + code[header.end():]
    return "import %s.*; " % COMPAT_PACKAGE + code


def _script_class(file: str) -> str:
    """The class kotlinc makes of a script: ``main.kts`` -> ``Main``."""
    stem = file.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^\w]", stem) if p)


class Kotlin(Language):
    name = "kotlin"
    pool = "polyglot"
    title = "Kotlin (JVM)"
    extension = "kt"
    fence_tags = ("kotlin", "kt", "kts")
    source_extensions = ("kt", "kts")
    tools = (("kotlinc", (KOTLINC, "-version")), ("java", (JAVA, "-version")))
    names_in = {"kattis": ("kotlin",), "sandboxfusion": ("kotlin_script",)}
    build_flags_in = {"sandboxfusion": {"script": True}}
    allocation_errors = ("OutOfMemoryError", "java.lang.OutOfMemoryError")
    oom_markers = ("java.lang.OutOfMemoryError",)
    startup_s = 0.8
    memory_headroom_mb = JVM_HEADROOM_MB
    nproc = 96

    def defines(self, code: str, name: str) -> bool:
        return re.search(r"\bfun\s+(?:<[^>]*>\s*)?(?:[\w.]+\.)?%s\s*\(" % re.escape(name),
                         code) is not None

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        raise NotExpressible(_ONLY)

    def check_expressible(self, problem: Any) -> None:
        raise NotExpressible(_ONLY)

    def program_build(self, sources: dict[str, str], memory_mb: int,
                      script: bool = False, assertions: bool = False) -> Build:
        """``script``: the one source is a Kotlin script (SandboxFusion's ``kotlin_script``,
        run as its ``kotlin`` command runs it: assertions off). ``assertions``: ``-ea``, as
        MultiPL-E's evaluator runs Kotlin (test programs: their ``assert`` calls check)."""
        files = source_files(sources, ".kt", ".kts")
        main = main_source(sources, ".kt", ".kts", marker=r"^fun\s+main\s*\(")
        built = dict(sources)
        if script and main.endswith(".kt"):
            built[main + "s"] = built.pop(main)
            files = sorted(f + "s" if f == main else f for f in files)
            main += "s"
        original = dict(built)
        for name in files:
            shimmed = with_compat(built[name])
            if shimmed is not None:
                built[name] = shimmed
                if COMPAT_FILE not in built:
                    built[COMPAT_FILE] = COMPAT_SOURCE
                    files = files + [COMPAT_FILE]
        heap = max(64, memory_mb - self.memory_headroom_mb)
        classpath = "{build}/out:%s/kotlin-stdlib.jar" % KOTLIN_LIB
        if main.endswith(".kts"):
            built[LAUNCHER_FILE] = "fun main(args: Array<String>) { %s(args) }\n" % \
                _script_class(main)
            files = files + [LAUNCHER_FILE]
            classpath += ":%s/kotlin-script-runtime.jar" % KOTLIN_LIB
            entry = LAUNCHER_CLASS
        else:
            entry = main_class(original[main], main)
        return Build(files=built,
                     compile=[[KOTLINC, "-nowarn", "-d", "out", *files]],
                     run=jvm_run(heap, classpath, entry, assertions), artifacts=["out"],
                     env={"JAVA_OPTS": COMPILER_JAVA_OPTS}, candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _ERROR, build.candidate_file, 0)

    @functools.cached_property
    def toolchain(self) -> str:
        return jvm_version([KOTLINC, "-version"], "kotlinc")


def jvm_version(command: list[str], name: str) -> str:
    """A JVM tool's version line (the JVM's warnings aside)."""
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return "%s (unknown version)" % name
    lines = [line.strip() for line in (out.stdout + out.stderr).splitlines()
             if line.strip() and "warning" not in line.lower()]
    return lines[0][:200] if lines else "%s (unknown version)" % name


__all__ = ["COMPAT_PACKAGE", "COMPAT_SOURCE", "COMPILER_JAVA_OPTS", "JVM_HEADROOM_MB", "Kotlin", "jvm_run", "jvm_version",
           "main_class", "with_compat"]
