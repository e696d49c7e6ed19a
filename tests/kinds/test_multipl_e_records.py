"""MultiPL-E's real records (tests/data/multipl-e/humaneval-<lang>.jsonl and
mbpp-<lang>.jsonl: three HumanEval and two MBPP records in each of the seventeen MultiPL-E
languages the judge runs, copied from MultiPL-E's prompt files) judged as MultiPL-E's
evaluator runs them: ``prompt + completion cut at the stop tokens + "\\n" + tests``, imported
through ``judge.importers.test_programs.multipl_e``. A hand-written correct completion passes
and a broken one (a wrong result) is ``wrong_answer`` with the test's own message
(tests/data/multipl-e/completions.json). Java's prompts import ``org.javatuples`` as shipped:
the MultiPL-E importer declares ``libraries`` for them, and a Java record without it is a
compile error naming the package.

The process sandbox judges every record; Docker one record per language (CI time). Each
language's runs are one test, judged two at a time on a sandbox of two slots (the engine is
thread-safe; it has no batch call of its own for test programs: each run is one sandbox job).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from judge.engine.engine import Engine
from judge.engine.verdicts import Verdict
from judge.importers.test_programs import multipl_e
from judge.kinds.base import KINDS
from tests.paths import DATA

HERE = DATA / "multipl-e"
KIND = KINDS.get("test_program")
COMPLETIONS = json.loads((HERE / "completions.json").read_text())


def _records() -> dict[str, dict[str, dict]]:
    found: dict[str, dict[str, dict]] = {}
    for path in sorted(HERE.glob("*-*.jsonl")):
        language = path.stem.split("-", 1)[1]
        for line in path.read_text().splitlines():
            record = json.loads(line)
            found.setdefault(language, {})[record["name"]] = record
    return found


RECORDS = _records()
#: one record per language in Docker (the same problem in each); every record in process
DOCKER_ONE = "HumanEval_85_add"
#: runs at once (the sandbox's slots)
SLOTS = 2


class _Candidate:
    def __init__(self, solution: str) -> None:
        self.solution, self.language, self.strict = solution, None, True


def _open(name: str):
    from judge.languages.sandbox import for_languages
    from judge.sandbox import open_sandbox

    return for_languages(open_sandbox(name, SLOTS), SLOTS)


@pytest.fixture(scope="module")
def process_engine():
    box = _open("process")
    yield Engine(box)
    box.close()


@pytest.fixture(scope="module")
def docker_engine():
    from tests.conftest import docker_or_skip

    docker_or_skip()
    box = _open("docker")
    yield Engine(box)
    box.close()


def _judge(engine, record: dict, completion: str):
    problem = KIND.load(multipl_e(record), "<%s>" % record["name"])
    return KIND.judge(engine, problem, KIND.submission(problem, _Candidate(completion)))


def _check(engine, language: str, names: list[str]) -> None:
    """Every named record of ``language`` with its correct and its broken completion, judged
    ``SLOTS`` at a time."""
    runs = [(name, which) for name in names for which in ("correct", "broken")]
    with ThreadPoolExecutor(SLOTS) as pool:
        results = list(pool.map(lambda run: _judge(engine, RECORDS[language][run[0]],
                                                    COMPLETIONS[language][run[0]][run[1]]), runs))
    for (name, which), result in zip(runs, results):
        if which == "correct":
            assert result.verdict is Verdict.PASS, (language, name, result.verdict,
                                                    result.message)
        else:
            assert result.verdict is Verdict.WRONG_ANSWER, (language, name, result.verdict,
                                                            result.message)
            said = COMPLETIONS[language][name]["broken_says"]
            assert said in result.message, (language, name, result.message)


def test_every_language_has_three_humaneval_and_two_mbpp_records_with_completions():
    assert len(RECORDS) == 17 and "kt" not in RECORDS
    for language, records in RECORDS.items():
        assert sorted(records) == ["HumanEval_2_truncate_number",
                                   "HumanEval_56_correct_bracketing", "HumanEval_85_add",
                                   "mbpp_101_kth_element", "mbpp_103_eulerian_num"], language
        assert sorted(COMPLETIONS[language]) == sorted(records), language


@pytest.mark.parametrize("language", sorted(RECORDS))
def test_every_real_record_passes_the_correct_completion_and_fails_the_broken_one_process(
        process_engine, language):
    _check(process_engine, language, sorted(RECORDS[language]))


@pytest.mark.docker
@pytest.mark.parametrize("language", sorted(RECORDS))
def test_a_real_record_passes_the_correct_completion_and_fails_the_broken_one_docker(
        docker_engine, language):
    _check(docker_engine, language, [DOCKER_ONE])


def test_javas_prompt_as_shipped_needs_the_declared_javatuples(process_engine):
    """MultiPL-E's Java prompt imports org.javatuples: judged with the library it passes (the
    tests above); the same problem without ``libraries`` is a compile error naming it."""
    record = RECORDS["java"]["mbpp_101_kth_element"]
    assert "import org.javatuples.*;\n" in record["prompt"]
    data = multipl_e(record)
    assert data["libraries"] is True
    del data["libraries"]
    problem = KIND.load(data, "<no libraries>")
    result = KIND.judge(process_engine, problem, KIND.submission(
        problem, _Candidate(COMPLETIONS["java"]["mbpp_101_kth_element"]["correct"])))
    assert result.verdict is Verdict.COMPILE_ERROR, (result.verdict, result.message)
    assert "org.javatuples" in result.message
