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

**Normalisation** (:func:`normalize_answer`, applied to *both* sides) removes formatting
and keeps meaning.  It applies Unicode NFKC (full-width letters, ligatures), maps the dashes
and minus signs ``− ‐ ‑ ‒ –`` to ``-`` and curly apostrophes to ``'``,
``str.casefold``, collapses whitespace runs to one space, then strips, repeatedly until
nothing changes: trailing ``. , ; :`` (and ``。 、``), leading ``, ; :``, one pair of
quotes around the whole answer (``"kuru"``, ``“kuru”``, ``'kuru'``, ``«kuru»``), one
markdown or LaTeX wrapper pair (``**kuru**``, ``__kuru__``, ```kuru```, ``$kuru$``).  So
``"**Kuru.**"`` becomes ``kuru``.  **Kept**, because they change the answer: signs and
affix hyphens (``-5`` is not ``5``, the suffix ``-lar`` is not the word ``lar``), ``!``
(``5!``), ``?``, primes and apostrophes (``f′``, ``'a``), brackets (``(a)`` is not
``a``), a lone leading ``*`` (``*kuru``, a reconstructed form), diacritics.  An answer made
only of decoration (``**``, ``...``) normalises to ``""`` and never scores.

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
by a pluggable :class:`EquivalenceJudge`.  **Fuzzy select** asks the judge about every
(solver item, reference item) pair (pairs equal after normalisation need no call), and
counts the pairs of a **maximum matching** of that bipartite graph (each item used once),
so the score does not depend on the order of either list; the select formula is applied
to that count.  When the score is 0 whatever the judge says (``|S| >= 2 * reflen``), or
``|S|`` is outside the bounds, no call is made.  A judge verdict with an ``error`` leaves
its entry without a score (``score: null``, the error reported), never aborting the
problem.

The **problem score** is the mean over the reference's questions.  When the reference has a
``rule_checklist``, the solver's ``explanation`` is scored separately: the share of rules the
judge finds satisfied (0 without an explanation).
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from judge.errors import InputFault
from judge.scoring.answers import (  # noqa: F401 (split_items: re-exported)
    answer_text, coerce_answer, normalize_answer, normalized_items, split_items,
)
from judge.scoring.primitives import InputError, read_json, validation_message

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
    error: str | None = None  # the judge gave no usable verdict (say why); ``ok`` is meaningless


@runtime_checkable
class EquivalenceJudge(Protocol):
    """Anything that can answer a :class:`JudgeQuestion` (LLM, offline similarity, a test double)."""

    def judge(self, question: JudgeQuestion) -> JudgeVerdict:
        """Answer one question deterministically for the same input.

        A judge may also offer ``judge_many(questions) -> list[JudgeVerdict]`` (same order)
        to answer a batch concurrently; the matcher uses it when present. A verdict with
        ``error`` set is reported on its entry (no score) instead of aborting the run."""
        ...


# --------------------------------------------------------------------------------------
# Reference entries
# --------------------------------------------------------------------------------------


class ReferenceFormatError(InputFault, ValueError):
    """A reference entry cannot be understood; the message names the question key."""

    code = "invalid_reference"


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


#: one prefix; whitespace before it is allowed (``<fuzzy> <select1,1,1>a; b`` has two prefixes)
_PREFIX = re.compile(r"\s*<\s*(fuzzy|select[^>]*)>", re.IGNORECASE)
_SELECT = re.compile(r"select\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+|inf)\s*", re.IGNORECASE)
#: select lengths are item counts: more digits than this is a malformed reference
_MAX_LENGTH_DIGITS = 6


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else f"{text[:40]}...{text[-10:]} ({len(text)} characters)"


