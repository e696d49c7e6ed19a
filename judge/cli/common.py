"""What every command of the command line shares: exit statuses, the parser class, option
types and option groups, and the output helpers (messages on stderr, tables, JSON).

The command modules (``main``, ``importing``, ``scoring``, ``grade``, ``serve``) import
from here and never from each other's private names, so the command line has no import
cycle: ``main`` builds the parser and registers the others; nothing imports ``main``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any, Callable, Sequence

from judge.errors import Issue, UnknownName
from judge.jsonl import json_text

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_SANDBOX = 0, 1, 2, 3
#: ``judge match --judge llm``: the LLM judge was unavailable (the sandbox's status number)
EXIT_SERVICE = 3
#: ``judge grade``: some solutions could not be graded
EXIT_UNGRADED = 4
#: Ctrl-C: the shell's status for SIGINT
EXIT_INTERRUPTED = 130


# ---- output -------------------------------------------------------------------------------

def err(message: str, command: str | None = None) -> None:
    """One line on stderr (``judge COMMAND: message`` when a command is named)."""
    if command:
        message = "judge %s: %s" % (command, message)
    print(message, file=sys.stderr, flush=True)


def error(command: str, message: str) -> None:
    """``judge COMMAND: error: message`` on stderr."""
    err("error: %s" % message, command)


def warn(command: str, message: str) -> None:
    """``judge COMMAND: warning: message`` on stderr."""
    err("warning: %s" % message, command)


def print_issues(issues: Sequence[Issue], prefix: str = "error: ") -> None:
    """Every issue of an input file on its own stderr line (file, line and location)."""
    for issue in issues:
        err("%s%s" % (prefix, issue))


def report_issue(issue: Issue) -> None:
    """One issue, as :func:`print_issues` says it (a callback for streaming readers)."""
    err("error: %s" % issue)


def dump_json(obj: Any) -> None:
    """``obj`` as indented JSON on stdout."""
    print(json_text(obj, indent=2, sort_keys=False))


def table(rows: list[list[Any]], headers: list[str]) -> str:
    """A plain table; numbers keep the formatting given (no re-parsing by tabulate)."""
    from tabulate import tabulate

    return tabulate(rows, headers=headers, disable_numparse=True)


# ---- the parser ----------------------------------------------------------------------------

class Parser(argparse.ArgumentParser):
    """Usage errors exit 2, as the contract says."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        err("%s: error: %s" % (self.prog, message))
        raise SystemExit(EXIT_USAGE)


# ---- option types (a bad value is a usage error, exit 2) -----------------------------------

def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not an integer" % text) from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1, got %d" % value)
    return value


def nonnegative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not an integer" % text) from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be at least 0, got %d" % value)
    return value


def positive_seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number" % text) from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a positive number of seconds, got %s" % text)
    return value


def positive_number(text: str) -> float:
    """A finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text[:40]!r}")
    return value


def non_negative_number(text: str) -> float:
    """A finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text[:40]!r}")
    return value


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """An integer between ``lo`` and ``hi`` (both included)."""

    def parse(text: str) -> int:
        if not text.strip().lstrip("-").isdigit() or len(text.strip()) > 12:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text[:40]!r}")
        value = int(text)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be between {lo} and {hi}, got {value}")
        return value

    return parse


class RegistryChoices:
    """A registry's names (and any ``extra`` words such as ``auto``) as an option's
    ``choices``: checked by lookup, listed (which reads the installed packages' entry points)
    only when help or a usage error shows them."""

    def __init__(self, registry: Any, extra: tuple[str, ...] = ()) -> None:
        self.registry = registry
        self.extra = extra

    def __contains__(self, name: object) -> bool:
        return name in self.extra or name in self.registry

    def __iter__(self) -> Any:
        return iter([*self.extra, *self.registry.names()])


def add_name_argument(parser: argparse.ArgumentParser, flag: str, registry: Any,
                      extra: tuple[str, ...] = (), **kwargs: Any) -> None:
    """An argument naming an entry of ``registry``: an alias becomes the registered name; an
    unknown name is a usage error that suggests the closest one (``unknown importer
    'humaneva' (did you mean 'humaneval'?)``)."""

    def lookup(text: str) -> str:
        if text in extra:
            return text
        try:
            return registry.canonical(text)
        except UnknownName as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    lookup.__name__ = registry.kind  # argparse names the type in some messages
    parser.add_argument(flag, type=lookup, choices=RegistryChoices(registry, extra), **kwargs)


def add_language(parser: argparse.ArgumentParser, help: str, extra: tuple[str, ...] = (),
                 default: str = "python") -> None:
    """``--language NAME``: any registered language (aliases such as ``c++`` accepted)."""
    from judge.languages import REGISTRY

    add_name_argument(parser, "--language", REGISTRY, extra=extra, default=default, help=help)


def add_executor(parser: argparse.ArgumentParser, help: str) -> None:
    from judge.distribution.executors import EXECUTORS

    add_name_argument(parser, "--executor", EXECUTORS, default="local", help=help)


