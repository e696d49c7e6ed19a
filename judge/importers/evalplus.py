"""EvalPlus's release files (HumanEval+, MBPP+) as importer sources, with their extra tests.

A release record holds ``task_id``, ``prompt``, ``entry_point``, ``canonical_solution``,
``base_input`` (the original benchmark's inputs), ``plus_input`` (EvalPlus's extra inputs),
``atol``, ``contract`` and (MBPP+) ``test``; no expected outputs and, for MBPP+, no ``code``.
As EvalPlus does (``evaluate.get_groundtruth``), the expected output of every input is what
the canonical solution (``prompt + canonical_solution``) returns for it; here that code runs
in the import's sandbox (:mod:`judge.importers.sandboxed`), never in the judge's process.

Each input becomes one test whose check is EvalPlus's own comparison (``unsafe_execute``):
``out == exp``, else, when a tolerance applies, the same type, the same length and
``numpy.allclose(out, exp, rtol=1e-07, atol=atol)`` (without numpy); a float expected value
(``is_floats``) turns a zero ``atol`` into 1e-6 for that test *and the ones after it in its
group*, as EvalPlus's loop does. The special oracles are kept: HumanEval/32 (``find_zero``:
``|poly(xs, out)| <= atol``), and MBPP+'s set-equality, not-None and four task-specific ones.
The base tests come first, then the extra ones; the tag ``evalplus-base:N`` says that the
first N tests are the base set (``judge run --output-format evalplus`` reports base and
base+plus from it).
"""

from __future__ import annotations

import ast
import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.errors import InputError, Issue
from judge.importers.base import IMPORTERS, RecordImporter
from judge.importers.convert import BENCHMARK_TIMEOUT_S, Source, _signature_parameters
from judge.importers.records import ProblemReport, Unconverted
from judge.importers.values import annotation_type, faithful_json, infer_type, literal_source
from judge.settings import cache_home

RELEASE_FIELDS = ("task_id", "prompt", "entry_point", "canonical_solution", "base_input",
                  "plus_input")
BASE_TAG = "evalplus-base:"
#: EvalPlus's DEFAULT_MIN_TIME_LIMIT and DEFAULT_GT_TIME_LIMIT_FACTOR, and its per-task cap
MIN_TIME_LIMIT_S, TIME_LIMIT_FACTOR, TASK_CAP_S = 1.0, 4.0, 60.0
#: MBPP+ tasks compared as sets, and tasks whose output is only checked to be not None
SET_EQ_TASKS = frozenset({"similar_elements", "find_char_long", "common_in_nested_lists",
                          "extract_singly", "larg_nnum", "intersection_array",
                          "find_dissimilar", "Diff"})
NOT_NONE_TASKS = frozenset({"check_str", "text_match_three", "text_starta_endb"})

