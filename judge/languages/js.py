"""JavaScript on Node.js: ``function f(...)`` or ``const f = (...) => ...``, camelCase names,
arrays for lists and tuples, ``Set``, plain objects for string-keyed maps (``Map`` otherwise),
``null`` for None. Syntax is checked once (``node --check``); each test runs its own Node."""

from __future__ import annotations

import re
import subprocess
from typing import Any

from judge.languages.base import (main_source, Build, Language, NotExpressible, descriptor, first_error,
                                  float_literal, json_string, snake_to_camel)
from judge.problem.types import TypeSpec

#: where Debian installs node modules (node-lodash): the modules SandboxFusion's image has
LIBRARY_PATH = "/usr/share/nodejs"
_SYNTAX = re.compile(r"^(?P<file>\S*?solution\.js):(?P<line>\d+)\n(?:.*\n){0,3}?(?P<message>\w*Error: .*)$",
                     re.M)


class JavaScript(Language):
    name = "js"
    title = "JavaScript (Node.js)"
    extension = "js"
    fence_tags = ("js", "javascript", "node", "jsx", "mjs")
    candidate_file = "solution.js"
    startup_s = 0.3
    tools = (("node", ("/usr/bin/node", "--version")),)
    nproc = 64
    source_extensions = ("js", "mjs")
    names_in = {"kattis": ("javascript", "js", "node"),
                "sandboxfusion": ("nodejs", "javascript", "js")}
    build_flags_in = {"sandboxfusion": {"libraries": True}}
    oom_markers = ("JavaScript heap out of memory",)  # V8's heap limit

    def conventional_name(self, name: str) -> str:
        return snake_to_camel(name)

    def defines(self, code: str, name: str) -> bool:
        n = re.escape(name)
        return re.search(r"(\bfunction\s*\*?\s*%s\s*\(|\b(const|let|var)\s+%s\s*=|(^|[\s;])%s\s*="
                         r"\s*(async\s+)?(function|\())" % (n, n, n), code, re.M) is not None

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        kind = spec.kind
        simple = {"int": "number", "float": "number", "str": "string", "bool": "boolean",
                  "none": "null"}
        if kind in simple:
            return simple[kind]
        if kind in ("list", "sequence") or (kind == "tuple" and spec.variadic):
            inner = self.type_name(spec.args[0], False)
            return "%s[]" % inner if re.fullmatch(r"\w+", inner) else "Array<%s>" % inner
        if kind == "tuple":
            return "[%s]" % ", ".join(self.type_name(a, False) for a in spec.args)
        if kind == "set":
            return "Set<%s>" % self.type_name(spec.args[0], False)
        if kind == "dict":
            key, value = spec.args
            if key.kind == "str":
                return "Object<string, %s>" % self.type_name(value, False)
            return "Map<%s, %s>" % (self.type_name(key, False), self.type_name(value, False))
        if kind == "optional":
            return "%s|null" % self.type_name(spec.args[0], False)
        if kind in ("any", "union"):
            return "*"
        raise NotExpressible("type %s has no JavaScript counterpart here" % spec)

    def signature(self, function, names, params, returns):
        return "function %s(%s)" % (function, ", ".join(names))

    def jsdoc(self, names, params, returns, doc: str = "") -> str:
        lines = ["/**"]
        lines += [(" * " + line).rstrip() for line in doc.strip().splitlines()]
        lines += [" * @param {%s} %s" % (self.type_name(s), n) for n, s in zip(names, params)]
        lines.append(" * @returns {%s}" % self.return_type_name(returns))
        lines.append(" */")
        return "\n".join(lines)

    def stub(self, function, names, params, returns, doc):
        return "%s\n%s {\n" % (self.jsdoc(names, params, returns, doc),
                               self.signature(function, names, params, returns))

    def literal(self, value: Any, spec: TypeSpec) -> str:
        kind = spec.kind
        if value is None:
            return "null"
        if kind == "optional":
            return self.literal(value, spec.args[0])
        if kind == "bool":
            return "true" if value else "false"
        if kind == "int":
            return str(value)
        if kind == "float":
            return float_literal(value)
        if kind == "str":
            return json_string(value)
        if kind in ("list", "sequence") or (kind == "tuple" and spec.variadic):
            return "[%s]" % ", ".join(self.literal(v, spec.args[0]) for v in value)
        if kind == "tuple":
            return "[%s]" % ", ".join(self.literal(v, s) for v, s in zip(value, spec.args))
        if kind == "set":
            return "new Set([%s])" % ", ".join(self.literal(v, spec.args[0]) for v in sorted(
                value, key=repr))
        if kind == "dict":
            key, val = spec.args
            if key.kind == "str":
                return "{%s}" % ", ".join("%s: %s" % (json_string(k), self.literal(v, val))
                                          for k, v in value.items())
            return "new Map([%s])" % ", ".join("[%s, %s]" % (self.literal(k, key),
                                                             self.literal(v, val))
                                               for k, v in value.items())
        raise NotExpressible("a %s value" % spec)

    def build(self, code: str, function: str, params: list[TypeSpec], returns: TypeSpec,
              memory_mb: int) -> Build:
        names = self.function_names(function)
        harness = self.render("harness.js.j2", functions=names,
                              params=[descriptor(p) for p in params],
                              returns=descriptor(returns), candidate_file=self.candidate_file)
        heap = max(64, memory_mb - 96)
        return Build(
            files={self.candidate_file: code, "harness.js": harness},
            compile=[["/usr/bin/node", "--check", self.candidate_file]],
            run=["/usr/bin/node", "--max-old-space-size=%d" % heap, "--stack-size=4000",
                 "{build}/harness.js", "{args}"],
            artifacts=[self.candidate_file, "harness.js"],
            candidate_file=self.candidate_file,
        )

    def program_build(self, sources: dict[str, str], memory_mb: int,
                      libraries: bool = False) -> Build:
        """``libraries``: the modules SandboxFusion's image lets a program ``require``
        (lodash, from Debian's node-lodash in :data:`LIBRARY_PATH`), for its routes only."""
        main = main_source(sources, ".js", ".mjs")
        heap = max(64, memory_mb - 96)
        return Build(files=dict(sources), env={"NODE_PATH": LIBRARY_PATH} if libraries else {},
                     compile=[["/usr/bin/node", "--check", main]],
                     run=["/usr/bin/node", "--max-old-space-size=%d" % heap, "--stack-size=4000",
                          "{build}/" + main],
                     artifacts=sorted(sources), candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _SYNTAX, build.candidate_file, 0)

    @property
    def toolchain(self) -> str:
        try:
            return "node " + subprocess.run(["node", "--version"], capture_output=True,
                                            text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "node (unknown version)"
