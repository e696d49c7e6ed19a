"""``codeforces``: open-r1's Codeforces reward (``scoring_mode="weighted_sum"``, its
default): 1 when every test passes, plus 0.1 × the share of tests passed; -0.1 when the
program does not compile; -1 when the reply holds no code at all."""

from __future__ import annotations

from typing import Any

from judge.engine.verdicts import CandidateResult, Verdict
from judge.reward_policies.base import RewardPolicy, fraction, passed

NO_COMPILE = -0.1
NO_SUBMISSION = -1.0


class Codeforces(RewardPolicy):
    name = "codeforces"
    reproduces = ("open-r1 utils/competitive_programming/cf_scoring score_submission "
                  "(weighted_sum: pass_fail + 0.1 x partial; no_compile_reward -0.1, "
                  "no_submission_reward -1.0)")

    def score(self, result: CandidateResult, problem: Any = None, code: str = "") -> float:
        if not code.strip():
            return NO_SUBMISSION
        if result.verdict is Verdict.COMPILE_ERROR:
            return NO_COMPILE
        return (1.0 if passed(result) else 0.0) + 0.1 * fraction(result)
