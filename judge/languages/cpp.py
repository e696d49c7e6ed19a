"""C++17 with g++: free functions, std containers, ``long long`` and ``double``."""

from __future__ import annotations

import re
import subprocess
from typing import Any

from judge.languages.base import (Build, Language, NotExpressible, descriptor, first_error,
                                  float_literal, json_string, main_source, source_files)
from judge.problem.types import TypeSpec
from judge.resources import runner_dir

PCH_DIR = "/usr/local/lib/judge-pch"
#: whole programs (program problems): the usual contest flags
PROGRAM_FLAGS = ("-O2", "-std=gnu++20", "-pipe", "-fmax-errors=5")
_ERROR = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<message>.*)$",
                    re.M)


_STATEMENT_WORDS = frozenset({"return", "else", "new", "delete", "throw", "case", "goto", "do",
                              "co_return", "co_yield"})
_SPECIFIERS = re.compile(r"\b(?:static|inline|constexpr|extern|friend|virtual|explicit|"
                         r"\[\[\w+\]\])\s+")
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def definitions(code: str, name: str) -> list[tuple[str, list[str]]]:
    """The free functions called ``name`` that ``code`` defines or declares: (return type,
    parameter declarations without default values), in order; templates are left out."""
    code = _COMMENTS.sub(" ", code)
    pattern = re.compile(r"(?:^|[;}\n])\s*(?P<head>[\w:<>,\s*&]+?)\s*(?P<ref>[*&]*)\s*\b%s\s*"
                         r"\((?P<params>[^()]*(?:\([^()]*\)[^()]*)*)\)\s*(?:noexcept\s*)?"
                         r"(?=[{;])" % re.escape(name))
    found = []
    for match in pattern.finditer(code):
        head = _SPECIFIERS.sub("", " " + match.group("head").strip() + " ").strip()
        if not head or re.search(r"\b(template|return|else|new|delete|using|typedef)\b", head):
            continue
        params = [re.sub(r"\s*=.*$", "", p, flags=re.S)
                  for p in _split_top(match.group("params"))]
        found.append((head + match.group("ref"), [] if params == ["void"] else params))
    return found


def entry_point(code: str, name: str, arity: int) -> str:
    """How the harness names the candidate's function: its address cast to the prototype the
    candidate wrote with the test's number of arguments (a function type may keep its
    parameters' names), so that overloads of its own (helpers of the same name), the C
    library's (``int strlen(string)``) and, through ``using namespace std``, the standard
    library's (``max_element``, ``unique``, ``search``, ``is_sorted``, ``exchange``) never
    make an unresolved overload set; ``&::name`` (the global one: names a using-directive
    brings in are not looked up where the global namespace declares the name itself) where
    the prototype cannot be read."""
    fitting = {(r, tuple(p)) for r, p in definitions(code, name) if len(p) == arity
               and not re.search(r"\b(auto|decltype)\b", r)}
    if len(fitting) != 1:
        return "&::" + name
    returns, params = fitting.pop()
    return "static_cast<%s (*)(%s)>(&::%s)" % (returns, ", ".join(params), name)


#: what a prompt says of ``Any`` (the harness's tagged values, as HumanEval-X takes them)
ANY_NOTE = ("\n(std::any values: integers are int, or long long beyond it; floats double; "
            "strings std::string; lists std::vector<std::any>.)")


def _ty(desc: tuple[str, list[Any]]) -> str:
    code, children = desc
    return "Ty{'%s', {%s}}" % (code, ", ".join(_ty(c) for c in children))


