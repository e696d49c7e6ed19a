"""Program problems: whole programs that read standard input and write standard output.

Beside function problems (``judge.problem.model``), a *program problem* is what contest
archives and RL datasets hold: a statement, tests given as standard input (optionally
command-line arguments and a folder of input files), the expected output, limits and an
output checker. A problem file is JSON with ``"kind": "program"``::

    {"kind": "program", "identifier": "hello", "statement": "...",
     "samples": [{"stdin": "1 2\\n", "expected": "3\\n"}],
     "tests": [{"name": "secret/01", "stdin_file": "data/01.in", "expected_file": "data/01.ans"}],
     "limits": {"time_limit_s": 1, "memory_mb": 256, "output_kb": 8192},
     "checker": {"type": "tokens", "float_tolerance": 1e-6},
     "contest": {"stop_at_first_failure": true}}

Paths are relative to the problem file's folder (or absolute). **Expected outputs never
enter the sandbox**: a test is split into what the candidate's run gets
(``ProgramTest.run_input``: stdin, args, input files) and what stays with the judge
(``ProgramTest.expected_output``), so the executor cannot hand an answer over by mistake.

Checkers (``OutputChecker``): ``tokens`` (the Kattis default output validator, with its
flags ``case_sensitive``, ``space_change_sensitive``, ``float_absolute_tolerance``,
``float_relative_tolerance``, ``float_tolerance``), ``exact`` (byte for byte), ``lines``
(line by line, trailing spaces and trailing blank lines ignored) and ``validator`` (a
custom output validator program as the Kattis/ICPC format defines it, with its flags; run
in a sandbox of its own, never in the judge's process). ``checker_from_kattis_flags``
reads the default validator's command-line flags exactly as the Kattis validator does.

Loading collects every issue with its file and JSON location and raises one
``InputError``, like function problem files.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Annotated, Any, Literal

from pydantic import (BaseModel, ConfigDict, Field, PrivateAttr, ValidationError,
                      field_validator)

from judge.errors import InputError, Issue
from judge.problem.program_io import FileIO
from judge.problem.limits import (MAX_TIME_FACTOR, MAX_TIME_LIMIT_S, MAX_TIME_RESOLUTION_S,
                                  MemoryLimit, OutputLimit, TimeLimit)
from judge.problem.model import _schema_issues, read_json_file
from judge.problem import testlib_rules
from judge.problem.scoring import ScoreGroup, scoring_issues


_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(value: Any) -> Any:
    """A program problem's text is bytes a program reads or writes: a lone surrogate (which
    JSON allows, as ``"\\ud800"``) is no UTF-8 text, so it is refused here, located,
    rather than failing later where the test's data is written or sent."""
    for item in value if isinstance(value, list) else (value,):
        found = _SURROGATE.search(item) if isinstance(item, str) else None
        if found:
            raise ValueError("holds a lone surrogate (U+%04X at character %d): not UTF-8 text"
                             % (ord(found.group()), found.start()))
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    _utf8 = field_validator("*", mode="after")(_text)


#: a checker's name (judge.engine.checkers: tokens, exact, lines, validator, or one a
#: plug-in adds); the problem kind checks that the name is known when the problem loads
CheckerType = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z][a-z0-9_.-]*$")]

#: the Kattis default output validator's flags that take a value
_VALUE_FLAGS = ("float_absolute_tolerance", "float_relative_tolerance", "float_tolerance")
_BOOL_FLAGS = ("case_sensitive", "space_change_sensitive")

# A whole token that C's ``sscanf("%lf%10s")`` reads as one number and nothing else:
# decimal (``1``, ``-2.``, ``.5``, ``1e-3``) or hexadecimal (``0x1.8p3``) notation.
# ``inf``/``nan`` also scan but the Kattis validator refuses them (``isfloat`` is false).
_DECIMAL = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
_HEX = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?\Z")


def kattis_float(token: bytes | str) -> float | None:
    """The value of ``token`` when the Kattis default validator's ``isfloat`` accepts it:
    the whole token is a number in C's ``strtod`` syntax and it is finite (``inf``,
    ``nan`` and values that overflow to infinity, like ``1e999``, are not floats)."""
    if isinstance(token, str):
        token = token.encode("utf-8", "surrogateescape")
    if _DECIMAL.match(token):
        value = float(token)
    elif _HEX.match(token):
        try:
            value = float.fromhex(token.decode("ascii"))
        except OverflowError:
            return None
    else:
        return None
    return value if math.isfinite(value) else None


