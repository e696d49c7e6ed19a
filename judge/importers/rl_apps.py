"""APPS / TACO and verl / PRIME ground truth: ``{"inputs", "outputs", "fn_name"?}``.

APPS and TACO records carry ``input_output`` (a JSON string); verl's and PRIME's records
carry the same object as ``reward_model.ground_truth``. Without ``fn_name`` the tests are
standard input and expected output (a program problem); with it, each input is the list of
arguments of a call (or, as PRIME ships them, a string with one JSON value per line) and
each output the expected return value (or a JSON string of it), wrapped in a one-element
list the way APPS writes it (a function problem).

Comparison, against the APPS evaluator (``apps/eval/testing_util.py``, embedded in verl as
``prime_code/testing_util.py``):

- standard input: the evaluator accepts an output whose lines, stripped of leading and
  trailing whitespace and with blank lines dropped, equal the expected ones, or whose lines
  are all numbers within ``np.allclose`` of them. Here: the ``tokens`` checker,
  case-sensitive, with an absolute float tolerance of 1e-6 (:data:`APPS_CHECKER`).
  Differences: spacing *inside* a line and line breaks between tokens are not significant
  here (APPS compares whole lines); floats get an absolute tolerance of 1e-6 only (APPS:
  ``1e-8 + 1e-5 x |expected|``, so large floats are stricter here, and integers never
  get a relative tolerance, which would pass ``1000001`` for ``1000000``).
- calls: ``output == expected`` or ``output == expected[0]``, a returned tuple read as a
  list: the same rule, as a check the judge evaluates over the returned value
  (:data:`~judge.importers.datasets.CALL_CHECKER`). Difference: JSON object keys stay
  strings (APPS tries turning a dict argument's keys into ints).
"""

from __future__ import annotations

import re
from typing import Any

from judge.importers.datasets import (DatasetImporter, RecordError, dataset_limit,
                                      function_problem,
                                      identifier, json_field, program_problem, seconds, text)
from judge.jsonl import loads
from judge.problem.limits import MAX_MEMORY_MB
from judge.problem.program import OutputChecker

#: the APPS evaluator's stdin comparison, as the closest checker (see the module doc)
APPS_CHECKER = OutputChecker(type="tokens", case_sensitive=True, float_absolute_tolerance=1e-6)


def _call_args(raw: Any, where: str) -> list[Any]:
    """A call's arguments: a JSON list (APPS), or a string of one JSON value per line
    (PRIME, LiveCodeBench)."""
    if isinstance(raw, list):
        return raw
    if isinstance(raw, str):
        try:
            return [loads(line) for line in raw.split("\n") if line.strip()]
        except ValueError as exc:
            raise RecordError("arguments: %s" % exc, where) from None
    raise RecordError("a call's arguments must be a list or JSON lines, got %s"
                      % type(raw).__name__, where)


def _call_expected(raw: Any, where: str, parse_strings: bool) -> Any:
    if parse_strings and isinstance(raw, str):
        try:
            raw = loads(raw)
        except ValueError as exc:
            raise RecordError("expected value: %s" % exc, where) from None
    return raw


def problem_from_io(io: Any, ident: str, statement: str = "", *, field: str,
                    time_limit_s: float | None = None, memory_mb: int | None = None,
                    starter_code: str | None = None, tags: list[str] | None = None,
                    source: str | None = None) -> Any:
    """A problem from an APPS-style tests object ``{"inputs", "outputs", "fn_name"?}``."""
    if isinstance(io, list):  # a list of LiveCodeBench-style tests (DeepCoder's ground truth)
        from judge.importers.rl_contests import problem_from_tests

        return problem_from_tests(io, ident, statement, field=field, time_limit_s=time_limit_s,
                                  starter_code=starter_code, source=source)
    if not isinstance(io, dict):
        raise RecordError("expected an object with inputs and outputs, got %s"
                          % type(io).__name__, field)
    # ScaleBox's verl ground truth names them "input" and "output" and says the kind in
    # "type" ("function_call" or "stdin_stdout")
    inputs = io.get("inputs") if "inputs" in io else io.get("input")
    outputs = io.get("outputs") if "outputs" in io else io.get("output")
    if not isinstance(inputs, list) or not isinstance(outputs, list):
        raise RecordError("inputs and outputs must be lists (\"inputs\"/\"outputs\", or "
                          "ScaleBox's \"input\"/\"output\")", field)
    if len(inputs) != len(outputs):
        raise RecordError("%d inputs but %d outputs" % (len(inputs), len(outputs)), field)
    kind = io.get("type")
    if kind not in (None, "function_call", "stdin_stdout"):
        raise RecordError("type must be \"function_call\" or \"stdin_stdout\", got %r"
                          % (kind,), field + ".type")
    fn_name = io.get("fn_name") if kind != "stdin_stdout" else None
    if kind == "function_call" and not fn_name:
        raise RecordError("a function_call ground truth needs fn_name", field + ".fn_name")
    if fn_name:
        calls = []
        for i, (args, expected) in enumerate(zip(inputs, outputs)):
            where = "%s.inputs[%d]" % (field, i)
            calls.append((_call_args(args, where),
                          _call_expected(expected, "%s.outputs[%d]" % (field, i),
                                         parse_strings=isinstance(args, str))))
        return function_problem(ident, statement, fn_name, calls, time_limit_s=time_limit_s,
                                tags=tags, starter_code=starter_code, where=field)
    tests = []
    for i, (stdin, expected) in enumerate(zip(inputs, outputs)):
        tests.append({"name": "test%d" % (i + 1),
                      "stdin": text(stdin, "%s.inputs[%d]" % (field, i)),
                      "expected": text(expected, "%s.outputs[%d]" % (field, i))})
    return program_problem(ident, statement, tests, checker=APPS_CHECKER,
                           time_limit_s=time_limit_s, memory_mb=memory_mb, source=source,
                           tags=tags, where=field)


