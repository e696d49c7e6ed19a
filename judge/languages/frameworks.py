"""Test frameworks as languages, and how a test program is assembled in each language.

A *test program* is a candidate's code and a benchmark's test code in the same language, run
together (the ``test_program`` kind, :mod:`judge.kinds.test_program`; SandboxFusion's
``pytest``, ``go_test``, ``junit`` and ``D_ut`` on ``/run_code``). Two shapes:

- a **script**: ``code + "\\n" + tests`` run as a whole program of the language (MultiPL-E,
  HumanEval-X's C++, Java, JavaScript, Python): pass when it exits 0;
- a **framework**: the same text run by a test framework, which is a language of its own here
  (the registry's ``pytest``, ``go_test``, ``junit``, ``d_ut``, ``rust_test``: its compile and
  run steps, its pool): pass when the framework says every test passed.

**The guard** (what a candidate in the same process cannot fake by accident or by a cheap
trick): :func:`assemble` puts a per-run random *nonce* into the code the judge adds after the
tests (a line printed after the last test, a framework hook that prints it with the
framework's own counts); a run passes only when it exits 0 **and** that line is in its
output. A candidate that exits early (``exit(0)``, ``os._exit``, ``System.exit``) or prints
a fake summary never prints the nonce. C and C++ get ``assert`` back (``#undef`` then
``<assert.h>``) after the candidate's code; JavaScript's ``console.assert`` (HumanEval-X's
tests) throws. Not guaranteed: a candidate that reads the test code (its own source or
binary, where the nonce is) or patches the runtime (overloads ``==``, rebinds ``print``)
can still forge a pass; docs/test-programs.md says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from judge.languages.base import Build, Language, NotExpressible, first_error, main_source, \
    source_files
from judge.languages.d import D
from judge.languages.go import Go
from judge.languages.java import Java
from judge.languages.python import Python
from judge.languages.rust import Rust
from judge.sandbox.records import SYNTAX_CHECK

# ---- the frameworks (languages of the registry) -----------------------------------------------

#: the JUnit console launcher (Debian's junit5) and JUnit 4 (Debian's junit4), for the class path
JUNIT_STANDALONE = "/usr/share/java/junit-platform-console-standalone.jar"
JUNIT4 = "/usr/share/java/junit4.jar"
#: where Debian's Go packages (testify) are, for ``go test`` without modules
GOPATH = "/usr/share/gocode"

_PY_ERROR = re.compile(r'^(?P<file>[^:\n]+):(?P<line>\d+): (?:\w+: )?(?P<message>.+)$', re.M)
_GO_ERROR = re.compile(r"^(?:\./)?(?P<file>[^:\s]+\.go):(?P<line>\d+)(?::\d+)?: (?P<message>.+)$",
                       re.M)
_JAVA_ERROR = re.compile(r"^(?P<file>[^:\n]+\.java):(?P<line>\d+): error: (?P<message>.+)$", re.M)
_D_ERROR = re.compile(r"^(?P<file>[^(\n]+\.d)\((?P<line>\d+)(?:,\d+)?\): Error: (?P<message>.+)$",
                      re.M)
_RUST_ERROR = re.compile(r"^(?P<file>[^:\n]+\.rs):(?P<line>\d+):\d+: error(?:\[\w+\])?: "
                         r"(?P<message>.+)$", re.M)


class _Framework(Language):
    """A test framework: whole programs only (no function problems), run by the framework.
    Its runtime's facts (processes, how running out of memory reads) are its language's."""

    worker_native = True
    #: the language its test code is written in (prompts, fences)
    language = ""

    def defines(self, code: str, name: str) -> bool:
        return name in code

    def type_name(self, spec: Any, top: bool = True) -> str:
        raise NotExpressible("%s runs test programs only" % self.title)


class PyTest(_Framework):
    """pytest on the candidate's file (SandboxFusion's ``pytest``: ``pytest FILE``)."""

    name, title, extension, language = "pytest", "Python (pytest)", "py", "python"
    fence_tags = ("python", "py", "python3")
    pool = "polyglot"
    tools = (("pytest", ("/usr/bin/python3", "-m", "pytest", "--version")),)
    names_in = {"sandboxfusion": ("pytest",)}
    allocation_errors, oom_markers = Python.allocation_errors, Python.oom_markers
    build_flags_in = {"sandboxfusion": {"syntax_check": False}}

    def program_file(self, code: str) -> str:
        return "test_main.py"

    def program_build(self, sources: dict[str, str], memory_mb: int,
                      syntax_check: bool = True) -> Build:
        files = [name for name in source_files(sources, ".py") if not name.endswith("conftest.py")]
        if not files:
            raise NotExpressible("no test file among %s" % ", ".join(sorted(sources)))
        main = files[0] if len(files) == 1 else main_source({f: sources[f] for f in files}, ".py")
        check = [[SYNTAX_CHECK, *files]] if syntax_check else []
        return Build(files=dict(sources), compile=check,
                     run=["/usr/bin/python3", "-m", "pytest", "-q", "-rA", "-p",
                          "no:cacheprovider", "--basetemp={tmp}/pytest", "--color=no",
                          "{build}/" + main],
                     artifacts=sorted(sources), candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _PY_ERROR, build.candidate_file, 0)


_GO_SUMMARY = """package %s