class OutputChecker(_Strict):
    """How a candidate's output is judged against the expected one (see the module doc)."""

    type: CheckerType = "tokens"
    case_sensitive: bool = False
    space_change_sensitive: bool = False
    float_absolute_tolerance: float | None = Field(default=None, ge=0)
    float_relative_tolerance: float | None = Field(default=None, ge=0)
    #: shorthand for both tolerances (not together with either of them)
    float_tolerance: float | None = Field(default=None, ge=0)
    #: a custom output validator: a source file or a folder (a program, as the package
    #: format defines it), relative to the problem file's folder
    validator: str | None = None
    #: the validator's language as Kattis names it (``cpp``, ``javascript``...) or ``script``;
    #: None: told by its files. Checked when the problem loads, by its kind
    #: (:func:`judge.languages.programs.validator_issues`)
    validator_language: str | None = None
    #: arguments after ``input answer feedback_dir`` on the validator's command line
    validator_flags: list[str] = []
    #: a ``testlib`` checker (judge.engine.checkers.testlib): its C++ source, a file or a
    #: folder relative to the problem file's folder (``source``), or its text (``code``: what
    #: a dataset record carries); run as ``checker input output answer``
    source: str | None = None
    code: str | None = Field(default=None, min_length=1, max_length=1 << 20)
    #: the points a testlib checker's ``quitp`` gives a fully correct output: a test's score
    #: is points / max_points (default 1: ``quitp(0.5)`` is half the test)
    max_points: float | None = Field(default=None, gt=0, le=1e6, allow_inf_nan=False)
    #: ``quitp(p)`` gives the test p points (Polygon's default): p out of the test's maximum
    #: in a scored problem, else a pass carrying p points (docs/programs.md)
    absolute_points: bool | None = None
    #: an interactive problem's testlib interactor (judge.engine.checkers.testlib_interactor),
    #: a file or folder (``interactor``) or its text (``interactor_code``); the checker, if
    #: given, then reads its ``tout``
    interactor: str | None = None
    interactor_code: str | None = Field(default=None, min_length=1, max_length=1 << 20)

    @property
    def has_interactor(self) -> bool:
        return self.interactor is not None or self.interactor_code is not None

    @property
    def absolute_tolerance(self) -> float | None:
        return self.float_tolerance if self.float_tolerance is not None \
            else self.float_absolute_tolerance

    @property
    def relative_tolerance(self) -> float | None:
        return self.float_tolerance if self.float_tolerance is not None \
            else self.float_relative_tolerance

    @property
    def uses_floats(self) -> bool:
        return self.absolute_tolerance is not None or self.relative_tolerance is not None

    def kattis_flags(self) -> list[str]:
        """The default validator's command line for a ``tokens`` checker (the inverse of
        ``checker_from_kattis_flags``)."""
        flags = [name for name in _BOOL_FLAGS if getattr(self, name)]
        if self.float_tolerance is not None:
            flags += ["float_tolerance", repr(self.float_tolerance)]
        for name in ("float_absolute_tolerance", "float_relative_tolerance"):
            if getattr(self, name) is not None:
                flags += [name, repr(getattr(self, name))]
        return flags

    def issues(self, where: str, file: str) -> list[Issue]:
        """What the schema cannot say: fields that do not belong to this checker type."""
        found = []
        token_fields = [name for name in _BOOL_FLAGS if getattr(self, name)] + \
            [name for name in _VALUE_FLAGS if getattr(self, name) is not None]
        validator_fields = [name for name in ("validator", "validator_language")
                            if getattr(self, name) is not None]
        if self.validator_flags:
            validator_fields.append("validator_flags")
        if self.type != "tokens" and token_fields:
            found.append(Issue(file, "%s only apply to the tokens checker, not %r" % (
                ", ".join(token_fields), self.type), where))
        if self.type != "validator" and validator_fields:
            found.append(Issue(file, "%s only apply to a validator checker, not %r" % (
                ", ".join(validator_fields), self.type), where))
        found += testlib_rules.checker_issues(self, where, file)
        if self.type == "validator" and self.validator is None:
            found.append(Issue(file, "a validator checker needs the validator's path",
                               where + ".validator" if where else "validator"))
        if self.float_tolerance is not None and (self.float_absolute_tolerance is not None or
                                                 self.float_relative_tolerance is not None):
            found.append(Issue(file, "float_tolerance sets both tolerances: give it alone, or "
                                     "float_absolute_tolerance / float_relative_tolerance", where))
        return found


