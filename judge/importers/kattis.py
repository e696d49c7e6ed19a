"""Kattis / ICPC problem packages read as program problems: pure reading, nothing is run.

``read_package(folder)`` reads one package, ``read_packages(path)`` one package or a folder
of them, in the legacy layout and the 2023-07 one:

- ``problem.yaml``: ``name``; ``type`` (2023-07: pass-fail, scoring, interactive, ...);
  ``validation`` (legacy: ``default``, ``custom``, ``custom interactive``, ``custom score``)
  and ``validator_flags``; ``limits`` (``time_multiplier``/``time_safety_margin`` legacy,
  ``time_multipliers``/``time_limit``/``time_resolution`` 2023-07, ``memory``, ``output``);
- DOMjudge's ``.timelimit`` and ``domjudge-problem.ini`` (``timelimit``, ``name``);
- ``data/sample`` and ``data/secret`` with nested groups, ``testdata.yaml`` (legacy: the
  nearest one applies whole) or ``test_group.yaml`` (2023-07: key by key), their
  ``output_validator_flags`` / ``output_validator_args``, per-case ``.yaml`` (``args``),
  ``.files`` folders, ``.interaction`` samples;
- ``output_validators/`` (legacy) or ``output_validator/`` (2023-07): the custom validator;
- ``problem_statement/`` or ``statement/``: the statement, split into text, input and output;
- ``submissions/<folder>/``: every submission with its folder and its language.

The problem id is the package's folder name. Test data stays in the package: tests refer
to their files by path (relative to the package, which is the problem's root). A package
that publishes no time limit gets the format's rule (``TimeRule``) and a note saying so;
the limit itself needs the accepted submissions measured, which is the executor's job.
Every note goes to the package's import log (``notes``); what the judge cannot judge yet
(interactive and multi-pass problems, several output validators, validators built by their
own scripts, a DOMjudge compare executable outside the package) makes the package
``supported = False`` with the reason, instead of failing the whole import. Scoring
problems are judged test by test, pass or fail (group scores are not computed; noted).
``KattisImporter`` writes the supported ones as problem files (the ``Importer`` contract).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from judge.errors import InputError, Issue
from judge.problem.package_files import PackageFiles, program_sources
from judge.importers.base import Importer
from judge.importers.kattis_data import DataReader
from judge.importers.kattis_scoring import read_scoring
from judge.importers.kattis_files import (YamlFile, as_args, as_number, package_languages,
                                          package_name, read_domjudge_ini, read_statement,
                                          read_timelimit, read_yaml)
from judge.importers.kattis_submissions import (Submission,
                                                read_submissions)
from judge.importers.records import ImportReport, ProblemReport
from judge.problem.limits import (MAX_MEMORY_MB, MAX_OUTPUT_KB, MAX_TIME_FACTOR,
                                  MAX_TIME_LIMIT_S, MAX_TIME_RESOLUTION_S, bounded)
from judge.languages.programs import SCRIPT, program_language
from judge.problem.program import (ContestRules, OutputChecker, ProgramLimits, ProgramProblem,
                                   Sample, TimeRule, check_program, checker_from_kattis_flags)

#: interactive problems: the candidate and the validator joined by the judge's relay, each
#: in a sandbox of its own (judge.engine.interaction)
INTERACTIVE_SUPPORTED = True

_NEW_FORMATS = ("2023-07-draft", "2023-07", "2025-09", "draft")
_LEGACY_FORMATS = ("legacy", "legacy-icpc")
_KEYS = {
    "legacy": {"problem_format_version", "type", "name", "uuid", "author", "source",
               "source_url", "license", "rights_owner", "limits", "validation",
               "validator_flags", "grading", "keywords"},
    "2023-07": {"problem_format_version", "type", "name", "uuid", "version", "credits", "source",
                "license", "rights_owner", "embargo_until", "limits", "keywords", "languages",
                "allow_file_writing", "constants", "validator_flags"},
}
#: legacy ``validation: custom ...`` modifiers (multi-pass: DOMjudge's extension) -> type
_MODIFIERS = {"interactive": "interactive", "score": "scoring", "multi-pass": "multi-pass"}
_TYPES = ("pass-fail", "scoring", "interactive", "multi-pass", "submit-answer")
#: problem.yaml's ``limits`` keys -> (ceiling, unit): a value that is not a finite positive
#: number within its ceiling (judge.problem.limits) is a located issue, never a limit
_LIMIT_CEILINGS = {
    "time_limit": (MAX_TIME_LIMIT_S, "s"), "validation_time": (MAX_TIME_LIMIT_S, "s"),
    "memory": (MAX_MEMORY_MB, "MiB"), "validation_memory": (MAX_MEMORY_MB, "MiB"),
    "output": (MAX_OUTPUT_KB // 1024, "MiB"), "validation_output": (MAX_OUTPUT_KB // 1024, "MiB"),
    "time_multiplier": (MAX_TIME_FACTOR, "x"), "time_safety_margin": (MAX_TIME_FACTOR, "x"),
    "ac_to_time_limit": (MAX_TIME_FACTOR, "x"), "time_limit_to_tle": (MAX_TIME_FACTOR, "x"),
    "time_resolution": (MAX_TIME_RESOLUTION_S, "s"),
}
_UNIT = {"s": " s", "MiB": " MiB", "x": ""}


def _shown(value: Any) -> str:
    """A value from a package, short and printable, for an issue's message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass
