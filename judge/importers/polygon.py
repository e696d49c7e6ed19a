"""Polygon (Codeforces) problem packages read as program problems: pure reading, nothing
of the package runs in the judge's process.

``read_package(path)`` reads one package (a folder, or a ``.zip`` extracted within bounds:
``polygon_files``) from its ``problem.xml``:

- ``names``, the statement (``statements/<lang>/problem-properties.json`` or
  ``statement-sections/<lang>/*.tex``, English first) for the prompt;
- ``judging``: ``input-file``/``output-file`` (file I/O: the problem's ``io``), the testset
  ``tests``: ``time-limit`` (ms), ``memory-limit`` (bytes), ``input-path-pattern`` /
  ``answer-path-pattern``, each ``test`` (``method``, ``sample``, ``group``, ``points``) and
  ``groups`` (``points``, ``points-policy``, ``dependencies``): a scored problem
  (``complete-group``: the group's points all or nothing, the minimum over its tests;
  ``each-test``: each test's points, summed; ``dependencies``: ``require_pass``);
- ``assets/checker``: ``std::wcmp.cpp`` is the judge's ``tokens`` comparison (case
  sensitive: exactly wcmp's rule); any other checker, standard or not, is its shipped testlib
  source compiled and run as a ``testlib`` checker, whose ``quitp(p)`` gives the test p
  points (Polygon's default: out of the test's points in a scored problem; in an unscored
  one the test passes carrying them) or, with ``judging``'s
  ``treat-points-from-checker-as-percent``, p percent of the test's points;
  ``assets/interactor``: an interactive
  problem with a testlib interactor;
- ``assets/solutions``: each solution with the verdict its tag asks (``TAG_VERDICTS``), for
  ``judge verify``.

Generated tests are in "full" packages only: a "standard" package without them is refused
naming the missing files (the judge never runs a package's generators or its main solution).
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from xml.etree import ElementTree

from judge.errors import InputError, Issue
from judge.importers.base import Importer
from judge.importers.kattis import KattisImport, KattisPackage, add_packages
from judge.importers.kattis_files import sources_language
from judge.importers.kattis_submissions import Submission
from judge.importers.polygon_files import extract_zip, parse_xml, read_statement
from judge.importers.records import ImportReport, ProblemReport
from judge.problem.limits import MAX_MEMORY_MB, MAX_TIME_LIMIT_S, bounded
from judge.problem.package_files import PackageFiles, Refused
from judge.problem.program import (ContestRules, OutputChecker, ProgramLimits, ProgramProblem,
                                   ProgramTest, Sample, check_program)
from judge.problem.program_io import FileIO
from judge.problem.scoring import ScoreGroup

#: the standard testlib checkers the judge's own comparisons match exactly
EXACT_CHECKERS = {"std::wcmp.cpp": OutputChecker(type="tokens", case_sensitive=True)}
#: a solution's tag -> (its submission folder, the verdicts it may get; None: the folder's)
TAG_VERDICTS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "main": ("accepted", None), "accepted": ("accepted", None),
    "wrong-answer": ("wrong_answer", None), "presentation-error": ("wrong_answer", None),
    "time-limit-exceeded": ("time_limit_exceeded", None),
    "time-limit-exceeded-or-accepted": ("time_limit_exceeded", ("timeout", "pass")),
    "time-limit-exceeded-or-memory-limit-exceeded": (
        "time_limit_exceeded", ("timeout", "memory_limit", "runtime_error")),
    # a C++ allocation past the limit ends as a crash (bad_alloc) as often as a kill
    "memory-limit-exceeded": ("run_time_error", ("memory_limit", "runtime_error")),
    "failed": ("run_time_error", None), "rejected": ("rejected", None),
}
#: Polygon's ``judge verify`` gets a timeout of a solution that should pass a second run
#: at this many times the limit (Polygon's own machines are not this one)
TLE_MARGIN = 2.0
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass
class _Test:
    index: int
    method: str
    sample: bool
    group: str
    points: float


@dataclass
class _Reader:
    root: Path
    xml_path: Path
    issues: list[Issue] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.files = PackageFiles(self.root, self.issues)

    def issue(self, message: str, where: str = "") -> None:
        self.issues.append(Issue(str(self.xml_path), message, where))

    def package_path(self, raw: str | None, where: str) -> Path | None:
        """A path the XML names, inside the package (never a link out of it)."""
        if not raw:
            return None
        if os.path.isabs(raw) or ".." in Path(raw).parts:
            self.issue("%r leads outside the package: refused" % raw[:80], where)
            return None
        return self.root / raw

    # ---- judging -------------------------------------------------------------------------

    def number(self, element: ElementTree.Element | None, what: str, where: str,
               ceiling: float) -> float | None:
        text = (element.text or "").strip() if element is not None else ""
        if not text:
            return None
        try:
            value = bounded(float(text), ceiling)
        except ValueError:
            value = None
        if value is None or value <= 0:
            self.issue("%s must be a positive number, got %r" % (what, text[:40]), where)
            return None
        return value

    def testset(self, xml: ElementTree.Element) -> ElementTree.Element | None:
        judging = xml.find("judging")
        sets = judging.findall("testset") if judging is not None else []
        chosen = [s for s in sets if s.get("name") == "tests"] or \
            [s for s in sets if s.get("name") in (None, "")]
        if not chosen:
            self.issue("no <judging><testset name=\"tests\"> (the tests)", "judging")
            return None
        others = [s.get("name") for s in sets if s is not chosen[0]]
        if others:
            self.notes.append("testsets other than 'tests' are not used: %s"
                              % ", ".join(str(o) for o in others))
        return chosen[0]

    def tests(self, testset: ElementTree.Element) -> list[_Test]:
        listed = testset.findall("tests/test")
        count = testset.findtext("test-count")
        total = len(listed)
        if not listed and count and count.strip().isdigit():
            total = int(count.strip())
        if total > 100_000:
            self.issue("%d tests: more than a package may have" % total, "test-count")
            return []
        found = []
        for i in range(total):
            attrs = listed[i].attrib if i < len(listed) else {}
            points = _points(self, attrs.get("points"), "test %d" % (i + 1),
                             "tests/test[%d]" % (i + 1))
            group = attrs.get("group", "") or ""
            if group and not _ID.fullmatch(group):
                self.issue("test %d: group name %r: letters, digits, '_', '.', '-' only"
                           % (i + 1, group[:40]), "tests/test[%d]" % (i + 1))
                group = ""
            found.append(_Test(i + 1, attrs.get("method", "manual"),
                               attrs.get("sample") == "true", group, points))
        return found

    def path_of(self, pattern: str | None, index: int) -> str | None:
        if not pattern:
            return None
        try:
            return pattern % index
        except (TypeError, ValueError):
            self.issue("path pattern %r is not a printf pattern of one number" % pattern[:60],
                       "testset")
            return None

    # ---- assets --------------------------------------------------------------------------

    def checker(self, xml: ElementTree.Element, interactive_source: str | None
                ) -> OutputChecker:
        element = xml.find("assets/checker")
        if element is None:
            if interactive_source:
                return OutputChecker(type="testlib", interactor=interactive_source)
            self.notes.append("no checker in problem.xml: tokens compared exactly (wcmp)")
            return EXACT_CHECKERS["std::wcmp.cpp"]
        name = element.get("name") or ""
        source = element.find("source")
        raw = source.get("path") if source is not None else None
        path = self.package_path(raw, "assets/checker/source")
        if name in EXACT_CHECKERS and not interactive_source:
            self.notes.append("checker %s: the judge's %s comparison (exactly equivalent)"
                              % (name, EXACT_CHECKERS[name].type))
            return EXACT_CHECKERS[name]
        if path is None or not self.files.is_file(path):
            if raw and not self.files.exists(path or self.root / raw):
                self.issue("the checker's source %s is not in the package" % raw,
                           "assets/checker/source")
            elif not raw:
                self.issue("checker %r has no source path" % name[:60], "assets/checker")
            return OutputChecker()
        kind = element.get("type", "testlib")
        if kind != "testlib":
            self.unsupported.append("a checker of type %r (the judge runs testlib checkers)"
                                    % kind[:40])
        self.notes.append("checker %s: its testlib source %s, compiled and run sandboxed" % (
            name or "(the problem's own)", raw))
        judging = xml.find("judging")
        if judging is not None and judging.get(
                "treat-points-from-checker-as-percent", "").lower() == "true":
            # quitp(p): p percent of the test's points
            return OutputChecker(type="testlib", source=raw, interactor=interactive_source,
                                 max_points=100.0)
        # Polygon's default: quitp(p) gives the test p points
        return OutputChecker(type="testlib", source=raw, interactor=interactive_source,
                             absolute_points=True)

    def interactor(self, xml: ElementTree.Element) -> str | None:
        element = xml.find("assets/interactor")
        if element is None:
            return None
        source = element.find("source")
        raw = source.get("path") if source is not None else None
        path = self.package_path(raw, "assets/interactor/source")
        if path is None or not self.files.is_file(path):
            self.issue("the interactor's source %s is not in the package" % (raw or "(none)"),
                       "assets/interactor/source")
            return None
        return raw

    def solutions(self, xml: ElementTree.Element) -> list[Submission]:
        found = []
        for i, element in enumerate(xml.findall("assets/solutions/solution")):
            tag = element.get("tag") or ""
            source = element.find("source")
            raw = source.get("path") if source is not None else None
            path = self.package_path(raw, "assets/solutions/solution[%d]" % (i + 1))
            if path is None:
                continue
            if tag not in TAG_VERDICTS:
                self.notes.append("solution %s: tag %r has no single verdict: not verified"
                                  % (raw, tag[:40]))
                continue
            try:
                code = self.files.sources(path)
            except Refused as exc:
                self.files.note(exc)
                continue
            folder, expected = TAG_VERDICTS[tag]
            found.append(Submission(path, folder, sources_language(code), expected,
                                    code=code))
        return found


#: the most points a test or a group of a package may carry (Polygon's are at most 100s)
MAX_POINTS = 1e6


def _points(reader: _Reader, text: str | None, what: str, where: str) -> float:
    """A test's or group's ``points`` attribute: a finite number from 0 to MAX_POINTS;
    anything else (not a number, NaN, an infinity, negative, past the bound) is an issue
    and counts as 0."""
    if not text:
        return 0.0
    try:
        value = bounded(float(text), MAX_POINTS, inclusive=True)
    except ValueError:
        value = None
    if value is None:
        reader.issue("%s: points %r is not a number from 0 to %g" % (what, text[:20],
                                                                     MAX_POINTS), where)
        return 0.0
    return value


def _limits(reader: _Reader, testset: ElementTree.Element) -> ProgramLimits:
    values: dict[str, Any] = {}
    ms = reader.number(testset.find("time-limit"), "time-limit (ms)", "testset/time-limit",
                       MAX_TIME_LIMIT_S * 1000)
    if ms:
        values["time_limit_s"] = ms / 1000
    memory = reader.number(testset.find("memory-limit"), "memory-limit (bytes)",
                           "testset/memory-limit", float(MAX_MEMORY_MB) * (1 << 20))
    if memory:
        values["memory_mb"] = max(1, int(memory) >> 20)
    return ProgramLimits(**values)


def _scoring(reader: _Reader, testset: ElementTree.Element, tests: list[_Test]
             ) -> ScoreGroup | None:
    """Groups with points as the judge's scoring tree (see the module doc); None when no
    test and no group has points."""
    declared = {g.get("name") or "": g for g in testset.findall("groups/group")}
    group_points: dict[str, float] = {}
    for name, g in declared.items():
        group_points[name] = _points(reader, g.get("points"), "group %r" % name[:40],
                                     "groups/group")
    if not any(t.points for t in tests) and not any(group_points.values()):
        return None
    order = list(dict.fromkeys([t.group for t in tests if t.group] + list(declared)))
    children = []
    for name in order:
        element = declared.get(name)
        members = [t for t in tests if t.group == name]
        policy = element.get("points-policy", "complete-group") if element is not None \
            else "each-test"
        deps = [d.get("group") or "" for d in element.findall("dependencies/dependency")] \
            if element is not None else []
        points = group_points.get(name, sum(t.points for t in members))
        if policy == "complete-group":
            children.append(ScoreGroup(name=name, max_score=points, aggregation="min",
                                       require_pass=deps))
        elif policy == "each-test":
            for t in members:
                t.group = "%s/%02d" % (name, t.index)
            children.append(ScoreGroup(
                name=name, max_score=sum(t.points for t in members), aggregation="sum",
                require_pass=deps, groups=[ScoreGroup(name=t.group, max_score=t.points,
                                                      aggregation="min") for t in members]))
        else:
            reader.issue("group %r: unknown points-policy %r (known: complete-group, "
                         "each-test)" % (name, policy[:40]), "groups/group")
        if element is not None and element.get("feedback-policy"):
            reader.notes.append("group %s: feedback-policy %s (what contestants see; not "
                                "used in judging)" % (name, element.get("feedback-policy")))
    for t in tests:  # tests in no group: each its own points
        if not t.group and t.points:
            t.group = "tests/%02d" % t.index
            children.append(ScoreGroup(name=t.group, max_score=t.points, aggregation="min"))
    return ScoreGroup(name="", max_score=sum(float(c.max_score or 0) for c in children),
                      aggregation="sum", groups=children)


def read_package(path: str | Path, *, workdir: Path | None = None) -> KattisPackage:
    """One Polygon package (a folder, or a .zip extracted into ``workdir``, by default a
    temporary folder removed when the program ends); InputError with every issue."""
    path = Path(path)
    if path.is_file() and path.suffix.lower() == ".zip":
        if workdir is None:
            workdir = Path(tempfile.mkdtemp(prefix="judge-polygon-"))
            atexit.register(shutil.rmtree, workdir, True)
        path = extract_zip(path, workdir / path.stem)
    root = path.resolve()
    if not root.is_dir():
        raise InputError([Issue(str(path), "not a Polygon package (a folder or a .zip "
                                           "with problem.xml)")])
    reader = _Reader(root, root / "problem.xml")
    if not reader.files.is_file(reader.xml_path):
        if not reader.issues:
            reader.issue("not found (a Polygon package has problem.xml at its top)")
        raise InputError(reader.issues)
    xml = parse_xml(reader.xml_path, reader.files)
    short = xml.get("short-name") or root.name
    identifier = short if _ID.fullmatch(short) else re.sub(r"[^A-Za-z0-9_.-]", "_",
                                                           root.name)[:64] or "problem"
    testset = reader.testset(xml)
    if testset is None:
        raise InputError(reader.issues)
    limits = _limits(reader, testset)
    judging = xml.find("judging")
    io = None
    if judging is not None and (judging.get("input-file") or judging.get("output-file")):
        try:
            io = FileIO(input_file=judging.get("input-file") or None,
                        output_file=judging.get("output-file") or None)
        except ValueError:
            reader.issue("input-file/output-file %r, %r: not plain file names" % (
                judging.get("input-file"), judging.get("output-file")), "judging")
    interactor = reader.interactor(xml)
    checker = reader.checker(xml, interactor)
    raw_tests = reader.tests(testset)
    scoring = _scoring(reader, testset, raw_tests)
    in_pattern = testset.findtext("input-path-pattern")
    ans_pattern = testset.findtext("answer-path-pattern")
    if not in_pattern:
        reader.issue("no input-path-pattern", "testset")
    tests: list[ProgramTest] = []
    samples: list[Sample] = []
    missing: list[str] = []
    generated = False
    for t in raw_tests:
        stdin, answer = reader.path_of(in_pattern, t.index), reader.path_of(ans_pattern,
                                                                             t.index)
        if stdin is None:
            break
        for rel in (stdin, answer):
            if rel is None:
                continue
            target = reader.package_path(rel, "test %d" % t.index)
            if target is None:
                continue
            try:
                kind = reader.files.kind(target)
            except Refused as exc:
                reader.files.note(exc)
                continue
            if kind != "file":
                missing.append(rel)
                generated = generated or t.method == "generated"
        tests.append(ProgramTest(name=Path(stdin).name, stdin_file=stdin,
                                 expected_file=answer, group=t.group, sample=t.sample))
        if t.sample and interactor is None and answer and not missing:
            inp = reader.files.text(root / stdin, 64 << 10)
            out = reader.files.text(root / answer, 64 << 10)
            if inp is not None and out is not None:
                samples.append(Sample(stdin=inp, expected=out))
    if missing:
        shown = ", ".join(missing[:4]) + (" (+%d more)" % (len(missing) - 4)
                                          if len(missing) > 4 else "")
        reader.issue("%d test file%s not in the package: %s; %s" % (
            len(missing), "" if len(missing) == 1 else "s", shown,
            "a 'standard' package leaves out generated tests and answers: download the full "
            "(Linux) package; the judge never runs a package's generators or solutions"
            if generated or any(m.endswith(".a") or m == ans_pattern for m in missing)
            else "the package is incomplete"), "judging/testset")
    if not ans_pattern and interactor is None:
        reader.issue("no answer-path-pattern: the tests have no answers", "testset")
    statement = read_statement(root, xml, reader.files, reader.notes)
    if statement is None:
        reader.notes.append("no statement text (statements/<lang>/problem-properties.json "
                            "or statement-sections/): prompts get none")
    names = {n.get("language"): n.get("value") for n in xml.findall("names/name")}
    name = names.get("english") or next(iter(names.values()), None) or \
        (statement.name if statement else None) or identifier
    submissions = reader.solutions(xml)
    if reader.issues:
        raise InputError(reader.issues)
    problem = ProgramProblem(
        identifier=identifier, name=str(name), statement=statement.text if statement else "",
        input_format=statement.input_format if statement else None,
        output_format=statement.output_format if statement else None,
        samples=samples, tests=tests, limits=limits, checker=checker,
        interactive=interactor is not None, io=io,
        contest=ContestRules(stop_at_first_failure=scoring is None), scoring=scoring,
        source=str(root))
    problem.bind(root, str(reader.xml_path))
    issues = check_program(problem, str(reader.xml_path))
    if issues:
        raise InputError(issues)
    reader.notes.append("contest rule: %s" % (
        "stop at the first failing test" if scoring is None else
        "a scored problem (%g points): every test is run; the result carries the score and "
        "each group's" % (scoring.max_score or 0)))
    return KattisPackage(root, problem, "polygon", ["interactive"] if interactor else
                         ["scoring"] if scoring else ["pass-fail"], submissions, reader.notes,
                         reader.unsupported, TLE_MARGIN, "polygon")


def is_package(path: Path) -> bool:
    return (path.is_dir() and (path / "problem.xml").is_file()) or \
        (path.is_file() and path.suffix.lower() == ".zip")


def read_packages(*paths: str | Path, workdir: Path | None = None) -> KattisImport:
    """Every Polygon package under ``paths`` (each a package folder, a .zip, or a folder of
    them), with every issue of the malformed ones; the others are read regardless."""
    packages: list[KattisPackage] = []
    issues: list[Issue] = []
    seen: dict[str, Path] = {}
    for raw in paths:
        path = Path(raw)
        if is_package(path):
            found = [path]
        elif path.is_dir():
            path = path.resolve()
            inside = PackageFiles(path, issues, label="folder of packages")
            found = [p for p in inside.listdir(path) if not p.name.startswith(".")
                     and is_package(p) and inside.exists(p)]
        else:
            issues.append(Issue(str(path), "no such file or folder"))
            continue
        if not found:
            issues.append(Issue(str(path), "no Polygon package here (a folder with "
                                           "problem.xml, or a .zip)"))
        add_packages(found, lambda item: read_package(item, workdir=workdir), seen, packages,
                     issues)
    return KattisImport(packages, issues)


def problem_data(package: KattisPackage, output_dir: Path) -> dict[str, Any]:
    """The problem file's JSON, its paths relative to ``output_dir``."""
    from judge.importers.kattis import problem_data as kattis_data

    data = kattis_data(package, output_dir, python="cpython")
    checker = package.problem.checker
    for key in ("source", "interactor"):
        if getattr(checker, key) is not None:
            data["checker"][key] = os.path.relpath(package.path / getattr(checker, key),
                                                   Path(output_dir).resolve())
    return data