def _memory_mb(value: Any) -> int | None:
    """TACO's ``memory_limit``: ``"256 megabytes"`` or a number of megabytes."""
    if isinstance(value, str):  # the same leading-number reading as seconds()
        match = re.match(r"\s*(\d{1,12}(?:\.\d{1,12})?)(?!\d)", value)
        value = float(match.group(1)) if match else None
    limit = dataset_limit(value, MAX_MEMORY_MB)
    return int(limit) if limit is not None and limit >= 1 else None


class Apps(DatasetImporter):
    """APPS / TACO records: ``question``, ``input_output`` (JSON string), ``starter_code``;
    TACO also ``time_limit``/``memory_limit`` (``"1 second"``, ``"256 megabytes"``)."""

    label = "APPS"
    file_prefix = "apps_"
    marker_fields = ("input_output",)

    def problem(self, record: dict[str, Any], index: int = 0) -> Any:
        io = json_field(record, "input_output")
        tags = record.get("tags") if isinstance(record.get("tags"), list) else None
        difficulty = record.get("difficulty")
        if isinstance(difficulty, str) and difficulty:
            tags = (tags or []) + ["difficulty:%s" % difficulty]
        return problem_from_io(
            io, identifier(record, "apps_%d" % index), str(record.get("question") or ""),
            field="input_output", time_limit_s=seconds(record.get("time_limit")),
            memory_mb=_memory_mb(record.get("memory_limit")),
            starter_code=record.get("starter_code") if isinstance(
                record.get("starter_code"), str) else None,
            tags=[str(t) for t in tags] if tags else None,
            source=str(record["url"]) if isinstance(record.get("url"), str) else None)


def verl_ground_truth(ground_truth: Any, ident: str = "verl", statement: str = "") -> Any:
    """A problem from verl's / PRIME's ``reward_model.ground_truth`` (a JSON string or the
    parsed object), as ``compute_score`` receives it."""
    io = json_field({"ground_truth": ground_truth}, "ground_truth")
    return problem_from_io(io, ident, statement, field="reward_model.ground_truth")


def _prompt_text(prompt: Any) -> str:
    """verl's ``prompt`` column: chat messages; the user's text is the statement."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        return "\n\n".join(str(m.get("content", "")) for m in prompt
                           if isinstance(m, dict) and m.get("role", "user") == "user")
    return ""


class Verl(DatasetImporter):
    """verl / PRIME records: ``reward_model.ground_truth`` (JSON string), ``prompt`` (chat
    messages), ``data_source``, ``extra_info.index``."""

    label = "verl"
    file_prefix = "verl_"
    marker_fields = ("reward_model",)

    def problem(self, record: dict[str, Any], index: int = 0) -> Any:
        model = json_field(record, "reward_model")
        if not isinstance(model, dict) or "ground_truth" not in model:
            raise RecordError("reward_model has no ground_truth", "reward_model.ground_truth")
        source = record.get("data_source")
        extra = record.get("extra_info")
        number = extra.get("index", index) if isinstance(extra, dict) else index
        ident = identifier({k: v for k, v in record.items() if k != "extra_info"},
                           "%s_%s" % (source if isinstance(source, str) and source else "verl",
                                      number))
        problem = verl_ground_truth(model["ground_truth"], ident, _prompt_text(
            record.get("prompt")))
        return problem


__all__ = ["APPS_CHECKER", "Apps", "Verl", "problem_from_io", "verl_ground_truth"]
