"""SandboxFusion (and its fork ScaleBox) built from their public source, run unprivileged on
127.0.0.1, for the benchmarks that put `judge serve` beside them.

``build(PATH)`` copies a checkout into ``~/.cache/judge-bench/<kind>-<hash>/src`` (the hash is
of the checkout's files and this machine's Python), makes a virtual environment for the
server with the dependencies its ``pyproject.toml`` pins (Poetry's ``^`` ranges turned into
pip's), installs a dependency of its dev group or ``transformers`` only when the server's
import asks for it, and lays out what SandboxFusion expects of a conda installation:

- ``envs/sandbox``: the server's environment (its README: ``conda create -n sandbox``);
- ``envs/sandbox-runtime``: the Python that runs candidates (SandboxFusion's Python runner
  asks ``source <conda root>/bin/activate sandbox-runtime && which python``; its Docker image
  makes that env with ``runtime/python/install-python-runtime.sh``: here a plain virtual
  environment of this machine's Python, no packages, as the judge's candidates get);
- ``condabin/`` and ``bin/activate``: what ``find_conda_root`` looks for and a stand-in
  ``activate`` that puts ``envs/<name>/bin`` first on PATH;
- ``src/docs/build``: the folder its app mounts (the README's ``mkdir -p docs/build``).

Its shipped configuration is used unchanged (``sandbox/configs/local.yaml``: ``isolation:
none``, so no overlayfs, cgroups, network namespace or chroot, which need privileges). The
server is started as its README/Makefile does (``uvicorn sandbox.server.server:app``;
ScaleBox's ``make run-online`` adds ``--workers N --loop asyncio``), in a process group of its
own, and is checked with one ``/run_code`` before it counts as built (``.ready``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(os.environ.get("JUDGE_BENCH_CACHE", Path.home() / ".cache" / "judge-bench"))
SKIP_COPY = {".git", "node_modules", "docs", "__pycache__", ".idea"}
ACTIVATE = """# stand-in for conda's activate (judge benchmarks): `source activate NAME`
_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_name="${1:-sandbox}"
if [ -d "$_root/envs/$_name/bin" ]; then
    export PATH="$_root/envs/$_name/bin:$PATH"
    export CONDA_DEFAULT_ENV="$_name"
else
    echo "no environment $_name under $_root/envs" >&2
    return 1 2>/dev/null || exit 1
fi
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---- Poetry's pins as pip requirements ----------------------------------------------------

def _caret(version: str) -> str:
    """Poetry's ``^X.Y.Z`` as pip's ``>=X.Y.Z,<next`` (the first non-zero part bumped)."""
    parts = [int(p) for p in re.findall(r"\d+", version)]
    upper = list(parts)
    for index, part in enumerate(parts):
        if part != 0 or index == len(parts) - 1:
            upper = parts[:index] + [part + 1]
            break
    return ">=%s,<%s" % (version, ".".join(map(str, upper)))


def _spec(version: str) -> str:
    version = version.strip()
    if version.startswith("^"):
        return _caret(version[1:])
    if version.startswith("~") and not version.startswith("~="):
        parts = version[1:].split(".")
        upper = [parts[0], str(int(parts[1]) + 1)] if len(parts) > 1 else [str(int(parts[0]) + 1)]
        return ">=%s,<%s" % (version[1:], ".".join(upper))
    if version == "*":
        return ""
    if version[0].isdigit():
        return "==" + version
    return version


def requirements(source: Path) -> dict[str, str]:
    """{distribution name (lower case): pip requirement} of the main and dev groups."""
    data = tomllib.loads((source / "pyproject.toml").read_text())
    poetry = data["tool"]["poetry"]
    groups = [poetry.get("dependencies", {})]
    groups += [g.get("dependencies", {}) for g in poetry.get("group", {}).values()]
    found: dict[str, str] = {}
    for group in groups:
        for name, value in group.items():
            if name.lower() == "python" or name.lower() in found:
                continue
            if isinstance(value, str):
                extras, version = [], value
            else:
                extras, version = value.get("extras", []), value.get("version", "*")
            found[name.lower()] = "%s%s%s" % (name, "[%s]" % ",".join(extras) if extras else "",
                                              _spec(version))
    return found


def main_requirements(source: Path) -> list[str]:
    poetry = tomllib.loads((source / "pyproject.toml").read_text())["tool"]["poetry"]
    names = [n.lower() for n in poetry.get("dependencies", {}) if n.lower() != "python"]
    every = requirements(source)
    # transformers (a tokenizer for one dataset, and 1 GB of wheels with its dependencies)
    # only if the server's import needs it: see build()
    return [every[n] for n in names if n != "transformers"]


# ---- the build ----------------------------------------------------------------------------

def digest(source: Path) -> str:
    """A hash of the checkout's files (not .git, not docs) and this machine's Python."""
    sha = hashlib.sha256(("%d.%d" % sys.version_info[:2]).encode())
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if set(relative.parts) & SKIP_COPY or not path.is_file():
            continue
        sha.update(str(relative).encode() + b"\0")
        sha.update(hashlib.sha256(path.read_bytes()).digest())
    return sha.hexdigest()[:12]


@dataclass
class Built:
    kind: str          # "sandboxfusion" or "scalebox"
    root: Path         # the stand-in conda root
    src: Path          # the copied checkout: the server's working directory

    @property
    def python(self) -> Path:
        return self.root / "envs" / "sandbox" / "bin" / "python"


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def _pip(python: Path, packages: list[str]) -> None:
    log("  pip install %s" % " ".join(packages))
    try:
        _run([str(python), "-m", "pip", "install", "-q", *packages], timeout=1800)
    except subprocess.CalledProcessError as exc:
        raise RuntimeError("pip install failed:\n%s" % exc.stderr[-3000:]) from None


