"""The judge's settings: every environment variable the judge reads as its own, declared
once, read once.

Each setting is one field of :class:`Settings` declared with :func:`_declare`: the variable,
its form (how its text is read, and what a malformed one is told to be), its default, a
one-line meaning and the part of the judge that reads it. :func:`settings` parses the
environment the first time it is asked and keeps the frozen result; :func:`reload` reads
the environment again (for tests, and for a long-lived process that changed it). A value of
the wrong form is one :class:`InvalidSetting` naming every such variable and the form it
should have, raised where the settings are first read (the command line reads them before
any work), never a traceback from deep inside.

Only the standard library and :mod:`judge.errors`: the sandbox layer reads settings, and it
must load without pydantic (``tests/house/test_layering.py``).

Variables that are not the judge's own are not here: the ones a child process's environment
is built from (``PATH``, ``HOME``, ``LANG``, ``TMPDIR``) and ``XDG_CACHE_HOME`` (the
system's cache folder: where the reference timings live when ``JUDGE_REFERENCE_CACHE`` is
unset, and where the evalplus package keeps its files), read where they are used.

``docs/settings.md`` holds :func:`markdown_table` (``python -m judge.settings --write
docs/settings.md`` renews it; ``tests/house/test_settings.py`` checks it is current).
"""

from __future__ import annotations

import math
import os
import sys
import threading
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from judge.errors import InputFault


class InvalidSetting(InputFault):
    """An environment variable of the judge's has a value of the wrong form:
    ``environment variable JUDGE_RAY_KEEP_S='abc': expected a number of seconds >= 0``.
    ``problems`` lists every such variable as (variable, value, expected form); ``variable``,
    ``value`` and ``expected`` are the first."""

    code = "invalid_setting"

    def __init__(self, problems: Sequence[tuple[str, str, str]]) -> None:
        self.problems = list(problems)
        self.variable, self.value, self.expected = self.problems[0]
        super().__init__("; ".join("environment variable %s=%s: expected %s" % problem
                                   for problem in self.problems)
                         + " (see docs/settings.md)")