class KattisPackage:
    path: Path
    problem: ProgramProblem
    format: str
    types: list[str]
    submissions: list[Submission] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    #: the format's time safety margin (legacy ``time_safety_margin``, 2023-07
    #: ``time_multipliers.time_limit_to_tle``)
    tle_margin: float = 2.0
    #: the ``problem_format_version`` as the package declares it (``format`` is its family:
    #: legacy, or 2023-07 for 2023-07 and 2025-09)
    version: str = "legacy"

    @property
    def identifier(self) -> str:
        return self.problem.identifier

    @property
    def supported(self) -> bool:
        return not self.unsupported


class _Reader(DataReader):
    def __init__(self, root: Path) -> None:
        self.root = root
        self.issues: list[Issue] = []
        #: the one safe reader every package file goes through (its refusals are issues)
        self.files = PackageFiles(root, self.issues)
        self.notes: list[str] = []
        self.unsupported: list[str] = []
        #: the problem's checker and flags, set before the test data is walked
        self.checker = OutputChecker()
        self.base_flags: list[str] = []
        self.tle_margin = 2.0
        #: a scoring problem's ``data/`` settings files, read while the data is walked
        self.scored = False
        self.configs = {}

    # ---- problem.yaml ---------------------------------------------------------------------

    def config(self) -> YamlFile:
        path = self.root / "problem.yaml"
        if not self.files.is_file(path):
            if not self.files.exists(path):
                self.notes.append("no problem.yaml: the legacy defaults apply")
            return YamlFile(path, {}, {})
        try:
            return read_yaml(path, self.files)
        except InputError as exc:
            self.issues += exc.issues
            return YamlFile(path, {}, {})

    def format_of(self, config: YamlFile) -> str:
        version = config.data.get("problem_format_version", "legacy")
        version = str(version)
        fmt = "legacy" if version in _LEGACY_FORMATS else \
            "2023-07" if version in _NEW_FORMATS else None
        if fmt is not None:
            unknown = sorted(set(config.data) - _KEYS[fmt])
            if unknown:
                self.notes.append("problem.yaml keys this reader does not use: %s"
                                  % ", ".join(unknown))
            return fmt
        self.issues.append(config.issue("unknown problem_format_version %r (known: %s)" % (
            version, ", ".join(_LEGACY_FORMATS + _NEW_FORMATS)), "problem_format_version"))
        return "legacy"

    def types_of(self, config: YamlFile, fmt: str) -> tuple[list[str], bool]:
        """The problem's types and whether it has a custom output validator."""
        raw = config.data.get("type", "pass-fail")
        types = [raw] if isinstance(raw, str) else raw
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            self.issues.append(config.issue("type must be a string or a list of strings",
                                            "type"))
            types = ["pass-fail"]
        for name in types:
            if name not in _TYPES:
                self.issues.append(config.issue("unknown problem type %r (known: %s)" % (
                    name, ", ".join(_TYPES)), "type"))
        custom = False
        validation = config.data.get("validation")
        if validation is not None:
            words = str(validation).split()
            if not words or words[0] not in ("default", "custom") or \
                    any(w not in _MODIFIERS for w in words[1:]) or \
                    (words[0] == "default" and len(words) > 1):
                self.issues.append(config.issue(
                    "unknown validation %r: expected 'default' or 'custom' followed by any of "
                    "'interactive', 'score', 'multi-pass'" % validation, "validation"))
            else:
                custom = words[0] == "custom"
                for word in words[1:]:
                    if _MODIFIERS[word] not in types:
                        types.append(_MODIFIERS[word])
        if fmt == "2023-07" or "interactive" in types or "multi-pass" in types:
            custom = custom or self.validator_folder() is not None
        return [t for t in types if t != "pass-fail" or len(types) == 1] or ["pass-fail"], custom

    # ---- the output validator -------------------------------------------------------------

    def validator_folder(self) -> Path | None:
        for name in ("output_validators", "output_validator"):
            if self.files.is_dir(self.root / name):
                return self.root / name
        return None

    def validator(self) -> tuple[str, str | None] | None:
        """The custom validator program (package-relative path, language)."""
        folder = self.validator_folder()
        if folder is None:
            return None
        kinds = {}
        for entry in self.files.listdir(folder):
            if not entry.name.startswith("."):
                try:
                    kinds[entry] = self.files.kind(entry)
                except InputError as exc:
                    self.files.note(exc)
                    return None
        entries = [p for p, kind in kinds.items() if kind is not None]
        sources = [p for p in entries if kinds[p] == "file" and program_language(p)]
        if folder.name == "output_validator" and (sources or
                                                  program_language(folder) == SCRIPT):
            program = folder  # 2023-07: the folder is the program
        else:
            programs = [p for p in entries if kinds[p] == "dir" or program_language(p)]
            if not programs:
                self.issues.append(Issue(str(folder), "no output validator program here"))
                return None
            if len(programs) > 1:
                self.unsupported.append("%d output validators (%s): the judge runs one" % (
                    len(programs), ", ".join(p.name for p in programs)))
            program = programs[0]
        try:  # what the validator's sandbox will get: inside the package, and read as the
            self.files.sources(program)  # executor reads it (inside the validator's folder)
            program_sources(program)
        except InputError as exc:
            self.files.note(exc)
            return None
        language = program_language(program)
        if language == SCRIPT:
            self.unsupported.append("the output validator %s is built by its own build/run "
                                    "scripts, which the judge does not run yet"
                                    % program.relative_to(self.root))
        if language is None:
            self.issues.append(Issue(str(program), "cannot tell the output validator's "
                                     "language from its files"))
        return str(program.relative_to(self.root)), language

    # ---- limits ---------------------------------------------------------------------------

    def limits(self, config: YamlFile, fmt: str, ini: dict[str, str]) -> tuple[
            ProgramLimits, TimeRule | None]:
        raw = config.data.get("limits") or {}
        if not isinstance(raw, dict):
            self.issues.append(config.issue("limits must be a mapping", "limits"))
            raw = {}

        def number(key: str, parent: dict[str, Any] = raw, where: str = "limits") -> float | None:
            if key not in parent:
                return None
            ceiling, unit = _LIMIT_CEILINGS[key]
            value = bounded(as_number(parent[key]), ceiling,
                            at_least=1.0 if unit == "x" else 0.0, inclusive=unit == "x")
            if value is None:
                self.issues.append(config.issue("%s.%s must be a %s number of at most %g%s, "
                                                "got %s" % (
                                                    where, key, "finite" if unit == "x" else
                                                    "positive", ceiling, _UNIT[unit],
                                                    _shown(parent[key])), "limits"))
                return None
            return value

        memory, output = number("memory"), number("output")
        multipliers = raw.get("time_multipliers") or {}
        if not isinstance(multipliers, dict):
            self.issues.append(config.issue("limits.time_multipliers must be a mapping",
                                            "limits"))
            multipliers = {}
        #: the format's safety margin: ``judge verify`` gives a submission that times out
        #: this much more time before it calls the time limit its verdict (problemtools)
        self.tle_margin = (number("time_limit_to_tle", multipliers, "limits.time_multipliers")
                           or 1.5) if fmt == "2023-07" else \
            (number("time_safety_margin") or 2.0)
        values: dict[str, Any] = {}
        if memory:
            values["memory_mb"] = max(1, int(memory))
        if output:
            values["output_kb"] = max(1, int(output * 1024))
        candidates = []  # (seconds, where it comes from)
        time_limit = number("time_limit")
        if time_limit:
            candidates.append((time_limit, "problem.yaml limits.time_limit"))
        if self.files.is_file(self.root / ".timelimit"):
            seconds, issue = read_timelimit(self.root / ".timelimit", self.files)
            if issue:
                self.issues.append(issue)
            elif bounded(seconds, MAX_TIME_LIMIT_S) is None:
                self.issues.append(Issue(str(self.root / ".timelimit"), "expected a positive "
                                         "number of at most %g s, got %s"
                                         % (MAX_TIME_LIMIT_S, _shown(seconds)), line=1))
            elif seconds:
                candidates.append((seconds, ".timelimit"))
        if "timelimit" in ini:
            seconds = bounded(as_number(ini["timelimit"]), MAX_TIME_LIMIT_S)
            if seconds:
                candidates.append((seconds, "domjudge-problem.ini timelimit"))
            else:
                self.issues.append(Issue(str(self.root / "domjudge-problem.ini"),
                                         "timelimit must be a positive number of at most "
                                         "%g s, got %s" % (MAX_TIME_LIMIT_S,
                                                           _shown(ini["timelimit"]))))
        if candidates:
            seconds, source = candidates[0]
            values["time_limit_s"] = seconds
            others = ["%s says %g s" % (s, t) for t, s in candidates[1:] if t != seconds]
            self.notes.append("time limit %g s from %s%s" % (
                seconds, source, " (ignored: %s)" % "; ".join(others) if others else ""))
            return ProgramLimits(**values), None
        if fmt == "2023-07":
            rule = TimeRule(
                multiplier=number("ac_to_time_limit", multipliers, "limits.time_multipliers")
                or 2.0,
                tle_margin=self.tle_margin,
                resolution_s=number("time_resolution") or 1.0, format="2023-07",
                source="2023-07 time_multipliers")
        else:
            rule = TimeRule(multiplier=number("time_multiplier") or 5.0,
                            tle_margin=self.tle_margin, resolution_s=1.0,
                            format="legacy", source="legacy time_multiplier")
        self.notes.append("no time limit published: it will be %s" % rule.describe())
        return ProgramLimits(**values), rule

    def validator_limits(self, config: YamlFile) -> ProgramLimits:
        """``limits.validation_time`` (s), ``validation_memory`` and ``validation_output``
        (MiB): the output validator's bounds; unset ones are the judge's defaults."""
        raw = config.data.get("limits")
        values: dict[str, Any] = {}
        if not isinstance(raw, dict):
            return ProgramLimits()
        for key, field_name, scale in (("validation_time", "time_limit_s", 1),
                                       ("validation_memory", "memory_mb", 1),
                                       ("validation_output", "output_kb", 1024)):
            if key in raw:
                ceiling, unit = _LIMIT_CEILINGS[key]
                value = bounded(as_number(raw[key]), ceiling)
                if value is None:
                    self.issues.append(config.issue("limits.%s must be a positive number of "
                                                    "at most %g%s, got %s" % (
                                                        key, ceiling, _UNIT[unit],
                                                        _shown(raw[key])), "limits"))
                elif field_name == "time_limit_s":
                    values[field_name] = value
                else:
                    values[field_name] = max(1, int(value * scale))
        return ProgramLimits(**values)


