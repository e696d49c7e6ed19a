"""Sandbox back ends by name: ``process`` and ``docker``, each a folder here with how it is
opened and what it needs (``backend.py``: its :class:`SandboxBackend`, whose prerequisites
``judge sandbox doctor`` checks), its sandbox and its helpers.

The registry is :data:`judge.sandbox.BACKENDS`. A back end is a :class:`SandboxBackend`
(one instance per name); an external package adds one with an entry point in the group
``judge.sandboxes`` (``name = "package.module:MyBackend"``), the way inspect_ai's
``util/_sandbox/`` registers its sandbox environments.
"""

from __future__ import annotations

from typing import Callable

from judge.sandbox.base import Limits, Sandbox
from judge.sandbox.prerequisites import Prerequisite

Notice = Callable[[str], None]


def _quiet(message: str) -> None:
    return None


class SandboxBackend:
    """One sandbox back end: :meth:`open` a pool of ``jobs`` warm workers, and say what it
    needs (:meth:`prerequisites`). Subclasses set ``name`` and ``description``.

    Every job runs in a *pool* its language declares (``Language.pool``: ``python``,
    ``native``). What a pool is, the back end decides: by default the sandbox :meth:`open`
    gives serves every pool; one that keeps pools apart answers :meth:`own_pool` and opens
    the others with :meth:`open_pool`."""

    name = ""
    description = ""

    def own_pool(self, pool: str) -> bool:
        """Whether jobs of ``pool`` need workers of their own (opened by :meth:`open_pool`)
        rather than the sandbox :meth:`open` gave. Default: one pool for all."""
        return False

    def keeps_pools_apart(self) -> bool:
        """Whether some pool needs workers of its own (the back end overrides
        :meth:`own_pool`)."""
        return type(self).own_pool is not SandboxBackend.own_pool

    def pool_runs(self, pool: str) -> str | None:
        """What runs the code of ``pool``'s jobs, in a few words (None: nothing to name)."""
        return None

    def open_pool(self, pool: str, jobs: int, fresh: bool = False) -> Sandbox:
        """A sandbox of ``jobs`` workers for the jobs of ``pool`` (an :meth:`own_pool`)."""
        raise NotImplementedError

    def open(self, jobs: int, *, fresh: bool = False, notice: Notice = _quiet,
             limits: Limits | None = None, allow_unisolated: bool = False) -> Sandbox:
        """A new sandbox; SandboxUnavailable when it cannot be had here."""
        raise NotImplementedError

    def prerequisites(self) -> list[Prerequisite]:
        """What it needs here, each checked (never raises)."""
        return []


__all__ = ["Notice", "SandboxBackend"]
