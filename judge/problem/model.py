"""The problem model: problem definition files, loaded and validated.

Follows ``shared/seeds/problem-definition-spec.md`` strictly (unknown fields are errors),
with ``expected_output`` accepted as a list (one entry per return value, in order) or as an
object (one key per return value, in order). Extensions, all optional and validated like the
rest (see the README):

- ``tolerance``: ``{"rel": 1e-9, "abs": 1e-6}`` for float comparison in this problem;
- ``limits``: ``{"time_limit_s": .., "memory_mb": .., "output_kb": ..}`` overrides;
- ``checker`` (problem) + ``check`` (test): for tests that are not "call -> expected value",
  a trusted Python expression evaluated by the judge, outside the sandbox, over the decoded
  ``output`` and the test's inputs (names from ``checker``'s source are in scope).

Loading collects *every* issue (schema, types, semantic checks) with its file and JSON
location, and raises one ``InputError``.
"""

from __future__ import annotations

import json
import keyword
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Literal

from pydantic import (BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, ValidationInfo,
                      field_validator, model_validator)

from judge.errors import InputError, Issue, ProblemFault, json_location
from judge.jsonl import MAX_DEPTH, check_depth
from judge.problem.limits import BudgetLimit, MemoryLimit, OutputLimit, TimeLimit
from judge.problem.types import (ANY, Tolerance, TypeParseError, TypeSpec, ValueTypeError,
                                 from_json, parse_type, return_type)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Parameter(_Strict):
    name: str
    type: str


class ReturnValue(_Strict):
    type: str


class FunctionPrototype(_Strict):
    function_name: str
    parameters: list[Parameter]
    #: may be empty (the spec sets no minimum): a function that returns nothing, judged
    #: against ``None`` with an empty ``expected_output`` (``[]`` or ``{}``)
    return_values: list[ReturnValue]


class TestCase(_Strict):
    input: dict[str, Any]
    expected_output: list[Any] | dict[str, Any] | None = None
    check: str | None = None

    @model_validator(mode="after")
    def _one_oracle(self) -> "TestCase":
        for name in ("input", "expected_output"):
            where = check_depth(getattr(self, name), MAX_DEPTH)
            if where is not None:  # no sandbox, wire or JSON writer could carry it
                raise ValueError("%s is nested deeper than %d levels (at %s)"
                                 % (name, MAX_DEPTH, where))
        if self.expected_output is None and self.check is None:
            raise ValueError("a test needs expected_output (or a check expression)")
        if self.expected_output is not None and self.check is not None:
            raise ValueError("give expected_output or check, not both")
        return self

    def expected_values(self) -> list[Any]:
        if isinstance(self.expected_output, dict):
            return list(self.expected_output.values())
        return list(self.expected_output or [])


class Prompt(_Strict):
    prompt_id: str = Field(min_length=1)
    prompt: str
    #: required by the spec (no default there), as is ``sample_inputs_outputs``
    genericize: bool
    sample_inputs_outputs: list[TestCase]
    input_code: str | None = None


class ToleranceSpec(_Strict):
    rel: float = Field(default=1e-9, ge=0)
    abs: float = Field(default=1e-6, ge=0)


class ProblemLimits(_Strict):
    """A function problem's own limits: finite, positive and within
    :mod:`judge.problem.limits`'s ceilings."""

    time_limit_s: TimeLimit | None = None
    memory_mb: MemoryLimit | None = None
    output_kb: OutputLimit | None = None
    #: CPU seconds for all of a candidate's tests together (imported suites: the benchmark's)
    budget_s: BudgetLimit | None = None


@dataclass(frozen=True)
class PreparedTest:
    """A test case with its data converted by the declared types."""

    index: int
    args: tuple[Any, ...]
    expected: Any = None  # scalar, or a tuple for several return values
    check: str | None = None
    inputs: dict[str, Any] = field(default_factory=dict)


