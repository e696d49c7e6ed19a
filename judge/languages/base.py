"""What a language adds to the judge: a type mapping, name conventions, how its function is
found in a candidate's code, its prompt syntax, and how its harness is built and run.

Everything else (the type model, comparison, verdicts, limits, reports) is shared. The
harness of a language is a jinja2 template under ``runners/<language>/``; it reads a test's
arguments as wire data (judge/sandbox/wire.py) from a file, converts them to the parameter
types of the candidate's own function, calls it once and writes the return value as wire data
to file descriptor 3. The Python worker supervises it exactly as it supervises a Python test
(runners/python/judge_worker/native.py).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.candidates.submission import Submission, extract_fenced, function_names
from judge.errors import ProblemFault
from judge.problem.types import TypeSpec
from judge.resources import runner_dir
from judge.sandbox.harness import template_environment
from judge.sandbox.prerequisites import Prerequisite, tool_version
from judge.sandbox.records import SYNTAX_CHECK


class NotExpressible(ProblemFault, ValueError):
    """A problem's type that the language cannot express: a property of the problem, reported
    once, never a candidate's failure."""

    code = "not_expressible"


#: a compact descriptor of a declared type, the same in every harness:
#: i int, f float, s str, b bool, n None, L list, T tuple, V variadic tuple, S set, D dict,
#: O optional, A any (a tagged value: each harness reads it into its language's dynamic type,
#: e.g. C++ ``std::any``, Java ``Object``, Go ``interface{}``, Rust ``Box<dyn Any>``, and
#: writes a returned one by what it holds)
_CODES = {"int": "i", "float": "f", "str": "s", "bool": "b", "none": "n", "list": "L",
          "sequence": "L", "set": "S", "dict": "D", "optional": "O", "any": "A", "union": "A"}


def descriptor(spec: TypeSpec) -> tuple[str, list[Any]]:
    """(code, children) for a declared type; NotExpressible for what no harness carries."""
    if spec.kind == "tuple":
        if spec.variadic:
            return "V", [descriptor(spec.args[0])]
        return "T", [descriptor(a) for a in spec.args]
    if spec.kind == "union":
        return "A", []
    code = _CODES.get(spec.kind)
    if code is None:
        raise NotExpressible("type %s" % spec)
    return code, [descriptor(a) for a in spec.args]


def descriptor_text(desc: tuple[str, list[Any]]) -> str:
    code, children = desc
    if not children:
        return code
    return "%s(%s)" % (code, ",".join(descriptor_text(c) for c in children))


def snake_to_camel(name: str) -> str:
    head, *rest = [p for p in name.split("_") if p] or [name]
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def snake_to_pascal(name: str) -> str:
    camel = snake_to_camel(name)
    return camel[:1].upper() + camel[1:]


#: words never taken for a candidate's function when its name is not found
_NOT_FUNCTIONS = frozenset({"main", "if", "for", "while", "switch", "return", "sizeof", "catch",
                            "else", "new", "delete", "throw", "function", "fn", "func"})


@dataclass
class Build:
    """What the worker needs to compile and run a candidate (sent with the job)."""

    files: dict[str, str]
    compile: list[list[str]]
    run: list[str]
    artifacts: list[str]
    env: dict[str, str] = field(default_factory=dict)
    #: lines of the harness before the candidate's first line in the compiled file
    line_offset: int = 0
    candidate_file: str = ""

    def to_wire(self) -> dict[str, Any]:
        return {"files": self.files, "compile": self.compile, "run": self.run,
                "artifacts": self.artifacts, "env": self.env}


#: ``Language.stall_risk`` of code that may block (a sleep, a wait, a lock, a socket): it is
#: admitted beyond the cores and started first (never a verdict)
BLOCKING = 3


