"""Racket: whole programs only (program problems), run as SandboxFusion runs them (``racket
main.rkt``), compiled once by ``raco make`` (the module's byte code in ``compiled/``, which
each run loads: a syntax error or an unbound identifier is the compile step's). A program
without a ``#lang`` line (nor a ``module`` form) gets ``#lang racket``. The full ``racket``
language takes about 0.5 s of CPU and 140 MB to load: both are added to a run's limits.
Function problems are not expressible in Racket."""

from __future__ import annotations

import re

from judge.languages.scripts import Script

RACKET = "/usr/bin/racket"
_ERROR = re.compile(r"^(?P<file>[^\s:]+\.rkt):(?P<line>\d+):\d+: (?P<message>.*)$", re.M)
_LANG = re.compile(r"\A(?:\s|;[^\n]*\n|#!.*\n)*(?:#lang\b|#!\s*\w|\(\s*module\b)")


class Racket(Script):
    name = "racket"
    title = "Racket"
    extension = "rkt"
    fence_tags = ("racket", "rkt", "scheme")
    tools = (("racket", (RACKET, "--version")),)
    names_in = {"sandboxfusion": ("racket",)}
    interpreter = (RACKET,)
    syntax_check = ("/usr/bin/raco", "make")
    error = _ERROR
    function_pattern = r"\(define\s+\(\s*%s[\s)]"
    comment = ";"
    startup_s = 1.0
    memory_headroom_mb = 192
    oom_markers = ("out of memory",)
    may_block = re.compile(r"\((sleep|sync|thread-wait|semaphore-wait|channel-get|tcp-accept"
                           r"|subprocess|system|process)\b")
    may_loop_forever = re.compile(r"\(let\s+loop\s*\(\s*\)")
    may_loop = re.compile(r"\(let\s+\w+\s*\(|\(do\s*\(|\bfor\b")

    def prepare_source(self, code: str) -> tuple[str, int]:
        if _LANG.match(code):
            return code, 0
        return "#lang racket\n" + code, 1

    def products(self, main: str) -> list[str]:
        return ["compiled"]


__all__ = ["Racket"]
