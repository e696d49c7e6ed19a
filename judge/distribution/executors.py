"""Executors by name: where candidates are judged. ``local``: a warm sandbox on this machine;
``ray``: one warm sandbox per node of a Ray cluster (:mod:`judge.distribution.ray_executor`).

Each is an :class:`ExecutorKind` registered in :data:`EXECUTORS`; an external package adds
one with an entry point in the group ``judge.executors``. ``judge.Judge(executor=NAME)``
opens it; whatever it returns judges like :class:`~judge.kinds.function.judge.Executor`
(``judge``, ``limits``, ``close``...), so the batch path does not know which one runs.
"""

from __future__ import annotations

from typing import Any, Callable

from judge.running.executor import Executor
from judge.registry import Registry
from judge.sandbox import Limits, Sandbox, open_sandbox
from judge.sandbox.prerequisites import Prerequisite

Notice = Callable[[str], None]

#: the executors by name (external ones: entry points in ``judge.executors``)
EXECUTORS: Registry = Registry("executor", group="judge.executors", factory=True)
EXECUTORS.add("local", "judge.distribution.executors:LocalExecutor")
EXECUTORS.add("ray", "judge.distribution.ray_executor:RayExecutorKind")


class ExecutorKind:
    """One way to run candidates: :meth:`open` returns an executor for a run."""

    name = ""
    description = ""
    #: it opens its sandboxes where it runs them (on other machines): it takes the sandbox's
    #: kind, never a sandbox opened here
    remote = False

    def open(self, sandbox: str | Sandbox, jobs: int, limits: Limits, *,
             notice: Notice, options: dict[str, Any], address: str | None = None) -> Any:
        raise NotImplementedError

    def prerequisites(self) -> list[Prerequisite]:
        return []


def open_local(sandbox: str | Sandbox, jobs: int, limits: Limits, *, notice: Notice,
               options: dict[str, Any]) -> Executor:
    """An :class:`Executor` over ``sandbox`` (a kind is opened here; under Docker the other
    languages get the native image's pool). A sandbox opened here is closed when the
    executor cannot be made; the caller closes ``executor.sandbox`` after the executor."""
    from judge.languages.sandbox import for_languages

    opened = isinstance(sandbox, str)
    if isinstance(sandbox, str):
        isolation = options.get("isolation", "warm")
        sandbox = for_languages(
            open_sandbox(sandbox, jobs, isolation, notice=notice, limits=limits,
                         allow_unisolated=options.get("allow_unisolated", False)),
            jobs, isolation == "fresh")
    try:
        return Executor(sandbox, limits,
                        reference_timing=options.get("reference_timing", True),
                        stop_on_failure=options.get("fail_fast", False),
                        test_isolation=options.get("test_isolation", "on-failure"),
                        all_tests=bool(options.get("all_tests", False)))
    except BaseException:
        if opened:
            sandbox.close()
        raise


class LocalExecutor(ExecutorKind):
    name = "local"
    description = "a warm sandbox on this machine"

    def open(self, sandbox: str | Sandbox, jobs: int, limits: Limits, *,
             notice: Notice, options: dict[str, Any], address: str | None = None) -> Executor:
        return open_local(sandbox, jobs, limits, notice=notice, options=options)


def ray_prerequisites() -> list[Prerequisite]:
    """The 'ray' extra, and its version."""
    try:
        import ray
    except ImportError as exc:
        return [Prerequisite("ray", "the 'ray' extra (pip install 'judge[ray]')", False,
                             str(exc), required=True)]
    return [Prerequisite("ray", "the 'ray' extra", True, "ray %s" % ray.__version__)]


__all__ = ["EXECUTORS", "ExecutorKind", "LocalExecutor", "open_local", "ray_prerequisites"]