def _passes(config: Any, reader: Any) -> int:
    """``limits.validation_passes`` of a multi-pass problem (default 2; at least 2)."""
    limits = config.data.get("limits")
    value = limits.get("validation_passes", 2) if isinstance(limits, dict) else 2
    if type(value) is not int or not 2 <= value <= 100:
        reader.issues.append(config.issue("limits.validation_passes must be an integer from "
                                          "2 to 100", "limits.validation_passes"))
        return 2
    return value


def read_package(path: str | Path) -> KattisPackage:
    """One package; raise InputError with every issue (file and line) it has."""
    root = Path(path).resolve()
    if not root.is_dir():
        raise InputError([Issue(str(root), "not a folder (a problem package is a folder)")])
    reader = _Reader(root)
    config = reader.config()
    fmt = reader.format_of(config)
    ini: dict[str, str] = {}
    if reader.files.is_file(root / "domjudge-problem.ini"):
        ini, issues = read_domjudge_ini(root / "domjudge-problem.ini", reader.files)
        reader.issues += issues
        for key in ("special_compare", "special_run"):
            if ini.get(key) and reader.validator_folder() is None:
                reader.unsupported.append(
                    "domjudge-problem.ini names a %s executable (%r) that is not in the "
                    "package" % (key, ini[key]))
    types, custom = reader.types_of(config, fmt)
    interactive = "interactive" in types
    multi_pass = "multi-pass" in types
    passes = _passes(config, reader) if multi_pass else 2
    base_flags = as_args(config.data.get("validator_flags"))
    if base_flags is None:
        reader.issues.append(config.issue("validator_flags must be a string", "validator_flags"))
        base_flags = []
    if fmt == "2023-07" and "validator_flags" in config.data:
        reader.notes.append("validator_flags in a 2023-07 problem.yaml (the format moved them "
                            "to test_group.yaml): applied anyway")
    checker = OutputChecker()
    if custom or interactive or multi_pass:
        said = len(reader.issues)
        found = reader.validator()
        if found is None:
            if len(reader.issues) == said:  # else the validator's files were refused
                reader.issues.append(config.issue(
                    "%s needs an output validator, and there is no output_validators/ (or "
                    "output_validator/) folder" % ("an interactive problem" if interactive
                                                   else "validation: custom"),
                    "validation" if "validation" in config.data else "type"))
        else:
            checker = OutputChecker(type="validator", validator=found[0],
                                    validator_language=found[1], validator_flags=base_flags)
    else:
        if reader.validator_folder() is not None:
            reader.notes.append("%s/ is present but validation is default: not used"
                                % reader.validator_folder().name)
        try:
            checker = checker_from_kattis_flags(base_flags)
        except ValueError as exc:
            reader.issues.append(config.issue("validator_flags: %s" % exc, "validator_flags"))
    reader.checker, reader.base_flags = checker, base_flags
    limits, rule = reader.limits(config, fmt, ini)
    validator_limits = reader.validator_limits(config)
    statement = read_statement([root / "problem_statement", root / "statement", root],
                               reader.files)
    if statement is None:
        reader.notes.append("no problem statement (problem_statement/, statement/ or DOMjudge's problem.{pdf,html,txt})")
    elif statement.path is not None and statement.path.suffix == ".pdf":
        reader.notes.append("the statement is a PDF only: prompts get no statement text")
    samples: list[Sample] = []
    reader.scored = "scoring" in types
    tests = reader.tests(fmt, base_flags, interactive, samples)
    submissions = read_submissions(root, reader.notes, reader.files)
    if interactive and not INTERACTIVE_SUPPORTED:
        reader.unsupported.append("interactive problem: the candidate and the output "
                                  "validator must talk through pipes, which the judge's "
                                  "sandboxes do not provide yet")
    for unsupported in ("submit-answer",):
        if unsupported in types:
            reader.unsupported.append("%s problems are not supported" % unsupported)
    scoring = None
    if "scoring" in types and tests:
        scored = read_scoring(fmt, reader.configs, tests, config.data.get("grading"))
        reader.notes += scored.notes
        reader.unsupported += scored.unsupported
        reader.issues += scored.issues
        scoring = scored.root
    pass_fail = "scoring" not in types
    if reader.issues:
        raise InputError(reader.issues)
    problem = ProgramProblem(
        identifier=root.name, name=package_name(config, ini, statement and statement.name,
                                            root.name),
        statement=statement.text if statement else "",
        input_format=statement.input_format if statement else None,
        output_format=statement.output_format if statement else None,
        samples=samples, tests=tests, limits=limits, validator_limits=validator_limits,
        time_rule=rule, checker=checker,
        interactive=interactive, multi_pass=multi_pass,
        validation_passes=passes, contest=ContestRules(stop_at_first_failure=pass_fail),
        scoring=scoring,
        languages=package_languages(config, reader.notes), source=str(root))
    problem.bind(root, str(root / "problem.yaml"))
    issues = check_program(problem, str(root))
    if issues:
        raise InputError(issues)
    reader.notes.append("contest rule: %s" % (
        "stop at the first failing test (its verdict is the candidate's)" if pass_fail else
        "a scored problem: every test its groups score is run; the result carries the score "
        "and each group's"))
    return KattisPackage(root, problem, fmt, types, submissions, reader.notes,
                         reader.unsupported, reader.tle_margin,
                         str(config.data.get("problem_format_version", "legacy")))


