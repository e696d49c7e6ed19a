"""The per-candidate time budget (issue 9), with hostile candidates, in both sandboxes.

A candidate's CPU time over all its tests is bounded by its budget (and its time not spent on
a CPU by a wall budget), so one that loops, sleeps or fork-bombs on every test of a 100-test
problem costs its budget, not 100 per-test limits. Everything here is shown by *counting*
(how many tests ran, how many were reported "not run"), never by timing the test run.
"""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pytest

from judge.api import Judge
from judge.cli.main import main as cli_main
from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.engine.verdicts import Verdict
from judge.problem.model import function_from_data
from tests.conftest import scaled_int_data
from judge.sandbox.base import Limits

TESTS = 100
PER_TEST_S = 0.2
BUDGET_S = 0.6
LIMITS = Limits(time_limit_s=PER_TEST_S, budget_s=BUDGET_S, memory_mb=256, output_kb=64,
                wall_factor=2.0, wall_extra_s=0.3)
NOT_RUN = "not run: the candidate's time budget"


def _data(tests: int = TESTS, limits: dict | None = None) -> dict:
    return scaled_int_data("budget_double", "double", 2, tests, limits=limits)


def _problem(tests: int = TESTS, limits: dict | None = None):
    return function_from_data(_data(tests, limits), "<budget>")


PROBLEM = _problem()
HONEST = "def double(x):\n    return 2 * x\n"
LOOP = "def double(x):\n    while True:\n        pass\n"
SLEEPER = "import time\ndef double(x):\n    time.sleep(1000)\n    return 2 * x\n"
FORK_BOMB = """
import os
def double(x):
    while True:
        try:
            os.fork()
        except OSError:
            pass
"""
#: slow on one test only: the others still run, within what is left of the budget
SLOW_ON_FIVE = "def double(x):\n    while x == 5:\n        pass\n    return 2 * x\n"
#: each test a little CPU, together more than the budget: the budget runs out on the way
EACH_A_LITTLE = """
def double(x):
    n = 0
    for i in range(300000):
        n += i
    return 2 * x
"""


@pytest.fixture(scope="module", params=["on-failure", "per-test"])
def executor(sandbox_factory, request):
    sandbox = sandbox_factory(LIMITS)
    try:
        yield Executor(sandbox, LIMITS, reference_timing=False, test_isolation=request.param)
    finally:
        sandbox.close()


def _judge(executor: Executor, code: str, problem=PROBLEM):
    return executor.judge(problem, Submission(textwrap.dedent(code), "double"))


def _ran(result) -> list:
    """Tests that ran (everything not reported as left out by the budget)."""
    return [t for t in result.tests if not (t.message or "").startswith(NOT_RUN)]


def _most_that_can_run(per_test_s: float, budget_s: float) -> int:
    """Tests that can start before a budget runs out when each one takes its whole limit."""
    return math.ceil(budget_s / per_test_s) + 1


def test_candidate_looping_on_every_test_costs_its_budget(executor):
    result = _judge(executor, LOOP)
    assert result.verdict is Verdict.TIMEOUT
    assert (result.passed, result.total) == (0, TESTS)
    ran = _ran(result)
    assert len(ran) <= _most_that_can_run(PER_TEST_S, BUDGET_S), [t.message for t in ran]
    assert all(t.verdict is Verdict.TIMEOUT for t in result.tests)
    assert TESTS - len(ran) >= TESTS - _most_that_can_run(PER_TEST_S, BUDGET_S)


def test_fork_bomb_on_every_test_is_charged_to_the_budget(executor):
    """Every process of the bomb counts: the CPU charged over all tests stays within the
    budget (plus what the checks between two polls let through), whatever stops each test
    (its memory, its processes or its time)."""
    result = _judge(executor, FORK_BOMB)
    assert result.verdict in (Verdict.TIMEOUT, Verdict.MEMORY_LIMIT, Verdict.RUNTIME_ERROR)
    assert result.passed == 0
    charged = sum(t.time_s for t in result.tests)
    assert charged <= BUDGET_S + PER_TEST_S, [(t.verdict, t.time_s) for t in _ran(result)]


