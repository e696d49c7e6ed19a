"""PHP 8: whole programs only (program problems), run as Kattis runs PHP (``php -d
display_errors=stderr -d html_errors=0 -f main.php``: errors on standard error, never in the
output) with no memory limit of PHP's own (``memory_limit=-1``: the sandbox's limit decides,
so a memory bomb is ``memory_limit``); ``php -l`` checks the syntax once as the compile step.
A program without the opening ``<?php`` tag gets one, as SandboxFusion does (leading blank
space removed, the tag prepended when the code does not start with it). Function problems
are not expressible in PHP."""

from __future__ import annotations

import re

from judge.languages.scripts import Script

PHP = "/usr/bin/php"
_FLAGS = ("-d", "display_errors=stderr", "-d", "html_errors=0", "-d", "log_errors=0")
_ERROR = re.compile(r"^(?:PHP )?(?P<message>[\w ]*error: .*?) in (?P<file>\S+) on line "
                    r"(?P<line>\d+)", re.M)
TAG = "<?php"


class Php(Script):
    name = "php"
    title = "PHP"
    extension = "php"
    fence_tags = ("php",)
    tools = (("php", (PHP, "--version")),)
    names_in = {"kattis": ("php",), "sandboxfusion": ("php",)}
    interpreter = (PHP, *_FLAGS, "-d", "memory_limit=-1", "-f")
    syntax_check = (PHP, "-n", *_FLAGS, "-l")
    error = _ERROR
    function_pattern = r"^\s*function\s+%s\s*\("
    startup_s = 0.05
    memory_headroom_mb = 32
    oom_markers = ("Allowed memory size of",)
    may_block = re.compile(r"\b(sleep|usleep|time_nanosleep|time_sleep_until|pcntl_wait"
                           r"|pcntl_waitpid|flock|stream_select|socket_accept|socket_recv"
                           r"|fgets\s*\(\s*STDIN|system|exec|shell_exec|proc_open|popen)\s*\(")

    def prepare_source(self, code: str) -> tuple[str, int]:
        stripped = code.lstrip()
        removed = code[: len(code) - len(stripped)].count("\n")
        if stripped.startswith(TAG):
            return stripped, -removed
        return TAG + "\n" + stripped, 1 - removed


__all__ = ["Php"]