class PolygonImporter(Importer):
    """``judge import polygon PATH --output DIR``: each Polygon package (folder or .zip)
    becomes a problem file in DIR referring to the package's files (a .zip is extracted
    into ``DIR/packages/<name>/``)."""

    label = "Polygon package"

    def import_suite(self, kind: str, path: Path, output: Path,
                     progress: Callable[[str], None] | None = None) -> ImportReport:
        return self.import_paths([path], output, progress)

    def import_paths(self, paths: list[str | Path], output: Path,
                     progress: Callable[[str], None] | None = None,
                     **_: Any) -> ImportReport:
        output = Path(output)
        result = read_packages(*paths, workdir=output / "packages")
        report = ImportReport("polygon", " ".join(str(p) for p in paths), str(output))
        report.issues += result.issues
        for package in result.packages:
            problem = ProblemReport(package.identifier, expected=len(package.problem.tests),
                                    notes=list(package.notes))
            if package.supported:
                output.mkdir(parents=True, exist_ok=True)
                file = output / ("%s.json" % package.identifier)
                file.write_text(json.dumps(problem_data(package, output), indent=1) + "\n",
                                encoding="utf-8")
                problem.file = str(file)
                if progress:
                    progress(package.identifier)
            else:
                problem.error = "not imported: %s" % "; ".join(package.unsupported)
                report.issues.append(Issue(str(package.path), problem.error))
            report.problems.append(problem)
        return report


__all__ = ["EXACT_CHECKERS", "PolygonImporter", "TAG_VERDICTS", "is_package", "problem_data",
           "read_any_packages",
           "read_package", "read_packages"]


def read_any_packages(*paths: str | Path) -> KattisImport:
    """``judge verify``: Polygon packages (problem.xml, .zip) read here, the others as
    Kattis packages."""
    from judge.importers.kattis import read_packages as read_kattis

    def polygon_like(path: Path) -> bool:
        if is_package(path):
            return True
        try:
            return path.is_dir() and not (path / "problem.yaml").exists() and any(
                (child / "problem.xml").is_file() for child in path.iterdir())
        except OSError:
            return False

    polygon = [p for p in paths if polygon_like(Path(p))]
    others = [p for p in paths if p not in polygon]
    found = read_kattis(*others) if others else KattisImport([], [])
    if polygon:
        more = read_packages(*polygon)
        found.packages += more.packages
        found.issues += more.issues
    return found
