"""The submissions of a Kattis / ICPC problem package: each file or folder under
``submissions/<folder>/`` with its language, the verdicts it must get (its folder's, or a
DOMjudge ``@EXPECTED_RESULTS@:`` comment's) and the package's ``include/<language>/`` files.
Pure reading, nothing is run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge import languages
from judge.errors import InputError
from judge.problem.package_files import MAX_PROGRAM_BYTES, PackageFiles
from judge.importers.kattis_files import (as_number, expected_results, judged,
                                          read_yaml, sources_language, submission_source,
                                          submission_sources)

#: submission folder -> the verdict every submission in it must get (judge vocabulary);
#: 2023-07's ``rejected`` takes any verdict but a pass (``program_verdicts.FOLDER_VERDICTS``)
FOLDER_VERDICTS = {"accepted": "pass", "wrong_answer": "wrong_answer",
                   "time_limit_exceeded": "timeout", "run_time_error": "runtime_error",
                   "rejected": "rejected"}


@dataclass
class Submission:
    path: Path
    folder: str
    language: str | None
    #: the verdicts an ``@EXPECTED_RESULTS@:`` comment in the code allows (DOMjudge): they
    #: override the folder's
    expected: tuple[str, ...] | None = None
    #: files ``include/<language>/`` (2023-07) adds to every submission in its language
    include: dict[str, str] = field(default_factory=dict)
    #: its code files (name -> text), read once, when the package was read, through the
    #: package's safe reader (None: read them now, from ``path``'s folder)
    code: dict[str, str] | None = None
    #: the score it must get (a scoring problem): (low, high), inclusive, from
    #: ``submissions.yaml``'s ``score`` (2025-09: a number, or a list of two)
    expected_score: tuple[float, float] | None = None

    @property
    def expected_verdict(self) -> str | None:
        if self.expected:
            return self.expected[0]
        return FOLDER_VERDICTS.get(self.folder)

    @property
    def judged(self) -> bool:
        return judged(self.language)

    @property
    def source(self) -> Path | None:
        """The file compiled: the submission, or a submission folder's one code file."""
        return submission_source(self.path)

    @property
    def sources(self) -> dict[str, str] | None:
        """Every code file of the submission (name -> text), with the package's include
        files for its language: several for a multi-file program; None when there is no
        code."""
        sources = self.code if self.code is not None else submission_sources(self.path)
        if not sources:
            return None
        if not self.include:
            return sources
        return {**{k: v for k, v in self.include.items() if k not in sources}, **sources}


def include_files(root: Path, language: str | None, files: PackageFiles | None = None
                  ) -> dict[str, str]:
    """``include/default/`` and ``include/<language>/``: files added to every
    submission in that language (name -> text), read through ``files`` (the package's safe
    reader): Refused (an InputError naming the file) for a link leading outside the
    package, a special file, or files past the bounds."""
    files = files if files is not None else PackageFiles(root)
    base = root / "include"
    if language is None or files.kind(base) != "dir":
        return {}
    found: dict[str, str] = {}
    lang = languages.all_named_in("kattis").get(language)
    for name in ("default", *(lang.names_in["kattis"] if lang else (language,))):
        folder = base / name
        if files.kind(folder) == "dir":
            for relative, text in files.sources(folder, what="include file").items():
                found.setdefault(relative, text)
    if sum(len(t) for t in found.values()) > MAX_PROGRAM_BYTES:
        raise files.refuse(base, "the include files of %s hold more than a program's files "
                           "may (%d bytes)" % (language, MAX_PROGRAM_BYTES))
    return found


