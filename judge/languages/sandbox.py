"""Which pool runs a job of a language.

A language declares the worker pool its jobs run in (``Language.pool``: ``python`` for
Python, ``native`` for the others); the sandbox's back end decides what a pool is
(:meth:`judge.sandbox.backends.SandboxBackend.own_pool`). One that serves every pool with the
sandbox it opened (process: the host's toolchains run every language) is used as it is. One
that keeps pools apart gets a :class:`LanguageSandbox`: jobs the worker runs itself (no
``build``) go to the sandbox it opened, the others to their language's pool, opened on the
first such job and closed with the run. A program of a language the worker runs itself
(Python) is built by the worker's native part, in the pool of the other languages."""

from __future__ import annotations

import threading
from typing import Any

from judge import languages
from judge.languages.base import Language
from judge.sandbox import BACKENDS
from judge.sandbox.base import Job, JobReport, Sandbox, SandboxUnavailable


def _backend(sandbox: Sandbox) -> Any:
    """The registered back end of an open sandbox (None for one opened by hand)."""
    name = sandbox.backend()
    return BACKENDS.get(name) if name in BACKENDS else None


def job_pool(job: Job) -> str | None:
    """The pool of a job's worker: None for one the worker runs itself (the sandbox the back
    end opened), else its language's."""
    if job.build is None:
        return None
    lang = languages.get(job.language)
    return lang.pool if lang.worker_native else Language.pool


class LanguageSandbox(Sandbox):
    """The sandbox the back end opened for jobs the worker runs itself, and one more pool per
    language pool the back end keeps apart."""

    def __init__(self, python: Sandbox, size: int, fresh: bool = False,
                 backend: Any = None) -> None:
        self.python = python
        self.backend_of = backend or _backend(python)
        self.name = python.name
        self.size = size
        #: jobs in flight at most: the main pool's (blocked candidates lend their core)
        self.capacity = python.most_in_flight()
        self.fresh = fresh
        self._pools: dict[str, Sandbox] = {}
        self._errors: dict[str, str] = {}
        self._lock = threading.Lock()

    def backend(self) -> str:
        return self.python.backend()

    def pools(self) -> list[Sandbox]:
        with self._lock:
            opened = list(self._pools.values())
        return [*self.python.pools(), *(p for box in opened for p in box.pools())]

    def _pool(self, pool: str) -> Sandbox | None:
        with self._lock:
            if pool not in self._pools and pool not in self._errors:
                try:
                    self._pools[pool] = self.backend_of.open_pool(pool, self.size, self.fresh)
                except Exception as exc:  # our infrastructure: sandbox_error, never the candidate's
                    self._errors[pool] = "the %s %s sandbox is unavailable: %s" % (
                        pool, self.name, exc)
            return self._pools.get(pool)

    def run(self, job: Job) -> JobReport:
        pool = job_pool(job)
        if pool is None or not self.backend_of.own_pool(pool):
            return self.python.run(job)
        box = self._pool(pool)
        if box is None:
            return JobReport(sandbox=self.name, infra_error=self._errors[pool])
        return box.run(job)

    def isolation(self) -> dict[str, Any]:
        """The main pool's facts: the other pool's workers have the same isolation (user, no
        network, private /tmp, read-only image); only what runs the code differs, so both
        are named."""
        facts = dict(self.python.isolation())
        facts["image"] = "%s (python); %s (js, cpp, go, rust, java)" % (
            facts.get("image"), self.backend_of.pool_runs(Language.pool))
        return facts

    def describe(self) -> dict[str, Any]:
        info = dict(self.python.describe())
        with self._lock:
            info.update((pool, box.describe()) for pool, box in self._pools.items())
        return info

    def close(self) -> None:
        try:
            self.python.close()
        finally:
            with self._lock:
                opened, self._pools = list(self._pools.values()), {}
            for box in opened:
                box.close()


def for_languages(sandbox: Sandbox, size: int, fresh: bool = False) -> Sandbox:
    """The sandbox a run uses: one whose back end serves every pool (process) as it is, one
    whose back end keeps pools apart (docker) wrapped."""
    backend = _backend(sandbox)
    if backend is not None and backend.keeps_pools_apart():
        return LanguageSandbox(sandbox, size, fresh, backend)
    return sandbox


__all__ = ["LanguageSandbox", "SandboxUnavailable", "for_languages", "job_pool"]
