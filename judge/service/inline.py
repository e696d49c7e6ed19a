"""Inline program problems in a request: data only.

A client may send a whole program problem (``"kind": "program"``, as the dataset readers
make them) with its tests inline. Nothing in it may name a file or a program of the
server: ``stdin_file``, ``expected_file`` and ``files`` would read the server's files (and
hand them to the candidate), and an output validator is a program the server would run. A
checker of the judge's own (``tokens``, ``exact``, ``lines``) is data and is kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge.errors import InputError, Issue
from judge.problem.program import ProgramProblem, program_from_data

#: what inline tests are resolved against: nothing (they may name no file)
_NOWHERE = Path("/nonexistent/judge-inline")


def inline_program(data: dict[str, Any]) -> ProgramProblem:
    """A program problem from a request body (InputError naming the field when it names a
    file, carries a validator or is interactive)."""
    issues = []
    tests = data.get("tests")
    for index, test in enumerate(tests if isinstance(tests, list) else []):
        for key in ("stdin_file", "expected_file", "files"):
            if isinstance(test, dict) and test.get(key) is not None:
                issues.append(Issue("<request>", "an inline problem may not name files of "
                                    "the server; give stdin and expected inline",
                                    "tests[%d].%s" % (index, key)))
        if isinstance(test, dict) and isinstance(test.get("checker"), dict) and \
                test["checker"].get("type") == "validator":
            issues.append(Issue("<request>", "an inline problem may not carry an output "
                                "validator program", "tests[%d].checker" % index))
    checker = data.get("checker")
    if isinstance(checker, dict) and (checker.get("type") == "validator"
                                      or checker.get("validator") is not None):
        issues.append(Issue("<request>", "an inline problem may not carry an output validator "
                            "program (load the package on the server instead)", "checker"))
    if data.get("interactive"):
        issues.append(Issue("<request>", "interactive problems need a validator: load the "
                            "package on the server", "interactive"))
    if issues:
        raise InputError(issues)
    return program_from_data(data, "<request>", _NOWHERE)
