"""Rendering with jinja2: prompts (plain or genericized) and the sandbox worker (harness).

Templates live in ``judge/templates/`` (prompts) and ``runners/<language>/`` (harness code).
"""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from judge import wire
from judge.resources import runner_dir, templates_dir

#: the worker's protocol version; the judge side checks it at the handshake
PROTOCOL = 1

#: standard-library modules the worker imports once, so each forked test finds them loaded.
#: Only light, common ones: every page the worker holds makes each fork slower (measured:
#: 30 modules doubled the cost of a fork).
PREIMPORTS = [
    "bisect", "collections", "functools", "heapq", "itertools", "math", "operator", "re",
    "string", "typing",
]


@functools.lru_cache(maxsize=None)
def _environment(folder: str) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


@functools.lru_cache(maxsize=None)
def render_worker(language: str = "python") -> str:
    """The sandbox worker's source, self-contained (the wire codec is inlined)."""
    env = _environment(str(runner_dir(language)))
    codec = Path(wire.__file__).read_text(encoding="utf-8")
    return env.get_template("worker.py.j2").render(
        protocol=PROTOCOL, preimports=PREIMPORTS, codec_source=codec
    )


def prompt_environment() -> jinja2.Environment:
    return _environment(str(templates_dir()))


# ---- prompts -----------------------------------------------------------------------------------

from dataclasses import dataclass  # noqa: E402

from judge.genericize import rename_code, rename_text, renaming_for  # noqa: E402
from judge.problem import Problem, Prompt, Suite  # noqa: E402
from judge.types import from_json  # noqa: E402


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
    result = returns[0] if len(returns) == 1 else "Tuple[%s]" % ", ".join(returns)
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
        result = repr(values[0] if len(values) == 1 else tuple(values))
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
        code = rename_code(code, mapping) if code else code
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
