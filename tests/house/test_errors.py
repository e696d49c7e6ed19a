"""One exception tree: every exception class of the package derives from
:class:`judge.errors.JudgeError`, has a stable snake_case ``code`` of its own, unique across
the package, and every public one is exported from ``judge``.

The package is walked by importing every module (not by a list kept by hand), so a new
exception class anywhere is checked the day it is written.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import judge
from judge.errors import JudgeError, UnknownName
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

#: modules that need an optional extra; skipped (and said) when it is not installed
_OPTIONAL = {"ray", "fastapi", "uvicorn", "starlette", "httpx", "docker", "inspect_ai",
             "lm_eval", "datasets"}


def _exception_classes() -> tuple[list[type[BaseException]], list[str]]:
    found: list[type[BaseException]] = []
    skipped: list[str] = []
    for info in pkgutil.walk_packages(judge.__path__, "judge."):
        if info.name.endswith("__main__"):
            continue  # running it is the command line
        try:
            module = importlib.import_module(info.name)
        except ImportError as exc:
            if (exc.name or "").split(".")[0] in _OPTIONAL:
                skipped.append(info.name)
                continue
            raise
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, BaseException) \
                    and obj.__module__ == module.__name__:
                found.append(obj)
    return found, skipped


CLASSES, SKIPPED = _exception_classes()


def _name(cls: type) -> str:
    return "%s.%s" % (cls.__module__, cls.__qualname__)


def test_the_walk_found_the_known_errors():
    names = {cls.__name__ for cls in CLASSES}
    assert {"JudgeError", "InputError", "UnknownName", "ScoringError", "StepError",
            "LLMError", "TypeParseError", "WireError", "NotExpressible"} <= names
    assert len(CLASSES) >= 25
    # only the modules of optional extras may be left out of the walk
    assert all(m.startswith(("judge.service", "judge.distributed", "judge.integrations"))
               for m in SKIPPED), SKIPPED


def test_every_exception_class_derives_from_judge_error():
    stray = [_name(cls) for cls in CLASSES if not issubclass(cls, JudgeError)]
    assert not stray, "root these in judge.errors.JudgeError: %s" % stray


def test_every_exception_class_has_its_own_unique_snake_case_code():
    by_code: dict[str, list[str]] = {}
    for cls in CLASSES:
        code = cls.__dict__.get("code")
        assert isinstance(code, str), "%s has no code of its own" % _name(cls)
        assert re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", code), (_name(cls), code)
        by_code.setdefault(code, []).append(_name(cls))
    twice = {code: names for code, names in by_code.items() if len(names) > 1}
    assert not twice, "codes used twice: %s" % twice


def test_public_errors_are_exported_from_judge():
    public = [cls for cls in CLASSES if not cls.__name__.startswith("_")]
    missing = [_name(cls) for cls in public if cls.__name__ not in judge.__all__]
    assert not missing, "add to judge._EXPORTS: %s" % missing
    for cls in public:
        assert getattr(judge, cls.__name__) is cls


def test_public_codes_are_documented():
    """docs/architecture.md lists every public code with its class (what scripts rely on)."""
    docs = (ROOT / "docs" / "architecture.md").read_text(
        encoding="utf-8")
    missing = [cls.code for cls in CLASSES if not cls.__name__.startswith("_")
               and "| `%s` | `%s`" % (cls.code, cls.__name__) not in docs]
    assert not missing, "add to the table of docs/architecture.md: %s" % missing


def test_builtin_bases_are_kept_for_existing_callers():
    """``except ValueError`` (and friends) written before the tree still catch."""
    assert issubclass(judge.InputError, ValueError)
    assert issubclass(judge.ScoringError, ValueError)
    assert issubclass(judge.SandboxUnavailable, RuntimeError)
    assert issubclass(judge.UnknownTaskError, KeyError)
    assert issubclass(judge.UnknownName, LookupError)
    assert issubclass(judge.MalformedLine, judge.TransportError)
    assert issubclass(judge.LLMUnavailableError, judge.LLMError)


def test_one_except_clause_catches_any_judge_error():
    from judge.problem.types import parse_type
    from judge.sandbox import wire
    from judge.scoring.specs import parse_spec

    raisers = {
        "invalid_input": lambda: judge.load_suite("/nonexistent/suite/dir"),
        "wire_format": lambda: wire.decode({"$nope": 1}),
        "invalid_type": lambda: parse_type("List[int"),
        "scoring_error": lambda: parse_spec({"type": "deterministic", "dimensions": []}),
    }
    caught = {}
    for code, raise_it in raisers.items():
        try:
            raise_it()
        except JudgeError as exc:
            caught[code] = exc.code
    assert caught == {code: code for code in raisers}


def test_unknown_name_code_and_message():
    exc = UnknownName("importer", "humaneva", "humaneval", ["humaneval", "mbpp"])
    assert exc.code == "unknown_name"
    assert str(exc) == "unknown importer 'humaneva' (did you mean 'humaneval'?)"


def test_wire_codec_stays_standalone_inside_the_worker():
    """Inlined into the sandbox worker the codec imports nothing of the judge."""
    from judge.sandbox import wire

    namespace: dict[str, object] = {"__name__": "worker"}
    exec(compile(open(wire.__file__, encoding="utf-8").read(), "worker", "exec"), namespace)
    error = namespace["WireError"]
    assert isinstance(error, type) and not issubclass(error, JudgeError)
    assert issubclass(error, ValueError)


def test_every_public_error_sits_under_one_category():
    """Input (the caller's to fix), problem (never a candidate's verdict) or infrastructure
    (retryable, never the candidate's): each public error class is under exactly one."""
    from judge.errors import InfrastructureFault, InputFault, ProblemFault

    categories = (InputFault, ProblemFault, InfrastructureFault)
    for cls in CLASSES:
        if cls.__name__.startswith("_") or cls in categories or cls is JudgeError:
            continue
        under = [c.__name__ for c in categories if issubclass(cls, c)]
        assert len(under) == 1, "%s is under %s" % (_name(cls), under or "no category")
        assert cls.category == {"InputFault": "input", "ProblemFault": "problem",
                                "InfrastructureFault": "infrastructure"}[under[0]]
        assert cls.retryable is (under[0] == "InfrastructureFault"), _name(cls)
