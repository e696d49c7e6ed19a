"""MBPP records (text, code, test_list, ...) as importer sources."""


from __future__ import annotations

import ast
from typing import Any

from judge.importers.base import IMPORTERS, RecordImporter
from judge.importers.convert import Source
from judge.importers.evalplus import evalplus_source, is_release_record




# ---- MBPP --------------------------------------------------------------------------------------------

def mbpp_source(record: dict[str, Any]) -> Source:
    """An MBPP / MBPP+ record (``task_id``, ``text`` or ``prompt``, ``code``, ``test_list``,
    ``test_imports``, optional ``test_setup_code``; MBPP+'s ``test`` script when present).
    An EvalPlus release record (``base_input``, ``plus_input``, no ``code``) is read by
    :func:`judge.importers.evalplus.evalplus_source`, with its extra tests."""
    if is_release_record(record):
        return evalplus_source(record)
    task = record.get("task_id")
    if isinstance(task, bool) or not isinstance(task, (int, str)) or task == "":
        raise ValueError("missing field 'task_id' (a string or an integer)")
    task_id = str(task)
    text = record.get("text") if record.get("text") is not None else record.get("prompt")
    if not isinstance(text, str) or not text.strip():
        raise ValueError("missing field 'text' (or 'prompt'): the task statement")
    code = record.get("code")
    if not isinstance(code, str) or not code.strip():
        raise ValueError("missing field 'code': the reference solution")
    code = code.replace("\r\n", "\n")
    tests = record.get("test_list")
    if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
        raise ValueError("missing field 'test_list' (a list of assert statements)")
    imports = record.get("test_imports") or []
    if not isinstance(imports, list) or not all(isinstance(t, str) for t in imports):
        raise ValueError("test_imports must be a list of import statements")
    setup = record.get("test_setup_code") or ""
    if not isinstance(setup, str):
        raise ValueError("test_setup_code must be a string")
    plus = record.get("test") if isinstance(record.get("test"), str) else None
    if not tests and not plus:
        raise ValueError("test_list is empty: nothing to judge")
    try:
        code_tree = ast.parse(code)
    except SyntaxError as exc:
        raise ValueError("the code does not parse: %s (line %s)" % (exc.msg, exc.lineno)) from None
    body_lines = [t.replace("\r\n", "\n").strip() for t in tests]
    script = plus.replace("\r\n", "\n") if plus else "\n".join(body_lines)
    try:
        script_tree = ast.parse(script)
    except SyntaxError as exc:
        raise ValueError("the tests do not parse: %s (line %s)" % (exc.msg, exc.lineno)) from None
    called = {n.func.id for n in ast.walk(script_tree)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    defs = [n for n in code_tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    entry = record.get("entry_point") if isinstance(record.get("entry_point"), str) else None
    fn = next((d for d in defs if d.name == entry), None) if entry else \
        next((d for d in defs if d.name in called), None)
    if fn is None:
        raise ValueError("no function defined in 'code' is called by the tests (defined: %s)"
                         % (", ".join(d.name for d in defs) or "none"))
    entry = fn.name
    check_source = "def check(%s):\n%s\n" % (entry, "\n".join(
        "    " + line if line.strip() else "" for line in script.splitlines()))
    check = ast.parse(check_source).body[0]
    assert isinstance(check, ast.FunctionDef)
    test_module = "\n".join(imports + ([setup] if setup.strip() else []))
    shown = "\n".join(body_lines[:3])
    prompts = [{
        "prompt_id": "mbpp",
        "prompt": "%s\nYour code should pass these tests:\n\n%s" % (text.strip(), shown),
        "genericize": False,
        "sample_inputs_outputs": [],
    }]
    return Source(
        task_id=task_id, entry=entry, signature=fn, reference_code=code,
        test_module=test_module, check=check, check_source=check_source, candidate=entry,
        description=text.strip(), prompts=prompts, optimal_solution=code, tags=["mbpp"],
        reference_names={d.name for d in defs} - {entry})


@IMPORTERS.register("mbpp")
class Mbpp(RecordImporter):
    """MBPP (``judge import mbpp FILE``); EvalPlus's MBPP+ release records too."""

    label = "MBPP"
    file_prefix = "mbpp_"

    def source(self, record: dict[str, Any]) -> Source:
        return mbpp_source(record)
