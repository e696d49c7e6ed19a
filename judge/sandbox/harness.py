"""The harness that runs inside a sandbox: the worker's source, rendered with jinja2 from
``runners/<language>/``, and the protocol version both sides check at the handshake.

This lives in the sandbox layer (not with the prompts) because a back end must be able to
start its worker knowing nothing of problems or prompts: the sandbox imports nothing above it.
"""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from judge.resources import runner_dir
from judge.sandbox import wire

#: the worker's protocol version; the judge side checks it at the handshake
PROTOCOL = 1

#: standard-library modules the worker imports once, so each forked test finds them loaded.
#: Only light, common ones: every page the worker holds makes each fork slower (measured:
#: 30 modules doubled the cost of a fork).
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


@functools.lru_cache(maxsize=None)
def render_worker(language: str = "python") -> str:
    """The sandbox worker's source, self-contained (the wire codec is inlined)."""
    env = template_environment(str(runner_dir(language)))
    codec = Path(wire.__file__).read_text(encoding="utf-8")
    source = env.get_template("worker.py.j2").render(
        protocol=PROTOCOL, preimports=PREIMPORTS, codec_source=codec
    )
    return with_native_languages(source)


MAIN_GUARD = '\nif __name__ == "__main__":'


def with_native_languages(source: str) -> str:
    """The worker, able to run jobs of the other languages too: ``runners/native/`` adds a
    ``Worker`` that execs a compiled candidate per test under the same supervision (see
    judge/languages/). Inserted before the worker's main guard, so ``main`` picks it up."""
    extension = runner_dir("native") / "native_worker.py"
    if not extension.is_file() or MAIN_GUARD not in source:
        return source
    head, guard, tail = source.rpartition(MAIN_GUARD)
    return head + "\n\n" + extension.read_text(encoding="utf-8") + "\n" + guard + tail


#: how a worker is started: imported as a module, so its compiled bytecode is loaded from
#: ``__pycache__`` rather than compiled from source at each start (a script always is). A
#: worker started from source holds about 4 MB more memory (what the compiler left), and the
#: worker forks once per candidate and per isolated test: every fork copies the page tables
#: of all of it, and every child unmaps them again at exit.
_LAUNCH = ("import sys; sys.path.insert(0, %r); import worker; del sys.path[0]; "
           "sys.exit(worker.main(sys.argv[1:]))")


def worker_command(python: str, directory: str, write_bytecode: bool = True) -> list[str]:
    """The command that starts the worker ``directory/worker.py`` with ``python`` (its
    arguments follow). ``write_bytecode=False`` (a read-only image, compiled at build) adds
    ``-B``."""
    return [python, "-I"] + ([] if write_bytecode else ["-B"]) + ["-c", _LAUNCH % directory]


def precompile(path: str) -> None:
    """Write ``path``'s bytecode next to it (``__pycache__``), for :func:`worker_command`;
    a worker whose interpreter wants another cache tag compiles and writes its own."""
    import py_compile  # noqa: PLC0415

    try:
        py_compile.compile(path, doraise=True)
    except (py_compile.PyCompileError, OSError):
        pass  # the worker compiles it itself