def checker_from_kattis_flags(flags: list[str] | str) -> OutputChecker:
    """A ``tokens`` checker from the Kattis default output validator's flags, read exactly as
    that validator reads its command line: flags in any order, a later one overriding an
    earlier one; a tolerance must be a finite number (a negative one leaves it unset, as
    the validator's ``tol >= 0`` test does); anything else is an error (ValueError) where
    the validator would stop with a judge error."""
    args = flags.split() if isinstance(flags, str) else list(flags)
    values: dict[str, Any] = {}
    absolute: float | None = None
    relative: float | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _BOOL_FLAGS:
            values[arg] = True
        elif arg in _VALUE_FLAGS:
            if i + 1 == len(args):
                raise ValueError("%s needs a value" % arg)
            number = kattis_float(args[i + 1])
            if number is None:
                raise ValueError("%s needs a finite number, got %r" % (arg, args[i + 1]))
            if arg == "float_absolute_tolerance":
                absolute = number
            elif arg == "float_relative_tolerance":
                relative = number
            else:
                absolute = relative = number
            i += 1
        else:
            raise ValueError("unknown default validator flag %r (it takes %s)" % (
                arg, ", ".join(_BOOL_FLAGS + _VALUE_FLAGS)))
        i += 1
    if absolute is not None and absolute >= 0:
        values["float_absolute_tolerance"] = absolute
    if relative is not None and relative >= 0:
        values["float_relative_tolerance"] = relative
    if values.get("float_absolute_tolerance") is not None and \
            values.get("float_absolute_tolerance") == values.get("float_relative_tolerance"):
        values["float_tolerance"] = values.pop("float_absolute_tolerance")
        values.pop("float_relative_tolerance")
    return OutputChecker(type="tokens", **values)


class ProgramLimits(_Strict):
    """Per-test limits of the candidate's run; ``None`` means the judge's default. Finite,
    positive and within :mod:`judge.problem.limits`'s ceilings."""

    time_limit_s: TimeLimit | None = None
    memory_mb: MemoryLimit | None = None
    output_kb: OutputLimit | None = None

    #: limits whose default (Kattis's) may be above a run's: a server sets them to its
    #: ceiling when the problem gives none (judge.service.limits)
    defaults_above_run: ClassVar[tuple[str, ...]] = ("memory_mb", "output_kb")


class TimeRule(_Strict):
    """How a package without a published time limit gets one, by its format's own rule:
    the slowest accepted submission measured here (``T_ac``) times ``multiplier``.

    - ``legacy`` (problemtools): rounded to the nearest whole second, at least 1 s;
      time_limit_exceeded submissions must still time out at that limit x ``tle_margin``;
    - ``2023-07``: the smallest multiple of ``resolution_s`` that is at least
      ``T_ac x multiplier`` and at most ``T_tle / tle_margin`` (``T_tle``: the fastest
      time_limit_exceeded submission); no such multiple is an error of the package.
    """

    format: Literal["legacy", "2023-07"] = "legacy"
    multiplier: float = Field(default=5.0, ge=1, le=MAX_TIME_FACTOR, allow_inf_nan=False)
    tle_margin: float = Field(default=2.0, ge=1, le=MAX_TIME_FACTOR, allow_inf_nan=False)
    resolution_s: float = Field(default=1.0, gt=0, le=MAX_TIME_RESOLUTION_S,
                                allow_inf_nan=False)
    #: where the rule comes from, for the import log
    source: str = ""

    def describe(self) -> str:
        if self.format == "legacy":
            rounding = "rounded to the nearest second (at least 1 s)"
        else:
            rounding = "rounded up to a multiple of %g s" % self.resolution_s
        return ("the slowest accepted submission measured here x %g (%s), %s; "
                "time_limit_exceeded submissions must need %g x that" % (
                    self.multiplier, self.source or self.format, rounding, self.tle_margin))

    def time_limit(self, accepted_s: list[float], tle_s: list[float] = ()) -> tuple[float, str]:
        """The time limit from measured run times (seconds, the slowest test of each
        submission), and a sentence saying how it was chosen. ValueError when it cannot
        be chosen (no accepted run time, or 2023-07 bounds that cross)."""
        if not accepted_s:
            raise ValueError("no accepted submission was measured: no time limit can be "
                             "chosen")
        slowest = max(accepted_s)
        exact = slowest * self.multiplier
        if self.format == "legacy":
            limit = float(max(1, int(0.5 + exact)))
        else:
            steps = math.ceil(exact / self.resolution_s - 1e-9)
            limit = max(1, steps) * self.resolution_s
            if tle_s and limit * self.tle_margin > min(tle_s):
                raise ValueError(
                    "no time limit fits: the slowest accepted run (%.3f s) x %g needs %g s, "
                    "but the fastest time_limit_exceeded run (%.3f s) / %g allows %.3f s" % (
                        slowest, self.multiplier, limit, min(tle_s), self.tle_margin,
                        min(tle_s) / self.tle_margin))
        if limit > MAX_TIME_LIMIT_S:
            raise ValueError("no time limit fits: the slowest accepted run (%.3f s) x %g "
                             "needs %g s, past the judge's ceiling of %g s" % (
                                 slowest, self.multiplier, limit, MAX_TIME_LIMIT_S))
        why = "time limit %g s: slowest accepted run %.3f s x %g (%s)" % (
            limit, slowest, self.multiplier, self.source or self.format)
        return limit, why