def is_package(path: Path) -> bool:
    return path.is_dir() and ((path / "problem.yaml").is_file() or (path / "data").is_dir())


@dataclass
class KattisImport:
    packages: list[KattisPackage]
    issues: list[Issue]

    def raise_for_issues(self) -> None:
        if self.issues:
            raise InputError(self.issues)


def read_packages(*paths: str | Path) -> KattisImport:
    """Every package under ``paths`` (each a package or a folder of packages), with every
    issue of the malformed ones; the others are read regardless."""
    packages: list[KattisPackage] = []
    issues: list[Issue] = []
    seen: dict[str, Path] = {}
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            issues.append(Issue(str(path), "no such folder"))
            continue
        if is_package(path):
            folders = [path]
        else:  # a folder of packages: none may lead outside it
            inside = PackageFiles(path, issues, label="folder of packages")
            folders = [p for p in inside.listdir(path) if not p.name.startswith(".")
                       and inside.is_dir(p) and is_package(p)]
        if not folders:
            issues.append(Issue(str(path), "no problem package here (a folder with "
                                           "problem.yaml or data/)"))
        add_packages(folders, read_package, seen, packages, issues)
    return KattisImport(packages, issues)


def add_packages(found, read, seen: dict, packages: list, issues: list) -> None:
    """Read each of ``found`` with ``read`` (Kattis or Polygon): its located errors join
    ``issues``, and so does a problem id ``seen`` already holds; the rest join ``packages``."""
    for item in found:
        try:
            package = read(item)
        except InputError as exc:
            issues += exc.issues
            continue
        if package.identifier in seen:
            issues.append(Issue(str(item), "problem id %r is already used by %s" % (
                package.identifier, seen[package.identifier])))
            continue
        seen[package.identifier] = item
        packages.append(package)


