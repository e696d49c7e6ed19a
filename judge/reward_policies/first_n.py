"""``first-n`` (N = 10): the share of the first N tests passed, as verl scores with
``continuous=True`` (``sandbox_fusion`` and ``prime_code``: ``num_to_consider = min(len,
10)``). Only those N tests are judged: the rule never looks at the others."""

from __future__ import annotations

from typing import Any

from judge.engine.verdicts import CandidateResult
from judge.reward_policies.base import RewardPolicy, fraction, test_count, with_tests


class FirstN(RewardPolicy):
    name = "first-n"
    reproduces = ("verl utils/reward_score/sandbox_fusion and prime_code with "
                  "continuous=True: the pass rate of the first 10 test cases")
    count = 10

    def prepare(self, problem: Any) -> Any:
        assert self.count is not None
        return with_tests(problem, list(range(min(self.count, test_count(problem)))))

    def score(self, result: CandidateResult, problem: Any = None, code: str = "") -> float:
        return fraction(result)
