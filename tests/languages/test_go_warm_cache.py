"""go_test's warm build cache: vet's facts of testify and the standard library, computed once
(scripts/ensure-toolchains.sh on the host, sandboxes/native/Dockerfile in the image) and
copied as each go_test compile's own cache, so ``go test`` vets only the test's package. Read
without timing anything: ``go test -c -x`` lists every vet run, one with the warm cache, a
thousand lines of them without; and a compile in the sandbox goes on copying it (the
candidate's own copy)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from judge.languages.frameworks import GO_WARM_CACHE, WARM_GO_CACHE, GoTest

TEST = """package main

import (
\t"strings"
\t"testing"

\t"github.com/stretchr/testify/assert"
)

func Shout(s string) string { return strings.ToUpper(s) + "!" }

func TestShout(t *testing.T) { assert.Equal(t, "HI!", Shout("hi")) }
"""
ENV = {"GO111MODULE": "off", "GOPATH": "/usr/share/gocode", "CGO_ENABLED": "1", "GOFLAGS": "",
       "PATH": "/usr/local/bin:/usr/bin:/bin"}
#: what ``go test -c -x`` prints for each vet it runs
COUNT_VETS = "go test -c -x -o prog main_test.go 2>&1 | grep -c 'pkg/tool/.*/vet '"


def test_a_go_test_compile_starts_from_a_copy_of_the_warm_cache():
    build = GoTest().program_build({"main_test.go": TEST}, 256)
    assert build.compile[0] == WARM_GO_CACHE
    assert "cp -R %s .cache/go-build" % GO_WARM_CACHE in WARM_GO_CACHE[-1]
    assert build.compile[1][:3] == ["/usr/bin/go", "test", "-c"]


def _vets(tmp_path, cache: str | None) -> int:
    (tmp_path / "main_test.go").write_text(TEST)
    env = dict(ENV, HOME=str(tmp_path))
    if cache is not None:
        shutil.copytree(cache, tmp_path / ".cache" / "go-build")
    else:
        env["GOCACHE"] = str(tmp_path / "cold")
    done = subprocess.run(["/bin/sh", "-c", COUNT_VETS], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    return int(done.stdout.strip() or 0)


def test_on_the_host_the_warm_cache_leaves_only_the_tests_own_package_to_vet(tmp_path):
    if not (os.path.exists("/usr/bin/go")
            and os.path.isdir("/usr/share/gocode/src/github.com/stretchr/testify")):
        pytest.skip("go or testify not installed (scripts/ensure-toolchains.sh)")
    if not os.path.isdir(GO_WARM_CACHE) and os.geteuid() != 0:
        pytest.skip("scripts/ensure-toolchains.sh warms the cache when run as root only")
    assert os.path.isdir(GO_WARM_CACHE), "scripts/ensure-toolchains.sh did not warm it"
    assert os.stat(GO_WARM_CACHE).st_mode & 0o005 == 0o005  # candidates read it
    for name in ("warm", "cold"):
        (tmp_path / name).mkdir()
    assert _vets(tmp_path / "warm", GO_WARM_CACHE) == 1
    assert _vets(tmp_path / "cold", None) > 10


@pytest.mark.docker
def test_in_the_native_image_the_warm_cache_leaves_only_the_tests_own_package_to_vet():
    from tests.conftest import docker_or_skip

    docker_or_skip()
    from judge.sandbox.backends.docker import build, image as images

    client = images.get_client(timeout=60)
    try:
        tag = build.build_image("native", progress=lambda _: None, client=client)
        script = ("mkdir -p /tmp/w/.cache && cd /tmp/w && cp -R %s .cache/go-build && "
                  "cat > main_test.go && export HOME=/tmp/w GO111MODULE=off "
                  "GOPATH=/usr/share/gocode CGO_ENABLED=1 GOFLAGS= && %s" % (GO_WARM_CACHE,
                                                                           COUNT_VETS))
        done = subprocess.run(["docker", "run", "--rm", "-i", "--network", "none", "--user",
                               "10001", "--entrypoint", "/bin/sh", tag, "-c", script],
                              input=TEST, capture_output=True, text=True, timeout=600)
        assert done.stdout.strip() == "1", (done.stdout, done.stderr)
    finally:
        client.close()