class Cpp(Language):
    name = "cpp"
    title = "C++17"
    extension = "cpp"
    fence_tags = ("cpp", "c++", "cc", "cxx", "c")
    candidate_file = "solution.cpp"
    #: ``.C`` (upper case) is C++, as Kattis has it; ``.c`` is C's
    source_extensions = ("cpp", "cc", "cxx", "c++", "C")
    header_extensions = ("h", "hpp")
    also_compiles = ("c",)
    names_in = {"kattis": ("cpp", "c++"), "sandboxfusion": ("cpp",), "codecontests": (2, "CPP")}
    allocation_errors = ("std::bad_alloc",)
    oom_markers = ("std::bad_alloc",)  # uncaught
    tools = (("g++", ("/usr/bin/g++", "--version")),)

    def defines(self, code: str, name: str) -> bool:
        # a return type (possibly templated), the name, an opening parenthesis (not a call
        # after ``return`` or ``else``)
        return any(m.group(1) not in _STATEMENT_WORDS for m in re.finditer(
            r"(\w+|[>&*\]])\s+[&*]?\s*%s\s*\(" % re.escape(name), code))

    def check_expressible(self, problem: Any) -> None:
        """Also: every integer of the tests within ``long long``/``unsigned long long`` (C++
        has no standard big integer; see :mod:`judge.languages.bigints`)."""
        super().check_expressible(problem)
        from judge.languages.bigints import check_int_range

        check_int_range(problem, -(1 << 63), 1 << 64, "C++",
                        "C++ has no standard integer type beyond 64 bits")

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        kind = spec.kind
        simple = {"int": "long long", "float": "double", "str": "std::string", "bool": "bool",
                  "none": "void"}
        if kind in simple:
            return simple[kind]
        if kind in ("list", "sequence"):
            return "std::vector<%s>" % self.type_name(spec.args[0], False)
        if kind == "tuple":
            if spec.variadic:
                return "std::vector<%s>" % self.type_name(spec.args[0], False)
            return "std::tuple<%s>" % ", ".join(self.type_name(a, False) for a in spec.args)
        if kind == "set":
            return "std::set<%s>" % self.type_name(spec.args[0], False)
        if kind == "dict":
            return "std::map<%s, %s>" % (self.type_name(spec.args[0], False),
                                         self.type_name(spec.args[1], False))
        if kind == "optional":
            return "std::optional<%s>" % self.type_name(spec.args[0], False)
        if kind in ("any", "union"):
            return "std::any"
        raise NotExpressible("type %s has no C++ counterpart here" % spec)

    def param_type(self, spec: TypeSpec) -> str:
        name = self.type_name(spec)
        return name if spec.kind in ("int", "float", "bool") else "const %s&" % name

    def signature(self, function, names, params, returns):
        args = ", ".join("%s %s" % (self.param_type(s), n) for n, s in zip(names, params))
        return "%s %s(%s)" % (self.return_type_name(returns), function, args)

    def stub(self, function, names, params, returns, doc):
        signature = self.signature(function, names, params, returns)
        if "std::any" in signature:
            doc += ANY_NOTE
        comment = "\n".join(("// " + line).rstrip() for line in doc.strip().splitlines())
        return "#include <bits/stdc++.h>\n\n%s\n%s {\n" % (comment, signature)

    def literal(self, value: Any, spec: TypeSpec) -> str:
        kind = spec.kind
        if value is None:
            return "std::nullopt"
        if kind == "optional":
            return self.literal(value, spec.args[0])
        if kind == "bool":
            return "true" if value else "false"
        if kind == "int":
            return "%dLL" % value if abs(value) > 2**31 else str(value)
        if kind == "float":
            return float_literal(value)
        if kind == "str":
            return json_string(value)
        if kind in ("list", "sequence", "set") or (kind == "tuple" and spec.variadic):
            inner = spec.args[0]
            return "{%s}" % ", ".join(self.literal(v, inner) for v in value)
        if kind == "tuple":
            return "{%s}" % ", ".join(self.literal(v, s) for v, s in zip(value, spec.args))
        if kind == "dict":
            return "{%s}" % ", ".join("{%s, %s}" % (self.literal(k, spec.args[0]),
                                                   self.literal(v, spec.args[1]))
                                     for k, v in value.items())
        raise NotExpressible("a %s value" % spec)

    def prepare_code(self, code: str) -> str:
        return code

    def build(self, code: str, function: str, params: list[TypeSpec], returns: TypeSpec,
              memory_mb: int) -> Build:
        # ``#line`` directives give the candidate's own line numbers in compiler messages
        source = self.render("main.cpp.j2", candidate_file=self.candidate_file, code=code,
                             harness_line=1, function=function,
                             entry=entry_point(code, function, len(params)),
                             return_ty=_ty(descriptor(returns)))
        shim = runner_dir(self.name) / "include" / "boost" / "any.hpp"
        return Build(
            files={"main.cpp": source,
                   "judge_include/boost/any.hpp": shim.read_text(encoding="utf-8")},
            # a precompiled <bits/stdc++.h> with these exact flags, where
            # scripts/ensure-toolchains.sh (or the image) made one; ignored where absent
            compile=[["/usr/bin/g++", "-std=c++17", "-O2", "-pipe", "-w", "-fmax-errors=5",
                      "-I" + PCH_DIR, "-Ijudge_include", "-o", "prog", "main.cpp"]],
            run=["{build}/prog", "{args}"],
            artifacts=["prog"],
            line_offset=0,
            candidate_file=self.candidate_file,
        )

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        files = source_files(sources, ".cc", ".cpp", ".cxx", ".c++", ".c")
        return Build(files=dict(sources),
                     compile=[["/usr/bin/g++", *PROGRAM_FLAGS, "-o", "prog", *files]],
                     run=["{build}/prog"], artifacts=["prog"],
                     candidate_file=main_source(sources, ".cc", ".cpp", ".cxx", ".c++", ".c"))

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        return first_error(output, _ERROR, build.candidate_file, build.line_offset)

    @property
    def toolchain(self) -> str:
        return _version(["g++", "--version"])


def _version(command: list[str]) -> str:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=60)
        return (out.stdout + out.stderr).strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return command[0] + " (unknown version)"
