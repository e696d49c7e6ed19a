"""The one place where a request's limits meet the server's: they can only tighten.

A client reaches the limits three ways, and each is bounded here by the server's own limits
(``judge serve``'s ``--time-limit``, ``--memory-mb``, ... : a hard ceiling):

- the request's ``limits``: each value at most the server's (``time_factor`` included), or the
  request is refused (400 naming the field);
- an inline problem's own ``limits``: each clamped to the request's effective limit (a problem
  asking for 10 s or 4 GiB gets the server's 1 s and 512 MiB);
- an inline problem's ``optimal_solution``: never timed. Timing it would let untrusted code
  set the limit (``max(floor, factor x reference)``: a reference that burns CPU buys every
  candidate a long limit); an inline problem's tests get the (tightened) ``time_limit_s``.

Problems of the server's own suites are the operator's: their ``limits`` and reference
timing apply as in ``judge run``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from judge.errors import InputFault
from judge.problem.model import Problem
from judge.sandbox.base import Limits

#: request fields and the server limit each may not exceed
TIGHTEN_ONLY = ("time_limit_s", "time_floor_s", "time_factor", "memory_mb", "output_kb")


class LoosenedLimit(InputFault, ValueError):
    """A request asked for more than the server allows (``field`` names the limit)."""

    code = "limit_loosened"

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


def request_limits(server: Limits, requested: dict[str, Any] | None) -> Limits:
    """The server's limits tightened by a request's ``limits`` (only ``TIGHTEN_ONLY`` fields;
    ``LoosenedLimit`` when one is above the server's)."""
    if not requested:
        return server
    changes = {}
    for name, value in requested.items():
        if value is None:
            continue
        if name not in TIGHTEN_ONLY:
            raise LoosenedLimit(name, "%s cannot be set by a request" % name)
        ceiling = getattr(server, name)
        if value > ceiling:
            raise LoosenedLimit(name, "%s may be at most %s on this server (the server's own "
                                "limit: a request can only tighten it)" % (name, ceiling))
        changes[name] = value
    return dataclasses.replace(server, **changes) if changes else server


def clamp_problem(problem: Problem, limits: Limits) -> Problem:
    """An inline problem whose own ``limits`` are at most ``limits`` (a copy; the problem
    itself when it sets none above them). A program problem's memory and output limits are
    set to the ceiling when it gives none (the judge's program default may be higher)."""
    own = problem.limits
    if own is None:
        return problem
    budget_ceiling = limits.budget_s if limits.budget_s is not None else limits.budget_cap_s
    ceilings = {"time_limit_s": limits.time_limit_s, "memory_mb": limits.memory_mb,
                "output_kb": limits.output_kb, "budget_s": budget_ceiling}
    # a limit the judge would otherwise default above the ceiling (a program's memory and
    # output: Kattis's defaults) is set to the ceiling
    defaulted = set(getattr(own, "defaults_above_run", ()))
    values = own.model_dump()
    clamped = {}
    for name, value in values.items():
        if value is not None:
            clamped[name] = min(value, ceilings[name])
        else:
            clamped[name] = ceilings[name] if name in defaulted else None
    if clamped == values:
        return problem
    return problem.model_copy(update={"limits": type(own)(**clamped)})


def effective(server: Limits, requested: dict[str, Any] | None, problem: Problem,
              inline: bool) -> tuple[Problem, Limits, bool]:
    """``(problem, limits, reference_timing_allowed)`` for one request: the server's limits
    tightened by the request, an inline problem's own limits clamped to them, and reference
    timing only for the server's own problems."""
    limits = request_limits(server, requested)
    if not inline:
        return problem, limits, True
    return clamp_problem(problem, limits), limits, False


def clamp(values: dict[str, tuple[float | None, float]]) -> tuple[dict[str, float], list[str]]:
    """The only-tighten rule for surfaces that cannot refuse (SandboxFusion's ``/run_code``
    has no error for it): ``name -> (requested or None, server ceiling)`` gives each value at
    most its ceiling (the ceiling when none was asked), and the names that were cut."""
    out: dict[str, float] = {}
    clamped = []
    for name, (requested, ceiling) in values.items():
        if requested is None or requested <= 0:
            out[name] = ceiling
        elif requested > ceiling:
            out[name] = ceiling
            clamped.append(name)
        else:
            out[name] = requested
    return out, clamped
