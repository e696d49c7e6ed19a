"""Importers: HumanEval- and MBPP-style benchmarks converted to problem suites.

A benchmark's tests are Python code (``assert candidate(x) == y`` and friends, loops, random
inputs, helper functions) run in the candidate's own process. The judge's format keeps
expected outputs out of the sandbox: a test is a call (inputs bound to the prototype's
parameters) plus an oracle the judge evaluates outside. So each benchmark test is converted:

- ``assert candidate(args) == value`` -> an *expected-value* test (``expected_output``),
  when the declared type carries the value faithfully (a tuple under ``Any`` does not);
- any other assert that calls the candidate once (``abs(candidate(x) - y) < 1e-6``,
  ``candidate(x) is True``, ``not candidate(x)``, ``math.isclose(...)``, helper-function
  checks, a property of a result bound to a name first) -> a *check* test: the assert's
  expression with the call replaced by ``output``, evaluated by the judge over the decoded
  output; the problem's ``checker`` holds the module-level helpers and imports it needs;
- what cannot be converted faithfully (several calls in one assert, results used
  indirectly, values that cannot be written down) is *reported*, never silently dropped.

How: the test function is not pattern-matched but *traced*. Its AST is instrumented (every
call of the candidate records its arguments; every statement that calls it records the
local variables it used) and run once, in a sandbox, against the reference solution,
so loops over literal lists, ``range`` loops and seeded or unseeded random inputs all expand
to concrete tests (``random`` is seeded, so an import is reproducible). Local values in a
check expression are written in as literals. Every converted test is then checked against
the reference solution through the judge's own comparison and checker code: a test that
does not reproduce the original assert's outcome is reported as unconvertible.

The test code and the reference solution of the imported file are the dataset's code, input
like any other: they run in a sandbox (``sandboxed``: namespaces, an unprivileged uid, CPU,
memory and process limits; JSON comes back), never in the judge's process.

Importers are found by name in :data:`IMPORTERS` (``base``); a package adds one through the
``judge.importers`` entry point group. Modules: ``records`` (reports, input files), ``values`` (literals, inferred types),
``ast_tools`` and ``tracer`` (running the test code), ``convert`` (building a problem),
``humaneval``, ``mbpp`` and ``evalplus`` (HumanEval+/MBPP+ release files, with their
extra tests; a release record given to the humaneval or mbpp importer is read as one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from judge.errors import InputError, Issue
from judge.importers.base import IMPORTERS, Importer, RecordImporter, file_name
from judge.importers.convert import convert
from judge.importers.humaneval import HumanEval, humaneval_source
from judge.importers.mbpp import Mbpp, mbpp_source
from judge.importers.records import ImportReport, default_humaneval_path, read_records

__all__ = ["IMPORTERS", "KINDS", "HumanEval", "ImportReport", "Importer", "Mbpp",
           "RecordImporter", "convert",
           "default_humaneval_path", "file_name", "humaneval_source", "import_suite",
           "mbpp_source", "read_records"]

#: Kattis / ICPC problem packages (program problems; several paths at once: ``import_paths``)
IMPORTERS.add("evalplus", "judge.importers.evalplus:EvalPlus",
              ("humaneval+", "humanevalplus", "mbpp+", "mbppplus", "evalplus-humaneval",
               "evalplus-mbpp"))
IMPORTERS.add("kattis", "judge.importers.kattis:KattisImporter", ("icpc", "problemtools"))
#: Polygon (Codeforces) packages, full ones (judge.importers.polygon)
IMPORTERS.add("polygon", "judge.importers.polygon:PolygonImporter", ("codeforces",))
#: test-program benchmarks (judge.importers.test_programs): the benchmark's own tests
IMPORTERS.add("multipl-e", "judge.importers.test_programs:MultiPLE", ("multiple", "multipl_e"))
IMPORTERS.add("humaneval-x", "judge.importers.test_programs:HumanEvalX", ("humaneval_x",))
IMPORTERS.add("mxeval", "judge.importers.test_programs:Mbxp", ("mbxp-mxeval",))

#: RL and eval datasets (judge.importers.datasets): problems in memory or a suite folder
IMPORTERS.add("apps", "judge.importers.rl_apps:Apps", ("taco",))
IMPORTERS.add("verl", "judge.importers.rl_apps:Verl", ("prime",))
IMPORTERS.add("codecontests", "judge.importers.rl_contests:CodeContests",
              ("code_contests", "code-contests"))
IMPORTERS.add("livecodebench", "judge.importers.rl_contests:LiveCodeBench", ("lcb",))
IMPORTERS.add("open-r1", "judge.importers.rl_contests:VerificationInfo",
              ("open_r1", "verification-info", "primeintellect"))

#: the built-in importers (``IMPORTERS.names()`` also lists those of installed packages)
KINDS = ("humaneval", "mbpp", "evalplus", "kattis", "apps", "verl", "codecontests", "livecodebench",
         "open-r1")


def import_suite(kind: str, path: str | Path | None, output: str | Path,
                 progress: Callable[[str], None] | None = None) -> ImportReport:
    """Convert a benchmark file to a suite folder: one problem file per task. Bad lines are
    reported (file and line) and the other tasks are still written. ``kind`` names an
    importer of :data:`IMPORTERS` (an unknown one is an UnknownName, a ValueError); without
    ``path``, the importer's default file."""
    importer = IMPORTERS.get(kind)
    source_path = Path(path) if path is not None else importer.default_path()
    if not source_path.exists():
        raise InputError([Issue(str(source_path), "no such file")])
    return importer.import_suite(IMPORTERS.canonical(kind), source_path, Path(output), progress)