def parse_reference_entry(key: str, raw: str) -> ReferenceEntry:
    """Read the ``<fuzzy>`` / ``<select r,min,max>`` prefixes; malformed ones raise naming ``key``."""
    if not isinstance(raw, str):
        raise ReferenceFormatError(f"answer[{key!r}]: reference entry must be a string, got {type(raw).__name__}")
    rest = raw.lstrip()
    fuzzy, select = False, None
    while True:
        m = _PREFIX.match(rest)
        if not m:
            if re.match(r"\s*<\s*(fuzzy|select)", rest, re.IGNORECASE):
                raise ReferenceFormatError(f"answer[{key!r}]: unterminated prefix in {_clip(raw)!r}")
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
                    f"answer[{key!r}]: malformed select prefix {_clip(m.group(0))!r}; expected "
                    "<select{reflen},{minlen},{maxlen}> such as <select2,1,inf>")
            select = sm.groups()
            if any(len(g) > _MAX_LENGTH_DIGITS for g in select if g.lower() != "inf"):
                raise ReferenceFormatError(
                    f"answer[{key!r}]: select length with more than {_MAX_LENGTH_DIGITS} digits "
                    f"in {_clip(m.group(0))} (lengths count items)")
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
        # a number is read as its text, as score_entry does; other odd values are errors here
        def conv(x: Any) -> Any:
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                return answer_text(x)
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
    """One question: its matching kind, score in 0..1 (None when the judge gave no usable
    verdict: ``error`` says why), and how the score came about."""

    key: str
    kind: str
    score: float | None
    reference: str
    answer: Any
    detail: str
    error: str | None = None


@dataclass(frozen=True)
class RuleScore:
    """One checklist rule and whether the judge found the explanation satisfies it."""

    rule: str
    score: float | None
    detail: str
    error: str | None = None


@dataclass
class ProblemScore:
    """A problem's mean score over its questions, every entry, and the checklist outcome.

    ``score`` is None when some entry has no score (a judge error): a grade the judge did
    not give is never invented; ``errors`` lists them."""

    id: str
    score: float | None
    entries: list[EntryScore]
    explanation_score: float | None = None
    rules: list[RuleScore] = field(default_factory=list)
    judges: list[str] = field(default_factory=list)
    offline_judge: bool = False
    extra_keys: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


class _JudgeLog:
    """Asks the judge - a batch at once through ``judge_many`` when the judge has it -,
    remembers every verdict (each distinct question is asked once per problem) and which
    backends answered (so outputs can name them)."""

    def __init__(self, judge: EquivalenceJudge | None) -> None:
        self.judge = judge
        self.backends: list[str] = []
        self.offline = False
        self._verdicts: dict[JudgeQuestion, JudgeVerdict] = {}

    def prefetch(self, questions: list[JudgeQuestion]) -> None:
        """Ask every question not asked yet, in one batch (no-op without a judge)."""
        todo = [q for q in dict.fromkeys(questions) if q not in self._verdicts]
        if not todo or self.judge is None:
            return
        many = getattr(self.judge, "judge_many", None)
        verdicts = list(many(todo)) if callable(many) else [self.judge.judge(q) for q in todo]
        for q, v in zip(todo, verdicts):
            self._verdicts[q] = v
            if v.backend not in self.backends:
                self.backends.append(v.backend)
            self.offline = self.offline or v.offline

    def ask(self, q: JudgeQuestion, key: str) -> JudgeVerdict:
        if self.judge is None:
            raise ReferenceFormatError(f"{key}: fuzzy entries and rule checklists need an equivalence judge")
        self.prefetch([q])
        return self._verdicts[q]


def _answer_text(value: str | list[str]) -> str:
    return value if isinstance(value, str) else ", ".join(value)


def _hopeless(n_given: int, reflen: int) -> bool:
    """True when the select score is 0 however many given items are right (the penalty for
    extra items eats every point): then no judge call is worth making."""
    return min(n_given, reflen) - max(0, n_given - reflen) <= 0


