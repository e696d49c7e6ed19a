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
from judge.importers.kattis_files import as_args, read_yaml
from judge.problem.program import OutputChecker, ProgramTest, Sample, checker_from_kattis_flags

#: samples longer than this are judged but not inlined into prompts
SAMPLE_BYTES = 4096


def _sibling(base: Path, extension: str) -> Path:
    """``secret/a.b`` + ``.ans`` -> ``secret/a.b.ans`` (``with_suffix`` would drop ``.b``)."""
    return base.with_name(base.name + extension)


def _inside(root: Path, path: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


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
    notes: list[str]
    #: the problem's checker and flags, set before the test data is walked
    checker: OutputChecker
    base_flags: list[str]

    def group_settings(self, folder: Path, inherited: Group, fmt: str,
                       base_flags: list[str]) -> Group:
        for name in ("test_group.yaml", "testdata.yaml"):
            path = folder / name
            if path.is_file():
                break
        else:
            return inherited
        try:
            settings = read_yaml(path)
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
        grading = [k for k in ("grading", "grader_flags", "accept_score", "reject_score",
                               "range", "scoring") if k in settings.data]
        if grading:
            self.notes.append("%s: %s ignored (tests are judged one by one; group scores "
                              "are not computed)" % (path.relative_to(self.root),
                                                     ", ".join(grading)))
        return group

    def tests(self, fmt: str, base_flags: list[str], interactive: bool,
              samples: list[Sample]) -> list[ProgramTest]:
        data = self.root / "data"
        if not data.is_dir():
            self.issues.append(Issue(str(data), "no data folder: the package has no tests"))
            return []
        root = self.group_settings(data, Group(list(base_flags), []), fmt, base_flags)
        tests: list[ProgramTest] = []
        for part in ("sample", "secret"):
            if (data / part).is_dir():
                self.walk(data / part, root, fmt, base_flags, interactive, tests, samples)
        if not (data / "secret").is_dir():
            self.issues.append(Issue(str(data / "secret"), "no data/secret folder"))
        elif not any(t.name.startswith("secret/") for t in tests):
            self.issues.append(Issue(str(data / "secret"), "no secret test cases (*.in)"))
        return tests

    def walk(self, folder: Path, inherited: Group, fmt: str, base_flags: list[str],
             interactive: bool, tests: list[ProgramTest], samples: list[Sample]) -> None:
        group = self.group_settings(folder, inherited, fmt, base_flags)
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
        cases = {p.name[:-3] for p in entries if p.is_file() and p.name.endswith(".in")}
        is_sample = folder.relative_to(self.root / "data").parts[0] == "sample"
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if not _inside(self.root, entry):
                self.issues.append(Issue(str(entry), "a symbolic link to outside the package"))
                continue
            if entry.is_dir() and not entry.name.endswith(".files"):
                if entry.name in cases:
                    self.notes.append("%s: a test group has the name of a test case in the "
                                      "same folder (both are read)"
                                      % entry.relative_to(self.root))
                self.walk(entry, group, fmt, base_flags, interactive, tests, samples)
            elif entry.is_file() and entry.name.endswith(".in"):
                test = self.case(entry, group, interactive, is_sample)
                if test is not None:
                    tests.append(test)
                    if is_sample:
                        self.sample(entry, interactive, samples)
            elif entry.is_file() and entry.name.endswith(".ans") and \
                    entry.name[:-4] not in cases:
                self.notes.append("%s: an answer file without its input (%s.in), ignored"
                                  % (entry.relative_to(self.root), entry.name[:-4]))
            elif entry.is_file() and entry.name.endswith(".interaction") and is_sample and \
                    entry.name[:-12] not in cases:
                self.sample(entry, interactive, samples)

    def case(self, path: Path, group: Group, interactive: bool,
             sample: bool) -> ProgramTest | None:
        base = path.with_name(path.name[: -len(path.suffix)])
        answer = _sibling(base, ".ans")
        name = str(base.relative_to(self.root / "data"))
        expected = None
        if answer.is_file():
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
        if case_yaml.is_file():
            try:
                settings = read_yaml(case_yaml)
            except InputError as exc:
                self.issues += exc.issues
                return None
            if "args" in settings.data:
                args = as_args(settings.data["args"]) or []
            if "output_validator_args" in settings.data:
                flags = list(group.flags) + (as_args(settings.data["output_validator_args"])
                                             or [])
        files = base.with_name(base.name + ".files")
        if files.is_dir() and not self.safe_files(files, answer):
            return None
        return ProgramTest(
            name=name, stdin_file=str(path.relative_to(self.root)), args=args,
            files=str(files.relative_to(self.root)) if files.is_dir() else None,
            expected_file=expected, group=str(path.parent.relative_to(self.root / "data")),
            sample=sample, checker=self.test_checker(flags, group.source))

    def safe_files(self, folder: Path, answer: Path) -> bool:
        """A ``.files`` folder goes into the candidate's sandbox: nothing in it may lead
        outside the package or to the test's answer."""
        for entry in sorted(folder.rglob("*")):
            target = entry.resolve()
            if not _inside(self.root, entry):
                self.issues.append(Issue(str(entry), "a symbolic link to outside the package "
                                                     "in a test's input files"))
                return False
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
        if interaction.is_file():
            if any(s.interaction is not None and s.explanation == interaction.name
                   for s in samples):
                return
            text = interaction.read_text(encoding="utf-8", errors="replace")
            if len(text) <= SAMPLE_BYTES:
                samples.append(Sample(interaction=text, explanation=interaction.name))
            return
        if interactive:
            return  # an interactive problem's .in/.ans are never shown
        shown_in = path.with_name(path.name + ".statement")
        shown_out = None
        for candidate in (_sibling(base, ".ans.statement"), _sibling(base, ".out"),
                          _sibling(base, ".ans")):
            if candidate.is_file():
                shown_out = candidate
                break
        stdin_path = shown_in if shown_in.is_file() else path
        if shown_out is None or stdin_path.stat().st_size + shown_out.stat().st_size > \
                SAMPLE_BYTES:
            self.notes.append("sample %s is judged but too long to show in prompts" % base.name)
            return
        samples.append(Sample(stdin=stdin_path.read_text(encoding="utf-8", errors="replace"),
                              expected=shown_out.read_text(encoding="utf-8", errors="replace")))
