"""The RefGrader workflows (paper sections 5.1-5.4) as pipelines of :class:`Engine` steps.

=====================  ===========================================================
workflow               steps (per problem: cached; per solution: run each time)
=====================  ===========================================================
single                 grade (no reference)
ref3                   cluster* -> match -> grade with the matched reference
ref5-plain             cluster* -> match -> analysis* -> rubric* -> grade with rubric
ref5-approachability   as ref5-plain; analysis rates each main step 1-5 and the rubric
                       splits the 7 points in proportion to those ratings
ref5-milestones        plain analysis, milestone rubric
ref5-hybrid            approachability analysis, milestone rubric
=====================  ===========================================================

``*`` marks per-problem steps.  Analysis and rubric are per (problem, matched cluster): they
are built the first time a solution matches that cluster and reused (memory, then disk cache).
Matching is skipped when clustering found a single strategy (there is nothing to choose).
``samples=K`` asks the final grading step K times (seeds 1..K-1 after the unseeded first, at
temperature 0.7 unless another is given) and averages; any failed sample makes the solution a
grading error (no partial average).  Only the grading step is sampled, as in the paper (section
5.4, "sampling and averaging the grader steps"): clustering, matching, analysis and rubric ask
at temperature 0 whatever K is, so their cached replies serve every K.

Workflows are found by name in :data:`WORKFLOWS` (aliases: ``ref5`` is ``ref5-plain``,
``no-reference`` is ``single``); a package adds one through the ``judge.workflows`` entry
point group.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from judge.grading.proofs.engine import Engine, StepError
from judge.grading.proofs.inputs import ProofProblem, ProofSolution
from judge.grading.proofs.schemas import (
    ApproachabilityAnalysis, Cluster, ClusterList, GradeReport, Match, ReplyInvalid, Rubric, SolutionAnalysis,
)
from judge.registry import Registry


#: workflow name -> its :class:`Workflow` (a class registered here is made once, on first use)
WORKFLOWS: Registry["Workflow"] = Registry("workflow", group="judge.workflows", factory=True)


class Workflow:
    """A grading workflow: how the final grading step is asked about one solution.

    Adding one is one module and one decorator (``@WORKFLOWS.register("mine")`` on a
    subclass), or an instance named by an entry point in the ``judge.workflows`` group
    (``mine = "package.module:MINE"``, e.g. a :class:`WorkflowSpec` with other steps)."""

    #: whether the workflow compares the solution with the reference solutions
    reference: bool = False

    def prepare(self, grader: "Grader", problem: ProofProblem, solution: ProofSolution,
                out: "SolutionGrade") -> tuple[str, dict[str, Any]]:
        """The grading template and its context beyond problem and solution; per-problem
        steps go through ``grader`` (shared and cached), findings into ``out``. Raise
        :class:`StepError` when a step fails."""
        raise NotImplementedError


@dataclass(frozen=True)
class WorkflowSpec(Workflow):
    """The RefGrader workflows: with or without the references, and which analysis and
    rubric the final grade is given with."""

    name: str
    reference: bool
    analysis: str | None = None   # "plain" | "approachability"
    rubric: str | None = None     # "steps" | "approachability" | "milestones"

    def prepare(self, grader: "Grader", problem: ProofProblem, solution: ProofSolution,
                out: "SolutionGrade") -> tuple[str, dict[str, Any]]:
        if not self.reference:
            return "single.j2", {}
        cluster, why = grader.match(problem, grader.clusters(problem), solution)
        out.matched_cluster, out.match_justification = cluster.class_id, why
        if self.rubric is None:
            return "grade_ref.j2", {"cluster": cluster}
        rubric = grader.rubric(problem, cluster, self)
        out.rubric = rubric.model_dump()
        return "grade_rubric.j2", {"cluster": cluster, "rubric": rubric}


for _spec, _aliases in (
    (WorkflowSpec("single", reference=False), ("no-reference",)),
    (WorkflowSpec("ref3", reference=True), ()),
    (WorkflowSpec("ref5-plain", reference=True, analysis="plain", rubric="steps"), ("ref5",)),
    (WorkflowSpec("ref5-approachability", reference=True, analysis="approachability",
                  rubric="approachability"), ()),
    (WorkflowSpec("ref5-milestones", reference=True, analysis="plain", rubric="milestones"), ()),
    (WorkflowSpec("ref5-hybrid", reference=True, analysis="approachability", rubric="milestones"), ()),
):
    WORKFLOWS.add(_spec.name, _spec, _aliases)

PER_PROBLEM_STEPS = ("cluster", "analysis", "rubric")


def proportional_points(weights: list[int], total: int = 7) -> list[int]:
    """Split ``total`` whole points in proportion to ``weights`` (largest remainder, ties to
    the earlier step); every step gets at least one point while there are points to give."""
    n = len(weights)
    if n == 0:
        return []
    if n >= total:
        base = [1 if i < total else 0 for i in range(n)]
        return base
    s = sum(weights)
    raw = [total * w / s for w in weights]
    pts = [max(1, int(r)) for r in raw]
    while sum(pts) > total:  # the max(1, .) floors can overshoot: take from the largest
        i = max(range(n), key=lambda j: (pts[j] - raw[j], pts[j]))
        pts[i] -= 1
    order = sorted(range(n), key=lambda j: (-(raw[j] - pts[j]), j))
    k = 0
    while sum(pts) < total:
        pts[order[k % n]] += 1
        k += 1
    return pts


@dataclass
class SolutionGrade:
    """One solution graded by one workflow (or an ensemble)."""

    problem_id: str
    solution_id: str
    workflow: str
    grade: float | None = None          # mean over samples (and ensemble members), 0-7
    sample_grades: list[int] = field(default_factory=list)
    members: dict[str, float | None] = field(default_factory=dict)   # ensemble only
    matched_cluster: str | None = None
    match_justification: str | None = None
    rubric: dict[str, Any] | None = None
    identified_errors: list[dict[str, str]] = field(default_factory=list)
    rationale: str | None = None
    feedback: str | None = None
    report: dict[str, Any] | None = None
    error: str | None = None
    error_kind: str | None = None
    line: int | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def reward(self) -> float | None:
        """The grade scaled to [0, 1] for RL loops; ``None`` when there is no grade (never 0)."""
        return None if self.grade is None else self.grade / 7.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "problem_id": self.problem_id, "solution_id": self.solution_id, "workflow": self.workflow,
            "status": "ok" if self.ok else "error", "grade": self.grade, "reward": self.reward,
        }
        if len(self.sample_grades) > 1 or self.members:
            out["sample_grades"] = self.sample_grades
        if self.members:
            out["members"] = self.members
        out.update({"matched_cluster": self.matched_cluster, "match_justification": self.match_justification,
                    "rubric": self.rubric, "identified_errors": self.identified_errors,
                    "rationale": self.rationale, "feedback": self.feedback})
        if self.error:
            out["error"] = self.error
            out["error_kind"] = self.error_kind
        if self.line is not None:
            out["line"] = self.line
        return out


class _Once:
    def __init__(self) -> None:
        self.event = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None


class Grader:
    """Grades solutions with one or more workflows, sharing per-problem artefacts across them."""

    #: the paper's sampling temperature (section 5.4), used for the grading step only
    SAMPLE_TEMPERATURE = 0.7

    def __init__(self, engine: Engine, samples: int = 1, grade_temperature: float | None = None) -> None:
        """``grade_temperature``: the grading step's temperature (default
        :data:`SAMPLE_TEMPERATURE` with ``samples > 1``, else the engine's). Only the grading
        step is sampled, as in the paper: clustering, matching, analysis and rubric always ask
        at the engine's temperature, so their cached replies are reused whatever ``samples``."""
        if samples < 1:
            raise ValueError("samples must be at least 1")
        self.engine = engine
        self.samples = samples
        if grade_temperature is None and samples > 1:
            grade_temperature = self.SAMPLE_TEMPERATURE
        self.grade_temperature = grade_temperature
        self._memo: dict[tuple, _Once] = {}
        self._lock = threading.Lock()

    def _once(self, key: tuple, fn: Callable[[], Any]) -> Any:
        with self._lock:
            ent = self._memo.get(key)
            owner = ent is None
            if owner:
                ent = self._memo[key] = _Once()
        assert ent is not None
        if owner:
            try:
                ent.value = fn()
            except BaseException as exc:  # noqa: BLE001 - re-raised to every waiter
                ent.error = exc
            finally:
                ent.event.set()
        else:
            ent.event.wait()
        if ent.error is not None:
            raise ent.error
        return ent.value

    # ------------------------------------------------------------------ per problem

    def clusters(self, problem: ProofProblem) -> list[Cluster]:
        where = {"problem_id": problem.problem_id, "solution_id": None}
        return self._once(("cluster", problem), lambda: self.engine.ask(
            "cluster", "cluster.j2", ClusterList, where=where, problem=problem).clusters)

    def analysis(self, problem: ProofProblem, cluster: Cluster, variant: str) -> SolutionAnalysis:
        schema = ApproachabilityAnalysis if variant == "approachability" else SolutionAnalysis
        where = {"problem_id": problem.problem_id, "solution_id": None, "cluster": cluster.class_id}

        def run() -> SolutionAnalysis:
            a = self.engine.ask("analysis", "analysis.j2", schema, where=where, problem=problem, cluster=cluster,
                                variant=variant)
            if variant != "approachability":  # a plain analysis carries no ratings into its rubric
                for s in a.main_steps:
                    s.approachability = s.approachability_rationale = None
            return a

        return self._once(("analysis", problem, cluster.class_id, variant), run)

    def rubric(self, problem: ProofProblem, cluster: Cluster, spec: "WorkflowSpec") -> Rubric:
        analysis = self.analysis(problem, cluster, spec.analysis or "plain")
        suggested = (proportional_points([s.approachability or 1 for s in analysis.main_steps])
                     if spec.rubric == "approachability" else [])
        want = "milestones" if spec.rubric == "milestones" else "steps"

        def check(r: Rubric) -> None:
            if r.kind != want:
                raise ReplyInvalid(f"kind: this scheme must be {want!r}, got {r.kind!r}")

        where = {"problem_id": problem.problem_id, "solution_id": None, "cluster": cluster.class_id}
        return self._once(("rubric", problem, cluster.class_id, spec.analysis, spec.rubric), lambda: self.engine.ask(
            "rubric", "rubric.j2", Rubric, where=where, check=check, problem=problem, cluster=cluster,
            analysis=analysis, rubric=spec.rubric, suggested=suggested))

    def artefacts(self) -> list[dict[str, Any]]:
        """The per-problem artefacts built in this run (clusters, analyses, rubrics), as JSON-ready
        records in a stable order; failed ones are left out."""
        out = []
        with self._lock:
            items = list(self._memo.items())
        for key, ent in items:
            if not ent.event.is_set() or ent.error is not None:
                continue
            kind, problem = key[0], key[1]
            rec: dict[str, Any] = {"artefact": kind, "problem_id": problem.problem_id}
            if kind == "cluster":
                rec["clusters"] = [c.model_dump() for c in ent.value]
            elif kind == "analysis":
                rec.update(cluster=key[2], variant=key[3], analysis=ent.value.model_dump())
            else:
                rec.update(cluster=key[2], analysis_variant=key[3] or "plain", rubric_variant=key[4],
                           rubric=ent.value.model_dump())
            out.append(rec)
        order = {"cluster": 0, "analysis": 1, "rubric": 2}
        return sorted(out, key=lambda r: (r["problem_id"], order[r["artefact"]], r.get("cluster") or "",
                                          str(r.get("variant") or r.get("rubric_variant") or ""),
                                          str(r.get("analysis_variant") or "")))

    # ------------------------------------------------------------------ per solution

    def match(self, problem: ProofProblem, clusters: list[Cluster], sol: ProofSolution) -> tuple[Cluster, str]:
        if len(clusters) == 1:
            return clusters[0], "only one strategy among the references"
        ids = {c.class_id: c for c in clusters}

        def check(m: Match) -> None:
            if m.closest_rep_id not in ids:
                raise ReplyInvalid(f"closest_rep_id: {m.closest_rep_id!r} names no strategy; "
                                   f"it must be one of {', '.join(ids)}")

        m = self.engine.ask("match", "match.j2", Match, check=check,
                            where={"problem_id": problem.problem_id, "solution_id": sol.solution_id},
                            problem=problem, clusters=clusters, solution=sol.solution)
        return ids[m.closest_rep_id], m.justification

    def grade(self, problem: ProofProblem, sol: ProofSolution, workflow: str) -> SolutionGrade:
        """Grade one solution; a failed step makes a :class:`SolutionGrade` with ``error`` set."""
        workflow = WORKFLOWS.canonical(workflow)
        spec = WORKFLOWS.get(workflow)
        out = SolutionGrade(problem.problem_id, sol.solution_id, workflow)
        try:
            template, ctx = spec.prepare(self, problem, sol, out)
            step = f"grade-{workflow}"
            reports: list[GradeReport] = []
            for k in range(self.samples):
                reports.append(self.engine.ask(
                    step, template, GradeReport, seed=(k if k else None), temperature=self.grade_temperature,
                    where={"problem_id": problem.problem_id, "solution_id": sol.solution_id, "sample": k},
                    problem=problem, solution=sol.solution, **ctx))
        except StepError as exc:
            out.error, out.error_kind = str(exc), exc.kind
            return out
        out.sample_grades = [r.overall_assessment.score for r in reports]
        out.grade = sum(out.sample_grades) / len(out.sample_grades)
        first = reports[0]
        out.report = first.model_dump()
        out.identified_errors = [e.model_dump() for e in first.identified_errors]
        out.rationale = first.overall_assessment.rationale
        out.feedback = first.constructive_feedback
        return out


def ensemble(members: list[SolutionGrade], name: str) -> SolutionGrade:
    """Average of the members' grades; an error if any member failed (no partial average)."""
    first = members[0]
    out = SolutionGrade(first.problem_id, first.solution_id, name, line=first.line)
    out.members = {m.workflow: m.grade for m in members}
    failed = [m for m in members if not m.ok]
    if failed:
        out.error = "; ".join(f"{m.workflow}: {m.error}" for m in failed)
        out.error_kind = failed[0].error_kind
        return out
    out.sample_grades = [g for m in members for g in m.sample_grades]
    out.grade = sum(m.grade for m in members if m.grade is not None) / len(members)
    out.identified_errors = [dict(e, workflow=m.workflow) for m in members for e in m.identified_errors]
    out.feedback = members[-1].feedback
    return out
