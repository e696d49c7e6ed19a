"""SandboxFusion's ``fetch_files`` on ``/run_code``, through the real ``sandbox-fusion``
client against a real ``judge serve``, in both sandboxes: the files a program left in its
work directory come back (base64) under the names asked; a file it did not leave, a path
outside the work directory, a link the program made to a file or folder of the machine's,
and a FIFO never do (nothing outside the work directory is ever read); files together past
the output limit come back as none."""

from __future__ import annotations

import base64

import pytest

from tests.service.test_service_fusion import Server, call

PROGRAM = r"""
import os
os.makedirs("out/deep", exist_ok=True)
open("a.txt", "w").write("secret")
open("out/deep/b.bin", "wb").write(bytes(range(256)))
os.symlink("/etc/passwd", "passwd-link")
os.symlink("/etc", "etc-link")
os.mkfifo("fifo")
print("done")
"""


@pytest.fixture(scope="module", params=["process", pytest.param("docker", marks=pytest.mark.docker)])
def server(request):
    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    srv = Server.start(["--sandbox", request.param, "--jobs", "2", "--queue", "16"])
    yield srv
    srv.stop()


def test_fetch_files_bring_back_what_the_program_left(server):
    asked = ["a.txt", "out/deep/b.bin", "missing.txt", "/etc/hostname", "../x",
             "passwd-link", "etc-link/passwd", "fifo", "./a.txt"]
    result = call(server, code=PROGRAM, fetch_files=asked)
    assert result.status.value == "Success" and result.run_result.stdout == "done\n", result
    got = {name: base64.b64decode(data) for name, data in result.files.items()}
    assert got == {"a.txt": b"secret", "out/deep/b.bin": bytes(range(256)),
                   "./a.txt": b"secret"}, sorted(got)


def test_fetch_files_are_bounded(server):
    big = "for i in range(4): open('big%d' % i, 'w').write('x' * (3 << 20))\nprint('ok')"
    result = call(server, code=big, fetch_files=["big0", "big1", "big2", "big3"])
    assert result.run_result.stdout == "ok\n" and result.files == {}, result.message
