"""Scored program problems: test groups with points (Kattis ``type: scoring``, IOI/CMS
subtasks), pure arithmetic, no sandbox.

A program problem may carry a ``scoring`` tree (``ScoreGroup``): the root (by default the
whole test data but the samples) and its groups, each with a maximum score, an aggregation
and the groups it requires to pass. A test belongs to the deepest group whose ``name`` is
its ``group`` or a folder above it (``secret/g1`` holds ``secret/g1`` and ``secret/g1/x``);
the root's name may be empty (every test). A sample test counts only where a group other
than the root is named after its group (legacy Kattis packages grade ``data/sample``).

How a test scores (the Kattis 2025-09 rules, which are also CMS's and IOI's):

- a test that did not pass scores 0; one that passed scores its maximum, unless its checker
  said more: a fraction in [0, 1] (``score_multiplier.txt``, testlib's partial points) times
  its maximum, or an absolute score (``score.txt``, never past a bounded maximum);
- a test's maximum: its group's ``test_score`` when given (legacy ``accept_score``), else the
  group's maximum in a ``min``/``max``/``product`` group, else the group's maximum (less its
  subgroups') shared evenly between its own tests in a ``sum`` group.

How a group scores: ``pass-fail`` its maximum when every test in it passed, else 0; ``sum``
the sum of its tests' and subgroups' scores; ``min`` (IOI/CMS GroupMin: a subtask scores
the minimum over its tests x its points) the minimum; ``max`` the maximum; ``product`` (CMS
GroupMul) its maximum times the product of its children's fractions. A group whose
``require_pass`` groups (or ``sample``) did not pass every test scores 0. With
``stop_at_failure`` (legacy ``on_reject: break``) the children after the first one that
failed score 0 (problemtools does not grade them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field

from judge.errors import Issue

Aggregation = Literal["pass-fail", "sum", "min", "max", "product"]
#: the default maximum of a root whose maximum cannot be derived (the 2025-09 default)
DEFAULT_MAX_SCORE = 100.0
#: scores are rounded to this many decimals (no 29.999999999 for 30)
DIGITS = 9


class ScoreGroup(BaseModel):
    """A test group with points (see the module doc)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    #: the tests' ``group`` this group holds ("" at the root: every test)
    name: str = ""
    #: the most it can score; "unbounded": its tests' validators give absolute scores;
    #: None: the root's is its groups' sum (else 100), a subgroup's is its tests' sum
    max_score: float | Literal["unbounded"] | None = Field(default=None)
    aggregation: Aggregation = "sum"
    #: groups (names, or "sample") every test of which must pass for this one to score
    require_pass: list[str] = []
    #: legacy ``on_reject: break``: after the first failing child the rest score 0
    stop_at_failure: bool = False
    #: each test's maximum (legacy ``accept_score``); None: derived from ``max_score``
    test_score: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    groups: list["ScoreGroup"] = []

    def walk(self) -> list["ScoreGroup"]:
        """This group and every group below it, in order."""
        found = [self]
        for child in self.groups:
            found += child.walk()
        return found


def _holds(name: str, group: str) -> bool:
    return name == "" or group == name or group.startswith(name + "/")


def _members(root: ScoreGroup, tests: Sequence[Any]) -> dict[int, ScoreGroup]:
    """Test index -> the deepest group holding it (tests outside the tree are left out; a
    sample test counts only in a group below the root)."""
    found: dict[int, ScoreGroup] = {}
    for index, test in enumerate(tests):
        group = test.group or ""
        if not _holds(root.name, group):
            continue
        place, depth = root, 0
        while True:
            deeper = next((g for g in place.groups if g.name and _holds(g.name, group)), None)
            if deeper is None:
                break
            place, depth = deeper, depth + 1
        if test.sample and depth == 0:
            continue
        found[index] = place
    return found


def _maxima(group: ScoreGroup, own: dict[int, list[int]], root: bool
            ) -> dict[int, float | None]:
    """Each group's maximum (by id), None for unbounded."""
    out: dict[int, float | None] = {}

    def visit(g: ScoreGroup, is_root: bool) -> float | None:
        children = [visit(c, False) for c in g.groups]
        if g.max_score == "unbounded":
            out[id(g)] = None
        elif isinstance(g.max_score, (int, float)):
            out[id(g)] = float(g.max_score)
        else:
            tests = len(own.get(id(g), []))
            values = children + [g.test_score] * tests
            if not values or any(v is None for v in values):
                derived = DEFAULT_MAX_SCORE if is_root else None
            elif g.aggregation == "sum":
                derived = float(sum(values))  # type: ignore[arg-type]
            else:
                derived = float(max(values))  # type: ignore[type-var]
            out[id(g)] = derived
        return out[id(g)]

    visit(group, root)
    return out