def read_submissions(root: Path, notes: list[str], files: PackageFiles | None = None
                     ) -> list[Submission]:
    """Every submission of the package at ``root``, its code read now through ``files``
    (the package's safe reader: what it refuses is in ``files.issues``, and that
    submission is left out); what the judge will not run is said in ``notes``."""
    files = files if files is not None else PackageFiles(root)
    folder = root / "submissions"
    found: list[Submission] = []
    if not files.is_dir(folder):
        notes.append("no submissions folder")
        return found
    includes: dict[str | None, dict[str, str]] = {}
    for verdict in [p for p in files.listdir(folder) if files.is_dir(p)]:
        for entry in files.listdir(verdict):
            if entry.name.startswith("."):
                continue
            try:
                sources = submission_sources(entry, files) or {}
                language = sources_language(sources)
                if language not in includes:
                    includes[language] = include_files(root, language, files)
            except InputError as exc:
                files.note(exc)
                continue
            marked = [e for e in map(expected_results, sources.values()) if e]
            found.append(Submission(entry, verdict.name, language,
                                    marked[0] if marked else None,
                                    includes[language], sources))
    _expected_scores(root, found, notes, files)
    marked = [s for s in found if s.expected]
    if marked:
        notes.append("%d submission%s carry @EXPECTED_RESULTS@: their comment, not their "
                     "folder, says which verdicts they may get" % (
                         len(marked), "" if len(marked) == 1 else "s"))
    py2 = [s for s in found if s.language == "python2"]
    if py2:
        notes.append("%d Python 2 submission%s (a python2 shebang, or syntax and builtins "
                     "only Python 2 has): listed, not judged, as there is no Python 2 "
                     "runtime here" % (len(py2), "" if len(py2) == 1 else "s"))
    other = sorted({s.folder for s in found if s.folder not in FOLDER_VERDICTS
                    and s.folder != "partially_accepted"})
    if other:
        notes.append("submission folders without one verdict, listed only (unless an "
                     "@EXPECTED_RESULTS@ comment says): %s" % ", ".join(other))
    unjudged = [s for s in found if not s.judged]
    if unjudged:
        notes.append("%d submission%s in languages the judge does not run (%s)" % (
            len(unjudged), "" if len(unjudged) == 1 else "s",
            ", ".join(sorted({s.language or s.path.suffix or "?" for s in unjudged}))))
    if not any(s.folder == "accepted" for s in found):
        notes.append("no accepted submission")
    return found


# ---- submissions.yaml (2025-09): the score a submission must get ------------------------------

def _braces(pattern: str) -> list[str]:
    """``a.{py,cpp}`` -> ``a.py``, ``a.cpp`` (brace expansion, as the format allows)."""
    found = re.search(r"\{([^{}]*)\}", pattern)
    if not found:
        return [pattern]
    out = []
    for choice in found.group(1).split(","):
        out += _braces(pattern[:found.start()] + choice + pattern[found.end():])
    return out


def glob_matches(pattern: str, path: str) -> bool:
    """Whether a ``submissions.yaml`` glob matches ``path`` (relative to ``submissions/``)
    or a folder above it; ``*`` stays within a name."""
    parts = path.split("/")
    heads = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    for one in _braces(pattern.strip("/")):
        rx = re.compile("".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c)
                                for c in one) + r"\Z")
        if any(rx.match(h) for h in heads):
            return True
    return False


def _score_range(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list) and len(value) == 2:
        low, high = as_number(value[0]), as_number(value[1])
        return (low, high) if low is not None and high is not None and low <= high else None
    number = as_number(value)
    return None if number is None else (number, number)


def _expected_scores(root: Path, found: list[Submission], notes: list[str],
                     files: PackageFiles) -> None:
    """``submissions/submissions.yaml``'s ``score`` for each submission it matches (every
    match applies: the last one read wins); requirements on test groups are noted, not
    checked."""
    path = root / "submissions" / "submissions.yaml"
    if not files.is_file(path):
        return
    try:
        config = read_yaml(path, files)
    except InputError as exc:
        files.note(exc)
        return
    per_group = False
    for pattern, rules in config.data.items():
        if not isinstance(rules, dict):
            continue
        per_group = per_group or any(isinstance(v, dict) for v in rules.values())
        if "score" not in rules:
            continue
        wanted = _score_range(rules["score"])
        if wanted is None:
            files.issues.append(config.issue("score must be a number or a list of two "
                                             "(low, high), got %r" % (rules["score"],),
                                             str(pattern)))
            continue
        for submission in found:
            relative = submission.path.relative_to(root / "submissions").as_posix()
            if glob_matches(str(pattern), relative):
                submission.expected_score = wanted
    if per_group:
        notes.append("submissions.yaml: requirements on test groups are not checked (only a "
                     "submission's verdict and score)")
