"""Which sandbox runs a job of another language.

The process sandbox runs every language (the host's toolchains, installed by
scripts/ensure-toolchains.sh). Under Docker, Python jobs keep the Python image and the other
languages go to one more warm pool of the ``native`` image (sandboxes/native/: the same worker
plus the five toolchains), opened on the first such job and closed with the run: a back end
that says ``native_pool`` (judge/sandbox/backends.py) opens that pool itself."""

from __future__ import annotations

import threading
from typing import Any

from judge.sandbox import BACKENDS
from judge.sandbox.base import Job, JobReport, Sandbox, SandboxUnavailable


def _backend(sandbox: Sandbox) -> Any:
    """The registered back end of an open sandbox (None for one opened by hand)."""
    return BACKENDS.get(sandbox.name) if sandbox.name in BACKENDS else None


def open_native_docker(size: int, fresh: bool = False) -> Sandbox:
    return BACKENDS.get("docker").open_native(size, fresh)


class LanguageSandbox(Sandbox):
    """A Docker sandbox for Python jobs, and a native one for the other languages."""

    def __init__(self, python: Sandbox, size: int, fresh: bool = False,
                 backend: Any = None) -> None:
        self.python = python
        self.backend = backend or _backend(python)
        self.name = python.name
        self.size = size
        #: jobs in flight at most: the Python pool's (blocked candidates lend their core)
        self.capacity = getattr(python, "capacity", size)
        self.fresh = fresh
        self._native: Sandbox | None = None
        self._native_error: str | None = None
        self._lock = threading.Lock()

    def _native_sandbox(self) -> Sandbox | None:
        with self._lock:
            if self._native is None and self._native_error is None:
                try:
                    self._native = self.backend.open_native(self.size, self.fresh)
                except Exception as exc:  # our infrastructure: sandbox_error, never the candidate's
                    self._native_error = "the native docker sandbox is unavailable: %s" % exc
            return self._native

    def run(self, job: Job) -> JobReport:
        if job.build is None:  # the worker runs it itself: the Python image
            return self.python.run(job)
        native = self._native_sandbox()
        if native is None:
            return JobReport(sandbox=self.name, infra_error=self._native_error)
        return native.run(job)

    def isolation(self) -> dict[str, Any]:
        """The Python pool's facts: the native pool's containers have the same isolation (user,
        no network, private /tmp, read-only image); only the image differs, so both are named."""
        from judge.sandbox import image

        facts = dict(self.python.isolation())
        facts["image"] = "%s (python); %s (js, cpp, go, rust, java)" % (
            facts.get("image"), image.image_tag("native"))
        return facts

    def describe(self) -> dict[str, Any]:
        info = dict(self.python.describe())
        if self._native is not None:
            info["native"] = self._native.describe()
        return info

    def close(self) -> None:
        try:
            self.python.close()
        finally:
            if self._native is not None:
                self._native.close()


def for_languages(sandbox: Sandbox, size: int, fresh: bool = False) -> Sandbox:
    """The sandbox a run uses: one whose back end has no native pool (process) as it is,
    one with a native pool (docker) with it."""
    backend = _backend(sandbox)
    if backend is not None and backend.native_pool:
        return LanguageSandbox(sandbox, size, fresh, backend)
    return sandbox


__all__ = ["LanguageSandbox", "SandboxUnavailable", "for_languages", "open_native_docker"]
