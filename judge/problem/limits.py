"""The bounds every limit read from data is held to, where it enters.

Problem files, contest packages and datasets are input like any other: a time limit of
``1e9``, ``NaN`` or ``inf``, or a memory limit of ``1e12`` is refused where it is read, as one
located error, so no later arithmetic (a wall-clock backstop, a budget, a JSON line) can
overflow or carry a non-number. The ceilings are far above any real problem's (contest
formats and RL datasets stay within seconds per test and a few GiB) and far below what would
overflow:

============================  =================  =========================================
limit                         ceiling            where
============================  =================  =========================================
a test's time limit           3,600 s            ``limits.time_limit_s``, package times
a candidate's CPU budget      86,400 s           ``limits.budget_s``
memory                        65,536 MiB         ``limits.memory_mb``
output                        16 GiB (in KiB)    ``limits.output_kb``
a time multiplier or margin   100                Kattis ``time_multiplier``, ``ac_to_time_limit``...
a time resolution             60 s               Kattis 2023-07 ``time_resolution``
============================  =================  =========================================

Within these, a problem's own limits are still only as large as the run allows: the run's
limits carry ceilings for what a problem may ask (:class:`judge.sandbox.base.Limits`,
``problem_*_ceiling``), set by the operator.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import Field

MAX_TIME_LIMIT_S = 3600.0
MAX_BUDGET_S = 86400.0
MAX_MEMORY_MB = 65536
MAX_OUTPUT_KB = 16 * 1024 * 1024
MAX_TIME_FACTOR = 100.0
MAX_TIME_RESOLUTION_S = 60.0

#: pydantic field types: finite, positive, at most the ceiling
TimeLimit = Annotated[float, Field(gt=0, le=MAX_TIME_LIMIT_S, allow_inf_nan=False)]
BudgetLimit = Annotated[float, Field(gt=0, le=MAX_BUDGET_S, allow_inf_nan=False)]
MemoryLimit = Annotated[int, Field(gt=0, le=MAX_MEMORY_MB)]
OutputLimit = Annotated[int, Field(gt=0, le=MAX_OUTPUT_KB)]

#: name -> (ceiling, unit) of the limits a problem declares
CEILINGS: dict[str, tuple[float, str]] = {
    "time_limit_s": (MAX_TIME_LIMIT_S, "s"),
    "budget_s": (MAX_BUDGET_S, "s"),
    "memory_mb": (MAX_MEMORY_MB, "MiB"),
    "output_kb": (MAX_OUTPUT_KB, "KiB"),
}


def bounded(value: Any, ceiling: float, *, at_least: float = 0.0,
            inclusive: bool = False) -> float | None:
    """``value`` as a float when it is a finite real number above ``at_least`` (or equal,
    with ``inclusive``) and at most ``ceiling``; else None. Never raises, whatever the
    value's type (a bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        return None
    if not math.isfinite(number) or number > ceiling:
        return None
    if number < at_least or (number == at_least and not inclusive):
        return None
    return number


def describe(name: str) -> str:
    """``"a positive number of at most 3600 s"`` for a limit's name."""
    ceiling, unit = CEILINGS[name]
    return "a positive number of at most %g %s" % (ceiling, unit)


__all__ = ["BudgetLimit", "CEILINGS", "MAX_BUDGET_S", "MAX_MEMORY_MB", "MAX_OUTPUT_KB",
           "MAX_TIME_FACTOR", "MAX_TIME_LIMIT_S", "MAX_TIME_RESOLUTION_S", "MemoryLimit",
           "OutputLimit", "TimeLimit", "bounded", "describe"]
