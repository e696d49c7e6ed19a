"""``ioi``: IOI subtask scoring, as open-r1's IOI reward and CMS compute it: each subtask
scores the minimum over its tests' scores times its points, and the problem's score is their
sum, here as a share of the points available (0 to 1). A test scores 1 when it passes, else
0. Subtasks are the tests' groups (a program test's ``group``; tests without one form one
subtask), each worth the same unless the problem gives points."""

from __future__ import annotations

from typing import Any

from judge.engine.verdicts import CandidateResult, Verdict
from judge.reward_policies.base import RewardPolicy


def subtasks(problem: Any) -> dict[str, list[int]]:
    """Group name -> the indices of its tests, in order (the problem's kind says how)."""
    return problem.test_groups()


class Ioi(RewardPolicy):
    name = "ioi"
    reproduces = ("open-r1 utils/competitive_programming/ioi_scoring (SubtaskResult: min of "
                  "the test scores x points, summed) and CMS's GroupMin")

    def score(self, result: CandidateResult, problem: Any = None, code: str = "") -> float:
        groups = subtasks(problem) if problem is not None else \
            {"": [t.index for t in result.tests]}
        by_index = {t.index: t for t in result.tests}
        points = total = 0.0
        for indices in groups.values():
            total += 1.0
            scores = [1.0 if by_index.get(i) is not None and by_index[i].verdict is Verdict.PASS
                      else 0.0 for i in indices]
            points += min(scores) if scores else 0.0
        return points / total if total else 0.0
