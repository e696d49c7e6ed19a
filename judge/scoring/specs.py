"""The weighted scoring spec (``shared/seeds/scoring-primitives.md``, "Using Primitives in
Challenge Specs") and the bridge from ``judge run`` results to a scoreable submission.

A spec (``type: deterministic``, weighted ``dimensions``) is validated with pydantic: unknown
primitive, weights not summing to 1 and missing parameters are errors naming their JSON
location.  Each dimension is scored by one primitive, found by name in
:data:`judge.scoring.dimensions.PRIMITIVES` (where each is registered once).

* A field the **submission** omits scores 0 for that dimension and says so; a wrong type in
  the submission also scores 0.  A field missing or mistyped in the **ground truth** is the
  author's error and raises :class:`ScoringError`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from judge.errors import InputError, RegistryLoadError, UnknownName
from judge.scoring.dimensions import (  # noqa: F401 (the dimension models, re-exported)
    PRIMITIVES,
    CoverageRatioDimension,
    Dimension,
    ExactMatchDimension,
    ExactMatchRatioDimension,
    FieldDimension,
    FuzzyStringDimension,
    NumericToleranceDimension,
    SetOverlapDimension,
    TimeDecayDimension,
)
from judge.scoring.primitives import (
    PrimitiveScore,
    ScoringError,
    _type_name,
    read_json,
    validation_message,
)

WEIGHT_SUM_TOLERANCE = 1e-9
#: a results row claiming more tests than this is invalid (missing tests are padded from
#: ``total``: an absurd total must not allocate an absurd list)
MAX_TESTS_PER_ROW = 1_000_000


# --------------------------------------------------------------------------------------
# The scoring spec
# --------------------------------------------------------------------------------------


def _loadable(names: list[str]) -> tuple[str, ...]:
    """The primitives whose models import: a broken package's primitive is left out of the
    spec's union (a spec naming it gets the load error), so it breaks nothing else."""
    out = []
    for name in names:
        try:
            PRIMITIVES.get(name)
        except RegistryLoadError:
            continue
        out.append(name)
    return tuple(out)


def _dimension_type(names: tuple[str, ...]) -> Any:
    """One dimension of a spec: the registered primitives' models, told apart by
    ``primitive``."""
    models = tuple(PRIMITIVES.get(name) for name in names)
    return Annotated[Union[models], Field(discriminator="primitive")]  # noqa: UP007


#: the primitives known when this module was imported (built-ins and entry points)
_NAMES: tuple[str, ...] = _loadable(PRIMITIVES.names())
_DimensionType = _dimension_type(_NAMES)


