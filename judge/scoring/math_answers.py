"""AIME-style math tasks: task files, number extraction, and the benchmark object.

Why this module exists: ``shared/seeds/aime-benchmark.md`` defines integer-answer tasks
(0..999) scored by "any number in the output matches the expected answer".  That rule gives
credit for "I considered 70 but the answer is 12" and for listing 0..999, so this module
also offers - and defaults to - a **final** mode that extracts the final answer first.

Modes (the result always says which one scored):

* ``"final"`` (default): the final answer is the content of the last ``\\boxed{...}`` (or
  ``\\fbox{...}``, nested braces handled; its last number), else the first number after the
  last "answer is" / "answer:" / "answer =" phrase, else the last number in the text.
  A ``\\boxed{}`` without a number is a non-numeric final answer and scores 0.
* ``"any"``: the document's rule - any extracted number equal to the answer scores.

Number extraction and normalisation (:func:`extract_numbers`), in order of appearance:
integers, decimals that equal integers (``"42.0"``), fractions ``"84/2"`` and
``\\frac{84}{2}`` (also ``\\dfrac``/``\\tfrac`` and ``\\frac12``), negative numbers
(``-5``, also the unicode minus; a ``-`` right after a digit, letter or closing bracket is
subtraction, not a sign), thousands separators ``1,000`` / ``1{,}000`` / ``1\\,000`` (a comma
followed by exactly three digits; ``1,2,3`` stays three numbers).  Values are exact
``fractions.Fraction`` so ``0.1 + 0.2`` style float noise cannot create false matches.
A fraction with a zero denominator is not a number.

Task file: the JSON layout of the seed document (``task_id``, ``question``,
``evaluator_type: "aime"``, ``ground_truth`` as a string of an integer 0..999,
``metadata.subset``, ``metadata.problem_number``, ...), one file per task in a directory.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from judge.errors import InputFault
from judge.resources import examples_dir
from judge.scoring.primitives import InputError, read_json, read_jsonl, validation_message

Mode = Literal["final", "any"]
MODES: tuple[str, ...] = ("final", "any")

# --------------------------------------------------------------------------------------
# Number extraction
# --------------------------------------------------------------------------------------

#: a number with more significant digits than this is kept as text and never equals an
#: answer: AIME answers are integers 0..999, and exact arithmetic on a runaway digit string
#: would hit Python's int-to-text limit (4,300 digits) or cost quadratic time
MAX_DIGITS = 100

_SIGN = r"(?:(?<![\w)\]}])-)?"
_UNSIGNED = r"(?:(?<![\d.])(?:\d{1,3}(?:,\d{3})+(?![\d])|\d+)(?:\.\d+)?|(?<![\d.])\.\d+)"
_NUM = _SIGN + _UNSIGNED
_TOKEN = re.compile(
    r"\\frac\s*\{\s*(?P<fn>-?" + _UNSIGNED + r")\s*\}\s*\{\s*(?P<fd>-?" + _UNSIGNED + r")\s*\}"
    r"|\\frac(?P<sn>\d)(?P<sd>\d)"
    r"|(?P<an>" + _NUM + r")\s*/\s*(?P<ad>-?" + _UNSIGNED + r")"
    r"|(?P<num>" + _NUM + r")"
)
_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
_BRACE = re.compile(r"[{}]")
_PHRASE = re.compile(r"\banswer\b\s*(?:is\b|:|=)", re.IGNORECASE)
# An arithmetic chain right after an answer phrase, on one line: "3 + 67 = 70", "2 \cdot 35 = 70".
# Its atoms cannot contain "=", so the split points are forced and matching stays linear.
_ATOM = r"(?:[\d \t.,+\-*/×÷·^()\[\]{}$]|\\(?:cdot|times|div|frac|left|right))"
_CHAIN = re.compile(_ATOM + r"+(?:=" + _ATOM + r"+)+")


def _prepare(text: str) -> str:
    """Unify LaTeX spellings so one regex sees them: separators, minus signs, frac variants."""
    text = text.replace("\u2212", "-").replace("{,}", ",")
    text = re.sub(r"(?<=\d)\\[,!;: ](?=\d{3}(?!\d))", "", text)
    return re.sub(r"\\[dt]frac\b", r"\\frac", text)


def _to_fraction(s: str) -> Fraction | int | None:
    """The exact value of a decimal such as ``-1,000.50`` (an ``int`` when it is whole);
    None past :data:`MAX_DIGITS` significant digits (counted without leading and trailing
    zeros, so ``70.000`` is 70 at any length of zeros). Never converts a long digit string
    to an int."""
    if s.isdigit():  # the common case, kept fast: a plain integer
        if len(s) > MAX_DIGITS:
            s = s.lstrip("0") or "0"
        return int(s) if len(s) <= MAX_DIGITS else None
    s = s.replace(",", "")
    negative = s.startswith("-")
    whole, _, decimals = s.lstrip("-").partition(".")
    whole, decimals = whole.lstrip("0"), decimals.rstrip("0")
    if len(whole) + len(decimals) > MAX_DIGITS:
        return None
    if not decimals:
        value: Fraction | int = int(whole or "0")
    else:
        scale = 10 ** len(decimals)
        value = Fraction(int(whole or "0") * scale + int(decimals), scale)
    return -value if negative else value


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else f"{text[:20]}...{text[-10:]} ({len(text)} characters)"


class ExtractedNumber(NamedTuple):
    """A number found in text: its exact value (None when it has more than
    :data:`MAX_DIGITS` digits), the text it came from (shortened when long) and where.
    (A named tuple: output with runaway numbers makes hundreds of thousands of them.)"""

    value: Fraction | int | None
    text: str
    start: int = 0


def _tokens(prepared: str) -> list[ExtractedNumber]:
    out: list[ExtractedNumber] = []
    append = out.append
    for m in _TOKEN.finditer(prepared):
        kind = m.lastgroup
        if kind == "num":
            text = m.group(0)
            append(ExtractedNumber(_to_fraction(text), text if len(text) <= 40 else _short(text), m.start()))
            continue
        if kind == "fd":
            num, den = _to_fraction(m.group("fn")), _to_fraction(m.group("fd"))
        elif kind == "sd":
            num, den = int(m.group("sn")), int(m.group("sd"))
        else:
            num, den = _to_fraction(m.group("an")), _to_fraction(m.group("ad"))
        if den == 0:
            continue  # a zero denominator is not a number
        value = None if num is None or den is None else Fraction(num, den)
        if value is not None and value.denominator == 1:
            value = value.numerator
        out.append(ExtractedNumber(value, _short(m.group(0)), m.start()))
    return out


def extract_numbers(text: str) -> list[ExtractedNumber]:
    """All numbers in ``text`` in order of appearance, fractions evaluated exactly.
    One pass over the text: linear time."""
    return _tokens(_prepare(text))


def format_number(value: Fraction | int) -> str:
    """``42`` for integers, ``7/2`` otherwise (used in explanations)."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _last_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` with balanced braces, or None.

    Every brace is matched in one left-to-right pass (a stack), so many unclosed
    ``\\boxed{`` cost linear time, not one scan to the end of the text each."""
    opens = {m.end() - 1 for m in _BOX.finditer(text)}
    if not opens:
        return None
    closing: dict[int, int] = {}
    stack: list[int] = []
    for m in _BRACE.finditer(text):
        if m.group() == "{":
            stack.append(m.start())
        elif stack:
            start = stack.pop()
            if start in opens:
                closing[start] = m.start()
    if not closing:
        return None
    start = max(closing)
    return text[start + 1:closing[start]]


@dataclass(frozen=True)
class FinalAnswer:
    """The final answer of a response, how it was found, and its number (None if non-numeric
    or longer than :data:`MAX_DIGITS` digits)."""

    value: Fraction | int | None
    how: Literal["boxed", "answer phrase", "last number", "none"]
    text: str
    overlong: bool = False  # the final answer is a number of more than MAX_DIGITS digits


def _after_phrase(prepared: str, numbers: list[ExtractedNumber]) -> ExtractedNumber | None:
    """The answer after the last "answer is"/"answer:"/"answer =" that has a number after it:
    the first such number, or, when the phrase opens an arithmetic chain on its line
    (``Final answer: 3 + 67 = 70``), the first number after the chain's last ``=``."""
    if not numbers:
        return None
    last_start = numbers[-1].start
    chosen = None
    for m in _PHRASE.finditer(prepared):
        if m.end() > last_start:
            break
        chosen = m
    if chosen is None:
        return None
    starts = [n.start for n in numbers]
    first = bisect.bisect_left(starts, chosen.end())
    chain = _CHAIN.match(prepared, chosen.end())
    if chain is not None:
        after = bisect.bisect_left(starts, prepared.rfind("=", chosen.end(), chain.end()) + 1)
        if after < len(numbers) and numbers[after].start < chain.end():
            return numbers[after]
    return numbers[first]


def extract_final_answer(text: str) -> FinalAnswer:
    """Last ``\\boxed{}``, else the answer after the last "answer is"/"answer:", else the
    last number. Linear time in the length of ``text`` (see ``benchmarks/extraction_answers.py``)."""
    prepared = _prepare(text)
    boxed = _last_boxed(prepared)
    if boxed is not None:
        nums = _tokens(boxed)
        if not nums:
            return FinalAnswer(None, "boxed", _short(boxed))
        return FinalAnswer(nums[-1].value, "boxed", _short(boxed), nums[-1].value is None)
    nums = _tokens(prepared)
    phrase = _after_phrase(prepared, nums)
    if phrase is not None:
        return FinalAnswer(phrase.value, "answer phrase", phrase.text, phrase.value is None)
    if nums:
        return FinalAnswer(nums[-1].value, "last number", nums[-1].text, nums[-1].value is None)
    return FinalAnswer(None, "none", "")


# --------------------------------------------------------------------------------------
# Tasks
# --------------------------------------------------------------------------------------


def _parse_answer(value: Any) -> int:
    """An integer answer 0..999 from ``"70"``, ``70``, ``"070"`` or ``"70.0"``; ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"answer must be an integer 0..999 (string or number), got {type(value).__name__}")
    if isinstance(value, int):
        if not 0 <= value <= 999:
            raise ValueError("answer must be in 0..999, got %s" % ("a negative number" if value < 0
                                                                   else "a number above 999"))
        return value
    s = value.strip()
    if not re.fullmatch(r"\d+(?:\.0+)?", s):
        raise ValueError(f"answer must be an integer 0..999, got {_short(value)!r}")
    digits = s.partition(".")[0].lstrip("0") or "0"
    if len(digits) > 3:
        raise ValueError(f"answer must be in 0..999, got {_short(s)}")
    return int(digits)


class TaskMetadata(BaseModel):
    """``metadata``: the exam (subset) and the problem's number in it."""

    model_config = ConfigDict(extra="allow")
    subset: str = Field(min_length=1)
    problem_number: int = Field(ge=1)


class AIMETask(BaseModel):
    """One task file; ``ground_truth`` is normalised to the canonical integer string."""

    model_config = ConfigDict(extra="allow")
    task_id: str = Field(min_length=1)
    question: str
    evaluator_type: Literal["aime"] = "aime"
    source: str | None = None
    domain: str | None = "mathematics"
    level: Any = None
    ground_truth: str
    file_path: str | None = None
    metadata: TaskMetadata
    evaluator_config: dict[str, Any] | None = None

    @field_validator("ground_truth", mode="before")
    @classmethod
    def _answer(cls, v: Any) -> str:
        return str(_parse_answer(v))

    @property
    def answer(self) -> int:
        """The expected integer."""
        return int(self.ground_truth)


def load_task(path: str | Path) -> AIMETask:
    """Read one task file; errors name the file and the JSON location."""
    data = read_json(path)
    try:
        return AIMETask.model_validate(data)
    except ValidationError as exc:
        raise InputError(validation_message(exc, prefix=f"{path}: ")) from exc


@dataclass(frozen=True)
class EvaluationResult:
    """Outcome of one output: score 1.0/0.0, why, the mode used and the number that decided."""

    task_id: str
    score: float
    score_explanation: str
    mode: str
    extracted: str | None
    expected: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(self.__dict__)


def evaluate_answer(output: str, expected: int, mode: Mode = "final", task_id: str = "") -> EvaluationResult:
    """Score ``output`` against the integer ``expected`` in the given mode."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if not isinstance(output, str):
        raise InputError(f"output for {task_id or 'task'} must be a string, got {type(output).__name__}")
    exp = str(expected)
    if mode == "any":
        nums = extract_numbers(output)
        for n in nums:
            if n.value is not None and n.value == expected:
                return EvaluationResult(task_id, 1.0, f"any mode: {n.text!r} equals {exp}", mode,
                                        format_number(n.value), exp)
        seen = ", ".join(_shown(n) for n in nums[:10]) + (", ..." if len(nums) > 10 else "")
        return EvaluationResult(task_id, 0.0, f"any mode: none of the numbers ({seen or 'no numbers'}) "
                                              f"equals {exp}", mode, None, exp)
    fa = extract_final_answer(output)
    if fa.value is None:
        if fa.how == "none":
            what = "no number found"
        elif fa.overlong:
            what = f"final answer ({fa.how}) {fa.text!r} has more than {MAX_DIGITS} digits"
        else:
            what = f"final answer {fa.how} {fa.text!r} has no number"
        return EvaluationResult(task_id, 0.0, f"final mode: {what}", mode, None, exp)
    got = format_number(fa.value)
    ok = fa.value == expected
    verdict = "equals" if ok else "does not equal"
    return EvaluationResult(task_id, 1.0 if ok else 0.0,
                            f"final mode: final answer ({fa.how}) {got} {verdict} {exp}", mode, got, exp)


def _shown(n: ExtractedNumber) -> str:
    return format_number(n.value) if n.value is not None else f"{n.text} (over {MAX_DIGITS} digits)"


class UnknownTaskError(InputFault, KeyError):
    """A task id that the benchmark does not have."""

    code = "unknown_task"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown task"


def default_tasks_dir() -> Path:
    """The shipped sample task set (inside an installed wheel, or in the checkout)."""
    return examples_dir() / "math" / "aime_sample" / "tasks"


class AIMEBenchmark:
    """A directory of AIME-style task files with the seed document's API.

    Why a class: callers look tasks up by id, by subset and by problem number; loading and
    validating once keeps every lookup cheap and every error at load time.
    """

    def __init__(self, tasks_dir: str | Path | None = None, *, mode: Mode = "final") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode: Mode = mode
        self.tasks_dir = Path(tasks_dir) if tasks_dir is not None else default_tasks_dir()
        if not self.tasks_dir.is_dir():
            raise InputError(f"{self.tasks_dir}: not a directory of task files")
        self._tasks: dict[str, AIMETask] = {}
        origin: dict[str, Path] = {}
        slots: dict[tuple[str, int], Path] = {}
        for path in sorted(self.tasks_dir.glob("*.json")):
            task = load_task(path)
            if task.task_id in origin:
                raise InputError(f"{path}: task_id {task.task_id!r} already used by {origin[task.task_id]}")
            slot = (task.metadata.subset, task.metadata.problem_number)
            if slot in slots:
                raise InputError(f"{path}: {slot[0]} problem {slot[1]} already defined by {slots[slot]}")
            origin[task.task_id], slots[slot] = path, path
            self._tasks[task.task_id] = task
        if not self._tasks:
            raise InputError(f"{self.tasks_dir}: no *.json task files")

    def _order(self, task_id: str) -> tuple[str, int, str]:
        t = self._tasks[task_id]
        return (t.metadata.subset, t.metadata.problem_number, t.task_id)

    def get_task_ids(self) -> list[str]:
        """All task ids, ordered by subset then problem number."""
        return sorted(self._tasks, key=self._order)

    def get_task(self, task_id: str) -> AIMETask:
        """The task with this id; :class:`UnknownTaskError` otherwise."""
        try:
            return self._tasks[task_id]
        except KeyError:
            raise UnknownTaskError(f"unknown task id {task_id!r} (not in {self.tasks_dir})") from None

    def evaluate(self, task_id: str, output: str, mode: Mode | None = None) -> EvaluationResult:
        """Score one model output for ``task_id`` (mode defaults to the benchmark's)."""
        task = self.get_task(task_id)
        return evaluate_answer(output, task.answer, mode or self.mode, task_id)

    def get_subsets(self) -> list[str]:
        """Subset names, sorted."""
        return sorted({t.metadata.subset for t in self._tasks.values()})

    def get_tasks_by_subset(self, subset: str) -> list[str]:
        """Task ids of one subset in problem-number order (empty for an unknown subset)."""
        return [tid for tid in self.get_task_ids() if self._tasks[tid].metadata.subset == subset]

    def get_problem_numbers(self) -> dict[str, list[int]]:
        """``{subset: [problem numbers...]}``, sorted."""
        out: dict[str, list[int]] = {}
        for tid in self.get_task_ids():
            t = self._tasks[tid]
            out.setdefault(t.metadata.subset, []).append(t.metadata.problem_number)
        return out

    def get_task_info(self, task_id: str) -> dict[str, Any]:
        """The fields the seed document lists for a task."""
        t = self.get_task(task_id)
        return {"question": t.question, "ground_truth": t.ground_truth, "source": t.source,
                "domain": t.domain, "subset": t.metadata.subset,
                "problem_number": t.metadata.problem_number}


# --------------------------------------------------------------------------------------
# Scoring a file of outputs
# --------------------------------------------------------------------------------------


@dataclass
class OutputsReport:
    """Accuracy per task, per subset and overall, plus every problem found in the outputs file.

    A task with no output line scores 0 (``n == 0``) so that skipping tasks never raises
    accuracy; a task with several lines scores the mean of them.
    """

    mode: str
    results: list[EvaluationResult] = field(default_factory=list)
    per_task: dict[str, dict[str, Any]] = field(default_factory=dict)
    per_subset: dict[str, float] = field(default_factory=dict)
    overall: float = 0.0
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"mode": self.mode, "overall": self.overall, "per_subset": self.per_subset,
                "per_task": self.per_task, "results": [r.to_dict() for r in self.results],
                "errors": self.errors}


def score_outputs(bench: AIMEBenchmark, path: str | Path, mode: Mode | None = None) -> OutputsReport:
    """Score an outputs JSON Lines file (``{"task_id": ..., "output": ...}`` per line).

    Bad lines and unknown task ids are collected in ``errors`` (``file:line: ...``) and the
    other lines are still scored.
    """
    used = mode or bench.mode
    report = OutputsReport(mode=used)
    scores: dict[str, list[float]] = {tid: [] for tid in bench.get_task_ids()}
    for line in read_jsonl(path):
        where = f"{path}:{line.number}"
        if line.issue is not None:
            report.errors.append(str(line.issue))
            continue
        row = line.value
        missing = [k for k in ("task_id", "output") if k not in row]
        if missing:
            report.errors.append(f"{where}: missing key(s) {', '.join(missing)}")
            continue
        tid, out = row["task_id"], row["output"]
        if not isinstance(tid, str) or not isinstance(out, str):
            report.errors.append(f"{where}: task_id and output must be strings")
            continue
        if tid not in scores:
            report.errors.append(f"{where}: unknown task id {tid!r}")
            continue
        res = bench.evaluate(tid, out, used)
        report.results.append(res)
        scores[tid].append(res.score)
    for tid, vals in scores.items():
        t = bench.get_task(tid)
        report.per_task[tid] = {"subset": t.metadata.subset, "problem_number": t.metadata.problem_number,
                                "n": len(vals), "accuracy": sum(vals) / len(vals) if vals else 0.0}
    for subset in bench.get_subsets():
        ids = bench.get_tasks_by_subset(subset)
        report.per_subset[subset] = sum(report.per_task[i]["accuracy"] for i in ids) / len(ids)
    report.overall = sum(v["accuracy"] for v in report.per_task.values()) / len(report.per_task)
    return report


# --------------------------------------------------------------------------------------
# Importer for the common JSON Lines layout
# --------------------------------------------------------------------------------------

_ID_KEYS = ("id", "ID", "problem_id", "task_id")
_PROBLEM_KEYS = ("problem", "Problem", "question", "Question")
_ANSWER_KEYS = ("answer", "Answer", "ground_truth")


def _first(row: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for k in keys:
        if k in row:
            return row[k]
    return None


def _slug(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")


def import_jsonl(src: str | Path, out_dir: str | Path, *, subset: str, source: str = "imported",
                 id_prefix: str | None = None, overwrite: bool = False) -> list[Path]:
    """Convert a JSON Lines file of ``{"id", "problem", "answer"}`` rows into task files.

    Also accepts ``ID``/``Problem``/``Answer`` (and ``question``) spellings.  The problem
    number is the row's ``problem_number`` if present, else its position (1-based) in the
    file; the task id is ``{id_prefix or subset}_{id}`` slugged.  Every line is validated
    before any file is written, so a bad file writes nothing; errors name ``file:line``.
    """
    prefix = _slug(id_prefix or subset)
    tasks: list[AIMETask] = []
    errors: list[str] = []
    for position, line in enumerate(read_jsonl(src), start=1):
        where = f"{src}:{line.number}"
        if line.issue is not None:
            errors.append(str(line.issue))
            continue
        row = line.value
        rid, problem, answer = _first(row, _ID_KEYS), _first(row, _PROBLEM_KEYS), _first(row, _ANSWER_KEYS)
        if rid is None or problem is None or answer is None:
            errors.append(f"{where}: needs keys id, problem and answer")
            continue
        try:
            task = AIMETask(task_id=f"{prefix}_{_slug(str(rid))}", question=str(problem),
                            source=source, ground_truth=answer,
                            metadata=TaskMetadata(subset=subset,
                                                  problem_number=int(row.get("problem_number", position))))
        except (ValidationError, ValueError, TypeError, OverflowError) as exc:
            msg = validation_message(exc) if isinstance(exc, ValidationError) else str(exc)
            errors.append(f"{where}: {msg}")
            continue
        tasks.append(task)
    ids = [t.task_id for t in tasks]
    dupes = sorted(i for i, k in Counter(ids).items() if k > 1)
    if dupes:
        errors.append(f"{src}: duplicate task ids after import: {', '.join(dupes)}")
    if errors:
        raise InputError("\n".join(errors))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{t.task_id}.json" for t in tasks]
    clash = [p for p in paths if p.exists()]
    if clash and not overwrite:
        raise InputError(f"{clash[0]}: already exists (pass overwrite=True to replace)")
    for t, p in zip(tasks, paths):
        p.write_text(t.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return paths
