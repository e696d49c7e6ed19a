"""TypeScript on Node.js: whole programs only (program problems). The TypeScript compiler
(Debian's ``node-typescript``, ``tsc`` 4.8) transpiles the program once to CommonJS
JavaScript (ES2020, ``esModuleInterop``: ``import util from 'util'`` works as it does under
``tsx``, SandboxFusion's runner), with an inline source map, and Node runs it with source
maps on, so stack traces name the candidate's ``.ts`` lines.

Types are not checked (``transpileModule``, as ``tsx``, ``ts-node --transpile-only`` and
esbuild run TypeScript): a syntax error is a compile error with its line, a type error is
not (Node's own declarations, ``@types/node``, are not installed to check ``process`` or
``require`` against). The heap is capped below the memory limit as for JavaScript: running
out of it is "JavaScript heap out of memory" (memory_limit). On SandboxFusion's routes a
program may import the modules SandboxFusion's image has (lodash), as JavaScript may."""

from __future__ import annotations

import functools
import re
import subprocess
from typing import Any

from judge.languages.base import (Build, Language, NotExpressible, first_error, main_source,
                                  source_files)
from judge.languages.js import LIBRARY_PATH
from judge.problem.types import TypeSpec

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
_ONLY = "TypeScript judges whole programs only (program problems)"


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

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        raise NotExpressible(_ONLY)

    def check_expressible(self, problem: Any) -> None:
        raise NotExpressible(_ONLY)

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