class Problem(_Strict):
    #: the problem kind (:mod:`judge.kinds`): a file may say ``"kind": "function"``; left
    #: out of dumps and fingerprints, as files without it mean the same
    kind: Literal["function"] = Field(default="function", exclude=True)
    identifier: str = Field(min_length=1)
    description: str
    prompts: list[Prompt]
    function_prototype: FunctionPrototype
    #: optional in the spec ("If not provided, the default value is an empty array"): such a
    #: problem loads and renders prompts, and judging it says "no tests" (:class:`NoTests`)
    correctness_test_suite: list[TestCase] = []
    optimal_solution: str | None = None

    @field_validator("correctness_test_suite", mode="before")
    @classmethod
    def _null_is_not_provided(cls, value: Any) -> Any:
        return [] if value is None else value  # ``null``: not provided, the spec's default []
    additional_instructions: str | None = None
    tags: list[str] | None = None
    tolerance: ToleranceSpec | None = None
    limits: ProblemLimits | None = None
    checker: str | None = None
    #: how a returned value is compared with an expected one: "declared" (strict, by the
    #: prototype's types: 5.0 is not an int) or "python" (the benchmark's own ``==`` on data
    #: values: 5.0 == 5, True == 1, a list is not a tuple). Importers set "python".
    equality: Literal["declared", "python"] = "declared"

    _source: str = PrivateAttr(default="<memory>")
    _param_specs: list[TypeSpec] = PrivateAttr(default_factory=list)
    _return_spec: TypeSpec | None = PrivateAttr(default=None)
    _return_specs: list[TypeSpec] = PrivateAttr(default_factory=list)
    _tests: list[PreparedTest] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _prepare(self, info: ValidationInfo) -> "Problem":
        """Built in memory (``Problem.model_validate(data)``), a problem is checked and its
        tests prepared here, as a file's would be; ``function_from_data`` defers this step to
        report every issue with its file and location."""
        if info.context and info.context.get("deferred_checks"):
            return self
        issues = _check_problem(self, self._source)
        if issues:
            raise ValueError("; ".join(str(issue) for issue in issues))
        return self

    @property
    def source(self) -> str:
        return self._source

    @property
    def function_name(self) -> str:
        return self.function_prototype.function_name

    @property
    def parameter_names(self) -> list[str]:
        return [p.name for p in self.function_prototype.parameters]

    @property
    def param_specs(self) -> list[TypeSpec]:
        return self._param_specs

    @property
    def return_spec(self) -> TypeSpec:
        assert self._return_spec is not None, "problem was not prepared"
        return self._return_spec

    @property
    def tests(self) -> list[PreparedTest]:
        return self._tests

    @property
    def has_tests(self) -> bool:
        """False for a problem without correctness tests (allowed by the spec): its prompts
        render, but there is nothing to judge a candidate by (:func:`require_tests`)."""
        return bool(self.correctness_test_suite)

    @property
    def float_tolerance(self) -> Tolerance:
        if self.tolerance is None:
            return Tolerance()
        return Tolerance(rel=self.tolerance.rel, abs=self.tolerance.abs)

    def prompt(self, prompt_id: str | None) -> Prompt | None:
        for prompt in self.prompts:
            if prompt.prompt_id == prompt_id:
                return prompt
        return None

    # ---- what a reward rule looks at (the same methods as a program problem's) -----------

    def test_count(self) -> int:
        return len(self.correctness_test_suite)

    def input_size(self, index: int) -> int:
        """How long test ``index``'s input is: the JSON of its arguments."""
        return len(json.dumps(self.correctness_test_suite[index].input, default=str))

    def test_groups(self) -> dict[str, list[int]]:
        """Subtasks: a function problem's tests are one group."""
        return {"": list(range(self.test_count()))}

    def with_tests(self, indices: list[int]) -> Problem:
        """A copy judged on the tests at ``indices`` only, in that order."""
        data = self.model_dump(exclude_none=True)
        data["correctness_test_suite"] = [data["correctness_test_suite"][i] for i in indices]
        return Problem.model_validate(data)

    def with_float_tolerance(self, tolerance: float) -> Problem:
        """A copy whose floats compare within ``tolerance`` (absolute or relative)."""
        data = self.model_dump(exclude_none=True)
        data["tolerance"] = {"rel": tolerance, "abs": tolerance}
        return Problem.model_validate(data)


class NoTests(ProblemFault, ValueError):
    """A problem without correctness tests was to be judged: there is nothing to judge a
    candidate by, so no verdict is given (neither ``pass`` nor a failure)."""

    code = "no_tests"


def require_tests(problem: Any) -> None:
    """Raise :class:`NoTests` for a function problem without correctness tests."""
    if not problem.has_tests:
        raise NoTests("%s: no tests: the problem has no correctness_test_suite, so its "
                      "candidates cannot be judged (its prompts can still be rendered)"
                      % problem.identifier)


# ---- semantic checks --------------------------------------------------------------------------

def _check_identifier(name: str, where: str, file: str, issues: list[Issue]) -> None:
    if not name.isidentifier() or keyword.iskeyword(name):
        issues.append(Issue(file, "%r is not a valid Python identifier" % name, where))


