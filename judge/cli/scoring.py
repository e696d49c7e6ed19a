"""Command-line subcommands ``score``, ``aime``, ``match`` and ``agreement``.

Why a separate module: the scoring side of the judge has four commands with their own
options; :func:`register` adds them to the main ``judge`` parser so ``judge/cli/main.py`` stays
small.  Each command's function takes the parsed arguments and returns the exit status:

* 0 - done;
* 1 - invalid input (the message on stderr names the file and line or JSON location;
  ``aime`` and ``score`` still print what they could score from the good lines);
* 2 - usage error (bad option values, missing ``--ground-truth``/``--suite``, no LLM model);
* 3 - the LLM judge was unavailable (the run stops), or gave no usable verdict for some
  entries after re-asking (``match --judge llm``: every other entry is still scored and
  printed; those entries say ``error``).

Empty input scores 0 and exits 1 with a warning: a results file without a usable row
(``score``: every dimension 0, instead of "nothing expected, nothing missing"), an outputs
file without a scorable line (``aime``), a solution that answers none of the questions
(``match``).

Usage::

    judge score SPEC SUBMISSION_OR_RESULTS [--ground-truth FILE | --suite SUITE] [--model M] [--format table|json]
    judge aime TASKS OUTPUTS.jsonl [--mode final|any] [--format table|json]
    judge match REFERENCE SOLUTION [--judge offline|llm] [--threshold T] [--llm-model M] [--llm-base-url URL]
                [--llm-timeout S] [--llm-retries N] [--llm-temperature T] [--llm-max-tokens N]
                [--llm-concurrency N] [--llm-reasks N] [--no-cache] [--format table|json]
    judge agreement HUMAN PRED [--scale 1-4] [--pred-scale 0-7] [--map [human=|pred=]2x-1]
                    [--map-human EXPR] [--map-pred EXPR] [--target-scale 0-7] [--ac2 gwet|paper]
                    [--rounding half-up|none] [--format table|json]

``score`` treats its second argument as a ``judge run`` results file (JSON Lines) when
``--suite`` is given or the file name ends in ``.jsonl``; otherwise it is a JSON submission
object and ``--ground-truth`` is required.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from judge.cli.common import (
    EXIT_INPUT,
    EXIT_OK,
    EXIT_SERVICE,
    EXIT_USAGE,
    dump_json,
    error,
    int_in,
    non_negative_number,
    positive_number,
    table,
    warn,
)
from judge.errors import InputError as SuiteInputError
from judge.kinds.loader import load_suite
from judge.scoring import agreement as agr
from judge.scoring import grade_files
from judge.scoring.math_answers import AIMEBenchmark, score_outputs
from judge.scoring.primitives import InputError, ScoringError, read_json, read_jsonl
from judge.scoring.specs import (ScoreReport, ground_truth_from_results, load_spec,
                                 locate_ground_truth_error, score_submission,
                                 submission_from_results, validate_result_row, zero_report)

def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit - 20] + "..." + text[-10:]


def _fmt(v: float | None, digits: int = 3) -> str:
    return "n/a" if v is None else f"{v:.{digits}f}"


def register(subparsers: Any) -> None:
    """Add ``score``, ``aime``, ``match`` and ``agreement`` to a ``judge`` subparsers object."""
    fmt = {"choices": ["table", "json"], "default": "table", "help": "output format (default: table)"}

    p = subparsers.add_parser("score", help="score a submission or a results file with a scoring spec",
                              description="Score a submission (JSON object) or a `judge run` results "
                                          "file (JSON Lines) with a weighted scoring spec.")
    p.add_argument("spec", help="scoring spec (JSON)")
    p.add_argument("submission", help="submission JSON object, or results JSON Lines of `judge run`")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--ground-truth", help="ground truth JSON object")
    src.add_argument("--suite", help="problem suite (file or folder) the results belong to")
    p.add_argument("--model", help="score only this model's rows of a results file")
    p.add_argument("--format", **fmt)
    p.set_defaults(func=cmd_score)

    p = subparsers.add_parser("aime", help="score answers to AIME-style integer tasks",
                              description="Score model outputs ({task_id, output} per line) against "
                                          "a folder of AIME-style task files.")
    p.add_argument("tasks", help="folder of task JSON files")
    p.add_argument("outputs", help="JSON Lines of {\"task_id\": ..., \"output\": ...}")
    p.add_argument("--mode", choices=["final", "any"], default="final",
                   help="final: extract the final answer first (default); any: any number matches")
    p.add_argument("--format", **fmt)
    p.set_defaults(func=cmd_aime)

    p = subparsers.add_parser("match", help="match a solution against a reference solution",
                              description="Score a solver's answers against a reference solution "
                                          "(exact / select / fuzzy / fuzzy-select / rule checklist).")
    p.add_argument("reference", help="reference solution JSON")
    p.add_argument("solution", help="solution JSON: {\"id\": ..., \"answer\": {key: str or list}}")
    p.add_argument("--judge", choices=["offline", "llm"], default="offline",
                   help="equivalence judge for fuzzy entries and rules (default: offline)")
    p.add_argument("--threshold", type=positive_number, default=0.85,
                   help="offline judge similarity threshold in (0, 1] (default: 0.85)")
    p.add_argument("--llm-model", help="model name (default: $JUDGE_LLM_MODEL)")
    p.add_argument("--llm-base-url", help="OpenAI-compatible base URL (default: $JUDGE_LLM_BASE_URL)")
    p.add_argument("--llm-api-key", help="API key (default: $JUDGE_LLM_API_KEY or $OPENAI_API_KEY; the "
                                         "environment is safer: a flag shows in the process list)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the LLM answer cache")
    p.add_argument("--llm-timeout", type=positive_number, default=60.0,
                   help="seconds per LLM request, > 0 (default: 60)")
    p.add_argument("--llm-retries", type=int_in(0, 20), default=3,
                   help="retries on 429/5xx/timeouts, 0-20 (default: 3)")
    p.add_argument("--llm-temperature", type=non_negative_number, default=0.0,
                   help="sampling temperature sent to the model (default: 0)")
    p.add_argument("--llm-max-tokens", type=int_in(1, 1_000_000), default=None,
                   help="max_tokens sent to the model (default: none sent)")
    p.add_argument("--llm-concurrency", type=int_in(1, 64), default=4,
                   help="judge questions asked at once, 1-64 (default: 4)")
    p.add_argument("--llm-reasks", type=int_in(0, 5), default=1,
                   help="times an unparseable verdict is asked again, 0-5 (default: 1)")
    p.add_argument("--format", **fmt)
    p.set_defaults(func=cmd_match)

    p = subparsers.add_parser("agreement", help="agreement metrics between human and predicted grades",
                              description="Pearson, Spearman, MAE, RMSE, QWK, Off-by-1/2, Gwet's AC2 and "
                                          "the RefGrader paper's 1 - D_o/D_e between two files of id, grade "
                                          "(JSON Lines or CSV), with the majority-grade baseline.")
    p.add_argument("human", help="human grades: JSON Lines {\"id\", \"grade\"} or CSV with header id,grade")
    p.add_argument("pred", help="predicted grades, same formats; averaged grades (3.5) are accepted")
    p.add_argument("--scale", help="scale of the human grades, and of the predicted ones unless --pred-scale, "
                                   "such as 1-4 (default: the range of the grades seen)")
    p.add_argument("--pred-scale", help="scale of the predicted grades (default: --scale; 0-7 when only the "
                                        "human side is mapped by the paper's 2x-1)")
    p.add_argument("--map", dest="mapping", action="append", default=[], metavar="[human=|pred=|FILE=]EXPR",
                   help="linear map such as 2x-1: bare, it maps both files; human=2x-1, pred=2x-1 or "
                        "FILE=2x-1 (one of the two paths) maps that file only (the paper's IMO setting: "
                        "--map human=2x-1)")
    p.add_argument("--map-human", help="map the human grades only (same as --map human=EXPR)")
    p.add_argument("--map-pred", help="map the predicted grades only (same as --map pred=EXPR)")
    p.add_argument("--target-scale", help="scale the grades are compared on (default: 0-7 for the paper's 2x-1 "
                                          "on 1-4, else the mapped end points of both sides), e.g. 0-7")
    p.add_argument("--ac2", choices=["gwet", "paper"], default="gwet",
                   help="formula of the AC2 column: gwet (Gwet 2014, default) or paper (RefGrader section 4: "
                        "1 - D_o/D_e with pooled marginals); the 1-Do/De column always has the paper's")
    p.add_argument("--rounding", choices=list(agr.ROUNDINGS), default="half-up",
                   help="how averaged grades become categories for QWK and AC2: half-up (3.5 -> 4, default) "
                        "or none (those metrics are then undefined)")
    p.add_argument("--format", **fmt)
    p.set_defaults(func=cmd_agreement)


# --------------------------------------------------------------------------------------
# score
# --------------------------------------------------------------------------------------


def _suite_problems(path: str) -> dict[str, int]:
    """``{problem identifier: number of correctness tests}`` of a suite (file or folder)."""
    return {p.identifier: len(p.correctness_test_suite) for p in load_suite(path).problems}


def _print_report(report: ScoreReport, title: str | None = None) -> None:
    if title:
        print(title)
    rows = [[d.name, d.primitive, f"{d.weight:g}", f"{d.score:.2f}", f"{d.weighted:.2f}", d.detail]
            for d in report.dimensions]
    rows.append(["total", "", "1", "", f"{report.total:.2f}", ""])
    print(table(rows, ["dimension", "primitive", "weight", "score", "weighted", "detail"]))


def _read_results(path: str) -> tuple[list[dict[str, Any]], int]:
    """Valid rows of a results file; each bad line is reported (``file:line``) and counted."""
    rows: list[dict[str, Any]] = []
    bad = 0
    for line in read_jsonl(path):
        try:
            if line.issue is not None:
                raise InputError(str(line.issue))
            rows.append(validate_result_row(line.value, f"{path}:{line.number}"))
        except InputError as exc:
            error("score", str(exc))
            bad += 1
    return rows, bad


def _score_results(args: argparse.Namespace, spec: Any,
                   gt_file: Any) -> tuple[list[tuple[str | None, ScoreReport]], int, bool]:
    """One report per model of a results file (or only ``--model``'s), the bad-line count,
    and whether the file held no usable row (then every dimension scores 0)."""
    rows, bad = _read_results(args.submission)
    counts: dict[str, int] = {}
    if args.suite:
        counts = _suite_problems(args.suite)
        ids = sorted(counts)
    else:
        ids = sorted({r["problem_id"] for r in rows})
        if rows:
            warn("score", f"no --suite: all_ids are the {len(ids)} problem(s) in the results file")
    if not rows:
        warn("score", f"{args.submission}: no result rows{' that could be read' if bad else ''}: "
                       "every dimension scores 0")
        return [(args.model, zero_report(spec, "no result rows"))], bad, True
    models = sorted({r.get("model") or "" for r in rows}) or [""]
    if args.model:
        if args.model not in models:
            raise InputError(f"{args.submission}: no rows for model {args.model!r} (models: {', '.join(models)})")
        models = [args.model]
    out = []
    for m in models:
        group = [r for r in rows if (r.get("model") or "") == m]
        gt = gt_file if gt_file is not None else ground_truth_from_results(group, ids, counts)
        out.append((m or None, score_submission(spec, submission_from_results(group, ids, counts), gt)))
    return out, bad, False


def _warn_missing_fields(report: ScoreReport) -> None:
    for d in report.dimensions:
        if d.detail.startswith("submission has no field"):
            warn("score", f"dimension {d.name!r}: {d.detail}: scores 0")


def cmd_score(args: argparse.Namespace) -> int:
    """``judge score``: print the total and every dimension."""
    results_mode = bool(args.suite) or args.submission.endswith(".jsonl")
    if not results_mode and not args.ground_truth:
        error("score", "a submission object needs --ground-truth FILE (or pass a results file with --suite)")
        return EXIT_USAGE
    if args.model and not results_mode:
        error("score", "--model applies to results files only")
        return EXIT_USAGE
    try:
        spec = load_spec(args.spec)
        gt_file = read_json(args.ground_truth) if args.ground_truth else None
        if not results_mode:
            submission = read_json(args.submission)
            if not isinstance(submission, dict):
                kind = {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
                    type(submission), "number")
                raise InputError(f"{args.submission}: submission must be a JSON object, got {kind}")
            report = score_submission(spec, submission, gt_file)
            _warn_missing_fields(report)
            if args.format == "json":
                dump_json(report.to_dict())
            else:
                _print_report(report)
            return EXIT_OK
        out, bad, empty = _score_results(args, spec, gt_file)
    except ScoringError as exc:  # a ground-truth error names the file and, where it can, the line
        if args.ground_truth:
            error("score", locate_ground_truth_error(exc, args.ground_truth))
        elif getattr(exc, "ground_truth_field", None) is not None:
            error("score", f"ground truth made from {args.suite or args.submission}: {exc}")
        else:
            error("score", str(exc))
        return EXIT_INPUT
    except (InputError, SuiteInputError) as exc:
        error("score", str(exc))
        return EXIT_INPUT
    if args.format == "json":
        dump_json({"models": [{"model": m, **r.to_dict()} for m, r in out]})
    else:
        for i, (m, r) in enumerate(out):
            if i:
                print()
            _print_report(r, f"model: {m}" if m or len(out) > 1 else None)
    return EXIT_INPUT if bad or empty else EXIT_OK


# --------------------------------------------------------------------------------------
# aime
# --------------------------------------------------------------------------------------


def cmd_aime(args: argparse.Namespace) -> int:
    """``judge aime``: accuracy per task, per subset and overall."""
    try:
        bench = AIMEBenchmark(args.tasks, mode=args.mode)
        report = score_outputs(bench, args.outputs, args.mode)
    except InputError as exc:
        error("aime", str(exc))
        return EXIT_INPUT
    for e in report.errors:
        error("aime", e)
    unanswered = [tid for tid, v in report.per_task.items() if v["n"] == 0]
    if not report.results:
        warn("aime", f"{args.outputs}: no output could be scored: every task scores 0")
    elif unanswered:
        warn("aime", f"{len(unanswered)} of {len(report.per_task)} task(s) have no output and score 0: "
                      + ", ".join(unanswered[:10]) + (" ..." if len(unanswered) > 10 else ""))
    if args.format == "json":
        dump_json(report.to_dict())
    else:
        rows = [[tid, v["subset"], v["problem_number"], v["n"], _fmt(v["accuracy"])]
                for tid, v in report.per_task.items()]
        print(table(rows, ["task", "subset", "#", "outputs", "accuracy"]))
        print()
        srows = [[s, _fmt(a)] for s, a in report.per_subset.items()] + [["overall", _fmt(report.overall)]]
        print(table(srows, ["subset", f"accuracy ({report.mode} mode)"]))
    return EXIT_INPUT if report.errors or not report.results else EXIT_OK


# --------------------------------------------------------------------------------------
# match
# --------------------------------------------------------------------------------------


def _make_judge(args: argparse.Namespace) -> Any:
    from judge.grading.llm import LLMJudge, OfflineJudge

    if args.judge == "llm":
        return LLMJudge.from_env(model=args.llm_model, base_url=args.llm_base_url, api_key=args.llm_api_key,
                                 use_cache=not args.no_cache,
                                 timeout_s=args.llm_timeout, max_retries=args.llm_retries,
                                 temperature=args.llm_temperature, max_tokens=args.llm_max_tokens,
                                 reasks=args.llm_reasks, concurrency=args.llm_concurrency)
    return OfflineJudge(args.threshold)


def cmd_match(args: argparse.Namespace) -> int:
    """``judge match``: every entry's score and the problem's."""
    # imported here, not with the module: the LLM client and its HTTP stack cost every other
    # command (``judge run`` among them) about 0.3 s of start-up
    from judge.grading.llm import LLMConfigError, LLMError
    from judge.scoring.reference_match import (ReferenceFormatError, load_reference,
                                               load_solution, match_problem)

    try:
        judge = _make_judge(args)
    except (LLMConfigError, ValueError) as exc:
        error("match", str(exc))
        return EXIT_USAGE
    try:
        ref = load_reference(args.reference)
        sol = load_solution(args.solution)
        result = match_problem(ref, sol, judge)
    except (InputError, ReferenceFormatError) as exc:
        error("match", str(exc))
        return EXIT_INPUT
    except LLMError as exc:
        error("match", str(exc))
        return EXIT_SERVICE
    answered = [k for k in ref.answer if sol.answer.get(k) is not None]
    if not answered:
        warn("match", f"{args.solution}: answers none of the reference's {len(ref.answer)} question(s): "
                       "every question scores 0")
    for e in result.errors:
        error("match", f"judge gave no usable verdict: {e}")
    judge_note = ", ".join(result.judges) or "none needed"
    if result.offline_judge:
        judge_note += " (OFFLINE approximation: string similarity, not an LLM)"
    if args.format == "json":
        dump_json({**result.to_dict(), "judge": judge_note})
    else:
        rows = [[e.key, e.kind, "error" if e.error else _fmt(e.score), _clip(json.dumps(e.answer, ensure_ascii=False)),
                 e.detail + (f": {e.error}" if e.error else "")] for e in result.entries]
        print(table(rows, ["question", "type", "score", "answer", "detail"]))
        print()
        if result.score is None:
            print(f"problem {result.id}: no score: {len(result.errors)} judge error(s), see above")
        else:
            print(f"problem {result.id}: score {_fmt(result.score)} (mean of {len(result.entries)} question(s))")
        if result.explanation_score is not None:
            print(f"explanation: {_fmt(result.explanation_score)} "
                  f"({sum(r.score for r in result.rules):g}/{len(result.rules)} rules satisfied)")
        if result.extra_keys:
            print(f"ignored keys not in the reference: {', '.join(result.extra_keys)}")
        print(f"judge: {judge_note}")
    if result.errors:
        return EXIT_SERVICE
    return EXIT_OK if answered else EXIT_INPUT


# --------------------------------------------------------------------------------------
# agreement
# --------------------------------------------------------------------------------------


def _maps(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """``(both, human, pred)`` maps from ``--map [human=|pred=]EXPR``, ``--map-human``, ``--map-pred``."""
    both = human = pred = None
    for text in args.mapping:
        left, sep, expr = text.rpartition("=")  # a map has no '=': the last one splits
        side = _map_side(left, args) if sep else ""
        if side is None:
            raise ValueError(f"--map {text!r}: before '=' name the file to map: human or pred "
                             f"(or its path, {args.human} or {args.pred})")
        m = agr.parse_map(expr if sep else text)
        if side == "human":
            human = m
        elif side == "pred":
            pred = m
        else:
            both = m
    if args.map_human:
        human = agr.parse_map(args.map_human)
    if args.map_pred:
        pred = agr.parse_map(args.map_pred)
    if both is not None and (human is not None or pred is not None):
        raise ValueError("give --map EXPR (both files) or per-file maps (human=/pred=), not both")
    return both, human, pred


def _paper_scales(both: Any, human_map: Any, pred_map: Any, scale: Any, pred_scale: Any) -> tuple[Any, Any]:
    """The scales the paper's ``2x-1`` implies where they are not given: its source is 1-4 and
    its target 0-7 (section 4), so with one file mapped the other is on 0-7.  With one file
    mapped, ``--scale 0-7`` names the scale the grades are compared on (mapping 0-7 itself by
    ``2x-1`` would make no sense), so the mapped file is read on 1-4."""
    src, dst = agr.PAPER_SOURCE, agr.PAPER_TARGET
    note = "the paper's map 2x-1 (section 4: IMO Shortlist 1-4 -> MathArena 0-7): "
    if both is not None:
        if scale is None and agr.is_paper_map(both):
            warn("agreement", f"map {both.text} without --scale: using the paper's source scale {src} "
                               f"for both files (section 4: IMO Shortlist 1-4 -> 0-7)")
            return src, pred_scale
        return scale, pred_scale
    if human_map is not None and pred_map is None and agr.is_paper_map(human_map):
        if pred_scale is None and scale in (None, src, dst):
            if scale == dst:
                warn("agreement", note + f"--scale {dst} is the compared scale: human grades read on {src}")
            if scale is None:
                warn("agreement", note + f"human grades read on {src}, predictions on {dst}")
            return src, dst
        return scale or src, pred_scale
    if pred_map is not None and human_map is None and agr.is_paper_map(pred_map):
        if pred_scale is None and scale in (None, dst):
            if scale is None:
                warn("agreement", note + f"predictions read on {src}, human grades on {dst}")
            return dst, src
        return scale, pred_scale or (src if scale is None else None)
    return scale, pred_scale


def _map_side(left: str, args: argparse.Namespace) -> str | None:
    """``human`` / ``pred`` for ``--map SIDE=EXPR``: the side's name or its file's path."""
    from pathlib import Path

    name = left.strip().lower()
    if name in ("human", "pred", "predicted", "prediction", "predictions"):
        return "human" if name == "human" else "pred"
    try:
        target = Path(left).resolve()
        for side, path in (("human", args.human), ("pred", args.pred)):
            if Path(path).resolve() == target:
                return side
    except (OSError, ValueError):
        pass
    return None


def cmd_agreement(args: argparse.Namespace) -> int:
    """``judge agreement``: the paper's Table 1 metrics for two grade files."""
    try:
        scale = agr.parse_scale(args.scale) if args.scale else None
        pred_scale = agr.parse_scale(args.pred_scale) if args.pred_scale else None
        both, human_map, pred_map = _maps(args)
        target = agr.parse_scale(args.target_scale) if args.target_scale else None
        hmap, pmap = human_map or both, pred_map or both
        scale, pred_scale = _paper_scales(both, human_map, pred_map, scale, pred_scale)
        for m, sc in ((hmap, scale), (pmap, pred_scale or scale)):
            if m is not None and sc is not None:
                m.target(sc)  # rejects maps that do not give integers
    except ValueError as exc:
        error("agreement", str(exc))
        return EXIT_USAGE
    if target and not (both or human_map or pred_map):
        error("agreement", "--target-scale needs a map")
        return EXIT_USAGE
    try:
        human = grade_files.read_grades(args.human, scale, fractional=True)
        pred = grade_files.read_grades(args.pred, pred_scale or scale, fractional=True)
    except InputError as exc:
        hint = ("\n(a bare --map maps both files; to map one, use --map human=EXPR or --map pred=EXPR)"
                if both is not None and "outside the scale" in str(exc) else "")
        error("agreement", str(exc) + hint)
        return EXIT_INPUT
    ids, h, p, missing_pred, missing_human = grade_files.join_grades(human, pred)
    if missing_pred:
        warn("agreement", f"{len(missing_pred)} id(s) in {args.human} missing from {args.pred}: "
                          + ", ".join(missing_pred[:20]) + (" ..." if len(missing_pred) > 20 else ""))
    if missing_human:
        warn("agreement", f"{len(missing_human)} id(s) in {args.pred} missing from {args.human}: "
                          + ", ".join(missing_human[:20]) + (" ..." if len(missing_human) > 20 else ""))
    if not ids:
        error("agreement", "no id is graded in both files")
        return EXIT_INPUT
    try:
        if scale is None:
            one_side = pred_scale is not None or (hmap is not pmap)
            scale = agr.infer_scale(h if one_side else h + p)
            warn("agreement", f"no --scale: using {scale} (the grades seen); pass --scale to include unseen end grades")
        if pred_scale is None and hmap is not pmap:
            pred_scale = agr.infer_scale(p)
            warn("agreement", f"no --pred-scale: using {pred_scale} for the predicted grades (the grades seen)")
        report = agr.compute_agreement(h, p, scale, both, target, ac2_formula=args.ac2, pred_scale=pred_scale,
                                       human_map=human_map, pred_map=pred_map, rounding=args.rounding)
    except ValueError as exc:
        error("agreement", str(exc))
        return EXIT_INPUT
    report.missing_in_pred, report.missing_in_human = missing_pred, missing_human
    if args.format == "json":
        dump_json(report.to_dict())
        return EXIT_OK
    headers = ["", "n"] + [label for _, label in agr.METRICS]
    rows = [["grader", report.n] + [_fmt(report.metrics[k].value) for k, _ in agr.METRICS]]
    if report.majority is not None:
        rows.append([f"majority {agr._plain(report.majority)}", report.n]
                    + [_fmt(report.baseline[k].value) for k, _ in agr.METRICS])
    print(table(rows, headers))
    maps = ", ".join(f"{side} mapped by {m}" for side, m in
                     (("both", report.mapping), ("human", None if report.mapping else report.human_map),
                      ("predicted", None if report.mapping else report.pred_map)) if m)
    print(f"scale {report.scale}{', ' + maps if maps else ''}, AC2 formula: {report.ac2_formula}; "
          "1-Do/De: the paper's formula; majority: always the most frequent human grade")
    if report.rounded:
        print(f"{report.rounded} averaged grade(s) rounded half up for QWK and AC2 (the others use them as they are)")
    for key, label in agr.METRICS:
        m = report.metrics[key]
        if m.value is None:
            print(f"{label}: undefined - {m.reason}")
    return EXIT_OK
