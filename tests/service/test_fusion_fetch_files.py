"""SandboxFusion's ``fetch_files`` on ``/run_code``, through the real ``sandbox-fusion``
client against a real ``judge serve``, in both sandboxes: the files a program left in its
work directory come back (base64) under the names asked, and so do the files it wrote in
the sandbox's private folders (/mnt, /tmp: SandboxFusion's own ``test_python_fetch_files``
writes /mnt/b), which are the run's own: the next run finds them empty. A file it did not
leave, any other path, a link the program made to a file or folder of the machine's, and a
FIFO never come back (nothing else is ever read); files together past the output limit come
back as none."""

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


PRIVATE = r"""
import os
open("/mnt/b", "w").write("sauce")
os.makedirs("/mnt/deep", exist_ok=True)
open("/mnt/deep/c", "w").write("deep")
open("/tmp/t.txt", "w").write("tmp")
os.symlink("/etc/passwd", "/mnt/passwd-link")
os.symlink("/etc", "/tmp/etc-link")
print("done")
"""


def test_fetch_files_bring_back_the_runs_private_folders(server):
    asked = ["/mnt/b", "/mnt/deep/c", "/tmp/t.txt", "/mnt/passwd-link",
             "/tmp/etc-link/passwd", "/mnt/../etc/passwd", "/etc/passwd", "/proc/self/environ",
             "/mnt/", "/mnt"]
    result = call(server, code=PRIVATE, fetch_files=asked)
    assert result.status.value == "Success" and result.run_result.stdout == "done\n", result
    got = {name: base64.b64decode(data) for name, data in result.files.items()}
    assert got == {"/mnt/b": b"sauce", "/mnt/deep/c": b"deep", "/tmp/t.txt": b"tmp"}, \
        sorted(got)


def test_the_private_folders_are_empty_for_the_next_run(server):
    call(server, code="open('/mnt/left', 'w').write('x'); print('ok')", fetch_files=[])
    probe = ("import os; print(sorted(os.listdir('/mnt')), "
             "[n for n in os.listdir('/tmp') if n == 'left'])")
    for _ in range(3):  # whichever worker the next runs land on
        result = call(server, code=probe, fetch_files=["/mnt/left"])
        assert result.run_result.stdout == "[] []\n" and result.files == {}, result
