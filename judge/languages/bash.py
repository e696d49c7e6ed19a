"""Bash: whole programs only (program problems), run as SandboxFusion runs them
(``/bin/bash main.sh``). ``bash -n`` checks the syntax once as the compile step. Function
problems are not expressible in Bash."""

from __future__ import annotations

import re

from judge.languages.scripts import Script

_ERROR = re.compile(r"^(?P<file>[^\s:]+): line (?P<line>\d+): (?P<message>.*)$", re.M)


class Bash(Script):
    name = "bash"
    title = "Bash"
    extension = "sh"
    source_extensions = ("sh", "bash")
    fence_tags = ("bash", "sh", "shell", "zsh")
    tools = (("bash", ("/bin/bash", "--version")),)
    names_in = {"sandboxfusion": ("bash",)}
    interpreter = ("/bin/bash",)
    syntax_check = ("/bin/bash", "-n")
    error = _ERROR
    may_loop_forever = re.compile(r"\bwhile\s+(true|:|\[\s*1\s*\])\s*;?\s*(do\b|$)"
                                  r"|\bfor\s*\(\(\s*;\s*;\s*\)\)|\buntil\s+false\b")
    may_loop = re.compile(r"\b(while|until|for)\b")

    def defines(self, code: str, name: str) -> bool:
        n = re.escape(name)
        return re.search(r"^\s*(?:function\s+%s\b|%s\s*\(\s*\))" % (n, n), code, re.M) is not None


__all__ = ["Bash"]