#: what runs a package's Python 3 programs: PyPy 3, as Kattis and problemtools run them
PYTHON_RUNTIME = "pypy3"


def problem_data(package: KattisPackage, output_dir: Path, python: str = PYTHON_RUNTIME
                 ) -> dict[str, Any]:
    """The package's problem as a problem file living in ``output_dir``: the test data and
    the validator stay in the package, referred to by paths relative to ``output_dir``.
    With ``python="pypy3"`` (the default) the problem's ``runtimes`` run Python candidates
    on PyPy, as Kattis does (its time limit was set with PyPy); "cpython" leaves them on
    CPython."""
    output_dir = Path(output_dir).resolve()

    def moved(name: str | None) -> str | None:
        return None if name is None else os.path.relpath(package.path / name, output_dir)

    problem = package.problem
    data = problem.model_dump(mode="json", exclude_none=True)
    data["kind"] = "program"
    for test, raw in zip(problem.tests, data["tests"]):
        for key in ("stdin_file", "expected_file", "files"):
            if getattr(test, key) is not None:
                raw[key] = moved(getattr(test, key))
        if test.checker is not None and test.checker.validator is not None:
            raw["checker"]["validator"] = moved(test.checker.validator)
    if problem.checker.validator is not None:
        data["checker"]["validator"] = moved(problem.checker.validator)
    if python != "cpython":
        data["runtimes"] = {"python": python}
    return data


