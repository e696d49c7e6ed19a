"""Perl 5: whole programs only (program problems), run as SandboxFusion runs them
(``perl main.pl``). ``perl -c`` checks the syntax once as the compile step (it runs the
program's ``BEGIN`` blocks and ``use`` statements: in the sandbox, under the compile limits,
like any compiler). Test::Deep and Data::Compare are installed (SandboxFusion's Perl tests use
them). Function problems are not expressible in Perl."""

from __future__ import annotations

import re

from judge.languages.scripts import Script

_ERROR = re.compile(r"^(?P<message>.*?) at (?P<file>\S+) line (?P<line>\d+)\b.*$", re.M)


class Perl(Script):
    name = "perl"
    title = "Perl 5"
    extension = "pl"
    header_extensions = ("pm",)
    fence_tags = ("perl", "pl")
    tools = (("perl", ("/usr/bin/perl", "-v")),)
    names_in = {"sandboxfusion": ("perl",)}
    interpreter = ("/usr/bin/perl",)
    syntax_check = ("/usr/bin/perl", "-c")
    error = _ERROR
    function_pattern = r"^\s*sub\s+%s\b"
    memory_headroom_mb = 8
    may_loop_forever = re.compile(r"\bwhile\s*\(\s*1\s*\)|\bfor\s*\(\s*;\s*;\s*\)")
    may_loop = re.compile(r"\b(while|until|redo|goto)\b")


__all__ = ["Perl"]
