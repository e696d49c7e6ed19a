"""The MultiPL-E importer on MultiPL-E's real records (tests/data/multipl-e/humaneval-<lang>.jsonl
and mbpp-<lang>.jsonl, copied from MultiPL-E's prompt files): every record of every file is
imported (its name, language, framework, stop tokens, the libraries MultiPL-E's evaluator
gives the language), and a completion runs cut at its first stop token exactly as MultiPL-E's
evaluator cuts it (its ``stop_at_stop_token``), after the prompt as shipped. Nothing runs."""

from __future__ import annotations

import json

import pytest

from judge.importers.test_programs import MultiPLE
from judge.kinds.base import KINDS
from judge.kinds.loader import load_suite
from tests.importers.test_test_program_importers import stop_at_stop_token
from tests.paths import DATA

pytestmark = pytest.mark.pure

HERE = DATA / "multipl-e"
KIND = KINDS.get("test_program")
FILES = sorted(HERE.glob("*-*.jsonl"))
COMPLETIONS = json.loads((HERE / "completions.json").read_text())
#: MultiPL-E's language names -> (the judge's language, the framework that runs the tests)
JUDGED_AS = {"cpp": ("cpp", None), "cs": ("csharp", None), "d": ("d", "d_ut"),
             "go_test.go": ("go", "go_test"), "java": ("java", None), "js": ("js", None),
             "lua": ("lua", None), "php": ("php", None), "pl": ("perl", None),
             "py": ("python", None), "r": ("r", None), "rb": ("ruby", None),
             "rkt": ("racket", None), "rs": ("rust", None), "scala": ("scala", None),
             "sh": ("bash", None), "ts": ("typescript", None)}


class _Candidate:
    def __init__(self, solution: str) -> None:
        self.solution, self.language, self.strict = solution, None, True


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_real_files_are_seventeen_languages_times_two_benchmarks():
    assert len(FILES) == 34
    assert {p.stem.split("-")[0] for p in FILES} == {"humaneval", "mbpp"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_real_record_imports_with_its_name_language_and_stop_tokens(path, tmp_path):
    rows = _rows(path)
    report = MultiPLE().import_suite("multipl-e", path, tmp_path / "out")
    assert report.issues == []
    assert [p.task_id for p in report.problems] == [r["name"] for r in rows]
    suite = {p.identifier: p for p in load_suite(tmp_path / "out").problems}
    for row in rows:
        problem = suite[row["name"]]
        assert (problem.language, problem.framework) == JUDGED_AS[row["language"]]
        assert problem.prompt == row["prompt"] and problem.tests == row["tests"]
        assert problem.stop_tokens == row["stop_tokens"]
        assert problem.tags == ["multipl-e", "transform", "reworded"]
        # MultiPL-E's evaluator puts javatuples on Java's class path: only Java declares it
        assert problem.libraries is (row["language"] == "java")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_completions_are_cut_at_the_first_stop_token_as_multipl_e_cuts_them(path, tmp_path):
    MultiPLE().import_suite("multipl-e", path, tmp_path / "out")
    language = path.stem.split("-", 1)[1]
    for problem in load_suite(tmp_path / "out").problems:
        correct = COMPLETIONS[language][problem.identifier]["correct"]
        # the hand-written completion holds no stop token: a model's would run on past it
        assert stop_at_stop_token(correct, problem.stop_tokens) == correct
        for stop in problem.stop_tokens:
            generated = correct + stop + "this text is past the stop token\n"
            submission = KIND.submission(problem, _Candidate(generated))
            assert submission.code == problem.prompt + stop_at_stop_token(
                generated, problem.stop_tokens) == problem.prompt + correct


def test_libraries_on_a_language_without_any_is_refused_naming_the_field():
    from judge.errors import InputError
    from judge.importers.test_programs import multipl_e

    record = _rows(HERE / "humaneval-cpp.jsonl")[0]
    with pytest.raises(InputError) as caught:
        KIND.load(dict(multipl_e(record), libraries=True), "cpp.json")
    assert str(caught.value) == ("cpp.json: libraries: cpp programs have no third-party "
                                 "libraries here (docs/test-programs.md)")
    java = KIND.load(multipl_e(_rows(HERE / "mbpp-java.jsonl")[0]), "java.json")
    assert java.libraries is True and KIND.data(java)["libraries"] is True