def test_sleeper_on_every_test_costs_its_wall_budget(executor):
    result = _judge(executor, SLEEPER)
    assert result.verdict is Verdict.TIMEOUT
    assert result.passed == 0
    wall_budget = LIMITS.wall_limit(BUDGET_S)
    per_test_wall = LIMITS.wall_limit(PER_TEST_S)
    assert len(_ran(result)) <= _most_that_can_run(per_test_wall, wall_budget)


def test_timeout_on_one_test_leaves_the_others_their_remaining_budget(executor):
    # room for the 99 others: each child's CPU (its start and load included) is charged
    result = _judge(executor, SLOW_ON_FIVE, _problem(limits={"budget_s": 2.0}))
    assert result.verdict is Verdict.TIMEOUT
    assert result.tests[5].verdict is Verdict.TIMEOUT
    assert (result.passed, result.total) == (TESTS - 1, TESTS), (  # honest: 99 really passed
        result.isolation,
        [(t.index, t.verdict.value, t.time_s, t.message) for t in result.tests
         if t.verdict is not Verdict.PASS][:4])


def test_budget_running_out_on_the_way_stops_the_rest(executor):
    problem = _problem(limits={"budget_s": 0.05})
    result = _judge(executor, EACH_A_LITTLE, problem)
    assert result.verdict is Verdict.TIMEOUT
    left_out = [t for t in result.tests if (t.message or "").startswith(NOT_RUN)]
    assert left_out, "the budget never ran out"
    assert result.passed + len(left_out) <= TESTS  # a test not run is not passed
    assert "0.05s of CPU" in left_out[0].message


def test_honest_candidate_is_not_touched_by_the_budget(executor):
    result = _judge(executor, HONEST)
    assert result.verdict is Verdict.PASS
    assert (result.passed, result.total) == (TESTS, TESTS)


def test_budget_holds_with_two_workers_busy(sandbox_factory):
    """Under load: two workers judging hostile candidates at once, each within its budget."""
    sandbox = sandbox_factory(LIMITS)
    sandbox.close()
    kind = "docker" if "Docker" in type(sandbox).__name__ else "process"
    items = [(PROBLEM, code) for code in (LOOP, SLEEPER, LOOP, HONEST, FORK_BOMB, LOOP)]
    with Judge(kind, jobs=2, limits=LIMITS, reference_timing=False) as judge:
        results = list(judge.judge_many(items))
    for (problem, code), result in zip(items, results):
        if code == HONEST:
            assert result.verdict is Verdict.PASS
            continue
        assert result.passed == 0
        if code == FORK_BOMB:
            assert sum(t.time_s for t in result.tests) <= BUDGET_S + PER_TEST_S
            continue
        assert result.verdict is Verdict.TIMEOUT
        per_test, budget = (LIMITS.wall_limit(PER_TEST_S), LIMITS.wall_limit(BUDGET_S)) \
            if code == SLEEPER else (PER_TEST_S, BUDGET_S)
        assert len(_ran(result)) <= _most_that_can_run(per_test, budget)


# ---- the policy's numbers and where they are set ------------------------------------------

def test_default_budget_is_a_few_times_the_tests_and_capped():
    limits = Limits()
    assert limits.budget([1.0, 1.0]) == 2 * limits.budget_factor
    assert limits.budget([1.0] * 100) == limits.budget_cap_s
    assert limits.budget([20.0]) == 20.0  # never less than one test's own limit
    assert Limits(budget_s=1.5).budget([1.0] * 100) == 1.5


def test_problem_budget_overrides_the_run(executor):
    problem = _problem(tests=10, limits={"budget_s": 0.25})
    result = _judge(executor, LOOP, problem)
    assert any(NOT_RUN in (t.message or "") and "0.25s" in t.message for t in result.tests)