class ContestRules(_Strict):
    """Contest semantics, recorded so they are visible: with ``stop_at_first_failure`` the
    candidate's verdict is the first failing test's (ICPC) and later tests are not run; the
    fraction of tests passed stays available by running all tests."""

    stop_at_first_failure: bool = False


class ProgramTest(_Strict):
    """One test: the run's input (standard input inline or from a file, arguments, a folder
    of input files) and the expected output (inline or a file), kept on the judge's side."""

    name: str = ""
    stdin: str | None = None
    stdin_file: str | None = None
    args: list[str] = []
    #: a folder whose files are copied into the candidate's working directory
    files: str | None = None
    expected: str | None = None
    expected_file: str | None = None
    #: overrides the problem's checker for this test (a test group's validator flags)
    checker: OutputChecker | None = None
    #: the test group, e.g. "secret/group1" (Kattis packages); informational
    group: str = ""
    #: a sample test: judged like the others, and shown in prompts
    sample: bool = False

    _root: Path = PrivateAttr(default=Path("."))
    #: the problem's file input/output, set when the problem binds its tests
    _io: "FileIO | None" = PrivateAttr(default=None)

    def path(self, name: str | None) -> Path | None:
        """A file or folder of this test, resolved against the problem's root."""
        return None if name is None else (self._root / name).resolve()

    def run_input(self) -> RunInput:
        """What the candidate's run receives, and nothing else."""
        if self.stdin is not None:
            stdin = self.stdin.encode("utf-8")
        elif self.stdin_file is not None:
            stdin = (self._root / self.stdin_file).read_bytes()
        else:
            stdin = b""
        files = self.path(self.files)
        return RunInput(stdin=stdin, args=tuple(self.args), files=files)

    def input_path(self) -> Path | None:
        """The standard input's file, when it is one (an output validator reads it)."""
        return self.path(self.stdin_file)

    def answer_path(self) -> Path | None:
        """The expected output's file, when it is one (judge side only: for the checker, or
        for an output validator run in a sandbox of its own, never the candidate's)."""
        return self.path(self.expected_file)

    def expected_output(self) -> bytes | None:
        """The expected output (judge side only); None when there is none (an interactive
        problem's validator has the answer file instead)."""
        if self.expected is not None:
            return self.expected.encode("utf-8")
        if self.expected_file is not None:
            return (self._root / self.expected_file).read_bytes()
        return None


@dataclass(frozen=True)
class RunInput:
    """The part of a test that goes into the sandbox: never the expected output."""

    stdin: bytes
    args: tuple[str, ...] = ()
    files: Path | None = None


class Sample(_Strict):
    """A sample shown in prompts: input and output, or an interaction log (``<``/``>``)."""

    stdin: str | None = None
    expected: str | None = None
    interaction: str | None = None
    explanation: str | None = None


