"""Go: a top-level ``func`` in ``package main``; ``HasCloseElements`` or ``hasCloseElements``;
``int``, ``float64``, slices, maps, ``map[T]bool`` for sets, pointers for Optional, several
return values for a tuple result. The harness converts by reflection on the candidate's own
function, so ``int``/``int64``/``float32`` and a trailing ``error`` result all work."""

from __future__ import annotations

import re
import subprocess
from typing import Any

from judge.languages.base import (Build, Language, NotExpressible, descriptor, first_error,
                                  float_literal, json_string, main_source, snake_to_camel,
                                  snake_to_pascal, source_files)
from judge.problem.types import TypeSpec

_ERROR = re.compile(r"^(?:\./)?(?P<file>[^\s:]+\.go):(?P<line>\d+):(?:\d+:)? (?P<message>.*)$", re.M)
_MAIN = re.compile(r"^func\s+main\s*\(\s*\)", re.M)


_PACKAGE = re.compile(r"^([ \t]*)package[ \t]+\w+[ \t]*;?", re.M)
_IMPORT_BLOCK = re.compile(r"^[ \t]*import[ \t]*\(([^)]*)\)[ \t]*;?", re.M)
_IMPORT_ONE = re.compile(r"^[ \t]*import[ \t]+((?:[\w.]+[ \t]+)?\"[^\"\n]+\")[ \t]*;?", re.M)
_SPEC = re.compile(r"(?:([\w.]+)\s+)?\"([^\"\n]+)\"")
_NOT_CODE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|`[^`]*`|\'(?:\\.|[^\'\\\n])*\'', re.S)
#: standard packages a candidate may use without importing them (HumanEval-X's Go
#: declarations import them for the candidate; its evaluator adds those a solution uses)
STANDARD = ("math", "strings", "strconv", "sort", "fmt", "bytes", "regexp", "math/rand",
            "crypto/md5", "unicode", "time", "math/big", "container/heap", "errors",
            "unicode/utf8", "encoding/hex", "math/bits", "slices", "maps", "reflect")


_TEST_FUNC = re.compile(r"^func\s+(?:Test|Benchmark|Example|Fuzz)\w*\s*\(\s*\w*\s*\*?\s*testing\.[TBF]?\s*\)"
                        r"|^func\s+Example\w*\s*\(\s*\)", re.M)


def _block_end(code: str, start: int) -> int:
    """The offset just past the ``}`` closing the first ``{`` at or after ``start``
    (strings, runes and comments skipped); len(code) when unbalanced."""
    depth, index = 0, start
    while index < len(code):
        match = _NOT_CODE.match(code, index)
        if match:
            index = match.end()
            continue
        char = code[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return len(code)


def drop_tests(code: str) -> str:
    """The candidate's own Go tests (``func TestX(t *testing.T)``, HumanEval-X's test code
    pasted after a solution) left out, as ``go build`` leaves out ``_test.go`` files: their
    lines stay, empty. Their imports (``testing``, testify) then go unused and are dropped."""
    while True:
        match = _TEST_FUNC.search(code)
        if match is None:
            return code
        end = _block_end(code, match.end())
        code = code[: match.start()] + "\n" * code.count("\n", match.start(), end) + code[end:]


def merge_imports(code: str) -> str:
    """The candidate's file as ``package main`` with its import declarations made one that
    compiles: those it uses (by the package's name before a dot, outside strings and
    comments) and the standard packages it uses without importing them; blank (``_``) and
    dot imports stay. The removed lines stay as empty lines and the import goes on the
    package line (the first line where there is none), so line numbers do not move."""
    specs: list[tuple[str, str]] = []

    def take(match: re.Match[str]) -> str:
        for alias, path in _SPEC.findall(match.group(1)):
            specs.append((alias, path))
        return "\n" * match.group(0).count("\n")

    body = _IMPORT_BLOCK.sub(take, code)
    body = _IMPORT_ONE.sub(take, body)
    plain = _NOT_CODE.sub(lambda m: "\n" * m.group(0).count("\n") + " ", body)

    def used(name: str) -> bool:
        return re.search(r"(?<![\w.])%s\s*\." % re.escape(name), plain) is not None

    kept, names = [], set()
    for alias, path in specs:
        name = alias or path.rsplit("/", 1)[-1]
        if (alias in ("_", ".") or used(name)) and (alias, path) not in kept:
            kept.append((alias, path))
            names.add(name)
    for path in STANDARD:
        name = path.rsplit("/", 1)[-1]
        if name not in names and used(name) and not re.search(
                r"\b(?:var|const|func|type)\s+%s\b|\b%s\s*:?=" % (name, name), plain):
            kept.append(("", path))
            names.add(name)
    clause = "; import (%s)" % "; ".join(
        ("%s %s" % (alias, json_string(path))).strip() for alias, path in kept) if kept else ""
    if _PACKAGE.search(body):
        return _PACKAGE.sub(lambda m: "%spackage main%s" % (m.group(1), clause), body, count=1)
    # no package clause (HumanEval-X's solutions start at their imports): one on the first line
    return "package main%s; %s" % (clause, body)


def _ty(desc: tuple[str, list[Any]]) -> str:
    code, children = desc
    return "judgeT(%s)" % ", ".join(['"%s"' % code] + [_ty(c) for c in children])


class Go(Language):
    name = "go"
    title = "Go"
    extension = "go"
    fence_tags = ("go", "golang")
    candidate_file = "solution.go"
    nproc = 64
    tools = (("go", ("/usr/bin/go", "version")),)
    names_in = {"kattis": ("go", "golang"), "sandboxfusion": ("go",)}
    oom_markers = ("fatal error: runtime: out of memory",)
    prompt_where = "in package main"

    def conventional_name(self, name: str) -> str:
        return snake_to_pascal(name)

    def function_names(self, name: str) -> list[str]:
        return list(dict.fromkeys([name, snake_to_pascal(name), snake_to_camel(name)]))

    def defines(self, code: str, name: str) -> bool:
        return re.search(r"^func\s+%s\s*[\[(]" % re.escape(name), code, re.M) is not None

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        kind = spec.kind
        simple = {"int": "int", "float": "float64", "str": "string", "bool": "bool"}
        if kind in simple:
            return simple[kind]
        if kind in ("list", "sequence") or (kind == "tuple" and spec.variadic):
            return "[]" + self.type_name(spec.args[0], False)
        if kind == "set":
            return "map[%s]bool" % self.type_name(spec.args[0], False)
        if kind == "dict":
            return "map[%s]%s" % (self.type_name(spec.args[0], False),
                                  self.type_name(spec.args[1], False))
        if kind == "optional":
            return "*" + self.type_name(spec.args[0], False)
        if kind == "tuple":
            inner = {self.type_name(a, False) for a in spec.args}
            if len(inner) == 1:
                return "[]" + inner.pop()  # a fixed tuple of one type: a slice
            raise NotExpressible("a tuple of mixed types (%s) inside a Go value" % spec)
        if kind in ("any", "union"):
            return "interface{}"
        raise NotExpressible("type %s has no Go counterpart here" % spec)

    def return_type_name(self, specs: list[TypeSpec]) -> str:
        if len(specs) == 1 and not (specs[0].kind == "tuple" and not specs[0].variadic):
            return self.type_name(specs[0])
        parts = specs if len(specs) > 1 else list(specs[0].args)
        return "(%s)" % ", ".join(self.type_name(s, False) for s in parts)

    def check_expressible(self, problem: Any) -> None:
        for spec in problem.param_specs:
            descriptor(spec)
            self.type_name(spec)
        descriptor(problem.return_spec)
        self.return_type_name([problem.return_spec])

    def signature(self, function, names, params, returns):
        args = ", ".join("%s %s" % (n, self.type_name(s)) for n, s in zip(names, params))
        return "func %s(%s) %s" % (function, args, self.return_type_name(returns))

    def stub(self, function, names, params, returns, doc):
        comment = "\n".join(("// " + line).rstrip() for line in doc.strip().splitlines())
        return "package main\n\n%s\n%s {\n" % (comment, self.signature(function, names, params,
                                                                       returns))

    def literal(self, value: Any, spec: TypeSpec) -> str:
        kind = spec.kind
        if value is None:
            return "nil"
        if kind == "optional":
            return "&[]%s{%s}[0]" % (self.type_name(spec.args[0]), self.literal(value, spec.args[0]))
        if kind == "bool":
            return "true" if value else "false"
        if kind == "int":
            return str(value)
        if kind == "float":
            return float_literal(value)
        if kind == "str":
            return json_string(value)
        if kind in ("list", "sequence", "tuple"):
            inner = spec.args[0]
            return "%s{%s}" % (self.type_name(spec), ", ".join(self.literal(v, inner)
                                                              for v in value))
        if kind == "set":
            return "%s{%s}" % (self.type_name(spec), ", ".join(
                "%s: true" % self.literal(v, spec.args[0]) for v in sorted(value, key=repr)))
        if kind == "dict":
            return "%s{%s}" % (self.type_name(spec), ", ".join(
                "%s: %s" % (self.literal(k, spec.args[0]), self.literal(v, spec.args[1]))
                for k, v in value.items()))
        raise NotExpressible("a %s value" % spec)

    def sample_result(self, value: Any, spec: TypeSpec) -> str:
        if spec.kind == "tuple" and not spec.variadic:
            return ", ".join(self.literal(v, s) for v, s in zip(value, spec.args))
        return self.literal(value, spec)

    def prepare_code(self, code: str) -> str:
        # package main (on the candidate's first line where it has none: lines stay), with
        # the imports merged
        code = merge_imports(drop_tests(code))
        # a main of the candidate's own gives way to the harness's
        return _MAIN.sub("func judgeCandidateOwnMain()", code)

    def build(self, code: str, function: str, params: list[TypeSpec], returns: TypeSpec,
              memory_mb: int) -> Build:
        offset = 0
        harness = self.render("harness_judge.go.j2", function=function,
                              return_ty=_ty(descriptor(returns)),
                              candidate_file=self.candidate_file, line_offset=offset)
        env = {"GO111MODULE": "off", "CGO_ENABLED": "0", 
               "GOMAXPROCS": "2", "GOMEMLIMIT": "%dMiB" % max(32, memory_mb - 64),
               "GOTRACEBACK": "single"}
        return Build(
            files={self.candidate_file: code, "harness_judge.go": harness},
            compile=[["/usr/bin/go", "build", "-ldflags=-s -w", "-o", "prog",
                      self.candidate_file, "harness_judge.go"]],
            run=["{build}/prog", "{args}"],
            artifacts=["prog"],
            env=env,
            candidate_file=self.candidate_file,
        )

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        files = source_files(sources, ".go")
        env = {"GO111MODULE": "off", "CGO_ENABLED": "0", "GOMAXPROCS": "2",
               "GOMEMLIMIT": "%dMiB" % max(32, memory_mb - 64), "GOTRACEBACK": "single"}
        return Build(files=dict(sources),
                     compile=[["/usr/bin/go", "build", "-ldflags=-s -w", "-o", "prog", *files]],
                     run=["{build}/prog"], artifacts=["prog"], env=env,
                     candidate_file=main_source(sources, ".go", marker=r"^func\s+main\s*\("))

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _ERROR, build.candidate_file, build.line_offset)

    @property
    def toolchain(self) -> str:
        try:
            return subprocess.run(["go", "version"], capture_output=True, text=True,
                                  timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "go (unknown version)"
