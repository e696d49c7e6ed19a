"""What both integrations share: one warm :class:`judge.Judge` per configuration, closed at
exit, and a result turned into a score's metadata."""

from __future__ import annotations

import atexit
import threading
from typing import Any

from judge.api import Judge
from judge.errors import InfrastructureFault
from judge.engine.verdicts import CandidateResult, Verdict

_LOCK = threading.Lock()
_JUDGES: dict[tuple[Any, ...], Judge] = {}


class NotJudged(InfrastructureFault, RuntimeError):
    """The judge could not judge a candidate (a ``sandbox_error``: our infrastructure, never
    the candidate's fault): the framework records an error, not a score."""

    code = "not_judged"


def shared_judge(suite: Any = None, sandbox: str = "auto", jobs: int = 1,
                 **options: Any) -> Judge:
    """A Judge opened once per (suite, sandbox, jobs, options) and kept warm for the
    process; closed at exit (its workers and containers with it)."""
    key = (repr(suite), sandbox, jobs, tuple(sorted((k, repr(v)) for k, v in options.items())))
    with _LOCK:
        judge = _JUDGES.get(key)
        if judge is None:
            judge = _JUDGES[key] = Judge(sandbox, jobs, suite=suite, **options)
        return judge


def close_all() -> None:
    """Close every shared Judge (also done at exit)."""
    with _LOCK:
        judges = list(_JUDGES.values())
        _JUDGES.clear()
    for judge in judges:
        judge.close()


atexit.register(close_all)


def checked(result: CandidateResult) -> CandidateResult:
    if result.verdict is Verdict.SANDBOX_ERROR:
        raise NotJudged("%s: the judge could not judge this candidate (sandbox_error: %s)"
                        % (result.problem_id, result.message or "no detail"))
    return result


def result_metadata(result: CandidateResult) -> dict[str, Any]:
    """The per-test results and the verdict, as a score's metadata (JSON-compatible)."""
    line = result.to_json()
    return {
        "problem_id": result.problem_id,
        "verdict": result.verdict.value,
        "passed": result.passed,
        "total": result.total,
        "message": line.get("message"),
        "tests": line.get("tests", []),
        "time_s": line.get("time_s"),
        "sandbox": line.get("sandbox"),
    }


def default_suite() -> str:
    """The shipped ``basics`` suite (a small task that runs anywhere)."""
    from judge.resources import shipped_problems

    return str(shipped_problems() / "basics")


def prompt_rows(suite: str, language: str | None = None, genericize: bool = False,
                all_prompts: bool = False) -> list[dict[str, Any]]:
    """One row per problem of ``suite`` (its first prompt; every prompt with
    ``all_prompts``) as a model sees it: ``problem_id``, ``prompt_id``, ``prompt``,
    ``language`` (problems ``language`` cannot express are left out)."""
    from judge.languages import get
    from judge.kinds.loader import load_suite
    from judge.prompts.render import render_prompts

    loaded = load_suite(suite)
    lang = get(language)
    if lang.default:
        prompts = render_prompts(loaded, genericize=genericize)
    else:
        from judge.prompts.languages import render_language_prompts

        prompts, _ = render_language_prompts(loaded, lang.name, genericize)
    if not all_prompts:
        seen: set[str] = set()
        prompts = [p for p in prompts if not (p.problem_id in seen or seen.add(p.problem_id))]
    return [{"problem_id": p.problem_id, "prompt_id": p.prompt_id, "prompt": p.prompt,
             "language": lang.name} for p in prompts]
