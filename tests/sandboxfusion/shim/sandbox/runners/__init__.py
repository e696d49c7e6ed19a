"""``sandbox.runners`` as SandboxFusion's tests import it: the judge's models."""

from judge.service.fusion_models import CommandRunResult, CommandRunStatus

__all__ = ["CommandRunResult", "CommandRunStatus"]
