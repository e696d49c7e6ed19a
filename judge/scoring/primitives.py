"""Scoring primitives and the weighted scoring spec.

Why this module exists: challenge authors describe how a submission is scored with a small
JSON spec (``shared/seeds/scoring-primitives.md``) instead of writing code, and the score must
be deterministic - same submission, same ground truth, same score.  The public implementation
of these primitives disagrees with its own documentation; this one follows the documentation
and offers the divergent behaviours only as explicit parameters.

Every primitive returns a :class:`PrimitiveScore` in ``0..1000`` with a short explanation.

Rules chosen where the documentation is silent or ambiguous (each one is tested):

* **Equality** (``exact_match``, ``exact_match_ratio``, the set primitives) is strict and
  typed: strings are case-sensitive; ``"3"`` never equals ``3``; ``True`` is not a number
  (``True != 1``); ``NaN`` equals nothing, not even ``NaN``; ``3 == 3.0`` (JSON does not
  distinguish them); arrays compare element by element, objects key by key.
  ``case_sensitive=False`` is the public implementation's behaviour, opt-in only.
* **exact_match_ratio** divides by the length of the *expected* array: submission elements
  past its end are ignored, missing ones count as misses.  An empty expected array scores
  1000 only for an empty submission array.
* **numeric_tolerance** is binary per number (``|s - g| <= tolerance``).  For arrays it
  scores the *fraction* of positions within tolerance (denominator: expected length, extra
  submission elements ignored, missing ones are misses, an empty expected array scores 1000
  only for an empty submission).  ``NaN`` is never within tolerance; equal infinities are.
  ``mode="linear"`` (the public implementation's decay) scores
  ``1000 * max(0, 1 - |s - g| / tolerance)`` per number instead.
* **fuzzy_string** lower-cases (``str.casefold``), collapses whitespace, then scores
  ``difflib.SequenceMatcher(autojunk=False).ratio() * 1000``; two empty strings score 1000.
* **time_decay** reads the submission field ``time_used_secs`` unless ``field`` names
  another one; the result is clamped to ``0..1000``; a negative or non-finite time scores 0.
* **coverage_ratio** / **set_overlap** treat both sides as sets (duplicates collapse);
  an empty expected set scores 1000 for ``coverage_ratio`` and ``intersection`` (nothing
  to find), and Jaccard of two empty sets is 1000 (identical).  ``method`` is required.
* A field the **submission** omits scores 0 for that dimension and says so; a wrong type in
  the submission also scores 0.  A field missing or mistyped in the **ground truth** is the
  author's error and raises :class:`ScoringError`.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from judge.errors import InputError, json_location

MAX_SCORE = 1000.0
WEIGHT_SUM_TOLERANCE = 1e-9


class ScoringError(ValueError):
    """The scoring spec or the ground truth cannot be used (the author's error, not the solver's)."""


# --------------------------------------------------------------------------------------
# Input helpers shared by the scoring, matching and agreement modules (errors name file/line)
# --------------------------------------------------------------------------------------


def format_loc(loc: Sequence[Any]) -> str:
    """Render a pydantic/JSON location tuple as ``dimensions[1].weight`` for error messages."""
    return json_location(list(loc)) or "(top level)"


def validation_message(err: ValidationError, prefix: str = "", *, tags: Sequence[str] = ()) -> str:
    """One line per pydantic error, each naming its JSON location.

    ``tags`` are discriminator values pydantic inserts into locations; they are dropped so the
    location is the one in the user's file.
    """
    lines = []
    for e in err.errors(include_url=False):
        loc = format_loc([p for p in e["loc"] if p not in tags])
        msg = e["msg"].removeprefix("Value error, ")
        lines.append(f"{prefix}at {loc}: {msg}")
    return "\n".join(lines)


def read_json(path: str | Path) -> Any:
    """Parse a JSON file; syntax errors become :class:`InputError` naming ``file:line:col``."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{p}: cannot read: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{p}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any | InputError]]:
    """Yield ``(line_number, value_or_error)`` for each non-blank line of a JSON Lines file.

    A bad line yields an :class:`InputError` (``file:line: ...``) instead of stopping, so the
    caller can report it and still use the other lines.
    """
    p = Path(path)
    try:
        fh = p.open(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc}") from exc
    with fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                yield lineno, InputError(f"{p}:{lineno}: invalid JSON: {exc.msg} (column {exc.colno})")


