"""Errors about the user's input: every one names the file and the line or JSON location.

Design principle 8: bad input gets a clear error and loses nothing. Loaders collect *every*
problem they find as an ``Issue`` and raise one ``InputError`` holding them all.
"""

from __future__ import annotations

from dataclasses import dataclass


class JudgeError(Exception):
    """The root of every error the judge raises on purpose. Each class has a stable
    ``code`` (like pydantic's error codes) that scripts and the HTTP service may rely on,
    and sits under one of three categories: :class:`InputFault` (what was given is wrong),
    :class:`ProblemFault` (a problem cannot be judged as it is) and
    :class:`InfrastructureFault` (the judge's environment failed: retryable, never the
    candidate's)."""

    code = "judge_error"
    #: "input", "problem" or "infrastructure" (the category's)
    category = ""
    #: trying again may help (infrastructure), and a trainer must not score it
    retryable = False


class InputFault(JudgeError):
    """The category of errors about what was given (a file, a request, a name, a setting):
    the caller's to fix; the same input fails the same way."""

    code = "input_fault"
    category = "input"


class ProblemFault(JudgeError):
    """The category of errors about a problem that cannot be judged as it is (no tests, a
    type a language cannot state): the problem's author's to fix, never a candidate's
    verdict."""

    code = "problem_fault"
    category = "problem"


class InfrastructureFault(JudgeError):
    """The category of errors of the judge's environment (a sandbox, an engine, a worker, a
    service, an LLM endpoint): retryable, never the candidate's fault, never a score."""

    code = "infrastructure_fault"
    category = "infrastructure"
    retryable = True


class UnknownName(InputFault, ValueError, LookupError):
    """A name no registry knows: ``unknown language 'pyhton' (did you mean 'python'?)``."""

    code = "unknown_name"

    def __init__(self, kind: str, name: str, suggestion: str | None = None,
                 known: list[str] | None = None) -> None:
        self.kind, self.name, self.suggestion = kind, name, suggestion
        self.known = list(known or [])
        message = "unknown %s %r" % (kind, name)
        if suggestion:
            message += " (did you mean %r?)" % suggestion
        elif self.known:
            message += " (choose from %s)" % ", ".join(self.known)
        super().__init__(message)


class RegistryLoadError(InputFault, ImportError):
    """A registered name whose implementation cannot be imported (a broken or half-installed
    package's entry point): ``cannot load importer 'x' from 'pkg.mod:X': No module named ...``."""

    code = "registry_load_failed"

    def __init__(self, kind: str, entry: str, target: str, reason: BaseException) -> None:
        super().__init__("cannot load %s %r from %r: %s" % (kind, entry, target, reason))
        self.kind, self.entry, self.target = kind, entry, target
        if isinstance(reason, ImportError):  # the missing module, as ImportError says it
            self.name, self.path = reason.name, reason.path


class ServiceError(InputFault):
    """The judge service refused a request (a 4xx status: the caller's mistake, so retrying
    the same request cannot help): ``status``, ``message`` and the ``field`` it is about."""

    code = "service_error"

    def __init__(self, status: int, message: str, field: str | None = None,
                 body: object = None) -> None:
        super().__init__("HTTP %d: %s%s" % (status, message, " (%s)" % field if field else ""))
        self.status, self.message, self.field, self.body = status, message, field, body


class ServiceUnavailable(InfrastructureFault, ConnectionError):
    """The judge service cannot be reached (connection refused, timed out), or kept
    answering 429 / 503 after the client's retries. Infrastructure, never the candidate's
    fault: a caller must not score it."""

    code = "service_unavailable"

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Issue:
    """One thing wrong with an input file."""

    file: str
    message: str
    location: str = ""  # a JSON location such as correctness_test_suite[2].input.nums
    line: int | None = None

    def __str__(self) -> str:
        if not self.file:
            return self.message
        where = self.file
        if self.line is not None:
            where += ":%d" % self.line
        if self.location:
            where += ": %s" % self.location
        return "%s: %s" % (where, self.message)


class InputError(InputFault, ValueError):
    """One or more issues with the user's input files (exit status 1).

    Takes the issues, or one message that already names its file and location."""

    code = "invalid_input"

    def __init__(self, issues: list[Issue] | str) -> None:
        self.issues = [Issue("", issues)] if isinstance(issues, str) else list(issues)
        super().__init__("\n".join(str(issue) for issue in self.issues))


def json_location(parts: tuple[object, ...] | list[object]) -> str:
    """('correctness_test_suite', 2, 'input') -> 'correctness_test_suite[2].input'."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += "[%d]" % part
        else:
            text += ("." if text else "") + str(part)
    return text
