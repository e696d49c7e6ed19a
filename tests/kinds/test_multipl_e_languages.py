"""MultiPL-E's test programs in every language it ships that the judge runs (Go's is
tests/kinds/test_test_program.py's, with HumanEval-X's canonical solutions), from
tests/data/multipl-e/: in
both sandboxes, a correct completion passes, a broken one (a wrong return) fails with the
test's own message, a hostile one (exits 0 before the tests finish) does not pass, and a
completion that prints a forged success line and exits does not pass either. Each is judged
as MultiPL-E's evaluator runs it: ``prompt + completion cut at the stop tokens + "\\n" +
tests``, imported through ``judge.importers.test_programs.multipl_e`` (Java's prompt as shipped,
``import org.javatuples.*`` included: the importer declares the library). The correct and broken
completions of the languages with real MultiPL-E records are tests/kinds/test_multipl_e_records.py's;
here only Kotlin's (no real record of MultiPL-E's current Kotlin form is at hand).
"""

from __future__ import annotations

import json

import pytest

from judge.engine.engine import Engine
from judge.engine.verdicts import Verdict
from judge.importers.test_programs import multipl_e
from judge.kinds.base import KINDS
from tests.paths import DATA

CASES = json.loads((DATA / "multipl-e" / "humaneval_0.json").read_text())
SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
KIND = KINDS.get("test_program")

#: a line as the judge's own guard prints it, but not this run's (the nonce is fresh per run)
FORGED = "JUDGE-TESTS-DONE 0123456789abcdef01234567"
#: per language: print the forged line and "ok"-looking output, then exit 0 (inside the body)
FORGE = {
    "cs": '        System.Console.WriteLine("\\n%s\\nOK (2 tests)"); System.Environment.Exit(0); '
          'return false;\n',
    "d": '    import core.stdc.stdio : printf; import core.stdc.stdlib : exit; '
         'printf("\\n%s\\n1 modules passed unittests\\n"); exit(0); return false;\n}',
    "kt": '    println("\\n%s"); kotlin.system.exitProcess(0)\n',
    "lua": '    io.write("\\n%s\\nOK\\n") os.exit(0)\nend',
    "php": '    echo "\\n%s\\n"; exit(0);\n}',
    "pl": '    print "\\n%s\\n"; exit 0;\n}',
    "r": '  cat("\\n%s\\n"); quit("no", 0)\n}',
    "rb": '  $stdout.write("\\n%s\\n100%% passed\\n"); $stdout.flush; exit!(0)\nend',
    "rkt": '  (display "\\n%s\\n") (exit 0))\n',
    "scala": '        println("\\n%s"); System.exit(0); false\n',
    "sh": '    printf "\\n%s\\n"; exit 0\n',
    "ts": '  process.stdout.write("\\n%s\\n"); process.exit(0);\n}',
    "js": '  process.stdout.write("\\n%s\\n"); process.exit(0);\n}',
    "py": '    import os; os.write(1, b"\\n%s\\n"); os._exit(0)\n',
    "cpp": '    printf("\\n%s\\n"); fflush(stdout); exit(0);\n',
    "java": '        System.out.println("\\n%s"); System.exit(0); return false;\n',
    "rs": '    println!("\\n%s"); std::process::exit(0)\n',
}


class _Candidate:
    def __init__(self, solution: str) -> None:
        self.solution, self.language, self.strict = solution, None, True


@pytest.fixture(scope="module", params=SANDBOXES)
def engine(request):
    from judge.languages.sandbox import for_languages
    from judge.sandbox import open_sandbox

    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    box = for_languages(open_sandbox(request.param, 1), 1)
    yield Engine(box)
    box.close()


#: the languages whose correct and broken completions are judged here: those without real
#: MultiPL-E records in tests/data/multipl-e/ (tests/kinds/test_multipl_e_records.py)
REAL = {path.stem.split("-", 1)[1] for path in (DATA / "multipl-e").glob("humaneval-*.jsonl")}
HAND_ONLY = sorted(set(CASES) - REAL)


