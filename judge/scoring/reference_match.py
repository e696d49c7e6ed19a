"""Matching a solver's answers against a reference solution (exact, select, fuzzy, rules).

Why this module exists: reference solutions in the format of
``shared/seeds/reference-solutions-format.md`` score each question of a problem by a matching
type written as a prefix of the reference entry.  The public evaluator normalised only the
solver's side (so about a fifth of exact references could never match), did not clamp the
select penalty (a wrong single answer to ``<select2,1,inf>`` scored 0.5) and crashed on
inputs such as ``**``.  This one normalises both sides, clamps, and never crashes on a
solver's answer; a malformed *reference* is a clear error naming the question key.

**Reference file** (one problem per file)::

    {"id": "2023-4",
     "answer": {"a": "kuru", "b": "<select2,1,inf>x; y; z", "c": "<fuzzy>the big dog"},
     "explanation": {"rules": "...", "rule_checklist": ["mentions vowel harmony", ...]}}

**Solution file** (defined here)::

    {"id": "2023-4",
     "answer": {"a": "Kuru.", "b": ["x", "z"], "c": "a large dog"},
     "explanation": "optional free text, scored against the rule_checklist"}

Answers are strings or lists of strings (numbers are turned into strings); ``null`` or a
missing key scores 0.  Keys the reference does not have are reported and ignored.

**Normalisation** (:func:`normalize_answer`, applied to *both* sides): Unicode NFKC,
``str.casefold``, whitespace runs collapsed to one space, then surrounding punctuation and
quotes stripped (Unicode categories ``P*`` plus `````, ``~``, repeated until stable, so
``"**Kuru.**"`` becomes ``kuru``).  Diacritics are kept (they matter in transcriptions).
An answer that normalises to the empty string never scores.

**Prefixes**: ``<fuzzy>`` and ``<select{reflen},{minlen},{maxlen}>`` (integers; ``inf`` as
``maxlen`` means no upper bound), in either order, at the start of the reference entry.

**Select**: the entry after the prefix is split into reference items, the solver's entry
into items: a list is taken item by item; a string is split on its strongest delimiter -
newlines if it has any, else semicolons if it has any, else commas (so items may contain
commas when the author separates them with semicolons).  Items are normalised, empty items
dropped, duplicates collapsed.  With S the solver's items and R the reference items::

    score = 0                                                    if |S| not in [minlen, maxlen]
    score = max(0, min(|S∩R|, reflen) - max(0, |S| - reflen)) / reflen   otherwise

i.e. the over-answering penalty is clamped at 0 (under-answering is not a bonus).

**Fuzzy** entries are first compared after normalisation (equal: 1, no judge call), then
by a pluggable :class:`EquivalenceJudge`.  **Fuzzy select** pairs items greedily (solver
items in order, each to the first still-unpaired reference item the judge accepts) and
applies the select formula to the number of pairs.

The **problem score** is the mean over the reference's questions.  When the reference has a
``rule_checklist``, the solver's ``explanation`` is scored separately: the share of rules the
judge finds satisfied (0 without an explanation).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from judge.scoring.primitives import InputError, read_json, validation_message

# --------------------------------------------------------------------------------------
# Normalisation and splitting
# --------------------------------------------------------------------------------------

_EXTRA_STRIP = frozenset("`~")


def _strippable(ch: str) -> bool:
    return ch.isspace() or ch in _EXTRA_STRIP or unicodedata.category(ch).startswith("P")


def normalize_answer(text: str) -> str:
    """NFKC, casefold, collapse whitespace, strip surrounding punctuation/quotes (both sides)."""
    s = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    start, end = 0, len(s)
    while start < end and _strippable(s[start]):
        start += 1
    while end > start and _strippable(s[end - 1]):
        end -= 1
    return s[start:end]


def split_items(value: str | list[Any]) -> list[str]:
    """Raw items of a select entry: list items, or a string split on newlines/semicolons/commas."""
    if isinstance(value, list):
        return ["" if v is None else str(v) for v in value]
    for sep in ("\n", ";", ","):
        if sep in value:
            return value.split(sep)
    return [value]


def normalized_items(value: str | list[Any]) -> list[str]:
    """Normalised, non-empty, de-duplicated items in first-seen order."""
    out: list[str] = []
    for raw in split_items(value):
        n = normalize_answer(raw)
        if n and n not in out:
            out.append(n)
    return out


def select_score(n_correct: int, n_given: int, reflen: int, minlen: int, maxlen: float) -> float:
    """The clamped select formula (see the module docstring)."""
    if not minlen <= n_given <= maxlen:
        return 0.0
    return max(0, min(n_correct, reflen) - max(0, n_given - reflen)) / reflen


# --------------------------------------------------------------------------------------
# The pluggable equivalence judge
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgeQuestion:
    """What a judge is asked.

    ``kind="equivalence"``: is ``candidate`` equivalent to ``reference``?
    ``kind="rule"``: does the explanation ``candidate`` satisfy the criterion ``reference``?
    """

    kind: Literal["equivalence", "rule"]
    reference: str
    candidate: str
    context: str = ""


@dataclass(frozen=True)
class JudgeVerdict:
    """A judge's yes/no, which backend said it, and whether it is an offline approximation."""

    ok: bool
    backend: str
    offline: bool = False
    detail: str = ""


