"""Languages beside Python: type mappings, name conventions, prompt syntax and harness builds
(one module per language), and the registry. Values of ``language``: ``python``, ``js``,
``cpp``, ``go``, ``rust``, ``java``."""

from __future__ import annotations

import functools

from judge.languages.base import Language, NotExpressible

LANGUAGES = ("python", "js", "cpp", "go", "rust", "java")
NATIVE = LANGUAGES[1:]
ALIASES = {"javascript": "js", "node": "js", "c++": "cpp", "cxx": "cpp", "golang": "go",
           "rs": "rust", "py": "python", "python3": "python"}


def normalize(name: str | None) -> str:
    """The canonical value for a language name; ValueError for an unknown one."""
    if name is None or name == "":
        return "python"
    key = str(name).strip().lower()
    key = ALIASES.get(key, key)
    if key not in LANGUAGES:
        raise ValueError("unknown language %r (choose from %s)" % (name, ", ".join(LANGUAGES)))
    return key


@functools.lru_cache(maxsize=None)
def get(name: str) -> Language:
    """The language object of a non-Python language."""
    key = normalize(name)
    if key == "cpp":
        from judge.languages.cpp import Cpp
        return Cpp()
    if key == "js":
        from judge.languages.js import JavaScript
        return JavaScript()
    if key == "go":
        from judge.languages.go import Go
        return Go()
    if key == "rust":
        from judge.languages.rust import Rust
        return Rust()
    if key == "java":
        from judge.languages.java import Java
        return Java()
    raise ValueError("python is judged by the Python worker itself, not by judge.languages")


__all__ = ["LANGUAGES", "NATIVE", "Language", "NotExpressible", "get", "normalize"]
