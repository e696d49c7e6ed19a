"""TypeScript on Node.js: whole programs and function problems. The TypeScript compiler
(Debian's ``node-typescript``, ``tsc`` 4.8) transpiles the program once to CommonJS
JavaScript (ES2020, ``esModuleInterop``: ``import util from 'util'`` works as it does under
``tsx``, SandboxFusion's runner), with an inline source map, and Node runs it with source
maps on, so stack traces name the candidate's ``.ts`` lines.

Types are not checked (``transpileModule``, as ``tsx``, ``ts-node --transpile-only`` and
esbuild run TypeScript): a syntax error is a compile error with its line, a type error is
not (Node's own declarations, ``@types/node``, are not installed to check ``process`` or
``require`` against). The heap is capped below the memory limit as for JavaScript: running
out of it is "JavaScript heap out of memory" (memory_limit). On SandboxFusion's routes a
program may import the modules SandboxFusion's image has (lodash), as JavaScript may.

Function problems: the candidate's ``solution.ts`` is transpiled the same way to
``solution.js`` and run by JavaScript's harness (runners/js/harness.js.j2: the same values,
BigInts past ``Number.MAX_SAFE_INTEGER``, records on fd 3), whose error lines go back to the
``.ts`` lines through the compiled file's source map (runners/ts/line_of.js). Prompts show TS
types (``number``, ``string``, ``T[]``, ``[A, B]``, ``Record<string, V>``, ``Map<K, V>``,
``Set<T>``, ``T | null``); sets and maps keyed by arrays are refused (TypeScript compares such
keys by identity, so a candidate could never look one up)."""

from __future__ import annotations

import functools
import re
import subprocess
from typing import Any

from judge.languages.base import (Build, Language, NotExpressible, descriptor, first_error,
                                  main_source, snake_to_camel, source_files)
from judge.languages.js import LIBRARY_PATH, JavaScript
from judge.problem.types import TypeSpec
from judge.resources import runner_dir
from judge.sandbox.harness import template_environment

NODE = "/usr/bin/node"
TYPESCRIPT = "/usr/share/nodejs/typescript"
#: the compile step: each .ts file transpiled to .js beside it; syntax errors as
#: ``file(line,col): error TSnnnn: message``, exit 1
TRANSPILE = """\
const ts = require(%r);
const fs = require('fs');
let failed = false;
for (const file of process.argv.slice(1)) {
  const source = fs.readFileSync(file, 'utf8');
  const out = ts.transpileModule(source, {fileName: file, reportDiagnostics: true,
    compilerOptions: {module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020,
                      esModuleInterop: true, inlineSourceMap: true, inlineSources: false}});
  for (const d of out.diagnostics || []) {
    if (d.category !== ts.DiagnosticCategory.Error) continue;
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start)
                                               : {line: 0, character: 0};
    console.log('%%s(%%d,%%d): error TS%%d: %%s', file, at.line + 1, at.character + 1, d.code,
                ts.flattenDiagnosticMessageText(d.messageText, ' '));
    failed = true;
  }
  fs.writeFileSync(file.replace(/\\.(c|m)?ts$/, '.js'), out.outputText);
}
process.exit(failed ? 1 : 0);
""" % TYPESCRIPT
_ERROR = re.compile(r"^(?P<file>[^\s(]+\.[cm]?ts)\((?P<line>\d+),\d+\): error (?P<message>.*)$",
                    re.M)
#: the kinds whose values TypeScript compares by identity: never a Set's element or a Map's key
_BY_IDENTITY = ("list", "sequence", "tuple", "set", "dict")