def _prepare_case(case: TestCase, where: str, problem: Problem, index: int, file: str,
                  issues: list[Issue]) -> PreparedTest | None:
    names = problem.parameter_names
    specs = problem.param_specs
    missing = [n for n in names if n not in case.input]
    extra = [n for n in case.input if n not in names]
    ok = True
    if missing or extra:
        parts = []
        if missing:
            parts.append("missing parameter%s %s" % ("s" if len(missing) > 1 else "",
                                                     ", ".join(map(repr, missing))))
        if extra:
            parts.append("unknown parameter%s %s" % ("s" if len(extra) > 1 else "",
                                                     ", ".join(map(repr, extra))))
        issues.append(Issue(file, "; ".join(parts) + " (the prototype takes %s)" % (
            ", ".join(names) or "no parameters"), where + ".input"))
        ok = False
    args = []
    for name, spec in zip(names, specs):
        if name not in case.input:
            continue
        try:
            args.append(from_json(case.input[name], spec, ""))
        except ValueTypeError as exc:
            issues.append(Issue(file, "%s (declared %s)" % (exc, spec),
                                "%s.input.%s%s" % (where, name, exc.path)))
            ok = False
    if case.check is not None:
        try:
            compile(case.check, "<check>", "eval")
        except SyntaxError as exc:
            issues.append(Issue(file, "check is not a Python expression: %s" % exc.msg,
                                where + ".check"))
            ok = False
        return PreparedTest(index, tuple(args), None, case.check,
                            dict(zip(names, args))) if ok else None
    values = case.expected_values()
    declared = problem.function_prototype.return_values
    if len(values) != len(declared):
        issues.append(Issue(file, "%d expected value%s for %d declared return value%s" % (
            len(values), "" if len(values) == 1 else "s", len(declared),
            "" if len(declared) == 1 else "s"), where + ".expected_output"))
        return None
    keys = list(case.expected_output.keys()) if isinstance(case.expected_output, dict) else None
    converted = []
    for position, (value, spec) in enumerate(zip(values, problem._return_specs)):
        label = ".%s" % keys[position] if keys else "[%d]" % position
        try:
            converted.append(from_json(value, spec, ""))
        except ValueTypeError as exc:
            issues.append(Issue(file, "%s (declared %s)" % (exc, spec),
                                "%s.expected_output%s%s" % (where, label, exc.path)))
            ok = False
    if not ok:
        return None
    if not declared:  # no return values: the function returns nothing (None)
        expected = None
    else:
        expected = converted[0] if len(converted) == 1 else tuple(converted)
    return PreparedTest(index, tuple(args), expected, None, dict(zip(names, args)))


def _check_problem(problem: Problem, file: str) -> list[Issue]:
    """Everything the schema cannot say: types, names, counts, uniqueness, data fit."""
    issues: list[Issue] = []
    proto = problem.function_prototype
    _check_identifier(proto.function_name, "function_prototype.function_name", file, issues)
    seen: set[str] = set()
    specs: list[TypeSpec] = []
    types_ok = True
    for i, param in enumerate(proto.parameters):
        where = "function_prototype.parameters[%d]" % i
        _check_identifier(param.name, where + ".name", file, issues)
        if param.name in seen:
            issues.append(Issue(file, "duplicate parameter name %r" % param.name, where + ".name"))
        seen.add(param.name)
        try:
            specs.append(parse_type(param.type))
        except TypeParseError as exc:
            issues.append(Issue(file, str(exc), where + ".type"))
            specs.append(ANY)  # keep checking the rest of the file against "anything"
            types_ok = False
    returns: list[TypeSpec] = []
    for i, ret in enumerate(proto.return_values):
        try:
            returns.append(parse_type(ret.type))
        except TypeParseError as exc:
            issues.append(Issue(file, str(exc), "function_prototype.return_values[%d].type" % i))
            returns.append(ANY)
            types_ok = False
    ids = [p.prompt_id for p in problem.prompts]
    for i, prompt_id in enumerate(ids):
        if prompt_id in ids[:i]:
            issues.append(Issue(file, "duplicate prompt_id %r" % prompt_id,
                                "prompts[%d].prompt_id" % i))
    if not problem.prompts:
        issues.append(Issue(file, "a problem needs at least one prompt", "prompts"))
    if problem.checker is not None:
        try:
            compile(problem.checker, "<checker>", "exec")
        except SyntaxError as exc:
            issues.append(Issue(file, "checker does not compile: %s (line %s)" % (
                exc.msg, exc.lineno), "checker"))
    if problem.optimal_solution is not None and not problem.optimal_solution.strip():
        issues.append(Issue(file, "optimal_solution is empty", "optimal_solution"))
    problem._param_specs = specs
    problem._return_specs = returns
    problem._return_spec = return_type(returns) if returns else parse_type("None")
    tests = []
    for i, case in enumerate(problem.correctness_test_suite):
        prepared = _prepare_case(case, "correctness_test_suite[%d]" % i, problem, i, file, issues)
        if prepared is not None:
            tests.append(prepared)
    for p, prompt in enumerate(problem.prompts):
        for s, case in enumerate(prompt.sample_inputs_outputs):
            where = "prompts[%d].sample_inputs_outputs[%d]" % (p, s)
            if case.check is not None:
                issues.append(Issue(file, "samples need expected_output", where))
                continue
            _prepare_case(case, where, problem, s, file, issues)
    problem._tests = tests if types_ok else []
    return issues