class ScoringSpec(BaseModel):
    """A weighted, deterministic scoring spec; weights must sum to 1 (within 1e-9)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    type: Literal["deterministic"]
    dimensions: list[_DimensionType] = Field(min_length=1)  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _check(self) -> "ScoringSpec":
        total = math.fsum(d.weight for d in self.dimensions)
        if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
            raise ValueError(f"dimension weights must sum to 1, they sum to {total!r}")
        seen: set[str] = set()
        for d in self.dimensions:
            if d.name in seen:
                raise ValueError(f"dimension name {d.name!r} is used twice")
            seen.add(d.name)
        return self


_SPEC_MODELS: dict[tuple[str, ...], type[ScoringSpec]] = {_NAMES: ScoringSpec}


def spec_model() -> type[ScoringSpec]:
    """:class:`ScoringSpec`, or its subclass that also knows the primitives registered
    after this module was imported."""
    names = _loadable(PRIMITIVES.names())
    model = _SPEC_MODELS.get(names)
    if model is None:
        model = create_model("ScoringSpec", __base__=ScoringSpec, __module__=__name__,
                             dimensions=(list[_dimension_type(names)],  # type: ignore[misc]
                                         Field(min_length=1)))
        _SPEC_MODELS[names] = model
    return model


def _primitive_name(given: Any) -> str:
    """The registered name of the primitive a spec wrote (a name or an alias, as written);
    ScoringError-ready UnknownName otherwise."""
    names = PRIMITIVES.names()
    if isinstance(given, str):
        if given in names or given in PRIMITIVES.aliases():
            name = PRIMITIVES.aliases().get(given, given)
            PRIMITIVES.get(name)  # a broken package: its RegistryLoadError
            return name
        try:  # a near miss (case, typo) gets a did-you-mean, never a silent fix
            suggestion: str | None = PRIMITIVES.canonical(given)
        except UnknownName as exc:
            raise exc from None
        raise UnknownName("primitive", given, suggestion, names)
    raise UnknownName("primitive", given, None, names)  # type: ignore[arg-type]


def parse_spec(data: Any, source: str = "spec") -> ScoringSpec:
    """Validate a spec object; every error names its JSON location (``dimensions[1].weight``).
    A dimension's ``primitive`` is looked up in :data:`PRIMITIVES` (an alias is accepted)."""
    names = PRIMITIVES.names()
    if isinstance(data, Mapping):
        dims = data.get("dimensions")
        if isinstance(dims, list):
            resolved = []
            for i, d in enumerate(dims):
                if isinstance(d, Mapping) and "primitive" not in d:
                    raise ScoringError(f"{source}: at dimensions[{i}]: missing 'primitive' "
                                       f"(one of {', '.join(names)})")
                if isinstance(d, Mapping):
                    try:
                        name = _primitive_name(d["primitive"])
                    except (UnknownName, RegistryLoadError) as exc:
                        raise ScoringError(f"{source}: at dimensions[{i}].primitive: {exc}") from None
                    if name != d["primitive"]:
                        d = {**d, "primitive": name}
                resolved.append(d)
            data = {**data, "dimensions": resolved}
    try:
        return spec_model().model_validate(data)
    except ValidationError as exc:
        raise ScoringError(validation_message(exc, prefix=f"{source}: ", tags=names)) from exc


def load_spec(path: str | Path) -> ScoringSpec:
    """Read and validate a scoring spec file."""
    try:
        data = read_json(path)
    except InputError as exc:
        raise ScoringError(str(exc)) from exc
    return parse_spec(data, source=str(path))


_MISSING = object()


@dataclass(frozen=True)
class DimensionScore:
    """One dimension's outcome: its score 0..1000 and weighted contribution to the total."""

    name: str
    primitive: str
    weight: float
    score: float
    weighted: float
    detail: str


@dataclass(frozen=True)
class ScoreReport:
    """The total (0..1000, the weighted sum in spec order) and every dimension."""

    total: float
    dimensions: list[DimensionScore]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"total": self.total, "dimensions": [d.__dict__.copy() for d in self.dimensions]}


def ground_truth_error(message: str, field: str | None = None) -> ScoringError:
    """A :class:`ScoringError` about the ground truth: ``ground_truth_field`` says which field
    (``""``: the whole object), so a caller that read it from a file can name the file and line
    (:func:`locate_ground_truth_error`)."""
    exc = ScoringError(message)
    exc.ground_truth_field = field or ""  # type: ignore[attr-defined]
    return exc


def locate_ground_truth_error(exc: ScoringError, path: str | Path) -> str:
    """``exc``'s message prefixed with ``path`` and, where the field's key can be found in the
    file's text, its line (``gt.json:3: ...``); other errors are returned as they are."""
    field = getattr(exc, "ground_truth_field", None)
    if field is None:
        return str(exc)
    line = None
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        text = ""
    if field:
        m = re.search(re.escape(json.dumps(field)) + r"\s*:", text)
        if m:
            line = text.count("\n", 0, m.start()) + 1
    elif text.strip():
        line = text[:len(text) - len(text.lstrip())].count("\n") + 1
    where = f"{path}:{line}" if line else str(path)
    return f"{where}: at {field}: {exc}" if field else f"{where}: {exc}"


