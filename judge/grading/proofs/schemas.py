"""Pydantic models of every structured step's output, and the lenient reply parser.

The final grade follows the RefGrader grading schema (Appendix B); clustering and matching
follow the schemas of Appendix B.1.  Solution analysis and rubric design are prose in the
paper; here they are structured so that what matters can be checked: an approachability
score is an integer 1-5, rubric points are non-negative integers that sum to exactly 7.
Extra fields in a reply are ignored; missing or out-of-range ones are validation errors
(the step re-asks the model with the error, and never clamps or invents a value).
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator

from judge.errors import InputFault, json_location


def _not_bool(v: Any) -> Any:
    if isinstance(v, bool):
        raise ValueError("a number is required, not true/false")
    return v


Int = Annotated[int, BeforeValidator(_not_bool)]  # 7 and 7.0 are 7; true is not 1; 5.5 is an error


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


# ----------------------------------------------------------------------------- grading


class OverallAssessment(_Lenient):
    score: Int = Field(ge=0, le=7, description="integer grade 0-7")
    rationale: str


class IdentifiedError(_Lenient):
    type: str
    description: str
    location: str


class GradeReport(_Lenient):
    """The paper's grading schema."""

    overall_assessment: OverallAssessment
    step_by_step_analysis: list[str]
    identified_errors: list[IdentifiedError]
    clarity_structure_notation: str
    constructive_feedback: str


# ----------------------------------------------------------------------------- clustering


class Cluster(_Lenient):
    class_id: str = Field(pattern=r"^C[1-9][0-9]*$")
    main_steps: list[str] = Field(min_length=1)
    representative_solution: str = Field(min_length=1)


class ClusterList(_Lenient):
    """Clustering reply: the paper's bare array, wrapped so it can carry a JSON Schema object."""

    clusters: list[Cluster] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _bare_array(cls, data: Any) -> Any:
        return {"clusters": data} if isinstance(data, list) else data

    @field_validator("clusters")
    @classmethod
    def _unique_ids(cls, clusters: list[Cluster]) -> list[Cluster]:
        seen: set[str] = set()
        for c in clusters:
            if c.class_id in seen:
                raise ValueError(f"class_id {c.class_id} appears twice")
            seen.add(c.class_id)
        return clusters


# ----------------------------------------------------------------------------- matching


class Match(_Lenient):
    closest_rep_id: str
    justification: str


# ----------------------------------------------------------------------------- analysis


class MainStep(_Lenient):
    title: str
    unlock: str = Field(description="what this insight unlocks, and how the problem changes")
    importance: str = Field(description="why it is central and what makes it non-obvious")
    principle: str = Field(description="the underlying technique or theorem")
    substeps: list[str] = Field(min_length=1)
    approachability: Int | None = Field(default=None, ge=1, le=5,
                                        description="1 = a competent contestant finds it at once, 5 = very hard to find")
    approachability_rationale: str | None = None


class SolutionAnalysis(_Lenient):
    main_steps: list[MainStep] = Field(min_length=1, max_length=5)


class ApproachabilityAnalysis(SolutionAnalysis):
    @model_validator(mode="after")
    def _scored(self) -> "ApproachabilityAnalysis":
        missing = [i for i, s in enumerate(self.main_steps) if s.approachability is None]
        if missing:
            raise ValueError("every main step needs an integer approachability 1-5; missing at main_steps"
                             + ", ".join(f"[{i}]" for i in missing))
        return self


# ----------------------------------------------------------------------------- rubric


class RubricItem(_Lenient):
    id: str
    title: str
    points: Int = Field(ge=0, le=7, description="whole points for completing this item")
    requirements: str = Field(description="what the solution must show for the full points")
    partial_credit: str = Field(description="how points are deducted (0.5 steps allowed) when incomplete")


class Rubric(_Lenient):
    kind: Literal["steps", "milestones"]
    items: list[RubricItem] = Field(min_length=1, max_length=8)
    benchmarks: list[str] = Field(default_factory=list, description="what a 5, 6 or 7 looks like")
    zero_credit: str = Field(description="what earns 0 points")

    @model_validator(mode="after")
    def _sums_to_seven(self) -> "Rubric":
        total = sum(i.points for i in self.items)
        if total != 7:
            raise ValueError(f"rubric points must sum to 7, these sum to {total}")
        return self


# ----------------------------------------------------------------------------- parsing


class ReplyInvalid(InputFault, ValueError):
    """A reply that is not valid for its step; ``str()`` is what the model is told on re-ask."""

    code = "llm_reply_invalid"


