"""The ``test_program`` problem kind: the candidate's code and the benchmark's test code in
the same language, run together in the sandbox (MultiPL-E, HumanEval-X, MBXP, unit-test
suites); judged by :mod:`judge.kinds.test_program.judge`. The file format and the trust
model: docs/test-programs.md."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

from judge import languages
from judge.candidates.submission import Submission, extract_fenced
from judge.engine.engine import Engine
from judge.errors import InputError, Issue, UnknownName
from judge.kinds.base import ProblemKind
from judge.kinds.test_program.judge import TestProgramJudge
from judge.languages.base import NotExpressible
from judge.languages.frameworks import FRAMEWORKS, SEPARATE_TEST_FILE
from judge.problem.test_program import TestProgramProblem, cut_at_stop, test_program_from_data
from judge.prompts.render import RenderedPrompt


def _checked(problem: TestProgramProblem, file: str) -> TestProgramProblem:
    """The problem, when its language and framework are known and fit; else InputError."""
    issues = []
    try:
        languages.get(problem.language)
    except UnknownName as exc:
        issues.append(Issue(file, str(exc), "language"))
    if problem.framework is not None:
        wanted = FRAMEWORKS.get(problem.framework)
        if wanted is None:
            issues.append(Issue(file, "unknown test framework %r (known: %s)" % (
                problem.framework, ", ".join(sorted(FRAMEWORKS))), "framework"))
        elif not issues and languages.get(problem.language).name != wanted:
            issues.append(Issue(file, "the %s framework runs %s tests, not %s" % (
                problem.framework, wanted, problem.language), "framework"))
    if problem.libraries and not issues and not takes_libraries(
            languages.get(problem.framework or problem.language)):
        issues.append(Issue(file, "%s programs have no third-party libraries here "
                            "(docs/test-programs.md)" % (problem.framework or problem.language),
                            "libraries"))
    if problem.test_file is not None and problem.framework not in SEPARATE_TEST_FILE:
        issues.append(Issue(file, "a separate test file is for pytest and go_test only",
                            "test_file"))
    if issues:
        raise InputError(issues)
    return problem


def takes_libraries(lang: Any) -> bool:
    """Whether the language builds with its third-party libraries on request (its
    ``program_build`` takes ``libraries``)."""
    return "libraries" in inspect.signature(lang.program_build).parameters


def go_imports(code: str, setup: str, packages: list[str]) -> str:
    """The import block of the Go packages ``code`` uses (``pkg.`` appears in it) and
    ``setup`` does not import, as HumanEval-X's evaluator adds them; "" when none."""
    used = ['"%s"' % pkg for pkg in packages if '"%s"' % pkg not in setup
            and re.search(r"\b%s\." % re.escape(pkg.rsplit("/", 1)[-1]), code)]
    return "import (\n%s)\n" % "".join("    %s\n" % p for p in used) if used else ""


class TestProgramKind(ProblemKind):
    name = "test_program"
    description = "the candidate's code run with the benchmark's test code, in its language"

    def load(self, data: dict[str, Any], file: str, root: Path | None = None) -> Any:
        return _checked(test_program_from_data(data, file), file)

    def inline(self, data: dict[str, Any]) -> Any:
        """Data only: the tests run in the sandbox like the candidate, never here."""
        return _checked(test_program_from_data(data, "<request>"), "<request>")

    def data(self, problem: Any) -> dict[str, Any]:
        data = problem.model_dump(mode="json", exclude_defaults=True)
        data["kind"] = self.name
        return data

    def judgeable(self, problem: Any) -> bool:
        return bool(problem.tests.strip())

    def summary(self, problem: Any) -> dict[str, Any]:
        return {"tests": 1, "function": None, "prompts": [problem.language],
                "source": problem.source or problem.source_file}

    def submission(self, problem: Any, candidate: Any) -> Submission:
        """A reply with a fenced block in the language is the whole code; else a completion
        of the prompt, cut at the first stop token. ``setup`` goes first either way."""
        lang = languages.get(problem.language)
        if candidate.language and languages.get(candidate.language).name != lang.name:
            raise NotExpressible("%s is a %s test program (candidate in %s)" % (
                problem.identifier, lang.name, candidate.language))
        text = candidate.solution.replace("\r\n", "\n")
        block, note = extract_fenced(text, lang.fence_tags, lambda block: True)
        if block is not text and not getattr(candidate, "strict", False):
            body = block
        else:
            body, note = problem.prompt + cut_at_stop(text, problem.stop_tokens), None
        imports = go_imports(body, problem.setup, problem.imports_if_used) \
            if problem.imports_if_used else ""
        code = problem.setup + ("\n" if problem.setup else "") + imports + body
        return Submission(code, "", note, lang.name)

    def in_language(self, problem: Any, language: Any) -> Any:
        if language.name != languages.get(problem.language).name:
            raise NotExpressible("%s is a %s test program" % (problem.identifier,
                                                              problem.language))
        return problem

    def reference_solution(self, problem: Any, language: Any) -> str | None:
        return problem.reference

    def open(self, engine: Engine) -> TestProgramJudge:
        return TestProgramJudge(engine)

    def prompts(self, problem: Any, language: str | None = None,
                genericize: bool = False) -> list[RenderedPrompt]:
        """Its one prompt: the benchmark's, as it is (a completion continues it)."""
        if language is not None:
            self.in_language(problem, languages.get(language))
        return [RenderedPrompt(problem.identifier, problem.language, False, "", problem.prompt)]


__all__ = ["TestProgramKind", "go_imports", "takes_libraries"]
