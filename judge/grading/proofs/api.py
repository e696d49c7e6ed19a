"""Grading many solutions (bounded concurrency, input order kept) and the one-call Python API."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterable

from judge.grading.client import LLMConfig
from judge.grading.proofs.engine import Engine, EngineSettings
from judge.grading.proofs.inputs import ProofProblem, ProofSolution
from judge.grading.proofs.workflows import WORKFLOWS, Grader, SolutionGrade, ensemble

DEFAULT_CACHE = Path.home() / ".cache" / "judge" / "proofs"


def check_workflows(names: Iterable[str]) -> list[str]:
    """The registered names of ``names`` (aliases resolved, repeats dropped); an unknown
    one is an UnknownName (a ValueError) suggesting the closest, one whose package cannot be
    imported a RegistryLoadError."""
    out = []
    for n in names:
        n = WORKFLOWS.canonical(n.strip())
        WORKFLOWS.get(n)
        if n not in out:
            out.append(n)
    return out


def grade_many(grader: Grader, problems: dict[str, ProofProblem], solutions: list[tuple[int, ProofSolution]],
               workflows: list[str], ensemble_of: list[str] | None = None, concurrency: int = 4,
               on_result: Callable[[SolutionGrade], None] | None = None) -> list[SolutionGrade]:
    """Every solution by every workflow (plus the ensemble), ``concurrency`` solutions at a time.

    Results come back (and ``on_result`` is called) in input order: per solution, the
    workflows in the order given, then the ensemble."""
    needed = list(dict.fromkeys(list(workflows) + list(ensemble_of or [])))
    ens_name = "ensemble(" + "+".join(ensemble_of) + ")" if ensemble_of else None

    def one(item: tuple[int, ProofSolution]) -> list[SolutionGrade]:
        line, sol = item
        by_wf = {}
        for wf in needed:
            g = grader.grade(problems[sol.problem_id], sol, wf)
            g.line = line
            by_wf[wf] = g
        out = [by_wf[wf] for wf in workflows]
        if ensemble_of:
            out.append(ensemble([by_wf[wf] for wf in ensemble_of], ens_name))
        return out

    results: list[SolutionGrade] = []
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="grade")
    try:
        for batch in pool.map(one, solutions):
            for g in batch:
                results.append(g)
                if on_result:
                    on_result(g)
    except BaseException:
        # Ctrl-C or a failing callback: drop what has not started, do not wait for it
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return results


def _problem(p: Any) -> ProofProblem:
    if isinstance(p, ProofProblem):
        return p
    data = dict(p)
    data.setdefault("problem_id", "problem")
    return ProofProblem.model_validate(data)


def grade_proof(problem: Any, solution: Any, workflow: str = "ref5-milestones", *, model: str | None = None,
                base_url: str | None = None, api_key: str | None = None, cache_dir: str | Path | None = None,
                offline: bool = False, samples: int = 1, ensemble_of: list[str] | None = None,
                engine: Engine | None = None, **llm: Any) -> SolutionGrade:
    """Grade one proof; returns the grade (0-7, ``.grade``), ``.reward`` in [0, 1] and the
    artefacts (matched cluster, rubric, errors, feedback, the full report).  A grading error
    is ``.error`` with ``.grade`` and ``.reward`` None - never a made-up zero.

    ``problem``: a :class:`ProofProblem` or a dict with ``statement`` and ``references``;
    ``solution``: the proof text (or a dict with ``solution``).  Model settings come from the
    arguments or ``JUDGE_LLM_*``; calls are cached in ``cache_dir`` (default
    ``~/.cache/judge/proofs``)."""
    prob = _problem(problem)
    text = solution["solution"] if isinstance(solution, dict) else str(solution)
    sid = solution.get("solution_id", "solution") if isinstance(solution, dict) else "solution"
    sol = ProofSolution(problem_id=prob.problem_id, solution_id=sid, solution=text)
    own = engine is None
    if engine is None:
        cfg = LLMConfig.from_env(base_url=base_url, model=model, api_key=api_key, use_cache=False, **llm)
        engine = Engine(EngineSettings(cfg, cache_dir=Path(cache_dir) if cache_dir else DEFAULT_CACHE,
                                       offline=offline))
    try:
        grader = Grader(engine, samples=samples)
        wfs = check_workflows(ensemble_of or [workflow])
        return grade_many(grader, {prob.problem_id: prob}, [(0, sol)], [] if ensemble_of else wfs,
                          ensemble_of=wfs if ensemble_of else None, concurrency=1)[0]
    finally:
        if own:
            engine.close()
