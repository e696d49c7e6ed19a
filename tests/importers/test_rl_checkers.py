"""Contest records with a checker: CodeContests+ (``test_cases``, a testlib ``checker``,
milliseconds) and open-r1 codeforces (``official_tests``, ``generated_checker``) become
program problems with a testlib checker; what the judge cannot judge faithfully (open-r1's
Python checkers, file input, interactive problems) is refused naming the field. One record
with a generated checker is judged end to end through the reward path (process sandbox; the
checker in Docker is tests/engine/test_testlib.py)."""

from __future__ import annotations

import pytest

from judge.engine.checkers.testlib import installed_header
from judge.engine.verdicts import Verdict
from judge.importers import IMPORTERS
from judge.importers.datasets import problem_data
from judge.kinds.base import kind_of
from judge.rewards import Scorer

#: a checker as the datasets generate them: any two positive numbers adding up to n
CHECKER = r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long n = inf.readLong();
    long long a = ouf.readLong(1, n, "a"), b = ouf.readLong(1, n, "b");
    ans.readLong();
    if (a + b != n) quitf(_wa, "%lld + %lld is not %lld", a, b, n);
    quitf(_ok, "%lld = %lld + %lld", n, a, b);
}
"""
PLUS = {"id": "1000A", "title": "Split", "description": "Write n as a sum of two positive "
        "numbers.", "time_limit": 2000, "memory_limit": 256, "checker": CHECKER,
        "test_cases": [{"input": "10\n", "output": "1 9\n"}, {"input": "2\n", "output": "1 1\n"}],
        "correct_submissions": [{"language": "py3", "code": "n=int(input())\nprint(1, n-1)"}]}
R1 = {"id": "1000/A", "title": "Split", "description": "...", "time_limit": 1.5,
      "memory_limit": 128.0, "input_mode": "stdio", "interaction_format": None,
      "official_tests": [{"input": "10\n", "output": "5 5\n"}], "generated_checker": CHECKER}


def _reader():
    return IMPORTERS.get("codecontests")


@pytest.mark.pure
def test_codecontests_plus_record_becomes_a_testlib_problem():
    problem = _reader().problem(PLUS)
    assert problem.identifier == "1000A"
    assert problem.checker.type == "testlib" and problem.checker.code == CHECKER
    assert problem.limits.time_limit_s == 2.0 and problem.limits.memory_mb == 256
    assert [t.stdin for t in problem.tests] == ["10\n", "2\n"]
    # written as a problem file, it loads back with its checker
    data = problem_data(problem)
    assert data["checker"] == {"type": "testlib", "code": CHECKER}
    again = kind_of(problem).load(data, "<again>")
    assert again.checker.code == CHECKER


@pytest.mark.pure
def test_open_r1_codeforces_records():
    problem = _reader().problem(R1)
    assert problem.checker.type == "testlib"
    assert problem.limits.time_limit_s == 1.5 and problem.limits.memory_mb == 128
    # without a checker: the contest datasets' token comparison
    plain = _reader().problem(dict(R1, generated_checker=None))
    assert plain.checker.type == "tokens" and plain.checker.case_sensitive
    # open-r1's own checkers are Python (checker.py input correct_output solution_output,
    # printing 1 or 0): not testlib, refused rather than judged as something else
    python = "import sys\nprint(1)\n"
    read = _reader().from_records([dict(R1, generated_checker=python),
                                   dict(R1, input_mode="pigeon"),
                                   dict(R1, interaction_format="Ask at most 20 queries."),
                                   dict(PLUS, checker=42)])
    assert not read.problems
    where = [(i.location, i.message) for i in read.issues]
    assert where[0][0] == "[0].generated_checker" and "not a testlib" in where[0][1]
    assert where[1][0] == "[1].input_mode"
    assert where[2][0] == "[2].interaction_format"
    assert where[3][0] == "[3].checker"


@pytest.mark.skipif(installed_header() is None, reason="no testlib.h installed: "
                    "pip install --no-deps rbx-cp (scripts/test.sh)")
def test_a_record_with_a_generated_checker_judged_end_to_end():
    """The reward path: the record -> its problem (cached) -> the judge; a right answer the
    expected output does not hold passes, a wrong one fails with the checker's message."""
    with Scorer(sandbox="process", jobs=1) as scorer:
        problem = scorer.problem(PLUS, "codecontests")[0]
        other = scorer.judge.judge(problem, "n = int(input())\nprint(n - 1, 1)")
        assert other.verdict is Verdict.PASS, other.message
        halves = scorer.judge.judge(problem, "n = int(input())\nprint(n // 2, n - n // 2)")
        assert halves.verdict is Verdict.PASS, halves.message
        wrong = scorer.judge.judge(problem, "n = int(input())\nprint(n, 1)")
        assert wrong.verdict is Verdict.WRONG_ANSWER
        assert "testlib checker" in wrong.message and not wrong.problem_errors
        # exact matching would have rejected both right answers
        assert problem.tests[0].expected == "1 9\n"