#: the checks' helpers (trusted, evaluated by the judge over decoded data)
CHECKER = '''import math


def _ep_is_floats(x):
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)) and x:
        return all(isinstance(i, float) for i in x)
    return False


def _ep_close(a, b, atol):
    """numpy.allclose(a, b, rtol=1e-07, atol=atol) on numbers and nested sequences."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))):
            return False
        if len(a) != len(b):
            return False
        return all(_ep_close(x, y, atol) for x, y in zip(a, b))
    if not all(isinstance(v, (bool, int, float)) for v in (a, b)):
        return False
    a, b = float(a), float(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + 1e-07 * abs(b)


def _ep_match(out, exp, atol, mode="", extra=False):
    """EvalPlus's comparison of one output (evalplus.eval.unsafe_execute)."""
    try:
        if mode == "set":
            exact = set(out) == set(exp)
        elif mode == "not_none":
            exact = out == exp if isinstance(out, bool) else exp == (out is not None)
        else:
            exact = out == exp
        exact = bool(exact) or bool(extra)
        if not exact and atol != 0:
            if type(out) is not type(exp):
                return False
            if isinstance(exp, (list, tuple)) and len(out) != len(exp):
                return False
            return _ep_close(out, exp, atol)
        return exact
    except Exception:
        return False


def _ep_poly(xs, x):
    return sum(coeff * math.pow(x, i) for i, coeff in enumerate(xs))


def _ep_surface_area(base_edge, height):
    slant = math.sqrt((base_edge / 2) ** 2 + height ** 2)
    return round(base_edge ** 2 + 2 * base_edge * slant)


def _ep_digit_distance(a, b):
    x, y = str(a), str(b)
    width = max(len(x), len(y))
    return sum(abs(int(p) - int(q)) for p, q in zip(x.zfill(width), y.zfill(width)))
'''


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def mbpp_inputs(task: int, inputs: list[Any]) -> list[Any]:
    """MBPP+'s JSON inputs as the Python values its evaluator passes
    (``evalplus.data.mbpp.mbpp_deserialize_inputs``: tuples, sets and complex numbers that
    JSON cannot say)."""
    if task in (2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596,
                616, 630, 726, 740, 744, 809):
        return [[tuple(x) for x in inp] for inp in inputs]
    if task in (63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780):
        return [[[tuple(x) for x in group] for group in inp] for inp in inputs]
    if task in (75, 413, 444, 753):
        return [[[tuple(x) for x in inp[0]]] + [inp[1]] for inp in inputs]
    if task in (106, 750):
        return [[inp[0]] + [tuple(inp[1])] for inp in inputs]
    if task == 115:
        return [[[set(x) if isinstance(x, list) and x else {} for x in inp[0]]]
                for inp in inputs]
    if task == 124:
        return [(float(inp[0]), complex(inp[1])) for inp in inputs]
    if task in (250, 405, 446, 617, 720, 763, 808):
        return [[tuple(inp[0])] + [inp[1]] for inp in inputs]
    if task in (259, 401, 445):
        return [[tuple(tuple(x) for x in group) for group in inp] for inp in inputs]
    if task == 278:
        return [[tuple(tuple(x) if isinstance(x, list) else x for x in inp[0])]
                for inp in inputs]
    if task == 307:
        return [[tuple(inp[0])] + [inp[1], inp[2]] for inp in inputs]
    if task == 722:
        return [[{k: tuple(v) for k, v in inp[0].items()}] + inp[1:] for inp in inputs]
    if task == 252:
        return [[complex(inp[0])] for inp in inputs]
    if task in (580, 615, 791):
        return [_tuples(inp) for inp in inputs]
    return inputs


@dataclass
class EvalPlusSource(Source):
    """A release record: the inputs of each group; expected outputs come from the reference."""

    groups: list[tuple[str, list[Any]]] = field(default_factory=list)
    atol: float = 0.0
    dataset: str = "humaneval"
    contract: str = ""

    def convert_here(self, file: str) -> tuple[dict[str, Any] | None, ProblemReport]:
        return convert_release(self, file)


def is_release_record(record: dict[str, Any]) -> bool:
    return isinstance(record, dict) and "plus_input" in record and "base_input" in record


def evalplus_source(record: dict[str, Any]) -> EvalPlusSource:
    """A HumanEval+ / MBPP+ release record. Raises ValueError when unusable."""
    for name in RELEASE_FIELDS:
        if name not in record:
            raise ValueError("missing field %r (an EvalPlus release line needs %s)"
                             % (name, ", ".join(RELEASE_FIELDS)))
    task_id, prompt, entry = record["task_id"], record["prompt"], record["entry_point"]
    canonical = record["canonical_solution"]
    for name in ("task_id", "prompt", "entry_point", "canonical_solution"):
        if not isinstance(record[name], str):
            raise ValueError("%s must be a string" % name)
    for name in ("base_input", "plus_input"):
        if not isinstance(record[name], list) or not all(
                isinstance(i, (list, tuple)) for i in record[name]):
            raise ValueError("%s must be a list of argument lists" % name)
    atol = record.get("atol", 0) or 0
    if isinstance(atol, bool) or not isinstance(atol, (int, float)) or atol < 0:
        raise ValueError("atol must be a number >= 0")
    dataset = "mbpp" if task_id.lower().startswith("mbpp") else "humaneval"
    base, plus = record["base_input"], record["plus_input"]
    if dataset == "mbpp":
        try:
            number = int(task_id.split("/")[-1])
        except ValueError:
            raise ValueError("an MBPP+ task_id ends in its number (Mbpp/2)") from None
        base, plus = mbpp_inputs(number, base), mbpp_inputs(number, plus)
    code = prompt + canonical
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise ValueError("prompt + canonical_solution does not parse: %s (line %s)"
                         % (exc.msg, exc.lineno)) from None
    fn = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
          and n.name == entry]
    if not fn:
        raise ValueError("the code does not define the entry point %r" % entry)
    check = ast.parse("def check(candidate):\n    pass\n").body[0]
    assert isinstance(check, ast.FunctionDef)
    doc = ast.get_docstring(fn[-1]) or ast.get_docstring(tree) or ""
    prompts = [{
        "prompt_id": dataset,
        "prompt": "Complete the Python function `%s`. The code below is the start of the "
                  "module; continue it, or reply with the whole function." % entry,
        "genericize": False, "sample_inputs_outputs": [], "input_code": prompt}]
    return EvalPlusSource(
        task_id=task_id, entry=entry, signature=fn[-1], reference_code=code, test_module="",
        check=check, check_source="", candidate=entry,
        description=doc.strip() or "%s: complete the function %s" % (task_id, entry),
        prompts=prompts, optimal_solution=code,
        tags=["evalplus", dataset, "completion"],
        groups=[("base", list(base)), ("plus", list(plus))], atol=float(atol),
        dataset=dataset, contract=record.get("contract") or "")


