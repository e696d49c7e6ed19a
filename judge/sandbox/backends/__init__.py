"""Sandbox back ends by name: ``process`` and ``docker``, each with how it is opened and what
it needs here (its prerequisites, checked by ``judge sandbox doctor``).

The registry is :data:`judge.sandbox.BACKENDS`. A back end is a :class:`SandboxBackend`
(one instance per name); an external package adds one with an entry point in the group
``judge.sandboxes`` (``name = "package.module:MyBackend"``), the way inspect_ai's
``util/_sandbox/`` registers its sandbox environments.
"""

from __future__ import annotations

from typing import Callable

from judge.sandbox.base import Limits, Sandbox, SandboxUnavailable
from judge.sandbox.prerequisites import Prerequisite

Notice = Callable[[str], None]


def _quiet(message: str) -> None:
    return None


class SandboxBackend:
    """One sandbox back end: :meth:`open` a pool of ``jobs`` warm workers, and say what it
    needs (:meth:`prerequisites`). Subclasses set ``name`` and ``description``."""

    name = ""
    description = ""
    #: jobs with a build (languages the worker does not run itself) go to a second pool of
    #: this back end, opened by :meth:`open_native` on the first such job
    native_pool = False

    def open_native(self, jobs: int, fresh: bool = False) -> Sandbox:
        """The second pool of ``native_pool`` back ends."""
        raise NotImplementedError

    def open(self, jobs: int, *, fresh: bool = False, notice: Notice = _quiet,
             limits: Limits | None = None, allow_unisolated: bool = False) -> Sandbox:
        """A new sandbox; SandboxUnavailable when it cannot be had here."""
        raise NotImplementedError

    def prerequisites(self) -> list[Prerequisite]:
        """What it needs here, each checked (never raises)."""
        return []


class ProcessBackend(SandboxBackend):
    name = "process"
    description = ("warm local worker processes; as root each runs candidates as its own uid "
                   "without network, with a private /tmp")

    def open(self, jobs: int, *, fresh: bool = False, notice: Notice = _quiet,
             limits: Limits | None = None, allow_unisolated: bool = False) -> Sandbox:
        from judge.sandbox.process import ProcessSandbox

        return ProcessSandbox(size=jobs, fresh=fresh, allow_unisolated=allow_unisolated)

    def prerequisites(self) -> list[Prerequisite]:
        from judge.sandbox.process import prerequisites

        return prerequisites()


class DockerBackend(SandboxBackend):
    name = "docker"
    description = "warm containers of the judge's images (no network, read-only, own user)"
    native_pool = True
    #: the native image's containers: room for compilers beside the tests' own limits
    NATIVE = {"memory_headroom_mb": 1536, "tmpfs_mb": 512, "pids_limit": 512,
              "fsize_mb": 256, "exec_work": True}

    def open_native(self, jobs: int, fresh: bool = False) -> Sandbox:
        """A pool of the ``native`` image (the five toolchains), built first if missing."""
        from judge.sandbox import build, image
        from judge.sandbox.docker import DockerSandbox

        if image.image_ready("native") is None:
            build.build_image("native", progress=lambda message: None)
        return DockerSandbox(size=jobs, fresh=fresh, language="native", **self.NATIVE)

    def open(self, jobs: int, *, fresh: bool = False, notice: Notice = _quiet,
             limits: Limits | None = None, allow_unisolated: bool = False) -> Sandbox:
        """Builds the image first when it is missing (saying so)."""
        try:
            from judge.sandbox import image
            from judge.sandbox.build import build_image
            from judge.sandbox.docker import DockerSandbox
        except ImportError as exc:  # pragma: no cover - the docker SDK is a dependency
            raise SandboxUnavailable("docker support is not installed: %s" % exc) from None
        if not image.engine_available():
            raise SandboxUnavailable("no Docker engine answers")
        if image.image_ready() is None:
            notice("building the docker sandbox image (once)...")
            try:
                build_image(progress=notice)
            except Exception as exc:
                raise SandboxUnavailable("cannot build the sandbox image: %s" % exc) from None
        memory_mb = limits.memory_mb if limits is not None else None
        return DockerSandbox(size=jobs, fresh=fresh, memory_mb=memory_mb)

    def prerequisites(self) -> list[Prerequisite]:
        try:
            from judge.sandbox.maintenance import prerequisites
        except ImportError as exc:  # pragma: no cover - the docker SDK is a dependency
            return [Prerequisite("docker SDK", "the docker Python package", False, str(exc))]
        return prerequisites()


__all__ = ["DockerBackend", "ProcessBackend", "SandboxBackend"]
