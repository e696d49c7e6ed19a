"""Reading Kattis / ICPC problem packages (tests/data/kattis, see its README) as program
problems: limits, checkers and their flags, groups, statements, samples, submissions, the
import log, and located errors for malformed packages. Nothing here runs a candidate."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.errors import InputError
from judge.engine.checkers.base import check_output
from judge.importers.kattis import (INTERACTIVE_SUPPORTED, KattisImporter, read_package,
                                    read_packages, write_problem)
from judge.importers.kattis_files import (
    read_domjudge_ini,
    read_statement,
    submission_language,
    submission_source,
    submission_sources,
)
from judge.problem.program import RunInput, load_program, program_from_data
from tests.paths import DATA

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

DATA = DATA / "kattis"
PACKAGES = sorted(p.name for p in DATA.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def packages():
    result = read_packages(DATA)
    assert result.issues == []
    return {p.identifier: p for p in result.packages}


def test_every_package_is_read(packages):
    assert sorted(packages) == PACKAGES
    assert len(PACKAGES) >= 13


# (package, format, types, checker fields (non-default), time limit, rule multiplier)
FACTS = [
    ("hello", "legacy", ["pass-fail"], {}, 1.0, None),
    ("different", "legacy", ["pass-fail"],
     {"type": "validator", "validator": "output_validators/different_validator",
      "validator_language": "cpp"}, None, 5.0),
    ("guess", "2023-07", ["interactive"],
     {"type": "validator", "validator": "output_validator", "validator_language": "cpp"},
     None, 2.0),
    ("oddecho", "2023-07", ["scoring"], {}, None, 2.0),
    ("floats", "legacy", ["pass-fail"], {"float_tolerance": 1e-6}, None, 3.0),
    ("absrel", "legacy", ["pass-fail"],
     {"float_absolute_tolerance": 1e-9, "float_relative_tolerance": 1e-6}, None, 5.0),
    ("casesens", "legacy", ["pass-fail"], {"case_sensitive": True}, None, 5.0),
    ("spacesens", "legacy", ["pass-fail"], {"space_change_sensitive": True}, None, 5.0),
    ("groupflags", "legacy", ["pass-fail"], {"case_sensitive": True}, None, 5.0),
    ("pyvalidator", "legacy", ["pass-fail"],
     {"type": "validator", "validator": "output_validators/check.py",
      "validator_language": "python", "validator_flags": ["allow_one"]}, None, 2.0),
    ("notimelimit", "2023-07", ["pass-fail"], {}, None, 3.0),
    ("domjudge", "legacy", ["pass-fail"], {}, 2.5, None),
    ("argsfiles", "2023-07", ["pass-fail"], {}, 1.5, None),
]


@pytest.mark.parametrize("name,fmt,types,checker,time_limit,multiplier", FACTS,
                         ids=[f[0] for f in FACTS])
def test_package_facts(packages, name, fmt, types, checker, time_limit, multiplier):
    package = packages[name]
    problem = package.problem
    assert problem.identifier == name  # the folder name
    assert (package.format, package.types) == (fmt, types)
    assert problem.checker.model_dump(exclude_defaults=True) == checker
    assert problem.limits.time_limit_s == time_limit
    if multiplier is None:
        assert problem.time_rule is None
        assert any(note.startswith("time limit") for note in package.notes)
    else:
        assert problem.time_rule.multiplier == multiplier
        assert any("no time limit published" in note and "x %g" % multiplier in note
                   for note in package.notes)
    assert problem.tests and all(t.name for t in problem.tests)


def test_names_limits_and_time_rules(packages):
    assert packages["hello"].problem.name == "Hello World!"
    assert packages["domjudge"].problem.name == "Hello DOMjudge"  # domjudge-problem.ini
    assert packages["floats"].problem.limits.memory_mb == 512
    assert packages["floats"].problem.limits.output_kb == 4 * 1024
    assert packages["different"].problem.time_rule.tle_margin == 4  # time_safety_margin
    rule = packages["notimelimit"].problem.time_rule
    assert (rule.multiplier, rule.tle_margin, rule.resolution_s) == (3, 2, 0.5)
    assert packages["notimelimit"].problem.limits.memory_mb == 256
    guess = packages["guess"].problem.time_rule
    assert (guess.multiplier, guess.tle_margin) == (2.0, 4.0)  # 2023-07 default, yaml override


def test_test_names_groups_and_order(packages):
    names = [t.name for t in packages["groupflags"].problem.tests]
    assert names == ["sample/1", "secret/a_plain/1", "secret/b_floats/1",
                     "secret/b_floats/deeper/1", "secret/b_floats/deeper/most/1",
                     "secret/c_reset/1"]
    tests = {t.name: t for t in packages["groupflags"].problem.tests}
    assert tests["secret/b_floats/deeper/most/1"].group == "secret/b_floats/deeper/most"
    assert tests["sample/1"].sample and not tests["secret/a_plain/1"].sample
    assert [t.name for t in packages["oddecho"].problem.tests] == [
        "sample/1", "secret/group1/1", "secret/group2/1", "secret/group2/2"]


def test_group_flags_are_added_to_the_problem_flags_and_inherited_whole(packages):
    problem = packages["groupflags"].problem
    tests = {t.name: t for t in problem.tests}
    assert tests["secret/a_plain/1"].checker is None  # the problem's checker
    for name in ("secret/b_floats/1", "secret/b_floats/deeper/1",
                 "secret/b_floats/deeper/most/1"):
        checker = problem.checker_for(tests[name])
        assert checker.case_sensitive and checker.float_tolerance == 0.01
    # legacy: the nearest testdata.yaml applies whole, so a group with its own file and no
    # flags is back to the problem's flags
    assert problem.checker_for(tests["secret/c_reset/1"]) == problem.checker
    # and the checkers behave as the flags say
    floats = problem.checker_for(tests["secret/b_floats/1"])
    assert check_output(b"3.14159\n", b"3.14\n", floats) is None
    assert check_output(b"3.14159\n", b"3.1\n", floats) is not None
    assert check_output(b"Word\n", b"word\n", problem.checker) is not None


@pytest.mark.parametrize("name,good,bad", [
    ("floats", b"2.3333334\n", b"2.34\n"),
    ("absrel", b"9.000005\n", b"9.0001\n"),  # relative 1e-6 of 9, not absolute 1e-9
    ("casesens", b"HI\n", b"hi\n"),
    ("spacesens", b". .\n. .\n", b".  .\n. .\n"),
    ("hello", b"hello world!", b"Hello, World!\n"),
])
def test_flag_packages_check_as_their_flags_say(packages, name, good, bad):
    problem = packages[name].problem
    test = problem.tests[0]
    assert check_output(test.expected_output(), test.expected_output(), problem.checker) is None
    assert check_output(test.expected_output(), good, problem.checker) is None
    assert check_output(test.expected_output(), bad, problem.checker) is not None


def test_expected_outputs_stay_on_the_judge_side(packages):
    for package in packages.values():
        for test in package.problem.tests:
            run = test.run_input()
            assert isinstance(run, RunInput)
            assert set(vars(run)) == {"stdin", "args", "files"}  # no expected output there
            assert run.stdin == (package.path / test.stdin_file).read_bytes()
            if test.expected_file:
                assert test.expected_output() == (package.path / test.expected_file).read_bytes()
                # test data stays as files in the package, referred to by path
                assert not Path(test.expected_file).is_absolute()
            if run.files is not None:
                answers = {p.name for p in run.files.iterdir()}
                assert not any(name.endswith(".ans") for name in answers)


def test_args_and_input_files(packages):
    tests = {t.name: t for t in packages["argsfiles"].problem.tests}
    one, two = tests["secret/1"].run_input(), tests["secret/2"].run_input()
    assert one.args == ("data.txt",)  # from test_group.yaml
    assert two.args == ("other.txt",)  # the case's own .yaml wins
    assert (one.files / "data.txt").read_text() == "from a file\n"
    assert (two.files / "other.txt").is_file()


def test_statements_and_samples(packages):
    different = packages["different"].problem
    assert different.statement.startswith("Write a program that computes the difference")
    assert "two integers" in different.input_format
    assert different.output_format.startswith("For each line of input")
    assert different.samples[0].stdin.startswith("10 12\n")
    assert different.samples[0].expected.startswith("2\n")
    oddecho = packages["oddecho"].problem
    assert "Scoring" not in oddecho.output_format and "Group 1" not in oddecho.output_format
    floats = packages["floats"].problem
    assert floats.statement == "Print the average of the numbers."
    assert floats.input_format == "A count n, then n integers."
    guess = packages["guess"].problem
    assert guess.samples[0].interaction.startswith("> 500\n< higher")
    assert guess.samples[0].stdin is None
    assert "lower" in guess.output_format  # the Interaction section


def test_interactive_problems_are_read_marked_and_imported(packages):
    guess = packages["guess"]
    assert guess.problem.interactive and guess.problem.checker.type == "validator"
    assert INTERACTIVE_SUPPORTED
    assert guess.supported and not guess.unsupported
    assert all(p.supported for p in packages.values())


def test_contest_semantics_are_recorded(packages):
    assert packages["hello"].problem.contest.stop_at_first_failure
    assert not packages["oddecho"].problem.contest.stop_at_first_failure  # scoring
    assert any("stop at the first failing test" in n for n in packages["hello"].notes)
    assert any("a scored problem: every test its groups score is run" in n
               for n in packages["oddecho"].notes)
    assert [g.name for g in packages["oddecho"].problem.scoring.walk()] == [
        "", "sample", "secret", "secret/group1", "secret/group2"]


def test_submissions_with_folders_languages_and_verdicts(packages):
    found = {(s.folder, s.path.name): s for s in packages["different"].submissions}
    assert {name: s.language for (folder, name), s in found.items() if folder == "accepted"} \
        == {"Different.java": "java", "different.c": "c", "different.cc": "cpp",
            "different.go": "go", "different.js": "javascript", "different.py": "python",
            "different.rs": "rust", "different.hs": "haskell"}
    assert found[("wrong_answer", "different_int.cc")].expected_verdict == "wrong_answer"
    slow = found[("time_limit_exceeded", "different_slow.py")]
    assert slow.expected_verdict == "timeout" and slow.judged
    assert not found[("accepted", "different.hs")].judged
    assert any("haskell" in n for n in packages["different"].notes)
    hello = {(s.folder, s.path.name): s.expected_verdict for s in packages["hello"].submissions}
    assert hello[("run_time_error", "crash.c")] == "runtime_error"
    assert hello[("accepted", "hello.py")] == "pass"
    odd = {s.folder: s.expected_verdict for s in packages["oddecho"].submissions}
    assert odd["partially_accepted"] is None


def test_submission_language_details(tmp_path):
    (tmp_path / "old.py").write_text("#!/usr/bin/env python2\nprint 1\n")
    (tmp_path / "new.py").write_text("#!/usr/bin/env python3\nprint(1)\n")
    folder = tmp_path / "multi"
    folder.mkdir()
    (folder / "main.cpp").write_text("")
    (folder / "util.h").write_text("")
    (folder / "helper.c").write_text("")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "a.py").write_text("")
    (mixed / "b.java").write_text("")
    assert submission_language(tmp_path / "old.py") == "python2"
    assert submission_language(tmp_path / "new.py") == "python"
    assert submission_language(folder) == "cpp"
    assert submission_language(mixed) is None
    # the file compiled: a folder's one code file; notes beside it are not sources; a
    # header or a second code file makes a multi-file program: all its code files
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "sol.java").write_text("")
    (notes / "README").write_text("")
    (notes / "data.txt").write_text("")
    assert submission_source(notes) == notes / "sol.java"
    assert submission_source(tmp_path / "old.py") == tmp_path / "old.py"
    assert submission_source(folder) is None and submission_source(mixed) is None
    assert submission_source(tmp_path / "missing") is None
    assert set(submission_sources(folder)) == {"main.cpp", "util.h", "helper.c"} and \
        submission_sources(notes) == {"sol.java": ""}
    assert submission_sources(tmp_path / "missing") is None


def test_a_program_problem_round_trips_through_json(packages, tmp_path):
    for name in ("groupflags", "pyvalidator", "argsfiles", "guess"):
        problem = packages[name].problem
        data = json.loads(problem.model_dump_json(exclude_defaults=True))
        again = program_from_data(data, str(tmp_path / "p.json"), root=problem.root)
        assert again.model_dump() == problem.model_dump()
        assert [t.run_input() for t in again.tests] == [t.run_input() for t in problem.tests]


def test_domjudge_ini_forms(tmp_path):
    ini = tmp_path / "domjudge-problem.ini"
    ini.write_text("; comment\nname=\"Multi\nline\"\ntimelimit = 3\n\nprobid='A'\nbroken line\n")
    values, issues = read_domjudge_ini(ini)
    assert values == {"name": "Multi\nline", "timelimit": "3", "probid": "A"}
    assert len(issues) == 1 and issues[0].line == 7


def test_statement_forms(tmp_path):
    folder = tmp_path / "problem_statement"
    folder.mkdir()
    (folder / "problem.sv.md").write_text("# Svenska\n\nText.\n")
    (folder / "problem.en.tex").write_text(
        "\\problemname{Env Style}\nBody.\n\\begin{Input}\nIn.\n\\end{Input}\n"
        "\\begin{Output}\nOut.\n\\end{Output}\n")
    statement = read_statement([folder])
    assert (statement.name, statement.text, statement.input_format,
            statement.output_format) == ("Env Style", "Body.", "In.", "Out.")
    assert read_statement([tmp_path / "missing"]) is None


# ---- the package's own validators follow the protocol (test data sanity) -------------------

def _validate(command, package, test, output, tmp_path, flags=()):
    feedback = tmp_path / "feedback"
    feedback.mkdir(exist_ok=True)
    done = subprocess.run([*command, str(package / test.stdin_file),
                           str(package / test.expected_file), str(feedback) + "/", *flags],
                          input=output, capture_output=True, timeout=60, check=False)
    message = feedback / "judgemessage.txt"
    return done.returncode, message.read_text() if message.exists() else ""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_cpp_validator_accepts_and_rejects(packages, tmp_path):
    package = packages["different"]
    source = package.path / package.problem.checker.validator / "validate.cc"
    binary = tmp_path / "validate"
    subprocess.run(["g++", "-O2", "-o", str(binary), str(source)], check=True, timeout=120)
    test = package.problem.tests[0]
    assert _validate([str(binary)], package.path, test, test.expected_output(), tmp_path)[0] == 42
    code, message = _validate([str(binary)], package.path, test, b"2 71293781685339 0",
                              tmp_path)
    assert code == 43 and "expected 12345677654320, got 0" in message
    assert _validate([str(binary)], package.path, test, b"x" * 100_000, tmp_path)[0] == 43


def test_the_python_validator_accepts_and_rejects(packages, tmp_path):
    package = packages["pyvalidator"]
    checker = package.problem.checker
    command = [sys.executable, str(package.path / checker.validator)]
    tests = {t.name: t for t in package.problem.tests}
    sample, prime = tests["sample/1"], tests["secret/2"]
    assert _validate(command, package.path, sample, b"3\n", tmp_path)[0] == 42  # any divisor
    code, message = _validate(command, package.path, sample, b"5\n", tmp_path)
    assert code == 43 and "not a proper divisor" in message
    assert _validate(command, package.path, prime, b"1\n", tmp_path,
                     checker.validator_flags)[0] == 42
    assert _validate(command, package.path, prime, b"1\n", tmp_path)[0] == 43  # no flag


# ---- malformed packages: located errors -----------------------------------------------------

def _package(tmp_path: Path, files: dict[str, str], name: str = "broken") -> Path:
    root = tmp_path / name
    base = {"problem.yaml": "name: Broken\n", "data/secret/1.in": "1\n",
            "data/secret/1.ans": "1\n"}
    for rel, text in {**base, **files}.items():
        if text is None:
            continue
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _issues(root: Path) -> list[str]:
    with pytest.raises(InputError) as caught:
        read_package(root)
    return [str(issue) for issue in caught.value.issues]


@pytest.mark.parametrize("files,expected", [
    ({"problem.yaml": "name: X\nlimits:\n  memory: [1\n"},
     ["problem.yaml:4: invalid YAML"]),
    ({"problem.yaml": "- a list\n"}, ["problem.yaml:1: expected a mapping"]),
    ({"data/secret/2.in": "2\n"}, ["data/secret/2.in: test case secret/2 has no answer file"]),
    ({"problem.yaml": "name: X\nvalidation: special\n"},
     ["problem.yaml:2: validation: unknown validation 'special'"]),
    ({"problem.yaml": "name: X\nvalidation: custom sometimes\n"},
     ["problem.yaml:2: validation: unknown validation"]),
    ({"problem.yaml": "name: X\nvalidation: custom\n"},
     ["problem.yaml:2: validation: validation: custom needs an output validator"]),
    ({"problem.yaml": "name: X\ntype: interactive\n"},
     ["problem.yaml:2: type: an interactive problem needs an output validator"]),
    ({"problem.yaml": "name: X\n\nvalidator_flags: float_tolerance\n"},
     ["problem.yaml:3: validator_flags: validator_flags: float_tolerance needs a value"]),
    ({"problem.yaml": "name: X\nvalidator_flags: case_insensitive\n"},
     ["unknown default validator flag 'case_insensitive'"]),
    ({"data/secret/testdata.yaml": "output_validator_flags: float_tolerance x\n"},
     [("data/secret/testdata.yaml: output validator flags: float_tolerance needs a finite "
       "number, got 'x'")]),
    ({"data/secret/testdata.yaml": "output_validator_flags: {a: [1, {b: 2}]}\n"}, []),
    ({"data/secret/testdata.yaml": "on_reject: [\n"}, ["data/secret/testdata.yaml:2: invalid"]),
    ({"problem.yaml": "problem_format_version: 1999-01\n"},
     ["problem.yaml:1: problem_format_version: unknown problem_format_version '1999-01'"]),
    ({"problem.yaml": "name: X\ntype: [pass-fail, tournament]\n"},
     ["problem.yaml:2: type: unknown problem type 'tournament'"]),
    ({"problem.yaml": "name: X\nlimits:\n  memory: lots\n"},
     ["problem.yaml:2: limits: limits.memory must be a positive number of at most 65536 MiB, got 'lots'"]),
    ({".timelimit": "fast\n"}, [".timelimit:1: expected a positive number of seconds"]),
    ({"domjudge-problem.ini": "timelimit = -1\n"},
     ["domjudge-problem.ini: timelimit must be a positive number"]),
    ({"data/secret/1.in": None, "data/secret/1.ans": None, "data/secret/x.txt": ""},
     ["data/secret: no secret test cases"]),
    ({"problem.yaml": "name: X\nvalidation: custom\n", "output_validators/notes.txt": "hi"},
     ["output_validators: no output validator program here"]),
])
def test_malformed_packages_get_located_errors(tmp_path, files, expected):
    root = _package(tmp_path, files)
    if not expected:
        read_package(root)  # a mapping with "flags" missing is no flags (legacy form)
        return
    issues = _issues(root)
    for text in expected:
        assert any(text in issue for issue in issues), (text, issues)
    assert all(str(root) in issue for issue in issues)


def test_every_issue_is_reported_at_once(tmp_path):
    root = _package(tmp_path, {"problem.yaml": "name: X\nvalidation: odd\n",
                               "data/secret/2.in": "", "data/sample/9.in": ""})
    issues = _issues(root)
    assert len(issues) == 3


def test_a_folder_of_packages_reads_the_good_ones_and_lists_the_bad(tmp_path):
    _package(tmp_path, {}, "good")
    _package(tmp_path, {"problem.yaml": "name: [\n"}, "bad")
    (tmp_path / "not_a_package").mkdir()
    result = read_packages(tmp_path)
    assert [p.identifier for p in result.packages] == ["good"]
    assert len(result.issues) == 1 and "bad/problem.yaml:2" in str(result.issues[0])
    with pytest.raises(InputError):
        result.raise_for_issues()
    single = read_packages(tmp_path / "good")
    assert [p.identifier for p in single.packages] == ["good"] and not single.issues
    empty = read_packages(tmp_path / "not_a_package")
    assert "no problem package here" in str(empty.issues[0])
    assert "no such folder" in str(read_packages(tmp_path / "missing").issues[0])


def test_several_validators_or_build_scripts_are_unsupported_not_fatal(tmp_path):
    root = _package(tmp_path, {"problem.yaml": "name: X\nvalidation: custom\n",
                               "output_validators/a.py": "", "output_validators/b.py": ""})
    package = read_package(root)
    assert not package.supported and "2 output validators" in package.unsupported[0]
    assert package.problem.checker.validator == "output_validators/a.py"
    built = _package(tmp_path, {"problem.yaml": "name: X\nvalidation: custom\n",
                                "output_validators/v/build": "#!/bin/sh\n",
                                "output_validators/v/run": "#!/bin/sh\n"}, "built")
    package = read_package(built)
    assert any("build/run" in reason for reason in package.unsupported)


def test_interactive_package_without_answer_files_is_read(tmp_path):
    root = _package(tmp_path, {"problem.yaml": "name: X\nvalidation: custom interactive\n",
                               "data/secret/1.ans": None, "output_validators/v.py": ""})
    package = read_package(root)
    assert package.problem.interactive and package.problem.tests[0].expected_output() is None
    assert any("empty answer" in note for note in package.notes)
    assert package.supported  # an interactor needs no answer file


def test_the_default_validator_ignores_a_present_validator_folder(tmp_path):
    root = _package(tmp_path, {"output_validators/v.py": ""})
    package = read_package(root)
    assert package.problem.checker.type == "tokens"
    assert any("validation is default: not used" in note for note in package.notes)


def test_written_problem_files_refer_to_the_package(packages, tmp_path):
    out = tmp_path / "suite"
    for package in packages.values():
        path = write_problem(package, out)
        data = json.loads(path.read_text())
        assert data["kind"] == "program" and data["identifier"] == package.identifier
        loaded = load_program(path)
        original = package.problem
        assert [t.run_input() for t in loaded.tests] == [t.run_input() for t in original.tests]
        assert [t.expected_output() for t in loaded.tests] == \
            [t.expected_output() for t in original.tests]
        assert [loaded.checker_for(t).kattis_flags() for t in loaded.tests] == \
            [original.checker_for(t).kattis_flags() for t in original.tests]
        if original.checker.validator:
            assert loaded.validator_path().resolve() == original.validator_path().resolve()
        # test data is referred to, not copied
        assert not any(p.suffix in (".in", ".ans") for p in out.rglob("*"))
        assert all(not Path(t["stdin_file"]).is_absolute() for t in data["tests"])


def test_names_with_dots_hidden_entries_and_links_outside(tmp_path):
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text("judge only\n")
    root = _package(tmp_path, {"data/secret/case.v2.in": "1\n", "data/secret/case.v2.ans": "1\n",
                               "data/secret/.hidden/x.in": "", ".git/data/y.in": ""})
    package = read_package(root)
    assert [t.name for t in package.problem.tests] == ["secret/1", "secret/case.v2"]
    assert package.problem.tests[1].expected_file == "data/secret/case.v2.ans"
    (root / "data/secret/2.in").symlink_to(secret_file)
    (root / "data/secret/2.ans").write_text("x\n")
    issues = _issues(root)
    assert any("2.in: a symbolic link to outside the package" in issue for issue in issues)


def test_samples_shown_in_prompts_follow_the_overrides(tmp_path):
    root = _package(tmp_path, {"data/sample/1.in": "in\n", "data/sample/1.ans": "ans\n",
                               "data/sample/1.out": "shown\n",
                               "data/sample/2.in": "raw\n", "data/sample/2.ans": "a\n",
                               "data/sample/2.in.statement": "nice\n",
                               "data/sample/3.in": "x" * 5000, "data/sample/3.ans": "y\n"})
    package = read_package(root)
    samples = package.problem.samples
    assert [(s.stdin, s.expected) for s in samples] == [("in\n", "shown\n"), ("nice\n", "a\n")]
    assert any("too long to show" in note for note in package.notes)
    assert sum(t.sample for t in package.problem.tests) == 3  # all three are judged


def test_time_limit_sources_in_order(tmp_path):
    root = _package(tmp_path, {"problem.yaml": ("problem_format_version: 2023-07-draft\n"
                                                "name: X\nlimits:\n  time_limit: 2\n"),
                               ".timelimit": "3\n", "domjudge-problem.ini": "timelimit=2\n"})
    package = read_package(root)
    assert package.problem.limits.time_limit_s == 2.0
    note = next(n for n in package.notes if n.startswith("time limit"))
    assert "problem.yaml limits.time_limit" in note and ".timelimit says 3 s" in note


def test_languages_and_unknown_keys(tmp_path):
    root = _package(tmp_path, {"problem.yaml": ("problem_format_version: 2023-07-draft\n"
                                                "name: X\nlanguages: [python3, cpp]\n"
                                                "scoreboard_color: red\n")})
    package = read_package(root)
    assert package.problem.languages == ["python3", "cpp"]
    assert any("does not use: scoreboard_color" in note for note in package.notes)
    assert read_package(_package(tmp_path, {}, "plain")).problem.languages is None


def test_the_importer_writes_every_supported_package(tmp_path):
    out = tmp_path / "suite"
    seen = []
    report = KattisImporter().import_suite("kattis", DATA, out, seen.append)
    written = {Path(p.file).stem for p in report.written}
    assert written == set(PACKAGES) and sorted(seen) == sorted(written)
    assert [p for p in report.problems if p.file is None] == [] and not report.issues
    summary = report.to_json()
    assert summary["totals"]["problems"] == len(PACKAGES)
    hello = next(p for p in summary["problems"] if p["task_id"] == "hello")
    assert hello["expected"] == 2 and any("from .timelimit" in n for n in hello["notes"])
    assert load_program(out / "different.json").checker.type == "validator"


def test_domjudge_statements_at_the_package_root(tmp_path):
    text = _package(tmp_path, {"problem.txt": "Add the numbers.\n\nInput:\nTwo numbers.\n\n"
                                              "Output\nTheir sum.\n"}, "txt")
    problem = read_package(text).problem
    assert (problem.statement, problem.input_format, problem.output_format) == (
        "Add the numbers.", "Two numbers.", "Their sum.")
    html = _package(tmp_path, {"problem.html": (
        "<html><head><style>p {color: red}</style><script>alert(1)</script></head><body>"
        "<h1>Sum &amp; More</h1><p>Add &lt;two&gt; numbers.</p><h2>Input</h2><p>Two numbers."
        "</p><h2>Output</h2><p>Their sum.</p></body></html>")}, "html")
    problem = read_package(html).problem
    assert problem.name == "Broken"  # problem.yaml's name comes first
    assert "Add <two> numbers." in problem.statement and "alert" not in problem.statement
    assert "color" not in problem.statement and "Sum & More" in problem.statement
    assert (problem.input_format, problem.output_format) == ("Two numbers.", "Their sum.")
    pdf = read_package(_package(tmp_path, {"problem.pdf": "%PDF-1.4"}, "pdf"))
    assert pdf.problem.statement == "" and any("PDF only" in n for n in pdf.notes)
    # a statement folder wins over the root
    both = read_package(_package(tmp_path, {"problem.txt": "root text\n",
                                            "problem_statement/problem.en.tex": "folder text\n"},
                                 "both"))
    assert both.problem.statement == "folder text"


def test_multi_pass_packages_are_read_and_imported(tmp_path):
    root = _package(tmp_path, {"problem.yaml": ("name: Hangman\nvalidation: custom multi-pass\n"
                                                "validator_flags: --secret\n"),
                               "output_validator/validator.py": ""})
    package = read_package(root)
    assert package.types == ["multi-pass"] and package.supported
    assert package.problem.multi_pass and package.problem.validation_passes == 2
    assert package.problem.checker.validator_flags == ["--secret"]
    assert package.problem.checker.validator == "output_validator"  # the folder is the program


def test_a_2023_07_validator_folder_with_a_run_script(tmp_path):
    root = _package(tmp_path, {"problem.yaml": "problem_format_version: 2023-07-draft\nname: X\n",
                               "output_validator/run": "#!/bin/sh\nexit 42\n"})
    package = read_package(root)
    checker = package.problem.checker
    assert (checker.type, checker.validator, checker.validator_language) == \
        ("validator", "output_validator", "script")
    assert not package.supported


def test_input_files_never_lead_to_the_answer_or_outside(tmp_path):
    root = _package(tmp_path, {"data/secret/1.files/notes.txt": "ok\n"})
    assert read_package(root).problem.tests[0].files == "data/secret/1.files"
    (root / "data/secret/1.files/answer").symlink_to(root / "data/secret/1.ans")
    issues = _issues(root)
    assert any("1.files/answer: a test's input files hold its answer" in i for i in issues)
    (root / "data/secret/1.files/answer").unlink()
    (tmp_path / "elsewhere").mkdir()
    (root / "data/secret/1.files/away").symlink_to(tmp_path / "elsewhere")
    assert any("symbolic link to outside the package in a test's input files" in i
               for i in _issues(root))


# ---- the hand-written packages are consistent (their Python submissions, run here) ---------

def _run_python(submission: Path, test, tmp_path: Path) -> bytes:
    work = tmp_path / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    run = test.run_input()
    if run.files is not None:
        shutil.copytree(run.files, work, dirs_exist_ok=True)
    done = subprocess.run([sys.executable, str(submission), *run.args], input=run.stdin,
                          capture_output=True, timeout=30, cwd=work, check=False)
    return done.stdout if done.returncode == 0 else b"<crashed>"


def _passes(package, test, output: bytes, tmp_path: Path) -> bool:
    checker = package.problem.checker_for(test)
    if checker.type != "validator":
        return check_output(test.expected_output(), output, checker) is None
    command = [sys.executable, str(package.problem.validator_path(checker))]
    return _validate(command, package.path, test, output, tmp_path,
                     checker.validator_flags)[0] == 42


def test_python_submissions_get_their_folders_verdict(packages, tmp_path):
    checked = 0
    for package in packages.values():
        if package.problem.interactive:
            continue
        if package.problem.checker.type == "validator" and \
                package.problem.checker.validator_language != "python":
            continue
        for submission in package.submissions:
            if submission.language != "python" or submission.folder not in (
                    "accepted", "wrong_answer"):
                continue
            results = [_passes(package, test, _run_python(submission.path, test, tmp_path),
                               tmp_path) for test in package.problem.tests]
            if submission.folder == "accepted":
                assert all(results), (package.identifier, submission.path.name, results)
            else:
                assert not all(results), (package.identifier, submission.path.name)
            checked += 1
    assert checked >= 12


def test_stray_answers_and_groups_named_like_cases_are_noted(tmp_path):
    root = _package(tmp_path, {"data/secret/3.ans": "3\n", "data/secret/1/2.in": "",
                               "data/secret/1/2.ans": ""})
    package = read_package(root)
    assert sorted(t.name for t in package.problem.tests) == ["secret/1", "secret/1/2"]
    assert any("3.ans: an answer file without its input (3.in), ignored" in n
               for n in package.notes)
    assert any("data/secret/1: a test group has the name of a test case" in n
               for n in package.notes)


def test_a_domjudge_special_compare_outside_the_package_is_unsupported(tmp_path):
    root = _package(tmp_path, {"domjudge-problem.ini": "special_compare = float_cmp\n"})
    package = read_package(root)
    assert not package.supported and "special_compare" in package.unsupported[0]
    inside = _package(tmp_path, {"domjudge-problem.ini": "special_compare = mine\n",
                                 "problem.yaml": "name: X\nvalidation: custom\n",
                                 "output_validators/mine/check.py": ""}, "inside")
    assert read_package(inside).supported


def test_validator_limits(tmp_path):
    root = _package(tmp_path, {"problem.yaml": ("name: X\nlimits:\n  validation_time: 30\n"
                                                "  validation_memory: 1024\n"
                                                "  validation_output: 2\n")})
    limits = read_package(root).problem.validator_limits
    assert (limits.time_limit_s, limits.memory_mb, limits.output_kb) == (30.0, 1024, 2048)
    bad = _package(tmp_path, {"problem.yaml": "name: X\nlimits:\n  validation_time: -1\n"},
                   "bad")
    assert any("limits.validation_time must be a positive number" in i for i in _issues(bad))
    assert read_package(_package(tmp_path, {}, "none")).problem.validator_limits.time_limit_s \
        is None


def _interact(validator: Path, solution: Path, test, feedback: Path) -> int:
    """Run a validator and a solution joined by pipes (validator stdout -> solution stdin,
    solution stdout -> validator stdin); the validator's exit code."""
    feedback.mkdir(exist_ok=True)
    answer = test.answer_path() or test.input_path()
    to_solution_r, to_solution_w = os.pipe()
    to_validator_r, to_validator_w = os.pipe()
    judge = subprocess.Popen([str(validator), str(test.input_path()), str(answer),
                              str(feedback) + "/"], stdin=to_validator_r, stdout=to_solution_w)
    team = subprocess.Popen([sys.executable, str(solution)], stdin=to_solution_r,
                            stdout=to_validator_w, stderr=subprocess.DEVNULL)
    for fd in (to_solution_r, to_solution_w, to_validator_r, to_validator_w):
        os.close(fd)
    try:
        code = judge.wait(timeout=60)
    finally:
        team.kill()
        team.wait()
    return code


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_interactive_package_works_through_pipes(packages, tmp_path):
    package = packages["guess"]
    binary = tmp_path / "validate"
    source = package.problem.validator_path() / "validate.cc"
    subprocess.run(["g++", "-O2", "-o", str(binary), str(source)], check=True, timeout=120)
    subs = {s.path.name: s.path for s in package.submissions}
    for test in package.problem.tests:
        assert _interact(binary, subs["guess.py"], test, tmp_path / "fb") == 42
    codes = [_interact(binary, subs["guess_linear.py"], test, tmp_path / "fb")
             for test in package.problem.tests]
    assert codes[0] == 42 and 43 in codes  # 1 is found at once; 1000 needs 1000 guesses
    assert "more than 10 guesses" in (tmp_path / "fb" / "judgemessage.txt").read_text()
