"""Program problems in suites, and the whole-program builds of the seven languages (pure:
nothing is run here; tests/engine/test_programs_judged.py runs them in the sandboxes)."""

import json

import pytest

from judge import languages
from judge.errors import InputError
from judge.languages.base import NotExpressible
from judge.kinds.loader import load_suite
from judge.problem.program import ProgramProblem
from tests.paths import ROOT

SEVEN = ["python", "c", "cpp", "java", "js", "go", "rust"]
#: and Python 3 on PyPy, as Kattis runs it
EIGHT = SEVEN + ["pypy3"]


def _write(folder, name, data):
    (folder / name).write_text(json.dumps(data), encoding="utf-8")


def test_a_suite_holds_function_and_program_problems(tmp_path):
    _write(tmp_path, "add.json", {
        "kind": "program", "identifier": "add", "statement": "Add two numbers.",
        "tests": [{"stdin": "1 2\n", "expected": "3\n"}]})
    seed = json.loads((ROOT / "problems" / "basics").glob("*.json").__next__().read_text())
    _write(tmp_path, "function.json", seed)
    suite = load_suite(tmp_path)
    kinds = {p.identifier: type(p).__name__ for p in suite}
    assert kinds["add"] == "ProgramProblem" and seed["identifier"] in kinds
    assert kinds[seed["identifier"]] == "Problem"
    assert isinstance(suite["add"], ProgramProblem)


def test_a_bad_program_file_is_reported_with_its_location(tmp_path):
    _write(tmp_path, "bad.json", {"kind": "program", "identifier": "bad", "statement": "x",
                                  "tests": [{"stdin": "1\n"}]})
    with pytest.raises(InputError) as caught:
        load_suite(tmp_path)
    text = str(caught.value)
    assert "bad.json" in text and "tests[0]" in text and "expected output" in text


@pytest.mark.parametrize("name", EIGHT)
def test_every_language_builds_a_whole_program(name):
    lang = languages.get(name)
    code = "public class Sol { public static void main(String[] a) {} }" if name == "java" \
        else "x"
    file = lang.program_file(code)
    build = lang.program_build({file: code}, 256)
    assert build.run and build.compile and build.files == {file: code}
    assert "{args}" not in build.run  # a program's arguments are the test's own


def test_contest_flags_and_the_java_main_class():
    c = languages.get("c").program_build({"main.c": "int main(){}"}, 256)
    assert c.compile[0][:3] == ["/usr/bin/gcc", "-O2", "-std=gnu17"] and c.compile[0][-1] == "-lm"
    cpp = languages.get("c++").program_build({"main.cpp": "int main(){}"}, 256)
    assert "-std=gnu++20" in cpp.compile[0] and "-O2" in cpp.compile[0]
    java = languages.get("java")
    code = "import java.util.*;\nclass Helper {}\npublic class Different { static public void main(String[] a) {} }"
    assert java.program_file(code) == "Different.java"
    assert java.program_build({"Different.java": code}, 512).run[-1] == "Different"


def test_pypy_is_for_programs_only_and_checks_syntax_with_pypy():
    pypy = languages.get("pypy")
    assert pypy.name == "pypy3" and "pypy3" in languages.names()
    assert "pypy3" not in languages.LANGUAGES
    with pytest.raises(NotExpressible, match="whole programs only"):
        pypy.check_expressible(object())
    build = pypy.program_build({"main.py": "import helper\n", "helper.py": "x = 1\n"}, 256)
    assert build.run == ["/usr/bin/pypy3", "{build}/main.py"]
    assert build.compile[0][:2] == ["/usr/bin/pypy3", "-c"]
    assert build.compile[0][-2:] == ["helper.py", "main.py"]
    assert pypy.compile_error("main.py:3: error: SyntaxError: invalid syntax\n",
                              build) == ("SyntaxError: invalid syntax", 3)


def test_c_is_for_programs_only():
    with pytest.raises(NotExpressible, match="whole programs only"):
        languages.get("c").check_expressible(object())
    assert "c" in languages.names() and "c" not in languages.LANGUAGES


def test_the_java_main_class_is_the_top_level_class_holding_main():
    java = languages.get("java")
    code = ("class Edge { int a; }\nclass Main { static class X {} // {\n"
            " String s = \"}{\"; public static void main(String[] a) {} }\n")
    assert java.program_file(code) == "Main.java"
    assert java.program_build({"Main.java": code}, 512).run[-1] == "Main"


def test_program_limits_default_to_the_kattis_ones():
    from pathlib import Path

    from judge.kinds.program.judge import program_limits
    from judge.problem.program import program_from_data
    from judge.sandbox.base import Limits

    data = {"kind": "program", "identifier": "x", "statement": "x",
            "tests": [{"stdin": "", "expected": ""}]}
    plain = program_from_data(data, "<x>", Path("."))
    java = languages.get("java")
    limits, time_s = program_limits(plain, Limits(), java)
    # Kattis' 1024 MiB is Java's heap (-Xmx); the JVM's own headroom comes on top
    assert java.memory_headroom_mb > 0
    assert (limits.memory_mb, limits.output_kb) == (1024 + java.memory_headroom_mb, 8192)
    limits, _ = program_limits(plain, Limits(), languages.get("c"))
    assert (limits.memory_mb, limits.output_kb) == (1024, 8192)
    assert time_s == Limits().time_limit_s + languages.get("java").startup_s
    data["limits"] = {"memory_mb": 256, "output_kb": 64, "time_limit_s": 3}
    own = program_from_data(data, "<x>", Path("."))
    limits, time_s = program_limits(own, Limits(), languages.get("c"))
    assert (limits.memory_mb, limits.output_kb, time_s) == (256, 64, 3)


