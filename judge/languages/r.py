"""R: whole programs only (program problems), run as SandboxFusion runs them (``Rscript
main.R``). R's own parser checks the syntax once as the compile step (``Rscript -e
'invisible(parse(file))'``: an error names the file, line and column). R starts in about
0.2 s of CPU and 50 MB: both are added to a run's limits. Function problems are not
expressible in R."""

from __future__ import annotations

import re

from judge.languages.scripts import Script

RSCRIPT = "/usr/bin/Rscript"
_ERROR = re.compile(r"(?P<file>[^\s:()\"]+\.[Rr]):(?P<line>\d+):\d+: (?P<message>.*)$", re.M)
_PARSE = "invisible(parse(file = commandArgs(TRUE)[1]))"


class R(Script):
    name = "r"
    title = "R"
    extension = "R"
    source_extensions = ("R", "r")
    fence_tags = ("r", "rscript")
    tools = (("Rscript", (RSCRIPT, "--version")),)
    names_in = {"sandboxfusion": ("R",)}
    interpreter = (RSCRIPT,)
    error = _ERROR
    function_pattern = r"^\s*`?%s`?\s*(?:<-|=)\s*function\b"
    startup_s = 0.5
    memory_headroom_mb = 64
    #: R refuses to start with fewer than 167 open files (room for its DLLs)
    nofile = 256
    oom_markers = ("cannot allocate vector of size",)
    may_loop_forever = re.compile(r"\brepeat\s*\{|\bwhile\s*\(\s*(TRUE|T|1)\s*\)")
    may_loop = re.compile(r"\b(while|repeat)\b")

    def check_commands(self, main: str, files: dict[str, str]) -> list[list[str]]:
        return [[RSCRIPT, "-e", _PARSE, main]]


__all__ = ["R"]
