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
    """Skip (or fail in CI) when the docker sandbox cannot run here. With an engine but a
    stale or missing image, build it (about 2 s once the base image is cached)."""
    try:
        from judge.sandbox import image

        if not image.engine_available():
            ready, reason = False, "no Docker engine answers"
        elif image.image_ready() is None:
            image.build_image(progress=lambda message: None)
            ready, reason = image.image_ready() is not None, "the sandbox image did not build"
        else:
            ready, reason = True, ""
    except Exception as exc:  # no SDK socket, a failed build: say why
        ready, reason = False, "docker sandbox unavailable: %s" % exc
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
