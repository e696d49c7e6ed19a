"""Kotlin 1.3 (Debian's kotlinc) with the newer standard library functions models write
(``readln``, ``sumOf``, ``lowercase``, ``Char.code``, ``maxOrNull``...): the judge's small
compatibility package, star-imported on the candidate's first line (judge/languages/kotlin.py).
Real compiles and runs, in the process sandbox and in Docker, through ``Judge.run_program``;
a candidate's own ``readln`` wins over the package's; a compile error keeps its line."""

from __future__ import annotations

import pytest

from judge import languages
from judge.api import Judge, RunSpec
from judge.languages.kotlin import COMPAT_PACKAGE, with_compat

MODERN = """import java.util.*

fun main() {
    val n = readln().trim().toInt()
    val xs = readln().split(" ").map { it.toInt() }
    println(xs.sumOf { it * n } + xs.maxOrNull()!! + 'a'.code + "AbC".lowercase().length)
    println("x".uppercase() + '7'.digitToInt() + (readlnOrNull() ?: "eof"))
}
"""
OWN_READLN = """package contest.solution

fun readln(): String = readLine()!!.trim()
fun main() { println(readln().uppercase()) }
"""
TYPO = """fun main() {
    val n = readln().toInt()
    val s: Int = "not a number"
    println(n + s)
}
"""


def test_the_import_goes_on_a_line_the_candidate_has():
    assert with_compat("fun main() {}\n") == "import %s.*; fun main() {}\n" % COMPAT_PACKAGE
    assert with_compat("package a.b // x\nfun main() {}") == \
        "package a.b; import %s.* // x\nfun main() {}" % COMPAT_PACKAGE
    assert with_compat("#!/usr/bin/env kotlin\nprintln(1)") is None
    assert with_compat("@file:JvmName(\"X\")\nfun main() {}") is None
    build = languages.get("kotlin").program_build({"main.kt": "fun main() {}"}, 448)
    assert build.candidate_file == "main.kt" and "JudgeKotlinCompat.kt" in build.files
    assert build.run[-1] == "MainKt"


@pytest.fixture(scope="module", params=["process", pytest.param("docker", marks=pytest.mark.docker)])
def judge(request):
    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    judge = Judge(request.param, jobs=2)
    yield judge
    judge.close()


def test_modern_kotlin_compiles_and_runs(judge):
    done = judge.run_program("kotlin", MODERN, [b"3\n1 2 5\n", b"1\n4\nrest\n"],
                             RunSpec(wall_s=5.0, memory_mb=256))
    assert done.compile.compiled, done.compile.output
    first, second = done.runs
    assert first.stdout == b"%d\nX7eof\n" % (24 + 5 + 97 + 3), first.stderr
    assert second.stdout == b"%d\nX7rest\n" % (4 + 4 + 97 + 3), second.stderr
    own = judge.run_program("kotlin", OWN_READLN, [b"  hey  \n"], RunSpec(wall_s=5.0, memory_mb=256))
    assert own.compile.compiled, own.compile.output
    assert own.runs[0].stdout == b"HEY\n", own.runs[0].stderr
    typo = judge.run_program("kotlin", TYPO, [b"1\n"], RunSpec(wall_s=5.0, memory_mb=256))
    assert not typo.compile.compiled
    assert "main.kt:3:" in typo.compile.output and "type mismatch" in typo.compile.output
