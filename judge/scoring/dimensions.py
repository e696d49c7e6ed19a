"""The scoring primitives by name: each one is a dimension of a scoring spec, registered once.

A primitive is a pydantic model of its parameters (the dimension a spec writes, with
``primitive: Literal["name"]`` as the discriminator) plus the method that scores a
submission's value against the ground truth's, usually by calling a function of
:mod:`judge.scoring.primitives`. The spec's validation (:mod:`judge.scoring.specs`), the
list of known primitives and the scoring itself all come from :data:`PRIMITIVES`.

Adding one is one module and one decorator::

    from typing import Literal
    from judge.scoring.dimensions import PRIMITIVES, FieldDimension
    from judge.scoring.primitives import PrimitiveScore

    @PRIMITIVES.register("prefix_match")
    class PrefixMatchDimension(FieldDimension):
        primitive: Literal["prefix_match"]

        def compare(self, value, expected):
            ok = isinstance(value, str) and value.startswith(expected)
            return PrimitiveScore(1000.0 if ok else 0.0, "prefix" if ok else "no prefix")

and, for another package, an entry point in the ``judge.scoring`` group
(``prefix_match = "package.module:PrefixMatchDimension"``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from judge.registry import Registry
from judge.scoring.primitives import (
    PrimitiveScore,
    coverage_ratio,
    exact_match,
    exact_match_ratio,
    fuzzy_string,
    numeric_tolerance,
    set_overlap,
    time_decay,
)

#: scoring primitive name -> its dimension model (a :class:`Dimension` subclass)
PRIMITIVES: Registry[type["Dimension"]] = Registry("primitive", group="judge.scoring")


class Dimension(BaseModel):
    """One weighted dimension of a spec. Subclasses add ``primitive: Literal["name"]``, the
    submission ``field`` they read, their parameters, and :meth:`compare`."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    #: whether :meth:`compare` gets the value of the ground truth's ``ground_truth_field``
    needs_ground_truth: ClassVar[bool] = False

    name: str = Field(min_length=1)
    weight: float = Field(ge=0, le=1, allow_inf_nan=False)

    def compare(self, value: Any, expected: Any) -> PrimitiveScore:
        """The score of the submission's ``value`` (``expected`` is the ground truth's value,
        or None without a ground truth field). Raise ScoringError for the author's errors."""
        raise NotImplementedError


class FieldDimension(Dimension):
    """A dimension comparing a submission field with a ground truth field."""

    needs_ground_truth: ClassVar[bool] = True

    field: str = Field(min_length=1)
    ground_truth_field: str = Field(min_length=1)


@PRIMITIVES.register("exact_match")
class ExactMatchDimension(FieldDimension):
    """exact_match: typed, case-sensitive unless ``case_sensitive`` is false."""

    primitive: Literal["exact_match"]
    case_sensitive: bool = True

    def compare(self, value: Any, expected: Any) -> PrimitiveScore:
        return exact_match(value, expected, case_sensitive=self.case_sensitive)


@PRIMITIVES.register("exact_match_ratio")
class ExactMatchRatioDimension(FieldDimension):
    """exact_match_ratio: fraction of expected positions matched."""

    primitive: Literal["exact_match_ratio"]
    case_sensitive: bool = True

    def compare(self, value: Any, expected: Any) -> PrimitiveScore:
        return exact_match_ratio(value, expected, case_sensitive=self.case_sensitive)


@PRIMITIVES.register("numeric_tolerance")
class NumericToleranceDimension(FieldDimension):
    """numeric_tolerance: binary within ``tolerance`` (or ``mode: linear`` decay)."""

    primitive: Literal["numeric_tolerance"]
    tolerance: float = Field(ge=0, allow_inf_nan=False)
    mode: Literal["binary", "linear"] = "binary"
    array: Literal["fraction", "all"] = "fraction"

    def compare(self, value: Any, expected: Any) -> PrimitiveScore:
        return numeric_tolerance(value, expected, self.tolerance, mode=self.mode, array=self.array)


@PRIMITIVES.register("fuzzy_string")
class FuzzyStringDimension(FieldDimension):
    """fuzzy_string: difflib similarity after case/whitespace normalisation."""

    primitive: Literal["fuzzy_string"]

    def compare(self, value: Any, expected: Any) -> PrimitiveScore:
        return fuzzy_string(value, expected)


@PRIMITIVES.register("time_decay")
class TimeDecayDimension(Dimension):
    """time_decay: reads ``field`` (default ``time_used_secs``) from the submission."""

    primitive: Literal["time_decay"]
    time_limit_secs: float = Field(gt=0, allow_inf_nan=False)
    field: str = Field(default="time_used_secs", min_length=1)

    def compare(self, value: Any, expected: Any) -> PrimitiveScore:
        return time_decay(value, self.time_limit_secs)


@PRIMITIVES.register("coverage_ratio")
class CoverageRatioDimension(FieldDimension):
    """coverage_ratio: share of expected items present."""

    primitive: Literal["coverage_ratio"]

    def compare(self, value: Any, expected: Any) -> PrimitiveScore:
        return coverage_ratio(value, expected)


@PRIMITIVES.register("set_overlap")
class SetOverlapDimension(FieldDimension):
    """set_overlap: ``method`` is required (``intersection`` or ``jaccard``)."""

    primitive: Literal["set_overlap"]
    method: Literal["intersection", "jaccard"]

    def compare(self, value: Any, expected: Any) -> PrimitiveScore:
        return set_overlap(value, expected, method=self.method)


__all__ = ["PRIMITIVES", "CoverageRatioDimension", "Dimension", "ExactMatchDimension",
           "ExactMatchRatioDimension", "FieldDimension", "FuzzyStringDimension",
           "NumericToleranceDimension", "SetOverlapDimension", "TimeDecayDimension"]
