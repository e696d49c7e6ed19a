"""Ruby: whole programs only (program problems), run as Kattis and SandboxFusion run Ruby
(``ruby main.rb``); ``ruby -c`` checks the syntax once as the compile step (as Kattis does:
the main file). test/unit is there (SandboxFusion's Ruby tests use it). Function problems are
not expressible in Ruby."""

from __future__ import annotations

import re

from judge.languages.scripts import Script

RUBY = "/usr/bin/ruby"
_ERROR = re.compile(r"^(?P<file>[^\s:]+\.rb):(?P<line>\d+): (?P<message>.*)$", re.M)


class Ruby(Script):
    name = "ruby"
    title = "Ruby"
    extension = "rb"
    fence_tags = ("ruby", "rb")
    tools = (("ruby", (RUBY, "--version")),)
    names_in = {"kattis": ("ruby",), "sandboxfusion": ("ruby",)}
    allocation_errors = ("NoMemoryError",)
    oom_markers = ("failed to allocate memory",)
    interpreter = (RUBY,)
    syntax_check = (RUBY, "-c")
    error = _ERROR
    function_pattern = r"^\s*def\s+(?:self\.)?%s\b"
    startup_s = 0.1
    memory_headroom_mb = 32
    may_loop_forever = re.compile(r"\bloop\s+do\b|\bloop\s*\{|\bwhile\s+true\b|\buntil\s+false\b")
    may_loop = re.compile(r"\b(while|until|loop|redo)\b")


__all__ = ["Ruby"]