class ProgramProblem(_Strict):
    kind: Literal["program"] = "program"
    identifier: str = Field(min_length=1)
    name: str = ""
    statement: str
    input_format: str | None = None
    output_format: str | None = None
    samples: list[Sample] = []
    tests: list[ProgramTest] = []
    limits: ProgramLimits = ProgramLimits()
    #: the output validator's own bounds (a validator is trusted but still bounded)
    validator_limits: ProgramLimits = ProgramLimits()
    #: how to choose a time limit the problem does not give (Kattis packages)
    time_rule: TimeRule | None = None
    checker: OutputChecker = OutputChecker()
    #: the output validator talks with the candidate through pipes
    interactive: bool = False
    #: the validator may ask for another run on an input it writes (``nextpass.in``, Kattis
    #: ``multi-pass``), up to ``validation_passes`` runs in all
    multi_pass: bool = False
    validation_passes: int = Field(default=2, ge=2, le=100)
    contest: ContestRules = ContestRules()
    #: input and output through files instead of the standard streams (None: the streams)
    io: FileIO | None = None
    #: a scored problem: its test groups with points (``judge.problem.scoring``); every
    #: test a group needs is judged and the result carries the score and each group's
    scoring: ScoreGroup | None = None
    #: the languages the problem may be solved in (None: all)
    languages: list[str] | None = None
    #: candidates in one language run as another: ``{"python": "pypy3"}`` runs Python
    #: programs on PyPy, as Kattis runs them (what ``judge import kattis`` writes)
    runtimes: dict[Annotated[str, Field(pattern=r"^[a-z][a-z0-9+_-]*$")],
                   Annotated[str, Field(pattern=r"^[a-z][a-z0-9+_-]*$")]] | None = None
    tags: list[str] | None = None
    #: where the problem came from (an imported package's folder, a dataset's name)
    source: str | None = None

    _source_file: str = PrivateAttr(default="<memory>")
    _root: Path = PrivateAttr(default=Path("."))

    @property
    def source_file(self) -> str:
        return self._source_file

    @property
    def root(self) -> Path:
        """The folder relative paths are resolved against."""
        return self._root

    def checker_for(self, test: ProgramTest) -> OutputChecker:
        return test.checker if test.checker is not None else self.checker

    def validator_path(self, checker: OutputChecker | None = None) -> Path | None:
        checker = checker or self.checker
        return None if checker.validator is None else self._root / checker.validator

    def model_post_init(self, context: Any) -> None:
        for test in self.tests:  # what a test's run needs of the problem (built any way)
            test._io = self.io

    def bind(self, root: Path, file: str = "<memory>") -> ProgramProblem:
        """Resolve relative paths against ``root`` (the problem file's folder)."""
        self._root = root
        self._source_file = file
        for test in self.tests:
            test._root = root
            test._io = self.io
        return self

    # ---- what a reward rule looks at (the same methods as a function problem's) ----------

    def test_count(self) -> int:
        return len(self.tests)

    def input_size(self, index: int) -> int:
        """How long test ``index``'s input is: its standard input (text or file's size)
        and arguments."""
        test = self.tests[index]
        size = len(test.stdin or "") + sum(len(a) for a in test.args)
        path = test.input_path() if test.stdin is None else None
        if path is not None:
            try:
                size += path.stat().st_size
            except OSError:
                pass
        return size

    def test_groups(self) -> dict[str, list[int]]:
        """Subtasks: the tests' groups, in order (tests without one form one group)."""
        groups: dict[str, list[int]] = {}
        for index, test in enumerate(self.tests):
            groups.setdefault(test.group or "", []).append(index)
        return groups

    def with_tests(self, indices: list[int]) -> ProgramProblem:
        """A copy judged on the tests at ``indices`` only, in that order."""
        copy = self.model_copy(update={"tests": [self.tests[i] for i in indices]})
        return copy.bind(self._root, self._source_file)

    def with_float_tolerance(self, tolerance: float) -> ProgramProblem:
        """A copy whose token checkers compare numbers within ``tolerance`` (Kattis's
        ``float_tolerance``); an output validator's judgement is left as it is."""
        def loosen(checker: OutputChecker | None) -> OutputChecker | None:
            if checker is None or checker.type in ("validator", "testlib"):
                return checker
            return checker.model_copy(update={"type": "tokens", "float_tolerance": tolerance,
                                              "float_absolute_tolerance": None,
                                              "float_relative_tolerance": None})
        tests = [t.model_copy(update={"checker": loosen(t.checker)}) for t in self.tests]
        copy = self.model_copy(update={"checker": loosen(self.checker), "tests": tests})
        return copy.bind(self._root, self._source_file)


