"""``tolerant`` (N = 15): all or nothing on the first N tests, numbers compared within
1e-3 (absolute or relative), as INTELLECT-3's code environment scores (exact float
comparison is a known source of false negatives in ported graders). Programs' token
checkers and functions' float comparisons are loosened; an output validator still decides
as it does."""

from __future__ import annotations

from typing import Any

from judge.engine.verdicts import CandidateResult
from judge.reward_policies.base import (RewardPolicy, passed, test_count, with_tests,
                                        with_tolerance)

TOLERANCE = 1e-3


class Tolerant(RewardPolicy):
    name = "tolerant"
    reproduces = ("INTELLECT-3 (PrimeIntellect) code environment: 15 tests, all must pass, "
                  "numeric outputs within 1e-3")
    count = 15

    def prepare(self, problem: Any) -> Any:
        assert self.count is not None
        chosen = with_tests(problem, list(range(min(self.count, test_count(problem)))))
        return with_tolerance(chosen, TOLERANCE)

    def score(self, result: CandidateResult, problem: Any = None, code: str = "") -> float:
        return 1.0 if passed(result) else 0.0