def _check_for(src: EvalPlusSource, names: list[str], expected: str, atol: float) -> str:
    entry = src.entry
    if src.dataset == "humaneval" and entry == "find_zero" and names:
        return "abs(_ep_poly(%s, output)) <= %r" % (names[0], src.atol)
    mode, extra = "", "False"
    if src.dataset == "mbpp":
        if entry in SET_EQ_TASKS:
            mode = "set"
        elif entry in NOT_NONE_TASKS:
            mode = "not_none"
        elif entry == "are_equivalent":
            extra = "True"
        elif entry == "sum_div":
            extra = "output == 0"
        elif entry == "surface_Area" and len(names) == 2:
            extra = "abs(output - _ep_surface_area(%s, %s)) <= %r" % (names[0], names[1],
                                                                      src.atol)
        elif entry == "digit_distance_nums" and len(names) == 2:
            extra = "output == _ep_digit_distance(%s, %s)" % (names[0], names[1])
    return "_ep_match(output, %s, %r, %r, %s)" % (expected, atol, mode, extra)


def _is_floats(value: Any) -> bool:
    if isinstance(value, float):
        return True
    return isinstance(value, (list, tuple)) and bool(value) and all(
        isinstance(v, float) for v in value)


def convert_release(src: EvalPlusSource, file: str
                    ) -> tuple[dict[str, Any] | None, ProblemReport]:
    """Run the canonical solution on every input (in the import's sandbox: this is called
    there, by :func:`judge.importers.convert.convert_here`) and write the tests."""
    import time

    from judge.importers.tracer import TRACE_SECONDS, _quiet, _time_limit
    from judge.problem.model import function_from_data
    from judge.sandbox import wire

    report = ProblemReport(src.task_id)
    names, types, why = _signature_parameters(src.signature)
    if why:
        report.error = why
        return None, report
    namespace: dict[str, Any] = {"__name__": "__judge_reference__"}
    outputs: list[tuple[str, int, list[Any], Any, float]] = []
    try:
        with _quiet(), _time_limit(TRACE_SECONDS):
            exec(compile(src.reference_code, "<reference>", "exec"), namespace)
            reference = namespace[src.entry]
            for group, inputs in src.groups:
                for i, args in enumerate(inputs):
                    started = time.perf_counter()
                    result = reference(*copy.deepcopy(list(args)))
                    elapsed = time.perf_counter() - started
                    if src.entry in NOT_NONE_TASKS and src.dataset == "mbpp":
                        result = result is not None
                    outputs.append((group, i, list(args), result, elapsed))
    except BaseException as exc:  # noqa: BLE001 - the release's own code failed
        if isinstance(exc, KeyboardInterrupt):
            raise
        report.error = "the canonical solution fails on the release's inputs: %s: %s" % (
            type(exc).__name__, exc)
        return None, report
    checker: dict[str, Any] = {}
    exec(compile(CHECKER, "<evalplus checker>", "exec"), checker)
    for index, name in enumerate(names):
        values = [args[index] for _, _, args, _, _ in outputs if len(args) == len(names)]
        if values and not all(faithful_json(v, types[index])[0] for v in values):
            inferred = infer_type(values)
            if inferred is not None:
                report.notes.append("parameter %s: declared %s cannot carry every input; "
                                    "typed %s" % (name, types[index], inferred))
                types[index] = inferred
    cases: list[dict[str, Any]] = []
    base_count = 0
    atol_now = {"base": src.atol, "plus": src.atol}
    for group, i, args, result, _ in outputs:
        where = Unconverted(i + 1, "%s_input[%d]" % (group, i), "")
        if atol_now[group] == 0 and _is_floats(result):
            atol_now[group] = 1e-6  # EvalPlus's loop keeps it for the tests after this one
        literal = literal_source(result)
        inputs: dict[str, Any] = {}
        if len(args) != len(names):
            where.reason = "%d arguments for %d parameters" % (len(args), len(names))
        elif literal is None:
            where.reason = "the expected output %.60r cannot be written down" % (result,)
        else:
            for name, type_text, value in zip(names, types, args):
                ok, data = faithful_json(value, type_text)
                if not ok:
                    where.reason = "input %s=%.60r cannot be passed as JSON data of type %s" % (
                        name, value, type_text)
                    break
                inputs[name] = data
        if not where.reason:
            check = _check_for(src, names, literal, atol_now[group])
            try:  # the reference's own output, as it comes back over the wire, must pass
                decoded = wire.decode(json.loads(json.dumps(wire.encode(result))))
                scope = dict(checker, output=decoded, **dict(zip(names, copy.deepcopy(args))))
                ok = bool(eval(compile(check, "<check>", "eval"), scope))
            except Exception as exc:  # noqa: BLE001
                ok, where.reason = False, "%s: %s" % (type(exc).__name__, exc)
            if not ok and not where.reason:
                where.reason = "the canonical solution's output does not pass its own check"
        if where.reason:
            report.unconvertible.append(where)
            continue
        cases.append({"input": inputs, "check": check})
        base_count += group == "base"
    if not cases:
        report.error = "no test could be converted"
        return None, report
    limits = [max(MIN_TIME_LIMIT_S, TIME_LIMIT_FACTOR * t) for *_, t in outputs]
    data = {
        "identifier": src.task_id,
        "description": src.description,
        "prompts": src.prompts,
        "function_prototype": {
            "function_name": src.entry,
            "parameters": [{"name": n, "type": t} for n, t in zip(names, types)],
            "return_values": [{"type": annotation_type(src.signature.returns)}],
        },
        "correctness_test_suite": cases,
        "optimal_solution": src.optimal_solution,
        "tags": src.tags + ["%s%d" % (BASE_TAG, base_count)],
        "equality": "python",
        "checker": CHECKER,
        "limits": {"time_limit_s": max(BENCHMARK_TIMEOUT_S, max(limits)),
                   "budget_s": min(TASK_CAP_S, sum(limits)) + 1},
    }
    try:
        function_from_data(data, file)
    except Exception as exc:  # noqa: BLE001 - reported, the import goes on
        report.error = "the converted problem is not valid: %s" % exc
        return None, report
    report.checks = len(cases)
    if src.contract.strip():
        report.notes.append("the release's contract (asserts on valid inputs, for making "
                            "inputs) is not a test, as in EvalPlus's evaluator")
    return data, report