def _test_most(g: ScoreGroup, maxima: dict[int, float | None], own: dict[int, list[int]]
               ) -> float | None:
    """The most a test of group ``g`` scores (see the module doc); None: unbounded."""
    top = maxima[id(g)]
    if g.test_score is not None:
        return g.test_score
    if top is None:
        return None
    if g.aggregation == "sum":
        rest = top - sum(maxima[id(c)] or 0.0 for c in g.groups)
        return max(0.0, rest) / max(1, len(own.get(id(g), [])))
    return top


def per_test_maxima(root: ScoreGroup, tests: Sequence[Any]) -> dict[int, float | None]:
    """Each counted test's maximum score (test index -> points; None: unbounded); a test
    outside the tree is left out."""
    members = _members(root, tests)
    own: dict[int, list[int]] = {}
    for index, group in members.items():
        own.setdefault(id(group), []).append(index)
    maxima = _maxima(root, own, True)
    return {index: _test_most(group, maxima, own) for index, group in members.items()}


@dataclass
class TestOutcome:
    """What the scoring needs of one judged test."""

    __test__ = False  # not a pytest class

    passed: bool
    #: a checker's partial credit in [0, 1] (None: none given)
    fraction: float | None = None
    #: an absolute score (a Kattis validator's ``score.txt``; None: none given)
    points: float | None = None


@dataclass
class GroupScore:
    name: str
    score: float
    max_score: float | None
    passed: int
    total: int
    aggregation: str
    #: why it scored 0 whatever its tests did (a required group failed, an earlier one)
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"group": self.name, "score": self.score,
                                "max_score": self.max_score, "passed": self.passed,
                                "total": self.total, "aggregation": self.aggregation}
        if self.note:
            data["note"] = self.note
        return data


@dataclass
class Scored:
    score: float
    max_score: float | None
    groups: list[GroupScore]
    #: the checker's scores the rules refuse (the problem's fault, never the candidate's)
    problem_errors: list[str] = field(default_factory=list)
    #: tests whose outcome counts for some group (the others need not be judged)
    counted: set[int] = field(default_factory=set)


def score_tests(root: ScoreGroup, tests: Sequence[Any], outcomes: dict[int, TestOutcome]
                ) -> Scored:
    """The score of a candidate's judged tests (``outcomes``: test index -> outcome; a test
    missing there did not pass)."""
    members = _members(root, tests)
    own: dict[int, list[int]] = {}
    for index, group in members.items():
        own.setdefault(id(group), []).append(index)
    maxima = _maxima(root, own, True)
    errors: list[str] = []
    by_name = {g.name: g for g in root.walk()}

    def all_passed(g: ScoreGroup) -> bool:
        ids = {id(x) for x in g.walk()}
        return all(outcomes.get(i, TestOutcome(False)).passed
                   for i, m in members.items() if id(m) in ids)

    def required_failed(g: ScoreGroup) -> str | None:
        for name in g.require_pass:
            if name == "sample":
                bad = [i for i, t in enumerate(tests) if t.sample
                       and not outcomes.get(i, TestOutcome(False)).passed]
            elif name in by_name:
                bad = [] if all_passed(by_name[name]) else [0]
            else:
                bad = [0]
            if bad:
                return "requires %s to pass" % (name or "every test")
        return None

    groups: list[GroupScore] = []

    def test_most(g: ScoreGroup) -> float | None:
        return _test_most(g, maxima, own)

    def test_score(index: int, g: ScoreGroup) -> float:
        outcome = outcomes.get(index, TestOutcome(False))
        most = test_most(g)
        name = tests[index].name or str(index + 1)
        if not outcome.passed:  # a checker's partial credit counts (testlib's _pc)
            return most * min(1.0, max(0.0, outcome.fraction)) \
                if outcome.fraction is not None and most is not None else 0.0
        if outcome.points is not None:
            if most is not None and outcome.points > most + 1e-9:
                errors.append("test %s: the validator's score %g is past the test's maximum "
                              "%g" % (name, outcome.points, most))
                return most
            return max(0.0, outcome.points)
        if most is None:
            errors.append("test %s: a test of an unbounded group needs its validator's "
                          "score.txt" % name)
            return 0.0
        if outcome.fraction is not None:
            return most * min(1.0, max(0.0, outcome.fraction))
        return most

    def visit(g: ScoreGroup, cancelled: str | None) -> tuple[float, bool]:
        index_at = len(groups)
        groups.append(GroupScore(g.name, 0.0, maxima[id(g)], 0, 0, g.aggregation))
        why = cancelled or required_failed(g)
        children: list[tuple[float, float | None, bool]] = []
        stopped: str | None = None
        mine = sorted(own.get(id(g), []))
        items: list[tuple[str, Any]] = sorted(
            [(tests[i].name or "", ("test", i)) for i in mine] +
            [(c.name, ("group", c)) for c in g.groups], key=lambda p: p[0])
        for _, (what, item) in items:
            if what == "test":
                ok = outcomes.get(item, TestOutcome(False)).passed
                value = test_score(item, g) if (why or stopped) is None else 0.0
                children.append((value, test_most(g), ok))
            else:
                value, ok = visit(item, why or stopped)
                children.append((value, maxima[id(item)], ok))
            if not ok and g.stop_at_failure and stopped is None:
                stopped = "an earlier test or group failed (on_reject: break)"
        ok_all = all(ok for _, _, ok in children)
        scores = [v for v, _, _ in children]
        top = maxima[id(g)]
        if why is not None:
            score = 0.0
        elif g.aggregation == "pass-fail":
            score = (top or 0.0) if ok_all else 0.0
        elif g.aggregation == "sum":
            score = sum(scores)
        elif g.aggregation == "min":
            score = min(scores) if scores else 0.0
        elif g.aggregation == "max":
            score = max(scores) if scores else 0.0
        else:  # product of the children's fractions
            fractions = [value / most if most else 0.0 for value, most, _ in children]
            score = (top or 0.0) * math.prod(fractions) if fractions else 0.0
        if top is not None and score > top + 1e-9:
            errors.append("group %s scored %g, past its maximum %g" % (g.name or "(all)",
                                                                       score, top))
            score = top
        tests_in = [i for i, m in members.items() if id(m) in {id(x) for x in g.walk()}]
        record = groups[index_at]
        record.score = round(score, DIGITS)
        record.passed = sum(outcomes.get(i, TestOutcome(False)).passed for i in tests_in)
        record.total = len(tests_in)
        record.note = why if why and why != cancelled else (cancelled if why else None)
        return score, ok_all and why is None

    score, _ = visit(root, None)
    return Scored(round(score, DIGITS), maxima[id(root)], groups, errors, set(members))


