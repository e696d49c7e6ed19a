"""Limits from problem files, contest packages and datasets are input (issue 36, defect 6):
every number is finite, positive and within the judge's documented ceilings where it enters
(judge.problem.limits), and the run's own limits are the most a problem may ask for unless
the operator says otherwise (``--max-problem-*``). Before: NaN or infinite values gave import
tracebacks, a time limit of 1e9 made ``judge run`` and the rewards die (OverflowError, JSON
NaN) even for a correct reply, ``memory: 1e12`` let a candidate use 2.5 GB under
``--memory-mb 256`` and ``time_multiplier: 1e9`` measured a 5e7 s limit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from judge import languages
from judge.api import make_limits
from judge.errors import InputError
from judge.kinds.function.judge import problem_limits
from judge.kinds.program.judge import program_limits
from judge.importers import IMPORTERS
from judge.problem.limits import MAX_MEMORY_MB, MAX_TIME_LIMIT_S
from judge.problem.model import function_from_data
from judge.problem.program import ProgramLimits, TimeRule, program_from_data
from judge.sandbox.base import Limits
from tests.importers.test_kattis_reader import _issues
from tests.importers.test_kattis_reader import _package as kattis_package

JUDGE = str(Path(sys.executable).with_name("judge"))
HOSTILE_NUMBERS = [".nan", ".inf", "-.inf", "1e999", "1e9", "0", "-1", "1" + "0" * 400]


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    return kattis_package(tmp_path, files, name="limits")


# ---- where numbers enter: the models ------------------------------------------------------

@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 1e9, 0, -1.0,
                                   10 ** 400])
@pytest.mark.parametrize("name", ["time_limit_s", "memory_mb", "output_kb"])
def test_program_limits_refuse_non_finite_and_past_the_ceiling(name, value):
    with pytest.raises(ValidationError):
        ProgramLimits(**{name: value})


def test_problem_files_get_located_errors_not_tracebacks(tmp_path):
    data = {"kind": "program", "identifier": "p", "statement": "x",
            "tests": [{"name": "1", "stdin": "1\n", "expected": "1\n"}],
            "limits": {"time_limit_s": 1e9, "memory_mb": 10 ** 12}}
    with pytest.raises(InputError) as caught:
        program_from_data(data, str(tmp_path / "p.json"), tmp_path)
    text = "\n".join(str(i) for i in caught.value.issues)
    assert "limits.time_limit_s" in text and "limits.memory_mb" in text
    function = {"identifier": "f", "description": "x", "prompts": [{
        "prompt_id": "p", "prompt": "x", "genericize": False, "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "f", "parameters": [{"name": "x", "type": "int"}],
                               "return_values": [{"type": "int"}]},
        "correctness_test_suite": [{"input": {"x": 1}, "expected_output": [1]}],
        "limits": {"budget_s": float("inf")}}
    with pytest.raises(InputError) as caught:
        function_from_data(function, "f.json")
    assert any("budget_s" in str(i) for i in caught.value.issues)
    # a file holding NaN (JSON allows it as an extension Python reads) through `judge validate`
    path = tmp_path / "nan.json"
    path.write_text(json.dumps({**data, "limits": {"time_limit_s": float("nan")}}))
    run = subprocess.run([JUDGE, "validate", str(path)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    assert "time_limit_s" in run.stdout + run.stderr


def test_time_rules_are_bounded():
    with pytest.raises(ValidationError):
        TimeRule(multiplier=1e9)
    with pytest.raises(ValidationError):
        TimeRule(resolution_s=float("nan"))
    with pytest.raises(ValueError, match="ceiling"):
        TimeRule(multiplier=100).time_limit([MAX_TIME_LIMIT_S])


# ---- contest packages -------------------------------------------------------------------

@pytest.mark.parametrize("number", HOSTILE_NUMBERS)
@pytest.mark.parametrize("key", ["time_limit", "memory", "output", "time_multiplier",
                                 "time_safety_margin", "validation_time", "validation_memory"])
def test_package_limits_past_the_ceilings_are_located_issues(tmp_path, key, number):
    root = _package(tmp_path, {"problem.yaml": "name: X\nlimits:\n  %s: %s\n" % (key, number)})
    issues = _issues(root)
    if len(number) > 100:  # refused by the YAML budget already, where it stands
        assert any("problem.yaml:3" in i and "an integer of" in i for i in issues), issues
        return
    assert any("limits.%s must be" % key in issue and "problem.yaml:2" in issue
               for issue in issues), issues


@pytest.mark.parametrize("text", ["nan", "inf", "1e999", "1e9", "-3"])
def test_dom_judge_time_limits_past_the_ceiling_are_located_issues(tmp_path, text):
    root = _package(tmp_path, {".timelimit": text + "\n"})
    assert any(".timelimit" in issue for issue in _issues(root))
    root = _package(tmp_path / "ini", {"domjudge-problem.ini": "timelimit = %s\n" % text})
    assert any("domjudge-problem.ini" in issue and "timelimit" in issue
               for issue in _issues(root))


def test_judge_import_kattis_reports_hostile_limits_without_a_traceback(tmp_path):
    root = _package(tmp_path, {"problem.yaml": "name: X\nlimits:\n  time_limit: .nan\n"
                                               "  memory: 1e12\n  time_multiplier: 1e9\n"})
    run = subprocess.run([JUDGE, "import", "kattis", str(root), "--output",
                          str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "Traceback" not in run.stderr + run.stdout
    for key in ("time_limit", "memory", "time_multiplier"):
        assert "limits.%s" % key in run.stderr + run.stdout


# ---- datasets: bounded where they enter (a dataset's user cannot mend it) -----------------

def test_dataset_limits_are_bounded_not_fatal():
    record = {"name": "cc", "description": "x", "public_tests": {"input": ["1\n"],
                                                                  "output": ["1\n"]},
              "time_limit": {"seconds": 10 ** 400, "nanos": float("nan")},
              "memory_limit_bytes": 10 ** 30}
    result = IMPORTERS.get("codecontests").from_records([record])
    assert not result.issues, result.issues
    [problem] = result.problems
    assert problem.limits.time_limit_s == MAX_TIME_LIMIT_S
    assert problem.limits.memory_mb == MAX_MEMORY_MB
    for time_limit in ("1e9 seconds", float("nan"), "x", ["1"], {"seconds": "x"}):
        record = {**record, "time_limit": time_limit, "memory_limit_bytes": float("inf")}
        [problem] = IMPORTERS.get("codecontests").from_records([record]).problems
        assert problem.limits.memory_mb is None
        assert problem.limits.time_limit_s in (None, 1.0)
    taco = {"question": "x", "input_output": json.dumps({"inputs": ["1\n"],
                                                          "outputs": ["1\n"]}),
            "time_limit": 1e300, "memory_limit": "1" + "0" * 5000 + " megabytes"}
    [problem] = IMPORTERS.get("apps").from_records([taco]).problems
    assert problem.limits.time_limit_s == MAX_TIME_LIMIT_S
    assert problem.limits.memory_mb is None  # a 5,000-digit number is no number read


# ---- the run's limits are the ceiling ---------------------------------------------------

def _program(limits: dict) -> object:
    return program_from_data({"kind": "program", "identifier": "p", "statement": "x",
                              "tests": [{"name": "1", "stdin": "1\n", "expected": "1\n"}],
                              "limits": limits}, "<p>", Path("."))


def test_a_problem_cannot_raise_limits_the_operator_gave():
    python = languages.get("python")
    problem = _program({"time_limit_s": 3000, "memory_mb": 60000, "output_kb": 10 ** 7})
    default, _ = program_limits(problem, Limits(), python)
    # the operator gave nothing: the problem's own limits, within the default ceilings
    assert default.memory_mb == 4096 + python.memory_headroom_mb
    assert default.output_kb == 65536
    given = make_limits(memory_mb=256, time_limit_s=1.5, output_kb=100)
    limits, time_s = program_limits(problem, given, python)
    assert limits.memory_mb == 256 + python.memory_headroom_mb
    assert limits.output_kb == 100 and time_s == pytest.approx(1.5 + python.startup_s)
    # a modest problem is unchanged by large ceilings...
    modest = _program({"time_limit_s": 1, "memory_mb": 128})
    limits, _ = program_limits(modest, given, python)
    assert limits.memory_mb == 128 + python.memory_headroom_mb
    # ... and the operator may let problems ask for more than the run's own limits
    allowed = make_limits(memory_mb=256, max_problem_memory_mb=8192)
    limits, _ = program_limits(problem, allowed, python)
    assert limits.memory_mb == 8192 + python.memory_headroom_mb


def test_function_problems_are_capped_too():
    problem = function_from_data({
        "identifier": "f", "description": "x", "prompts": [{
            "prompt_id": "p", "prompt": "x", "genericize": False, "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "f",
                               "parameters": [{"name": "x", "type": "int"}],
                               "return_values": [{"type": "int"}]},
        "correctness_test_suite": [{"input": {"x": 1}, "expected_output": [1]}],
        "limits": {"time_limit_s": 3000, "memory_mb": 60000, "budget_s": 80000}}, "f.json")
    limits = problem_limits(problem, Limits())
    assert (limits.time_limit_s, limits.memory_mb, limits.budget_s) == (60.0, 4096, 600.0)
    limits = problem_limits(problem, make_limits(memory_mb=300, time_limit_s=2))
    assert (limits.time_limit_s, limits.memory_mb) == (2, 300)


def test_the_cli_makes_a_given_limit_the_ceiling():
    from judge.cli.common import limits as cli_limits
    from judge.cli.main import build_parser

    parser = build_parser()
    args = parser.parse_args(["run", "problems", "--solutions", "x.jsonl", "--memory-mb", "256"])
    limits = cli_limits(args)
    assert limits.memory_mb == 256 and limits.max_problem_memory_mb == 256
    assert limits.max_problem_time_s == Limits().max_problem_time_s
    args = parser.parse_args(["run", "problems", "--solutions", "x.jsonl", "--memory-mb", "256",
                              "--max-problem-memory-mb", "2048"])
    assert cli_limits(args).max_problem_memory_mb == 2048
    assert cli_limits(parser.parse_args(["run", "problems", "--solutions", "x.jsonl"])) == Limits()
    for bad in (["--time-limit", "nan"], ["--time-factor", "inf"], ["--memory-mb", "0"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["run", "problems", "--solutions", "x.jsonl", *bad])


# ---- judged for real: a correct reply under hostile limits, the memory ceiling ---------------

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(scope="module", params=SANDBOXES)
def sandbox_kind(request):
    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    return request.param


def test_a_correct_reply_under_absurd_dataset_limits_scores_one(sandbox_kind):
    """A dataset row asking for 1e9 s and 1e30 bytes: the reward used to die (OverflowError,
    JSON NaN); the limits are bounded as they enter and the run's own apply."""
    from judge.rewards import Scorer, TRLReward

    columns = {"public_tests": [{"input": ["2\n"], "output": ["4\n"]}] * 2,
               "private_tests": [{"input": ["5\n"], "output": ["10\n"]}] * 2,
               "generated_tests": [{"input": [], "output": []}] * 2,
               "time_limit": [{"seconds": 10 ** 9, "nanos": 0}, float("inf")],
               "memory_limit_bytes": [10 ** 30, float("nan")]}
    with Scorer(sandbox=sandbox_kind, jobs=2) as scorer:
        reward = TRLReward(scorer, format="codecontests")
        scores = reward(completions=["```python\nprint(int(input()) * 2)\n```",
                                     "```python\nprint(int(input()) * 3)\n```"], **columns)
    assert scores == [1.0, 0.0]


def test_memory_asked_by_a_problem_stays_under_the_operators_limit(sandbox_kind, tmp_path):
    """``memory: 1e12`` is refused where it enters; a problem asking for 60 GB (within the
    data ceiling) under ``memory_mb=256`` gets 256 MiB: a program filling 700 MB is stopped
    at the limit (it used 2.5 GB before)."""
    from judge.api import Judge

    problem = program_from_data({
        "kind": "program", "identifier": "hog", "statement": "x",
        "tests": [{"name": "1", "stdin": "1\n", "expected": "1\n"}],
        "limits": {"time_limit_s": 5, "memory_mb": 60000}}, str(tmp_path / "hog.json"), tmp_path)
    hog = ("x = bytearray(700 * 1024 * 1024)\nfor i in range(0, len(x), 4096):\n"
           "    x[i] = 1\nprint(1)\n")
    with Judge(sandbox=sandbox_kind, jobs=1, memory_mb=256) as judge:
        result = judge.judge(problem, hog)
        assert result.verdict in ("memory_limit", "runtime_error"), result.message
        fine = judge.judge(problem, "print(input())\n")
        assert fine.verdict == "pass", fine.message
