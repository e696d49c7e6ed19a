"""``judge sandbox doctor``: what this host can judge with, and what to do next.

Two parts. The docker sandbox's state in detail (engine, images, containers left by dead
runs, next steps: :func:`judge.sandbox.backends.docker.maintenance.doctor`). Then every registered sandbox
back end, executor and language with its prerequisites (the compilers and runtimes with
their versions) and whether each is met here, as inspect_ai's ``util/_sandbox/`` lets each
sandbox environment say what it needs. A back end, executor or language added by an
installed package (an entry point) is listed the same way.
"""

from __future__ import annotations

import argparse
from typing import Any

from judge.sandbox.prerequisites import Prerequisite, all_met


def _checked(obj: Any) -> list[Prerequisite]:
    """An object's prerequisites; a check that fails is itself a prerequisite not met."""
    try:
        return list(obj.prerequisites())
    except Exception as exc:  # noqa: BLE001 - a plug-in's broken check: say it, go on
        return [Prerequisite("check", "its prerequisites check", False,
                             "the check failed: %s: %s" % (type(exc).__name__, exc))]


def _entries(registry: Any) -> list[dict[str, Any]]:
    entries = []
    for name in registry.names():
        try:
            obj = registry.get(name)
        except Exception as exc:  # noqa: BLE001 - a plug-in that does not import
            found = [Prerequisite("import", "its module", False,
                                  "%s: %s" % (type(exc).__name__, exc))]
            entries.append({"name": name, "description": "", "prerequisites": found,
                            "ready": False})
            continue
        found = _checked(obj)
        entries.append({"name": name,
                        "description": getattr(obj, "description", "")
                        or getattr(obj, "title", ""),
                        "prerequisites": found, "ready": all_met(found)})
    return entries


def doctor_report() -> dict[str, list[dict[str, Any]]]:
    """Every registered sandbox back end, executor and language, with its prerequisites."""
    from judge import languages
    from judge.distribution.executors import EXECUTORS
    from judge.sandbox import BACKENDS

    return {"sandboxes": _entries(BACKENDS), "executors": _entries(EXECUTORS),
            "languages": _entries(languages.REGISTRY)}


def render(report: dict[str, list[dict[str, Any]]]) -> str:
    titles = {"sandboxes": "sandbox back ends",
              "executors": "executors",
              "languages": "languages (their toolchains on this host, for the process "
                           "sandbox; the docker sandbox has them in its images)"}
    lines = []
    for section, entries in report.items():
        lines.append("%s:" % titles.get(section, section))
        for entry in entries:
            lines.append("  %-8s %s%s" % (entry["name"], "ready" if entry["ready"]
                                          else "NOT READY",
                                          " - %s" % entry["description"]
                                          if entry["description"] else ""))
            lines += ["    %s" % p.line() for p in entry["prerequisites"]]
    return "\n".join(lines)


def cmd_doctor(args: argparse.Namespace) -> int:
    """The docker images asked for by ``--language`` (python's, the native one, or both with
    ``all``) in detail, then every back end, executor and language. Exit 3 when the docker
    image asked for is not ready (or, for another language, its host toolchain is missing)."""
    from judge import languages
    from judge.cli.common import EXIT_OK, EXIT_SANDBOX
    from judge.sandbox.backends.docker import maintenance

    if args.language == "all":
        images = ["python", "native", "polyglot"]
    elif args.language in languages.REGISTRY:
        images = [languages.get(args.language).pool]
    else:
        images = [args.language]
    ok = True
    for image in dict.fromkeys(images):
        report = maintenance.doctor(image)
        print(report)
        ok = ok and getattr(report, "ok", True)
    full = doctor_report()
    print()
    print(render(full))
    if not (args.language in languages.REGISTRY
            and not languages.get(args.language).worker_native):
        # another language: the host's toolchains of the built-in ones are needed too
        ok = ok and all(e["ready"] for e in full["languages"] if e["name"] in languages.NATIVE)
    return EXIT_OK if ok else EXIT_SANDBOX


__all__ = ["cmd_doctor", "doctor_report", "render"]
