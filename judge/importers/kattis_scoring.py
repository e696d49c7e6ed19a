"""A Kattis / ICPC scoring problem's groups as the judge's ``scoring`` tree
(``judge.problem.scoring.ScoreGroup``). Part of ``judge.importers.kattis``; pure reading.

Two spellings are read, as the packages in the wild write them:

- **legacy grading** (problemtools' default grader; legacy packages, and 2023-07 packages
  that still carry the keys, like problemtools' ``oddecho``): every folder of ``data/`` is
  a group whose ``testdata.yaml`` settings are inherited key by key from its parent's;
  ``accept_score`` (default 1) is what a passed test scores, ``grader_flags`` names the
  aggregation (``sum``, the default, ``min``, ``max``, ``avg``) and ``ignore_sample`` makes
  ``secret`` the whole score, ``on_reject: break`` (the default) gives nothing for the
  children after a failing one; problem.yaml's legacy ``grading`` keys apply everywhere;
- **2023-07 / 2025-09**: ``data/secret`` is the root (``max_score``, default 100;
  ``score_aggregation``, default ``sum``), its sub-folders the test data groups
  (``max_score``, ``score_aggregation``, default ``pass-fail``, ``require_pass``), in
  ``test_group.yaml`` (2025-09) or ``testdata.yaml``; the draft spelling
  ``scoring: {score, aggregation}`` (the format's own ``scoring`` example) is read too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.errors import Issue
from judge.importers.kattis_files import as_number
from judge.problem.program import ProgramTest
from judge.problem.scoring import ScoreGroup

LEGACY_KEYS = ("grading", "grader_flags", "accept_score", "reject_score", "range",
               "on_reject")
NEW_KEYS = ("max_score", "score_aggregation", "require_pass", "scoring",
            "static_validation_score")
_AGGREGATIONS = ("sum", "min", "max", "avg")
_NEW_AGGREGATIONS = ("pass-fail", "sum", "min")


@dataclass
class GroupConfig:
    """A ``data/`` folder's settings file, as read."""

    path: Path
    data: dict[str, Any]
    lines: dict[str, int] = field(default_factory=dict)

    def issue(self, message: str, key: str = "") -> Issue:
        return Issue(str(self.path), message, key, self.lines.get(key))


@dataclass
class ScoringRead:
    root: ScoreGroup | None = None
    notes: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)


def _parent(name: str) -> str:
    return name.rsplit("/", 1)[0] if "/" in name else ""


def _folders(tests: list[ProgramTest]) -> list[str]:
    """Every folder under ``data/`` that holds a test, with the folders above it."""
    found = {""}
    for test in tests:
        parts = test.group.split("/") if test.group else []
        for i in range(1, len(parts) + 1):
            found.add("/".join(parts[:i]))
    return sorted(found)


def read_scoring(fmt: str, configs: dict[str, GroupConfig], tests: list[ProgramTest],
                 problem_grading: Any) -> ScoringRead:
    """The scoring tree of a package of type ``scoring`` (``configs``: a ``data/`` folder
    relative to ``data/`` -> its settings file; ``problem_grading``: problem.yaml's
    legacy ``grading``)."""
    legacy = any(k in c.data for c in configs.values() for k in LEGACY_KEYS) or \
        (isinstance(problem_grading, dict) and
         any(k in problem_grading for k in ("accept_score", "reject_score", "on_reject")))
    new = any(k in c.data for c in configs.values() for k in NEW_KEYS)
    read = ScoringRead()
    if legacy and new:
        read.notes.append("both legacy grading keys and 2023-07 scoring keys in the test "
                          "data settings: the legacy ones are used")
    if any("static_validation_score" in c.data for c in configs.values()):
        read.unsupported.append("static validation scores (static_validation_score): the "
                                "judge runs no static validator")
        return read
    if legacy or (fmt == "legacy" and not new):
        _legacy(configs, tests, problem_grading, read)
    else:
        _new(configs, tests, read)
    return read


# ---- legacy grading (problemtools' default grader) --------------------------------------------