_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)
#: a model reply is data from outside, read like a candidate's output: bounded in size and
#: in nesting (a reply of ``[`` x 100,000 is one invalid reply, never a RecursionError)
MAX_REPLY_CHARS = 1_000_000
MAX_REPLY_DEPTH = 64
#: places in prose where a JSON value is tried (each try is linear in the reply)
MAX_JSON_STARTS = 64


def _depth_ok(text: str, start: int = 0, limit: int = MAX_REPLY_DEPTH,
              one_value: bool = False) -> bool:
    """Whether the brackets of ``text`` from ``start`` (outside JSON strings) stay within
    ``limit`` levels (with ``one_value``: until the value begun there closes). Iterative and
    linear."""
    depth, in_string, escaped = 0, False, False
    for index in range(start, len(text)):
        ch = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}":
            depth -= 1
            if depth <= 0 and one_value:
                return True
    return True


def _json_candidates(text: str) -> list[str]:
    """Whole text, fenced blocks, then the outermost {...} / [...] spans (first to last)."""
    out = [text.strip()]
    out += [m.group(1).strip() for m in _FENCE.finditer(text)]
    for open_, close in (("{", "}"), ("[", "]")):
        i, j = text.find(open_), text.rfind(close)
        if 0 <= i < j:
            out.append(text[i:j + 1])
    return [c for c in out if c]


def _loads(text: str) -> Any:
    """``json.loads`` of a bounded-depth text; ValueError for anything it cannot read."""
    if not _depth_ok(text):
        raise ValueError("nested deeper than %d levels" % MAX_REPLY_DEPTH)
    try:
        return json.loads(text)
    except RecursionError:  # (not reached: the depth is checked first)
        raise ValueError("nested too deeply") from None


def extract_json(text: str) -> Any:
    """The first JSON value found in ``text``: bare, inside a fence, or inside prose.

    Bounded like a candidate's output: a reply longer than ``MAX_REPLY_CHARS`` or whose value
    nests deeper than ``MAX_REPLY_DEPTH`` is :class:`ReplyInvalid` (never a RecursionError),
    and at most ``MAX_JSON_STARTS`` places in prose are tried."""
    if len(text) > MAX_REPLY_CHARS:
        raise ReplyInvalid(f"the reply is longer than {MAX_REPLY_CHARS} characters")
    too_deep = False
    for cand in _json_candidates(text):
        try:
            return _loads(cand)
        except ValueError as exc:
            too_deep = too_deep or "nested" in str(exc)
            continue
    # also accept a JSON value followed by trailing prose
    decoder = json.JSONDecoder()
    tried = 0
    for i, ch in enumerate(text):
        if ch not in "{[":
            continue
        tried += 1
        if tried > MAX_JSON_STARTS:
            break
        if not _depth_ok(text, i, one_value=True):
            too_deep = True
            continue
        try:
            return decoder.raw_decode(text, i)[0]
        except (ValueError, RecursionError):
            continue
    if too_deep:
        raise ReplyInvalid(f"the reply's JSON is nested deeper than {MAX_REPLY_DEPTH} levels")
    snippet = text.strip().replace("\n", " ")[:200]
    raise ReplyInvalid(f"the reply contains no JSON value (it starts: {snippet!r})")


def parse_reply(text: str, model: type[BaseModel]) -> BaseModel:
    """Validate a reply against ``model``; :class:`ReplyInvalid` names each JSON location."""
    data = extract_json(text)
    try:
        return model.model_validate(data)
    except RecursionError:
        raise ReplyInvalid(f"the reply's JSON is nested deeper than {MAX_REPLY_DEPTH} levels") from None
    except ValidationError as exc:
        problems = []
        for err in exc.errors()[:8]:
            where = json_location(err.get("loc", ())) or "(top level)"
            problems.append(f"{where}: {err.get('msg')}")
        raise ReplyInvalid("; ".join(problems)) from None


def json_schema_format(model: type[BaseModel], name: str) -> dict[str, Any]:
    """The OpenAI-compatible ``response_format`` for ``model`` (``json_schema``, not strict:
    servers that constrain decoding can use it, the reply is validated here either way)."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": model.model_json_schema()}}


__all__ = [
    "ApproachabilityAnalysis", "Cluster", "ClusterList", "GradeReport", "IdentifiedError", "MainStep",
    "Match", "OverallAssessment", "ReplyInvalid", "Rubric", "RubricItem", "SolutionAnalysis",
    "extract_json", "json_schema_format", "parse_reply",
]
