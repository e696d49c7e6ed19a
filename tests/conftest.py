"""Shared fixtures: the sandboxes under test.

``sandbox_factory`` is parametrized over the process sandbox and the docker sandbox. Docker
tests are skipped when no engine answers, unless ``JUDGE_REQUIRE_DOCKER=1`` (CI sets it),
in which case a missing engine is a failure.
"""

from __future__ import annotations

import os

import pytest

REQUIRE_DOCKER = os.environ.get("JUDGE_REQUIRE_DOCKER") == "1"


def docker_or_skip() -> None:
    """Skip (or fail in CI) when the docker sandbox cannot run here."""
    try:
        from judge.sandbox import image
        ready = image.engine_available() and image.image_ready() is not None
        reason = "no Docker engine answers" if not image.engine_available() else \
            "the sandbox image is not built (judge sandbox build)"
    except Exception as exc:  # the docker SDK cannot even talk to a socket
        ready, reason = False, str(exc)
    if not ready:
        if REQUIRE_DOCKER:
            pytest.fail("JUDGE_REQUIRE_DOCKER=1 but " + reason)
        pytest.skip(reason)


@pytest.fixture(scope="module", params=["process", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox_factory(request):
    """A callable building a fresh sandbox of the parametrized kind (size 1)."""
    if request.param == "docker":
        docker_or_skip()

        def make(limits=None):
            from judge.sandbox.docker import DockerSandbox

            return DockerSandbox(size=1)
    else:
        def make(limits=None):
            from judge.sandbox.process import ProcessSandbox

            return ProcessSandbox(size=1)
    return make
