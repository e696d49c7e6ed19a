"""``judge grade``: grade olympiad proofs with the RefGrader workflows (judge.grading.proofs).

Exit status: 0 when every solution was graded, 1 when an input line was bad (the rest is
still graded and written), 2 on usage errors, 4 when some solutions could not be graded
(server down, invalid replies after re-asking, ``--offline`` cache miss): those are
reported per solution and counted in the summary, never given a grade.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from judge.cli.common import EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNGRADED, EXIT_USAGE, err, print_issues
from judge.settings import settings

MANIFEST = "models.json"


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("grade", help="grade olympiad proofs (RefGrader workflows, 0-7)",
                              description="Grade proofs with single / ref3 / ref5-* workflows; "
                                          "with --human, report agreement with human grades.")
    p.add_argument("problems", help="problems JSON Lines: problem_id, statement, references[, topic]")
    p.add_argument("solutions", help="solutions JSON Lines: problem_id, solution_id, solution")
    p.add_argument("--workflow", default=None,
                   help="workflow, a comma list of them, or 'all' (default ref5-milestones, or the "
                        "ensemble's members with --ensemble)")
    p.add_argument("--ensemble", help="comma list of workflows whose grades are averaged (e.g. ref3,ref5-plain)")
    p.add_argument("--samples", type=int, default=1, help="grading calls per solution, averaged (default 1)")
    p.add_argument("--temperature", type=float, default=None,
                   help="the grading step's temperature (default 0, or 0.7 with --samples > 1); "
                        "clustering, matching, analysis and rubric always ask at 0, so their "
                        "cached replies are reused whatever --samples is")
    p.add_argument("--model", help="model name (else $JUDGE_LLM_MODEL, else the cache's only model with --offline)")
    p.add_argument("--base-url", help="OpenAI-compatible base URL (else $JUDGE_LLM_BASE_URL)")
    p.add_argument("--api-key", help="API key (else $JUDGE_LLM_API_KEY or $OPENAI_API_KEY; the environment "
                                     "is safer: a flag shows in the process list)")
    p.add_argument("--human", help="human grades JSON Lines: solution_id, grade")
    p.add_argument("--scale", choices=("0-7", "1-4"), default="0-7", help="scale of the human grades")
    p.add_argument("--cache", default=None, help="cache folder (default ~/.cache/judge/proofs)")
    p.add_argument("--offline", action="store_true", help="use only cached replies; a miss is a grading error")
    p.add_argument("--output", help="write one JSON line per graded solution here (default: stdout with --format json is not used)")
    p.add_argument("--artefacts", help="write the per-problem artefacts (clusters, analyses, rubrics) "
                                       "as JSON Lines here")
    p.add_argument("--trace", help="JSON Lines trace of every call (default CACHE/trace.jsonl)")
    p.add_argument("--format", choices=("table", "markdown", "json", "html"), default="table")
    p.add_argument("--concurrency", type=int, default=4, help="solutions graded at once, and the bound on requests in flight (default 4)")
    p.add_argument("--max-reasks", type=int, default=2, help="re-asks after an invalid reply (default 2)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per request (default 120)")
    p.add_argument("--retries", type=int, default=4, help="retries on 429/5xx/timeouts (default 4)")
    p.add_argument("--max-tokens", type=int, default=None, help="max_tokens per reply (default: server's)")
    p.add_argument("--no-response-format", action="store_true",
                   help="do not send JSON Schemas as response_format (for servers that reject it)")
    p.set_defaults(func=run)


register = add_parser  # judge.cli discovers sub-commands through register(subparsers)


def _model_from_manifest(cache: Path) -> tuple[str | None, str | None]:
    try:
        entries = json.loads((cache / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None
    if isinstance(entries, list) and len(entries) == 1 and isinstance(entries[0], dict):
        return entries[0].get("model"), entries[0].get("base_url")
    return None, None


def _record_manifest(cache: Path, model: str, base_url: str) -> None:
    path = cache / MANIFEST
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(entries, list):
            entries = []
    except (OSError, ValueError):
        entries = []
    entry = {"model": model, "base_url": base_url}
    if entry not in entries:
        entries.append(entry)
        try:
            cache.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(entries, indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            err(f"cannot record {path}: {exc.strerror or exc}", "grade")


def run(args: argparse.Namespace) -> int:
    from judge.errors import InputError
    from judge.grading.client import DEFAULT_BASE_URL, LLMConfig, LLMConfigError
    from judge.grading.proofs import report as rep
    from judge.grading.proofs.api import DEFAULT_CACHE, check_workflows, grade_many
    from judge.grading.proofs.engine import Engine, EngineSettings
    from judge.grading.proofs.inputs import load_grades, load_problems, load_solutions
    from judge.grading.proofs.workflows import WORKFLOWS, Grader

    try:
        ens = check_workflows(args.ensemble.split(",")) if args.ensemble else None
        chosen = args.workflow or ("" if ens else "ref5-milestones")
        workflows = (check_workflows(WORKFLOWS.names()) if chosen.strip() == "all" else
                     check_workflows(chosen.split(",")) if chosen else list(ens or []))
    except ValueError as exc:
        err(str(exc), "grade")
        return EXIT_USAGE
    if args.samples < 1 or args.concurrency < 1 or args.max_reasks < 0:
        err("--samples and --concurrency must be at least 1, --max-reasks at least 0", "grade")
        return EXIT_USAGE
    cache = Path(args.cache).expanduser() if args.cache else DEFAULT_CACHE
    model = args.model or settings().llm_model
    base_url = args.base_url or settings().llm_base_url
    if args.offline and not model:
        model, cached_url = _model_from_manifest(cache)
        base_url = base_url or cached_url
    try:
        cfg = LLMConfig.from_env(base_url=base_url or DEFAULT_BASE_URL, model=model, api_key=args.api_key,
                                 use_cache=False,
                                 timeout_s=args.timeout, max_retries=args.retries, jitter=0.25,
                                 concurrency=args.concurrency)
    except LLMConfigError as exc:
        err(f"{exc} (or --offline with a cache made by one model)" if "no LLM model" in str(exc) else str(exc), "grade")
        return EXIT_USAGE

    issues = []
    try:
        problems, pi = load_problems(args.problems)
        issues += pi
        solutions, si = load_solutions(args.solutions, problems)
        issues += si
        human: dict[str, int] = {}
        if args.human:
            lo, hi = (1, 4) if args.scale == "1-4" else (0, 7)
            human, hi_issues = load_grades(args.human, lo, hi)
            issues += hi_issues
    except InputError as exc:
        print_issues(exc.issues, prefix="")
        return EXIT_INPUT
    print_issues(issues, prefix="")

    # default trace beside the cache; none for --offline (no calls are made, and a shipped
    # cache may be read-only)
    trace = Path(args.trace) if args.trace else (None if args.offline else cache / "trace.jsonl")
    engine = Engine(EngineSettings(cfg, cache_dir=cache, offline=args.offline, max_reasks=args.max_reasks,
                                   temperature=0.0, max_tokens=args.max_tokens,
                                   response_format=not args.no_response_format, trace_path=trace))
    out_fh = open(args.output, "w", encoding="utf-8") if args.output else None

    def write(g: Any) -> None:
        if out_fh is not None:
            out_fh.write(json.dumps(g.to_dict(), ensure_ascii=False) + "\n")
            out_fh.flush()

    grader = Grader(engine, samples=args.samples, grade_temperature=args.temperature)
    try:
        results = grade_many(grader, problems, solutions, workflows, ens,
                             concurrency=args.concurrency, on_result=write)
    except KeyboardInterrupt:
        err("interrupted; results written so far are kept", "grade")
        return EXIT_INTERRUPTED
    finally:
        engine.close()
        if out_fh is not None:
            out_fh.close()
    if args.artefacts:
        with open(args.artefacts, "w", encoding="utf-8") as fh:
            for rec in grader.artefacts():
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    if not args.offline and engine.total().calls:
        _record_manifest(cache, cfg.model, cfg.base_url)

    kinds: dict[str, int] = {}
    for g in results:
        if not g.ok:
            kinds[g.error_kind or "error"] = kinds.get(g.error_kind or "error", 0) + 1
            err(f"{args.solutions}:{g.line}: {g.solution_id} [{g.workflow}]: not graded: {g.error}")
    summary = {
        "workflows": workflows, "ensemble": ens, "samples": args.samples, "model": cfg.model,
        "base_url": cfg.base_url, "offline": args.offline, "scale": args.scale,
        "graded": {"total": len(results), "ok": sum(1 for g in results if g.ok),
                   "errors": sum(1 for g in results if not g.ok)},
        "error_kinds": kinds, "input_issues": len(issues),
        "steps": {k: v.to_dict() for k, v in engine.stats.items()}, "total": engine.total().to_dict(),
    }
    table = []
    if human:
        by_wf: dict[str, list] = {}
        for g in results:
            by_wf.setdefault(g.workflow, []).append(g)
        for wf, rs in by_wf.items():
            a = rep.agreement(rs, human, args.scale)
            if a is not None:
                table.append(a)
    if args.format == "json":
        if not args.output:  # no results file: the results go into the JSON document
            summary["results"] = [g.to_dict() for g in results]
        text = rep.render_json(summary, table)
    elif args.format == "html":
        text = rep.render_html(summary, table)
    else:
        text = rep.render_text(summary, table, args.format)
        if not human:
            lines = [f"{g.solution_id:>12} {g.workflow:<22} "
                     + (f"{g.grade:4.2f}" if g.ok else "  - ") + f"  {g.matched_cluster or ''}"
                     for g in results]
            text = "\n".join(lines) + "\n\n" + text
    print(text)
    if issues:
        return EXIT_INPUT
    return EXIT_UNGRADED if summary["graded"]["errors"] else EXIT_OK