class TypeScript(Language):
    name = "typescript"
    pool = "polyglot"
    title = "TypeScript (Node.js)"
    extension = "ts"
    fence_tags = ("typescript", "ts", "tsx")
    source_extensions = ("ts", "mts", "cts")
    tools = (("node", (NODE, "--version")), ("tsc", ("/usr/bin/tsc", "--version")))
    names_in = {"kattis": ("typescript",), "sandboxfusion": ("typescript", "ts")}
    build_flags_in = {"sandboxfusion": {"libraries": True}}
    oom_markers = ("JavaScript heap out of memory",)
    startup_s = 0.3
    nproc = 64

    def defines(self, code: str, name: str) -> bool:
        n = re.escape(name)
        return re.search(r"(\bfunction\s*\*?\s*%s\s*[(<]|\b(const|let|var)\s+%s\s*[:=])" % (n, n),
                         code) is not None

    candidate_file = "solution.ts"

    def conventional_name(self, name: str) -> str:
        return snake_to_camel(name)

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        kind = spec.kind
        simple = {"int": "number", "float": "number", "str": "string", "bool": "boolean",
                  "none": "null", "any": "any"}
        if kind in simple:
            return simple[kind]
        if kind in ("list", "sequence") or (kind == "tuple" and spec.variadic):
            inner = self.type_name(spec.args[0], False)
            return "%s[]" % inner if re.fullmatch(r"[\w<>, \[\]]+", inner) else "(%s)[]" % inner
        if kind == "tuple":
            return "[%s]" % ", ".join(self.type_name(a, False) for a in spec.args)
        if kind == "set":
            self._by_value(spec.args[0], "Set", spec)
            return "Set<%s>" % self.type_name(spec.args[0], False)
        if kind == "dict":
            key, value = spec.args
            if key.kind == "str":
                return "Record<string, %s>" % self.type_name(value, False)
            self._by_value(key, "Map", spec)
            return "Map<%s, %s>" % (self.type_name(key, False), self.type_name(value, False))
        if kind == "optional":
            return "%s | null" % self.type_name(spec.args[0], False)
        if kind == "union":
            return " | ".join(dict.fromkeys(self.type_name(a, False) for a in spec.args))
        raise NotExpressible("type %s has no TypeScript counterpart here" % spec)

    @staticmethod
    def _by_value(spec: TypeSpec, container: str, whole: TypeSpec) -> None:
        if spec.kind in _BY_IDENTITY or (spec.kind == "optional"
                                         and spec.args[0].kind in _BY_IDENTITY):
            raise NotExpressible("type %s: a TypeScript %s compares %s keys by identity"
                                 % (whole, container, spec))

    def signature(self, function, names, params, returns):
        return "function %s(%s): %s" % (
            function, ", ".join("%s: %s" % (n, self.type_name(s)) for n, s in zip(names, params)),
            self.return_type_name(returns))

    def stub(self, function, names, params, returns, doc):
        lines = ["/**"] + [(" * " + line).rstrip() for line in doc.strip().splitlines()] + [" */"]
        return "%s\n%s {\n" % ("\n".join(lines), self.signature(function, names, params, returns))

    def literal(self, value: Any, spec: TypeSpec) -> str:
        return JavaScript.literal(self, value, spec)  # the same literals

    def build(self, code: str, function: str, params: list[TypeSpec], returns: TypeSpec,
              memory_mb: int) -> Build:
        """``solution.ts`` transpiled to ``solution.js`` (the compile step: syntax errors with
        the candidate's lines), then JavaScript's harness, given how to map a line of
        ``solution.js`` back to ``solution.ts``."""
        compiled = "solution.js"
        line_of = (runner_dir("ts") / "line_of.js").read_text(encoding="utf-8").strip()
        harness = template_environment(str(runner_dir("js"))).get_template(
            "harness.js.j2").render(functions=self.function_names(function),
                                    params=[descriptor(p) for p in params],
                                    returns=descriptor(returns), candidate_file=compiled,
                                    line_of=line_of)
        heap = max(64, memory_mb - 96)
        return Build(files={self.candidate_file: code, "harness.js": harness},
                     compile=[[NODE, "-e", TRANSPILE, self.candidate_file]],
                     run=[NODE, "--max-old-space-size=%d" % heap, "--stack-size=4000",
                          "{build}/harness.js", "{args}"],
                     artifacts=[self.candidate_file, compiled, "harness.js"],
                     candidate_file=self.candidate_file)

    def program_build(self, sources: dict[str, str], memory_mb: int,
                      libraries: bool = False) -> Build:
        """``libraries``: the modules SandboxFusion's image lets a program import (lodash,
        from Debian's node-lodash), for its routes only, as JavaScript has them."""
        files = source_files(sources, ".ts", ".mts", ".cts")
        main = main_source(sources, ".ts", ".mts", ".cts")
        heap = max(64, memory_mb - 96)
        compiled = [re.sub(r"\.[cm]?ts$", ".js", f) for f in files]
        return Build(files=dict(sources), env={"NODE_PATH": LIBRARY_PATH} if libraries else {},
                     compile=[[NODE, "-e", TRANSPILE, *files]],
                     run=[NODE, "--enable-source-maps", "--max-old-space-size=%d" % heap,
                          "--stack-size=4000", "{build}/" + re.sub(r"\.[cm]?ts$", ".js", main)],
                     artifacts=sorted(set(sources) | set(compiled)), candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _ERROR, build.candidate_file, 0)

    @functools.cached_property
    def toolchain(self) -> str:
        try:
            node = subprocess.run([NODE, "--version"], capture_output=True, text=True,
                                  timeout=30).stdout.strip()
            tsc = subprocess.run(["/usr/bin/tsc", "--version"], capture_output=True,
                                 text=True, timeout=60).stdout.strip()
            return "node %s; tsc %s" % (node, tsc)
        except (OSError, subprocess.SubprocessError):
            return "node/tsc (unknown version)"


__all__ = ["TRANSPILE", "TypeScript"]