# --------------------------------------------------------------------------------------
# Typed equality and set keys
# --------------------------------------------------------------------------------------


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def strict_equal(a: Any, b: Any, *, case_sensitive: bool = True) -> bool:
    """Typed JSON equality: ``"3" != 3``, ``True != 1``, ``NaN`` equals nothing, ``3 == 3.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if _is_number(a) or _is_number(b):
        return _is_number(a) and _is_number(b) and not (_isnan(a) or _isnan(b)) and a == b
    if isinstance(a, str) or isinstance(b, str):
        if not (isinstance(a, str) and isinstance(b, str)):
            return False
        return a == b if case_sensitive else a.casefold() == b.casefold()
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(
            strict_equal(x, y, case_sensitive=case_sensitive) for x, y in zip(a, b)
        )
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return set(a) == set(b) and all(
            strict_equal(a[k], b[k], case_sensitive=case_sensitive) for k in a
        )
    return False


def _isnan(x: Any) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _item_key(x: Any) -> Any | None:
    """A hashable key with the same equality as :func:`strict_equal`; ``None`` if unmatchable (NaN)."""
    if isinstance(x, bool):
        return ("b", x)
    if _is_number(x):
        return None if _isnan(x) else ("n", x)  # hash(3) == hash(3.0) and 3 == 3.0
    if isinstance(x, str):
        return ("s", x)
    if x is None:
        return ("z",)
    if isinstance(x, (list, tuple)):
        keys = [_item_key(v) for v in x]
        return None if any(k is None for k in keys) else ("l", tuple(keys))
    if isinstance(x, Mapping):
        pairs = []
        for k, v in x.items():
            kv = _item_key(v)
            if kv is None:
                return None
            pairs.append((str(k), kv))
        return ("d", tuple(sorted(pairs)))  # JSON keys are unique: sorting never compares values
    return None


def _key_set(items: Sequence[Any]) -> tuple[set[Any], int]:
    """Distinct matchable keys and the number of distinct-by-definition unmatchable items."""
    keys: set[Any] = set()
    unmatchable = 0
    for item in items:
        k = _item_key(item)
        if k is None:
            unmatchable += 1
        else:
            keys.add(k)
    return keys, unmatchable


# --------------------------------------------------------------------------------------
# Primitives
# --------------------------------------------------------------------------------------


class PrimitiveScore(NamedTuple):
    """A primitive's score in ``0..1000`` and a one-line explanation of how it was reached."""

    score: float
    detail: str


def _require_list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise ScoringError(f"ground truth {what} must be an array, got {_type_name(value)}")
    return list(value)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def exact_match(value: Any, expected: Any, *, case_sensitive: bool = True) -> PrimitiveScore:
    """1000 when ``value`` equals ``expected`` under :func:`strict_equal`, else 0."""
    if strict_equal(value, expected, case_sensitive=case_sensitive):
        return PrimitiveScore(MAX_SCORE, "equal")
    return PrimitiveScore(0.0, "not equal")


def exact_match_ratio(value: Any, expected: Sequence[Any], *, case_sensitive: bool = True) -> PrimitiveScore:
    """``correct / len(expected) * 1000``, position by position; extras ignored, missing = miss."""
    exp = _require_list(expected, "for exact_match_ratio")
    if not isinstance(value, (list, tuple)):
        return PrimitiveScore(0.0, f"submission is {_type_name(value)}, not an array")
    if not exp:
        return (PrimitiveScore(MAX_SCORE, "both arrays empty") if not value
                else PrimitiveScore(0.0, "expected an empty array"))
    correct = sum(
        1 for i, e in enumerate(exp)
        if i < len(value) and strict_equal(value[i], e, case_sensitive=case_sensitive)
    )
    note = "" if len(value) == len(exp) else f" (submission has {len(value)} elements)"
    return PrimitiveScore(correct / len(exp) * MAX_SCORE, f"{correct}/{len(exp)} match{note}")


