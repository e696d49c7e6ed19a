"""What a SandboxFusion evaluation (``/submit``, ``/common_evaluate_batch``, each item of
``/v1/evaluate/batch``) runs and how its outputs are checked: the language by SandboxFusion's
name (as each language declares it: ``Language.names_in["sandboxfusion"]``), the test cases in
any of the shapes SandboxFusion and ScaleBox send, the output checker, the function-call
wrapper, and whether a run's output passes its case. Pure: nothing here runs a program (the
runs are :meth:`judge.Judge.run_program`'s, see :mod:`judge.service.fusion`).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from judge import languages
from judge.engine.checkers.base import CHECKERS, output_verdict
from judge.engine.verdicts import Verdict
from judge.errors import UnknownName
from judge.problem.program import OutputChecker
from judge.service.fusion_models import MAX_CASES, TestConfig, input_bytes

#: the naming scheme of SandboxFusion's ``language`` field (``Language.names_in``)
SCHEME = "sandboxfusion"
#: SandboxFusion languages the judge does not run: answered with SandboxFusion's error
#: shape (status SandboxError), as SandboxFusion answers a runner it cannot use (a language
#: that declares one of these names, a plug-in's, is run)
UNSUPPORTED = ("python2", "sql", "cuda", "julia",
               "verilog", "python_gpu", "lean", "swift",
               "gtest", "react")


def known_names() -> list[str]:
    """SandboxFusion's names of the languages the judge runs, sorted."""
    return sorted(map(str, languages.all_named_in(SCHEME)))


def language_of(name: str) -> str | None:
    """The judge's language for a SandboxFusion name; None for one SandboxFusion knows but
    the judge does not run; UnknownName for one neither knows (answered 422, as
    SandboxFusion answers it)."""
    try:
        return languages.named_in(SCHEME, name).name
    except UnknownName:
        if name in UNSUPPORTED:
            return None
        raise


def not_run(name: str | None) -> str:
    """Why a language SandboxFusion knows is not run here."""
    return "language %r is not run by this judge (it runs: %s)" % (name, ", ".join(known_names()))


def passes(case: dict[str, Any], stdout: str, checker: OutputChecker, function: bool) -> bool:
    """Whether a run's standard output passes its test case: a function call's returned
    value (JSON, the wrapper's last line) against the expected one, else the output by the
    output checker (the Kattis default validator unless the request names one)."""
    expected = case.get("output", "")
    if function:  # the returned value, as JSON, against the expected one
        try:
            got = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else None
        except ValueError:
            return False
        want = expected
        if isinstance(want, str):
            try:
                want = json.loads(want)
            except ValueError:
                pass
        if isinstance(want, list) and len(want) == 1 and not isinstance(got, list):
            want = want[0]
        return _plain(got) == _plain(want)
    answer = expected if isinstance(expected, str) else json.dumps(expected)
    return output_verdict(input_bytes(answer, "output"),
                          stdout.encode("utf-8", "surrogateescape"),
                          checker).verdict is Verdict.PASS


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def short(value: Any, limit: int = 500) -> Any:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "..."


def test_cases(config: TestConfig) -> list[dict[str, Any]]:
    """The test cases of ``config.provided_data`` in any of the shapes SandboxFusion and
    ScaleBox send: ``{"test_cases": {"type", "fn_name", "input": [...], "output": [...]}}``
    (common_evaluate_batch), ``{"test_cases": [{"input", "output"}, ...]}``
    (common_evaluate), ``{"test": [{"input": {"stdin"}, "output": {"stdout"}}]}`` (a
    SandboxFusion dataset row), or ``{"inputs": [...], "outputs": [...], "fn_name"}``
    (APPS / verl ground truth). Each case says where it came from (``where``). ValueError,
    naming the place, when it holds none or one of another shape."""
    data = config.provided_data
    top = "config.provided_data"
    if isinstance(data, list):
        data, top = {"test_cases": data}, "config.provided_data"
    if not isinstance(data, dict):
        raise ValueError("config.provided_data must hold the test cases")
    cases: list[dict[str, Any]] = []
    raw = data.get("test_cases")
    if raw is not None and not isinstance(config.provided_data, list):
        top = "config.provided_data.test_cases"
    if isinstance(raw, dict):
        ins, outs = _list(raw, "input", top), _list(raw, "output", top)
        if len(ins) != len(outs):
            raise ValueError("%s: %d inputs, %d outputs" % (top, len(ins), len(outs)))
        kind = raw.get("type") or ("function_call" if raw.get("fn_name") else "stdin_stdout")
        cases = [{"input": i, "output": o, "fn_name": raw.get("fn_name")
                  if kind == "function_call" else None, "where": "%s.input[%d]" % (top, n),
                  "where_output": "%s.output[%d]" % (top, n)}
                 for n, (i, o) in enumerate(zip(ins, outs))]
    elif isinstance(raw, list):
        for n, c in enumerate(raw):
            where = "%s[%d]" % (top, n)
            if not isinstance(c, dict):
                raise ValueError("%s is not an object {\"input\", \"output\"}" % where)
            cases.append({"input": c.get("input"), "output": c.get("output"),
                          "fn_name": c.get("fn_name")
                          if c.get("type") in (None, "function_call") else None,
                          "where": where + ".input", "where_output": where + ".output"})
    elif raw is not None:
        raise ValueError("%s must be a list of test cases or an object of inputs and outputs"
                         % top)
    elif isinstance(data.get("test"), list):
        for n, c in enumerate(data["test"]):
            where = "config.provided_data.test[%d]" % n
            if not isinstance(c, dict):
                raise ValueError("%s is not an object {\"input\", \"output\"}" % where)
            stdin, stdout = c.get("input") or {}, c.get("output") or {}
            for name, part in (("input", stdin), ("output", stdout)):
                if not isinstance(part, dict):
                    raise ValueError("%s.%s is not an object {\"std%s\": ...}"
                                     % (where, name, "in" if name == "input" else "out"))
            cases.append({"input": stdin.get("stdin", ""), "output": stdout.get("stdout", ""),
                          "where": where + ".input.stdin",
                          "where_output": where + ".output.stdout"})
    elif data.get("inputs") is not None:
        ins = _list(data, "inputs", "config.provided_data")
        outs = _list(data, "outputs", "config.provided_data")
        if len(ins) != len(outs):
            raise ValueError("config.provided_data: %d inputs, %d outputs"
                             % (len(ins), len(outs)))
        cases = [{"input": i, "output": o, "fn_name": data.get("fn_name"),
                  "where": "config.provided_data.inputs[%d]" % n,
                  "where_output": "config.provided_data.outputs[%d]" % n}
                 for n, (i, o) in enumerate(zip(ins, outs))]
    if not cases:
        raise ValueError("config.provided_data holds no test cases")
    if len(cases) > MAX_CASES:
        raise ValueError("at most %d test cases per candidate" % MAX_CASES)
    return cases


