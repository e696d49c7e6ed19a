"""``judge serve``: the HTTP service (judge/service/) on uvicorn.

    judge serve [SUITE...] [--host 127.0.0.1] [--port 8080] [--sandbox auto|process|docker]
                [--jobs N] [--queue N] [--max-body-mb M] [limits]

A bearer token is required when ``JUDGE_API_TOKEN`` is set. SIGTERM or Ctrl-C shut down
gracefully: no new requests, in-flight ones finish, the sandbox pool is closed.
"""

from __future__ import annotations

import argparse
import socket
from typing import Any

from judge.cli.common import (EXIT_INPUT, EXIT_USAGE, add_limits, add_sandbox, err, limits,
                              nonnegative_int, positive_int, positive_seconds)
from judge.errors import InputError, Issue
from judge.settings import settings


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve", help="serve the judge over HTTP (needs the 'serve' extra)",
        description="An HTTP service over one warm sandbox pool: POST /v1/judge, "
                    "POST /v1/judge/batch, GET /v1/health, GET /v1/problems, and the "
                    "SandboxFusion-compatible POST /run_code, /submit, /common_evaluate_batch, "
                    "/v1/evaluate/batch; OpenAPI page at /docs. Set JUDGE_API_TOKEN to require 'Authorization: Bearer <token>'.")
    p.add_argument("suites", nargs="*", metavar="SUITE",
                   help="problem files or folders whose problems requests may name by id")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (%(default)s)")
    p.add_argument("--port", type=int, default=8080,
                   help="port (%(default)s; 0 picks a free one and prints it)")
    add_sandbox(p, isolation=False)
    p.add_argument("--queue", type=nonnegative_int, default=64,
                   help="candidates that may wait beyond those judging; past it: 429 "
                        "(%(default)s)")
    p.add_argument("--client-cap", type=nonnegative_int, default=0,
                   help="candidates one client (X-Judge-Client header, else its address) may "
                        "have admitted at once; past it: 429 (default: the whole queue)")
    p.add_argument("--max-body-mb", type=float, default=8.0,
                   help="largest request body; past it: 413 (%(default)s)")
    p.add_argument("--test-isolation", choices=("per-test", "on-failure"), default="per-test")
    p.add_argument("--allow-unisolated", action="store_true",
                   help="process sandbox as root: serve even where it cannot switch users or "
                        "cut the network (every result and /v1/health say so)")
    p.add_argument("--log-level", choices=("critical", "error", "warning", "info", "debug"),
                   default="warning")
    add_limits(p)
    fusion = p.add_argument_group("SandboxFusion routes (/run_code, /submit, ...)")
    fusion.add_argument("--fusion-run-timeout", type=positive_seconds, default=None,
                        metavar="S", help="the most wall-clock seconds a request's run_timeout "
                        "gets (default: --time-limit when given, else 10: what verl sends)")
    fusion.add_argument("--fusion-memory-mb", type=positive_int, default=None, metavar="MB",
                        help="the most memory_limit_MB a request gets (default: --memory-mb "
                        "when given, else 1024: what verl sends)")
    p.set_defaults(func=cmd_serve)


def load_problems(paths: list[str]) -> dict[str, Any]:
    """Every problem of ``paths`` by identifier; an identifier used twice is an error."""
    from judge.kinds.loader import load_suite

    problems: dict[str, Any] = {}
    issues: list[Issue] = []
    for path in paths:
        try:
            suite = load_suite(path)
        except InputError as exc:
            issues.extend(exc.issues)
            continue
        for problem in suite.problems:
            if problem.identifier in problems:
                issues.append(Issue(problem.source, "identifier %r is already used by %s" % (
                    problem.identifier, problems[problem.identifier].source), "identifier"))
            else:
                problems[problem.identifier] = problem
    if issues:
        raise InputError(issues)
    return problems


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from judge.service.app import DRAIN_TIMEOUT_S, ServiceConfig, create_app
    except ImportError as exc:
        err("judge serve needs the 'serve' extra: pip install 'judge[serve]' (%s)" % exc)
        return EXIT_INPUT
    if args.max_body_mb <= 0:
        err("usage error: --max-body-mb must be positive")
        return EXIT_USAGE
    problems = load_problems(args.suites)
    token = settings().api_token or None
    config = ServiceConfig(problems=problems, sandbox=args.sandbox, jobs=args.jobs,
                           queue=args.queue, max_body_mb=args.max_body_mb,
                           limits=limits(args), token=token,
                           test_isolation=args.test_isolation,
                           reference_timing=not args.no_reference_timing, notice=err,
                           allow_unisolated=args.allow_unisolated,
                           client_cap=args.client_cap or None,
                           fusion_run_timeout_s=args.fusion_run_timeout or args.time_limit,
                           fusion_memory_mb=args.fusion_memory_mb or args.memory_mb)
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
    except OSError as exc:
        err("cannot listen on %s:%d: %s" % (args.host, args.port, exc.strerror or exc))
        return EXIT_USAGE
    host, port = sock.getsockname()[:2]
    app = create_app(config)
    server = uvicorn.Server(uvicorn.Config(
        app, log_level=args.log_level, access_log=args.log_level in ("info", "debug"),
        timeout_graceful_shutdown=int(DRAIN_TIMEOUT_S), lifespan="on"))
    err("judge serve: http://%s:%d (%d problem%s, %s sandbox, %d job%s, queue %d%s); "
         "OpenAPI at /docs" % (
             host, port, len(problems), "" if len(problems) == 1 else "s", args.sandbox,
             args.jobs, "" if args.jobs == 1 else "s", args.queue,
             ", bearer token required" if token else ""))
    try:
        server.run(sockets=[sock])  # on SIGTERM/SIGINT uvicorn re-raises the signal at exit
    finally:
        sock.close()
    return 0 if server.started else EXIT_USAGE