def _pair_questions(entry: ReferenceEntry, answer: str | list[str], given: list[str],
                    refs: list[str]) -> list[tuple[int, int, JudgeQuestion | None]]:
    """Every (given item, reference item) pair: None for pairs equal after normalisation
    (an edge without asking), else the question to ask."""
    raw_refs = {normalize_answer(r): r.strip() for r in split_items(entry.content)}
    raw_given = {normalize_answer(g): g.strip() for g in split_items(answer)}
    return [(i, j, None if g == r else JudgeQuestion("equivalence", raw_refs.get(r, r), raw_given.get(g, g)))
            for i, g in enumerate(given) for j, r in enumerate(refs)]


def _entry_questions(entry: ReferenceEntry, answer: str | list[str] | None) -> list[JudgeQuestion]:
    """The judge questions scoring this entry will ask (so a problem's are asked in one batch)."""
    if answer is None or entry.kind in ("exact", "select"):
        return []
    if entry.kind == "fuzzy":
        text = _answer_text(answer)
        got = normalize_answer(text)
        return [] if not got or got == normalize_answer(entry.content) else [
            JudgeQuestion("equivalence", entry.content, text)]
    given = normalized_items(answer)
    if not entry.minlen <= len(given) <= entry.maxlen or _hopeless(len(given), entry.reflen):
        return []
    return [q for _, _, q in _pair_questions(entry, answer, given, entry.items) if q is not None]


def maximum_matching(edges: list[list[int]], n_right: int) -> int:
    """Size of a maximum matching of a bipartite graph (left vertex ``i`` adjacent to the
    right vertices ``edges[i]``): augmenting paths found by breadth-first search, no
    recursion. Unlike greedy pairing it does not depend on the order of either side."""
    match_left = [-1] * len(edges)
    match_right = [-1] * n_right
    size = 0
    for root in range(len(edges)):
        parent: dict[int, int] = {}
        queue, head, free = [root], 0, -1
        while head < len(queue) and free < 0:
            u = queue[head]
            head += 1
            for r in edges[u]:
                if r in parent:
                    continue
                parent[r] = u
                if match_right[r] < 0:
                    free = r
                    break
                queue.append(match_right[r])
        if free < 0:
            continue
        r = free
        while True:  # flip the path root -> ... -> free
            u = parent[r]
            previous = match_left[u]
            match_left[u], match_right[r] = r, u
            if u == root:
                break
            r = previous
        size += 1
    return size


def score_entry(entry: ReferenceEntry | str, answer: Any,
                judge: EquivalenceJudge | None = None, *, _log: _JudgeLog | None = None) -> EntryScore:
    """Score one solver entry against a reference entry (parsed, or its raw string).

    Never raises on odd answers: numbers, booleans, nested lists and objects are read as
    text (:func:`coerce_answer`); a fuzzy question without a judge, or a judge that fails,
    leaves the entry without a score (``error`` says why).  Only a malformed *reference*
    string raises :class:`ReferenceFormatError`."""
    if isinstance(entry, str):
        entry = parse_reference_entry("answer", entry)
    log = _log or _JudgeLog(judge)
    answer = coerce_answer(answer)
    try:
        return _score_entry(entry, answer, log)
    except Exception as exc:  # noqa: BLE001 - a judge's failure is reported on its entry
        return EntryScore(entry.key, entry.kind, None, entry.content, answer,
                          "no verdict", error=f"{type(exc).__name__}: {str(exc)[:300]}")