def write_problem(package: KattisPackage, output_dir: str | Path,
                  python: str = PYTHON_RUNTIME) -> Path:
    """Write ``<id>.json`` into ``output_dir`` (see ``problem_data``)."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    path = output_dir / ("%s.json" % package.identifier)
    path.write_text(json.dumps(problem_data(package, output_dir, python), indent=1) + "\n",
                    encoding="utf-8")
    return path


class KattisImporter(Importer):
    """``judge import kattis PATH --output DIR``: every package under ``PATH`` becomes a
    problem file in ``DIR`` whose tests refer to the package's files. A package the judge
    cannot judge yet (interactive, ...) is refused with the missing feature named; a
    malformed one is reported with its files and lines; the others are written."""

    label = "Kattis package"

    def import_suite(self, kind: str, path: Path, output: Path,
                     progress: Callable[[str], None] | None = None) -> ImportReport:
        return self.import_paths([path], output, progress, kind)

    def import_paths(self, paths: list[str | Path], output: Path,
                     progress: Callable[[str], None] | None = None,
                     kind: str = "kattis", python: str = PYTHON_RUNTIME) -> ImportReport:
        """Every package under each of ``paths`` (a package or a folder of packages); see
        ``problem_data`` for ``python``."""
        result = read_packages(*paths)
        report = ImportReport(kind, " ".join(str(p) for p in paths), str(output))
        report.issues += result.issues
        for package in result.packages:
            problem = ProblemReport(package.identifier, expected=len(package.problem.tests),
                                    notes=list(package.notes))
            if package.supported:
                problem.file = str(write_problem(package, output, python))
                if progress:
                    progress(package.identifier)
            else:
                problem.error = "not imported: %s" % "; ".join(package.unsupported)
                report.issues.append(Issue(str(package.path), problem.error))
            report.problems.append(problem)
        return report
