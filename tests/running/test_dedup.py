"""Identical candidates are judged once per run (``dedup``, the default of ``judge run``,
``Judge.run`` and ``Judge.judge_many``).

A duplicate is a candidate with the same code, function name, language, problem and limits
as an earlier one of the same run: it gets that one's result under its own identity (model,
sample, line, key) and says ``duplicate_of``. These tests count the candidates that reach the
real executor (a counting subclass: the sandbox and the worker are the real ones), so they
show that a duplicate of a looping candidate costs nothing, not that it is fast.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from judge.api import Judge
from judge.candidates.extract import Candidate
from judge.running.batch import BatchRunner
from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.engine import verdicts
from judge.engine.verdicts import CandidateResult, Verdict
from tests.conftest import scaled_int_problem
from judge.sandbox.base import Limits
from tests.paths import ROOT

LIMITS = Limits(time_limit_s=0.5, memory_mb=256, output_kb=64, budget_s=1.0)


def _problem(tests: int = 20, identifier: str = "triple") -> Any:
    return scaled_int_problem(identifier, "triple", 3, tests, generic_prompt=True)


PROBLEM = _problem()
RIGHT = "def triple(x):\n    return 3 * x\n"
WRONG = "def triple(x):\n    return x + x\n"
LOOPS = "def triple(x):\n    while True:\n        pass\n"
CRASHES = "def triple(x):\n    return [][x]\n"
GENERIC_RIGHT = "def func(x):\n    return 3 * x\n"


class CountingExecutor(Executor):
    """The real executor, counting the candidates it judges."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.codes: list[str] = []
        self._count_lock = threading.Lock()

    def judge(self, problem: Any, submission: Submission, **meta: Any) -> CandidateResult:
        with self._count_lock:
            self.codes.append(submission.code)
        return super().judge(problem, submission, **meta)


@pytest.fixture(scope="module")
def sandbox(sandbox_factory):
    box = sandbox_factory(LIMITS)
    try:
        yield box
    finally:
        box.close()


def _run(sandbox: Any, candidates: list[Candidate], dedup: bool = True, problem: Any = PROBLEM,
         jobs: int = 1) -> tuple[list[dict[str, Any]], CountingExecutor]:
    executor = CountingExecutor(sandbox, LIMITS, reference_timing=False)
    runner = BatchRunner(executor, jobs, dedup=dedup)
    outcome = runner.run([(problem, c, None) for c in candidates])
    assert not outcome.issues, outcome.issues
    return outcome.results, executor


def _candidates(codes: list[str], prompt_id: str | None = None) -> list[Candidate]:
    return [Candidate(PROBLEM.identifier, code, model="m%d" % (i % 2), prompt_id=prompt_id,
                      sample=i, line=i + 1) for i, code in enumerate(codes)]


def test_identical_candidates_are_judged_once_and_keep_their_own_identity(sandbox):
    rows, executor = _run(sandbox, _candidates([RIGHT, WRONG, RIGHT, RIGHT, WRONG]))
    assert sorted(executor.codes) == sorted([RIGHT, WRONG])
    assert [r["verdict"] for r in rows] == ["pass", "wrong_answer", "pass", "pass",
                                            "wrong_answer"]
    assert [r.get("duplicate_of") for r in rows] == [None, None, 1, 1, 2]
    assert [r["sample"] for r in rows] == [0, 1, 2, 3, 4]
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 5]
    assert [r["model"] for r in rows] == ["m0", "m1", "m0", "m1", "m0"]
    assert len({r["key"] for r in rows}) == 5  # each line is still its own candidate
    for leader, duplicate in ((rows[0], rows[2]), (rows[1], rows[4])):
        assert duplicate["tests"] == leader["tests"]
        assert (duplicate["passed"], duplicate["total"]) == (leader["passed"], leader["total"])
        assert duplicate["judged_with"] == leader["judged_with"]


def test_a_looping_candidate_repeated_costs_one_budget(sandbox):
    """Five identical loopers on a 20-test problem: one reaches the executor and spends its
    budget; the others take its verdict."""
    rows, executor = _run(sandbox, _candidates([LOOPS] * 5))
    assert executor.codes == [LOOPS]
    assert [r["verdict"] for r in rows] == ["timeout"] * 5
    assert all(r["passed"] == 0 and r["total"] == 20 for r in rows)
    assert [r.get("duplicate_of") for r in rows] == [None, 1, 1, 1, 1]


def test_hostile_duplicates_get_the_leaders_verdict_with_both_workers_busy(sandbox_factory):
    box = sandbox_factory(LIMITS)
    try:
        codes = [CRASHES, LOOPS, RIGHT, CRASHES, WRONG, LOOPS, RIGHT, CRASHES]
        rows, executor = _run(box, _candidates(codes), jobs=2)
    finally:
        box.close()
    assert sorted(executor.codes) == sorted({CRASHES, LOOPS, RIGHT, WRONG})
    assert [r["verdict"] for r in rows] == ["runtime_error", "timeout", "pass", "runtime_error",
                                            "wrong_answer", "timeout", "pass", "runtime_error"]
    assert [r.get("duplicate_of") for r in rows] == [None, None, None, 1, None, 2, 3, 1]


