"""``plus-minus``: +1 when every test passes, -1 otherwise (NousCoder's reward: a wrong,
crashing or slow program is penalised, not merely unrewarded)."""

from __future__ import annotations

from typing import Any

from judge.engine.verdicts import CandidateResult
from judge.reward_policies.base import RewardPolicy, passed


class PlusMinus(RewardPolicy):
    name = "plus-minus"
    reproduces = "NousCoder (Nous Research): +1 for a correct program, -1 otherwise"

    def score(self, result: CandidateResult, problem: Any = None, code: str = "") -> float:
        return 1.0 if passed(result) else -1.0
