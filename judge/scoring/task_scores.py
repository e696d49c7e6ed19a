"""A task's score over several submissions, as CMS and the IOI compute it (pure, no I/O).

One contestant (here: one model) submits a task several times (here: the k samples of a
problem, in the order they were made: the samples' order in the solutions file). The task
score is not always the best single submission. CMS (``cms/grading/scoring.py``,
``task_score``) has three **score modes**, found by name in :data:`SCORE_MODES`:

- ``max_subtask`` (IOI since 2017, CMS ``SCORE_MODE_MAX_SUBTASK``): for each subtask the
  maximum over all submissions of that subtask's score, summed over the subtasks; the
  subtasks may come from different submissions. A submission without a per-subtask
  breakdown counts as one subtask holding its whole score (CMS: "as if the task had a
  single subtask"); one that scored 0 without a breakdown (CMS: did not compile) is passed
  over. A subtask a submission does not report counts 0 for it (CMS: ``max_scores.get(idx,
  0.0)``). huggingface/ioi's ``get_problem_scores`` (the open-r1 IOI evaluation) is the
  same sum of per-subtask maxima of the rounded subtask scores.
- ``max`` (IOI 2013-2016, ``SCORE_MODE_MAX``): the best single submission's score.
- ``max_tokened_last`` (IOI 2010-2012, ``SCORE_MODE_MAX_TOKENED_LAST``): the maximum of the
  last submission's score and of the scores of the tokened submissions (a submission
  without a token flag is not tokened: then it is the last submission's score).

**Rounding** is CMS's, with Python's ``round`` as CMS calls it: each subtask's score is
rounded to the task's ``precision`` (CMS's ``score_precision``: ScoreTypeGroup stores
``round(st_score, score_precision)`` in the details ``max_subtask`` reads), and the task
score is rounded to it again (``task_score(rounded=True)``). ``precision=None`` rounds
nothing. **Ties**: where several submissions reach a maximum, the earliest one is named.

**A submission that was not judged** (``score=None``: an infrastructure failure, the
judge's ``sandbox_error``) is never counted as a 0: it is left out, as if not submitted,
and the result lists it in ``excluded``. This is where the judge differs from CMS for
``max_tokened_last`` only: CMS counts a last submission *not yet scored* as 0 (and flags
the score partial until it is scored); a sandbox error here will never be scored, so the
last *judged* submission is the last one. For ``max`` and ``max_subtask`` leaving it out
and counting it 0 give the same number, as in CMS.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from judge.registry import Registry
from judge.scoring.primitives import ScoringError


@dataclass(frozen=True)
class Part:
    """One subtask's score in one submission (a results line's group below the root)."""

    name: str
    score: float
    max_score: float | None = None


@dataclass(frozen=True)
class Submission:
    """One submission of a task, as judged. ``score=None``: not judged (left out);
    ``parts=None``: no per-subtask breakdown."""

    score: float | None
    parts: tuple[Part, ...] | None = None
    tokened: bool = False


@dataclass(frozen=True)
class SubtaskBest:
    """A subtask's maximum over the submissions and the earliest submission (an index into
    the submissions given) that reached it; None when none scored on it."""

    name: str
    score: float
    max_score: float | None
    submission: int | None


@dataclass(frozen=True)
class TaskScore:
    mode: str
    score: float
    #: per subtask, in the order first seen (``max_subtask`` only; else empty)
    subtasks: list[SubtaskBest] = field(default_factory=list)
    #: the submission whose score is the task's (``max``, ``max_tokened_last``; None when
    #: the score is 0 or comes from several submissions)
    submission: int | None = None
    #: submissions counted, and the indices of those left out (not judged)
    counted: int = 0
    excluded: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"mode": self.mode, "score": self.score,
                                   "counted": self.counted, "excluded": list(self.excluded)}
        if self.subtasks:
            data["subtasks"] = [{"subtask": s.name, "score": s.score,
                                 "max_score": s.max_score, "submission": s.submission}
                                for s in self.subtasks]
        else:
            data["submission"] = self.submission
        return data


Mode = Callable[[Sequence[Submission], "int | None"], TaskScore]
#: score mode name -> function(submissions, precision) -> TaskScore
SCORE_MODES: Registry[Mode] = Registry("score mode", group="judge.score_modes")
#: the default mode of reports (IOI since 2017)
DEFAULT_MODE = "max_subtask"


def _round(value: float, precision: int | None) -> float:
    return float(value) if precision is None else float(round(value, precision))


def _judged(submissions: Sequence[Submission]) -> tuple[list[int], list[int]]:
    counted = [i for i, s in enumerate(submissions) if s.score is not None]
    return counted, [i for i, s in enumerate(submissions) if s.score is None]


@SCORE_MODES.register("max")
def task_score_max(submissions: Sequence[Submission], precision: int | None = None
                   ) -> TaskScore:
    """The best single submission (CMS ``_task_score_max``: starts at 0.0)."""
    counted, excluded = _judged(submissions)
    best, which = 0.0, None
    for i in counted:
        score = submissions[i].score
        assert score is not None
        if score > best:
            best, which = score, i
    return TaskScore("max", _round(best, precision), submission=which,
                     counted=len(counted), excluded=excluded)


@SCORE_MODES.register("max_subtask")
def task_score_max_subtask(submissions: Sequence[Submission], precision: int | None = None
                           ) -> TaskScore:
    """The sum over subtasks of the per-subtask maximum (CMS ``_task_score_max_subtask``).
    Submissions that mix a breakdown and none (with points) are refused: CMS's single-
    subtask fallback would add a whole score to the subtasks' sum."""
    counted, excluded = _judged(submissions)
    best: dict[str, list[object]] = {}  # name -> [score, max_score, submission]
    whole: list[int] = []
    broken: list[int] = []
    for i in counted:
        sub = submissions[i]
        assert sub.score is not None
        if not sub.parts:
            if sub.score == 0.0:
                continue  # CMS: "Submission did not compile, ignore it."
            whole.append(i)
            parts: tuple[Part, ...] = (Part("", sub.score),)
        else:
            broken.append(i)
            parts = sub.parts
        for part in parts:
            value = _round(part.score, precision)
            entry = best.setdefault(part.name, [0.0, part.max_score, None])
            if entry[1] is None and part.max_score is not None:
                entry[1] = part.max_score
            if value > entry[0]:  # type: ignore[operator]
                entry[0], entry[2] = value, i
    if whole and broken:
        raise ScoringError(
            "submission %d has a score but no per-subtask breakdown while submission %d "
            "has one: the subtasks cannot be matched" % (whole[0] + 1, broken[0] + 1))
    subtasks = [SubtaskBest(name, float(s), m, w)  # type: ignore[arg-type]
                for name, (s, m, w) in best.items()]
    total = _round(sum(s.score for s in subtasks), precision)
    return TaskScore("max_subtask", total, subtasks if broken else [],
                     submission=subtasks[0].submission if subtasks and not broken else None,
                     counted=len(counted), excluded=excluded)


