"""Rendering with jinja2: prompts (plain or genericized) and the sandbox worker (harness).

Templates live in ``judge/templates/`` (prompts) and ``runners/<language>/`` (harness code).
"""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from judge import wire
from judge.resources import runner_dir, templates_dir

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
def _environment(folder: str) -> jinja2.Environment:
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
    env = _environment(str(runner_dir(language)))
    codec = Path(wire.__file__).read_text(encoding="utf-8")
    return env.get_template("worker.py.j2").render(
        protocol=PROTOCOL, preimports=PREIMPORTS, codec_source=codec
    )


def prompt_environment() -> jinja2.Environment:
    return _environment(str(templates_dir()))
