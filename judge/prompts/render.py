"""Prompts with jinja2: the text a model sees for a problem, plain or genericized.

Templates live in ``judge/prompts/templates/``. (The sandbox harness is rendered by
``judge.sandbox.harness``: the sandbox layer must not depend on prompts.)
"""

from __future__ import annotations

from dataclasses import dataclass

import jinja2

from judge.problem.model import Problem, Prompt, Suite
from judge.problem.types import from_json
from judge.prompts.genericize import rename_code, rename_text, renaming_for
from judge.resources import templates_dir
from judge.sandbox.harness import template_environment


def prompt_environment() -> jinja2.Environment:
    return template_environment(str(templates_dir()))


@dataclass(frozen=True)
class RenderedPrompt:
    problem_id: str
    prompt_id: str
    genericized: bool
    function_name: str
    prompt: str

    def to_json(self) -> dict[str, object]:
        return {"problem_id": self.problem_id, "prompt_id": self.prompt_id,
                "genericized": self.genericized, "function_name": self.function_name,
                "prompt": self.prompt}


def _signature(problem: Problem, function: str, names: list[str]) -> str:
    params = ", ".join("%s: %s" % (name, p.type) for name, p in
                       zip(names, problem.function_prototype.parameters))
    returns = [r.type for r in problem.function_prototype.return_values]
    result = ("None" if not returns  # no return values: the function returns nothing
              else returns[0] if len(returns) == 1 else "Tuple[%s]" % ", ".join(returns))
    return "def %s(%s) -> %s:" % (function, params, result)


def _sample_lines(problem: Problem, prompt: Prompt, function: str) -> list[dict[str, str]]:
    lines = []
    specs = problem.param_specs
    for case in prompt.sample_inputs_outputs:
        args = [repr(from_json(case.input[p.name], spec))
                for p, spec in zip(problem.function_prototype.parameters, specs)]
        values = [from_json(v, parse) for v, parse in zip(case.expected_values(),
                                                          problem.return_spec.args
                                                          if len(case.expected_values()) > 1
                                                          else [problem.return_spec])]
        result = repr(None if not problem.function_prototype.return_values
                      else values[0] if len(values) == 1 else tuple(values))
        lines.append({"call": "%s(%s)" % (function, ", ".join(args)), "result": result})
    return lines


def render_prompt(problem: Problem, prompt: Prompt, genericize: bool | None = None) -> RenderedPrompt:
    """A prompt as a model sees it. ``genericize`` overrides the prompt's own flag when set."""
    generic = prompt.genericize if genericize is None else (genericize or prompt.genericize)
    names = problem.parameter_names
    function = problem.function_name
    text, code, extra = prompt.prompt, prompt.input_code, problem.additional_instructions
    if generic:
        renaming = renaming_for(function, names)
        mapping = renaming.mapping
        text = rename_text(text, mapping)
        code = rename_code(code, mapping, scope=problem.function_name) if code else code
        extra = rename_text(extra, mapping) if extra else extra
        function = renaming.generic_function
        names = [mapping[n] for n in names]
    body = prompt_environment().get_template("prompt.md.j2").render(
        text=text.strip(), signature=_signature(problem, function, names),
        input_code=(code or "").strip("\n"), samples=_sample_lines(problem, prompt, function),
        additional_instructions=(extra or "").strip())
    return RenderedPrompt(problem.identifier, prompt.prompt_id, generic, function, body)


def render_prompts(suite: Suite, genericize: bool = False) -> list[RenderedPrompt]:
    return [render_prompt(problem, prompt, True if genericize else None)
            for problem in suite.problems for prompt in problem.prompts]
