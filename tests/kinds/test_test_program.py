"""The test_program kind in both sandboxes: HumanEval-X's canonical solutions pass with its own
tests in its languages, broken ones fail with the test's message, MultiPL-E's Go record runs
under ``go test``, and hostile candidates (early exit, a forged marker-less summary, assert
overridden, a loop, a flood, a fork bomb) fail."""

from __future__ import annotations

import json

import pytest

from judge.engine.engine import Engine
from judge.engine.verdicts import Verdict
from judge.importers.test_programs import humaneval_x, multipl_e
from judge.kinds.base import KINDS
from tests.paths import DATA

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
KIND = KINDS.get("test_program")
RECORDS = [json.loads(line) for line in
           (DATA / "test_programs" / "humaneval_x_sample.jsonl").read_text().splitlines()]
FIRST = {r["task_id"].split("/")[0].lower().replace("javascript", "js"): r for r in RECORDS if r["task_id"].endswith("/0")}


class _Candidate:
    def __init__(self, solution: str, language: str | None = None) -> None:
        self.solution, self.language, self.strict = solution, language, False


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


def _judge(engine, record_or_problem, completion):
    problem = record_or_problem if hasattr(record_or_problem, "tests") else \
        KIND.load(humaneval_x(record_or_problem), "<test>")
    return KIND.judge(engine, problem, KIND.submission(problem, _Candidate(completion)))


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["task_id"])
def test_humaneval_x_canonical_solutions_pass_with_their_own_tests(engine, record):
    result = _judge(engine, record, record["canonical_solution"])
    assert result.verdict is Verdict.PASS, result.message


BROKEN = {"python": ("    return not any(True for _ in [])\n", "AssertionError"),
          "cpp": ("    return false;\n}\n", "Assertion"),
          "java": ("        return false;\n    }\n}\n", "AssertionError"),
          "js": ("  return false\n}\n", "Assertion failed"),
          "go": ("    return false\n}\n", "Not equal"),
          "rust": ("    return false;\n}\n", "test_has_close_elements")}


@pytest.mark.parametrize("language", sorted(BROKEN))
def test_a_broken_solution_fails_with_the_tests_message(engine, language):
    body, said = BROKEN[language]
    result = _judge(engine, FIRST[language], body)
    assert result.verdict is Verdict.WRONG_ANSWER, (result.verdict, result.message)
    assert said in result.message


def test_multipl_e_go_record_runs_under_go_test(engine):
    record = json.loads((DATA / "test_programs" / "multipl_e_sample.jsonl").read_text())
    as_stored = KIND.load(multipl_e(record), "<test>")
    result = KIND.judge(engine, as_stored, KIND.submission(as_stored, _Candidate("return 1\n}\n")))
    # this commit's file has doc lines without "//": the prompt itself does not compile
    assert result.verdict is Verdict.COMPILE_ERROR and "expected declaration" in result.message
    head, _, rest = record["prompt"].partition("// ")
    doc, _, func = rest.rpartition("\nfunc ")
    record = dict(record, prompt=head + "\n".join(
        line if line.startswith("//") else "// " + line for line in ("// " + doc).splitlines())
        + "\nfunc " + func)
    problem = KIND.load(multipl_e(record), "<test>")
    good = ("    for i := range numbers {\n        for j := i + 1; j < len(numbers); j++ {\n"
            "            d := numbers[i] - numbers[j]\n            if d < 0 { d = -d }\n"
            "            if d < threshold { return true }\n        }\n    }\n    return false\n}\n"
            "\nfunc unused() {}\n")  # cut at the stop token "\nfunc"
    result = KIND.judge(engine, problem, KIND.submission(problem, _Candidate(good)))
    assert result.verdict is Verdict.PASS, result.message
    assert any(t["passed"] for t in result.extra["test_results"])
    bad = "    return true\n}\n"
    result = KIND.judge(engine, problem, KIND.submission(problem, _Candidate(bad)))
    assert result.verdict is Verdict.WRONG_ANSWER and "expected" in result.message


HOSTILE = {
    "early exit": ("python", "    import sys; sys.exit(0)\n"),
    "os._exit": ("python", "    import os; os._exit(0)\n"),
    "fake summary": ("python", "    print('OK: 7 tests passed'); import os; os._exit(0)\n"),
    "loop": ("python", "    while True: pass\n"),
    "flood": ("python", "    import sys\n    while True: sys.stdout.write('x' * 65536)\n"),
    "fork bomb": ("python", "    import os\n    while True:\n        try: os.fork()\n"
                            "        except OSError: pass\n"),
    "c++ exit": ("cpp", "    exit(0);\n}\n"),
    "c++ assert off": ("cpp", "    return true;\n}\n#define assert(x) ((void)0)\n"
                              "bool judge_dummy(){return false;\n}\n"),
    "java exit": ("java", "        System.exit(0); return true;\n    }\n}\n"),
    "js exit": ("js", "  process.exit(0)\n}\n"),
    "go exit": ("go", "    os.Exit(0); return true\n}\n"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_candidates_fail(engine, name):
    language, body = HOSTILE[name]
    record = FIRST[language]
    if language == "go":
        problem = KIND.load(dict(humaneval_x(record), imports_if_used=["os"]), "<test>")
        result = _judge(engine, problem, body)
    else:
        result = _judge(engine, record, body)
    assert result.verdict is not Verdict.PASS and result.verdict is not Verdict.SANDBOX_ERROR, \
        (result.verdict, result.message)
    if name in ("early exit", "os._exit", "fake summary", "c++ exit", "java exit", "js exit",
                "go exit"):
        assert "did not finish" in result.message
