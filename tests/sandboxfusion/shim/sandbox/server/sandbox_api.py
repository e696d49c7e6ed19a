"""``sandbox.server.sandbox_api`` as SandboxFusion's tests import it: the request and response
models of the judge's ``/run_code`` (SandboxFusion's fields and enum values)."""

from judge.service.fusion_models import RunCodeRequest, RunCodeResponse, RunStatus

__all__ = ["RunCodeRequest", "RunCodeResponse", "RunStatus"]
