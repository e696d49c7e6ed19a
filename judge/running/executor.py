"""The executor: judges candidates on one sandbox, each by its problem's kind.

It owns the :class:`~judge.engine.engine.Engine` (the sandbox, the run's limits and options,
the compile cache) and hands every submission to the kind of its problem
(:func:`judge.kinds.base.judge_in`), so the batch path, the API and the service never ask
what kind a problem is.
"""

from __future__ import annotations

from typing import Any

from judge.candidates.submission import Submission
from judge.engine.engine import TEST_ISOLATION, Engine, Options
from judge.engine.verdicts import CandidateResult
from judge.kinds.base import KINDS, judge_in
from judge.sandbox.base import Limits, Sandbox


class Executor:
    """Judges candidates on one sandbox. Thread-safe."""

    def __init__(self, sandbox: Sandbox, limits: Limits | None = None,
                 reference_timing: bool = True, stop_on_failure: bool = False,
                 test_isolation: str = "on-failure", reference_cache: Any = True,
                 all_tests: bool = False) -> None:
        self.engine = Engine(sandbox, limits, Options(
            test_isolation=test_isolation, stop_on_failure=stop_on_failure,
            all_tests=all_tests, reference_timing=reference_timing,
            reference_cache=reference_cache))

    @property
    def sandbox(self) -> Sandbox:
        return self.engine.sandbox

    @property
    def limits(self) -> Limits:
        return self.engine.limits

    @property
    def options(self) -> Options:
        return self.engine.options

    @property
    def slots(self) -> int:
        """Candidates judged at once (the sandbox's capacity)."""
        return self.engine.slots

    @property
    def isolation(self) -> dict[str, Any]:
        return self.engine.isolation

    @property
    def compile_cache(self) -> Any:
        return self.engine.compile_cache

    def kind_judge(self, kind: str) -> Any:
        """The judge the kind named ``kind`` opened on this executor's engine (its own
        state: a function problem's reference times, say)."""
        found = KINDS.get(kind)
        return self.engine.judge_for(found.name, found.open)

    def judge(self, problem: Any, submission: Submission, **meta: Any) -> CandidateResult:
        """Judge one submission by its problem's kind."""
        return judge_in(self.engine, problem, submission, **meta)

    def close(self) -> None:
        """Stop what the kinds opened (the sandbox belongs to whoever opened it)."""
        self.engine.close()


__all__ = ["Executor", "TEST_ISOLATION"]