def _missing_module(built: Built) -> str | None:
    """The module the server's import misses, or None when it imports."""
    result = subprocess.run([str(built.python), "-c", "import sandbox.server.server"],
                            cwd=built.src, capture_output=True, text=True, timeout=600,
                            env=server_env(built))
    if result.returncode == 0:
        return None
    match = re.search(r"No module named '([\w.]+)'", result.stderr)
    if not match:
        raise RuntimeError("the server does not import:\n%s" % result.stderr[-3000:])
    return match.group(1).split(".")[0]


MODULE_TO_DISTRIBUTION = {"yaml": "pyyaml", "sklearn": "scikit-learn"}


def build(source: Path, kind: str | None = None) -> Built:
    """SandboxFusion (or ScaleBox) from the checkout ``source``, cached; see the module doc."""
    source = source.resolve()
    if not (source / "sandbox" / "server" / "server.py").is_file():
        raise SystemExit("%s is not a SandboxFusion checkout (no sandbox/server/server.py)"
                         % source)
    if kind is None:
        kind = ("scalebox" if "common_evaluate_batch" in
                (source / "sandbox" / "server" / "online_judge_api.py").read_text()
                else "sandboxfusion")
    root = CACHE / ("%s-%s" % (kind, digest(source)))
    built = Built(kind, root, root / "src")
    if (root / ".ready").is_file():
        return built
    log("building %s from %s into %s" % (kind, source, root))
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    shutil.copytree(source, built.src, ignore=lambda _d, names: [n for n in names
                                                                  if n in SKIP_COPY])
    (built.src / "docs" / "build").mkdir(parents=True, exist_ok=True)
    (root / "condabin").mkdir()
    (root / "bin").mkdir()
    (root / "bin" / "activate").write_text(ACTIVATE)
    (root / "envs").mkdir()
    _run([sys.executable, "-m", "venv", str(root / "envs" / "sandbox")])
    _run([sys.executable, "-m", "venv", "--without-pip", str(root / "envs" / "sandbox-runtime")])
    _pip(built.python, main_requirements(source))
    every = requirements(source)
    for _ in range(6):  # what the import still misses, from the pinned groups
        missing = _missing_module(built)
        if missing is None:
            break
        name = MODULE_TO_DISTRIBUTION.get(missing, missing).lower()
        if name not in every:
            raise RuntimeError("the server needs %r, which %s's pyproject.toml does not pin"
                               % (missing, kind))
        _pip(built.python, [every[name]])
    else:
        raise RuntimeError("the server still does not import")
    server = PeerServer.start(built)
    try:
        answer = server.run_code("print(6 * 7)")
    finally:
        server.stop()
    if answer.get("status") != "Success" or answer["run_result"]["stdout"] != "42\n":
        raise RuntimeError("%s's /run_code does not run Python: %s" % (kind, answer))
    (root / ".ready").write_text(json.dumps({"source": str(source), "kind": kind}))
    log("built %s; /run_code answers" % kind)
    return built


# ---- the server ---------------------------------------------------------------------------

def server_env(built: Built) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = "%s:%s" % (built.python.parent, env.get("PATH", ""))
    env.pop("SANDBOX_CONFIG", None)  # its shipped local.yaml
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def post_json(url: str, body: dict, timeout: float = 30.0) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


@dataclass
class PeerServer:
    built: Built
    process: subprocess.Popen
    url: str
    log_path: Path

    @classmethod
    def start(cls, built: Built, workers: int | None = None,
              timeout: float = 180.0) -> "PeerServer":
        """``uvicorn sandbox.server.server:app`` on a free 127.0.0.1 port (ScaleBox: with
        ``--workers N --loop asyncio``, as its ``make run-online``)."""
        port = free_port()
        command = [str(built.python), "-m", "uvicorn", "sandbox.server.server:app",
                   "--host", "127.0.0.1", "--port", str(port)]
        if built.kind == "scalebox":
            command += ["--workers", str(workers or os.cpu_count() or 1), "--loop", "asyncio"]
        log_path = Path(tempfile.mkstemp(prefix="%s-" % built.kind, suffix=".log")[1])
        with open(log_path, "w") as handle:
            process = subprocess.Popen(command, cwd=built.src, stdout=handle, stderr=handle,
                                       stdin=subprocess.DEVNULL, env=server_env(built),
                                       start_new_session=True)
        server = cls(built, process, "http://127.0.0.1:%d" % port, log_path)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                text = log_path.read_text()
                raise RuntimeError("%s exited (%s):\n%s" % (built.kind, process.returncode,
                                                            text[-3000:]))
            try:
                with urllib.request.urlopen(server.url + "/v1/ping", timeout=5) as response:
                    if response.status == 200:
                        return server
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.3)
        server.stop()
        raise RuntimeError("%s did not answer /v1/ping in %.0f s" % (built.kind, timeout))

    def run_code(self, code: str, stdin: str = "") -> dict:
        return post_json(self.url + "/run_code", {"code": code, "stdin": stdin,
                                                   "language": "python", "run_timeout": 5})

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM to the server's process group (it and the programs it runs), then
        SIGKILL if it is still there after ``timeout`` s."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # stragglers of its group
        except (ProcessLookupError, PermissionError):
            pass
        code = self.process.wait()
        self.log_path.unlink(missing_ok=True)
        return code


if __name__ == "__main__":  # build (and check) a peer: python benchmarks/peers.py PATH
    for argument in sys.argv[1:]:
        print(build(Path(argument)).root)
