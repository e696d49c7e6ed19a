"""One path for every surface (issue 32, item 3): the HTTP service judges and runs code only
through the public API (``judge.Judge``: ``judge``, ``judge_many``, ``run_program``...), so
no module of ``judge/service/`` builds a sandbox job, runs one, reads a worker's records or
reaches into a Judge's executor or engine. An AST scan of every module of the package (also
the imports inside functions). Pure: nothing is run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

SERVICE = ROOT / "judge" / "service"

#: modules below the API the service may not import: the sandbox (any module), the one
#: compile step, the records-to-verdicts step, the engine's program runs (reached through
#: ``judge.Judge.run_program``), the engine, the executor and the distribution
FORBIDDEN = ("judge.sandbox", "judge.engine.compile_step", "judge.engine.program_verdicts",
             "judge.engine.program_runs", "judge.engine.engine", "judge.running.executor",
             "judge.distribution")
#: plain data of the sandbox's interface the service may name: the limits a server is
#: started with and the error of a sandbox that cannot be opened. (The package root's
#: re-exports, ``judge.Limits`` and ``judge.SandboxUnavailable``, cannot be imported from
#: inside the package: tests/house/test_layering.py refuses ``from judge import Limits``.)
PLAIN_DATA = {"judge.sandbox.base": {"Limits", "SandboxUnavailable"}}
#: imports let through by file while a rewrite is pending, with why: the service's sizing
#: reads the sandbox's overcommit factor (how many candidates may be in flight per core)
PENDING = {"judge/service/app.py": {"judge.sandbox.admission"}}
#: a Judge's insides: reading them is judging beside the API
INSIDES = ("executor", "engine", "compile_cache")


def imports(source: str, package: str = "judge.service") -> list[tuple[int, str, set[str]]]:
    """(line, module, names imported from it) for every import of ``source`` (a module of
    ``package``), relative ones resolved; ``import a.b`` names nothing."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, set()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = {alias.name for alias in node.names}
            if target in ("judge", "judge.sandbox", "judge.engine", "judge.running"):
                # from judge.sandbox import admission: the module is judge.sandbox.admission
                found += [(node.lineno, "%s.%s" % (target, name), set()) for name in names]
                found.append((node.lineno, target, names))
            else:
                found.append((node.lineno, target, names))
    return found


def _forbidden(module: str) -> bool:
    return any(module == f or module.startswith(f + ".") for f in FORBIDDEN)


def wrong_imports(source: str, relative: str = "") -> list[str]:
    """The imports of a service module that reach below the API."""
    allowed = PENDING.get(relative, set())
    found = []
    for line, module, names in sorted(imports(source), key=lambda item: item[0]):
        if not _forbidden(module) or module in allowed:
            continue
        if module in PLAIN_DATA and names and names <= PLAIN_DATA[module]:
            continue
        if module in ("judge.sandbox", "judge.engine", "judge.running") and names:
            continue  # the package's own submodules are checked one by one (above)
        found.append("%d: %s%s" % (line, module, " (%s)" % ", ".join(sorted(names))
                                   if names else ""))
    return found


def reaches_inside(source: str) -> list[str]:
    """Calls ``<...sandbox...>.run(...)`` (running a job on a sandbox), and reads of a
    Judge's executor, engine or compile cache."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "run" and "sandbox" in ast.unparse(node.func.value).lower():
            found.append((node.lineno, ast.unparse(node.func)))
        elif isinstance(node, ast.Attribute) and node.attr in INSIDES:
            found.append((node.lineno, "." + node.attr))
    return ["%d: %s" % item for item in sorted(found)]


def test_the_finders_find_them():
    source = ("from judge.sandbox import records\n"
              "from judge.sandbox.base import JobReport, Limits\n"
              "from judge.sandbox.base import Limits, SandboxUnavailable\n"
              "import judge.sandbox.process\n"
              "from judge.engine.compile_step import sandbox_job\n"
              "from judge.engine import program_verdicts\n"
              "from judge.engine.verdicts import Verdict\n"
              "from judge.api import Judge, RunSpec\n"
              "from ..engine.program_runs import run_program\n"
              "def f():\n    from judge.running.executor import Executor\n")
    assert wrong_imports(source) == [
        "1: judge.sandbox.records", "2: judge.sandbox.base (JobReport, Limits)",
        "4: judge.sandbox.process", "5: judge.engine.compile_step (sandbox_job)",
        "6: judge.engine.program_verdicts", "9: judge.engine.program_runs (run_program)",
        "11: judge.running.executor (Executor)"]
    assert wrong_imports("from judge.sandbox import admission\n", "judge/service/app.py") == []
    calls = ("report = self.sandbox.run(job)\nbox.run(job)\nsandbox.run(j)\n"
             "x = judge.executor.engine\nself.scheduler.run(c)\nself.judge.run_program(l)\n"
             "cache = executor.compile_cache\n")
    assert reaches_inside(calls) == ["1: self.sandbox.run", "3: sandbox.run",
                                     "4: .engine", "4: .executor", "7: .compile_cache"]


def _modules() -> list[Path]:
    return sorted(SERVICE.rglob("*.py"))


def test_the_scan_covers_the_sandboxfusion_routes():
    names = {p.name for p in _modules()}
    assert {"app.py", "fusion.py", "fusion_routes.py", "fusion_models.py"} <= names


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_service_module_imports_nothing_below_the_api(path):
    relative = path.relative_to(ROOT).as_posix()
    source = path.read_text(encoding="utf-8")
    wrong = wrong_imports(source, relative)
    assert not wrong, ("%s runs code beside the public API (call judge.Judge: judge, "
                       "judge_many, run_program): %s" % (relative, "; ".join(wrong)))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_service_module_runs_no_sandbox_job_and_reads_no_judges_insides(path):
    relative = path.relative_to(ROOT).as_posix()
    found = reaches_inside(path.read_text(encoding="utf-8"))
    assert not found, "%s: %s" % (relative, "; ".join(found))


def test_run_program_is_not_offered_on_ray_and_says_so_before_anything_starts():
    """The one program-runs door of the API runs on this machine's sandbox: a Ray Judge
    answers with one located JudgeError, without starting Ray or a sandbox."""
    from judge.api import Judge, RunSpec
    from judge.errors import JudgeError

    judge = Judge(executor="ray")
    try:
        with pytest.raises(JudgeError, match=r"run_program .*executor='ray'"):
            judge.run_program("python", "print(1)\n", [b""], RunSpec(wall_s=1.0, memory_mb=64))
        assert judge._executor is None
    finally:
        judge.close()
