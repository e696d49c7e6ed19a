"""The engine a problem kind judges on: one sandbox, the run's limits and options, and what
the kinds share (the compile cache, the check helpers, the isolation facts).

Each problem kind opens its judge on an engine once (:meth:`Engine.judge_for`) and keeps its
own state there (a function problem's reference times, say); the engine knows no kind.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

from judge.engine.check_pool import CheckerPool
from judge.engine.compile_step import CompileCache
from judge.sandbox.base import Limits, Sandbox

#: "on-failure" (default): a candidate's tests run in one child first, and every test that
#: did not pass there runs again alone; "per-test": one child per test (principle 4)
TEST_ISOLATION = ("per-test", "on-failure")


@dataclass(frozen=True)
class Options:
    """How a run judges, whatever the kind."""

    #: see :data:`TEST_ISOLATION`
    test_isolation: str = "on-failure"
    #: stop at a candidate's first failing test (``--fail-fast``)
    stop_on_failure: bool = False
    #: every test, past a problem's contest rule (partial credit)
    all_tests: bool = False
    #: time limits from the reference solution's time on this machine
    reference_timing: bool = True
    #: reference timings remembered across runs: True (the configured folder), False, or a
    #: store (:class:`judge.engine.reference_cache.ReferenceTimes`)
    reference_cache: Any = True

    def __post_init__(self) -> None:
        if self.test_isolation not in TEST_ISOLATION:
            raise ValueError("test_isolation must be one of %s" % ", ".join(TEST_ISOLATION))


class Engine:
    """What the kinds judge on. Thread-safe."""

    def __init__(self, sandbox: Sandbox, limits: Limits | None = None,
                 options: Options | None = None) -> None:
        self.sandbox = sandbox
        self.limits = limits or Limits()
        self.options = options or Options()
        #: compile products by content, for the run (every kind and language compiles here)
        self.compile_cache = CompileCache()
        #: a problem's ``check`` expressions, evaluated in bounded helper processes
        self.check_pool = CheckerPool(sandbox.size)
        self._isolation: dict[str, Any] | None = None
        #: candidates judged at once: the sandbox's capacity, beyond its cores while some
        #: candidates are blocked (judge.sandbox.admission)
        self.slots = sandbox.most_in_flight()
        self._judges: dict[str, Any] = {}
        #: re-entrant: a kind's judge may open another kind's as it opens (a kind built on
        #: the program kind, say)
        self._lock = threading.RLock()

    @property
    def isolation(self) -> dict[str, Any]:
        """The isolation in force, copied into every result (``sandbox_isolation``); asked
        of the sandbox once."""
        if self._isolation is None:
            self._isolation = self.sandbox.isolation()
        return self._isolation

    def judge_for(self, name: str, opener: Callable[["Engine"], Any]) -> Any:
        """The judge a kind opened on this engine (``opener(engine)``, once per kind)."""
        with self._lock:
            found = self._judges.get(name)
            if found is None:
                found = self._judges[name] = opener(self)
            return found

    def close(self) -> None:
        """Stop the check helpers and what the kinds opened (the sandbox belongs to whoever
        opened it)."""
        with self._lock:
            judges, self._judges = list(self._judges.values()), {}
        for judge in judges:
            close = getattr(judge, "close", None)
            if close is not None:
                close()
        self.check_pool.close()


__all__ = ["Engine", "Options", "TEST_ISOLATION"]
