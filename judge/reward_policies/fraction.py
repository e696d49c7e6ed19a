"""``fraction``: the share of tests passed (verl's ``sandbox_fusion`` reward without
``continuous``: passed / all test cases)."""

from __future__ import annotations

from typing import Any

from judge.engine.verdicts import CandidateResult
from judge.reward_policies.base import RewardPolicy, fraction


class Fraction(RewardPolicy):
    name = "fraction"
    reproduces = ("verl utils/reward_score/sandbox_fusion compute_score (continuous=False): "
                  "the pass rate over all test cases")

    def score(self, result: CandidateResult, problem: Any = None, code: str = "") -> float:
        return fraction(result)