@runtime_checkable
class EquivalenceJudge(Protocol):
    """Anything that can answer a :class:`JudgeQuestion` (LLM, offline similarity, a test double)."""

    def judge(self, question: JudgeQuestion) -> JudgeVerdict:
        """Answer one question deterministically for the same input."""
        ...


# --------------------------------------------------------------------------------------
# Reference entries
# --------------------------------------------------------------------------------------


class ReferenceFormatError(ValueError):
    """A reference entry cannot be understood; the message names the question key."""


@dataclass(frozen=True)
class ReferenceEntry:
    """A parsed reference entry: matching kind, select bounds and the content after prefixes."""

    key: str
    kind: Literal["exact", "fuzzy", "select", "fuzzy_select"]
    content: str
    reflen: int = 0
    minlen: int = 0
    maxlen: float = math.inf

    @property
    def items(self) -> list[str]:
        """Normalised reference items (select kinds)."""
        return normalized_items(self.content)


_PREFIX = re.compile(r"<\s*(fuzzy|select[^>]*)>", re.IGNORECASE)
_SELECT = re.compile(r"select\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+|inf)\s*", re.IGNORECASE)


def parse_reference_entry(key: str, raw: str) -> ReferenceEntry:
    """Read the ``<fuzzy>`` / ``<select r,min,max>`` prefixes; malformed ones raise naming ``key``."""
    if not isinstance(raw, str):
        raise ReferenceFormatError(f"answer[{key!r}]: reference entry must be a string, got {type(raw).__name__}")
    rest = raw.lstrip()
    fuzzy, select = False, None
    while True:
        m = _PREFIX.match(rest)
        if not m:
            if re.match(r"<\s*(fuzzy|select)", rest, re.IGNORECASE):
                raise ReferenceFormatError(f"answer[{key!r}]: unterminated prefix in {raw!r}")
            break
        body = m.group(1)
        if body.lower() == "fuzzy":
            if fuzzy:
                raise ReferenceFormatError(f"answer[{key!r}]: <fuzzy> given twice")
            fuzzy = True
        else:
            if select is not None:
                raise ReferenceFormatError(f"answer[{key!r}]: select prefix given twice")
            sm = _SELECT.fullmatch(body)
            if not sm:
                raise ReferenceFormatError(
                    f"answer[{key!r}]: malformed select prefix {m.group(0)!r}; expected "
                    "<select{reflen},{minlen},{maxlen}> such as <select2,1,inf>")
            select = sm.groups()
        rest = rest[m.end():]
    if select is None:
        return ReferenceEntry(key, "fuzzy" if fuzzy else "exact", rest)
    reflen, minlen = int(select[0]), int(select[1])
    maxlen = math.inf if select[2].lower() == "inf" else int(select[2])
    entry = ReferenceEntry(key, "fuzzy_select" if fuzzy else "select", rest, reflen, minlen, maxlen)
    n_items = len(entry.items)
    problems = []
    if reflen < 1:
        problems.append("reflen must be at least 1")
    if minlen > maxlen:
        problems.append(f"minlen {minlen} exceeds maxlen {select[2]}")
    if not minlen <= reflen <= maxlen:
        problems.append(f"reflen {reflen} is outside [minlen, maxlen] = [{minlen}, {select[2]}]")
    if reflen > n_items:
        problems.append(f"reflen {reflen} exceeds the {n_items} reference item(s)")
    if problems:
        raise ReferenceFormatError(f"answer[{key!r}]: " + "; ".join(problems) + " (full marks impossible)")
    return entry


