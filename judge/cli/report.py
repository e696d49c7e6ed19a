"""``judge report RESULTS...``: summarize results files; with several, compare each with the
first (``--compare-models``: each model with the first model); ``--html FILE`` writes a
self-contained HTML report (no network, works from file://).

Any valid results file gives a report (exit 0; 1 with located errors for lines that are not
results): a number that is not finite (``NaN``, ``1e999``) is shown as missing, with a
warning naming it and a line in the report saying how many; every text written (stdout in
every format, the HTML file) is encodable, a lone surrogate written as its escape."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from judge.cli.common import (
    EXIT_INPUT, EXIT_OK, EXIT_USAGE, err, error, int_in, positive_int, print_issues,
)
from judge.errors import InputError, Issue

FORMATS = ("table", "markdown", "json", "html")
#: warnings printed for values shown as missing (the rest are counted)
MISSING_SHOWN = 20


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report", help="summarize results files; compare several; write an HTML report",
        description="Summarize one or more results files (per model, per problem and model, "
                    "pass rates with standard errors and 95% Wilson intervals, pass@k). With "
                    "several files, each is compared with the first: fixed / broke / still "
                    "failing problems, the difference in pass rate with a paired bootstrap "
                    "interval and McNemar's exact test.")
    p.add_argument("results", nargs="+", metavar="RESULTS",
                   help="results files (JSON Lines from judge run --output); the first is the "
                        "baseline of comparisons")
    p.add_argument("--format", choices=FORMATS, default="table",
                   help="stdout format (html: the whole self-contained page)")
    p.add_argument("--html", metavar="FILE",
                   help="also write the self-contained HTML report to FILE")
    p.add_argument("--compare-models", action="store_true",
                   help="compare models instead of files: each model (of every file) with "
                        "the baseline model")
    p.add_argument("--baseline", metavar="NAME",
                   help="what the others are compared with: a file name, or with "
                        "--compare-models a model ('model · file' with several files); "
                        "default: the first")
    p.add_argument("--bootstrap", type=positive_int, default=10000, metavar="N",
                   help="bootstrap resamples of the comparison interval (%(default)s)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the bootstrap: the same files give the same interval "
                        "(%(default)s)")
    p.add_argument("--score-mode", default="max_subtask", metavar="MODE",
                   help="how a scored problem's samples make its task score (CMS score "
                        "modes): max_subtask (IOI 2017+, default), max, max_tokened_last")
    p.add_argument("--score-precision", type=int_in(0, 9), default=2, metavar="DIGITS",
                   help="decimals task scores are rounded to, as CMS's score_precision "
                        "(%(default)s)")
    p.set_defaults(func=cmd_report)


def _utf8(stream: object) -> bool:
    return str(getattr(stream, "encoding", "") or "").lower().replace("-", "") == "utf8"


def _write(text: str) -> None:
    """``text`` on stdout, whatever its encoding: what it cannot encode is escaped (the
    reports are made printable already; this is for a stdout that is not UTF-8)."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")
    sys.stdout.write(text)


def cmd_report(args: argparse.Namespace) -> int:
    from judge import jsonl
    from judge.reports.compare import compare_runs, render_comparison
    from judge.reports.runs import by_model, read_runs
    from judge.errors import UnknownName
    from judge.reports.scores import task_scores, task_scores_text
    from judge.reports.tables import merge, model_of, natural_key, printable, render
    from judge.scoring.task_scores import SCORE_MODES

    try:
        mode = SCORE_MODES.canonical(args.score_mode)
    except UnknownName as exc:
        error("report", str(exc))  # one line, naming the closest mode or every one
        return EXIT_USAGE
    runs, issues = read_runs(args.results)
    print_issues(issues)
    missing = [note for run in runs for note in run.missing]
    print_issues(missing[:MISSING_SHOWN], prefix="warning: ")
    if len(missing) > MISSING_SHOWN:
        err("warning: ... and %d more values shown as missing" % (len(missing) - MISSING_SHOWN))
    several = len(runs) > 1
    summary = merge([run.summary(tagged=several) for run in runs])
    arms = by_model(runs) if args.compare_models else runs
    if args.baseline is not None:
        names = [arm.label for arm in arms]
        if args.baseline not in names:
            error("report", "no %s named %r (there are: %s)" % (
                "model" if args.compare_models else "results file", args.baseline,
                ", ".join(names)))
            return EXIT_USAGE
        arms.insert(0, arms.pop(names.index(args.baseline)))
    comparisons = compare_runs(arms, args.bootstrap, args.seed) if len(arms) > 1 else []
    tasks = [(run.label, found) for run in runs for found in
             [task_scores(run.rows, mode, args.score_precision, model_of=model_of,
                          natural_key=natural_key)] if found is not None]
    if args.html or args.format == "html":
        from judge.reports.html import render_html

        page = render_html(runs, summary, comparisons)
        if args.html:
            try:
                Path(args.html).write_text(page, encoding="utf-8", errors="backslashreplace")
            except OSError as exc:
                raise InputError([Issue(args.html, "cannot write the HTML report: %s"
                                        % (exc.strerror or exc))]) from None
            err("wrote %s" % args.html)
        if args.format == "html":
            _write(page)
    if args.format == "json":
        data = summary.to_json()
        if comparisons:
            data["comparisons"] = comparisons
        if tasks:  # one run: its task scores; several: a list, each with its run
            data["task_scores"] = tasks[0][1] if not several else \
                [{"run": label, **found} for label, found in tasks]
        # strict JSON (every number finite by now); escapes where stdout cannot hold a text
        text = jsonl.json_text(data, indent=2) if _utf8(sys.stdout) else \
            json.dumps(data, indent=2, ensure_ascii=True)
        _write(text + "\n")
    elif args.format != "html":
        _write(render(summary, args.format))
        for label, found in tasks:
            _write("\n" + ("%s: " % label if several else "")
                   + printable(task_scores_text(found, args.format)))
        for result in comparisons:
            _write("\n" + printable(render_comparison(result,
                                                      markdown=args.format == "markdown")))
    return EXIT_INPUT if issues else EXIT_OK