# ---- option groups -------------------------------------------------------------------------

def add_limits(parser: argparse.ArgumentParser) -> None:
    """The per-test and per-candidate limits (``--time-limit``, ``--memory-mb``, ...)."""
    from judge.sandbox.base import Limits

    d = Limits()
    group = parser.add_argument_group("limits (per test unless noted)")
    group.add_argument("--time-limit", type=positive_seconds, default=None, metavar="S",
                       help="CPU seconds when the problem has no reference timing (%g); given, "
                            "also the most a problem's own time limit may be"
                            % d.time_limit_s)
    group.add_argument("--time-floor", type=positive_seconds, default=d.time_floor_s, metavar="S",
                       help="lowest limit derived from the reference (%(default)s)")
    group.add_argument("--time-factor", type=positive_seconds, default=d.time_factor, metavar="X",
                       help="limit = max(floor, X * reference time) (%(default)s)")
    group.add_argument("--memory-mb", type=positive_int, default=None, metavar="MB",
                       help="(%d); given, also the most a problem's own memory limit may be"
                            % d.memory_mb)
    group.add_argument("--output-kb", type=positive_int, default=None, metavar="KB",
                       help="cap on printed output and written files (%d); given, also the "
                            "most a problem's own output limit may be" % d.output_kb)
    group.add_argument("--budget", type=positive_seconds, default=None, metavar="S",
                       help="CPU seconds for all of a candidate's tests together (default: "
                            "%g x the sum of its per-test limits, at most --budget-cap)"
                            % d.budget_factor)
    group.add_argument("--budget-cap", type=positive_seconds, default=d.budget_cap_s,
                       metavar="S", help="most a derived candidate budget can be (%(default)s)")
    group.add_argument("--max-problem-time", type=positive_seconds, default=None,
                       metavar="S", help="the most a problem's own time limit per test may be "
                                         "(%g, or --time-limit when given)"
                                         % d.max_problem_time_s)
    group.add_argument("--max-problem-memory-mb", type=positive_int, default=None,
                       metavar="MB", help="the most a problem's own memory limit may be (%d, "
                                          "or --memory-mb when given)" % d.max_problem_memory_mb)
    group.add_argument("--max-problem-output-kb", type=positive_int, default=None,
                       metavar="KB", help="the most a problem's own output limit may be (%d, "
                                          "or --output-kb when given)" % d.max_problem_output_kb)
    group.add_argument("--no-reference-timing", action="store_true",
                       help="use --time-limit everywhere instead of timing the reference")


def limits(args: argparse.Namespace) -> Any:
    """The :class:`~judge.sandbox.base.Limits` of the options :func:`add_limits` added."""
    from judge.sandbox.base import Limits

    given = {name: value for name, value in (
        ("time_limit_s", args.time_limit), ("memory_mb", args.memory_mb),
        ("output_kb", args.output_kb), ("budget_s", args.budget),
        ("max_problem_time_s", args.max_problem_time),
        ("max_problem_memory_mb", args.max_problem_memory_mb),
        ("max_problem_output_kb", args.max_problem_output_kb)) if value is not None}
    return Limits(time_floor_s=args.time_floor, time_factor=args.time_factor,
                  budget_cap_s=args.budget_cap, **given).with_ceilings(set(given))


def add_sandbox_choice(parser: argparse.ArgumentParser, **kwargs: Any) -> None:
    """``--sandbox auto|NAME``: auto, or any registered sandbox back end."""
    from judge.sandbox import BACKENDS

    kwargs.setdefault("help", "auto: docker when an engine answers, else the process sandbox")
    add_name_argument(parser, "--sandbox", BACKENDS, extra=("auto",), default="auto", **kwargs)


def add_sandbox(parser: argparse.ArgumentParser, isolation: bool = True) -> None:
    """``--sandbox`` and ``--jobs`` (and, unless ``isolation=False``, ``--isolation`` and
    ``--allow-unisolated``)."""
    add_sandbox_choice(parser)
    parser.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1,
                        help="candidates judged at once (default: the CPU count, %(default)s)")
    if not isolation:
        return
    parser.add_argument("--isolation", choices=("warm", "fresh"), default="warm",
                        help="warm: reuse sandbox workers; fresh: a new one per candidate")
    parser.add_argument("--allow-unisolated", action="store_true",
                        help="process sandbox as root: run candidates even where it cannot "
                             "switch users or cut the network (every result says so)")


def isolation_line(facts: dict[str, Any]) -> str:
    """The isolation in force, said once per run."""
    text = "sandbox isolation: %s; user: %s; network: %s; /tmp: %s; files: %s" % (
        facts.get("backend"), facts.get("user"), facts.get("network"), facts.get("tmp"),
        facts.get("filesystem"))
    if facts.get("image"):
        text += "; image: %s" % facts["image"]
    if not facts.get("isolated"):
        text += " -- UNISOLATED (%s)" % facts.get("warning", "see the README")
    return text
