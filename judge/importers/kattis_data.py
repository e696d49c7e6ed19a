"""Reading the test data of a Kattis / ICPC problem package (``data/``): groups in
lexicographic order, ``testdata.yaml`` / ``test_group.yaml`` settings (legacy: the nearest
file applies whole; 2023-07: key by key), per-case ``.yaml``, ``.files`` and ``.ans``,
samples for prompts (``.in``/``.ans``, ``.out`` or ``.statement`` overrides, ``.interaction``).
Part of ``judge.importers.kattis``; pure reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from judge.errors import InputError, Issue
from judge.problem.package_files import MAX_DEPTH, PackageFiles, Refused
from judge.importers.kattis_files import as_args, read_yaml
from judge.importers.kattis_scoring import LEGACY_KEYS, NEW_KEYS, GroupConfig
from judge.problem.program import OutputChecker, ProgramTest, Sample, checker_from_kattis_flags

#: samples longer than this are judged but not inlined into prompts
SAMPLE_BYTES = 4096


def _sibling(base: Path, extension: str) -> Path:
    """``secret/a.b`` + ``.ans`` -> ``secret/a.b.ans`` (``with_suffix`` would drop ``.b``)."""
    return base.with_name(base.name + extension)


@dataclass
class Group:
    """Settings in force for a test data folder."""

    flags: list[str] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    source: str = ""


class DataReader:
    """The test data half of a package reader (``_Reader`` in ``kattis``)."""

    root: Path
    issues: list[Issue]
    #: the package's safe reader (every read of a package file goes through it)
    files: PackageFiles
    notes: list[str]
    #: the problem's checker and flags, set before the test data is walked
    checker: OutputChecker
    base_flags: list[str]
    #: the problem is of type scoring (its groups' scoring keys are read)
    scored: bool
    #: each ``data/`` folder's settings file (relative to ``data/`` -> file), for scoring
    configs: dict[str, GroupConfig]

    def group_settings(self, folder: Path, inherited: Group, fmt: str,
                       base_flags: list[str]) -> Group:
        for name in ("test_group.yaml", "testdata.yaml"):
            path = folder / name
            if self.files.is_file(path):
                break
        else:
            return inherited
        try:
            settings = read_yaml(path, self.files)
        except InputError as exc:
            self.issues += exc.issues
            return inherited
        # legacy: the nearest testdata.yaml applies whole; 2023-07: key by key
        group = Group(list(inherited.flags), list(inherited.args), str(path)) \
            if fmt == "2023-07" else Group(list(base_flags), [], str(path))
        for key in ("output_validator_flags", "output_validator_args"):
            if key in settings.data:
                value = settings.data[key]
                if isinstance(value, dict):  # legacy {name: ..., flags: ...}
                    value = value.get("flags", "")
                flags = as_args(value)
                if flags is None:
                    self.issues.append(settings.issue("%s must be a string or a list of "
                                                      "strings" % key, key))
                else:
                    group.flags = list(base_flags) + flags
        if "args" in settings.data:
            args = as_args(settings.data["args"])
            if args is None:
                self.issues.append(settings.issue("args must be a list of strings", "args"))
            else:
                group.args = args
        relative = folder.relative_to(self.root / "data").as_posix()
        self.configs[relative if relative != "." else ""] = GroupConfig(
            path, settings.data, settings.lines)
        grading = [k for k in LEGACY_KEYS + NEW_KEYS if k in settings.data]
        if grading and not self.scored:
            self.notes.append("%s: %s ignored (a pass-fail problem: no scores)"
                              % (path.relative_to(self.root), ", ".join(grading)))
        return group

    def tests(self, fmt: str, base_flags: list[str], interactive: bool,
              samples: list[Sample]) -> list[ProgramTest]:
        data = self.root / "data"
        if not self.files.is_dir(data):
            if not self.files.exists(data):
                self.issues.append(Issue(str(data), "no data folder: the package has no "
                                                    "tests"))
            return []
        root = self.group_settings(data, Group(list(base_flags), []), fmt, base_flags)
        tests: list[ProgramTest] = []
        for part in ("sample", "secret"):
            if self.files.is_dir(data / part):
                self.walk(data / part, root, fmt, base_flags, interactive, tests, samples)
        secret = any(t.name.startswith("secret/") for t in tests)
        samples_only = not secret and any(t.sample for t in tests)
        if samples_only:  # DOMjudge's hello: judged on its samples, and said so
            self.notes.append("no secret test cases (%s): judged on its %d sample%s" % (
                "no data/secret folder" if not self.files.is_dir(data / "secret")
                else "data/secret holds no *.in", len(tests), "" if len(tests) == 1 else "s"))
        elif not self.files.is_dir(data / "secret"):
            self.issues.append(Issue(str(data / "secret"), "no data/secret folder"))
        elif not secret:
            self.issues.append(Issue(str(data / "secret"), "no secret test cases (*.in)"))
        return tests

    def walk(self, folder: Path, inherited: Group, fmt: str, base_flags: list[str],
             interactive: bool, tests: list[ProgramTest], samples: list[Sample],
             depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            self.issues.append(Issue(str(folder), "test groups nested deeper than %d (a "
                                                  "folder link that loops?)" % MAX_DEPTH))
            return
        group = self.group_settings(folder, inherited, fmt, base_flags)
        kinds: dict[Path, str | None] = {}
        for entry in self.files.listdir(folder):
            if entry.name.startswith("."):
                continue
            try:  # every entry, read or not, stays inside the package
                kinds[entry] = self.files.kind(entry)
            except Refused as exc:
                self.files.note(exc)
        entries = list(kinds)
        cases = {p.name[:-3] for p in entries if kinds[p] == "file" and p.name.endswith(".in")}
        is_sample = folder.relative_to(self.root / "data").parts[0] == "sample"
        for entry in entries:
            if kinds[entry] == "dir" and not entry.name.endswith(".files"):
                if entry.name in cases:
                    self.notes.append("%s: a test group has the name of a test case in the "
                                      "same folder (both are read)"
                                      % entry.relative_to(self.root))
                self.walk(entry, group, fmt, base_flags, interactive, tests, samples,
                          depth + 1)
            elif kinds[entry] != "file":
                continue
            elif entry.name.endswith(".in"):
                test = self.case(entry, group, interactive, is_sample)
                if test is not None:
                    tests.append(test)
                    if is_sample:
                        self.sample(entry, interactive, samples)
            elif entry.name.endswith(".ans") and entry.name[:-4] not in cases:
                self.notes.append("%s: an answer file without its input (%s.in), ignored"
                                  % (entry.relative_to(self.root), entry.name[:-4]))
            elif entry.name.endswith(".interaction") and is_sample and \
                    entry.name[:-12] not in cases:
                self.sample(entry, interactive, samples)

    def case(self, path: Path, group: Group, interactive: bool,
             sample: bool) -> ProgramTest | None:
        base = path.with_name(path.name[: -len(path.suffix)])
        answer = _sibling(base, ".ans")
        name = str(base.relative_to(self.root / "data"))
        expected = None
        if self.files.is_file(answer):
            expected = str(answer.relative_to(self.root))
        elif interactive:
            self.notes.append("%s has no .ans file: its validator gets an empty answer" % name)
        else:
            self.issues.append(Issue(str(path), "test case %s has no answer file (%s)" % (
                name, answer.name)))
            return None
        args = list(group.args)
        flags = list(group.flags)
        case_yaml = _sibling(base, ".yaml")
        if self.files.is_file(case_yaml):
            try:
                settings = read_yaml(case_yaml, self.files)
            except InputError as exc:
                self.issues += exc.issues
                return None
            if "args" in settings.data:
                args = as_args(settings.data["args"]) or []
            if "output_validator_args" in settings.data:
                flags = list(group.flags) + (as_args(settings.data["output_validator_args"])
                                             or [])
        files = base.with_name(base.name + ".files")
        has_files = self.files.is_dir(files)
        if has_files and not self.safe_files(files, answer):
            return None
        return ProgramTest(
            name=name, stdin_file=str(path.relative_to(self.root)), args=args,
            files=str(files.relative_to(self.root)) if has_files else None,
            expected_file=expected, group=str(path.parent.relative_to(self.root / "data")),
            sample=sample, checker=self.test_checker(flags, group.source))

    def safe_files(self, folder: Path, answer: Path) -> bool:
        """A ``.files`` folder goes into the candidate's sandbox: nothing in it may lead
        outside the package or to the test's answer (nor be a device, FIFO or socket)."""
        try:
            entries = self.files.files(folder)
        except Refused as exc:
            self.issues.append(Issue(exc.issue.file, "%s in a test's input files"
                                     % exc.issue.message))
            return False
        for entry in entries:
            target = entry.resolve()
            if answer.exists() and target == answer.resolve():
                self.issues.append(Issue(str(entry), "a test's input files hold its answer "
                                                     "file, which must never reach the "
                                                     "candidate"))
                return False
        return True

    def test_checker(self, flags: list[str], source: str) -> OutputChecker | None:
        """The checker of a test whose group sets other flags than the problem's."""
        if flags == self.base_flags:
            return None
        if self.checker.type == "validator":
            return self.checker.model_copy(update={"validator_flags": flags})
        try:
            return checker_from_kattis_flags(flags)
        except ValueError as exc:
            self.issues.append(Issue(source or str(self.root), "output validator flags: %s"
                                     % exc))
            return None

    def sample(self, path: Path, interactive: bool, samples: list[Sample]) -> None:
        base = path.with_name(path.name[: -len(path.suffix)])
        interaction = _sibling(base, ".interaction")
        if self.files.is_file(interaction):
            if any(s.interaction is not None and s.explanation == interaction.name
                   for s in samples):
                return
            try:
                text = self.files.read_text(interaction, SAMPLE_BYTES, "sample")
            except Refused:
                text = None
            if text is not None:
                samples.append(Sample(interaction=text, explanation=interaction.name))
            return
        if interactive:
            return  # an interactive problem's .in/.ans are never shown
        shown_in = path.with_name(path.name + ".statement")
        shown_out = None
        for candidate in (_sibling(base, ".ans.statement"), _sibling(base, ".out"),
                          _sibling(base, ".ans")):
            if self.files.is_file(candidate):
                shown_out = candidate
                break
        stdin_path = shown_in if self.files.is_file(shown_in) else path
        stdin = expected = None
        if shown_out is not None:
            stdin = self._sample_text(stdin_path, SAMPLE_BYTES)
            if stdin is not None:
                expected = self._sample_text(shown_out, SAMPLE_BYTES - len(stdin.encode()))
        if stdin is None or expected is None:
            self.notes.append("sample %s is judged but too long to show in prompts" % base.name)
            return
        samples.append(Sample(stdin=stdin, expected=expected))

    def _sample_text(self, path: Path, limit: int) -> str | None:
        """A sample file's text for prompts, None when longer than ``limit`` bytes (or
        refused: then an issue says why)."""
        try:
            return self.files.read_text(path, max(0, limit), "sample")
        except Refused as exc:
            if not exc.too_big:
                self.files.note(exc)
            return None
