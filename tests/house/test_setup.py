"""Set-up on every machine (issue 13 item 7) and honest tests (item 9), with real parts.

- The base image is chosen in order: JUDGE_BASE_IMAGE, a local base, the official image pulled
  when a registry answers (a silent registry is given up on quickly), the offline debootstrap
  build; `judge sandbox build` says one line per step tried.
- Expected failures of the CLI are a message and the documented exit status, never a Python
  traceback (0 ok, 1 invalid input, 2 usage, 3 sandbox unavailable).
- A skipped docker test is a failure where Docker is required, and so is "no tests collected"
  in scripts/test.sh.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest
from tests.conftest import docker_or_skip
import judge.settings
from tests.paths import ROOT


@pytest.fixture(autouse=True)
def _settings_read_again():
    """The judge reads its settings once (judge.settings): a test that sets a variable reads
    them again, and after it (once monkeypatch has put the environment back) so do we."""
    yield
    judge.settings.reload()




def judge_cli(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """The real command line in a child process (as a user runs it)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "judge", *args], cwd=ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def no_traceback(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr


def path_without(program: str) -> str:
    """$PATH minus every folder that holds ``program``."""
    return os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                           if d and not os.path.exists(os.path.join(d, program)))


class SilentRegistry:
    """A TCP server that accepts connections and never answers: a registry that hangs."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self.port = self._socket.getsockname()[1]
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._socket.accept()
            except OSError:
                return
            self.connections.append(conn)

    def close(self) -> None:
        self._socket.close()
        for conn in self.connections:
            conn.close()


# ---- no traceback for expected failures (no engine needed) -----------------------------------

def test_build_and_doctor_without_an_engine_exit_3_with_a_message():
    env = {"DOCKER_HOST": "unix:///nonexistent/judge-test-docker.sock"}
    build = judge_cli("sandbox", "build", env=env)
    no_traceback(build)
    assert build.returncode == 3, build.stderr
    assert "sandbox unavailable" in build.stderr and "ensure-docker.sh" in build.stderr
    doctor = judge_cli("sandbox", "doctor", env=env)
    no_traceback(doctor)
    assert doctor.returncode == 3 and "NOT AVAILABLE" in doctor.stdout
    run = judge_cli("run", "problems", "--solutions", "optimal", "--sandbox", "docker", env=env)
    no_traceback(run)
    assert run.returncode == 3 and "sandbox unavailable" in run.stderr


def test_missing_paths_are_invalid_input_not_tracebacks(tmp_path):
    cases = [
        ("run", str(tmp_path / "no-such-suite"), "--solutions", "optimal", "--sandbox", "process"),
        ("run", "problems", "--solutions", str(tmp_path / "none.jsonl"), "--sandbox", "process"),
        ("report", str(tmp_path / "no-results.jsonl")),
        ("validate", str(tmp_path / "no-such-problem.json")),
        ("prompts", str(tmp_path / "no-such-suite")),
    ]
    for args in cases:
        proc = judge_cli(*args)
        no_traceback(proc)
        assert proc.returncode == 1, (args, proc.returncode, proc.stderr)
        assert str(tmp_path) in proc.stderr, (args, proc.stderr)
    usage = judge_cli("run", "problems")  # --solutions missing
    no_traceback(usage)
    assert usage.returncode == 2


def test_unwritable_output_folder_is_a_message(tmp_path):
    """A missing folder of --output is made; one that cannot be (a file stands where the
    folder should be) is a message naming it and exit 1, never a traceback."""
    (tmp_path / "not-a-dir").write_text("a file\n")
    proc = judge_cli("run", "problems", "--solutions", "optimal", "--sandbox", "process",
                     "--jobs", "1", "--output", str(tmp_path / "not-a-dir" / "results.jsonl"))
    no_traceback(proc)
    assert proc.returncode == 1 and "not-a-dir" in proc.stderr, proc.stderr
    made = judge_cli("run", "problems/basics/basics_pascal_row.json", "--solutions", "optimal",
                     "--sandbox", "process", "--jobs", "1",
                     "--output", str(tmp_path / "missing-dir" / "results.jsonl"))
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "missing-dir" / "results.jsonl").read_text().count("\n") == 1


# ---- the base image order, against the real engine ---------------------------------------------

@pytest.fixture(scope="module")
def engine():
    docker_or_skip()  # builds the sandbox image (and its base) when missing
    from judge.sandbox.backends.docker import image

    client = image.get_client(timeout=120)
    yield client
    client.close()


@pytest.fixture
def test_tags(engine):
    """Image tags a test creates; removed afterwards (only these: the engine is shared)."""
    import docker.errors

    tags: list[str] = []
    yield tags
    for tag in reversed(tags):
        try:
            engine.images.remove(tag)
        except docker.errors.ImageNotFound:
            pass
        except docker.errors.APIError:
            pass  # in use by a tag created later in the same test and already gone: fine


@pytest.mark.docker
def test_judge_base_image_wins_and_the_image_is_built_from_it(engine, test_tags, monkeypatch):
    from judge.sandbox.backends.docker import build, image

    base = f"judge-setuptest-base:{uuid.uuid4().hex[:8]}"
    assert engine.images.get(image.base_tag()).tag(*base.split(":"))  # `docker tag`
    test_tags.append(base)
    repository = f"judge-setuptest-sandbox-{uuid.uuid4().hex[:6]}"
    monkeypatch.setenv("JUDGE_BASE_IMAGE", base)
    monkeypatch.setenv("JUDGE_OFFICIAL_BASE", "127.0.0.1:9/never-pulled:1")
    judge.settings.reload()
    lines: list[str] = []
    tag = build.build_image(progress=lines.append, repository=repository)
    test_tags.append(tag)
    steps = [line for line in lines if line.startswith("base ")]
    assert steps == [f"base 1. JUDGE_BASE_IMAGE={base}: present locally: using it"], lines
    assert not any("debootstrap" in line or "pull" in line for line in lines), lines
    labels = engine.images.get(tag).labels
    assert labels["org.judge.sandbox.base_image"] == base
    assert labels[image.LABEL_BASE_ID] == engine.images.get(base).id
    # built again with the same base: reused, nothing rebuilt
    lines.clear()
    assert build.build_image(progress=lines.append, repository=repository) == tag
    assert lines == [f"sandbox image {tag} is up to date (built from {base})"]


@pytest.mark.docker
def test_cli_build_with_judge_base_image_reuses_the_image_built_from_the_same_base(engine, test_tags):
    """`judge sandbox build` with JUDGE_BASE_IMAGE naming (a tag of) the base the current image
    was built from: up to date, exit 0, the tag on stdout."""
    from judge.sandbox.backends.docker import image

    current = image.image_ready()
    assert current
    built_from = engine.images.get(current).labels[image.LABEL_BASE_ID]
    alias = f"judge-setuptest-base:{uuid.uuid4().hex[:8]}"
    assert engine.images.get(built_from).tag(*alias.split(":"))
    test_tags.append(alias)
    proc = judge_cli("sandbox", "build", env={"JUDGE_BASE_IMAGE": alias})
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == current
    assert f"up to date (built from {alias})" in proc.stderr


@pytest.mark.docker
def test_local_base_comes_before_any_pull(engine, test_tags, monkeypatch):
    from judge.sandbox.backends.docker import build, image

    monkeypatch.delenv("JUDGE_BASE_IMAGE", raising=False)
    monkeypatch.setenv("JUDGE_OFFICIAL_BASE", "127.0.0.1:9/never-pulled:1")
    judge.settings.reload()
    lines: list[str] = []
    tag = build.build_image(progress=lines.append, force=True,
                            repository=f"judge-setuptest-sandbox-{uuid.uuid4().hex[:6]}")
    test_tags.append(tag)
    steps = [line for line in lines if line.startswith("base ")]
    assert steps == ["base 1. JUDGE_BASE_IMAGE: not set",
                     f"base 2. local base {image.base_tag()}: present: using it (skipping debootstrap)"], lines
    assert engine.images.get(tag).labels["org.judge.sandbox.base_image"] == image.base_tag()


@pytest.mark.docker
def test_a_silent_registry_is_given_up_quickly_then_debootstrap_is_tried(engine):
    """`judge sandbox build --rebuild-base` on a machine without debootstrap (PATH without it),
    whose registry accepts connections and never answers: four steps, one line each, exit 3
    with what to do, in seconds (the engine itself would wait ~25 s)."""
    registry = SilentRegistry()
    try:
        official = f"127.0.0.1:{registry.port}/python:3.11-slim"
        proc = judge_cli("sandbox", "build", "--rebuild-base",
                         env={"JUDGE_OFFICIAL_BASE": official, "JUDGE_PULL_TIMEOUT": "2",
                              "JUDGE_BASE_IMAGE": "", "PATH": path_without("debootstrap")})
        assert registry.connections, "the engine never tried the registry"
    finally:
        registry.close()
    no_traceback(proc)
    assert proc.returncode == 3, proc.stderr
    steps = [line for line in proc.stderr.splitlines() if line.startswith("base ")]
    assert steps == [
        "base 1. JUDGE_BASE_IMAGE: not set",
        "base 2. local base: skipped (--rebuild-base)",
        f"base 3. pull {official}: registry unreachable (no answer within 2 s)",
        "base 4. debootstrap build: cannot run: debootstrap is not installed "
        "(apt-get install debootstrap, or run scripts/ensure-docker.sh)",
    ], proc.stderr
    assert "cannot build the sandbox image" in proc.stderr and "JUDGE_BASE_IMAGE" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.docker
def test_a_missing_judge_base_image_is_an_error_not_a_fall_through(engine):
    missing = f"judge-setuptest-missing:{uuid.uuid4().hex[:8]}"
    proc = judge_cli("sandbox", "build", env={"JUDGE_BASE_IMAGE": missing, "JUDGE_PULL_TIMEOUT": "3"})
    no_traceback(proc)
    assert proc.returncode == 3, proc.stderr
    assert f"JUDGE_BASE_IMAGE={missing} is not a local image" in proc.stderr
    assert "base 2." not in proc.stderr  # an explicit choice that fails does not fall through
    bad = judge_cli("sandbox", "build", env={"JUDGE_BASE_IMAGE": "Not A Valid Name"})
    no_traceback(bad)
    assert bad.returncode == 3 and "not a valid image name" in bad.stderr


@pytest.mark.docker
def test_a_base_without_python_is_refused_with_the_reason(engine, test_tags, monkeypatch):
    """JUDGE_BASE_IMAGE naming an image without python3.11 fails its check, clearly."""
    import io
    import tarfile

    from judge.sandbox.backends.docker import build, image

    empty = f"judge-setuptest-nopython:{uuid.uuid4().hex[:8]}"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("README")
        data = b"no python here\n"
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    repo, version = empty.split(":")
    engine.api.import_image_from_data(buf.getvalue(), repository=repo, tag=version)
    test_tags.append(empty)
    monkeypatch.setenv("JUDGE_BASE_IMAGE", empty)
    judge.settings.reload()
    with pytest.raises(image.ImageBuildError, match="is not usable"):
        build.build_image(progress=lambda _: None, repository=f"judge-setuptest-sandbox-{uuid.uuid4().hex[:6]}")
    checks = engine.containers.list(all=True, filters={"label": f"{image.LABEL_SANDBOX}=base-check",
                                                       "ancestor": empty})
    assert checks == [], "the check container was left behind"


# ---- honest tests: skips of docker tests, pytest exit 5 ------------------------------------------

def _pytest_in(folder: Path, env: dict) -> tuple[subprocess.CompletedProcess, dict]:
    summary = folder / "summary.json"
    full_env = {k: v for k, v in os.environ.items() if k not in ("CI", "JUDGE_REQUIRE_DOCKER")}
    full_env.update(env, JUDGE_TEST_SUMMARY=str(summary))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(folder)],
                          cwd=folder, env=full_env, capture_output=True, text=True, timeout=120)
    return proc, json.loads(summary.read_text())


@pytest.fixture
def skipping_suite(tmp_path):
    """Our conftest beside one docker test that skips and one ordinary test that skips."""
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    docker: needs docker\n")
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.docker\n"
        "def test_needs_docker():\n    pytest.skip('pretend the engine is gone')\n\n"
        "@pytest.mark.docker\n"
        "def test_docker_passes():\n    pass\n\n"
        "def test_other_skip():\n    pytest.skip('not a docker test')\n")
    return tmp_path


def test_a_skipped_docker_test_passes_only_where_docker_is_not_required(skipping_suite):
    proc, summary = _pytest_in(skipping_suite, {})
    assert proc.returncode == 0, proc.stdout
    assert "SKIPPED" in proc.stdout and "pretend the engine is gone" in proc.stdout  # -rs
    assert summary["docker"] == {"passed": 1, "failed": 0, "skipped": 1}
    for env in ({"JUDGE_REQUIRE_DOCKER": "1"}, {"CI": "true"}):
        proc, summary = _pytest_in(skipping_suite, env)
        assert proc.returncode == 1, (env, proc.stdout)
        assert "docker test skipped, but Docker tests are required" in proc.stdout
        assert "pretend the engine is gone" in proc.stdout
        assert "1 failed, 1 passed, 1 skipped" in proc.stdout  # the ordinary skip stays a skip
        assert summary["docker_skipped"] == ["test_skips.py::test_needs_docker"]
        assert summary["require_docker"] is True


# scripts/test.sh's own rule ("no tests collected" is a failure) is checked by its 'self' lane,
# outside the suite: running test.sh from inside a test ran the whole set-up a second time.
