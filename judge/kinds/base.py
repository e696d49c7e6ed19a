"""Problem kinds: each kind of problem is one module behind one small interface, found by
name.

A :class:`ProblemKind` says how its problem files load and validate, how a candidate's reply
becomes a :class:`~judge.candidates.submission.Submission`, what the problem is in a
candidate's language, how a submission is judged on an :class:`~judge.engine.engine.Engine`,
and how its prompt is rendered. ``function`` (typed functions, the seed format) and
``program`` (whole programs on stdin/stdout) are the built-in kinds; an external package
adds one with an entry point in the group ``judge.kinds`` (``name = "package.module:Kind"``).

A problem object says its kind by name (``problem.kind``); :func:`kind_of` is the one way
to its behaviour, so no other module compares kinds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge.candidates.submission import Submission
from judge.engine.engine import Engine
from judge.engine.verdicts import CandidateResult
from judge.errors import InputError, Issue
from judge.problem.model import NoTests
from judge.registry import Registry

#: the problem kinds by name (external ones: entry points in ``judge.kinds``)
KINDS: Registry = Registry("problem kind", group="judge.kinds", factory=True)
KINDS.add("function", "judge.kinds.function.kind:FunctionKind")
KINDS.add("program", "judge.kinds.program.kind:ProgramKind")
KINDS.add("test_program", "judge.kinds.test_program.kind:TestProgramKind")

#: the kind of a problem file that names none (the seed format)
DEFAULT_KIND = "function"


class KindJudge:
    """What a kind opens on an engine (once per engine): judges its problems there."""

    def judge(self, problem: Any, submission: Submission, **meta: Any) -> CandidateResult:
        raise NotImplementedError

    def close(self) -> None:
        return None


class ProblemKind:
    """One kind of problem. Subclasses set :attr:`name` and implement :meth:`load`,
    :meth:`submission`, :meth:`open` and :meth:`prompts`; the rest have defaults."""

    name = ""
    description = ""

    # ---- problem files ---------------------------------------------------------------------

    def load(self, data: dict[str, Any], file: str, root: Path | None = None) -> Any:
        """Validate parsed JSON as a problem of this kind; ``InputError`` with every issue
        (file and JSON location). ``root``: the folder its files are relative to."""
        raise NotImplementedError

    def inline(self, data: dict[str, Any]) -> Any:
        """A problem sent in a request (``judge serve``): data only, nothing that runs in
        the judge's process or reads the server's files; ``InputError`` naming the field.
        Default: refused (a kind says what of its problems is safe to take inline)."""
        raise InputError([Issue("<request>", "problems of kind %r cannot be sent inline: "
                                "load them on the server" % self.name, "kind")])

    def data(self, problem: Any) -> dict[str, Any]:
        """The problem as its file says it (``"kind"`` included unless it is the default)."""
        data = problem.model_dump(mode="json", exclude_none=True)
        if self.name != DEFAULT_KIND:
            data["kind"] = self.name
        return data

    def judgeable(self, problem: Any) -> bool:
        """Whether candidates can be judged (a problem without tests gives no verdict)."""
        return bool(problem.test_count())

    def require_judgeable(self, problem: Any) -> None:
        """:class:`~judge.problem.model.NoTests` when candidates cannot be judged."""
        if not self.judgeable(problem):
            raise NoTests("%s: no tests: the problem has no tests, so its candidates cannot "
                          "be judged (its prompts can still be rendered)" % problem.identifier)

    def summary(self, problem: Any) -> dict[str, Any]:
        """What a listing shows of the problem (``GET /v1/problems``): ``tests``,
        ``function`` (the name to define, if any), ``prompts`` (their ids), ``source``."""
        return {"tests": problem.test_count(), "function": None, "prompts": [],
                "source": getattr(problem, "source", "<memory>")}

    # ---- candidates ------------------------------------------------------------------------

    def submission(self, problem: Any, candidate: Any) -> Submission:
        """The code to judge from a candidate's reply (and the name to call, if any)."""
        raise NotImplementedError

    def in_language(self, problem: Any, language: Any) -> Any:
        """The problem as judged in ``language`` (a :class:`judge.languages.Language`);
        ``NotExpressible`` when the language cannot state it. Default: as it is."""
        return problem

    def reference_solution(self, problem: Any, language: Any) -> str | None:
        """The problem's own solution in ``language``, None when it has none."""
        return None

    # ---- judging ---------------------------------------------------------------------------

    def open(self, engine: Engine) -> KindJudge:
        """This kind's judge on ``engine`` (called once per engine)."""
        raise NotImplementedError

    def judge(self, engine: Engine, problem: Any, submission: Submission,
              **meta: Any) -> CandidateResult:
        return engine.judge_for(self.name, self.open).judge(problem, submission, **meta)

    # ---- prompts ---------------------------------------------------------------------------

    #: its prompts name things a genericized prompt can hide (a function, its parameters)
    has_names = False

    def prompts(self, problem: Any, language: str | None = None,
                genericize: bool = False) -> list[Any]:
        """The problem's prompts in ``language`` (None: the default one), as
        :class:`judge.prompts.render.RenderedPrompt`; ``NotExpressible`` when the language
        cannot state the problem."""
        raise NotImplementedError


def kind_of(problem: Any) -> ProblemKind:
    """The kind of a problem object (``UnknownName`` for a kind no registry knows)."""
    return KINDS.get(problem.kind)


def judge_in(engine: Engine, problem: Any, submission: Submission,
             **meta: Any) -> CandidateResult:
    """Judge a submission on an engine, by the problem's kind."""
    return kind_of(problem).judge(engine, problem, submission, **meta)


__all__ = ["DEFAULT_KIND", "KINDS", "KindJudge", "ProblemKind", "judge_in", "kind_of"]
