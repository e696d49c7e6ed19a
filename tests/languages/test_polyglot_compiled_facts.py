"""The builds of C#, D, Kotlin, Scala and TypeScript (pure: nothing is run here;
tests/languages/test_polyglot_compiled.py runs them in both sandboxes): contest flags, the
entry point whatever it is called, SandboxFusion's conventions, compile errors' lines, and
function problems refused with a clear message (but TypeScript's)."""

import pytest

from judge import languages
from judge.languages.base import NotExpressible
from judge.languages.csharp import with_implicit_usings
from judge.languages.kotlin import main_class
from judge.languages.scala import main_object

pytestmark = pytest.mark.pure

FIVE = ["csharp", "d", "kotlin", "scala", "typescript"]


@pytest.mark.parametrize("name", FIVE)
def test_program_only_in_the_polyglot_pool(name):
    lang = languages.get(name)
    assert lang.pool == "polyglot" and lang.tools
    if name != "typescript":  # TypeScript judges function problems too (its own tests)
        with pytest.raises(NotExpressible, match="judges whole programs only"):
            lang.check_expressible(object())
    build = lang.program_probe()
    assert build is not None and build.compile and build.run
    assert all(command[0].startswith("/") for command in build.compile + [build.run]
               if not command[0].startswith("{build}"))


def test_contest_flags():
    cs = languages.get("c#").program_build({"Program.cs": "class P {}"}, 320)
    assert cs.compile[0][:3] == ["/usr/bin/mcs", "-optimize+", "-r:System.Numerics"]
    assert cs.env["MONO_GC_PARAMS"] == "soft-heap-limit=256m"
    d = languages.get("dlang").program_build({"main.d": "void main() {}"}, 256)
    assert d.compile[0][:4] == ["/usr/bin/ldc2", "-O", "-release", "-boundscheck=off"]
    kt = languages.get("kotlin").program_build({"main.kt": "fun main() {}"}, 448)
    assert "-Xmx256m" in kt.run and "-Xss64m" in kt.run and kt.run[-1] == "MainKt"
    scala = languages.get("scala").program_build({"Main.scala": "object A extends App {}"}, 448)
    assert "-Xmx256m" in scala.run and scala.run[-1] == "A"
    assert scala.compile[1][:4] == ["/usr/bin/scalac", "-encoding", "UTF-8", "-nowarn"]


def test_entry_points_whatever_they_are_called():
    assert main_class("fun main() {}", "main.kt") == "MainKt"
    assert main_class("package a.b\nfun main(args: Array<String>) {}", "sol.kt") == "a.b.SolKt"
    assert main_class("object Runner {\n  @JvmStatic fun main(a: Array<String>) {}\n}\n",
                      "main.kt") == "Runner"
    assert main_object("object HelloWorld {\n def main(a: Array[String]) = {} }") == "HelloWorld"
    assert main_object("object Util { }\nobject Main extends App { }") == "Main"
    assert main_object("package p\nobject Helper { val x = 1 }\n"
                       "object Go { def main(a: Array[String]): Unit = () }") == "p.Go"
    assert main_object("// object Fake\nobject Real") == "Real"


def test_sandboxfusions_conventions():
    cs = languages.get("csharp")
    debug = cs.program_build({"Program.cs": "class P {}"}, 320, debug=True)
    assert "-d:DEBUG" in debug.compile[0] and "JudgeAssertListener.cs" in debug.compile[0]
    assert "prog.exe.config" in debug.files and "prog.exe.config" in debug.artifacts
    code = "using System;\nclass P { static void Main() { Console.WriteLine(1); } }"
    assert with_implicit_usings(code).splitlines()[1:] == ["#line 1"] + code.splitlines()
    assert "using System;" not in with_implicit_usings(code).splitlines()[0]
    kts = languages.get("kotlin").program_build({"main.kt": "println(1)"}, 448, script=True)
    assert "main.kts" in kts.files and kts.run[-1] == "JudgeScriptLauncherKt"
    assert "Main(args)" in kts.files["JudgeScriptLauncher.kt"]
    ts = languages.get("ts").program_build({"main.ts": "console.log(1)"}, 256, libraries=True)
    assert ts.env == {"NODE_PATH": "/usr/share/nodejs"} and ts.run[-1] == "{build}/main.js"
    assert languages.named_in("sandboxfusion", "kotlin_script") is languages.get("kotlin")


@pytest.mark.parametrize("name, output, expected", [
    ("csharp", "Program.cs(3,17): error CS0029: Cannot implicitly convert type `string' to "
               "`int'\nCompilation failed: 1 error(s), 0 warnings\n",
     ("CS0029: Cannot implicitly convert type `string' to `int'", 3)),
    ("d", "main.d(3): Error: cannot implicitly convert expression `\"text\"`\n",
     ("cannot implicitly convert expression `\"text\"`", 3)),
    ("kotlin", "warning: x\nmain.kt:3:19: error: type mismatch: inferred type is String\n",
     ("type mismatch: inferred type is String", 3)),
    ("scala", "Main.scala:3: error: type mismatch;\n found   : String(\"text\")\n",
     ("type mismatch;", 3)),
    ("typescript", "main.ts(3,17): error TS1109: Expression expected.\n",
     ("TS1109: Expression expected.", 3)),
])
def test_the_first_compile_error_and_its_line(name, output, expected):
    lang = languages.get(name)
    build = lang.program_build({lang.program_file(""): ""}, 448)
    assert lang.compile_error(output, build) == expected
