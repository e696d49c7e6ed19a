"""The ``docker`` back end: how it is opened and what it needs here. A pool is an image:
``python`` (the sandbox :meth:`DockerBackend.open` gives), ``native`` (the five
toolchains) and ``polyglot`` (the languages beyond them), each opened on the first job that
needs it."""

from __future__ import annotations

from judge.sandbox.backends import Notice, SandboxBackend, _quiet
from judge.sandbox.base import Limits, Sandbox, SandboxUnavailable
from judge.sandbox.prerequisites import Prerequisite


class DockerBackend(SandboxBackend):
    name = "docker"
    description = "warm containers of the judge's images (no network, read-only, own user)"
    #: the pool (image) the sandbox :meth:`open` gives runs
    MAIN_POOL = "python"
    #: each other pool's containers: the native image's have room for compilers beside the
    #: tests' own limits
    POOLS = {"native": {"memory_headroom_mb": 1536, "tmpfs_mb": 512, "pids_limit": 512,
                        "fsize_mb": 256, "exec_work": True},
             "polyglot": {"memory_headroom_mb": 1536, "tmpfs_mb": 512, "pids_limit": 512,
                          "fsize_mb": 256, "exec_work": True}}

    def own_pool(self, pool: str) -> bool:
        return pool != self.MAIN_POOL

    def pool_runs(self, pool: str) -> str | None:
        """The image tag of ``pool``."""
        from judge.sandbox.backends.docker import image

        return image.image_tag(pool)

    def open_pool(self, pool: str, jobs: int, fresh: bool = False) -> Sandbox:
        """A pool of the image ``pool`` (``native``: the five toolchains), built first if
        missing."""
        from judge.sandbox.backends.docker import build, image
        from judge.sandbox.backends.docker.sandbox import DockerSandbox

        if image.image_ready(pool) is None:
            build.build_image(pool, progress=lambda message: None)
        return DockerSandbox(size=jobs, fresh=fresh, language=pool, **self.POOLS.get(pool, {}))

    def open(self, jobs: int, *, fresh: bool = False, notice: Notice = _quiet,
             limits: Limits | None = None, allow_unisolated: bool = False) -> Sandbox:
        """Builds the image first when it is missing (saying so)."""
        try:
            from judge.sandbox.backends.docker import image
            from judge.sandbox.backends.docker.build import build_image
            from judge.sandbox.backends.docker.sandbox import DockerSandbox
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
            from judge.sandbox.backends.docker.maintenance import prerequisites
        except ImportError as exc:  # pragma: no cover - the docker SDK is a dependency
            return [Prerequisite("docker SDK", "the docker Python package", False, str(exc))]
        return prerequisites()


__all__ = ["DockerBackend"]
