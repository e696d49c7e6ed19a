"""Execution back ends behind one interface (``judge.sandbox.base.Sandbox``):
``process`` (local worker processes) and ``docker`` (warm containers)."""

from __future__ import annotations

from typing import Callable

from judge.sandbox.base import Limits, Sandbox, SandboxUnavailable

KINDS = ("auto", "process", "docker")


def open_sandbox(kind: str, jobs: int, isolation: str = "warm",
                 notice: Callable[[str], None] = lambda message: None,
                 limits: Limits | None = None, allow_unisolated: bool = False) -> Sandbox:
    """Open the requested sandbox. ``auto`` takes docker when an engine answers and the
    image exists (building it when it can), else the process sandbox, saying so once."""
    fresh = isolation == "fresh"
    if kind == "process":
        from judge.sandbox.process import ProcessSandbox

        return ProcessSandbox(size=jobs, fresh=fresh, allow_unisolated=allow_unisolated)
    memory_mb = limits.memory_mb if limits is not None else None
    if kind == "docker":
        return _docker(jobs, fresh, notice, build=True, memory_mb=memory_mb)
    if kind != "auto":
        raise SandboxUnavailable("unknown sandbox %r (choose from %s)" % (kind, ", ".join(KINDS)))
    try:
        return _docker(jobs, fresh, notice, build=True, memory_mb=memory_mb)
    except SandboxUnavailable as exc:
        from judge.sandbox.process import ProcessSandbox

        notice("warning: using the process sandbox (%s); it does not isolate file system "
               "reads; see the README" % exc)
        return ProcessSandbox(size=jobs, fresh=fresh, allow_unisolated=allow_unisolated)


def _docker(jobs: int, fresh: bool, notice: Callable[[str], None], build: bool,
            memory_mb: int | None = None) -> Sandbox:
    try:
        from judge.sandbox import image
        from judge.sandbox.build import build_image
        from judge.sandbox.docker import DockerSandbox
    except ImportError as exc:  # pragma: no cover - the docker SDK is a dependency
        raise SandboxUnavailable("docker support is not installed: %s" % exc) from None
    if not image.engine_available():
        raise SandboxUnavailable("no Docker engine answers")
    if image.image_ready() is None:
        if not build:
            raise SandboxUnavailable("the sandbox image is not built (run: judge sandbox build)")
        notice("building the docker sandbox image (once)...")
        try:
            build_image(progress=notice)
        except Exception as exc:
            raise SandboxUnavailable("cannot build the sandbox image: %s" % exc) from None
    return DockerSandbox(size=jobs, fresh=fresh, memory_mb=memory_mb)


__all__ = ["KINDS", "Limits", "Sandbox", "SandboxUnavailable", "open_sandbox"]
