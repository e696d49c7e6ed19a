"""Reading the submissions of real-world Kattis / ICPC packages (pure: nothing is run):
DOMjudge's ``@EXPECTED_RESULTS@`` comments, 2023-07's ``rejected`` folder and
``include/<language>/`` files, Python 2 programs without a python2 shebang, Java classes in
a package, and the format's safety margin."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.engine.program_verdicts import check_submission
from judge.engine.verdicts import TestResult as Result
from judge.engine.verdicts import Verdict
from judge.importers.kattis import read_package
from judge.importers.kattis_files import expected_results, looks_like_python2
from judge.languages.java import Java

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure


def _package(root: Path, yaml: str = "name: Sum\n") -> Path:
    (root / "data" / "secret").mkdir(parents=True)
    (root / "data" / "secret" / "1.in").write_text("1 2\n")
    (root / "data" / "secret" / "1.ans").write_text("3\n")
    (root / "problem.yaml").write_text(yaml)
    return root


def _add(root: Path, folder: str, name: str, code: str) -> None:
    (root / "submissions" / folder).mkdir(parents=True, exist_ok=True)
    (root / "submissions" / folder / name).write_text(code)


def _results(*verdicts: str) -> list[Result]:
    return [Result(i, Verdict(v)) for i, v in enumerate(verdicts)]


def test_expected_results_comments_name_the_verdicts_a_submission_may_get():
    assert expected_results("// @EXPECTED_RESULTS@: TIMELIMIT, WRONG-ANSWER\nint main;") == \
        ("timeout", "wrong_answer")
    assert expected_results("# @EXPECTED_RESULTS@: CORRECT\n") == ("pass",)
    assert expected_results("/* @EXPECTED_RESULTS@: RUN-ERROR */") == \
        ("runtime_error", "memory_limit")
    assert expected_results("print(1)\n") is None
    assert expected_results("// @EXPECTED_RESULTS@: SOMETHING-ELSE\n") is None  # unknown


def test_a_comment_overrides_the_folder_and_rejected_takes_any_failure(tmp_path):
    root = _package(tmp_path / "sum")
    _add(root, "mixed", "slow-or-wrong.c",
         "// @EXPECTED_RESULTS@: TIMELIMIT, WRONG-ANSWER\nint main(void){return 0;}\n")
    _add(root, "rejected", "wrong.py", "print(4)\n")
    package = read_package(root)
    found = {s.path.name: s for s in package.submissions}
    assert found["slow-or-wrong.c"].expected == ("timeout", "wrong_answer")
    assert found["slow-or-wrong.c"].expected_verdict == "timeout"  # judged, not listed
    assert found["wrong.py"].expected is None and found["wrong.py"].expected_verdict
    assert any("@EXPECTED_RESULTS@" in n for n in package.notes)
    marked = check_submission("mixed", _results("pass", "wrong_answer"), ("timeout",
                                                                         "wrong_answer"))
    assert marked.agrees is True
    assert check_submission("mixed", _results("pass"), ("timeout", "wrong_answer")).agrees \
        is False
    for verdict in ("wrong_answer", "timeout", "runtime_error", "memory_limit"):
        assert check_submission("rejected", _results(verdict)).agrees is True
    assert check_submission("rejected", _results("pass", "pass")).agrees is False


def test_python2_is_told_by_its_syntax_and_builtins_not_only_its_shebang(tmp_path):
    assert looks_like_python2('n = input()\nprint "%d" % n\n')
    assert looks_like_python2("n = int(raw_input())\nprint(n)\n")  # compiles, cannot run
    assert looks_like_python2("for i in xrange(3):\n    print(i)\n")
    assert looks_like_python2("try:\n    f()\nexcept ValueError, e:\n    pass\n")
    assert not looks_like_python2("print(1)\n")
    assert not looks_like_python2("s = 'print x'\nprint(s)\n")
    # written for both Pythons: it checks which one runs it
    assert not looks_like_python2("try:\n    input = raw_input\nexcept NameError:\n    pass\n")
    assert not looks_like_python2("def xrange(n):\n    return range(n)\nxrange(3)\n")
    # a comment or a string naming Python 2 is not Python 2
    assert not looks_like_python2("# raw_input() is input() now\nprint(input())\n")
    assert not looks_like_python2("s = 'raw_input(x) and print x'\nprint(s)\n")
    assert not looks_like_python2("from functools import reduce\nprint(reduce(max, [1]))\n")
    root = _package(tmp_path / "sum")
    _add(root, "accepted", "old.py", "a, b = map(int, raw_input().split())\nprint a + b\n")
    _add(root, "accepted", "new.py", "print(sum(map(int, input().split())))\n")
    _add(root, "accepted", "shebang3.py", "#!/usr/bin/env python3\nprint(3)\n")
    package = read_package(root)
    languages = {s.path.name: s.language for s in package.submissions}
    assert languages == {"old.py": "python2", "new.py": "python", "shebang3.py": "python"}
    assert any("Python 2 submission" in n and "not judged" in n for n in package.notes)


def test_include_files_join_the_submissions_of_their_language(tmp_path):
    root = _package(tmp_path / "sum", "problem_format_version: 2023-07\nname: Sum\n")
    (root / "include" / "cpp").mkdir(parents=True)
    (root / "include" / "cpp" / "sum.h").write_text("int sum(int a, int b);\n")
    (root / "include" / "python3").mkdir(parents=True)
    (root / "include" / "python3" / "helper.py").write_text("X = 1\n")
    _add(root, "accepted", "a.cpp", '#include "sum.h"\nint main(){}\n')
    _add(root, "accepted", "b.py", "import helper\n")
    _add(root, "accepted", "c.go", "package main\nfunc main(){}\n")
    found = {s.path.name: s for s in read_package(root).submissions}
    assert sorted(found["a.cpp"].sources) == ["a.cpp", "sum.h"]
    assert sorted(found["b.py"].sources) == ["b.py", "helper.py"]
    assert sorted(found["c.go"].sources) == ["c.go"]


def test_the_safety_margin_is_read_from_either_format(tmp_path):
    legacy = _package(tmp_path / "a", "limits:\n  time_safety_margin: 3\n")
    assert read_package(legacy).tle_margin == 3
    assert read_package(_package(tmp_path / "b")).tle_margin == 2  # legacy default
    new = _package(tmp_path / "c", "problem_format_version: 2023-07\nname: C\n")
    assert read_package(new).tle_margin == 1.5
    tuned = _package(tmp_path / "d", "problem_format_version: 2023-07\nname: D\nlimits:\n"
                     "  time_multipliers:\n    time_limit_to_tle: 1.2\n")
    assert read_package(tuned).tle_margin == 1.2


def test_a_java_class_in_a_package_runs_by_its_qualified_name():
    code = ("// package not.this.one;\npackage se.kth.sum;\nimport java.util.*;\n"
            "public class Sum { public static void main(String[] a) {} }\n")
    build = Java().program_build({"Sum.java": code}, 256)
    assert build.run[-1] == "se.kth.sum.Sum"
    plain = Java().program_build({"Main.java": "class Main { public static void main("
                                               "String[] a) {} }"}, 256)
    assert plain.run[-1] == "Main"
