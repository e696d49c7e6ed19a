"""``binary``: 1 when every test passes, else 0 (TRL's and most trainers' default rule;
verl's ``prime_code`` without ``continuous``)."""

from __future__ import annotations

from typing import Any

from judge.engine.verdicts import CandidateResult
from judge.reward_policies.base import RewardPolicy, passed


class Binary(RewardPolicy):
    name = "binary"
    reproduces = "verl prime_code (continuous=False); TRL reward functions that return pass/fail"

    def score(self, result: CandidateResult, problem: Any = None, code: str = "") -> float:
        return 1.0 if passed(result) else 0.0