def _score_entry(entry: ReferenceEntry, answer: str | list[str] | None, log: _JudgeLog) -> EntryScore:
    if answer is None:
        return EntryScore(entry.key, entry.kind, 0.0, entry.content, None, "no answer")
    where = f"answer[{entry.key!r}]"
    if entry.kind in ("exact", "fuzzy"):
        text = _answer_text(answer)
        got, want = normalize_answer(text), normalize_answer(entry.content)
        if not got:
            return EntryScore(entry.key, entry.kind, 0.0, entry.content, answer, "empty after normalisation")
        if got == want:
            return EntryScore(entry.key, entry.kind, 1.0, entry.content, answer, "equal after normalisation")
        if entry.kind == "exact":
            return EntryScore(entry.key, entry.kind, 0.0, entry.content, answer,
                              f"{_clip(got)!r} != {_clip(want)!r} after normalisation")
        v = log.ask(JudgeQuestion("equivalence", entry.content, text), where)
        if v.error:
            return EntryScore(entry.key, entry.kind, None, entry.content, answer,
                              f"{v.backend}: no verdict", error=v.error)
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
    elif _hopeless(len(given), entry.reflen):
        correct, how = 0, f"not judged: {len(given)} items for reflen {entry.reflen} score 0 in any case"
    else:
        edges: list[list[int]] = [[] for _ in given]
        for i, j, q in _pair_questions(entry, answer, given, refs):
            v = None if q is None else log.ask(q, where)
            if v is not None and v.error:
                return EntryScore(entry.key, entry.kind, None, entry.content, answer,
                                  f"{v.backend}: no verdict for {q.candidate!r} vs {q.reference!r}",
                                  error=v.error)
            if v is None or v.ok:
                edges[i].append(j)
        correct, how = maximum_matching(edges, len(refs)), "judged items, maximum matching"
    score = select_score(correct, len(given), entry.reflen, entry.minlen, entry.maxlen)
    return EntryScore(entry.key, entry.kind, score, entry.content, answer,
                      f"{correct} of {len(given)} given correct ({how}), reflen {entry.reflen}")


def match_problem(reference: ReferenceSolution, solution: SolverSolution,
                  judge: EquivalenceJudge | None = None) -> ProblemScore:
    """Score a solution against a reference; ``judge`` is needed for fuzzy entries and rules.

    Every judge question of the problem (fuzzy entries, fuzzy-select pairs, checklist
    rules) is asked in one batch first, so a judge with ``judge_many`` answers them
    concurrently."""
    if reference.id != solution.id:
        raise InputError(f"solution id {solution.id!r} does not match reference id {reference.id!r}")
    log = _JudgeLog(judge)
    parsed = [(parse_reference_entry(key, raw), solution.answer.get(key)) for key, raw in reference.answer.items()]
    checklist = reference.explanation.rule_checklist
    text = (solution.explanation or "").strip()
    rule_questions = [JudgeQuestion("rule", rule, text) for rule in checklist] if text else []
    log.prefetch([q for e, a in parsed for q in _entry_questions(e, a)] + rule_questions)
    entries = [score_entry(e, a, _log=log) for e, a in parsed]
    scored = [e.score for e in entries if e.score is not None]
    errors = [f"answer[{e.key!r}]: {e.error}" for e in entries if e.error]
    problem = ProblemScore(reference.id, None if errors else sum(scored) / len(entries), entries,
                           extra_keys=sorted(set(solution.answer) - set(reference.answer)), errors=errors)
    if checklist:
        for rule in checklist:
            if not text:
                problem.rules.append(RuleScore(rule, 0.0, "no explanation"))
                continue
            v = log.ask(JudgeQuestion("rule", rule, text), "explanation")
            if v.error:
                problem.rules.append(RuleScore(rule, None, f"{v.backend}: no verdict", v.error))
                problem.errors.append(f"explanation rule {_clip(rule)!r}: {v.error}")
                continue
            problem.rules.append(RuleScore(rule, 1.0 if v.ok else 0.0,
                                           f"{v.backend}: {'satisfied' if v.ok else 'not satisfied'}"))
        rule_scores = [r.score for r in problem.rules]
        problem.explanation_score = (None if any(x is None for x in rule_scores)
                                     else sum(x for x in rule_scores if x is not None) / len(rule_scores))
    problem.judges, problem.offline_judge = log.backends, log.offline
    return problem
