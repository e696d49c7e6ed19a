"""PHP 8: whole programs only (program problems), run as Kattis runs PHP (``php -d
display_errors=stderr -d html_errors=0 -f main.php``: errors on standard error, never in the
output) with no memory limit of PHP's own (``memory_limit=-1``: the sandbox's limit decides,
so a memory bomb is ``memory_limit``); ``php -l`` checks the syntax once as the compile step.
A program without the opening ``<?php`` tag gets one, as SandboxFusion does (leading blank
space removed, the tag prepended when the code does not start with it).

Function problems: the candidate's ``solution.php`` (tagged as above) is checked with
``php -l`` once, then the harness (runners/php/harness.php.j2) requires it at global scope in
each test's own ``php``, finds the function (a ``function``, a closure in a global variable,
or a method of a class ``Solution``), calls it once and writes the value as wire data to fd 3.
int -> int (64 bits: a problem whose tests hold a larger integer is refused), float -> float
(NAN, INF), str -> string (UTF-8), bool, None -> null, list, tuple and set -> a list array,
dict -> an array keyed by int or string (a dict keyed by anything else is refused: PHP's array
keys are ints and strings), Optional -> the value or null."""

from __future__ import annotations

import re
from typing import Any

from judge.languages.base import Build, NotExpressible, descriptor, float_literal
from judge.languages.scripts import Script
from judge.problem.types import TypeSpec

PHP = "/usr/bin/php"
_FLAGS = ("-d", "display_errors=stderr", "-d", "html_errors=0", "-d", "log_errors=0")
_ERROR = re.compile(r"^(?:PHP )?(?P<message>[\w ]*error: .*?) in (?P<file>\S+) on line "
                    r"(?P<line>\d+)", re.M)
