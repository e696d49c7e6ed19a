"""Ruby: whole programs (program problems), run as Kattis and SandboxFusion run Ruby
(``ruby main.rb``); ``ruby -c`` checks the syntax once as the compile step (as Kattis does:
the main file). test/unit is there (SandboxFusion's Ruby tests use it).

Function problems: the candidate's ``solution.rb`` is checked with ``ruby -c`` once, then the
harness (runners/ruby/harness.rb.j2) loads it in each test's own ``ruby``, finds the function
(a method defined at top level, a lambda or proc in a constant or a global, or an instance
method of a class ``Solution``), calls it once with the test's arguments as Ruby values and
writes its return value as wire data to fd 3. The values map one to one: int -> Integer
(arbitrary precision, exact), float -> Float (NaN and infinities too), str -> String (UTF-8),
bool -> true/false, None -> nil, list and tuple -> Array, set -> Set, dict -> Hash (keys of
any type, compared by value), Optional -> the value or nil. Names are snake_case, as
problems write them; prompts show ``def name(args)`` under YARD type comments
(``# @param nums [Array<Integer>]``, ``# @return [Integer]``). Nothing the seed format
declares is refused."""

from __future__ import annotations

import re
from typing import Any

from judge.languages.base import Build, NotExpressible, descriptor, float_literal, json_string
from judge.languages.scripts import Script
from judge.problem.types import TypeSpec

RUBY = "/usr/bin/ruby"
_ERROR = re.compile(r"^(?P<file>[^\s:]+\.rb):(?P<line>\d+): (?P<message>.*)$", re.M)