class _Unset:
    """A value that says: this variable is as good as unset (empty): take the default."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
#: the value of ``JUDGE_REFERENCE_CACHE`` that turns remembering off
OFF = "off"
#: the words that mean :data:`OFF` (any case)
OFF_WORDS = ("off", "0", "no", "false", "none")


@dataclass(frozen=True)
class Form:
    """How a variable's text is read: ``parse`` returns the value (or :data:`UNSET`) and
    raises ValueError for a malformed text; ``label`` names the form in the docs table and
    ``expected`` in the error."""

    label: str
    expected: str
    parse: Callable[[str], Any]


def text(strip: bool = False, keep_empty: bool = False) -> Form:
    """Any text; empty is unset unless ``keep_empty`` (then "" is a value of its own)."""
    def parse(raw: str) -> Any:
        value = raw.strip() if strip else raw
        return value if value or keep_empty else UNSET

    return Form("text", "a text", parse)


def number(minimum: float = 0.0, *, above: bool = False, clamp: bool = False,
           unit: str = "seconds") -> Form:
    """A finite number >= ``minimum`` (> with ``above``; with ``clamp`` one below is
    ``minimum``); empty is unset."""
    bound = "%s %g" % (">" if above else ">=", minimum)
    label = "%s (a number; below %g: %g)" % (unit, minimum, minimum) if clamp \
        else "%s (a number %s)" % (unit, bound)

    def parse(raw: str) -> Any:
        raw = raw.strip()
        if not raw:
            return UNSET
        value = float(raw)
        if not math.isfinite(value):
            raise ValueError(raw)
        if value < minimum or (above and value == minimum):
            if not clamp:
                raise ValueError(raw)
            value = minimum
        return value

    return Form(label, "a number of %s" % unit + ("" if clamp else " " + bound), parse)


def integer(minimum: int, maximum: int) -> Form:
    """A whole number from ``minimum`` to ``maximum``; empty is unset."""
    def parse(raw: str) -> Any:
        raw = raw.strip()
        if not raw:
            return UNSET
        value = int(raw)
        if not minimum <= value <= maximum:
            raise ValueError(raw)
        return value

    wanted = "a whole number from %d to %d" % (minimum, maximum)
    return Form(wanted, wanted, parse)


def folder(expand: bool = False) -> Form:
    """A folder (``~`` expanded with ``expand``); empty is unset."""
    def parse(raw: str) -> Any:
        return (Path(raw).expanduser() if expand else Path(raw)) if raw else UNSET

    return Form("folder", "a folder", parse)


def flag() -> Form:
    """Unset, empty or ``0``: off; any other text: on."""
    return Form("flag (empty or `0`: off; anything else: on)", "a flag",
                lambda raw: raw not in ("", "0"))


def folder_or_off() -> Form:
    """A folder (``~`` expanded), or one of :data:`OFF_WORDS` (:data:`OFF`); empty is unset."""
    def parse(raw: str) -> Any:
        raw = raw.strip()
        if not raw:
            return UNSET
        return OFF if raw.lower() in OFF_WORDS else Path(raw).expanduser()

    return Form("folder, or `off` (`0`, `no`, `false`, `none`)", "a folder or off", parse)


@dataclass(frozen=True)
class Setting:
    """One variable: its name, form, default (as the value and as the docs show it),
    meaning, and the part of the judge that reads it. ``name`` is its :class:`Settings`
    field; a ``secret`` one is never shown (repr, errors)."""

    variable: str
    form: Form
    default: Any
    shown: str
    meaning: str
    read_by: str
    secret: bool = False
    name: str = ""


def _declare(variable: str, form: Form, default: Any, meaning: str, read_by: str, *,
             shown: str | None = None, secret: bool = False) -> Any:
    if shown is None:
        shown = "`%g`" % default if isinstance(default, float) else "`%s`" % default
    declared = Setting(variable, form, default, shown, meaning, read_by, secret)
    return field(default=default, repr=not secret, metadata={"setting": declared})


#: the uids a process sandbox leases upwards from its base (judge.sandbox.backends.process.sandbox.UidLease)
_UID_RANGE = 4096
_SANDBOX = "the process sandbox (`judge.sandbox.backends.process.sandbox`)"
_IMAGE = "`judge sandbox build` (`judge.sandbox.backends.docker.build`)"
_LLM = "the LLM client (`judge.grading.client`): `judge grade`, `judge match --judge llm`"


@dataclass(frozen=True)
class Settings:
    """The judge's settings, as read from the environment (see the module doc); a field
    holds its default when its variable is unset or empty (a text or folder setting whose
    default is None: the reader's own default, as the docs table says)."""

    # ---- sandboxes
    sandbox_uid_base: int = _declare(
        "JUDGE_SANDBOX_UID_BASE", integer(1, 2 ** 32 - 1 - _UID_RANGE), 61000,
        "as root: the first uid of the candidates' users (leased, up to 4,096 from there)",
        _SANDBOX + " and the import converter (`judge.importers.sandboxed`)")
    sandbox_lock_dir: Path = _declare(
        "JUDGE_SANDBOX_LOCK_DIR", folder(), Path("/run/judge-sandbox"),
        "where the uid leases are locked (one file per uid)",
        _SANDBOX + " and the import converter")
    sandbox_full_walk: bool = _declare(
        "JUDGE_SANDBOX_FULL_WALK", flag(), False,
        "never make the host's mounts read-only for the workers: stat every entry of the "
        "host and hide every world-writable file instead", "`judge.sandbox.backends.process.hostfs`",
        shown="off")
    docker_cgroup_parent: str | None = _declare(
        "JUDGE_DOCKER_CGROUP_PARENT", text(), None,
        "the cgroup the docker sandbox's containers go in", "the docker sandbox "
        "(`judge.sandbox.backends.docker.sandbox`)", shown="the engine's (e.g. `/docker`)")
    base_image: str = _declare(
        "JUDGE_BASE_IMAGE", text(strip=True), "",
        "the base image of the docker sandbox's Python image (a local image, else pulled)",
        _IMAGE + ", `judge sandbox doctor`", shown="unset")
    official_base: str | None = _declare(
        "JUDGE_OFFICIAL_BASE", text(keep_empty=True), None,
        "the official image pulled as a base when a registry answers (set but empty: none)",
        _IMAGE + ", `judge sandbox doctor`", shown="the recipe's (`python:3.11-slim`)")
    pull_timeout_s: float = _declare(
        "JUDGE_PULL_TIMEOUT", number(clamp=True), 10.0,
        "silence after which a pull is given up (`0`: never pull)", _IMAGE)
    debian_mirror: str | None = _declare(
        "JUDGE_DEBIAN_MIRROR", text(), None,
        "the Debian mirror of the offline (debootstrap) base build", _IMAGE,
        shown="the machine's (apt sources)")
    # ---- runs
    progress_interval_s: float = _declare(
        "JUDGE_PROGRESS_INTERVAL", number(), 10.0,
        "seconds between two plain progress lines", "`judge run` (`judge.running.progress`)")
    results_dir: Path = _declare(
        "JUDGE_RESULTS_DIR", folder(), Path("judge-results"),
        "the folder of `judge run`'s default results file",
        "`judge run` (`judge.cli.results_path`)")
    reference_cache: Path | str | None = _declare(
        "JUDGE_REFERENCE_CACHE", folder_or_off(), None,
        "where reference timings are remembered across runs; `off`: never",
        "the reference timings (`judge.engine.reference_cache`)",
        shown="`$XDG_CACHE_HOME/judge/reference-times`, else "
              "`~/.cache/judge/reference-times`")
    import_time_s: float = _declare(
        "JUDGE_IMPORT_TIME_S", number(above=True), 60.0,
        "seconds of CPU (and twice that, plus start-up, of wall clock) one task's "
        "conversion may take", "`judge import` (`judge.importers.sandboxed`)")
    # ---- service and Ray
    api_token: str | None = _declare(
        "JUDGE_API_TOKEN", text(), None,
        "the bearer token `judge serve` requires (`Authorization: Bearer <token>`)",
        "`judge serve` (`judge.cli.serve`)", shown="unset: no token", secret=True)
    ray_keep_s: float = _declare(
        "JUDGE_RAY_KEEP_S", number(), 60.0,
        "seconds an idle Ray actor is kept for a later run (`0`: none is kept)",
        "the Ray executor (`judge.distribution.ray_session`)")
    ray_address: str | None = _declare(
        "RAY_ADDRESS", text(), None,
        "the Ray cluster when no `--ray-address` is given (Ray itself reads it too)",
        "the Ray executor (`judge.distribution`), `judge ray stop`",
        shown="unset: a private Ray per run")
    # ---- the LLM client
    llm_base_url: str | None = _declare(
        "JUDGE_LLM_BASE_URL", text(), None, "the OpenAI-compatible endpoint", _LLM,
        shown="`https://api.openai.com/v1`")
    llm_model: str | None = _declare(
        "JUDGE_LLM_MODEL", text(), None, "the model name (required when no flag names one)",
        _LLM, shown="unset")
    llm_api_key: str | None = _declare(
        "JUDGE_LLM_API_KEY", text(), None, "the API key (optional for local servers)", _LLM,
        shown="`OPENAI_API_KEY`", secret=True)
    openai_api_key: str | None = _declare(
        "OPENAI_API_KEY", text(), None, "the API key when `JUDGE_LLM_API_KEY` is unset", _LLM,
        shown="unset", secret=True)
    llm_cache: Path | None = _declare(
        "JUDGE_LLM_CACHE", folder(expand=True), None, "the folder of cached model answers",
        _LLM, shown="`~/.cache/judge/llm`")


def cache_home() -> Path:
    """The system's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``): not a setting of
    the judge's, but read here only, as the settings are, when asked."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return Path(base) if base else Path.home() / ".cache"


def declarations() -> tuple[Setting, ...]:
    """Every setting, in the order of :class:`Settings` (and of the docs table)."""
    return tuple(replace(f.metadata["setting"], name=f.name) for f in fields(Settings))


def parse(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings ``environ`` (default: this process's environment) gives; no caching.
    Raises :class:`InvalidSetting` naming every variable of the wrong form."""
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    problems: list[tuple[str, str, str]] = []
    for declared in declarations():
        raw = environ.get(declared.variable)
        if raw is None:
            continue
        try:
            value = declared.form.parse(raw)
        except ValueError:
            problems.append((declared.variable, "(hidden)" if declared.secret else repr(raw),
                             declared.form.expected))
            continue
        if value is not UNSET:
            values[declared.name] = value
    if problems:
        raise InvalidSetting(problems)
    return Settings(**values)


_lock = threading.Lock()
_current: Settings | None = None


def settings() -> Settings:
    """The settings, read from the environment the first time (see :func:`reload`)."""
    global _current
    current = _current
    if current is None:
        with _lock:
            if _current is None:
                _current = parse()
            current = _current
    return current


def reload() -> Settings:
    """Read the environment again: what :func:`settings` returns from now on. A malformed
    value raises (and the next :func:`settings` reads the environment again)."""
    global _current
    with _lock:
        _current = None
        _current = parse()
        return _current


# ---- the docs table --------------------------------------------------------------------------

TABLE_BEGIN = "<!-- the table below is generated: python -m judge.settings --write docs/settings.md -->"
TABLE_END = "<!-- end of the generated table -->"


def markdown_table() -> str:
    """Every setting as one markdown table: variable, form, default, meaning, read by."""
    lines = ["| variable | form | default | meaning | read by |", "|---|---|---|---|---|"]
    for declared in declarations():
        cells = ("`%s`" % declared.variable, declared.form.label, declared.shown,
                 declared.meaning, declared.read_by)
        lines.append("| %s |" % " | ".join(cells))
    return "\n".join(lines) + "\n"


def with_current_table(page: str) -> str:
    """``page`` with the text between :data:`TABLE_BEGIN` and :data:`TABLE_END` replaced by
    the current :func:`markdown_table` (ValueError when a marker is missing)."""
    head, begin, rest = page.partition(TABLE_BEGIN)
    _, end, tail = rest.partition(TABLE_END)
    if not begin or not end:
        raise ValueError("the page has no %r ... %r" % (TABLE_BEGIN, TABLE_END))
    return head + TABLE_BEGIN + "\n\n" + markdown_table() + "\n" + TABLE_END + tail


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m judge.settings``: print the table; ``--write PAGE`` renews the page's
    table; ``--check PAGE`` exits 1 when the page's table is not the current one."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        sys.stdout.write(markdown_table())
        return 0
    if len(args) != 2 or args[0] not in ("--write", "--check"):
        sys.stderr.write("usage: python -m judge.settings [--write PAGE | --check PAGE]\n")
        return 2
    page = Path(args[1])
    old = page.read_text(encoding="utf-8")
    new = with_current_table(old)
    if args[0] == "--write":
        if new != old:
            page.write_text(new, encoding="utf-8")
        return 0
    if new != old:
        sys.stderr.write("%s: the settings table is not current: python -m judge.settings "
                         "--write %s\n" % (page, page))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
