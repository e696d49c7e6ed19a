"""The language of a program from its files (an output validator, a package's submission),
by what the languages declare: their source and header extensions, the languages they also
compile, their Kattis names. A program problem's ``validator_language`` names a language as
Kattis does (``cpp``, ``javascript``...), or ``script``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge.errors import Issue
from judge.languages import Language, for_extension, loaded, one_language

#: a program folder with its own ``build`` or ``run`` script: the package format's way to bring
#: any language
SCRIPT = "script"


def files_language(names: list[str]) -> Language | None:
    """The language of a program made of the files ``names``: by their extensions (files no
    language claims aside), C beside C++ is C++; None when there is none or several."""
    found = [lang for lang in map(for_extension, (Path(n).suffix.lower() for n in names))
             if lang is not None]
    return one_language(found) if found else None


def program_language(path: Path) -> str | None:
    """The language of a program (a file, or a folder of source files) as a problem's
    ``validator_language`` names it (the language's Kattis name); :data:`SCRIPT` for a folder
    with its own ``build`` or ``run`` script; None when its files do not tell."""
    if path.is_dir() and ((path / "build").is_file() or (path / "run").is_file()):
        return SCRIPT
    files = sorted(p.name for p in path.iterdir() if p.is_file()) if path.is_dir() else [path.name]
    lang = files_language(files)
    return lang.name_in("kattis") if lang is not None else None


def program_language_names() -> list[str]:
    """Every ``validator_language`` a problem may give: the languages' Kattis names, and
    :data:`SCRIPT`."""
    return sorted({lang.name_in("kattis") for lang in loaded() if lang.name_in("kattis")}
                  | {SCRIPT})


def validator_issues(problem: Any, file: str) -> list[Issue]:
    """A program problem's output validator languages, checked when it loads: every
    ``validator_language`` (of the problem's checker and its tests') is a known one, and the
    problem's validator program without one tells its language by its files."""
    issues = []
    known = program_language_names()
    checkers = [("checker", problem.checker)] + [
        ("tests[%d].checker" % i, test.checker) for i, test in enumerate(problem.tests)
        if test.checker is not None]
    for where, checker in checkers:
        if checker.validator_language is not None and checker.validator_language not in known:
            issues.append(Issue(file, "unknown validator language %r (choose from %s)" % (
                checker.validator_language, ", ".join(known)), where + ".validator_language"))
    checker = problem.checker
    if checker.type == "validator" and checker.validator is not None \
            and checker.validator_language is None:
        path = problem.root / checker.validator
        if path.exists() and program_language(path) is None:
            issues.append(Issue(file, "cannot tell the output validator's language from %s "
                                      "(set validator_language)" % path, "checker.validator"))
    return issues


__all__ = ["SCRIPT", "files_language", "program_language", "program_language_names",
           "validator_issues"]