def _list(data: dict[str, Any], key: str, where: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError("%s.%s must be a list" % (where, key))
    return value


def checker_of(config: TestConfig) -> OutputChecker:
    """``config.extra.checker`` (an output checker object; the Kattis default validator
    when absent). ValueError naming the field when it is not one."""
    given = config.extra.get("checker")
    if given is None:
        return OutputChecker()
    if not isinstance(given, dict):
        raise ValueError("config.extra.checker must be an output checker object such as "
                         "{\"type\": \"tokens\"} or {\"float_tolerance\": 1e-6}, not %s"
                         % type(given).__name__)
    try:
        checker = OutputChecker.model_validate(given)
    except ValidationError as exc:
        first = exc.errors()[0]
        place = ".".join(str(part) for part in first.get("loc", ()))
        raise ValueError("config.extra.checker%s: %s" % (
            "." + place if place else "", first.get("msg", "invalid"))) from None
    try:
        known = CHECKERS.get(checker.type)
    except UnknownName as exc:
        raise ValueError("config.extra.checker.type: %s" % exc) from None
    if not known.in_process:
        raise ValueError("config.extra.checker.type: a %s checker runs a program of the "
                         "server's: it cannot come with a request" % known.name)
    return checker


def evaluation(config: TestConfig) -> tuple[Any, list[dict[str, Any]], str | None,
                                           list[bytes], OutputChecker]:
    """What an evaluation runs: (language, test cases, the function called or None, each
    case's standard input, the output checker). ValueError, naming the field, for a request
    that cannot be evaluated (a client's mistake: answered 400 before it is admitted)."""
    language = language_of(config.language or "python")
    if language is None:
        raise ValueError("config." + not_run(config.language))
    lang = languages.get(language)
    cases = test_cases(config)
    names = [c.get("fn_name") for c in cases if c.get("fn_name")]
    function = str(names[0]) if names else None
    if function and not lang.default:  # the wrapper is written in the default language
        raise ValueError("function_call test cases are run in Python only here")
    inputs = []
    for case in cases:
        text = _call_input(case.get("input")) if function else str(case.get("input", ""))
        inputs.append(input_bytes(text, case["where"]))
        expected = case.get("output", "")
        if isinstance(expected, str) and not function:  # compared as bytes, on our side
            input_bytes(expected, case["where_output"])
    return lang, cases, function, inputs, checker_of(config)


def _call_input(value: Any) -> str:
    """A function call's arguments as the wrapper reads them: one JSON value per line
    (a string of such lines is kept as it is, as the APPS and verl formats give it)."""
    if isinstance(value, str):
        return value
    args = value if isinstance(value, list) else [value]
    return "\n".join(json.dumps(a) for a in args)


def call_wrapper(code: str, name: str) -> str:
    """The candidate's code, then a call of ``name`` with the JSON arguments of standard
    input (one per line) whose result is printed as JSON: the expected value stays here."""
    return code + "\n\n" + (
        "def _judge_call():\n"
        "    import json as _j, sys as _s\n"
        "    _raw = _s.stdin.read()\n"
        "    _args = [_j.loads(l) for l in _raw.split('\\n') if l.strip()]\n"
        "    _f = globals().get(%r)\n"
        "    if _f is None and 'Solution' in globals():\n"
        "        _f = getattr(globals()['Solution'](), %r)\n"
        "    if _f is None:\n"
        "        _s.stderr.write('function %s not found\\n')\n"
        "        _s.exit(1)\n"
        "    _r = _f(*_args)\n"
        "    _s.stdout.write('\\n' + _j.dumps(_r, default=str) + '\\n')\n"
        "_judge_call()\n" % (name, name, name))
