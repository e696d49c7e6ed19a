"""Execution back ends behind one interface (``judge.sandbox.base.Sandbox``), found by name
in :data:`BACKENDS`: ``process`` (local worker processes) and ``docker`` (warm containers),
each a :class:`~judge.sandbox.backends.SandboxBackend` with its prerequisites. ``auto`` is
not a back end: it takes docker when it can be had, else process."""

from __future__ import annotations

from typing import Callable

from judge.errors import UnknownName
from judge.registry import Registry
from judge.sandbox.base import Limits, Sandbox, SandboxUnavailable

#: the sandbox back ends by name (external ones: entry points in ``judge.sandboxes``)
BACKENDS: Registry = Registry("sandbox", group="judge.sandboxes", factory=True)
BACKENDS.add("process", "judge.sandbox.backends.process.backend:ProcessBackend")
BACKENDS.add("docker", "judge.sandbox.backends.docker.backend:DockerBackend")

#: the built-in choices (``kinds()`` adds back ends of installed packages)
KINDS = ("auto", "process", "docker")
#: what ``auto`` tries, in order: the first that opens is used
AUTO = ("docker", "process")


def kinds() -> list[str]:
    """Every choice of sandbox: ``auto`` and each registered back end."""
    return ["auto"] + BACKENDS.names()


def open_sandbox(kind: str, jobs: int, isolation: str = "warm",
                 notice: Callable[[str], None] = lambda message: None,
                 limits: Limits | None = None, allow_unisolated: bool = False) -> Sandbox:
    """Open the sandbox back end called ``kind``. ``auto`` takes docker when an engine
    answers and the image exists (building it when it can), else the process sandbox,
    saying so once. An unknown name is SandboxUnavailable (with a did-you-mean)."""
    options = dict(fresh=isolation == "fresh", notice=notice, limits=limits,
                   allow_unisolated=allow_unisolated)
    if kind != "auto":
        try:
            backend = BACKENDS.get(kind)
        except UnknownName as exc:
            raise SandboxUnavailable(str(exc)) from None
        return backend.open(jobs, **options)
    first, fallback = AUTO
    try:
        return BACKENDS.get(first).open(jobs, **options)
    except SandboxUnavailable as exc:
        notice("warning: using the %s sandbox (%s); it does not isolate file system "
               "reads; see the README" % (fallback, exc))
        return BACKENDS.get(fallback).open(jobs, **options)


__all__ = ["AUTO", "BACKENDS", "KINDS", "Limits", "Sandbox", "SandboxUnavailable", "kinds",
           "open_sandbox"]
