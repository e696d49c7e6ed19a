"""SandboxFusion's import paths over the judge, for SandboxFusion's own runner tests only
(tests/sandboxfusion/upstream): ``sandbox.server.server.app`` is the judge's service app,
``sandbox.server.sandbox_api`` and ``sandbox.runners`` its SandboxFusion models. On
``sys.path`` only in that test run."""
