"""judge: a sandboxed judge for LLM-generated code and answers.

The public API (everything else is internal and may move)::

    import judge
    suite = judge.load_suite("problems/basics")
    with judge.Judge(sandbox="process", jobs=2) as j:
        r = j.judge(suite["basics_digital_root"], code)
        r.verdict, r.passed, r.total, r.tests, r.to_dict()

Names are loaded on first use, so ``import judge`` stays cheap (and a sandbox back end
importing ``judge.sandbox`` does not pull in pydantic or jinja2 through here).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Refused": "judge.problem.package_files",
    "LeaseLost": "judge.distribution.ray_actor",
    "Judge": "judge.api",
    "make_limits": "judge.api",
    "Problem": "judge.problem.model",
    "Suite": "judge.problem.model",
    "load_problem": "judge.kinds.loader",
    "load_suite": "judge.kinds.loader",
    "NoTests": "judge.problem.model",
    "Limits": "judge.sandbox.base",
    "SandboxUnavailable": "judge.sandbox.base",
    "Verdict": "judge.engine.verdicts",
    "CandidateResult": "judge.engine.verdicts",
    "TestResult": "judge.engine.verdicts",
    "InputError": "judge.errors",
    "InputFault": "judge.errors",
    "ProblemFault": "judge.errors",
    "InfrastructureFault": "judge.errors",
    "RecordError": "judge.importers.datasets",
    "Issue": "judge.errors",
    "grade_proof": "judge.grading.proofs.api",
    # the exception tree: every error the judge raises on purpose is a JudgeError with a
    # stable ``code`` (tests/house/test_errors.py checks that each one is listed here)
    "JudgeError": "judge.errors",
    "UnknownName": "judge.errors",
    "RegistryLoadError": "judge.errors",
    "InvalidSetting": "judge.settings",
    "TransportError": "judge.sandbox.base",
    "MalformedLine": "judge.sandbox.base",
    "TransportTimeout": "judge.sandbox.base",
    "EngineUnavailable": "judge.sandbox.backends.docker.image",
    "ImageBuildError": "judge.sandbox.backends.docker.image",
    "WireError": "judge.sandbox.wire",
    "TypeParseError": "judge.problem.types",
    "ValueTypeError": "judge.problem.types",
    "NotExpressible": "judge.languages.base",
    "ScoringError": "judge.scoring.primitives",
    "UndefinedMetric": "judge.scoring.agreement",
    "UnknownTaskError": "judge.scoring.math_answers",
    "ReferenceFormatError": "judge.scoring.reference_match",
    "LLMError": "judge.grading.client",
    "LLMConfigError": "judge.grading.client",
    "LLMUnavailableError": "judge.grading.client",
    "LLMResponseError": "judge.grading.client",
    "LLMCacheError": "judge.grading.client",
    "StepError": "judge.grading.proofs.engine",
    "ReplyInvalid": "judge.grading.proofs.schemas",
    "ApiError": "judge.service.app",
    "LoosenedLimit": "judge.service.limits",
    "QueueFull": "judge.service.scheduler",
    "ServiceError": "judge.errors",
    "ServiceUnavailable": "judge.errors",
    "ConversionFailed": "judge.importers.sandboxed",
    "NotJudged": "judge.integrations.common",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError("module 'judge' has no attribute %r" % name)
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