def _number_score(v: Any, g: Any, tolerance: float, mode: str) -> float | None:
    """Score of one number in 0..1, or None when ``v`` is not a number."""
    if not _is_number(v):
        return None
    if _isnan(v) or _isnan(g):
        return 0.0
    if math.isinf(v) or math.isinf(g):
        return 1.0 if v == g else 0.0
    diff = abs(v - g)
    if mode == "linear":
        if tolerance == 0:
            return 1.0 if diff == 0 else 0.0
        return max(0.0, 1.0 - diff / tolerance)
    return 1.0 if diff <= tolerance else 0.0


def numeric_tolerance(value: Any, expected: Any, tolerance: float, *,
                      mode: Literal["binary", "linear"] = "binary") -> PrimitiveScore:
    """1000 when ``|value - expected| <= tolerance``; for arrays the fraction within tolerance."""
    if not (_is_number(tolerance) and tolerance >= 0 and math.isfinite(tolerance)):
        raise ScoringError(f"tolerance must be a finite number >= 0, got {tolerance!r}")
    if mode not in ("binary", "linear"):
        raise ScoringError(f"numeric_tolerance mode must be 'binary' or 'linear', got {mode!r}")
    if isinstance(expected, (list, tuple)):
        if not all(_is_number(g) for g in expected):
            raise ScoringError("ground truth for numeric_tolerance must hold numbers only")
        if not isinstance(value, (list, tuple)):
            return PrimitiveScore(0.0, f"submission is {_type_name(value)}, expected an array of numbers")
        if not expected:
            return (PrimitiveScore(MAX_SCORE, "both arrays empty") if not value
                    else PrimitiveScore(0.0, "expected an empty array"))
        total = 0.0
        for i, g in enumerate(expected):
            s = _number_score(value[i], g, tolerance, mode) if i < len(value) else None
            total += s or 0.0
        score = total / len(expected) * MAX_SCORE
        return PrimitiveScore(score, f"{total:g}/{len(expected)} within tolerance {tolerance:g} ({mode})")
    if not _is_number(expected):
        raise ScoringError(f"ground truth for numeric_tolerance must be a number or an array, "
                           f"got {_type_name(expected)}")
    s = _number_score(value, expected, tolerance, mode)
    if s is None:
        return PrimitiveScore(0.0, f"submission is {_type_name(value)}, not a number")
    return PrimitiveScore(s * MAX_SCORE, f"|{value!r} - {expected!r}| vs tolerance {tolerance:g} ({mode})")


def normalize_whitespace_case(text: str) -> str:
    """Casefold and collapse runs of whitespace to one space (the fuzzy_string normalisation)."""
    return " ".join(text.casefold().split())


def fuzzy_string(value: Any, expected: Any) -> PrimitiveScore:
    """Similarity ``0..1000`` of two strings after case and whitespace normalisation."""
    if not isinstance(expected, str):
        raise ScoringError(f"ground truth for fuzzy_string must be a string, got {_type_name(expected)}")
    if not isinstance(value, str):
        return PrimitiveScore(0.0, f"submission is {_type_name(value)}, not a string")
    a, b = normalize_whitespace_case(value), normalize_whitespace_case(expected)
    if a == b:
        return PrimitiveScore(MAX_SCORE, "identical after normalisation")
    ratio = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
    return PrimitiveScore(ratio * MAX_SCORE, f"similarity {ratio:.4f}")


def time_decay(time_used: Any, time_limit_secs: float) -> PrimitiveScore:
    """``max(0, 1000 * (1 - time_used / time_limit))``, clamped to 1000; bad times score 0."""
    if not (_is_number(time_limit_secs) and time_limit_secs > 0 and math.isfinite(time_limit_secs)):
        raise ScoringError(f"time_limit_secs must be a finite number > 0, got {time_limit_secs!r}")
    if not _is_number(time_used):
        return PrimitiveScore(0.0, f"time used is {_type_name(time_used)}, not a number")
    if not math.isfinite(time_used) or time_used < 0:
        return PrimitiveScore(0.0, f"time used {time_used!r} is not a finite non-negative number")
    score = min(MAX_SCORE, max(0.0, MAX_SCORE * (1 - time_used / time_limit_secs)))
    return PrimitiveScore(score, f"{time_used:g}s of {time_limit_secs:g}s")


