"""``sandbox.server.server.app`` as SandboxFusion's tests import it: the judge's service app
(``judge.service.app.create_app``) with the server's defaults, in the sandbox named by
``JUDGE_FUSION_SANDBOX`` (process or docker). The tests use it through Starlette's
TestClient without its lifespan: the sandbox opens on the first request and is closed when
the test process exits."""

import atexit
import os

from judge.service.app import ServiceConfig, create_app

app = create_app(ServiceConfig(sandbox=os.environ.get("JUDGE_FUSION_SANDBOX", "process"),
                               jobs=int(os.environ.get("JUDGE_FUSION_JOBS", "2"))))


@atexit.register
def _close() -> None:
    app.app.state.service.close()  # the BodyLimit middleware wraps the FastAPI app