def _judge(engine, language: str, completion: str):
    problem = KIND.load(multipl_e(dict(CASES[language]["record"])), "<%s>" % language)
    return KIND.judge(engine, problem, KIND.submission(problem, _Candidate(completion)))


def test_javas_prompt_is_judged_as_shipped():
    assert "import org.javatuples.*;\n" in CASES["java"]["record"]["prompt"]
    assert multipl_e(CASES["java"]["record"])["libraries"] is True


def test_every_language_has_its_cases():
    assert sorted(CASES) == sorted(FORGE)
    for language, case in CASES.items():
        assert case["record"]["language"] == language


def test_the_hand_written_records_are_only_kotlins_beside_the_real_ones():
    assert HAND_ONLY == ["kt"]


@pytest.mark.parametrize("language", HAND_ONLY)
def test_a_correct_completion_passes(engine, language):
    result = _judge(engine, language, CASES[language]["correct"])
    assert result.verdict is Verdict.PASS, (result.verdict, result.message)


@pytest.mark.parametrize("language", HAND_ONLY)
def test_a_broken_completion_fails_with_the_tests_message(engine, language):
    result = _judge(engine, language, CASES[language]["broken"])
    assert result.verdict is Verdict.WRONG_ANSWER, (result.verdict, result.message)
    assert CASES[language]["broken_says"] in result.message, result.message


@pytest.mark.parametrize("language", sorted(CASES))
def test_an_early_exit_does_not_pass(engine, language):
    result = _judge(engine, language, CASES[language]["hostile"])
    assert result.verdict is not Verdict.PASS, result.message
    assert result.verdict is Verdict.WRONG_ANSWER, (result.verdict, result.message)


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_forged_success_line_does_not_pass(engine, language):
    result = _judge(engine, language, FORGE[language] % FORGED)
    assert result.verdict is Verdict.WRONG_ANSWER, (result.verdict, result.message)



def _assert_tested(engine, language: str, tests: str) -> None:
    """HumanEval_0 in ``language`` with ``tests`` in place of its own: the broken completion
    fails with an AssertionError, the correct one passes."""
    record = dict(CASES[language]["record"], tests=tests)
    problem = KIND.load(multipl_e(record), "<%s assert>" % language)
    for completion, verdict in (("broken", Verdict.WRONG_ANSWER), ("correct", Verdict.PASS)):
        result = KIND.judge(engine, problem, KIND.submission(
            problem, _Candidate(CASES[language][completion])))
        assert result.verdict is verdict, (completion, result.verdict, result.message)
        if completion == "broken":
            assert "AssertionError" in result.message, result.message


def test_kotlins_assert_checks_as_multipl_e_runs_it(engine):
    """MultiPL-E's early Kotlin prompts test with ``assert(...)``, a no-op unless the JVM
    runs with ``-ea`` (as MultiPL-E's evaluator runs it, and the judge runs test programs)."""
    _assert_tested(engine, "kt", (
        "}\n\nfun main() {\n    var candidate = ::hasCloseElements\n"
        "    assert(candidate(mutableListOf(1.0, 2.0, 3.9, 4.0, 5.0, 2.2), 0.3) == true)\n"
        "    assert(candidate(mutableListOf(1.0, 2.0, 3.9, 4.0, 5.0, 2.2), 0.05) == false)\n}\n"))


def test_phps_assert_checks_in_a_test_program(engine):
    """A PHP test program that tests with ``assert()`` (HumanEval-X's and hand-written
    suites' style): Debian's php.ini compiles assertions out, the judge turns them on for
    test programs."""
    _assert_tested(engine, "php", (
        "function candidate(...$args) {\n    return has_close_elements(...$args);\n}\n\n"
        "assert(candidate(array(1.0, 2.0, 3.9, 4.0, 5.0, 2.2), 0.3) === true);\n"
        "assert(candidate(array(1.0, 2.0, 3.9, 4.0, 5.0, 2.2), 0.05) === false);\n"))
