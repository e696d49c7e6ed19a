"""The ``function`` problem kind: a typed function (the seed format, and every benchmark
imported as one), judged call by call (:mod:`judge.kinds.function.judge`), prompted with its
signature in any language whose types can state it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge import languages
from judge.candidates.submission import Submission
from judge.engine.engine import Engine
from judge.errors import InputError, Issue
from judge.kinds.base import ProblemKind
from judge.kinds.function.judge import FunctionJudge
from judge.problem.model import function_from_data, require_tests
from judge.prompts.languages import render_language_prompt
from judge.prompts.render import RenderedPrompt, render_prompt


class FunctionKind(ProblemKind):
    name = "function"
    description = "a typed function called once per test; values compared by declared type"
    #: prompts can hide the function's and parameters' names (``--genericize``)
    has_names = True

    def load(self, data: dict[str, Any], file: str, root: Path | None = None) -> Any:
        return function_from_data(data, file)

    def inline(self, data: dict[str, Any]) -> Any:
        """Data only: no checker code and no check expressions (they would run in the
        judge's process)."""
        issues = []
        if data.get("checker") is not None:
            issues.append(Issue("<request>", "an inline problem may not carry checker code (it "
                                "would run in the judge's process); load the suite on the "
                                "server instead", "checker"))
        tests = data.get("correctness_test_suite")
        for index, test in enumerate(tests if isinstance(tests, list) else []):
            if isinstance(test, dict) and test.get("check") is not None:
                issues.append(Issue("<request>", "an inline problem may not carry check "
                                    "expressions (they run in the judge's process); use "
                                    "expected_output",
                                    "correctness_test_suite[%d].check" % index))
        if issues:
            raise InputError(issues)
        return function_from_data(data, "<request>")

    def judgeable(self, problem: Any) -> bool:
        return bool(problem.has_tests)

    def require_judgeable(self, problem: Any) -> None:
        require_tests(problem)  # its own words: "no correctness_test_suite"

    def summary(self, problem: Any) -> dict[str, Any]:
        return {"tests": len(problem.correctness_test_suite), "function": problem.function_name,
                "prompts": [q.prompt_id for q in problem.prompts], "source": problem.source}

    def submission(self, problem: Any, candidate: Any) -> Submission:
        """The language's reply-to-code step (with ``strict``, the reply is the code as it
        is: nothing extracted)."""
        return languages.get(candidate.language).submission(problem, candidate)

    def in_language(self, problem: Any, language: Any) -> Any:
        return language.for_problem(problem)

    def reference_solution(self, problem: Any, language: Any) -> str | None:
        return language.reference_solution(problem)

    def open(self, engine: Engine) -> FunctionJudge:
        return FunctionJudge(engine)

    def prompts(self, problem: Any, language: str | None = None,
                genericize: bool = False) -> list[RenderedPrompt]:
        """Each of the problem's prompts; in another language than the default one, its
        signature in that language (``NotExpressible`` when its types have no spelling)."""
        generic = True if genericize else None
        if languages.get(language).default:
            return [render_prompt(problem, prompt, generic) for prompt in problem.prompts]
        return [render_language_prompt(problem, prompt, language, generic)
                for prompt in problem.prompts]


__all__ = ["FunctionKind"]