def coverage_ratio(value: Any, expected: Sequence[Any]) -> PrimitiveScore:
    """Share of distinct expected items present in the submission, ``* 1000``."""
    exp = _require_list(expected, "for coverage_ratio")
    if not isinstance(value, (list, tuple)):
        return PrimitiveScore(0.0, f"submission is {_type_name(value)}, not an array")
    exp_keys, exp_unmatchable = _key_set(exp)
    total = len(exp_keys) + exp_unmatchable
    if total == 0:
        return PrimitiveScore(MAX_SCORE, "nothing expected")
    got, _ = _key_set(value)
    covered = len(exp_keys & got)
    return PrimitiveScore(covered / total * MAX_SCORE, f"{covered}/{total} covered")


def set_overlap(value: Any, expected: Sequence[Any], *,
                method: Literal["intersection", "jaccard"]) -> PrimitiveScore:
    """``|A∩B|/|B|`` (intersection, recall-like) or ``|A∩B|/|A∪B|`` (jaccard), ``* 1000``."""
    if method not in ("intersection", "jaccard"):
        raise ScoringError(f"set_overlap method must be 'intersection' or 'jaccard', got {method!r}")
    exp = _require_list(expected, "for set_overlap")
    if not isinstance(value, (list, tuple)):
        return PrimitiveScore(0.0, f"submission is {_type_name(value)}, not an array")
    a_keys, a_nan = _key_set(value)
    b_keys, b_nan = _key_set(exp)
    inter = len(a_keys & b_keys)
    size_a, size_b = len(a_keys) + a_nan, len(b_keys) + b_nan
    if method == "intersection":
        if size_b == 0:
            return PrimitiveScore(MAX_SCORE, "nothing expected")
        return PrimitiveScore(inter / size_b * MAX_SCORE, f"|A∩B|={inter}, |B|={size_b}")
    union = size_a + size_b - inter
    if union == 0:
        return PrimitiveScore(MAX_SCORE, "both sets empty")
    return PrimitiveScore(inter / union * MAX_SCORE, f"|A∩B|={inter}, |A∪B|={union}")


# --------------------------------------------------------------------------------------
# The scoring spec
# --------------------------------------------------------------------------------------


