"""Languages by name: one module per language (type mapping, name conventions, prompt syntax,
the reply-to-code step and the harness build), registered in :data:`REGISTRY`.

Built in: ``python``, ``js``, ``cpp``, ``go``, ``rust``, ``java``; for whole programs only,
``c`` and ``pypy3`` (Python 3 on PyPy, as Kattis runs it). A module is imported on the
first lookup of its name. An external package adds a language with one entry point in the
group ``judge.languages`` (``name = "package.module:LanguageClass"``); see judge/registry.py.

    >>> get("c++").name
    'cpp'
    >>> get("pyhton")
    Traceback (most recent call last):
    judge.errors.UnknownName: unknown language 'pyhton' (did you mean 'python'?)
"""

from __future__ import annotations

from judge.languages.base import BLOCKING, Language, NotExpressible
from judge.registry import Registry

#: the languages, by name; ``REGISTRY.get(name)`` is the language's one instance
REGISTRY: Registry[Language] = Registry("language", group="judge.languages", factory=True)
_BUILT_IN = (
    ("python", "judge.languages.python:Python", ("py", "python3")),
    ("js", "judge.languages.js:JavaScript", ("javascript", "node")),
    ("cpp", "judge.languages.cpp:Cpp", ("c++", "cxx")),
    ("go", "judge.languages.go:Go", ("golang",)),
    ("rust", "judge.languages.rust:Rust", ("rs",)),
    ("java", "judge.languages.java:Java", ()),
)
for _name, _target, _aliases in _BUILT_IN:
    REGISTRY.add(_name, _target, _aliases)
#: whole programs only (program problems): not among the function languages below
REGISTRY.add("c", "judge.languages.c:C", ("gnu-c", "c17"))
REGISTRY.add("pypy3", "judge.languages.pypy:PyPy", ("pypy",))

#: the built-in languages (``names()`` adds those of installed plug-ins)
LANGUAGES = tuple(name for name, _, _ in _BUILT_IN)
#: the language of a candidate that names none: the one problems are written in
DEFAULT = LANGUAGES[0]
#: the built-in languages judged through a harness build (every one but the default)
NATIVE = LANGUAGES[1:]
ALIASES = REGISTRY.aliases()


def normalize(name: str | None) -> str:
    """The canonical name of a language (None or "" is the default language);
    :class:`judge.errors.UnknownName` (a ValueError) for an unknown one."""
    if name is None or name == "":
        return DEFAULT
    return REGISTRY.canonical(name)


def get(name: str | None) -> Language:
    """The language called ``name`` (or one of its aliases; None: the default language)."""
    return REGISTRY.get(normalize(name))


def is_default(name: str | None) -> bool:
    """Whether ``name`` (None included) is the default language; False for an unknown name."""
    try:
        return get(name).default
    except ValueError:
        return False


def runs_as(problem: object, name: str) -> str:
    """The language a ``name`` program runs as on ``problem``: its ``runtimes`` map
    (``{"python": "pypy3"}``: Python on PyPy, as Kattis runs it), else ``name``; an unknown
    name there is :class:`judge.errors.UnknownName`."""
    for source, target in (getattr(problem, "runtimes", None) or {}).items():
        if normalize(source) == name:
            return get(target).name
    return name


def runtime_issues(problem: object) -> list[tuple[str, str]]:
    """What is wrong with a program problem's ``runtimes``, as (field, why) pairs:
    a name no registry knows, a language that judges no whole programs, or one that does not
    read the other's code (``{"c": "pypy3"}``)."""
    issues = []
    for source, target in (getattr(problem, "runtimes", None) or {}).items():
        try:
            langs = [get(source), get(target)]
        except ValueError as exc:
            issues.append(("runtimes.%s" % source, str(exc)))
            continue
        for lang in langs:
            if lang.program_probe() is None:
                issues.append(("runtimes.%s" % source, "%s judges no whole programs" % lang.name))
                break
        else:
            files = [set(lang.source_extensions or (lang.extension,)) for lang in langs]
            if not files[0] & files[1]:
                issues.append(("runtimes.%s" % source, "%s does not run %s code" % (
                    langs[1].name, langs[0].title or langs[0].name)))
    return issues


def names() -> list[str]:
    """Every language, built-in and added by installed packages."""
    return REGISTRY.names()


__all__ = ["ALIASES", "BLOCKING", "DEFAULT", "LANGUAGES", "NATIVE", "REGISTRY", "Language",
           "NotExpressible", "get", "is_default", "names", "normalize", "runs_as",
           "runtime_issues"]