# --------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------


class ExplanationRef(BaseModel):
    """The reference's gold explanation and the checklist the solver's explanation is scored by."""

    model_config = ConfigDict(extra="forbid")
    rules: str = ""
    rule_checklist: list[str] = Field(default_factory=list)


class ReferenceSolution(BaseModel):
    """A reference solution file."""

    model_config = ConfigDict(extra="allow")
    id: str = Field(min_length=1)
    answer: dict[str, str] = Field(min_length=1)
    explanation: ExplanationRef = Field(default_factory=ExplanationRef)


class SolverSolution(BaseModel):
    """A solver's solution file (see the module docstring)."""

    model_config = ConfigDict(extra="allow")
    id: str = Field(min_length=1)
    answer: dict[str, str | list[str] | None]
    explanation: str | None = None

    @field_validator("answer", mode="before")
    @classmethod
    def _numbers_to_text(cls, v: Any) -> Any:
        def conv(x: Any) -> Any:
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                return str(x)
            if isinstance(x, list):
                return [conv(i) for i in x]
            return x
        return {k: conv(x) for k, x in v.items()} if isinstance(v, dict) else v


def _load(model: type[BaseModel], path: str | Path) -> Any:
    data = read_json(path)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InputError(validation_message(exc, prefix=f"{path}: ")) from exc


def load_reference(path: str | Path) -> ReferenceSolution:
    """Read a reference file and check every entry's prefixes (errors name file and key)."""
    ref = _load(ReferenceSolution, path)
    for key, raw in ref.answer.items():
        try:
            parse_reference_entry(key, raw)
        except ReferenceFormatError as exc:
            raise InputError(f"{path}: {exc}") from exc
    return ref


def load_solution(path: str | Path) -> SolverSolution:
    """Read a solver's solution file (errors name the file and JSON location)."""
    return _load(SolverSolution, path)


# --------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntryScore:
    """One question: its matching kind, score in 0..1, and how the score came about."""

    key: str
    kind: str
    score: float
    reference: str
    answer: Any
    detail: str


@dataclass(frozen=True)
class RuleScore:
    """One checklist rule and whether the judge found the explanation satisfies it."""

    rule: str
    score: float
    detail: str


@dataclass
class ProblemScore:
    """A problem's mean score over its questions, every entry, and the checklist outcome."""

    id: str
    score: float
    entries: list[EntryScore]
    explanation_score: float | None = None
    rules: list[RuleScore] = field(default_factory=list)
    judges: list[str] = field(default_factory=list)
    offline_judge: bool = False
    extra_keys: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


class _JudgeLog:
    """Calls the judge and remembers which backends answered (so outputs can name them)."""

    def __init__(self, judge: EquivalenceJudge | None) -> None:
        self.judge = judge
        self.backends: list[str] = []
        self.offline = False

    def ask(self, q: JudgeQuestion, key: str) -> JudgeVerdict:
        if self.judge is None:
            raise ReferenceFormatError(f"{key}: fuzzy entries and rule checklists need an equivalence judge")
        v = self.judge.judge(q)
        if v.backend not in self.backends:
            self.backends.append(v.backend)
        self.offline = self.offline or v.offline
        return v


def _answer_text(value: str | list[str]) -> str:
    return value if isinstance(value, str) else ", ".join(value)


