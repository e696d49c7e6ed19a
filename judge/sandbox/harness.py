"""The worker that runs inside a sandbox, as files: the ``judge_worker`` package of
``runners/python/`` (plain Python modules, linted and tested like the rest), and how a back
end starts it. The protocol version both sides check at the handshake is the worker's own
(:mod:`judge.sandbox.records`, which the worker package shares with the judge).

This lives in the sandbox layer (not with the prompts) because a back end must be able to
start its worker knowing nothing of problems or prompts: the sandbox imports nothing above it.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import jinja2

from judge.resources import runner_dir
from judge.sandbox.records import PROTOCOL

__all__ = ["PROTOCOL", "PREIMPORTS", "WORKER_PACKAGE", "worker_files", "install_worker",
           "worker_command", "template_environment"]

#: the worker's package, in ``runners/python/``
WORKER_PACKAGE = "judge_worker"

#: standard-library modules the worker imports once, so each forked test finds them loaded
#: (passed with ``--preimport``). Only light, common ones: every page the worker holds makes
#: each fork slower (measured: 30 modules doubled the cost of a fork).
PREIMPORTS = [
    "bisect", "collections", "functools", "heapq", "itertools", "math", "operator", "re",
    "string", "typing",
]


@functools.lru_cache(maxsize=None)
def template_environment(folder: str) -> jinja2.Environment:
    """A strict jinja2 environment over one template folder (shared with the prompt layer's
    settings on purpose: a missing variable is an error, never an empty string)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def _skip(relative: Path) -> bool:
    return any(part == "__pycache__" or part.startswith(".") for part in relative.parts) or \
        relative.suffix in (".pyc", ".pyo")


def worker_files(language: str = "python") -> dict[str, bytes]:
    """The worker as files (relative path -> content), as it goes to a sandbox: every file of
    ``runners/python/`` with links read through, so ``judge_worker/wire.py`` and
    ``judge_worker/records.py`` carry the judge's own codec and vocabulary. Every language's
    sandbox runs this same worker (``native`` jobs are one of its job kinds)."""
    del language  # one worker for every language
    root = runner_dir("python")
    files: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and not _skip(relative):
            files[relative.as_posix()] = path.read_bytes()
    return files


def install_worker(directory: str | os.PathLike[str]) -> Path:
    """Write the worker into ``directory`` (readable by everyone: candidates switched to
    another user import nothing from it, but the worker may run as another user too) and
    compile its bytecode there, for :func:`worker_command`. Returns the directory."""
    import compileall  # noqa: PLC0415

    target = Path(directory)
    for name, data in worker_files().items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.parent.chmod(0o755)
        path.write_bytes(data)
        path.chmod(0o644)
    # a worker whose interpreter wants another cache tag compiles and writes its own
    compileall.compile_dir(str(target / WORKER_PACKAGE), quiet=2)
    for cache in target.rglob("__pycache__"):
        cache.chmod(0o755)
        for compiled in cache.iterdir():
            compiled.chmod(0o644)
    return target


#: how a worker is started: its package imported, so its compiled bytecode is loaded from
#: ``__pycache__`` rather than compiled from source at each start (a script always is). A
#: worker started from source holds about 4 MB more memory (what the compiler left), and the
#: worker forks once per candidate and per isolated test: every fork copies the page tables
#: of all of it, and every child unmaps them again at exit.
_LAUNCH = ("import sys; sys.path.insert(0, %r); from judge_worker.main import main; "
           "del sys.path[0]; sys.exit(main(sys.argv[1:]))")


def worker_command(python: str, directory: str, write_bytecode: bool = True) -> list[str]:
    """The command that starts the worker installed in ``directory`` (see
    :func:`install_worker`) with ``python`` (its arguments follow). ``write_bytecode=False``
    (a read-only image, compiled at build) adds ``-B``."""
    return [python, "-I"] + ([] if write_bytecode else ["-B"]) + [
        "-c", _LAUNCH % directory, "--preimport", ",".join(PREIMPORTS)]