def _ruby_string(text: str) -> str:
    """A double-quoted Ruby string: JSON's escapes, and ``#`` escaped where Ruby would
    interpolate (``#{``, ``#@``, ``#$``)."""
    return re.sub(r"#(?=[{@$])", r"\\#", json_string(text))


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
    candidate_file = "solution.rb"
    comment = "#"

    # ---- names ---------------------------------------------------------------------------

    def conventional_name(self, name: str) -> str:
        """snake_case (``pascalRow`` -> ``pascal_row``; snake_case names stay)."""
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()

    def defines(self, code: str, name: str) -> bool:
        n = re.escape(name)
        if re.search(r"^\s*def\s+(?:self\.)?%s\b(?![?!=])|\bdefine_method\(?\s*:%s\b" % (n, n),
                     code, re.M):
            return True
        # a lambda or proc in a constant (PASCAL_ROW, PascalRow) or a global ($pascal_row)
        camel = "".join(p[:1].upper() + p[1:] for p in name.split("_") if p)
        holders = "|".join(re.escape(h) for h in dict.fromkeys(
            ["$" + name, name.upper(), camel, name]) if h)
        return re.search(r"^\s*(?:%s)\s*=\s*(?:lambda\b|->|proc\b|Proc\.new\b|method\()"
                         % holders, code, re.M) is not None

    # ---- types ---------------------------------------------------------------------------

    def check_expressible(self, problem: Any) -> None:
        for spec in list(problem.param_specs) + [problem.return_spec]:
            descriptor(spec)
            self.type_name(spec)

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        """YARD's type notation: ``Array<Integer>``, ``Array(Integer, String)`` (a fixed
        tuple), ``Hash{String => Integer}``, ``Set<String>``, ``Integer, nil``."""
        kind = spec.kind
        simple = {"int": "Integer", "float": "Float", "str": "String", "bool": "Boolean",
                  "none": "nil", "any": "Object"}
        if kind in simple:
            return simple[kind]
        if kind in ("list", "sequence") or (kind == "tuple" and spec.variadic):
            return "Array<%s>" % self.type_name(spec.args[0], False)
        if kind == "tuple":
            return "Array(%s)" % ", ".join(self.type_name(a, False) for a in spec.args)
        if kind == "set":
            return "Set<%s>" % self.type_name(spec.args[0], False)
        if kind == "dict":
            key, value = spec.args
            return "Hash{%s => %s}" % (self.type_name(key, False), self.type_name(value, False))
        if kind == "optional":
            return "%s, nil" % self.type_name(spec.args[0], False)
        if kind == "union":
            return ", ".join(dict.fromkeys(self.type_name(a, False) for a in spec.args))
        raise NotExpressible("type %s has no Ruby counterpart here" % spec)

    def literal(self, value: Any, spec: TypeSpec) -> str:
        kind = spec.kind
        if value is None:
            return "nil"
        if kind == "optional":
            return self.literal(value, spec.args[0])
        if kind in ("any", "union"):
            return self._any_literal(value)
        if kind == "bool":
            return "true" if value else "false"
        if kind == "int":
            return str(value)
        if kind == "float":
            return self._float(value)
        if kind == "str":
            return _ruby_string(value)
        if kind in ("list", "sequence") or (kind == "tuple" and spec.variadic):
            return "[%s]" % ", ".join(self.literal(v, spec.args[0]) for v in value)
        if kind == "tuple":
            return "[%s]" % ", ".join(self.literal(v, s) for v, s in zip(value, spec.args))
        if kind == "set":
            return "Set[%s]" % ", ".join(self.literal(v, spec.args[0])
                                         for v in sorted(value, key=repr))
        if kind == "dict":
            key, val = spec.args
            if not value:
                return "{}"
            return "{%s}" % ", ".join("%s => %s" % (self.literal(k, key), self.literal(v, val))
                                      for k, v in value.items())
        raise NotExpressible("a %s value" % spec)

    @staticmethod
    def _float(value: float) -> str:
        if value != value:
            return "Float::NAN"
        if value in (float("inf"), float("-inf")):
            return "Float::INFINITY" if value > 0 else "-Float::INFINITY"
        return float_literal(value)

    def _any_literal(self, value: Any) -> str:
        if value is None:
            return "nil"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return self._float(value)
        if isinstance(value, str):
            return _ruby_string(value)
        if isinstance(value, (list, tuple)):
            return "[%s]" % ", ".join(self._any_literal(v) for v in value)
        if isinstance(value, (set, frozenset)):
            return "Set[%s]" % ", ".join(self._any_literal(v) for v in sorted(value, key=repr))
        if isinstance(value, dict):
            return "{%s}" % ", ".join("%s => %s" % (self._any_literal(k), self._any_literal(v))
                                      for k, v in value.items())
        raise NotExpressible("a value of type %s" % type(value).__name__)

    # ---- prompts -------------------------------------------------------------------------

    def signature(self, function, names, params, returns):
        """``def name(args)`` under its YARD types (Ruby has no types in the signature)."""
        lines = ["# @param %s [%s]" % (n, self.type_name(s)) for n, s in zip(names, params)]
        lines.append("# @return [%s]" % self.return_type_name(returns))
        return "%s\ndef %s(%s)" % ("\n".join(lines), function, ", ".join(names))

    def stub(self, function, names, params, returns, doc):
        lines = [("# " + line).rstrip() for line in doc.strip().splitlines()]
        head = "\n".join(lines) + "\n#\n" if lines else ""
        return "%s%s\n" % (head, self.signature(function, names, params, returns))

    # ---- builds --------------------------------------------------------------------------

    def build(self, code: str, function: str, params: list[TypeSpec], returns: TypeSpec,
              memory_mb: int) -> Build:
        harness = self.render("harness.rb.j2", functions=self.function_names(function),
                              params=[descriptor(p) for p in params],
                              returns=descriptor(returns), candidate_file=self.candidate_file)
        return Build(files={self.candidate_file: code, "harness.rb": harness},
                     compile=[[RUBY, "-c", self.candidate_file]],
                     run=[RUBY, "{build}/harness.rb", "{args}"],
                     artifacts=[self.candidate_file, "harness.rb"],
                     candidate_file=self.candidate_file)


__all__ = ["Ruby"]