def test_packages_python_runs_on_pypy_unless_told_or_missing(monkeypatch):
    """judge verify's choice of runtime for a package's Python 3 submissions: PyPy 3 (as Kattis
    and problemtools), CPython when told, and CPython with a line in the log where the process
    sandbox finds no pypy3; Python 2 and other languages are left as they are."""
    from types import SimpleNamespace

    from judge.cli.programs import _run_as, python_runtime
    from judge.sandbox.prerequisites import Prerequisite

    # stand-ins that say which back end they are, as a Sandbox does (Sandbox.backend())
    process = SimpleNamespace(name="process", backend=lambda: "process")
    docker = SimpleNamespace(name="docker", backend=lambda: "docker")
    log: list[str] = []
    assert python_runtime("cpython", process, log) is None and not log
    assert python_runtime("pypy3", docker, log) == "pypy3"
    pypy = languages.get("pypy3")
    monkeypatch.setattr(type(pypy), "prerequisites", lambda self: [
        Prerequisite("pypy3", "x", False, "/usr/bin/pypy3 not found on PATH")])
    assert python_runtime("pypy3", process, log) is None
    assert "pypy3 is not available (/usr/bin/pypy3 not found on PATH)" in log[0]
    assert "CPython" in log[0]
    for language, runs_as in (("python", "pypy3"), ("python2", "python2"), ("cpp", "cpp"),
                              (None, None)):
        assert _run_as(SimpleNamespace(language=language), "pypy3") == runs_as
        assert _run_as(SimpleNamespace(language=language), None) == language


def test_validate_names_a_runtime_the_judge_does_not_know(tmp_path, capsys):
    from judge.cli.main import main

    base = {"kind": "program", "identifier": "add", "statement": "Add.",
            "tests": [{"stdin": "1 2\n", "expected": "3\n"}]}
    _write(tmp_path, "add.json", {**base, "runtimes": {"python": "pypy9"}})
    assert main(["validate", str(tmp_path)]) == 1
    said = capsys.readouterr().err
    assert "add.json: runtimes.python: unknown language 'pypy9' (did you mean 'pypy3'?)" in said
    _write(tmp_path, "add.json", {**base, "runtimes": {"python": "Py Py"}})
    assert main(["validate", str(tmp_path)]) == 1
    assert "runtimes" in capsys.readouterr().err
    _write(tmp_path, "add.json", {**base, "runtimes": {"python": "pypy3"}})
    assert main(["validate", str(tmp_path)]) == 0
    assert load_suite(tmp_path)["add"].runtimes == {"python": "pypy3"}


def test_a_runtime_is_named_in_the_prompt_and_chosen_for_the_candidate(tmp_path):
    from judge.candidates.extract import Candidate
    from judge.kinds.base import KINDS

    program_submission = KINDS.get("program").submission
    from judge.prompts.programs import render_program_prompt

    _write(tmp_path, "add.json", {"kind": "program", "identifier": "add", "statement": "Add.",
                                  "tests": [{"stdin": "1 2\n", "expected": "3\n"}],
                                  "runtimes": {"py": "pypy"}})
    problem = load_suite(tmp_path)["add"]
    text = render_program_prompt(problem).prompt
    assert "Write a complete Python 3 (PyPy 3) program" in text and "```python" in text
    reply = "Here:\n```python\na, b = map(int, input().split())\nprint(a + b)\n```\n"
    submission = program_submission(problem, Candidate("add", reply))
    assert submission.language == "pypy3" and submission.code.startswith("a, b")
    assert "python runs as pypy3 on this problem" in submission.note
    c = program_submission(problem, Candidate("add", "int main(){}", language="c"))
    assert c.language == "c" and not c.note


def test_a_runtime_that_cannot_run_the_code_is_invalid_before_anything_runs(tmp_path, capsys):
    """{"c": "pypy3"} would make every C candidate a compile error, and a map to a language
    without whole programs could judge nothing: judge validate and judge run refuse both,
    naming the field, before a candidate is judged."""
    from judge.cli.main import main

    base = {"kind": "program", "identifier": "add", "statement": "Add.",
            "tests": [{"stdin": "1 2\n", "expected": "3\n"}]}
    solutions = tmp_path / "solutions.jsonl"
    solutions.write_text(json.dumps({"problem_id": "add", "solution": "print(3)"}) + "\n")
    suite = tmp_path / "suite"
    suite.mkdir()
    for runtimes, said in (({"c": "pypy3"}, "runtimes.c: pypy3 does not run C (gnu17) code"),
                           ({"python": "pypy9"}, "runtimes.python: unknown language 'pypy9'")):
        _write(suite, "add.json", {**base, "runtimes": runtimes})
        assert main(["validate", str(suite)]) == 1
        assert said in capsys.readouterr().err
        assert main(["run", str(suite), "--solutions", str(solutions), "--sandbox", "process",
                     "--no-output"]) == 1
        assert said in capsys.readouterr().err
