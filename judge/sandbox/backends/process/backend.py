"""The ``process`` back end: how it is opened and what it needs here."""

from __future__ import annotations

from judge.sandbox.backends import Notice, SandboxBackend, _quiet
from judge.sandbox.base import Limits, Sandbox
from judge.sandbox.prerequisites import Prerequisite


class ProcessBackend(SandboxBackend):
    """One pool for all: the host's toolchains run every language
    (scripts/ensure-toolchains.sh)."""

    name = "process"
    description = ("warm local worker processes; as root each runs candidates as its own uid "
                   "without network, with a private /tmp")

    def open(self, jobs: int, *, fresh: bool = False, notice: Notice = _quiet,
             limits: Limits | None = None, allow_unisolated: bool = False) -> Sandbox:
        from judge.sandbox.backends.process.sandbox import ProcessSandbox

        return ProcessSandbox(size=jobs, fresh=fresh, allow_unisolated=allow_unisolated)

    def prerequisites(self) -> list[Prerequisite]:
        from judge.sandbox.backends.process.sandbox import prerequisites

        return prerequisites()


__all__ = ["ProcessBackend"]
