"""Where the files that live beside the package are: runner templates, sandbox image
definitions and shipped suites.

In a checkout they are top-level folders (the layout contract); an installed wheel carries
them inside the package as ``judge/_resources/``. Everything that needs one asks here, so no
module guesses paths on its own.
"""

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_root() -> Path:
    """The folder holding ``runners/``, ``sandboxes/``, ``problems/`` and ``examples/``."""
    bundled = _PACKAGE / "_resources"
    if (bundled / "runners").is_dir():
        return bundled
    checkout = _PACKAGE.parent
    if (checkout / "runners").is_dir():
        return checkout
    raise FileNotFoundError(
        "cannot find the judge's runner files: neither %s nor %s exists" % (bundled, checkout)
    )


def runner_dir(language: str = "python") -> Path:
    return resource_root() / "runners" / language


def sandbox_dir(language: str = "python") -> Path:
    return resource_root() / "sandboxes" / language


def shipped_problems() -> Path:
    return resource_root() / "problems"


def examples_dir() -> Path:
    """Shipped examples: scoring specs and the sample AIME-style task set."""
    return resource_root() / "examples"


def templates_dir() -> Path:
    return _PACKAGE / "prompts" / "templates"