def _ground_truth(gt: Mapping[str, Any], field: str, dim: str) -> Any:
    if field not in gt:
        raise ground_truth_error(f"ground truth has no field {field!r} (needed by dimension {dim!r})")
    return gt[field]


def score_dimension(dim: Dimension, submission: Mapping[str, Any],
                    ground_truth: Mapping[str, Any]) -> PrimitiveScore:
    """Score one dimension with its primitive; a field the submission omits scores 0 (never
    skipped)."""
    value = submission.get(dim.field, _MISSING)  # type: ignore[attr-defined]
    if value is _MISSING:
        if dim.needs_ground_truth:  # the author's errors first
            _ground_truth(ground_truth, dim.ground_truth_field, dim.name)  # type: ignore[attr-defined]
        return PrimitiveScore(0.0, f"submission has no field {dim.field!r}")  # type: ignore[attr-defined]
    if not dim.needs_ground_truth:
        return dim.compare(value, None)
    expected = _ground_truth(ground_truth, dim.ground_truth_field, dim.name)  # type: ignore[attr-defined]
    try:
        return dim.compare(value, expected)
    except ScoringError as exc:  # the primitive refused the ground truth's value
        raise ground_truth_error(f"dimension {dim.name!r}: {exc}",
                                 dim.ground_truth_field) from exc  # type: ignore[attr-defined]


def score_submission(spec: ScoringSpec, submission: Mapping[str, Any],
                     ground_truth: Mapping[str, Any]) -> ScoreReport:
    """Score every dimension and combine them: ``total = sum(weight * score)`` in spec order."""
    if not isinstance(submission, Mapping):
        raise InputError(f"submission must be a JSON object, got {_type_name(submission)}")
    if not isinstance(ground_truth, Mapping):
        raise ground_truth_error(f"ground truth must be a JSON object, got {_type_name(ground_truth)}")
    rows = []
    for dim in spec.dimensions:
        ps = score_dimension(dim, submission, ground_truth)
        rows.append(DimensionScore(dim.name, dim.primitive, dim.weight, ps.score,
                                   dim.weight * ps.score, ps.detail))
    return ScoreReport(math.fsum(r.weighted for r in rows), rows)


# --------------------------------------------------------------------------------------
# Code results -> submission
# --------------------------------------------------------------------------------------


class _TestRecord(BaseModel):
    model_config = ConfigDict(extra="allow")
    index: int
    verdict: str
    time_s: float | None = None


class _ResultRow(BaseModel):
    model_config = ConfigDict(extra="allow")
    problem_id: str
    verdict: str
    model: str | None = None
    prompt_id: str | None = None
    sample: int | None = None
    passed: int | None = Field(default=None, ge=0, le=MAX_TESTS_PER_ROW)
    total: int | None = Field(default=None, ge=0, le=MAX_TESTS_PER_ROW)
    tests: list[_TestRecord] = Field(default_factory=list)
    time_s: float | None = None


def validate_result_row(row: Any, where: str) -> dict[str, Any]:
    """Check one results-file row; errors name ``where`` (``file:line``) and the JSON location."""
    try:
        return _ResultRow.model_validate(row).model_dump()
    except ValidationError as exc:
        raise InputError(validation_message(exc, prefix=f"{where}: ")) from exc


def _row_sort_key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    return (row["problem_id"], row.get("model") or "", row.get("prompt_id") or "",
            row.get("sample") if row.get("sample") is not None else -1)


