"""``ioi``: IOI subtask scoring, as open-r1's IOI reward and CMS compute it: each subtask
scores the minimum over its tests' scores times its points, and the problem's score is their
sum, here as a share of the points available (0 to 1).

A scored problem (one with a ``scoring`` tree: Kattis ``type: scoring``, Polygon groups with
points, IOI subtasks) is scored by its own tree, which the judge already applied: the result's
score over its maximum (points per subtask, partial test scores from the checker included).
Another problem's subtasks are its tests' groups (a program test's ``group``; tests without
one form one subtask), each worth the same; a test scores 1 when it passes, else its
checker's partial score (testlib's ``quitp``, a validator's ``score_multiplier.txt``) or 0."""

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
        if result.score is not None and result.max_score:  # the problem's own points
            return min(1.0, max(0.0, float(result.score) / float(result.max_score)))
        groups = subtasks(problem) if problem is not None else \
            {"": [t.index for t in result.tests]}
        by_index = {t.index: t for t in result.tests}
        points = total = 0.0
        for indices in groups.values():
            total += 1.0
            scores = [_test_score(by_index.get(i)) for i in indices]
            points += min(scores) if scores else 0.0
        return points / total if total else 0.0


def _test_score(test: Any) -> float:
    """1 for a pass, a checker's partial score in [0, 1] for a test that gave one, else 0."""
    if test is None:
        return 0.0
    if test.verdict is Verdict.PASS:
        return 1.0
    return min(1.0, max(0.0, float(test.score))) if test.score is not None else 0.0