@SCORE_MODES.register("max_tokened_last")
def task_score_max_tokened_last(submissions: Sequence[Submission],
                                precision: int | None = None) -> TaskScore:
    """The maximum of the last judged submission's score and of the tokened ones' (CMS
    ``_task_score_max_tokened_last``; a submission not judged is left out, see the module
    doc)."""
    counted, excluded = _judged(submissions)
    if not counted:
        return TaskScore("max_tokened_last", _round(0.0, precision), counted=0,
                         excluded=excluded)
    last = counted[-1]
    best, which = submissions[last].score or 0.0, last
    for i in counted:
        score = submissions[i].score
        assert score is not None
        if submissions[i].tokened and score > best:
            best, which = score, i
    return TaskScore("max_tokened_last", _round(best, precision),
                     submission=which if best > 0 else None, counted=len(counted),
                     excluded=excluded)


def task_score(mode: str, submissions: Sequence[Submission], precision: int | None = None
               ) -> TaskScore:
    """The task score of ``submissions`` (in the order made) under the score mode ``mode``
    (an unknown name is :class:`judge.errors.UnknownName`, suggesting the closest)."""
    if precision is not None and (not isinstance(precision, int) or precision < 0):
        raise ScoringError("the score precision must be a whole number of digits >= 0, "
                           "not %r" % (precision,))
    return SCORE_MODES.get(mode)(submissions, precision)


def modes() -> list[str]:
    return SCORE_MODES.names()


__all__ = ["DEFAULT_MODE", "Part", "SCORE_MODES", "Submission", "SubtaskBest", "TaskScore",
           "modes", "task_score", "task_score_max", "task_score_max_subtask",
           "task_score_max_tokened_last"]
