"""verl's ``assert_case`` ground truth (KodCode and the datasets verl's SandboxFusion reward
reads): ``{"fn_name": ..., "assert_case": ["assert f(1) == 2", ...]}``, each assert run after
the candidate's code as a program of its own, passing when that program exits normally
(verl's ``sandbox_fusion/utils.py``: ``generation + "\\n\\n" + assert_case[i]``, no input, no
expected output).

Each case is a test-program problem of the judge (``judge.problem.test_program``: the
candidate's code, then the case) and the cases of one ground truth are an
:class:`AssertCases`: what reward policies see as one problem with one test per case
(``test_count``, ``input_size``, ``with_tests``). The scorer judges every case and folds the
results into one candidate result (:func:`fold`). Cases are bounded in number and size; a
malformed one is a located :class:`~judge.importers.datasets.RecordError`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from typing import Any

from judge import languages
from judge.engine.verdicts import CandidateResult, TestResult, Verdict
from judge.importers.datasets import RecordError
from judge.problem.test_program import TestProgramProblem

#: the most cases of one ground truth, and characters of one case
MAX_CASES, MAX_CASE_CHARS = 1000, 1 << 16


class AssertCases:
    """One ground truth's assert cases: one test-program problem per case (see the module
    doc); what a reward policy asks of a problem."""

    kind = "assert_cases"

    def __init__(self, identifier: str, cases: list[str], language: str = "python") -> None:
        self.identifier = identifier
        self.cases = list(cases)
        self.language = language
        self.problems = [TestProgramProblem(
            identifier="%s_case_%d" % (identifier, i), language=language, prompt="",
            tests=case, source="assert_case") for i, case in enumerate(self.cases)]

    def test_count(self) -> int:
        return len(self.cases)

    def input_size(self, index: int) -> int:
        return len(self.cases[index])

    def with_tests(self, indices: list[int]) -> "AssertCases":
        return AssertCases(self.identifier, [self.cases[i] for i in indices], self.language)

    def with_float_tolerance(self, tolerance: float) -> "AssertCases":
        """The cases compare as they are written (an assert is its own comparison)."""
        return self


def assert_cases(ground_truth: Any, identifier: str = "verl") -> AssertCases | None:
    """The assert cases of a verl ground truth (a JSON string or a dict), None when it has
    no ``assert_case`` (another shape: the other readers' business)."""
    data = ground_truth
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except ValueError:
            return None
    if not isinstance(data, dict) or "assert_case" not in data:
        return None
    cases = data["assert_case"]
    if not isinstance(cases, list) or not cases:
        raise RecordError("assert_case must be a non-empty list of assert statements",
                          "assert_case")
    if len(cases) > MAX_CASES:
        raise RecordError("at most %d assert cases, got %d" % (MAX_CASES, len(cases)),
                          "assert_case")
    for i, case in enumerate(cases):
        if not isinstance(case, str) or not case.strip():
            raise RecordError("an assert case must be a non-empty string",
                              "assert_case[%d]" % i)
        if len(case) > MAX_CASE_CHARS:
            raise RecordError("an assert case is longer than %d characters" % MAX_CASE_CHARS,
                              "assert_case[%d]" % i)
    for key in ("inputs", "outputs"):  # verl fills them with "" and None: nothing else
        given = data.get(key)
        if given is not None and (not isinstance(given, list) or len(given) != len(cases)):
            raise RecordError("%s must have one entry per assert case (%d)" % (
                key, len(cases)), key)
    language = data.get("language")
    if language is not None:
        try:
            python = languages.get(str(language)).default
        except Exception:  # noqa: BLE001 - an unknown name: refused below
            python = False
        if not python:
            raise RecordError("assert cases are Python statements; language %r is not" % (
                language,), "language")
    return AssertCases(identifier, [str(c) for c in cases])


@functools.lru_cache(maxsize=256)
def _cached(truth: str, identifier: str) -> AssertCases | None:
    return assert_cases(truth, identifier)


def cached_assert_cases(truth: Any, identifier: str = "verl") -> AssertCases | None:
    """:func:`assert_cases`, remembered for the last ground truths seen (a trainer scores
    many replies to one prompt); None for another shape or a ground truth that is not a
    JSON string or object."""
    if isinstance(truth, dict):
        truth = json.dumps(truth, sort_keys=True, default=str)
    if not isinstance(truth, str) or "assert_case" not in truth:
        return None
    return _cached(truth, identifier)


def expand(items: list[tuple[Any, str, dict[str, Any]]]
           ) -> tuple[list[tuple[Any, str, dict[str, Any]]], list[tuple[int, int]]]:
    """The items with each :class:`AssertCases` replaced by its cases' problems, and each
    original item's span ``(start, count)`` in the new list."""
    flat: list[tuple[Any, str, dict[str, Any]]] = []
    spans: list[tuple[int, int]] = []
    for problem, code, meta in items:
        if isinstance(problem, AssertCases):
            spans.append((len(flat), len(problem.problems)))
            flat.extend((case, code, dict(meta, language="python"))
                        for case in problem.problems)
        else:
            spans.append((len(flat), 1))
            flat.append((problem, code, meta))
    return flat, spans


def fold(items: list[tuple[Any, str, dict[str, Any]]], spans: list[tuple[int, int]],
         results: list[CandidateResult]) -> list[CandidateResult]:
    """One result per original item: an :class:`AssertCases` item's cases folded into one
    result with a test per case (a case not judged makes the whole one not judged)."""
    out: list[CandidateResult] = []
    for (problem, _code, _meta), (start, count) in zip(items, spans):
        if not isinstance(problem, AssertCases):
            out.append(results[start])
            continue
        cases = results[start:start + count]
        tests: list[TestResult] = []
        for i, result in enumerate(cases):
            first = result.tests[0] if result.tests else TestResult(0, result.verdict, 0.0,
                                                                     result.message)
            tests.append(replace(first, index=i))
        broken = next((r for r in cases if r.verdict is Verdict.SANDBOX_ERROR), None)
        failing = next((r for r in cases if r.verdict is not Verdict.PASS), None)
        decided = broken or failing
        verdict = decided.verdict if decided is not None else Verdict.PASS
        message = None
        if decided is not None:
            message = "assert case %d: %s" % (cases.index(decided), decided.message or
                                             decided.verdict.value)
        out.append(replace(cases[0], problem_id=problem.identifier, verdict=verdict,
                           tests=tests, message=message, kind=problem.kind,
                           time_s=sum(r.time_s for r in cases)))
    return out


__all__ = ["AssertCases", "MAX_CASES", "assert_cases", "cached_assert_cases", "expand", "fold"]