def submission_from_results(results_rows: list[dict[str, Any]], problem_ids: list[str],
                            test_counts: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Turn ``judge run`` result rows plus the suite's problem ids into a scoreable submission.

    Fields (lists sorted or in a fixed order, so the score never depends on row order):

    * ``attempted_ids``: problem ids with at least one result row;
    * ``all_ids``: the suite's problem ids (sorted; also in the ground truth);
    * ``passed_ids``: problem ids where at least one candidate's verdict is ``pass``;
    * ``problem_verdicts``: per suite problem (``all_ids`` order) ``pass`` if passed, else the
      first candidate's verdict, or ``missing`` without a result;
    * ``test_verdicts``: every test verdict, rows ordered by (problem_id, model, prompt_id,
      sample) and tests by index; a row that reports fewer tests than ``total`` is padded
      with its own verdict (a crash before the tests ran fails them all); a suite problem
      without any row adds ``missing`` once per test (``test_counts[pid]``, 1 if unknown),
      so skipped problems count as failed tests rather than vanishing;
    * ``time_used_secs``: the sum of the rows' ``time_s`` (missing counts as 0); absent when
      there are no rows at all, so a time dimension scores 0 for an empty run;
    * ``candidates`` / ``passed_candidates``: row counts.

    :func:`ground_truth_from_results` gives the matching ground truth.
    """
    rows = sorted((validate_result_row(r, f"row {i + 1}") for i, r in enumerate(results_rows)),
                  key=_row_sort_key)
    counts = test_counts or {}
    all_ids = sorted(set(problem_ids))
    attempted = sorted({r["problem_id"] for r in rows})
    passed = sorted({r["problem_id"] for r in rows if r["verdict"] == "pass"})
    first_verdict: dict[str, str] = {}
    for r in rows:
        first_verdict.setdefault(r["problem_id"], r["verdict"])
    passed_set = set(passed)
    problem_verdicts = ["pass" if pid in passed_set else first_verdict.get(pid, "missing")
                        for pid in all_ids]
    by_problem: dict[str, list[str]] = {pid: [] for pid in sorted(set(all_ids) | set(attempted))}
    for r in rows:
        verdicts = [t["verdict"] for t in sorted(r["tests"], key=lambda t: t["index"])]
        if r["total"] is not None and len(verdicts) < r["total"]:
            verdicts += [r["verdict"]] * (r["total"] - len(verdicts))
        by_problem[r["problem_id"]] += verdicts
    for pid in all_ids:
        if pid not in first_verdict:
            by_problem[pid] = ["missing"] * max(1, int(counts.get(pid, 1)))
    sub: dict[str, Any] = {
        "attempted_ids": attempted,
        "all_ids": all_ids,
        "passed_ids": passed,
        "problem_verdicts": problem_verdicts,
        "test_verdicts": [v for pid in by_problem for v in by_problem[pid]],
        "candidates": len(rows),
        "passed_candidates": sum(1 for r in rows if r["verdict"] == "pass"),
    }
    if rows:
        sub["time_used_secs"] = math.fsum(r["time_s"] or 0.0 for r in rows)
    return sub


def ground_truth_from_results(results_rows: list[dict[str, Any]], problem_ids: list[str],
                              test_counts: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The ground truth matching :func:`submission_from_results`.

    * ``all_ids`` / ``expected_passed_ids``: the suite's problem ids (sorted);
    * ``expected_problem_verdicts``: ``pass`` for every suite problem;
    * ``expected_verdicts``: ``pass`` for every entry of ``test_verdicts`` (same length).
    """
    sub = submission_from_results(results_rows, problem_ids, test_counts)
    return {
        "all_ids": sub["all_ids"],
        "expected_passed_ids": sub["all_ids"],
        "expected_problem_verdicts": ["pass"] * len(sub["all_ids"]),
        "expected_verdicts": ["pass"] * len(sub["test_verdicts"]),
    }


def zero_report(spec: ScoringSpec, reason: str) -> ScoreReport:
    """Every dimension scored 0 for ``reason`` (an empty or missing results file: nothing
    was submitted, so nothing scores - not even "nothing expected, nothing missing")."""
    return ScoreReport(0.0, [DimensionScore(d.name, d.primitive, d.weight, 0.0, 0.0, reason)
                             for d in spec.dimensions])
