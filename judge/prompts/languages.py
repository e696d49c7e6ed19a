"""Prompts in another language, from the same problem definition: the signature, the samples
and a completion stub in that language's syntax (jinja2: judge/prompts/templates/
prompt_language.md.j2), with names in the language's usual case. ``--genericize`` renames
consistently (function ``func``, parameters ``arg1``...; the judge maps them back). A problem
whose types the language cannot express is reported once and skipped."""

from __future__ import annotations

import ast
from typing import Any

from judge.languages import get
from judge.languages.base import NotExpressible
from judge.problem.model import Problem, Prompt, Suite
from judge.problem.types import from_json, parse_type
from judge.pyparse import parse
from judge.prompts.genericize import rename_code, rename_text, renaming_for
from judge.prompts.render import RenderedPrompt, prompt_environment


def _doc_of(code: str | None, name: str) -> str | None:
    """The docstring of the function ``name`` in Python ``input_code`` (HumanEval prompts)."""
    if not code:
        return None
    try:
        tree = parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return ast.get_docstring(node)
    return None


def render_language_prompt(problem: Problem, prompt: Prompt, language: str,
                           genericize: bool | None = None) -> RenderedPrompt:
    from judge.languages.infer import typed

    lang = get(language)
    problem = typed(problem)  # Any -> the type its tests show (HumanEval's later prompts)
    lang.check_expressible(problem)
    generic = prompt.genericize if genericize is None else (genericize or prompt.genericize)
    names = list(problem.parameter_names)
    python_name = problem.function_name
    function = lang.conventional_name(python_name)
    text, code, extra = prompt.prompt, prompt.input_code, problem.additional_instructions
    mapping = {python_name: function}
    if generic:
        renaming = renaming_for(python_name, names)
        mapping = renaming.mapping
        # in the language's case (Go's PascalCase ``Func``: ``func`` is its keyword)
        function = lang.conventional_name(renaming.generic_function)
        mapping[python_name] = function
        names = [mapping[n] for n in names]
    text = rename_text(text, mapping).replace("Python function", "%s function" % lang.title)
    extra = rename_text(extra, mapping) if extra else extra
    doc = _doc_of(code, python_name)
    params = problem.param_specs
    returns = [parse_type(r.type) for r in problem.function_prototype.return_values]
    stub = None
    if doc is not None:
        stub = lang.stub(function, names, params, returns, rename_text(doc, mapping))
        code = None  # the stub carries the docstring: no Python left to show
    elif code:
        code = rename_code(code, mapping, scope=python_name)
    samples = []
    for case in prompt.sample_inputs_outputs:
        args = [lang.literal(from_json(case.input[p.name], spec), spec)
                for p, spec in zip(problem.function_prototype.parameters, params)]
        values = case.expected_values()
        value = from_json(values[0], returns[0]) if len(values) == 1 else tuple(
            from_json(v, s) for v, s in zip(values, returns))
        result_spec = problem.return_spec
        shown = getattr(lang, "sample_result", lang.literal)(value, result_spec)
        samples.append({"call": lang.call(function, args), "result": shown})
    body = prompt_environment().get_template("prompt_language.md.j2").render(
        text=text.strip(), title=lang.title, fence=lang.fence_tags[0],
        where=lang.prompt_where,
        signature=lang.signature(function, names, params, returns), stub=stub,
        input_code=(code or "").strip("\n"), samples=samples,
        additional_instructions=(extra or "").strip())
    return RenderedPrompt(problem.identifier, prompt.prompt_id, generic, function, body)


def render_language_prompts(suite: Suite, language: str, genericize: bool = False
                            ) -> tuple[list[RenderedPrompt], list[tuple[str, str]]]:
    """Every prompt of the suite in ``language``; and the problems it cannot express, once
    each, with why."""
    out: list[RenderedPrompt] = []
    skipped: list[tuple[str, str]] = []
    for problem in suite.problems:
        try:
            for prompt in problem.prompts:
                out.append(render_language_prompt(problem, prompt, language,
                                                  True if genericize else None))
        except NotExpressible as exc:
            skipped.append((problem.identifier, str(exc)))
    return out, skipped


def to_json(prompt: RenderedPrompt, language: str) -> dict[str, Any]:
    data = prompt.to_json()
    data["language"] = language
    return data
