"""The house: packages follow the data flow and lower layers never import higher ones.

Every ``import`` statement in the package (also those inside functions) is checked against
the layer table below, which is the picture in the README's "Architecture" section. A module
may import its own package and packages of strictly lower layers, nothing else.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

PACKAGE = ROOT / "judge"

#: package -> layer; the README's architecture picture, bottom to top
LAYERS = {
    "judge.errors": 0, "judge.resources": 0,
    "judge.jsonl": 1, "judge.registry": 1, "judge.pyparse": 1,
    "judge.settings": 1,
    "judge.sandbox": 2, "judge.problem": 2, "judge.candidates": 2, "judge.scoring": 2,
    "judge.languages": 3,
    "judge.prompts": 4, "judge.grading": 4,
    "judge.engine": 5,
    "judge.kinds": 6,
    "judge.running": 7,
    "judge.distribution": 8, "judge.importers": 8, "judge.reports": 8,
    "judge.reward_policies": 8,
    "judge.api": 9,
    "judge.service": 10, "judge.integrations": 10, "judge.client": 10,
    "judge.cli": 11, "judge.rewards": 11, "judge.__main__": 12,
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

    code = ("import sys, judge.sandbox.backends.process.sandbox, judge.sandbox.backends.docker.sandbox; "
            "bad = [m for m in sys.modules if m.startswith(('judge.problem', 'judge.prompts', "
            "'judge.engine', 'judge.kinds', 'judge.running', 'pydantic'))]; print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_largest_module_is_small():
    sizes = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in MODULES}
    too_big = {str(p.relative_to(PACKAGE.parent)): n for p, n in sizes.items() if n >= 600}
    assert not too_big, "split these modules (>= 600 lines): %s" % too_big


# ---- registries and back ends in their layers ------------------------------------------------

#: every registry of things found by name: (module defining it, attribute)
REGISTRIES = [
    ("judge.languages", "REGISTRY"),
    ("judge.sandbox", "BACKENDS"),
    ("judge.distribution.executors", "EXECUTORS"),
    ("judge.kinds.base", "KINDS"),
    ("judge.engine.checkers.base", "CHECKERS"),
    ("judge.importers.base", "IMPORTERS"),
    ("judge.scoring.dimensions", "PRIMITIVES"),
    ("judge.scoring.task_scores", "SCORE_MODES"),
    ("judge.grading.proofs.workflows", "WORKFLOWS"),
    ("judge.reward_policies", "POLICIES"),
]


def _registries():
    import importlib

    from judge.registry import Registry

    found = []
    for module, attribute in REGISTRIES:
        try:
            registry = getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError):  # a registry not (yet) in this tree
            continue
        assert isinstance(registry, Registry), (module, attribute)
        found.append((module, registry))
    return found


def test_every_registry_is_listed_here():
    """A new ``Registry(...)`` in the package is checked by the tests below once listed."""
    listed = {module for module, _ in REGISTRIES}
    defined = set()
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Registry":
                defined.add(_module_name(path))
    assert defined - {"judge.registry"} <= listed, sorted(defined - listed)


@pytest.mark.parametrize("module, registry", _registries(), ids=lambda x: getattr(x, "kind", x))
def test_registered_things_sit_in_their_registry_layer(module, registry):
    """What a registry holds lives in the registry's own layer unit (a language in
    judge.languages, a sandbox back end in judge.sandbox, an executor in judge.execution),
    and the registry itself sits above judge.registry."""
    assert LAYERS[_unit(module)] > LAYERS["judge.registry"]
    names = registry.names()
    assert names, registry.kind
    misplaced = []
    for name in names:
        obj = registry.get(name)
        where = obj.__module__
        if not where.startswith("judge."):
            continue  # added by an installed package through an entry point
        if _unit(where) != _unit(module):
            misplaced.append("%s %r is %s (layer unit %s, not %s)"
                             % (registry.kind, name, where, _unit(where), _unit(module)))
    assert not misplaced, "\n".join(misplaced)


def test_back_end_modules_are_in_the_sandbox_layer_and_check_their_prerequisites():
    from judge.sandbox import BACKENDS
    from judge.sandbox.backends import SandboxBackend

    for name in BACKENDS.names():
        backend = BACKENDS.get(name)
        assert isinstance(backend, SandboxBackend)
        assert _unit(type(backend).__module__) == "judge.sandbox"
        assert type(backend).prerequisites is not SandboxBackend.prerequisites, name


# ---- no import cycles --------------------------------------------------------------------------

def _from_targets(node: ast.ImportFrom, package: str) -> set[str]:
    """What ``from X import a, b`` in ``package`` imports: ``X.a`` when that is a module,
    else ``X`` (relative imports resolved)."""
    if node.level:
        base = package.split(".")
        base = base[: len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    found = set()
    for alias in node.names:
        sub = "%s.%s" % (target, alias.name)
        found.add(sub if sub in KNOWN else target)
    return found


def _module_level_imports(path: Path) -> set[str]:
    """The judge modules ``path`` imports when it is imported: import statements at module
    level (also inside module-level ``try``/``if``), not inside functions, classes or
    ``if TYPE_CHECKING:``. ``from package import name`` counts ``package.name`` when that is
    a module, else ``package``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                found.update(_from_targets(node, package))
            elif isinstance(node, ast.If):
                test = ast.unparse(node.test)
                if "TYPE_CHECKING" not in test:
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)

    visit(tree.body)
    return {name for name in found if name in KNOWN and name != module}


