"""Prompts for program problems (stdin/stdout): the statement, the input and output format,
the samples and the limits, and what to write in which language (jinja2,
``templates/program.md.j2``). A program problem has no function or parameter names, so
there is nothing to genericize: its prompt is the plain one (``prompt_id`` ``"program"``).
"""

from __future__ import annotations

from typing import Any

from judge import languages
from judge.prompts.render import RenderedPrompt, prompt_environment

PROMPT_ID = "program"


def render_program_prompt(problem: Any, language: str | None = None) -> RenderedPrompt:
    """The prompt of a program problem in ``language`` (None: the default language)."""
    lang = languages.get(language)
    limit = problem.limits.time_limit_s
    body = prompt_environment().get_template("program.md.j2").render(
        name=problem.name.strip(), statement=problem.statement.strip(),
        input_format=(problem.input_format or "").strip(),
        output_format=(problem.output_format or "").strip(),
        samples=[{"stdin": (s.stdin or "").rstrip("\n"), "expected": (s.expected or "").rstrip("\n"),
                  "interaction": (s.interaction or "").rstrip("\n"),
                  "explanation": (s.explanation or "").strip()} for s in problem.samples],
        time="%g s" % limit if limit else "a few seconds",
        memory=problem.limits.memory_mb or 1024,
        interactive=bool(getattr(problem, "interactive", False)),
        multi_pass=bool(getattr(problem, "multi_pass", False)),
        input_file=getattr(getattr(problem, "io", None), "input_file", None),
        output_file=getattr(getattr(problem, "io", None), "output_file", None),
        title=languages.get(languages.runs_as(problem, lang.name)).title,
        fence=lang.name if lang.name in lang.fence_tags else (lang.fence_tags or (lang.name,))[0])
    return RenderedPrompt(problem.identifier, PROMPT_ID, False, "", body)


__all__ = ["PROMPT_ID", "render_program_prompt"]
