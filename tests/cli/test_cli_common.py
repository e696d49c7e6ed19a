"""The command line's modules share one module of options and output helpers and do not
import each other: ``main`` registers the other command modules, nothing imports ``main``
from tests.paths import ROOT
(except the package entry points), and no module keeps its own copy of the helpers."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

from judge.cli import common
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

CLI = ROOT / "judge" / "cli"
MODULES = sorted(p for p in CLI.glob("*.py"))


def _cli_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "judge.cli":
                found |= {"judge.cli.%s" % a.name for a in node.names}
            elif node.module.startswith("judge.cli."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("judge.cli.")}
    return found


def test_no_import_cycle_between_cli_modules():
    graph = {"judge.cli.%s" % p.stem: _cli_imports(p) for p in MODULES if p.stem != "__init__"}
    for module, targets in graph.items():
        for target in targets:
            assert module not in graph.get(target, set()), "%s <-> %s" % (module, target)
    assert graph["judge.cli.common"] == set(), "common is the bottom of the command line"
    importers_of_main = [m for m, targets in graph.items() if "judge.cli.main" in targets]
    assert importers_of_main == [], importers_of_main


@pytest.mark.parametrize("path", [p for p in MODULES if p.stem not in ("common", "__init__")],
                         ids=lambda p: p.name)
def test_command_modules_keep_no_copy_of_the_shared_helpers(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    copies = defined & {"_err", "_warn", "_dump", "_table", "_print_issues", "_positive_int",
                        "_positive_float", "_nonnegative_int", "_non_negative_float", "_int_in",
                        "_add_limits", "_limits", "_add_sandbox", "_Parser"}
    assert not copies, copies
    assigned = [t.id for node in tree.body if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)]
    assert not [n for n in assigned if n.startswith("EXIT_")], assigned


def test_messages(capsys):
    common.err("plain")
    common.err("with a command", "grade")
    common.error("score", "bad spec")
    common.warn("score", "no rows")
    assert capsys.readouterr().err.splitlines() == [
        "plain", "judge grade: with a command", "judge score: error: bad spec",
        "judge score: warning: no rows"]


def test_usage_errors_exit_2(capsys):
    parser = common.Parser(prog="judge x")
    parser.add_argument("--jobs", type=common.positive_int)
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["--jobs", "0"])
    assert exit_info.value.code == common.EXIT_USAGE
    assert "judge x: error: argument --jobs: must be at least 1, got 0" in capsys.readouterr().err


@pytest.mark.parametrize("parse, text, message", [
    (common.positive_int, "x", "is not an integer"),
    (common.nonnegative_int, "-1", "at least 0"),
    (common.positive_seconds, "inf", "positive number of seconds"),
    (common.positive_seconds, "nan", "positive number of seconds"),
    (common.positive_number, "0", "finite number > 0"),
    (common.non_negative_number, "-0.5", "finite number >= 0"),
    (common.int_in(1, 64), "65", "between 1 and 64"),
    (common.int_in(1, 64), "1" * 40, "expected an integer"),
])
def test_option_types_refuse_bad_values(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        parse(text)


def test_limits_round_trip_through_the_options():
    parser = argparse.ArgumentParser()
    common.add_limits(parser)
    args = parser.parse_args(["--time-limit", "3", "--memory-mb", "128", "--budget", "9"])
    limits = common.limits(args)
    assert (limits.time_limit_s, limits.memory_mb, limits.budget_s) == (3.0, 128, 9.0)