def test_without_dedup_every_candidate_runs(sandbox):
    rows, executor = _run(sandbox, _candidates([RIGHT, RIGHT, WRONG, WRONG]), dedup=False)
    assert executor.codes == [RIGHT, RIGHT, WRONG, WRONG]
    assert not any("duplicate_of" in r for r in rows)
    assert [r["verdict"] for r in rows] == ["pass", "pass", "wrong_answer", "wrong_answer"]


def test_what_differs_is_judged_apart(sandbox):
    """Code differing only in a comment, another function name (a genericized prompt), another
    problem: each is run."""
    other = _problem(identifier="triple_too")
    candidates = _candidates([RIGHT, RIGHT + "# done\n"])
    candidates.append(Candidate(PROBLEM.identifier, GENERIC_RIGHT, prompt_id="generic", line=3))
    candidates.append(Candidate(PROBLEM.identifier, GENERIC_RIGHT, prompt_id="generic", line=4))
    executor = CountingExecutor(sandbox, LIMITS, reference_timing=False)
    items = [(PROBLEM, c, None) for c in candidates]
    items.append((other, Candidate(other.identifier, RIGHT, line=5), None))
    rows = BatchRunner(executor, 1).run(items).results
    assert sorted(executor.codes) == sorted([RIGHT, RIGHT + "# done\n", GENERIC_RIGHT, RIGHT])
    assert [r.get("duplicate_of") for r in rows] == [None, None, None, 3, None]
    assert all(r["verdict"] == "pass" for r in rows)


def test_different_replies_with_the_same_code_keep_their_own_extraction_note(sandbox):
    fenced = "Two tries:\n```python\nprint(1)\n```\nthen\n```python\n%s```\n" % RIGHT
    rows, executor = _run(sandbox, _candidates([RIGHT, fenced]))
    assert executor.codes == [RIGHT]
    assert rows[1]["duplicate_of"] == 1
    assert "note" not in rows[0] and rows[1].get("note"), rows[1]


class FailsFirst(CountingExecutor):
    """The real executor, but its first candidate comes back as our own failure (as when a
    worker dies under it): a stand-in for an infrastructure fault, which is what this tests."""

    def judge(self, problem: Any, submission: Submission, **meta: Any) -> CandidateResult:
        with self._count_lock:
            self.codes.append(submission.code)
            first = len(self.codes) == 1
        if first:
            tests = [verdicts.TestResult(i, Verdict.SANDBOX_ERROR, 0.0, "worker died")
                     for i in range(len(problem.tests))]
            return CandidateResult(problem.identifier, Verdict.SANDBOX_ERROR, tests, "test",
                                   0.0, message="worker died", **meta)
        return Executor.judge(self, problem, submission, **meta)


def test_a_sandbox_error_is_never_passed_on_to_duplicates(sandbox):
    executor = FailsFirst(sandbox, LIMITS, reference_timing=False)
    rows = BatchRunner(executor, 1).run(
        [(PROBLEM, c, None) for c in _candidates([RIGHT, RIGHT, RIGHT])]).results
    assert executor.codes == [RIGHT, RIGHT]  # the first failed; the second ran; the third took it
    assert [r["verdict"] for r in rows] == ["sandbox_error", "pass", "pass"]
    assert [r.get("duplicate_of") for r in rows] == [None, None, 2]


def test_judge_many_dedups_and_can_be_told_not_to():
    items = [(PROBLEM, RIGHT, {"sample": i}) for i in range(4)]
    with Judge("process", 2, limits=LIMITS, reference_timing=False) as judge:
        rows = [r.to_dict() for r in judge.judge_many(items)]
    # no line numbers here: a duplicate names its leader by key
    assert [r.get("duplicate_of") for r in rows] == [None] + [rows[0]["key"]] * 3
    assert len({r["key"] for r in rows}) == 4
    with Judge("process", 2, limits=LIMITS, reference_timing=False, dedup=False) as judge:
        rows = [r.to_dict() for r in judge.judge_many(items)]
    assert not any("duplicate_of" in r for r in rows)
    assert all(r["verdict"] == "pass" for r in rows)


def test_cli_run_marks_duplicates_and_no_dedup_runs_each(tmp_path):
    solutions = tmp_path / "solutions.jsonl"
    code = Path(ROOT / "problems" / "basics").glob("*.json")
    problem_file = sorted(code)[0]
    problem_id = json.loads(problem_file.read_text())["identifier"]
    optimal = json.loads(problem_file.read_text())["optimal_solution"]
    lines = [{"problem_id": problem_id, "solution": optimal, "sample": i} for i in range(3)]
    lines.append({"problem_id": problem_id, "solution": "def nothing(:\n", "sample": 3})
    lines.append({"problem_id": problem_id, "solution": "def nothing(:\n", "sample": 4})
    solutions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for flags, expected in (([], [None, 1, 1, None, 4]), (["--no-dedup"], [None] * 5)):
        output = tmp_path / ("out%d.jsonl" % len(flags))
        done = subprocess.run([sys.executable, "-m", "judge", "run", "problems/basics",
                               "--solutions", str(solutions), "--output", str(output),
                               "--sandbox", "process", *flags],
                              cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        rows = [json.loads(line) for line in output.read_text().splitlines()]
        assert [r.get("duplicate_of") for r in rows] == expected
        assert [r["verdict"] for r in rows] == ["pass"] * 3 + ["compile_error"] * 2
        assert [r["sample"] for r in rows] == [0, 1, 2, 3, 4]
