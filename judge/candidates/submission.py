"""From a candidate to a :class:`Submission`: the code to run and the name of the function to
call in it. The reply-to-code step of every language lives here and in
:mod:`judge.candidates.extract` (Python's own step); a language calls it through one method,
``judge.languages.get(name).submission(problem, candidate)``.

A reply in a language other than Python: the fenced blocks tagged with the language (or
untagged) are its code, the block that defines the function wins, and without fences the
whole reply is the code (the compiler says what is wrong with it).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

#: the function's name in a genericized prompt (``judge prompts --genericize``)
GENERIC_FUNCTION = "func"

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)",
                    re.S | re.M)


@dataclass(frozen=True)
class Submission:
    """Code to judge for a problem, with the function name to call in it."""

    code: str
    function: str
    note: str | None = None  # how the code was extracted, when worth saying
    language: str = "python"  # a name of judge.languages.REGISTRY
    #: the code was taken out of a reply (fences, prose dropped); None: not said (the batch
    #: compares the code with the reply)
    extracted: bool | None = None
    #: the language's guess of how likely the code blocks (``Language.stall_risk``), made
    #: once by the batch when it orders the run; None: the executor guesses. A hint for
    #: admission only, never part of the candidate's identity
    stall_risk: int | None = field(default=None, compare=False)


def function_names(problem: Any, prompt_id: str | None) -> list[str]:
    """Names the candidate's function may have, preferred first: the generic name for a
    genericized prompt, then the real name (and the other one as a fallback)."""
    prompt = problem.prompt(prompt_id)
    if prompt is not None and prompt.genericize:
        return [GENERIC_FUNCTION, problem.function_name]
    return [problem.function_name, GENERIC_FUNCTION]


def problem_prefix(problem: Any, prompt_id: str | None) -> str | None:
    """Code that completions continue (HumanEval-style suites mark it with the tag
    ``completion``: the prompt's ``input_code`` is the prefix)."""
    if not problem.tags or "completion" not in problem.tags:
        return None
    prompt = problem.prompt(prompt_id) or problem.prompts[0]
    return prompt.input_code


def extract_fenced(text: str, tags: Iterable[str], defines: Callable[[str], bool]
                   ) -> tuple[str, str | None]:
    """The code of a reply whose fenced blocks are tagged with one of ``tags`` (or untagged),
    and a note when there was a choice: the last block that ``defines`` the function, else
    the one block, else all of them joined. Without such blocks the whole reply."""
    tags = {tag.lower() for tag in tags} | {""}
    blocks = [textwrap.dedent(m.group(3)) for m in _FENCE.finditer(text)
              if m.group(2).lower() in tags]
    if not blocks:
        return text, None
    defining = [b for b in blocks if defines(b)]
    if defining:
        chosen = defining[-1]
        note = None if len(blocks) == 1 else "took code block %d of %d" % (
            blocks.index(chosen) + 1, len(blocks))
        return chosen, note
    if len(blocks) == 1:
        return blocks[0], None
    return "\n\n".join(blocks), "joined %d code blocks" % len(blocks)


__all__ = ["GENERIC_FUNCTION", "Submission", "extract_fenced", "function_names",
           "problem_prefix"]