KNOWN = {_module_name(p) for p in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def connect(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _every_import(path: Path) -> set[str]:
    """The judge modules ``path`` imports anywhere: at module level and inside functions
    and classes (a lazy import is still an edge), not under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    typing_only = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(block.test)
                   for stmt in block.body for node in ast.walk(stmt)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.update(_from_targets(node, package))
    return {name for name in found if name in KNOWN and name != module}


def test_no_import_cycles_at_module_level():
    """No two modules of the package import each other, directly or through others, when
    they are imported."""
    graph = {_module_name(p): _module_level_imports(p) for p in MODULES}
    assert _cycles(graph) == []


def test_no_import_cycles_counting_imports_inside_functions():
    """Nor through imports inside functions: a lazy import keeps ``judge --help`` light, never
    two modules that need each other (a plug-in is reached by name, through a registry)."""
    graph = {_module_name(p): _every_import(p) for p in MODULES}
    assert _cycles(graph) == []


# ---- no module but the Python language's asks "is it Python?" ---------------------------------

#: the one module that may know a language is called "python"
PYTHON_LANGUAGE = PACKAGE / "languages" / "python.py"
#: operands that hold something else called "python": a problem's equality mode
#: (``"equality": "python"``, the benchmark's own ``==``), not a language
_NOT_A_LANGUAGE = ("equality",)
#: comparisons let through by file and line text while a rewrite is pending (none now: the
#: worker is plain modules, no template of a "python" runner folder is rendered)
PENDING: dict[str, str] = {}


def _is_python(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == "python"


def _holds_python(node: ast.AST) -> bool:
    return _is_python(node) or (isinstance(node, (ast.Tuple, ast.List, ast.Set))
                                and any(_is_python(e) for e in node.elts))


def _names_something_else(node: ast.AST) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return any(word in str(name) for word in _NOT_A_LANGUAGE)


def python_comparisons(source: str) -> list[int]:
    """Lines of ``source`` that compare something with the constant "python" (``==``,
    ``!=``, ``is``, ``in ("python", ...)``, a ``match`` case)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left] + list(node.comparators)
            if any(_holds_python(o) for o in operands) \
                    and not any(_names_something_else(o) for o in operands):
                lines.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and _is_python(node.value):
            lines.append(node.lineno)
    return lines


def test_the_python_comparison_finder_finds_them():
    source = ("a = lang == 'python'\nb = 'python' != x.language\nc = y in ('python', 'js')\n"
              "d = problem.equality == 'python'\ne = {'python': 1}\n"
              "match lang:\n    case 'python':\n        pass\n")
    assert python_comparisons(source) == [1, 2, 3, 7]


def test_no_module_outside_the_python_language_compares_a_language_with_python():
    found = []
    for path in MODULES:
        relative = str(path.relative_to(PACKAGE.parent))
        if path == PYTHON_LANGUAGE:
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        found += ["%s:%d" % (relative, line) for line in python_comparisons(text)
                  if not (relative in PENDING and PENDING[relative] in lines[line - 1])]
    assert not found, ("ask the Language (judge.languages.get(name).default, "
                       ".worker_native, .image...) instead: %s" % ", ".join(found))


# ---- no module but a problem kind's asks "what kind of problem is it?" ------------------------

#: the problem models, by class name (a kind's own module may name its model)
_PROBLEM_MODELS = {"Problem", "ProgramProblem"}


def _kind_names() -> set[str]:
    from judge.kinds.base import KINDS

    return set(KINDS.names())


def _reads_kind(node: ast.AST) -> bool:
    """``x.kind``, ``getattr(x, "kind", ...)``, ``data.get("kind")`` or ``data["kind"]``."""
    if isinstance(node, ast.Attribute):
        return node.attr == "kind"
    if isinstance(node, ast.Call):
        func, args = node.func, node.args
        if isinstance(func, ast.Name) and func.id == "getattr" and len(args) >= 2:
            return isinstance(args[1], ast.Constant) and args[1].value == "kind"
        if isinstance(func, ast.Attribute) and func.attr == "get" and args:
            return isinstance(args[0], ast.Constant) and args[0].value == "kind"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "kind"
    return False


def kind_comparisons(source: str, kinds: set[str]) -> list[int]:
    """Lines of ``source`` that compare a problem's kind with a kind's name, test a value
    against a problem model class, or call an ``is_program``-style helper."""
    def names_a_kind(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in kinds
        return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and any(
            names_a_kind(e) for e in node.elts)

    def names_a_model(node: ast.AST) -> bool:
        name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if name in _PROBLEM_MODELS:
            return True
        return isinstance(node, ast.Tuple) and any(names_a_model(e) for e in node.elts)

    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left] + list(node.comparators)
            if any(_reads_kind(o) for o in operands) and any(names_a_kind(o) for o in operands):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name == "isinstance" and len(node.args) == 2 and names_a_model(node.args[1]):
                lines.append(node.lineno)
            elif name.startswith("is_program"):
                lines.append(node.lineno)
    return lines


def test_the_kind_finder_finds_kind_questions():
    kinds = {"function", "program"}
    found = kind_comparisons(
        'a = p.kind == "program"\nb = getattr(p, "kind", None) != "program"\n'
        'c = d.get("kind") in ("program", "x")\ne = isinstance(p, (Problem, ProgramProblem))\n'
        'f = is_program(p)\ng = spec.kind == "tuple"\nh = KINDS.get(p.kind)\n', kinds)
    assert found == [1, 2, 3, 4, 5]


def test_only_the_problem_kinds_ask_a_problems_kind():
    """A problem's kind decides behaviour in one place, its kind's module
    (``judge/kinds/``): everything else asks ``kind_of(problem)`` for what it needs."""
    kinds = _kind_names()
    found = []
    for path in MODULES:
        if path.relative_to(PACKAGE).parts[0] == "kinds":
            continue
        found += ["%s:%d" % (path.relative_to(PACKAGE.parent), line)
                  for line in kind_comparisons(path.read_text(encoding="utf-8"), kinds)]
    assert not found, found
