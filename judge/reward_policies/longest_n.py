"""``longest-n`` (N = 15): all or nothing on the N tests with the longest inputs, as
DeepCoder / rLLM's code reward does (the tests sorted by input length, the largest kept:
the hardest to pass by accident). Only those N tests are judged, longest first."""

from __future__ import annotations

from typing import Any

from judge.engine.verdicts import CandidateResult
from judge.reward_policies.base import RewardPolicy, input_size, passed, test_count, with_tests


class LongestN(RewardPolicy):
    name = "longest-n"
    reproduces = ("DeepCoder / rLLM rewards/code_reward: the 15 tests with the longest "
                  "inputs, reward 1 only when all pass")
    count = 15

    def prepare(self, problem: Any) -> Any:
        assert self.count is not None
        total = test_count(problem)
        if total <= self.count:
            return problem
        # longest first; equal lengths keep the dataset's order (a stable sort)
        order = sorted(range(total), key=lambda i: -input_size(problem, i))
        return with_tests(problem, order[: self.count])

    def score(self, result: CandidateResult, problem: Any = None, code: str = "") -> float:
        return 1.0 if passed(result) else 0.0