class Language:
    """One language. Subclasses fill in the mapping and the build; a module that defines one
    registers it by name in :data:`judge.languages.REGISTRY` (or an entry point)."""

    name = ""
    title = ""
    extension = ""
    fence_tags: tuple[str, ...] = ()
    #: the language problems are written in (their prototype, ``optimal_solution`` and
    #: prompts' ``input_code``) and of candidates that name none; results and keys of its
    #: candidates leave the language out
    default = False
    #: jobs carry a :class:`Build` (files, compile and run commands) that the worker's
    #: native part runs (runners/native/); False: the worker runs the code itself
    worker_native = True
    #: the worker pool its jobs run in; what a pool is, the sandbox's back end decides (one
    #: for all, or workers of their own: judge.sandbox.backends.SandboxBackend.own_pool)
    pool = "native"
    #: the host's tools the process sandbox needs: (name, version command)
    tools: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: a whole program runs in the worker's own interpreter (forked, no start-up per test)
    #: instead of its run command
    program_in_worker = False
    #: the file extensions of its source files (a package's submissions; empty: ``extension``)
    source_extensions: tuple[str, ...] = ()
    #: extensions of its header files: code beside its sources that never decides a
    #: program's language (``h`` beside ``c`` or ``cpp``)
    header_extensions: tuple[str, ...] = ()
    #: languages whose source files it compiles too beside its own: a program of both is in
    #: this one (C files in a C++ program)
    also_compiles: tuple[str, ...] = ()
    #: the names other systems give it, by naming scheme: ``"kattis"`` (package file and
    #: folder names, ``validator_language``), ``"sandboxfusion"`` (its API's ``language``),
    #: ``"codecontests"`` (the dataset's ``Language`` enum: numbers and upper-case names);
    #: the first name is the one the judge writes. Found by :func:`judge.languages.named_in`
    names_in: dict[str, tuple[Any, ...]] = {}
    #: ``program_build`` keyword arguments a scheme runs it with (SandboxFusion runs Java
    #: with assertions on)
    build_flags_in: dict[str, dict[str, Any]] = {}
    #: the exception types its harness or runtime reports when an allocation fails
    allocation_errors: tuple[str, ...] = ()
    #: what its runtime prints when it dies out of memory without a catchable error (read
    #: only beside a measured peak: judge.engine.classify)
    oom_markers: tuple[str, ...] = ()
    #: where a prompt says the function goes (``a method of class Solution``)
    prompt_where = ""
    #: CPU seconds a runtime needs to start (JVM, Node) added to each test's limits
    startup_s = 0.0
    #: MiB a whole program's runtime gets beside the problem's memory limit (the JVM's own
    #: memory beside a heap as large as the limit, as Kattis gives Java ``-Xmx<limit>``)
    memory_headroom_mb = 0
    #: processes/threads a test's process may have (runtimes are multi-threaded)
    nproc = 32
    #: open files a test's process may have, when the run's own limit is lower (R refuses to
    #: start under 167); 0: the run's
    nofile = 0
    comment = "//"

    # ---- names ---------------------------------------------------------------------------

    def file_extensions(self) -> tuple[str, ...]:
        """The extensions of its source files (``source_extensions``, else ``extension``)."""
        return self.source_extensions or ((self.extension,) if self.extension else ())

    def name_in(self, scheme: str) -> Any:
        """The name ``scheme`` gives it (the first of ``names_in``); None when it has none."""
        names = self.names_in.get(scheme, ())
        return names[0] if names else None

    def conventional_name(self, name: str) -> str:
        return name

    def function_names(self, name: str) -> list[str]:
        """The names a candidate's function may have: the problem's, then the language's
        usual form of it."""
        return list(dict.fromkeys([name, self.conventional_name(name)]))

    def defines(self, code: str, name: str) -> bool:
        raise NotImplementedError

    def find_function(self, code: str, names: list[str]) -> str | None:
        for name in names:
            for form in self.function_names(name):
                if self.defines(code, form):
                    return form
        # the name in another case or spacing (HumanEval-X's Go ``Minpath`` for min_path)
        idents = list(dict.fromkeys(re.findall(r"\b[A-Za-z_]\w*(?=\s*[(=<])", code)))
        for name in names:
            key = name.replace("_", "").lower()
            for ident in idents:
                if ident.replace("_", "").lower() == key and self.defines(code, ident):
                    return ident
        # another name altogether (HumanEval-X's C++ ``get_matrix_triples`` for
        # get_max_triples): the one function the code defines, if it defines only one
        defined = [ident for ident in idents if ident not in _NOT_FUNCTIONS
                   and self.defines(code, ident)]
        return defined[0] if len(defined) == 1 else None

    # ---- candidates ----------------------------------------------------------------------

    def extract(self, text: str, names: list[str]) -> tuple[str, str | None]:
        """The code to judge from a reply, and a note when there was a choice."""
        return extract_fenced(text, self.fence_tags,
                              lambda block: self.find_function(block, names) is not None)

    #: code that may block (sleep, wait for input, a lock, a socket, a child): such a
    #: candidate may hold its slot for its whole wall budget while using no CPU
    may_block = re.compile(r"\b(sleep|Sleep|sleep_for|sleep_until|usleep|nanosleep|pause|waitpid"
                           r"|select|poll|accept"
                           r"|recv|setTimeout|setInterval)\s*\(|\.(wait|await|join|take|lock)"
                           r"\(\s*\)|\bselect\s*\{|<-\s*\w")
    #: a loop without a condition (it ends only by a break): the likeliest to run forever
    may_loop_forever = re.compile(r"\bwhile\s*\(?\s*(true|1)\s*\)?\s*[:{]|\bfor\s*\(\s*;\s*;\s*\)"
                                  r"|\bloop\s*\{|\bfor\s*\{")
    #: code that may loop: its candidate may run until its CPU budget is spent
    may_loop = re.compile(r"\bwhile\b|\bgoto\b")

    def stall_risk(self, code: str) -> int:
        """How likely the code is to run into its time limits, by its text alone: 3 may
        block, 2 loops without a condition, 1 loops, 0 none of these. Only the order
        candidates start in follows it (:mod:`judge.running.schedule`), and whether code
        that may block is admitted beside candidates busy on every core
        (:meth:`judge.sandbox.admission.Admission.enter`), never a limit or a verdict."""
        if self.may_block.search(code):
            return 3
        if self.may_loop_forever.search(code):
            return 2
        return 1 if self.may_loop.search(code) else 0

    def carries_no_state(self, code: str) -> bool:
        """Whether calls of the code's function provably cannot see what an earlier call
        changed (then a failing value from a process that ran earlier tests first stands:
        :meth:`judge.kinds.function.judge.Executor._batch_then_isolated`). False unless the
        language can show it."""
        return False

    def submission(self, problem: Any, candidate: Any) -> Submission:
        """The reply-to-code step: the code of ``candidate``'s reply and the name its
        function has here (the problem's name or this language's usual case of it)."""
        names = function_names(problem, candidate.prompt_id)
        if getattr(candidate, "strict", False):  # the reply is the code: nothing extracted
            code = candidate.solution
            return Submission(code, self.find_function(code, names) or names[0], None,
                              self.name, extracted=False)
        code, note = self.extract(candidate.solution, names)
        function = self.find_function(code, names) or names[0]
        return Submission(code, function, note, self.name)

    def reference_path(self, problem: Any) -> Path:
        """``<suite folder>/<language>/<problem id>.<ext>``"""
        return Path(problem.source).parent / self.name / (
            "%s.%s" % (problem.identifier, self.extension))

    def reference_solution(self, problem: Any) -> str | None:
        """A function problem's reference solution in this language, None when it has none
        (a program problem's: :func:`program_reference`)."""
        path = self.reference_path(problem)
        return path.read_text(encoding="utf-8") if path.is_file() else None

    def for_problem(self, problem: Any) -> Any:
        """The problem as judged here (``Any`` typed from its tests); NotExpressible when
        this language cannot write its types."""
        from judge.languages.infer import typed

        problem = typed(problem)
        self.check_expressible(problem)
        return problem

    # ---- types ---------------------------------------------------------------------------

    def type_name(self, spec: TypeSpec, top: bool = True) -> str:
        raise NotImplementedError

    def return_type_name(self, specs: list[TypeSpec]) -> str:
        if len(specs) == 1:
            return self.type_name(specs[0])
        return self.type_name(TypeSpec("tuple", tuple(specs)))

    def check_expressible(self, problem: Any) -> None:
        """Raise NotExpressible when the problem's types cannot be written here."""
        for spec in list(problem.param_specs) + [problem.return_spec]:
            descriptor(spec)
            self.type_name(spec)

    def literal(self, value: Any, spec: TypeSpec) -> str:
        raise NotImplementedError

    # ---- prompts -------------------------------------------------------------------------

    def signature(self, function: str, names: list[str], params: list[TypeSpec],
                  returns: list[TypeSpec]) -> str:
        raise NotImplementedError

    def stub(self, function: str, names: list[str], params: list[TypeSpec],
             returns: list[TypeSpec], doc: str) -> str:
        """The starting code a completion-style prompt shows: a doc comment and the
        signature with an empty body."""
        raise NotImplementedError

    def call(self, function: str, args: list[str]) -> str:
        return "%s(%s)" % (function, ", ".join(args))

    # ---- builds --------------------------------------------------------------------------

    def prepare_code(self, code: str) -> str:
        """Adjust a candidate's code so the harness can sit beside it (e.g. a ``main`` of
        its own). Never changes what the function computes."""
        return code

    def build(self, code: str, function: str, params: list[TypeSpec], returns: TypeSpec,
              memory_mb: int) -> Build:
        raise NotImplementedError

    # ---- whole programs (program problems: standard input to standard output) -----------

    def program_file(self, code: str) -> str:
        """The file a candidate's whole program is compiled from."""
        return "main.%s" % self.extension

    @property
    def description(self) -> str:
        """What ``judge sandbox doctor`` says of the language: its title and how a whole
        program is compiled and run (the contest flags)."""
        build = self.program_probe()
        if build is None:
            return self.title
        steps = [" ".join("<script>" if "\n" in part else
                          "<syntax check by the worker's python3>" if part == SYNTAX_CHECK
                          else part for part in command)
                 for command in build.compile + [build.run]]
        return "%s; programs: %s" % (self.title, " && ".join(steps))

    def program_probe(self) -> Build | None:
        """The build of an empty whole program: None when the language judges no programs."""
        try:
            return self.program_build({self.program_file(""): ""}, 256)
        except (NotExpressible, ValueError):
            return None

    def program_build(self, sources: dict[str, str], memory_mb: int) -> Build:
        """How a whole program (``sources``: file name -> text, e.g. a candidate's one file or
        an output validator's folder) is compiled once and run once per test: the run
        command gets the test's arguments appended. The usual contest flags."""
        raise NotExpressible("%s cannot judge whole programs" % (self.title or self.name))

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        """The compiler's first error, and its line in the candidate's code."""
        lines = [line for line in output.splitlines() if line.strip()]
        return (lines[0][:500] if lines else "compilation failed"), None

    def render(self, template: str, **context: Any) -> str:
        env = template_environment(str(runner_dir(self.name)))
        return env.get_template(template).render(**context)

    @functools.cached_property
    def toolchain(self) -> str:
        """The toolchain's identity on this machine (versions), for the compile cache."""
        return self.name

    def prerequisites(self) -> list[Prerequisite]:
        """What the process sandbox needs on this host to judge this language (the docker
        sandbox has it in its image), each with whether it is met here."""
        return [tool_version(name, list(command), needed="%s for %s" % (name, self.title))
                for name, command in self.tools]


