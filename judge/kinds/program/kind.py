"""The ``program`` problem kind: a whole program reading stdin and writing stdout, in any
language (:mod:`judge.kinds.program.judge`), prompted with its statement, formats and
samples.

Inline in a request (``judge serve``), a program problem is data only: a client may send its
tests inline, but nothing in it may name a file or a program of the server
(``stdin_file``, ``expected_file`` and ``files`` would read the server's files and hand them
to the candidate; an output validator is a program the server would run).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge import languages
from judge.candidates.submission import Submission, extract_fenced
from judge.engine.checkers.base import CHECKERS
from judge.errors import InputError, Issue, UnknownName
from judge.engine.engine import Engine
from judge.kinds.base import ProblemKind
from judge.kinds.program.judge import ProgramJudge
from judge.languages.base import program_reference
from judge.languages.programs import validator_issues
from judge.problem.program import ProgramProblem, program_from_data
from judge.prompts.programs import render_program_prompt
from judge.prompts.render import RenderedPrompt


#: what inline tests are resolved against: nothing (they may name no file)
_NOWHERE = Path("/nonexistent/judge-inline")


def inline_program(data: dict[str, Any]) -> ProgramProblem:
    """A program problem from a request body (InputError naming the field when it names a
    file, carries a validator or is interactive)."""
    issues = []
    tests = data.get("tests")
    for index, test in enumerate(tests if isinstance(tests, list) else []):
        for key in ("stdin_file", "expected_file", "files"):
            if isinstance(test, dict) and test.get(key) is not None:
                issues.append(Issue("<request>", "an inline problem may not name files of "
                                    "the server; give stdin and expected inline",
                                    "tests[%d].%s" % (index, key)))
        if isinstance(test, dict) and isinstance(test.get("checker"), dict) and \
                test["checker"].get("type") == "validator":
            issues.append(Issue("<request>", "an inline problem may not carry an output "
                                "validator program", "tests[%d].checker" % index))
    checker = data.get("checker")
    if isinstance(checker, dict) and (checker.get("type") == "validator"
                                      or checker.get("validator") is not None):
        issues.append(Issue("<request>", "an inline problem may not carry an output validator "
                            "program (load the package on the server instead)", "checker"))
    if data.get("interactive"):
        issues.append(Issue("<request>", "interactive problems need a validator: load the "
                            "package on the server", "interactive"))
    if issues:
        raise InputError(issues)
    return program_from_data(data, "<request>", _NOWHERE)


def _checkers_of(problem: ProgramProblem) -> list[tuple[str, Any]]:
    found = [("checker.type", problem.checker)]
    found += [("tests[%d].checker.type" % i, t.checker) for i, t in enumerate(problem.tests)
              if t.checker is not None]
    return found


def _known_checkers(problem: ProgramProblem, file: str) -> ProgramProblem:
    """The problem, when every checker it names is registered (judge.engine.checkers);
    else InputError naming each unknown one, with a did-you-mean."""
    issues = validator_issues(problem, file)
    for where, options in _checkers_of(problem):
        try:
            CHECKERS.get(options.type)
        except UnknownName as exc:
            issues.append(Issue(file, str(exc), where))
    if issues:
        raise InputError(issues)
    return problem


class ProgramKind(ProblemKind):
    name = "program"
    description = "a whole program on stdin/stdout; its output checked per test"

    def load(self, data: dict[str, Any], file: str, root: Path | None = None) -> Any:
        return _known_checkers(program_from_data(data, file, root), file)

    def inline(self, data: dict[str, Any]) -> Any:
        """Data only: no file of the server, no output validator program (a checker of the
        judge's own, ``tokens``, ``exact``, ``lines``, is data and is kept)."""
        problem = _known_checkers(inline_program(data), "<request>")
        for where, options in _checkers_of(problem):
            if not CHECKERS.get(options.type).in_process:
                raise InputError([Issue("<request>", "an inline problem may not carry a checker "
                                        "that runs a program (%s)" % options.type, where)])
        return problem

    def data(self, problem: Any) -> dict[str, Any]:
        data = problem.model_dump(mode="json", exclude_defaults=True)
        data["kind"] = self.name
        return data

    def judgeable(self, problem: Any) -> bool:
        return True  # its tests are checked when it loads (a program problem needs tests)

    def summary(self, problem: Any) -> dict[str, Any]:
        return {"tests": len(problem.tests), "function": None, "prompts": [],
                "source": problem.source_file or problem.source}

    def submission(self, problem: Any, candidate: Any) -> Submission:
        """A candidate's whole program: the last fenced block in its language (or the whole
        reply when it has none), run as the problem's ``runtimes`` say (``{"python":
        "pypy3"}``: a Python program on PyPy, as Kattis runs it)."""
        lang = languages.get(candidate.language)
        code, note = extract_fenced(candidate.solution.replace("\r\n", "\n"), lang.fence_tags,
                                    lambda block: True)
        runs_as = languages.runs_as(problem, lang.name)
        if runs_as != lang.name:
            said = "%s runs as %s on this problem (its runtimes)" % (lang.name, runs_as)
            note = "%s; %s" % (note, said) if note else said
        return Submission(code, "", note, runs_as)

    def reference_solution(self, problem: Any, language: Any) -> str | None:
        return program_reference(problem, language)

    def open(self, engine: Engine) -> ProgramJudge:
        return ProgramJudge(engine)

    def prompts(self, problem: Any, language: str | None = None,
                genericize: bool = False) -> list[RenderedPrompt]:
        """Its one prompt (nothing to genericize: a program has no names to hide)."""
        return [render_program_prompt(problem, language)]


__all__ = ["ProgramKind"]
