"""Rust (rustc, edition 2021): a free function (or ``impl Solution``), snake_case names,
``i64``/``f64``, ``Vec``, ``HashMap``/``HashSet``, tuples, ``Option``. The candidate's code
is compiled unchanged inside a module; each argument is converted to the type the function
asks for (inferred by the compiler from the call), so ``i32``, ``&[T]``, ``&str`` work too."""

from __future__ import annotations

import re
import subprocess
from typing import Any

from judge.languages.base import (Build, Language, NotExpressible, descriptor, first_error,
                                  float_literal, json_string, main_source)
from judge.problem.types import TypeSpec

_EXTERNAL_USE = re.compile(r"^[ \t]*(?:pub\s+)?use\s+:{0,2}(?:rand|regex|md5|itertools|num)\b[^;\n]*;",
                           re.M)
_ERROR = re.compile(r"^(?P<file>[^\s:]+\.rs):(?P<line>\d+):\d+: (?P<message>error.*)$", re.M)


def _ty(desc: tuple[str, list[Any]]) -> str:
    code, children = desc
    return "judge_h::t('%s', vec![%s])" % (code, ", ".join(_ty(c) for c in children))


class Rust(Language):
    name = "rust"
    title = "Rust"
    extension = "rs"
    fence_tags = ("rust", "rs")
    source_file = "main.rs"
    tools = (("rustc", ("/usr/bin/rustc", "--version")),)
    names_in = {"kattis": ("rust",), "sandboxfusion": ("rust",)}
    oom_markers = ("memory allocation of ",)  # its alloc error handler

    def defines(self, code: str, name: str) -> bool:
        return re.search(r"\bfn\s+%s\s*[<(]" % re.escape(name), code) is not None

    def find_function(self, code: str, names: list[str]) -> str | None:
        """Also ``name_<suffix>``: HumanEval-X's Rust renames a few functions so that all its
        solutions can share one crate (``sort_array_1``, ``sum_squares_142``,
        ``triangle_area_f64``)."""
        found = super().find_function(code, names)
        if found is None:
            for name in names:
                match = re.search(r"\bfn\s+(%s_\w+)\s*[<(]" % re.escape(name), code)
                if match:
                    return match.group(1)
        return found

    def _hashable(self, spec: TypeSpec) -> None:
        if spec.kind == "float" or any(a.kind == "float" for a in spec.args):
            raise NotExpressible("floats as set elements or map keys (%s) in Rust" % spec)

    def check_expressible(self, problem: Any) -> None:
        """Also: every integer of the tests within ``i128``/``u128`` (Rust's standard library
        has no bigger integer; see :mod:`judge.languages.bigints`)."""
        super().check_expressible(problem)
        from judge.languages.bigints import check_int_range

        check_int_range(problem, -(1 << 127), 1 << 128, "Rust",
                        "Rust's standard library has no integer type beyond 128 bits")

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        kind = spec.kind
        simple = {"int": "i64", "float": "f64", "str": "String", "bool": "bool", "none": "()"}
        if kind in simple:
            return simple[kind]
        if kind in ("list", "sequence") or (kind == "tuple" and spec.variadic):
            return "Vec<%s>" % self.type_name(spec.args[0], False)
        if kind == "tuple":
            inner = ", ".join(self.type_name(a, False) for a in spec.args)
            return "(%s,)" % inner if len(spec.args) == 1 else "(%s)" % inner
        if kind == "set":
            self._hashable(spec.args[0])
            return "HashSet<%s>" % self.type_name(spec.args[0], False)
        if kind == "dict":
            self._hashable(spec.args[0])
            return "HashMap<%s, %s>" % (self.type_name(spec.args[0], False),
                                        self.type_name(spec.args[1], False))
        if kind == "optional":
            return "Option<%s>" % self.type_name(spec.args[0], False)
        if kind in ("any", "union"):
            return "Box<dyn Any>"
        raise NotExpressible("type %s has no Rust counterpart here" % spec)

    def signature(self, function, names, params, returns):
        args = ", ".join("%s: %s" % (n, self.type_name(s)) for n, s in zip(names, params))
        return "fn %s(%s) -> %s" % (function, args, self.return_type_name(returns))

    def stub(self, function, names, params, returns, doc):
        comment = "\n".join(("/// " + line).rstrip() for line in doc.strip().splitlines())
        uses = "use std::collections::{HashMap, HashSet};\n"
        signature = self.signature(function, names, params, returns)
        if "dyn Any" in signature:
            uses += "use std::any::Any;\n"
            comment += ("\n/// (dyn Any values: integers are i32, or i64 beyond it; floats f64; "
                        "strings &'static str; lists Vec<Box<dyn Any>>.)")
        return "%s\n%s\n%s {\n" % (uses, comment, signature)

    def literal(self, value: Any, spec: TypeSpec) -> str:
        kind = spec.kind
        if kind == "optional":
            return "None" if value is None else "Some(%s)" % self.literal(value, spec.args[0])
        if value is None:
            return "()"
        if kind == "bool":
            return "true" if value else "false"
        if kind == "int":
            return str(value)
        if kind == "float":
            text = float_literal(value)
            return text
        if kind == "str":
            return "%s.to_string()" % json_string(value)
        if kind in ("list", "sequence") or (kind == "tuple" and spec.variadic):
            return "vec![%s]" % ", ".join(self.literal(v, spec.args[0]) for v in value)
        if kind == "tuple":
            inner = ", ".join(self.literal(v, s) for v, s in zip(value, spec.args))
            return "(%s,)" % inner if len(spec.args) == 1 else "(%s)" % inner
        if kind == "set":
            return "HashSet::from([%s])" % ", ".join(self.literal(v, spec.args[0])
                                                     for v in sorted(value, key=repr))
        if kind == "dict":
            return "HashMap::from([%s])" % ", ".join(
                "(%s, %s)" % (self.literal(k, spec.args[0]), self.literal(v, spec.args[1]))
                for k, v in value.items())
        raise NotExpressible("a %s value" % spec)

    def prepare_code(self, code: str) -> str:
        """``use`` of a crate rustc alone does not have (HumanEval-X's Rust declarations say
        ``use rand::Rng; use regex::Regex; use md5;`` whether the solution needs them or not)
        becomes a comment, on its own line: a solution that does use one fails to compile,
        naming it."""
        return _EXTERNAL_USE.sub(lambda m: "// (no such crate here) " + m.group(0), code)

    def callee(self, code: str, function: str) -> str:
        impl = re.search(r"\bimpl\s+(\w+)\s*\{", code)
        if impl and re.search(r"\bfn\s+%s\s*[<(]\s*(?!&?\s*(mut\s+)?self)" % re.escape(function),
                              code[impl.end():]) and not re.search(
                                  r"^fn\s+%s\s*[<(]" % re.escape(function), code, re.M):
            return "%s::%s" % (impl.group(1), function)
        return function

    def build(self, code: str, function: str, params: list[TypeSpec], returns: TypeSpec,
              memory_mb: int) -> Build:
        source = self.render("main.rs.j2", code=code, arity=len(params),
                             callee=self.callee(code, function),
                             return_ty=_ty(descriptor(returns)),
                             source_file=self.source_file, line_offset=1)
        return Build(
            files={self.source_file: source},
            compile=[["/usr/bin/rustc", "--edition", "2021", "-C", "opt-level=0", "-C", "debuginfo=0",
                      "-C", "strip=symbols", "--error-format=short", "-o", "prog",
                      self.source_file]],
            run=["{build}/prog", "{args}"],
            artifacts=["prog"],
            env={"RUST_BACKTRACE": "0"},
            line_offset=1,
            candidate_file=self.source_file,
        )

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        main = main_source(sources, ".rs", marker=r"^\s*fn\s+main\s*\(")
        return Build(files=dict(sources),
                     compile=[["/usr/bin/rustc", "--edition", "2021", "-O", "-C",
                               "debuginfo=0", "--error-format=short", "-o", "prog", main]],
                     run=["{build}/prog"], artifacts=["prog"], env={"RUST_BACKTRACE": "0"},
                     candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _ERROR, build.candidate_file, build.line_offset)

    @property
    def toolchain(self) -> str:
        try:
            return subprocess.run(["/usr/bin/rustc", "--version"], capture_output=True,
                                  text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "rustc (unknown version)"