def base_count(problem: Any) -> int | None:
    """How many of an imported problem's first tests are EvalPlus's base tests (None: not an
    EvalPlus problem)."""
    for tag in problem.tags or []:
        if tag.startswith(BASE_TAG):
            try:
                return int(tag[len(BASE_TAG):])
            except ValueError:
                return None
    return None


class EvalPlus(RecordImporter):
    """EvalPlus's HumanEval+ and MBPP+ release files (``judge import evalplus FILE``; the
    evalplus package downloads them to its cache, e.g. ``HumanEvalPlus-v0.1.10.jsonl``)."""

    label = "EvalPlus"
    file_prefix = "mbpp_"  # an older MBPP+ line's numeric task id, as the mbpp importer does

    def default_path(self) -> Path:
        """The newest HumanEval+ release file in EvalPlus's cache (where the evalplus package
        downloads it: ``$XDG_CACHE_HOME/evalplus``, else ``~/.cache/evalplus``)."""
        cache = cache_home() / "evalplus"
        found = sorted(cache.glob("HumanEvalPlus*.jsonl")) if cache.is_dir() else []
        if not found:
            raise InputError([Issue(str(cache), "no path given and no HumanEvalPlus release "
                                    "file in EvalPlus's cache: give the release file "
                                    "(HumanEvalPlus-v0.1.10.jsonl, MbppPlus-v0.2.0.jsonl)")])
        return found[-1]

    def source(self, record: dict[str, Any]) -> Source:
        if is_release_record(record):
            return evalplus_source(record)
        # an older MBPP+ / HumanEval+ line without the release's inputs: as the original
        # benchmark's importer reads it (found by name: those modules build on this one)
        original = "mbpp" if "code" in record or "test_list" in record else "humaneval"
        return IMPORTERS.get(original).source(record)


__all__ = ["EvalPlus", "EvalPlusSource", "base_count", "evalplus_source", "is_release_record",
           "mbpp_inputs"]
