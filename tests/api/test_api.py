"""The public API (judge.Judge): the README example runs as written, results match the CLI,
the sandbox is owned and closed, and bad arguments are clear errors."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest

import judge
from judge.engine.verdicts import Verdict
from tests.paths import ROOT

README = ROOT / "README.md"


def readme_block(heading: str) -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split(heading, 1)[1]
    match = re.search(r"^```python\n(.*?)^```$", section, re.S | re.M)
    assert match, "no python block under %s" % heading
    return match.group(1)


def test_readme_api_example_runs(tmp_path):
    """The README's example, executed as written, in a fresh interpreter from the checkout."""
    code = readme_block("## Python API")
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pass" in done.stdout


@pytest.fixture(scope="module")
def basics():
    return judge.load_suite(ROOT / "problems" / "basics")


@pytest.fixture(scope="module")
def j():
    with judge.Judge(sandbox="process", jobs=2) as opened:
        yield opened


def test_judge_one(j, basics):
    problem = basics.problems[0]
    result = j.judge(problem, problem.optimal_solution)
    assert result.verdict is Verdict.PASS
    assert result.passed == result.total == len(problem.tests)
    line = result.to_dict()
    assert line["verdict"] == "pass" and line["problem_id"] == problem.identifier
    json.dumps(line)  # a results line is JSON


def test_judge_raw_reply_and_failures(j, basics):
    problem = basics.problems[0]
    reply = "Here you go:\n\n```python\n%s\n```\nHope it helps." % problem.optimal_solution
    assert j.judge(problem, reply).verdict is Verdict.PASS
    assert j.judge(problem, "def broken(:\n").verdict is Verdict.COMPILE_ERROR
    assert j.judge(problem, "").verdict is Verdict.COMPILE_ERROR


def test_judge_many_in_order_and_equal_to_single_calls(j, basics):
    items = []
    for problem in basics.problems:
        items.append((problem, problem.optimal_solution))
        items.append((problem, "def %s(*a):\n    return None\n" % problem.function_name,
                      {"model": "bad", "sample": 1}))
    results = list(j.judge_many(items))
    assert [r.problem_id for r in results] == [p.identifier for p, *_ in items]
    assert [r.verdict for r in results[::2]] == [Verdict.PASS] * len(basics.problems)
    assert all(r.verdict is not Verdict.PASS for r in results[1::2])
    assert all(r.model == "bad" and r.sample == 1 for r in results[1::2])
    singles = [j.judge(p, code).verdict for p, code, *_ in items[:6]]
    assert singles == [r.verdict for r in results[:6]]


def test_judge_many_rejects_bad_items(j, basics):
    with pytest.raises(TypeError, match="item 1"):
        list(j.judge_many([(basics.problems[0], "x = 1"), (42, "code")]))
    # a string is a problem identifier (tests/cli/test_papercuts.py): an unknown one is named
    with pytest.raises(judge.UnknownName, match="'not a problem'"):
        list(j.judge_many([(basics.problems[0], "x = 1"), ("not a problem", "code")]))


def test_ajudge_concurrently(j, basics):
    problems = basics.problems[:4]

    async def main():
        return await asyncio.gather(*(j.ajudge(p, p.optimal_solution) for p in problems))

    results = asyncio.run(main())
    assert [r.problem_id for r in results] == [p.identifier for p in problems]
    assert {r.verdict for r in results} == {Verdict.PASS}


def test_problem_in_memory_without_a_file(j, basics):
    data = json.loads(Path(basics.problems[0].source).read_text(encoding="utf-8"))
    problem = judge.Problem.model_validate(data)
    assert problem.source == "<memory>"
    assert j.judge(problem, problem.optimal_solution).verdict is Verdict.PASS


def test_suite_lookup(basics):
    first = basics.problems[0]
    assert basics[first.identifier] is first and first.identifier in basics
    assert list(basics) == basics.problems
    with pytest.raises(KeyError, match="no problem 'nope'"):
        basics["nope"]


def test_a_judge_never_closed_leaves_no_folder_nor_worker(tmp_path):
    """A script that exits holding an open Judge (no ``with``, no close): its process
    sandbox's folder (the worker's code, the work directories) goes with it, and so do its
    workers."""
    script = tmp_path / "unclosed.py"
    script.write_text(
        "import judge, os\n"
        "suite = judge.load_suite(%r)\n"
        "j = judge.Judge(sandbox='process', jobs=2)\n"
        "p = suite.problems[0]\n"
        "print(j.judge(p, p.optimal_solution).verdict.value)\n"
        "sandbox = j._executor.sandbox\n"
        "print(sandbox._dir)\n"
        "print(' '.join(str(s.pid) for s in sandbox._live))\n"
        % str(ROOT / "problems" / "basics"), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    verdict, folder, pids = (done.stdout.splitlines() + ["", "", ""])[:3]
    assert verdict == "pass", done.stdout + done.stderr
    assert folder.startswith(("/tmp/", tempfile.gettempdir())), done.stdout
    assert not Path(folder).exists(), "left behind: %s" % folder
    alive = [p for p in psutil.process_iter(["pid", "status"])
             if str(p.info["pid"]) in pids.split() and p.info["status"] != "zombie"]
    psutil.wait_procs(alive, timeout=10)
    assert not [p for p in alive if p.is_running() and p.status() != "zombie"], pids


def test_limits_as_keywords():
    made = judge.Judge(sandbox="process", time_limit_s=3.0, memory_mb=128)
    assert made.limits.time_limit_s == 3.0 and made.limits.memory_mb == 128
    made.close()
    with pytest.raises(TypeError, match="unknown limit memory_gb"):
        judge.Judge(sandbox="process", memory_gb=1)
    with pytest.raises(ValueError, match="sandbox must be one of"):
        judge.Judge(sandbox="vm")


def _workers_of(pid: int) -> list[psutil.Process]:
    return [p for p in psutil.Process(pid).children(recursive=True)]


def test_sandbox_closed_on_exit_also_after_an_exception(basics):
    me = psutil.Process().pid
    before = {p.pid for p in _workers_of(me)}
    with pytest.raises(RuntimeError, match="boom"):
        with judge.Judge(sandbox="process", jobs=2) as opened:
            problem = basics.problems[0]
            assert opened.judge(problem, problem.optimal_solution).verdict is Verdict.PASS
            assert {p.pid for p in _workers_of(me)} - before, "workers should be running"
            raise RuntimeError("boom")
    psutil.wait_procs([p for p in _workers_of(me) if p.pid not in before], timeout=5)
    left = [p for p in _workers_of(me) if p.pid not in before and p.status() != "zombie"]
    assert not left, left
    with pytest.raises(RuntimeError, match="closed"):
        opened.judge(basics.problems[0], "x")
