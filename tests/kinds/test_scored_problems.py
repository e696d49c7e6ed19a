"""A scored program problem written by hand (a JSON problem file, ``kind: program``, with
``scoring``): three groups (a ``sum`` group and two ``min`` subtasks, IOI style) judged in
both sandboxes, through the public API and ``judge run``'s results line: a full solution
scores 100, a partial one gets exactly the points of the groups it solves, crashing and
hanging candidates score 0 where they fail and keep what they solved elsewhere."""

from __future__ import annotations

import json

import pytest

import judge
from judge.engine.verdicts import CandidateResult
from judge.kinds.loader import problem_from_data
from tests.conftest import docker_or_skip

# a + b; group "easy" (sum, 20 points over 2 tests), "small" (min, 30: 0 <= a, b < 10),
# "large" (min, 50: a, b up to 10**18)
CASES = [("easy", "1 2"), ("easy", "3 4"), ("small", "5 4"), ("small", "0 9"),
         ("large", "1000000000000 2"), ("large", "999999999999999999 1")]
PROBLEM = {
    "kind": "program", "identifier": "ab_scored", "statement": "Print a + b.",
    "samples": [{"stdin": "1 1\n", "expected": "2\n"}],
    "tests": [{"name": "sample/1", "stdin": "1 1\n", "expected": "2\n", "sample": True,
               "group": "sample"}] +
             [{"name": "%s/%d" % (g, i), "group": g, "stdin": s + "\n",
               "expected": "%d\n" % sum(map(int, s.split()))}
              for i, (g, s) in enumerate(CASES)],
    "limits": {"time_limit_s": 1},
    "scoring": {"max_score": 100, "aggregation": "sum", "require_pass": ["sample"],
                "groups": [{"name": "easy", "max_score": 20, "aggregation": "sum"},
                           {"name": "small", "max_score": 30, "aggregation": "min"},
                           {"name": "large", "max_score": 50, "aggregation": "min"}]},
}
FULL = "a, b = map(int, input().split())\nprint(a + b)\n"
# 32-bit overflow: right on easy and small, wrong on large
PARTIAL = "a, b = map(int, input().split())\nprint((a + b + 2**31) % 2**32 - 2**31)\n"
# right on easy only, wrong on the second small test (9 -> crash)
CRASHES = "a, b = map(int, input().split())\nassert b < 9\nprint(a + b)\n"
HANGS = "a, b = map(int, input().split())\nwhile a > 10**6:\n    pass\nprint(a + b)\n"
PARTIAL_CPP = ("#include <cstdio>\nint main() { int a, b; std::scanf(\"%d %d\", &a, &b); "
               "std::printf(\"%d\\n\", a + b); }\n")


@pytest.fixture(scope="module", params=["process", pytest.param("docker",
                                                                marks=pytest.mark.docker)])
def judged(request, tmp_path_factory):
    if request.param == "docker":
        docker_or_skip()
    problem = problem_from_data(PROBLEM, str(tmp_path_factory.mktemp("p") / "ab.json"))
    with judge.Judge(sandbox=request.param, jobs=2) as j:
        yield {name: j.judge(problem, code, language=lang) for name, code, lang in (
            ("full", FULL, "python"), ("partial", PARTIAL, "python"),
            ("crashes", CRASHES, "python"), ("hangs", HANGS, "python"),
            ("cpp", PARTIAL_CPP, "cpp"))}


def _groups(result: CandidateResult) -> dict[str, float]:
    return {g["group"]: g["score"] for g in result.groups}


def test_a_full_solution_scores_every_point(judged):
    full = judged["full"]
    assert full.verdict.value == "pass" and (full.score, full.max_score) == (100.0, 100.0)
    assert _groups(full) == {"": 100.0, "easy": 20.0, "small": 30.0, "large": 50.0}


def test_a_partial_solution_gets_the_points_of_the_groups_it_solves(judged):
    for name in ("partial", "cpp"):  # the 32-bit overflow, in Python and in C++
        result = judged[name]
        assert result.verdict.value == "wrong_answer", result.to_json()
        assert result.score == 50.0 and result.max_score == 100.0
        assert _groups(result) == {"": 50.0, "easy": 20.0, "small": 30.0, "large": 0.0}
        assert result.passed == 5 and result.total == 7  # every test was judged
        large = next(g for g in result.groups if g["group"] == "large")
        assert (large["passed"], large["total"], large["aggregation"]) == (0, 2, "min")


def test_crashes_and_hangs_lose_only_the_groups_they_fail(judged):
    crashes, hangs = judged["crashes"], judged["hangs"]
    assert crashes.verdict.value == "runtime_error" and crashes.score == 70.0
    assert _groups(crashes) == {"": 70.0, "easy": 20.0, "small": 0.0, "large": 50.0}
    assert hangs.verdict.value == "timeout" and hangs.score == 50.0
    assert _groups(hangs)["large"] == 0.0


def test_the_results_line_carries_the_score_and_reads_back(judged):
    line = judged["partial"].to_json()
    assert (line["score"], line["max_score"]) == (50.0, 100.0)
    assert line["groups"][0] == {"group": "", "score": 50.0, "max_score": 100.0,
                                 "passed": 4, "total": 6, "aggregation": "sum"}
    back = CandidateResult.from_line(json.loads(json.dumps(line)))
    assert (back.score, back.max_score, back.groups) == (50.0, 100.0, line["groups"])