def _legacy(configs: dict[str, GroupConfig], tests: list[ProgramTest], problem_grading: Any,
            read: ScoringRead) -> None:
    folders = _folders(tests)
    grading = problem_grading if isinstance(problem_grading, dict) else {}
    forced: dict[str, Any] = {k: grading[k] for k in ("accept_score", "reject_score")
                              if k in grading}
    if grading.get("on_reject") in ("first_error", "grade"):
        forced["on_reject"] = "break" if grading["on_reject"] == "first_error" else "continue"
    settings: dict[str, dict[str, Any]] = {}
    defaults = {"on_reject": "break", "grading": "default", "grader_flags": "",
                "accept_score": 1.0, "reject_score": 0.0}
    for name in folders:
        merged = dict(settings[_parent(name)]) if name else dict(defaults)
        if name in configs:
            merged.update({k: v for k, v in configs[name].data.items() if k in LEGACY_KEYS})
        merged.update(forced)
        settings[name] = merged
    direct: dict[str, int] = {}
    for test in tests:
        direct[test.group or ""] = direct.get(test.group or "", 0) + 1
    said: set[str] = set()

    def where(name: str) -> str:
        return str(configs[name].path) if name in configs else "data/%s" % name

    def build(name: str) -> ScoreGroup:
        s = settings[name]
        children = [build(f) for f in folders if f and _parent(f) == name]
        if s.get("grading") == "custom":
            read.unsupported.append("%s: custom grading (a grader program), which the judge "
                                    "does not run" % where(name))
        flags = str(s.get("grader_flags") or "").split()
        aggregation = next((f for f in reversed(flags) if f in _AGGREGATIONS), "sum")
        accept = as_number(s.get("accept_score"))
        if accept is None or accept < 0:
            read.issues.append(Issue(where(name), "accept_score must be a non-negative "
                                                  "number, got %r" % s.get("accept_score")))
            accept = 1.0
        reject = as_number(s.get("reject_score"))
        if reject and "reject_score" not in said:
            said.add("reject_score")
            read.notes.append("%s: reject_score %s not applied (a failed test scores 0)"
                              % (where(name), s.get("reject_score")))
        if s.get("on_reject") not in ("break", "continue"):
            read.issues.append(Issue(where(name), "on_reject must be break or continue, got "
                                                  "%r" % s.get("on_reject")))
        tests_here = direct.get(name, 0)
        if aggregation == "avg":
            if children:
                read.notes.append("%s: avg over groups is scored as their sum" % where(name))
            aggregation, accept = "sum", accept / max(1, tests_here)
        return ScoreGroup(name=name, aggregation=aggregation,  # type: ignore[arg-type]
                          test_score=accept, stop_at_failure=s.get("on_reject") == "break",
                          groups=children)

    root = build("")
    flags = str(settings[""].get("grader_flags") or "").split()
    if "ignore_sample" in flags:
        secret = next((g for g in root.groups if g.name == "secret"), None)
        if secret is not None:
            root = secret
    read.root = root
    read.notes.append("scored by problemtools' default grader (legacy grading keys): %s"
                      % _describe(root))


# ---- 2023-07 / 2025-09 ------------------------------------------------------------------------

def _new(configs: dict[str, GroupConfig], tests: list[ProgramTest], read: ScoringRead) -> None:
    folders = [f for f in _folders(tests) if f.startswith("secret/") and f.count("/") == 1]
    secret = configs.get("secret")
    has_groups = any(f in configs for f in folders)
    root = _new_group("secret", secret, True, read)
    if root is None:
        return
    groups = []
    if has_groups:
        for name in folders:
            group = _new_group(name, configs.get(name), False, read)
            if group is None:
                return
            if group.max_score is None and root.max_score != "unbounded":
                where = configs[name].path if name in configs else "data/%s" % name
                read.issues.append(Issue(str(where), "test data group %s needs a max_score "
                                                     "(data/secret's is bounded: %s)" % (
                                                         name, root.max_score)))
                return
            groups.append(group)
        if root.aggregation == "pass-fail" and any(g.aggregation != "pass-fail"
                                                   for g in groups):
            read.issues.append(Issue(str(secret.path) if secret else "data/secret",
                                     "data/secret has pass-fail aggregation, so must each "
                                     "of its test data groups"))
            return
    read.root = root.model_copy(update={"groups": groups})
    read.notes.append("scored by the package's test data groups: %s" % _describe(read.root))


def _new_group(name: str, config: GroupConfig | None, is_root: bool, read: ScoringRead
               ) -> ScoreGroup | None:
    data = dict(config.data) if config is not None else {}
    nested = data.get("scoring")
    if isinstance(nested, dict):  # the draft's ``scoring: {score, aggregation}``
        data.setdefault("max_score", nested.get("score", nested.get("max_score")))
        data.setdefault("score_aggregation", nested.get("aggregation"))
        note = ("scoring: {score, aggregation} in test data settings read as max_score / "
                "score_aggregation (the draft's spelling)")
        if note not in read.notes:
            read.notes.append(note)
    elif nested is not None and config is not None:
        read.issues.append(config.issue("scoring must be a mapping", "scoring"))
        return None

    def issue(message: str, key: str) -> None:
        read.issues.append(config.issue(message, key) if config is not None
                           else Issue("data/" + name, message))

    raw = data.get("max_score")
    max_score: float | str | None
    if raw is None:
        max_score = 100.0 if is_root else None
    elif raw == "unbounded":
        max_score = "unbounded"
    else:
        number = as_number(raw)
        if number is None or number < 0 or number != number or number == float("inf"):
            issue("max_score must be a non-negative integer or 'unbounded', got %r" % raw,
                  "max_score")
            return None
        max_score = number
    aggregation = data.get("score_aggregation") or ("sum" if is_root else "pass-fail")
    if aggregation not in _NEW_AGGREGATIONS:
        issue("score_aggregation must be one of %s, got %r" % (", ".join(_NEW_AGGREGATIONS),
                                                               aggregation), "score_aggregation")
        return None
    required = data.get("require_pass") or []
    if isinstance(required, str):
        required = [required]
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        issue("require_pass must be a group name or a list of them", "require_pass")
        return None
    return ScoreGroup(name=name, max_score=max_score, aggregation=aggregation,
                      require_pass=list(required))


def _describe(root: ScoreGroup) -> str:
    def one(g: ScoreGroup) -> str:
        most = g.max_score if g.max_score is not None else "derived"
        return "%s (%s, max %s)" % (g.name or "data", g.aggregation, most)
    return "; ".join(one(g) for g in root.walk())


__all__ = ["GroupConfig", "LEGACY_KEYS", "NEW_KEYS", "ScoringRead", "read_scoring"]