def scoring_issues(root: ScoreGroup, tests: Sequence[Any], file: str,
                   where: str = "scoring") -> list[Issue]:
    """What the schema cannot say, located: unique group names, each inside its parent,
    tests in every group, ``require_pass`` naming an earlier group, maxima that fit."""
    issues: list[Issue] = []
    names: dict[str, str] = {}
    order = [g.name for g in root.walk()]

    def visit(g: ScoreGroup, at: str, parent: ScoreGroup | None) -> None:
        if g.name in names and parent is not None:
            issues.append(Issue(file, "duplicate group name %r (also %s)" % (g.name,
                                                                             names[g.name]),
                                at + ".name"))
        names.setdefault(g.name, at)
        if parent is not None and not g.name:
            issues.append(Issue(file, "a group below the root needs a name (its tests' "
                                      "group)", at + ".name"))
        if parent is not None and parent.name and g.name and \
                not g.name.startswith(parent.name + "/"):
            issues.append(Issue(file, "group %r is not inside its parent %r (name it %s/...)"
                                % (g.name, parent.name, parent.name), at + ".name"))
        if isinstance(g.max_score, (int, float)) and \
                (not math.isfinite(g.max_score) or g.max_score < 0):
            issues.append(Issue(file, "max_score must be a non-negative number or "
                                      "'unbounded'", at + ".max_score"))
        if g.aggregation == "pass-fail" and g.max_score == "unbounded":
            issues.append(Issue(file, "a pass-fail group needs a bounded max_score",
                                at + ".max_score"))
        if parent is not None and g.max_score in (None, "unbounded") and \
                parent.max_score not in ("unbounded",) and g.test_score is None and \
                parent.max_score is not None:
            issues.append(Issue(file, "group %r needs a max_score: its parent's is bounded "
                                      "(%g)" % (g.name, parent.max_score), at + ".max_score"))
        for name in g.require_pass:
            if name != "sample" and (name not in order or
                                     order.index(name) >= order.index(g.name)):
                issues.append(Issue(file, "require_pass names %r, which is not an earlier "
                                          "group (or 'sample')" % name, at + ".require_pass"))
        if g.aggregation in ("sum",) and isinstance(g.max_score, (int, float)) and \
                all(isinstance(c.max_score, (int, float)) for c in g.groups) and g.groups:
            total = sum(c.max_score for c in g.groups)  # type: ignore[misc]
            if total > g.max_score + 1e-9:
                issues.append(Issue(file, "the groups' max_score add up to %g, past this "
                                          "group's %g" % (total, g.max_score),
                                    at + ".max_score"))
        for i, child in enumerate(g.groups):
            visit(child, "%s.groups[%d]" % (at, i), g)

    visit(root, where, None)
    members = _members(root, tests)
    held = {id(g) for g in members.values()}
    for i, g in enumerate(root.walk()):
        inside = any(id(x) in held for x in g.walk())
        if not inside and g is not root:
            issues.append(Issue(file, "group %r holds no test (a test's 'group' names the "
                                      "group it is in)" % g.name, names.get(g.name, where)))
    if not members and tests:
        issues.append(Issue(file, "no test is scored: the root group %r holds none of the "
                                  "tests (samples count only in a group of their own)"
                            % root.name, where + ".name"))
    return issues


ScoreGroup.model_rebuild()

__all__ = ["Aggregation", "GroupScore", "ScoreGroup", "Scored", "TestOutcome",
           "per_test_maxima", "score_tests", "scoring_issues"]