# ---- semantic checks --------------------------------------------------------------------------

def _exists(root: Path, name: str | None, folder: bool) -> bool:
    if name is None:
        return True
    path = root / name
    return path.is_dir() if folder else path.is_file()


def check_program(problem: ProgramProblem, file: str) -> list[Issue]:
    """Everything the schema cannot say: one source per stream, files that exist, a checker
    that fits, interactive problems with their validator, unique test names."""
    issues: list[Issue] = []
    root = problem.root
    issues += problem.checker.issues("checker", file)
    if problem.checker.type == "validator" and problem.checker.validator is not None:
        path = root / problem.checker.validator
        if not path.exists():
            issues.append(Issue(file, "output validator %s not found" % path,
                                "checker.validator"))
    issues += testlib_rules.problem_issues(problem, file)
    if problem.multi_pass and problem.checker.type != "validator":
        issues.append(Issue(file, "a multi-pass problem needs a validator checker (the "
                                  "program that asks for the next pass)", "multi_pass"))
    if problem.interactive and problem.checker.type != "validator" and \
            not (problem.checker.type == "testlib" and problem.checker.has_interactor):
        issues.append(Issue(file, "an interactive problem needs a validator checker, or a "
                                  "testlib checker with its interactor (the program the "
                                  "candidate talks with)", "interactive"))
    if problem.io is not None and (problem.interactive or problem.multi_pass):
        issues.append(Issue(file, "file input/output (io) is for programs that run once on "
                                  "a test, not interactive or multi-pass ones", "io"))
    if not problem.tests:
        issues.append(Issue(file, "no tests: the judge could not give a verdict", "tests"))
    names: dict[str, int] = {}
    for i, test in enumerate(problem.tests):
        where = "tests[%d]" % i
        if test.stdin is not None and test.stdin_file is not None:
            issues.append(Issue(file, "give stdin or stdin_file, not both", where))
        if test.expected is not None and test.expected_file is not None:
            issues.append(Issue(file, "give expected or expected_file, not both", where))
        if test.expected is None and test.expected_file is None and not problem.interactive:
            issues.append(Issue(file, "a test needs its expected output (expected or "
                                      "expected_file)", where))
        for key, folder in (("stdin_file", False), ("expected_file", False), ("files", True)):
            if not _exists(root, getattr(test, key), folder):
                issues.append(Issue(file, "%s %s not found" % (
                    "folder" if folder else "file", root / getattr(test, key)),
                    "%s.%s" % (where, key)))
        if test.files is not None and test.expected_file is not None and \
                (root / test.expected_file).resolve().is_relative_to((root / test.files).resolve()):
            issues.append(Issue(file, "the expected output is inside the test's input files, "
                                      "which go to the candidate", where + ".files"))
        if test.checker is not None:
            issues += test.checker.issues(where + ".checker", file)
            if test.checker.type != problem.checker.type:
                issues.append(Issue(file, "a test's checker must have the problem's checker "
                                          "type (%s)" % problem.checker.type, where + ".checker"))
        if test.name:
            if test.name in names:
                issues.append(Issue(file, "duplicate test name %r (also tests[%d])" % (
                    test.name, names[test.name]), where + ".name"))
            names[test.name] = i
    if problem.scoring is not None and problem.tests:
        issues += scoring_issues(problem.scoring, problem.tests, file)
    for i, sample in enumerate(problem.samples):
        where = "samples[%d]" % i
        if sample.interaction is None and sample.stdin is None:
            issues.append(Issue(file, "a sample needs stdin (and expected) or an interaction",
                                where))
    return issues


# ---- loading ----------------------------------------------------------------------------------

def program_from_data(data: Any, file: str, root: Path | None = None) -> ProgramProblem:
    """Validate parsed JSON as a program problem; raise InputError with every issue."""
    if not isinstance(data, dict):
        raise InputError([Issue(file, "a problem file must hold a JSON object, got %s"
                                % type(data).__name__)])
    try:
        problem = ProgramProblem.model_validate(data)
    except ValidationError as exc:
        raise InputError(_schema_issues(exc, file)) from None
    problem.bind(root if root is not None else Path(file).resolve().parent, file)
    issues = check_program(problem, file)
    if issues:
        raise InputError(issues)
    return problem


def load_program(path: str | Path) -> ProgramProblem:
    path = Path(path)
    return program_from_data(read_json_file(path), str(path))
