"""Lua 5.4: whole programs only (program problems), run as SandboxFusion runs them
(``lua main.lua``). ``luac5.4 -p`` checks the syntax once as the compile step (it writes
nothing). A program that requires ``luaunit`` (SandboxFusion's Lua tests and MultiPL-E's use
it) gets LuaUnit beside it: ``runners/lua/luaunit.lua``, LuaUnit 3.5 (BSD licence,
runners/lua/LICENSE-luaunit.txt), as SandboxFusion installs it with luarocks. Function
problems are not expressible in Lua."""

from __future__ import annotations

import functools
import re

from judge.languages.scripts import Script
from judge.resources import runner_dir

LUA = "/usr/bin/lua5.4"
_ERROR = re.compile(r"^(?:\S+: )?(?P<file>[^\s:]+\.lua):(?P<line>\d+): (?P<message>.*)$", re.M)
LUAUNIT = "luaunit.lua"


@functools.lru_cache(maxsize=1)
def luaunit_source() -> str:
    return (runner_dir("lua") / LUAUNIT).read_text(encoding="utf-8")


class Lua(Script):
    name = "lua"
    title = "Lua 5.4"
    extension = "lua"
    fence_tags = ("lua",)
    tools = (("lua5.4", (LUA, "-v")),)
    names_in = {"sandboxfusion": ("lua",)}
    oom_markers = ("not enough memory",)
    interpreter = (LUA,)
    syntax_check = ("/usr/bin/luac5.4", "-p")
    error = _ERROR
    function_pattern = r"^\s*(?:local\s+)?function\s+(?:[\w.:]+[.:])?%s\s*\("
    comment = "--"
    may_loop_forever = re.compile(r"\bwhile\s+true\s+do\b|\buntil\s+false\b")
    may_loop = re.compile(r"\b(while|repeat|goto)\b")

    def extra_files(self, code: str) -> dict[str, str]:
        return {LUAUNIT: luaunit_source()} if re.search(r"\bluaunit\b", code) else {}

    def run_command(self, main: str, memory_mb: int, files: dict[str, str]) -> list[str]:
        if LUAUNIT in files:  # found first, before the system's modules
            return [LUA, "-e", "package.path = '{build}/?.lua;' .. package.path",
                    "{build}/" + main]
        return [LUA, "{build}/" + main]


__all__ = ["Lua", "luaunit_source"]