TAG = "<?php"
#: assert() evaluated, and a failed one thrown (an AssertionError)
ASSERTIONS_ON = ("-d", "zend.assertions=1", "-d", "assert.exception=1")


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

    def program_build(self, sources: dict[str, str], memory_mb: int,
                      syntax_check: bool = True, assertions: bool = False) -> Build:
        """``assertions``: ``assert()`` checks and throws (test programs). Debian's php.ini,
        as SandboxFusion's Ubuntu image's, compiles assertions out (``zend.assertions=-1``),
        which only the command line can undo."""
        build = super().program_build(sources, memory_mb, syntax_check)
        if assertions:
            build.run = [build.run[0], *ASSERTIONS_ON, *build.run[1:]]
        return build

    def prepare_source(self, code: str) -> tuple[str, int]:
        stripped = code.lstrip()
        removed = code[: len(code) - len(stripped)].count("\n")
        if stripped.startswith(TAG):
            return stripped, -removed
        return TAG + "\n" + stripped, 1 - removed

    # ---- function problems -------------------------------------------------------------

    candidate_file = "solution.php"
    comment = "//"

    def defines(self, code: str, name: str) -> bool:
        n = re.escape(name)
        return re.search(r"\bfunction\s+&?%s\s*\(|^\s*\$%s\s*=\s*(?:static\s+)?(?:function|fn)\b"
                         % (n, n), code, re.M | re.I) is not None

    def check_expressible(self, problem: Any) -> None:
        from judge.languages.bigints import check_int_range

        for spec in list(problem.param_specs) + [problem.return_spec]:
            descriptor(spec)
            self.type_name(spec)
        check_int_range(problem, -(1 << 63), 1 << 63, self.title, "int (64 bits)")

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        """PHPDoc's notation: ``int``, ``float``, ``string``, ``bool``, ``null``, ``int[]``,
        ``array{int, string}`` (a tuple), ``array<string, int>``, ``?int``, ``mixed``."""
        kind = spec.kind
        simple = {"int": "int", "float": "float", "str": "string", "bool": "bool",
                  "none": "null", "any": "mixed"}
        if kind in simple:
            return simple[kind]
        if kind in ("list", "sequence", "set") or (kind == "tuple" and spec.variadic):
            inner = self.type_name(spec.args[0], False)
            return "%s[]" % inner if re.fullmatch(r"\w+", inner) else "array<%s>" % inner
        if kind == "tuple":
            return "array{%s}" % ", ".join(self.type_name(a, False) for a in spec.args)
        if kind == "dict":
            key, value = spec.args
            if key.kind not in ("int", "str", "any"):
                raise NotExpressible("type %s: PHP array keys are ints and strings" % spec)
            return "array<%s, %s>" % (self.type_name(key, False), self.type_name(value, False))
        if kind == "optional":
            inner = self.type_name(spec.args[0], False)
            return "?%s" % inner if re.fullmatch(r"\w+", inner) else "%s|null" % inner
        if kind == "union":
            return "|".join(dict.fromkeys(self.type_name(a, False) for a in spec.args))
        raise NotExpressible("type %s has no PHP counterpart here" % spec)

    def literal(self, value: Any, spec: TypeSpec) -> str:
        kind = spec.kind
        if value is None:
            return "null"
        if kind == "optional":
            return self.literal(value, spec.args[0])
        if kind in ("any", "union"):
            return self._any(value)
        if kind == "bool":
            return "true" if value else "false"
        if kind == "int":
            return str(value)
        if kind == "float":
            return self._float(value)
        if kind == "str":
            return self._string(value)
        if kind in ("list", "sequence", "set") or (kind == "tuple" and spec.variadic):
            items = sorted(value, key=repr) if kind == "set" else value
            return "[%s]" % ", ".join(self.literal(v, spec.args[0]) for v in items)
        if kind == "tuple":
            return "[%s]" % ", ".join(self.literal(v, s) for v, s in zip(value, spec.args))
        if kind == "dict":
            key, val = spec.args
            return "[%s]" % ", ".join("%s => %s" % (self.literal(k, key), self.literal(v, val))
                                      for k, v in value.items())
        raise NotExpressible("a %s value" % spec)

    @staticmethod
    def _float(value: float) -> str:
        if value != value:
            return "NAN"
        if value in (float("inf"), float("-inf")):
            return "INF" if value > 0 else "-INF"
        return float_literal(value)

    @staticmethod
    def _string(text: str) -> str:
        """A single-quoted PHP string (no interpolation), or a double-quoted one with escapes
        when it holds control characters."""
        if re.search(r"[\x00-\x1f]", text):
            body = "".join("\\x%02x" % ord(c) if ord(c) < 0x20 else
                           "\\" + c if c in "\\\"$" else c for c in text)
            return '"%s"' % body
        return "'%s'" % text.replace("\\", "\\\\").replace("'", "\\'")

    def _any(self, value: Any) -> str:
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return self._float(value)
        if isinstance(value, str):
            return self._string(value)
        if isinstance(value, (list, tuple, set, frozenset)):
            return "[%s]" % ", ".join(self._any(v) for v in value)
        if isinstance(value, dict):
            return "[%s]" % ", ".join("%s => %s" % (self._any(k), self._any(v))
                                      for k, v in value.items())
        raise NotExpressible("a value of type %s" % type(value).__name__)

    def signature(self, function, names, params, returns):
        return "function %s(%s)" % (function, ", ".join("$" + n for n in names))

    def stub(self, function, names, params, returns, doc):
        lines = ["/**"] + [(" * " + line).rstrip() for line in doc.strip().splitlines()]
        lines += [" * @param %s $%s" % (self.type_name(s), n) for n, s in zip(names, params)]
        lines += [" * @return %s" % self.return_type_name(returns), " */"]
        return "%s\n%s {\n" % ("\n".join(lines), self.signature(function, names, params, returns))

    def call(self, function: str, args: list[str]) -> str:
        return "%s(%s)" % (function, ", ".join(args))

    def build(self, code: str, function: str, params: list[TypeSpec], returns: TypeSpec,
              memory_mb: int) -> Build:
        source, offset = self.prepare_source(code)
        harness = self.render("harness.php.j2", functions=self.function_names(function),
                              params=[descriptor(p) for p in params],
                              returns=descriptor(returns), candidate_file=self.candidate_file,
                              line_offset=offset)
        return Build(files={self.candidate_file: source, "harness.php": harness},
                     compile=[[*self.syntax_check, self.candidate_file]],
                     run=[*self.interpreter, "{build}/harness.php", "{args}"],
                     artifacts=[self.candidate_file, "harness.php"], line_offset=offset,
                     candidate_file=self.candidate_file)


__all__ = ["Php"]