def score_entry(entry: ReferenceEntry, answer: str | list[str] | None,
                judge: EquivalenceJudge | None = None, *, _log: _JudgeLog | None = None) -> EntryScore:
    """Score one solver entry against a parsed reference entry (never raises on odd answers)."""
    log = _log or _JudgeLog(judge)
    if answer is None:
        return EntryScore(entry.key, entry.kind, 0.0, entry.content, None, "no answer")
    if entry.kind in ("exact", "fuzzy"):
        text = _answer_text(answer)
        got, want = normalize_answer(text), normalize_answer(entry.content)
        if not got:
            return EntryScore(entry.key, entry.kind, 0.0, entry.content, answer, "empty after normalisation")
        if got == want:
            return EntryScore(entry.key, entry.kind, 1.0, entry.content, answer, "equal after normalisation")
        if entry.kind == "exact":
            return EntryScore(entry.key, entry.kind, 0.0, entry.content, answer,
                              f"{got!r} != {want!r} after normalisation")
        v = log.ask(JudgeQuestion("equivalence", entry.content, text), f"answer[{entry.key!r}]")
        return EntryScore(entry.key, entry.kind, 1.0 if v.ok else 0.0, entry.content, answer,
                          f"{v.backend}: {'equivalent' if v.ok else 'not equivalent'}"
                          + (f" ({v.detail})" if v.detail else ""))
    given = normalized_items(answer)
    if not entry.minlen <= len(given) <= entry.maxlen:  # scores 0: spare the judge the calls
        maxlen = "inf" if math.isinf(entry.maxlen) else str(int(entry.maxlen))
        return EntryScore(entry.key, entry.kind, 0.0, entry.content, answer,
                          f"{len(given)} item(s) given, outside [{entry.minlen}, {maxlen}]")
    refs = entry.items
    if entry.kind == "select":
        correct, how = len(set(given) & set(refs)), "exact items"
    else:
        correct, how = _judged_pairs(entry, answer, given, refs, log), "judged items"
    score = select_score(correct, len(given), entry.reflen, entry.minlen, entry.maxlen)
    return EntryScore(entry.key, entry.kind, score, entry.content, answer,
                      f"{correct} of {len(given)} given correct ({how}), reflen {entry.reflen}")


def _judged_pairs(entry: ReferenceEntry, answer: str | list[str], given: list[str], refs: list[str],
                  log: _JudgeLog) -> int:
    """Fuzzy select: pair each solver item with the first unpaired reference item accepted."""
    raw_refs = {normalize_answer(r): r.strip() for r in split_items(entry.content)}
    raw_given = {normalize_answer(g): g.strip() for g in split_items(answer)}
    unpaired = list(refs)
    pairs = 0
    for item in given:
        for r in unpaired:
            q = JudgeQuestion("equivalence", raw_refs.get(r, r), raw_given.get(item, item))
            if item == r or log.ask(q, f"answer[{entry.key!r}]").ok:
                unpaired.remove(r)
                pairs += 1
                break
    return pairs


def match_problem(reference: ReferenceSolution, solution: SolverSolution,
                  judge: EquivalenceJudge | None = None) -> ProblemScore:
    """Score a solution against a reference; ``judge`` is needed for fuzzy entries and rules."""
    if reference.id != solution.id:
        raise InputError(f"solution id {solution.id!r} does not match reference id {reference.id!r}")
    log = _JudgeLog(judge)
    entries = []
    for key, raw in reference.answer.items():
        entry = parse_reference_entry(key, raw)
        entries.append(score_entry(entry, solution.answer.get(key), _log=log))
    problem = ProblemScore(reference.id, sum(e.score for e in entries) / len(entries), entries,
                           extra_keys=sorted(set(solution.answer) - set(reference.answer)))
    checklist = reference.explanation.rule_checklist
    if checklist:
        text = (solution.explanation or "").strip()
        for rule in checklist:
            if not text:
                problem.rules.append(RuleScore(rule, 0.0, "no explanation"))
                continue
            v = log.ask(JudgeQuestion("rule", rule, text), "explanation")
            problem.rules.append(RuleScore(rule, 1.0 if v.ok else 0.0,
                                           f"{v.backend}: {'satisfied' if v.ok else 'not satisfied'}"))
        problem.explanation_score = sum(r.score for r in problem.rules) / len(problem.rules)
    problem.judges, problem.offline_judge = log.backends, log.offline
    return problem
