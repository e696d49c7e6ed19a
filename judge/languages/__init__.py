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

from typing import Any, Iterable

from judge.errors import RegistryLoadError, UnknownName
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
#: the languages beyond the native seven (issue 34), in the polyglot pool (image): whole
#: programs, and test programs in the language
_POLYGLOT = (
    ("bash", "judge.languages.bash:Bash", ("sh", "shell")),
    ("csharp", "judge.languages.csharp:CSharp", ("c#", "cs", "mono")),
    ("d", "judge.languages.d:D", ("dlang", "ldc")),
    ("kotlin", "judge.languages.kotlin:Kotlin", ("kt",)),
    ("lua", "judge.languages.lua:Lua", ()),
    ("perl", "judge.languages.perl:Perl", ("pl",)),
    ("php", "judge.languages.php:Php", ()),
    ("r", "judge.languages.r:R", ("rscript",)),
    ("racket", "judge.languages.racket:Racket", ("rkt",)),
    ("ruby", "judge.languages.ruby:Ruby", ("rb",)),
    ("scala", "judge.languages.scala:Scala", ()),
    ("typescript", "judge.languages.typescript:TypeScript", ("ts",)),
)
for _name, _target, _aliases in _POLYGLOT:
    REGISTRY.add(_name, _target, _aliases)
#: test frameworks (test programs, judge.languages.frameworks): languages of their own
for _name, _target, _aliases in (
        ("pytest", "judge.languages.frameworks:PyTest", ()),
        ("go_test", "judge.languages.frameworks:GoTest", ("gotest",)),
        ("junit", "judge.languages.frameworks:JUnit", ("junit5",)),
        ("d_ut", "judge.languages.frameworks:DUnittest", ("d_unittest",)),
        ("rust_test", "judge.languages.frameworks:RustTest", ()),
        ("jest", "judge.languages.jest:Jest", ())):
    REGISTRY.add(_name, _target, _aliases)

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
            files = [set(lang.file_extensions()) for lang in langs]
            if not files[0] & files[1]:
                issues.append(("runtimes.%s" % source, "%s does not run %s code" % (
                    langs[1].name, langs[0].title or langs[0].name)))
    return issues


def names() -> list[str]:
    """Every language, built-in and added by installed packages."""
    return REGISTRY.names()


# ---- what languages declare: every table of names, extensions and runtime texts ---------------

def loaded() -> list[Language]:
    """Every language, built-in first, its module imported (one that cannot be imported, a
    broken plug-in, declares nothing: asking for it by name says why)."""
    found = []
    for name in REGISTRY.names():
        try:
            found.append(REGISTRY.get(name))
        except RegistryLoadError:
            continue
    return found


def for_extension(extension: str) -> Language | None:
    """The language of a source file by its extension (``".cc"`` or ``"cc"``): exactly as a
    language declares it first (``.C`` is C++), else in lower case (``.CPP``); the first
    registered when several declare it (``.py`` is Python's, not PyPy's); None for none."""
    bare = extension[1:] if extension.startswith(".") else extension
    langs = loaded()
    for key in dict.fromkeys((bare, bare.lower())):
        for lang in langs:
            if key in lang.file_extensions():
                return lang
    return None


def is_header(extension: str) -> bool:
    """Whether files with ``extension`` are a language's headers (code that never decides a
    program's language)."""
    bare = (extension[1:] if extension.startswith(".") else extension).lower()
    return any(bare in lang.header_extensions for lang in loaded())


def one_language(langs: Iterable[Language]) -> Language | None:
    """The language of a program whose files are in ``langs``: the only one, or the one that
    compiles every other's files too (C beside C++ is C++); None otherwise."""
    found = list(dict.fromkeys(langs))
    for lang in found:
        if all(other is lang or other.name in lang.also_compiles for other in found):
            return lang
    return None


def all_named_in(scheme: str) -> dict[Any, Language]:
    """Every name ``scheme`` gives a language (``"kattis"``, ``"sandboxfusion"``,
    ``"codecontests"``: see :attr:`Language.names_in`) -> that language."""
    found: dict[Any, Language] = {}
    for lang in loaded():
        for name in lang.names_in.get(scheme, ()):
            found.setdefault(name, lang)
    return found


def named_in(scheme: str, name: Any) -> Language:
    """The language ``scheme`` calls ``name``; :class:`judge.errors.UnknownName` naming the
    scheme's names when none is called so."""
    found = all_named_in(scheme)
    try:
        return found[name]
    except (KeyError, TypeError):
        raise UnknownName("language", str(name), known=sorted(map(str, found))) from None


def allocation_errors() -> frozenset[str]:
    """The exception types any language reports when an allocation fails."""
    return frozenset(e for lang in loaded() for e in lang.allocation_errors)


def oom_markers() -> tuple[str, ...]:
    """What any language's runtime prints when it dies out of memory."""
    return tuple(dict.fromkeys(m for lang in loaded() for m in lang.oom_markers))


__all__ = ["ALIASES", "BLOCKING", "DEFAULT", "LANGUAGES", "NATIVE", "REGISTRY", "Language",
           "NotExpressible", "all_named_in", "allocation_errors", "for_extension", "get",
           "is_default", "is_header", "loaded", "named_in", "names", "normalize", "one_language",
           "oom_markers", "runs_as", "runtime_issues"]
