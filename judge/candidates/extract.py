"""Candidates: solutions files read line by line, and the code pulled out of a model's reply.

A solutions line is ``{"problem_id", "solution", "model"?, "prompt_id"?, "sample"?}``;
``task_id`` is accepted for ``problem_id``, ``completion`` (or ``code``) for ``solution`` and
``run`` for ``sample``, so HumanEval/EvalPlus sample files work as they are. A bad line is
reported with its file and line number and skipped; every other line is still judged.

``solution`` may be bare code or a raw reply with prose and markdown fences: the block that
defines the function is taken. The function is found by name later, in the sandbox: never
"the last callable".
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from judge.errors import Issue

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)",
                    re.S | re.M)
_CODE_START = re.compile(r"^(def |async def |class |import |from |@)", re.M)
_PYTHON_TAGS = {"", "python", "py", "python3", "py3", "pycon"}


@dataclass
class Candidate:
    """One line of a solutions file."""

    problem_id: str
    solution: str
    model: str | None = None
    prompt_id: str | None = None
    sample: int | None = None
    line: int | None = None
    language: str | None = None  # judge.languages.LANGUAGES; None: the run's default (python)


def _defines(code: str, name: str) -> bool:
    return re.search(r"^(async\s+)?def\s+%s\s*\(" % re.escape(name), code, re.M) is not None


def _defines_top_level(code: str, name: str) -> bool:
    return re.search(r"^(async\s+)?def\s+%s\s*\(" % re.escape(name), code) is not None or \
        re.search(r"\n(async\s+)?def\s+%s\s*\(" % re.escape(name), code) is not None


def _compiles(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def fenced_blocks(text: str) -> list[str]:
    """Markdown code blocks that are Python (or untagged), in order."""
    return [textwrap.dedent(m.group(3)) for m in _FENCE.finditer(text)
            if m.group(2).lower() in _PYTHON_TAGS]


def _strip_prose(text: str) -> str:
    """Unfenced reply: start at the first line that looks like code, then drop trailing prose
    until what is left parses."""
    match = _CODE_START.search(text)
    if not match:
        return text
    lines = text[match.start():].splitlines()
    for end in range(len(lines), 0, -1):
        candidate = "\n".join(lines[:end])
        if _compiles(candidate):
            return candidate
    return text[match.start():]


def extract_code(text: str, names: list[str]) -> tuple[str, str | None]:
    """The code to judge from a reply, and a note when it was not simply the whole text.

    ``names`` are the function names that count (e.g. the generic name, then the real one).
    """
    blocks = fenced_blocks(text)
    if blocks:
        defining = [b for b in blocks if any(_defines(b, n) for n in names)]
        if defining:
            chosen = defining[-1]
            note = None if len(blocks) == 1 else "took code block %d of %d (it defines %s)" % (
                blocks.index(chosen) + 1, len(blocks), next(n for n in names if _defines(chosen, n)))
            return chosen, note
        if len(blocks) == 1:
            return blocks[0], None
        return "\n\n".join(blocks), "joined %d code blocks (none defines %s)" % (
            len(blocks), " or ".join(names))
    if _compiles(text):
        return text, None
    stripped = _strip_prose(text)
    if stripped != text:
        return stripped, "removed prose around the code"
    return text, None


def with_completion_prefix(code: str, prefix: str, name: str) -> tuple[str, str]:
    """Join a completion to the code it continues (HumanEval style): a body that continues
    the prompt is appended to it; a full function is appended after it, so the prompt's
    imports and helpers stay available and the candidate's definition wins."""
    if _defines_top_level(code, name):
        return prefix.rstrip("\n") + "\n\n" + code, "full function (appended after the prompt)"
    joined = prefix + code
    if _compiles(joined) or not _compiles(prefix.rstrip("\n") + "\n\n" + code):
        return joined, "body continuing the prompt"
    return prefix.rstrip("\n") + "\n\n" + code, "unsure: neither a body nor a full function"


# ---- solutions files ---------------------------------------------------------------------------

_ALIASES = {"problem_id": ("problem_id", "task_id"),
            "solution": ("solution", "completion", "code"),
            "sample": ("sample", "run")}


def _field(record: dict[str, Any], name: str) -> Any:
    for key in _ALIASES.get(name, (name,)):
        if key in record:
            return record[key]
    return None


def _candidate_from(record: Any, file: str, line: int) -> tuple[Candidate | None, Issue | None]:
    if not isinstance(record, dict):
        return None, Issue(file, "a solutions line must be a JSON object", line=line)
    problem_id = _field(record, "problem_id")
    if isinstance(problem_id, int) and not isinstance(problem_id, bool):
        problem_id = str(problem_id)  # MBPP's task ids are integers
    if not isinstance(problem_id, str) or not problem_id:
        return None, Issue(file, "missing problem_id (or task_id)", line=line)
    solution = _field(record, "solution")
    if not isinstance(solution, str):
        return None, Issue(file, "missing solution (or completion) text", line=line)
    sample = _field(record, "sample")
    if sample is not None and (not isinstance(sample, int) or isinstance(sample, bool)):
        return None, Issue(file, "sample must be an integer, got %r" % (sample,), line=line)
    model, prompt_id = record.get("model"), record.get("prompt_id")
    for key, value in (("model", model), ("prompt_id", prompt_id)):
        if value is not None and not isinstance(value, str):
            return None, Issue(file, "%s must be a string" % key, line=line)
    language = record.get("language")
    if language is not None:
        from judge.languages import normalize

        try:
            language = normalize(language)
        except ValueError as exc:
            return None, Issue(file, str(exc), line=line)
    return Candidate(problem_id, solution, model, prompt_id, sample, line, language), None


def read_solutions(path: str | Path) -> Iterator[tuple[Candidate | None, Issue | None]]:
    """Yield (candidate, None) per good line and (None, issue) per bad one, in file order.

    Reads bytes and decodes line by line, so one line of bad bytes costs only that line.
    A ``.gz`` file is read through gzip.
    """
    path = Path(path)
    file = str(path)
    opener = open
    if path.suffix == ".gz":
        import gzip

        opener = gzip.open  # type: ignore[assignment]
    with opener(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                yield None, Issue(file, "not UTF-8 (byte 0x%02x at column %d)"
                                  % (raw[exc.start], exc.start + 1), line=number)
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                yield None, Issue(file, "invalid JSON: %s (column %d)" % (exc.msg, exc.colno),
                                  line=number)
                continue
            yield _candidate_from(record, file, number)
