"""The house: packages follow the data flow and lower layers never import higher ones.

Every ``import`` statement in the package (also those inside functions) is checked against
the layer table below, which is the picture in the README's "Architecture" section. A module
may import its own package and packages of strictly lower layers, nothing else.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "judge"

#: package -> layer; the README's architecture picture, bottom to top
LAYERS = {
    "judge.errors": 0, "judge.resources": 0,
    "judge.jsonl": 1, "judge.registry": 1,
    "judge.sandbox": 2, "judge.problem": 2, "judge.candidates": 2, "judge.scoring": 2,
    "judge.languages": 3,
    "judge.prompts": 4, "judge.grading": 4,
    "judge.execution": 5,
    "judge.importers": 6, "judge.reports": 6,
    "judge.api": 7,
    "judge.distributed": 8, "judge.service": 8,
    "judge.cli": 9, "judge.__main__": 10,
}


def _unit(module: str) -> str:
    """The layer unit a dotted module belongs to (``judge.sandbox.base`` -> ``judge.sandbox``)."""
    parts = module.split(".")
    for size in (2, 1):
        name = ".".join(parts[:size])
        if name in LAYERS:
            return name
    return module


def _module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "judge":  # from judge import x: x is the module
                found += [(node.lineno, "judge.%s" % alias.name) for alias in node.names]
            else:
                found.append((node.lineno, target))
    return [(line, name) for line, name in found if name == "judge" or name.startswith("judge.")]


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "_resources" not in p.parts)


def test_every_module_has_a_layer():
    missing = sorted({_unit(_module_name(p)) for p in MODULES} - set(LAYERS) - {"judge"})
    assert not missing, "add these to LAYERS (and the README picture): %s" % missing


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_upward_imports(path):
    here = _unit(_module_name(path))
    if here == "judge":
        return  # the package root re-exports the public API lazily, by name
    violations = []
    for line, target in _imports(path):
        there = _unit(target)
        if there == here or there == "judge":
            continue
        if there not in LAYERS:
            violations.append("%s:%d imports unknown %s" % (path.name, line, target))
        elif LAYERS[there] >= LAYERS[here]:
            violations.append("%s:%d: %s (layer %d) imports %s (layer %d)" % (
                path.name, line, here, LAYERS[here], target, LAYERS[there]))
    assert not violations, "\n".join(violations)


def test_sandbox_layer_loads_without_pydantic_or_jinja_from_above():
    """The sandbox back ends start their workers knowing nothing of problems or prompts."""
    import subprocess
    import sys

    code = ("import sys, judge.sandbox.process, judge.sandbox.docker; "
            "bad = [m for m in sys.modules if m.startswith(('judge.problem', 'judge.prompts', "
            "'judge.execution', 'pydantic'))]; print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_largest_module_is_small():
    sizes = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in MODULES}
    too_big = {str(p.relative_to(PACKAGE.parent)): n for p, n in sizes.items() if n >= 600}
    assert not too_big, "split these modules (>= 600 lines): %s" % too_big
