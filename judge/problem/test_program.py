"""The model of a test-program problem: a candidate's code and the benchmark's test code in
the same language, run together (MultiPL-E, HumanEval-X, MBXP, a unit-test suite).

    {"kind": "test_program", "identifier": "HumanEval_0_has_close_elements",
     "language": "python", "prompt": "def has_close_elements(...):\\n    \\"\\"\\"...\\"\\"\\"\\n",
     "tests": "def check(candidate):\\n    assert ...\\n\\ncheck(has_close_elements)\\n",
     "stop_tokens": ["\\ndef", "\\nclass", "\\nif", "\\n#", "\\nprint"]}

A completion (no fenced block in the reply) is cut at the first stop token and run as
``setup + prompt + completion + "\\n" + tests``; a reply with a fenced block is the whole
code: ``setup + block + "\\n" + tests``. ``framework`` names a test framework
(``pytest``, ``go_test``, ``junit``, ``d_ut``, ``rust_test``: judge.languages.frameworks)
that runs the program instead of the language; ``test_file`` puts the tests in a file of
their own beside the candidate's (pytest, ``go test``).

Text fields are bounded (:data:`MAX_TEXT`); nothing of a problem runs in the judge's process.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from judge.errors import InputError, Issue
from judge.problem.limits import MemoryLimit, OutputLimit, TimeLimit
from judge.problem.model import _schema_issues

#: the most characters of a text field (prompt, tests, setup, reference)
MAX_TEXT = 1 << 20
#: the most stop tokens, and characters of one
MAX_STOPS, MAX_STOP_CHARS = 64, 200

Text = Annotated[str, Field(max_length=MAX_TEXT)]
Name = Annotated[str, Field(pattern=r"^[a-z][a-z0-9+_-]*$", max_length=40)]


class TestProgramLimits(BaseModel):
    """The run's limits (None: the judge's)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    time_limit_s: TimeLimit | None = None
    memory_mb: MemoryLimit | None = None
    output_kb: OutputLimit | None = None


class TestProgramProblem(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    kind: Literal["test_program"] = "test_program"
    identifier: str = Field(min_length=1, max_length=200)
    #: the language the candidate writes (the registry's name)
    language: Name
    #: the test framework that runs the program (None: run as a program of the language)
    framework: Name | None = None
    #: what the model is shown; a completion continues it
    prompt: Text
    #: code before everything (a package line, imports the tests need)
    setup: Text = ""
    #: the test code, after the candidate's
    tests: Text = Field(min_length=1)
    #: the tests in a file of their own (a framework's file name), not after the code
    test_file: Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,80}$")] | None = None
    #: a completion ends at the first of these (MultiPL-E's ``stop_tokens``)
    stop_tokens: Annotated[list[Annotated[str, Field(min_length=1, max_length=MAX_STOP_CHARS)]],
                           Field(max_length=MAX_STOPS)] = []
    #: Go packages imported when the completion uses them (HumanEval-X's evaluator)
    imports_if_used: Annotated[list[Annotated[str, Field(pattern=r"^[a-z0-9_./]{1,60}$")]],
                               Field(max_length=32)] = []
    #: the third-party libraries the judge has for the language on the build's and run's
    #: paths (Java's javatuples jar, Node's lodash: docs/test-programs.md), as the
    #: benchmark's evaluator gives them (MultiPL-E's Java); false: the standard library only
    libraries: bool = False
    #: a reference completion (the benchmark's canonical solution), if any
    reference: Text | None = None
    limits: TestProgramLimits = TestProgramLimits()
    tags: list[Annotated[str, Field(max_length=100)]] | None = None
    #: where it came from (``multipl-e``, ``humaneval-x``, ``mbxp``)
    source: str | None = None

    _source_file: str = PrivateAttr(default="<memory>")

    @property
    def source_file(self) -> str:
        return self._source_file

    def bind(self, file: str) -> "TestProgramProblem":
        self._source_file = file
        return self

    def test_count(self) -> int:
        """One run judges the candidate (its tests are the program's)."""
        return 1


def test_program_from_data(data: Any, file: str) -> TestProgramProblem:
    """Validate parsed JSON as a test-program problem (InputError naming each field)."""
    if not isinstance(data, dict):
        raise InputError([Issue(file, "a problem file must hold a JSON object, got %s"
                                % type(data).__name__)])
    try:
        problem = TestProgramProblem.model_validate(data)
    except ValidationError as exc:
        raise InputError(_schema_issues(exc, file)) from None
    return problem.bind(file)


def cut_at_stop(completion: str, stops: list[str]) -> str:
    """A completion up to its first stop token, as MultiPL-E's evaluator cuts it."""
    end = len(completion)
    for stop in stops:
        at = completion.find(stop)
        if at != -1:
            end = min(end, at)
    return completion[:end]


__all__ = ["MAX_TEXT", "TestProgramLimits", "TestProgramProblem", "cut_at_stop",
           "test_program_from_data"]