class _Dimension(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(min_length=1)
    weight: float = Field(ge=0, le=1, allow_inf_nan=False)


class _FieldDimension(_Dimension):
    field: str = Field(min_length=1)
    ground_truth_field: str = Field(min_length=1)


class ExactMatchDimension(_FieldDimension):
    """exact_match: typed, case-sensitive unless ``case_sensitive`` is false."""

    primitive: Literal["exact_match"]
    case_sensitive: bool = True


class ExactMatchRatioDimension(_FieldDimension):
    """exact_match_ratio: fraction of expected positions matched."""

    primitive: Literal["exact_match_ratio"]
    case_sensitive: bool = True


class NumericToleranceDimension(_FieldDimension):
    """numeric_tolerance: binary within ``tolerance`` (or ``mode: linear`` decay)."""

    primitive: Literal["numeric_tolerance"]
    tolerance: float = Field(ge=0, allow_inf_nan=False)
    mode: Literal["binary", "linear"] = "binary"


class FuzzyStringDimension(_FieldDimension):
    """fuzzy_string: difflib similarity after case/whitespace normalisation."""

    primitive: Literal["fuzzy_string"]


class TimeDecayDimension(_Dimension):
    """time_decay: reads ``field`` (default ``time_used_secs``) from the submission."""

    primitive: Literal["time_decay"]
    time_limit_secs: float = Field(gt=0, allow_inf_nan=False)
    field: str = Field(default="time_used_secs", min_length=1)


class CoverageRatioDimension(_FieldDimension):
    """coverage_ratio: share of expected items present."""

    primitive: Literal["coverage_ratio"]


class SetOverlapDimension(_FieldDimension):
    """set_overlap: ``method`` is required (``intersection`` or ``jaccard``)."""

    primitive: Literal["set_overlap"]
    method: Literal["intersection", "jaccard"]


Dimension = Annotated[
    Union[ExactMatchDimension, ExactMatchRatioDimension, NumericToleranceDimension,
          FuzzyStringDimension, TimeDecayDimension, CoverageRatioDimension, SetOverlapDimension],
    Field(discriminator="primitive"),
]

PRIMITIVES: tuple[str, ...] = ("exact_match", "exact_match_ratio", "numeric_tolerance",
                               "fuzzy_string", "time_decay", "coverage_ratio", "set_overlap")


class ScoringSpec(BaseModel):
    """A weighted, deterministic scoring spec; weights must sum to 1 (within 1e-9)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    type: Literal["deterministic"]
    dimensions: list[Dimension] = Field(min_length=1)

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


def parse_spec(data: Any, source: str = "spec") -> ScoringSpec:
    """Validate a spec object; every error names its JSON location (``dimensions[1].weight``)."""
    if isinstance(data, Mapping):
        dims = data.get("dimensions")
        if isinstance(dims, list):
            for i, d in enumerate(dims):
                prim = d.get("primitive") if isinstance(d, Mapping) else None
                if isinstance(d, Mapping) and "primitive" not in d:
                    raise ScoringError(f"{source}: at dimensions[{i}]: missing 'primitive' "
                                       f"(one of {', '.join(PRIMITIVES)})")
                if isinstance(d, Mapping) and prim not in PRIMITIVES:
                    raise ScoringError(f"{source}: at dimensions[{i}].primitive: unknown primitive "
                                       f"{prim!r} (known: {', '.join(PRIMITIVES)})")
    try:
        return ScoringSpec.model_validate(data)
    except ValidationError as exc:
        raise ScoringError(validation_message(exc, prefix=f"{source}: ", tags=PRIMITIVES)) from exc


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


def _ground_truth(gt: Mapping[str, Any], field: str, dim: str) -> Any:
    if field not in gt:
        raise ScoringError(f"ground truth has no field {field!r} (needed by dimension {dim!r})")
    return gt[field]


def score_dimension(dim: Any, submission: Mapping[str, Any], ground_truth: Mapping[str, Any]) -> PrimitiveScore:
    """Score one dimension; a field the submission omits scores 0 (never skipped)."""
    value = submission.get(dim.field, _MISSING)
    if value is _MISSING:
        if not isinstance(dim, TimeDecayDimension):
            _ground_truth(ground_truth, dim.ground_truth_field, dim.name)  # author errors first
        return PrimitiveScore(0.0, f"submission has no field {dim.field!r}")
    if isinstance(dim, TimeDecayDimension):
        return time_decay(value, dim.time_limit_secs)
    expected = _ground_truth(ground_truth, dim.ground_truth_field, dim.name)
    try:
        if isinstance(dim, ExactMatchDimension):
            return exact_match(value, expected, case_sensitive=dim.case_sensitive)
        if isinstance(dim, ExactMatchRatioDimension):
            return exact_match_ratio(value, expected, case_sensitive=dim.case_sensitive)
        if isinstance(dim, NumericToleranceDimension):
            return numeric_tolerance(value, expected, dim.tolerance, mode=dim.mode)
        if isinstance(dim, FuzzyStringDimension):
            return fuzzy_string(value, expected)
        if isinstance(dim, CoverageRatioDimension):
            return coverage_ratio(value, expected)
        if isinstance(dim, SetOverlapDimension):
            return set_overlap(value, expected, method=dim.method)
    except ScoringError as exc:
        raise ScoringError(f"dimension {dim.name!r}: {exc}") from exc
    raise ScoringError(f"unsupported dimension {dim!r}")  # pragma: no cover - union is closed


def score_submission(spec: ScoringSpec, submission: Mapping[str, Any],
                     ground_truth: Mapping[str, Any]) -> ScoreReport:
    """Score every dimension and combine them: ``total = sum(weight * score)`` in spec order."""
    if not isinstance(submission, Mapping):
        raise InputError(f"submission must be a JSON object, got {_type_name(submission)}")
    if not isinstance(ground_truth, Mapping):
        raise ScoringError(f"ground truth must be a JSON object, got {_type_name(ground_truth)}")
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
    passed: int | None = None
    total: int | None = None
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