def test_judge_kwarg_and_cli_flag_set_the_budget(tmp_path: Path, capsys):
    with Judge("process", budget_s=2.5, reference_timing=False) as judge:
        assert judge.limits.budget_s == 2.5
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(_data()))
    solutions = tmp_path / "solutions.jsonl"
    solutions.write_text(json.dumps({"problem_id": "budget_double", "solution": LOOP}) + "\n")
    output = tmp_path / "out.jsonl"
    code = cli_main(["run", str(suite), "--solutions", str(solutions), "--sandbox", "process",
                     "--jobs", "1", "--time-limit", "0.2", "--no-reference-timing",
                     "--budget", "0.3", "--output", str(output)])
    assert code == 0
    line = json.loads(output.read_text().splitlines()[0])
    assert line["verdict"] == "timeout" and line["passed"] == 0
    assert any("0.3s of CPU" in (t.get("message") or "") for t in line["tests"])


def test_cli_rejects_a_budget_that_is_not_positive(capsys):
    with pytest.raises(SystemExit) as stopped:
        cli_main(["run", "problems", "--solutions", "optimal", "--budget", "0"])
    assert stopped.value.code == 2
    assert "positive" in capsys.readouterr().err


def test_imported_humaneval_problem_carries_the_benchmarks_three_seconds(tmp_path: Path):
    from judge.importers import import_suite

    record = {"task_id": "HumanEval/x", "entry_point": "inc",
              "prompt": "def inc(x: int) -> int:\n    \"\"\"Add one.\"\"\"\n",
              "canonical_solution": "    return x + 1\n",
              "test": "def check(candidate):\n    assert candidate(1) == 2\n"}
    source = tmp_path / "he.jsonl"
    source.write_text(json.dumps(record) + "\n")
    import_suite("humaneval", source, tmp_path / "suite")
    data = json.loads(next((tmp_path / "suite").rglob("*.json")).read_text())
    assert data["limits"] == {"time_limit_s": 3.0, "budget_s": 3.0}


#: passes its first test, then loops forever: in a batch, the loop is found at test 1
LOOP_FROM_SECOND = "def double(x):\n    while x > 0:\n        pass\n    return 0\n"


def test_loop_found_in_a_batch_is_not_paid_for_twice(sandbox_factory):
    """The batch's CPU up to its first failing test is charged, so a candidate that loops
    from its second test on costs its budget once: the looping test is not run again alone."""
    sandbox = sandbox_factory(LIMITS)
    try:
        executor = Executor(sandbox, Limits(time_limit_s=BUDGET_S, budget_s=BUDGET_S,
                                            memory_mb=256), reference_timing=False)
        result = _judge(executor, LOOP_FROM_SECOND)
    finally:
        sandbox.close()
    assert result.tests[0].verdict is Verdict.PASS
    assert result.tests[1].message.startswith("not run alone: the candidate's time budget")
    assert all((t.message or "").startswith(NOT_RUN) for t in result.tests[2:])
    assert (result.verdict, result.passed) == (Verdict.TIMEOUT, 1)
    assert result.isolation == "batch"


def test_sleeper_is_stopped_by_the_wall_budget_not_its_tests_longer_wall_limit(sandbox_factory):
    """HumanEval's shape: the per-test limit equals the budget, so a test's own wall-clock
    limit (2 x 0.6 + 0.3 = 1.5 s) is longer than the candidate's wall budget (0.6 s beyond the
    0.3 s slack). A sleeper is stopped by the budget, in the batch as in a child of its own:
    the verdict names the budget (the limit that fired), and nothing else runs."""
    limits = Limits(time_limit_s=0.6, budget_s=0.6, memory_mb=256, wall_factor=2.0,
                    wall_extra_s=0.3)
    sandbox = sandbox_factory(limits)
    try:
        for isolation in ("on-failure", "per-test"):
            executor = Executor(sandbox, limits, reference_timing=False,
                                test_isolation=isolation)
            result = _judge(executor, SLEEPER, _problem(tests=5))
            assert result.verdict is Verdict.TIMEOUT
            assert result.tests[0].message.startswith(
                "exceeded the candidate's wall-clock budget (0.6s computing or blocked"), \
                (isolation, result.tests[0].message)
            assert all(t.message.startswith(NOT_RUN) for t in result.tests[1:]), \
                (isolation, [t.message for t in result.tests])
    finally:
        sandbox.close()