def first_error(output: str, pattern: re.Pattern[str], file: str, offset: int
                ) -> tuple[str, int | None]:
    """The first line of ``output`` matching ``pattern`` (named groups ``file``, ``line``,
    ``message``) in the candidate's file, its line mapped back to the candidate's code."""
    for match in pattern.finditer(output):
        if file and match.group("file").rsplit("/", 1)[-1] != file:
            continue
        line = int(match.group("line")) - offset
        return match.group("message").strip()[:500], (line if line > 0 else None)
    for match in pattern.finditer(output):
        return match.group("message").strip()[:500], None
    lines = [line for line in output.splitlines() if line.strip()]
    return (lines[0][:500] if lines else "compilation failed"), None


def program_reference(problem: Any, lang: Language) -> str | None:
    """A program problem's reference solution in ``lang``: the first accepted submission of
    its package (``<source>/submissions/accepted/*.<ext>``), None when it has none."""
    folder = Path(problem.source or "") / "submissions" / "accepted"
    if not problem.source or not folder.is_dir():
        return None
    extensions = lang.file_extensions()
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.suffix[1:].lower() in extensions:
            return path.read_text(encoding="utf-8", errors="replace")
    return None


def source_files(sources: dict[str, str], *extensions: str) -> list[str]:
    """The files of ``sources`` with one of ``extensions`` (sorted); NotExpressible when there
    is none (nothing to compile)."""
    found = sorted(name for name in sources if name.lower().endswith(extensions))
    if not found:
        raise NotExpressible("no %s source among %s" % ("/".join(extensions),
                                                      ", ".join(sorted(sources)) or "no files"))
    return found


def main_source(sources: dict[str, str], *extensions: str, marker: str | None = None) -> str:
    """The file a program starts in: the only one, else one holding ``marker`` (a regular
    expression: ``def main``, ``static void main``...), else one called main/validate."""
    files = source_files(sources, *extensions)
    if len(files) == 1:
        return files[0]
    if marker is not None:
        marked = [name for name in files if re.search(marker, sources[name], re.M)]
        if len(marked) == 1:
            return marked[0]
    for stem in ("main", "validate", "validator"):
        for name in files:
            if name.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower() == stem:
                return name
    return files[0]


def float_literal(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        raise NotExpressible("a non-finite float literal")
    text = repr(float(value))
    return text


def json_string(text: str) -> str:
    """A string literal with JSON escapes: valid in JavaScript, Java, Go, Rust (\\u{...}
    aside) and C++ for the printable text samples hold."""
    return json.dumps(text, ensure_ascii=False)


def code_digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()