# ---- loading ----------------------------------------------------------------------------------

def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError("duplicate key %r" % key)
        out[key] = value
    return out


def read_json_file(path: Path) -> Any:
    """Parse a JSON file; raise InputError naming the file and line on any failure."""
    file = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError([Issue(file, "cannot read: %s" % exc.strerror)]) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError([Issue(file, "not UTF-8 text (byte 0x%02x)" % raw[exc.start],
                                line=line)]) from None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise InputError([Issue(file, "invalid JSON: %s (column %d)" % (exc.msg, exc.colno),
                                line=exc.lineno)]) from None
    except ValueError as exc:
        raise InputError([Issue(file, "invalid JSON: %s" % exc)]) from None


def _schema_issues(error: ValidationError, file: str) -> list[Issue]:
    """Pydantic's errors as issues. Unknown and missing fields are grouped per location, so a
    file that is not a problem definition at all gets two clear lines, not twenty."""
    issues = []
    grouped: dict[tuple[str, str], list[str]] = {}
    for item in error.errors():
        parts = [p for p in item["loc"] if not (isinstance(p, str) and "[" in p)]
        if item["type"] in ("extra_forbidden", "missing") and parts:
            parent = json_location(parts[:-1])
            grouped.setdefault((parent, item["type"]), []).append(str(parts[-1]))
            continue
        issues.append(Issue(file, item["msg"], json_location(parts)))
    for (parent, kind), names in grouped.items():
        plural = len(names) > 1
        if kind == "extra_forbidden":
            message = "unknown field%s %s (not in the problem definition spec)" % (
                "s" if plural else "", ", ".join(map(repr, names)))
        else:
            message = "required field%s %s missing" % ("s" if plural else "",
                                                       ", ".join(map(repr, names)) +
                                                       (" are" if plural else " is"))
        issues.append(Issue(file, message, parent))
    return _dedupe(issues)


def _dedupe(issues: list[Issue]) -> list[Issue]:
    seen, out = set(), []
    for issue in issues:
        if (issue.location, issue.message) not in seen:
            seen.add((issue.location, issue.message))
            out.append(issue)
    return out


def _without(data: Any, locations: list[tuple[Any, ...]]) -> Any:
    """A copy of ``data`` with the fields at ``locations`` removed."""
    import copy

    data = copy.deepcopy(data)
    for loc in locations:
        node = data
        for part in loc[:-1]:
            node = node[part]
        node.pop(loc[-1], None)
    return data


_DEFERRED = {"deferred_checks": True}


def function_from_data(data: Any, file: str) -> Problem:
    """Validate already-parsed JSON as a problem; raise InputError with every issue.

    When the only schema errors are unknown fields, the rest is still checked (with those
    fields set aside), so one run reports every mistake in the file.
    """
    if not isinstance(data, dict):
        raise InputError([Issue(file, "a problem file must hold a JSON object, got %s"
                                % type(data).__name__)])
    issues: list[Issue] = []
    try:
        problem = Problem.model_validate(data, context=_DEFERRED)
    except ValidationError as exc:
        issues = _schema_issues(exc, file)
        errors = exc.errors()
        if any(e["type"] != "extra_forbidden" for e in errors):
            raise InputError(issues) from None
        try:
            problem = Problem.model_validate(_without(data, [e["loc"] for e in errors]),
                                             context=_DEFERRED)
        except (ValidationError, KeyError, IndexError, TypeError):
            raise InputError(issues) from None
    problem._source = file
    issues += _check_problem(problem, file)
    if issues:
        raise InputError(issues)
    return problem


@dataclass
class Suite:
    """Problems from one file or a folder of them, with unique identifiers."""

    name: str
    root: Path
    problems: list[Problem]

    def __post_init__(self) -> None:
        self.by_id = {p.identifier: p for p in self.problems}

    def __len__(self) -> int:
        return len(self.problems)

    def __iter__(self) -> Iterator[Problem]:
        return iter(self.problems)

    def __getitem__(self, identifier: str) -> Problem:
        """A problem by its identifier; a KeyError lists a few that exist."""
        try:
            return self.by_id[identifier]
        except KeyError:
            known = ", ".join(sorted(self.by_id)[:5])
            raise KeyError("no problem %r in suite %s (e.g. %s)" % (identifier, self.name,
                                                                    known)) from None

    def __contains__(self, identifier: object) -> bool:
        return identifier in self.by_id


def suite_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*.json")
                      if not any(part.startswith(".") for part in p.relative_to(path).parts))
    return [path]