import (
    judgeFmt "fmt"
    judgeOs "os"
    judgeTesting "testing"
    judgeTime "time"
)

func TestMain(m *judgeTesting.M) {
    started := judgeTime.Now()
    code := m.Run()
    said := "ok  "
    if code != 0 {
        said = "FAIL"
    }
    seconds := judgeTime.Since(started).Seconds()
    judgeFmt.Printf("%%s\\tcommand-line-arguments\\t%%.3fs\\n", said, seconds)
    judgeOs.Exit(code)
}
"""


#: vet's facts of testify and the standard library, computed once (sandboxes/native/Dockerfile,
#: scripts/ensure-toolchains.sh), copied as the compile's own Go build cache ($HOME is the build
#: folder): ``go test`` then vets only the test's package (0.2 s instead of some 5 CPU seconds,
#: which a loaded machine could stretch past SandboxFusion's 10 s compile_timeout). A copy per
#: compile, the candidate's own: nothing a candidate writes reaches another's cache. Absent
#: (a machine without it): nothing copied, the compile computes them
GO_WARM_CACHE = "/usr/local/lib/judge-gocache"
WARM_GO_CACHE = ["/bin/sh", "-c", "if [ -d %s ]; then mkdir -p .cache && cp -R %s .cache/go-build; "
                 "fi" % (GO_WARM_CACHE, GO_WARM_CACHE)]


class GoTest(_Framework):
    """``go test`` (SandboxFusion's ``go_test``): the file is ``*_test.go``, compiled with
    ``go test -c`` once and the test binary run verbosely; testify from Debian's GOPATH,
    precompiled there (``go install``) where the image or ensure-toolchains.sh could."""

    name, title, extension, language = "go_test", "Go (go test)", "go", "go"
    fence_tags = ("go", "golang")
    pool = "native"  # Go and testify are in the native image
    startup_s = 0.5
    tools = (("go", ("/usr/bin/go", "version")),)
    names_in = {"sandboxfusion": ("go_test",)}
    nproc, oom_markers = Go.nproc, Go.oom_markers

    def program_file(self, code: str) -> str:
        return "main_test.go"

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        source_files(sources, ".go")
        # cgo's default (on): the standard library and testify (installed precompiled into
        # GOPATH's pkg/ by the image and scripts/ensure-toolchains.sh) are then up to date,
        # so only the test package compiles (with CGO_ENABLED=0, net/http and all of testify
        # would be rebuilt on each compile: some 20 s)
        env = {"GO111MODULE": "off", "GOPATH": GOPATH, "CGO_ENABLED": "1", "GOFLAGS": "",
               "GOMAXPROCS": "2", "GOMEMLIMIT": "%dMiB" % max(32, memory_mb - 64),
               "GOTRACEBACK": "single"}
        main = main_source(sources, ".go")
        files = dict(sources)
        if not any("TestMain(" in text for text in sources.values()):
            # the line ``go test`` itself prints after the test binary (``ok  \t<pkg>\t<s>``),
            # which SandboxFusion's users read; the verdict never depends on it
            package = re.search(r"^\s*package\s+(\w+)", sources[main], re.M)
            files["judge_summary_test.go"] = _GO_SUMMARY % (package.group(1) if package
                                                            else "main")
        return Build(files=files,
                     compile=[WARM_GO_CACHE,
                              ["/usr/bin/go", "test", "-c", "-o", "prog", *sorted(
                         name for name in files if name.endswith(".go"))]],
                     run=["{build}/prog", "-test.v", "-test.count=1"], artifacts=["prog"],
                     env=env, candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _GO_ERROR, build.candidate_file, 0)


def public_class(code: str) -> str | None:
    """The public top-level class of Java code (the file must be named after it)."""
    found = re.search(r"^\s*public\s+(?:final\s+|abstract\s+)*(?:class|interface|enum|record)"
                      r"\s+(\w+)", code, re.M)
    return found.group(1) if found else None


class JUnit(_Framework):
    """JUnit 5 (and 4, through the vintage engine when present) by the console launcher,
    scanning the class path (SandboxFusion's ``junit``: the file named after its public class,
    else ``Main.java``)."""

    name, title, extension, language = "junit", "Java (JUnit)", "java", "java"
    fence_tags = ("java",)
    pool = "polyglot"
    startup_s = 1.0
    memory_headroom_mb = 256
    tools = (("junit", ("/usr/bin/java", "-jar", JUNIT_STANDALONE, "--version")),)
    names_in = {"sandboxfusion": ("junit",)}
    nproc, allocation_errors, oom_markers = Java.nproc, Java.allocation_errors, Java.oom_markers

    def program_file(self, code: str) -> str:
        return "%s.java" % (public_class(code) or "Main")

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        files = source_files(sources, ".java")
        path = "%s:%s" % (JUNIT_STANDALONE, JUNIT4)
        heap = max(64, memory_mb - self.memory_headroom_mb)
        return Build(files=dict(sources),
                     compile=[["/usr/bin/javac", "-J-XX:+UseSerialGC", "-J-Xmx512m", "-encoding",
                               "UTF-8", "-nowarn", "-Xmaxerrs", "5", "-cp", path, "-d", "out",
                               *files]],
                     run=["/usr/bin/java", "-ea", "-Xmx%dm" % heap, "-Xss64m",
                          "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Djava.io.tmpdir={tmp}",
                          "-jar", JUNIT_STANDALONE, "--disable-banner", "--details=tree",
                          "--disable-ansi-colors", "--fail-if-no-tests",
                          "--class-path", "{build}/out:" + JUNIT4, "--scan-class-path"],
                     artifacts=["out"], candidate_file=main_source(sources, ".java"))

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _JAVA_ERROR, build.candidate_file, 0)


class DUnittest(_Framework):
    """D with ``-unittest`` (SandboxFusion's ``D_ut``): the unittest blocks run, then main."""

    name, title, extension, language = "d_ut", "D (unittest)", "d", "d"
    fence_tags = ("d", "dlang")
    pool = "polyglot"
    tools = (("ldc2", ("/usr/bin/ldc2", "--version")),)
    names_in = {"sandboxfusion": ("D_ut", "d_ut")}
    nproc, allocation_errors, oom_markers = D.nproc, D.allocation_errors, D.oom_markers

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        files = source_files(sources, ".d")
        return Build(files=dict(sources),
                     compile=[["/usr/bin/ldc2", "-unittest", "-O1", "-of=prog", *files]],
                     run=["{build}/prog", "--DRT-testmode=run-main"], artifacts=["prog"],
                     candidate_file=main_source(sources, ".d"))

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _D_ERROR, build.candidate_file, 0)


class RustTest(_Framework):
    """Rust's ``#[test]`` functions: ``rustc --test``, the tests one at a time."""

    name, title, extension, language = "rust_test", "Rust (#[test])", "rs", "rust"
    fence_tags = ("rust", "rs")
    tools = (("rustc", ("/usr/bin/rustc", "--version")),)
    nproc, oom_markers = Rust.nproc, Rust.oom_markers

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        main = main_source(sources, ".rs")
        return Build(files=dict(sources),
                     compile=[["/usr/bin/rustc", "--test", "--edition", "2021", "-O", "-C",
                               "debuginfo=0", "--error-format=short", "-A", "warnings",
                               "-o", "prog", main]],
                     run=["{build}/prog", "--test-threads=1", "--color=never"],
                     artifacts=["prog"], env={"RUST_BACKTRACE": "0"}, candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _RUST_ERROR, build.candidate_file, 0)


#: the frameworks whose tests may sit in a file of their own
SEPARATE_TEST_FILE = ("pytest", "go_test")
#: a test framework's name -> the language its tests are written in (the registry's names)
FRAMEWORKS = {"pytest": "python", "go_test": "go", "junit": "java", "d_ut": "d",
              "rust_test": "rust"}


#: benchmarks' language names -> (the judge's language, the framework that runs its tests)
BENCHMARK_LANGUAGES: dict[str, dict[str, tuple[str, str | None]]] = {
    # MultiPL-E's ``language`` (its file extensions; Go's is the test file's name)
    "multipl-e": {"py": ("python", None), "js": ("js", None), "cpp": ("cpp", None),
                  "java": ("java", None), "rs": ("rust", None), "go_test.go": ("go", "go_test"),
                  "ts": ("typescript", None), "sh": ("bash", None), "cs": ("csharp", None),
                  "d": ("d", "d_ut"), "lua": ("lua", None), "pl": ("perl", None),
                  "php": ("php", None), "r": ("r", None), "rkt": ("racket", None),
                  "rb": ("ruby", None), "scala": ("scala", None), "kt": ("kotlin", None)},
    # HumanEval-X's task-id prefix, lower-cased
    "humaneval-x": {"python": ("python", None), "cpp": ("cpp", None), "java": ("java", None),
                    "javascript": ("js", None), "js": ("js", None), "go": ("go", "go_test"),
                    "rust": ("rust", "rust_test")},
    # MBXP's ``language``
    "mbxp": {"python": ("python", None), "java": ("java", None), "javascript": ("js", None),
             "typescript": ("typescript", None), "cpp": ("cpp", None), "go": ("go", "go_test"),
             "kotlin": ("kotlin", None), "php": ("php", None), "ruby": ("ruby", None),
             "scala": ("scala", None), "csharp": ("csharp", None), "perl": ("perl", None)},
}
#: the Go packages HumanEval-X's evaluator imports when a generation uses them
HUMANEVAL_X_GO_IMPORTS = ("math", "strings", "fmt", "strconv", "time", "bytes", "regexp", "sort",
                          "math/rand", "crypto/md5")


# ---- assembling a test program ----------------------------------------------------------------

@dataclass
class Assembly:
    """What runs: the language to run it as (a framework's, or the plain language), its
    files, its build flags, and how its output shows the guard."""

    language: str
    sources: dict[str, str]
    build_flags: dict[str, Any] = field(default_factory=dict)
    #: the line that must be in standard output (None: exit status only, unguarded)
    marker: str | None = None
    #: why the run is unguarded (exit status only), for the result's note
    unguarded: str = ""


def _line(nonce: str) -> str:
    return "JUDGE-TESTS-DONE " + nonce


#: a script's statement that prints the marker, after the tests (``%s``: the marker line)
_EPILOGUE = {
    "python": '\n__import__("os").write(1, b"\\n%s\\n")\n',
    "js": '\nprocess.stdout.write("\\n%s\\n");\n',
    "typescript": '\nprocess.stdout.write("\\n%s\\n");\n',
    "ruby": '\n$stdout.write("\\n%s\\n"); $stdout.flush\n',
    "lua": '\nio.write("\\n%s\\n")\n',
    "perl": '\n$| = 1; print "\\n%s\\n";\n',
    "php": '\necho "\\n%s\\n";\n',
    "r": '\ncat("\\n%s\\n")\n',
    "racket": '\n(display "\\n%s\\n")\n',
    "bash": '\nprintf "\\n%s\\n"\n',
}
#: JavaScript's console.assert only logs: the tests' failures must fail the run
_JS_ASSERT = ("\nconsole.assert = function (ok, ...said) { if (!ok) { throw new Error("
              "'Assertion failed' + (said.length ? ': ' + said.join(' ') : '')); } };\n")
_C_ASSERT = "\n#undef NDEBUG\n#undef assert\n#include <assert.h>\n#include <stdio.h>\n"
_C_MAIN = re.compile(r"\bint\s+main\s*\(\s*(?:void)?\s*\)")
_JAVA_MAIN = re.compile(r"\bstatic\s+void\s+main\s*\(\s*(?:final\s+)?String\s*(?:\[\s*\]\s*\w+|"
                        r"\w+\s*\[\s*\]|\.\.\.\s*\w+)\s*\)")
_RUST_MAIN = re.compile(r"\bfn\s+main\s*\(\s*\)\s*\{")
_KOTLIN_MAIN = re.compile(r"^fun\s+main\s*\(\s*\)", re.M)


def _close_before_last_brace(text: str, statement: str) -> str | None:
    cut = text.rstrip()
    if not cut.endswith("}"):
        return None
    return cut[:-1] + statement + "\n}\n"


#: MultiPL-E's Lua tests end ``os.exit(lu.LuaUnit.run())``: the epilogue would never run
_LUA_EXIT = re.compile(r"\nos\.exit\((?P<status>[^\n]+)\)[ \t]*;?\s*$")


#: MultiPL-E's Ruby tests are a Test::Unit case, run at exit (after an epilogue would print)
_RUBY_TEST_UNIT = re.compile(r"^\s*require\s+['\"]test/unit['\"]", re.M)
_RUBY_RUN = ("\nTest::Unit::AutoRunner.need_auto_run = false\n"
             "judge_passed = Test::Unit::AutoRunner.run\n"
             "if judge_passed == true then $stdout.write(\"\\n%s\\n\"); $stdout.flush end\n"
             "exit(judge_passed == true ? 0 : 1)\n")


_RACKUNIT = re.compile(r"\(require\s+rackunit\)")
_RACKUNIT_FATAL = ("\n(require (only-in rackunit current-check-handler))\n"
                   "(let ([judge-default (current-check-handler)])\n"
                   "  (current-check-handler (lambda (e) (judge-default e) (exit 1))))\n")
#: the tests' entry point of a class-based language (MultiPL-E's Scala and C#)
_MAIN_METHOD = {"scala": re.compile(r"\bdef\s+main\s*\(\s*args\s*:\s*Array\[String\]\s*\)"),
                "csharp": re.compile(r"\bpublic\s+static\s+void\s+Main\s*\(\s*string\s*\[\s*\]"
                                     r"\s*args\s*\)")}
_MAIN_ENTRY = {"scala": "def main(args: Array[String]): Unit = { judgeTestsMain(args); "
                        "println(\"\\n%s\") }\n    ",
               "csharp": "public static void Main(string[] args) { JudgeTestsMain(args); "
                         "System.Console.WriteLine(\"\\n%s\"); System.Console.Out.Flush(); }\n"
                         "    "}


def _script(language: str, code: str, tests: str, marker: str) -> Assembly:
    program = code + "\n" + tests
    last = _LUA_EXIT.search("\n" + tests) if language == "lua" else None
    if last is not None:  # the marker when the exit status is a success, then that exit
        tests = ("\n" + tests)[:last.start()].lstrip("\n") + (
            "\nlocal judge_status = %s\nif judge_status == 0 or judge_status == true then "
            "io.write(\"\\n%s\\n\") io.stdout:flush() end\nos.exit(judge_status)\n"
            % (last.group("status"), marker))
    if language == "ruby" and _RUBY_TEST_UNIT.search(tests):
        # Test::Unit runs its tests at exit, after any epilogue: run them here, then the marker
        text = code + "\n" + tests + _RUBY_RUN % marker
        return Assembly(language, {"__main__": text}, marker=marker)
    if language == "racket" and _RACKUNIT.search(tests):
        # rackunit's failed check only prints (exit 0): it must end the run (MultiPL-E's
        # evaluator fails any run that wrote to stderr)
        code = code + _RACKUNIT_FATAL
    if language in _EPILOGUE:
        between = _JS_ASSERT if language in ("js", "typescript") else ""
        # PHP's assert() is compiled out by Debian's php.ini (zend.assertions=-1): on here
        flags = {"assertions": True} if language == "php" else {}
        if language == "php" and tests.rstrip().endswith("?>"):
            return Assembly(language, {"main.php": code + "\n" + tests + "\n" + marker + "\n"},
                            flags, marker=marker)
        text = code + between + "\n" + tests + _EPILOGUE[language] % marker
        file = {"python": "main.py", "js": "main.js"}.get(language)
        return Assembly(language, {file: text} if file else {"__main__": text}, flags,
                        marker=marker)
    if language in ("cpp", "c"):
        found = _C_MAIN.search(tests)
        body = _close_before_last_brace(tests, "return 0;") if found else None
        if found is None or body is None or len(_C_MAIN.findall(tests)) != 1:
            return Assembly(language, {"__main__": code + _C_ASSERT + tests},
                            unguarded="the tests' main could not be wrapped")
        body = _C_MAIN.sub("int judge_tests_main(void)", body, count=1)
        entry = ('\nint main(void) { int judge_status = judge_tests_main(); if (judge_status == 0)'
                 ' { fputs("\\n%s\\n", stdout); fflush(stdout); } return judge_status; }\n'
                 % marker)
        return Assembly(language, {"__main__": code + _C_ASSERT + body + entry}, marker=marker)
    if language == "java":
        return _java(code, tests, marker)
    if language == "rust":
        if len(_RUST_MAIN.findall(tests)) != 1 or _RUST_MAIN.search(code):
            return Assembly(language, {"__main__": program}, unguarded="no one main in the tests")
        body = _RUST_MAIN.sub("fn judge_tests_main() {", tests, count=1)
        entry = '\nfn main() { judge_tests_main(); println!("\\n%s"); }\n' % marker
        return Assembly(language, {"__main__": code + "\n" + body + entry}, marker=marker)
    if language == "kotlin":  # with -ea, as MultiPL-E runs it: its assert calls check
        if len(_KOTLIN_MAIN.findall(tests)) != 1 or _KOTLIN_MAIN.search(code):
            return Assembly(language, {"__main__": program}, {"assertions": True},
                            unguarded="no one main in the tests")
        body = _KOTLIN_MAIN.sub("fun judgeTestsMain()", tests, count=1)
        entry = '\nfun main() { judgeTestsMain(); println("\\n%s") }\n' % marker
        return Assembly(language, {"__main__": code + "\n" + body + entry},
                        {"assertions": True}, marker=marker)
    if language in ("scala", "csharp"):
        # MultiPL-E's: the tests' main is a method of the prompt's class (object Problem,
        # class Problem); it becomes judgeTestsMain, and a main beside it prints the marker
        found = _MAIN_METHOD[language].findall(tests)
        if len(found) != 1 or _MAIN_METHOD[language].search(code):
            return Assembly(language, {"__main__": program}, {"debug": True}
                            if language == "csharp" else {},
                            unguarded="no one main in the tests")
        entry = _MAIN_ENTRY[language] % marker
        body = _MAIN_METHOD[language].sub(lambda m: entry + m.group(0).replace(
            "Main(" if language == "csharp" else "main(", "JudgeTestsMain(" if
            language == "csharp" else "judgeTestsMain("), tests, count=1)
        # C#: Debug.Assert must fail (DEBUG defined, a failed assert ends the program)
        return Assembly(language, {"__main__": code + "\n" + body},
                        {"debug": True} if language == "csharp" else {}, marker=marker)
    return Assembly(language, {"__main__": program},
                    unguarded="%s scripts are judged by their exit status only" % language)


def _java(code: str, tests: str, marker: str) -> Assembly:
    program = code + "\n" + tests
    file = "%s.java" % (public_class(program) or "Main")
    mains = list(_JAVA_MAIN.finditer(tests))
    if len(mains) != 1 or _JAVA_MAIN.search(code):
        return Assembly("java", {file: program}, {"assertions": True},
                        unguarded="no one main in the tests")
    owners = re.findall(r"\bclass\s+(\w+)", program[:len(code) + 1 + mains[0].start()])
    if not owners:
        return Assembly("java", {file: program}, {"assertions": True},
                        unguarded="the tests' main is in no class")
    body = tests[:mains[0].start()] + "static void judgeTestsMain(String[] judgeArgs)" + \
        tests[mains[0].end():]
    entry = ("public class JudgeTestsEntry {\n    public static void main(String[] args) "
             "throws Throwable {\n        %s.judgeTestsMain(args);\n        System.out.println("
             "\"\\n%s\");\n        System.out.flush();\n    }\n}\n" % (owners[-1], marker))
    text = code + "\n" + body
    file = "%s.java" % (public_class(text) or "Main")
    if file == "JudgeTestsEntry.java":
        raise NotExpressible("a public class JudgeTestsEntry is the judge's own")
    return Assembly("java", {file: text, "JudgeTestsEntry.java": entry}, {"assertions": True},
                    marker=marker)


def _framework(framework: str, code: str, tests: str, marker: str,
               test_file: str | None) -> Assembly:
    if framework == "pytest":
        hook = ("def pytest_terminal_summary(terminalreporter, exitstatus):\n"
                "    stats = terminalreporter.stats\n"
                "    terminalreporter.write_line('%s exit=%%d passed=%%d failed=%%d' %% (\n"
                "        int(exitstatus), len(stats.get('passed', [])),\n"
                "        len(stats.get('failed', [])) + len(stats.get('error', []))))\n" % marker)
        if test_file:
            return Assembly("pytest", {"solution.py": code, test_file: tests,
                                       "conftest.py": hook}, marker=marker)
        return Assembly("pytest", {"test_main.py": code + "\n" + tests, "conftest.py": hook},
                        marker=marker)
    if framework == "go_test":
        package = re.search(r"^\s*package\s+(\w+)", code + "\n" + tests, re.M)
        guard = ("package %s\n\nimport (\n    \"fmt\"\n    \"os\"\n    \"testing\"\n)\n\n"
                 "func TestMain(m *testing.M) {\n    code := m.Run()\n    if code == 0 {\n"
                 "        fmt.Println(\"\\n%s\")\n    }\n    os.Exit(code)\n}\n"
                 % (package.group(1) if package else "main", marker))
        if "TestMain(" in code + tests:
            return Assembly("go_test", {"main_test.go": code + "\n" + tests},
                            unguarded="the tests define TestMain")
        if test_file:
            return Assembly("go_test", {"main.go": code, test_file: tests,
                                        "judge_guard_test.go": guard}, marker=marker)
        return Assembly("go_test", {"main_test.go": code + "\n" + tests,
                                    "judge_guard_test.go": guard}, marker=marker)
    if framework == "rust_test":
        # libtest runs tests in name order: this one, last by name, passes only when reached
        last = ("\n#[cfg(test)]\nmod zzzz_judge_guard {\n    #[test]\n    fn zzzz_%s() {}\n}\n"
                % marker.split()[-1])
        return Assembly("rust_test", {"main.rs": code + "\n" + tests + last},
                        marker="zzzz_judge_guard::zzzz_%s ... ok" % marker.split()[-1])
    if framework == "junit":
        program = code + "\n" + tests
        return Assembly("junit", {"%s.java" % (public_class(program) or "Main"): program},
                        unguarded="JUnit's summary and exit status (no guard of the judge's)")
    if framework == "d_ut":
        # after every unittest block ran (module order: ours is last in the file)
        text = code + "\n" + tests + ('\nunittest { import core.stdc.stdio : printf; '
                                      'printf("\\n%s\\n"); }\n' % marker)
        return Assembly("d_ut", {"main.d": text}, marker=marker)
    raise NotExpressible("unknown test framework %r (known: %s)" % (
        framework, ", ".join(sorted(FRAMEWORKS))))


def assemble(language: str, framework: str | None, code: str, tests: str, nonce: str,
             test_file: str | None = None) -> Assembly:
    """The test program of ``code`` (the candidate's, prefix included) and ``tests`` in
    ``language`` (the registry's name), run by ``framework`` (None: as a script), with the
    guard of ``nonce``. ``__main__`` as a file name: the language's own program file."""
    marker = _line(nonce)
    if framework:
        if FRAMEWORKS.get(framework) not in (None, language):
            raise NotExpressible("the %s framework runs %s tests, not %s" % (
                framework, FRAMEWORKS[framework], language))
        return _framework(framework, code, tests, marker, test_file)
    return _script(language, code, tests, marker)


# ---- reading a framework's report ----------------------------------------------------------

_PYTEST_LINE = re.compile(r"^(PASSED|FAILED|ERROR) (\S+?)(?: - (.*))?$", re.M)
_GO_LINE = re.compile(r"^\s*--- (PASS|FAIL|SKIP): (\S+)", re.M)
_RUST_LINE = re.compile(r"^test (\S+) \.\.\. (ok|FAILED|ignored)", re.M)
_JUNIT_LINE = re.compile(r"[├└]─ (.+?) ([✔✘])(?: (.*))?$", re.M)


def test_results(framework: str | None, stdout: str) -> list[tuple[str, bool, str]]:
    """The per-test results a framework printed: (test name, passed, message)."""
    if framework == "pytest":
        return [(name, kind == "PASSED", message or "") for kind, name, message
                in _PYTEST_LINE.findall(stdout)]
    if framework == "go_test":
        return [(name, kind == "PASS", "") for kind, name in _GO_LINE.findall(stdout)
                if kind != "SKIP"]
    if framework == "rust_test":
        return [(name, kind == "ok", "") for name, kind in _RUST_LINE.findall(stdout)
                if kind != "ignored" and not name.startswith("zzzz_judge_guard::")]
    if framework == "junit":
        return [(name.strip(), mark == "✔", message or "") for name, mark, message
                in _JUNIT_LINE.findall(stdout) if "()" in name]
    return []


__all__ = ["Assembly", "BENCHMARK_LANGUAGES", "HUMANEVAL_X_GO_IMPORTS", "SEPARATE_TEST_FILE",
           "DUnittest", "FRAMEWORKS", "GoTest", "JUnit", "PyTest", "RustTest",
           "assemble", "public_class", "test_results"]
