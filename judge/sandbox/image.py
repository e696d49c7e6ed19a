"""Sandbox images and the Docker engine: build, doctor, gc.

The sandbox image is built without any registry:

1. A *base* image: a minimal Debian root file system with python3, made by
   ``debootstrap --variant=minbase`` from the machine's configured Debian mirror and
   ``docker import``ed as ``judge-base-<language>:<recipe hash>``. The recipe is
   ``sandboxes/<language>/base.json``; a base with the same recipe hash is reused.
2. The *sandbox* image, ``judge-sandbox-<language>:<definition hash>``, from
   ``sandboxes/<language>/Dockerfile`` with ``runners/<language>/`` copied to
   ``/opt/judge/runner/``. The tag is a content hash of both folders and the base recipe, so a
   changed definition means a new tag and ``image_ready()`` reports the old one as stale.

Everything here is a plain function the CLI (``judge sandbox build|doctor|gc``) calls:
``build_image``, ``doctor``, ``gc``, ``engine_available``, ``image_ready``.
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import io
import json
import os
import re
import shutil
import socket
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable

import psutil

from judge.resources import resource_root, runner_dir, sandbox_dir

# ---------------------------------------------------------------------------- labels & names
LABEL_SANDBOX = "org.judge.sandbox"        # language, on images and containers
LABEL_RUN = "org.judge.run"                # run id, on every container a run starts
LABEL_PID = "org.judge.pid"                # pid of the judge process that owns the container
LABEL_PID_START = "org.judge.pid_start"    # its start time (guards against pid reuse)
LABEL_HOST = "org.judge.host"              # hostname of the judge process
LABEL_DEFINITION = "org.judge.definition"  # definition hash, on sandbox images
LABEL_BASE = "org.judge.base"              # base recipe hash, on base images
LABEL_BASE_ID = "org.judge.sandbox.base_id"  # image id of the base a sandbox image was built from

HASH_LEN = 12
DEFAULT_MIRROR = "http://deb.debian.org/debian"
# bump when the way the base is built (not the recipe) changes
_BASE_BUILDER_VERSION = "1"

Progress = Callable[[str], None]


class EngineUnavailable(RuntimeError):
    """No Docker engine answers (or the docker SDK is missing)."""


class ImageBuildError(RuntimeError):
    """The base or sandbox image could not be built; the message says why and what to do."""


def _quiet(_msg: str) -> None:
    pass


# ---------------------------------------------------------------------------- resources


def _skip(rel: Path) -> bool:
    parts = rel.parts
    return any(p == "__pycache__" or p.startswith(".") for p in parts) or rel.suffix in (".pyc", ".pyo")


def _tree_files(root: Path) -> dict[str, bytes]:
    """Relative path -> content for every file under root (sorted, no caches/hidden files)."""
    files: dict[str, bytes] = {}
    if not root.is_dir():
        return files
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not _skip(rel):
            files[rel.as_posix()] = path.read_bytes()
    return files


def _render_template(language: str, name: str, source: bytes) -> tuple[str, bytes]:
    """A runner template (``*.j2``) rendered the way the judge renders it for the process
    sandbox, so the image carries exactly the worker the process sandbox runs."""
    target = name[:-3]
    if language == "python" and target == "worker.py":
        try:
            from judge.sandbox.harness import render_worker  # noqa: PLC0415
        except ImportError as exc:
            raise ImageBuildError(f"cannot render runners/{language}/{name}: {exc}") from None
        return target, render_worker(language).encode()
    raise ImageBuildError(f"do not know how to render runners/{language}/{name}")


def runner_files(language: str = "python") -> dict[str, bytes]:
    """The files that go to /opt/judge/runner/ in the image (templates rendered). Their
    content, not the raw templates, enters the definition hash, so a change of anything
    inlined into the worker (the wire codec) also makes a new image tag."""
    files: dict[str, bytes] = {}
    for name, data in _tree_files(runner_dir(language)).items():
        if name.endswith(".j2"):
            name, data = _render_template(language, name, data)
        files[name] = data
    if not files:
        raise ImageBuildError(f"runners/{language}/ is empty or missing: nothing to put in the image")
    return files


def base_recipe(language: str = "python") -> dict:
    path = sandbox_dir(language) / "base.json"
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ImageBuildError(f"missing base recipe {path}") from None
    except json.JSONDecodeError as exc:
        raise ImageBuildError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def _digest(chunks: Iterable[bytes]) -> str:
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(len(chunk).to_bytes(8, "big"))
        h.update(chunk)
    return h.hexdigest()[:HASH_LEN]


def base_recipe_hash(language: str = "python") -> str:
    recipe = base_recipe(language)
    recipe.pop("comment", None)
    recipe.pop("official", None)  # which image to pull instead: not part of the debootstrap recipe
    blob = json.dumps(recipe, sort_keys=True, separators=(",", ":")).encode()
    return _digest([b"base", _BASE_BUILDER_VERSION.encode(), language.encode(), blob])


def definition_hash(language: str = "python") -> str:
    """Content hash of sandboxes/<language>/ + runners/<language>/ + the base recipe."""
    chunks = [b"sandbox", language.encode(), base_recipe_hash(language).encode()]
    for prefix, files in (("sandbox/", _tree_files(sandbox_dir(language))),
                          ("runner/", runner_files(language))):
        for name, content in files.items():
            chunks += [(prefix + name).encode(), content]
    return _digest(chunks)


def image_repository(language: str = "python") -> str:
    return f"judge-sandbox-{language}"


def base_repository(language: str = "python") -> str:
    return f"judge-base-{language}"


def image_tag(language: str = "python") -> str:
    """The tag the current definition needs, e.g. ``judge-sandbox-python:3f2a9c0b1d4e``."""
    return f"{image_repository(language)}:{definition_hash(language)}"


def base_tag(language: str = "python") -> str:
    return f"{base_repository(language)}:{base_recipe_hash(language)}"


# ---------------------------------------------------------------------------- engine
def get_client(timeout: float = 30.0, **kwargs):
    """A docker SDK client (API version negotiated with the daemon, ``DOCKER_HOST`` etc.
    honoured; ``kwargs`` go to ``docker.from_env``); raises EngineUnavailable."""
    try:
        import docker  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover - docker is a dependency
        raise EngineUnavailable(f"the docker Python package is not installed ({exc})") from None
    try:
        client = docker.from_env(timeout=timeout, **kwargs)
        client.ping()
        return client
    except Exception as exc:  # noqa: BLE001 - any failure means "no engine"
        raise EngineUnavailable(f"no Docker engine answers ({_short(exc)})") from None


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) < 300 else text[:300] + "..."


def engine_available(timeout: float = 2.0) -> bool:
    """True when a Docker engine answers a ping within ``timeout`` seconds."""
    try:
        client = get_client(timeout=timeout)
    except EngineUnavailable:
        return False
    client.close()
    return True


def _image_exists(client, tag: str) -> bool:
    import docker.errors  # noqa: PLC0415

    try:
        client.images.get(tag)
        return True
    except docker.errors.ImageNotFound:
        return False
    except docker.errors.APIError as exc:
        if exc.status_code == 400:  # not a valid image reference
            raise ImageBuildError(f"{tag!r} is not a valid image name: {_short(exc.explanation or exc)}") from None
        raise


def image_ready(language: str = "python", client=None) -> str | None:
    """The tag of the image the current definition needs if it is built, else None
    (also None when no engine answers)."""
    try:
        tag = image_tag(language)
    except (FileNotFoundError, ImageBuildError):
        return None
    own = client is None
    try:
        if own:
            client = get_client(timeout=5)
        return tag if _image_exists(client, tag) else None
    except EngineUnavailable:
        return None
    finally:
        if own and client is not None:
            client.close()


# ---------------------------------------------------------------------------- base image
def debian_mirror() -> str:
    """The machine's configured Debian mirror (env JUDGE_DEBIAN_MIRROR wins)."""
    if os.environ.get("JUDGE_DEBIAN_MIRROR"):
        return os.environ["JUDGE_DEBIAN_MIRROR"]
    sources = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*.list")),
               *sorted(Path("/etc/apt/sources.list.d").glob("*.sources"))]
    for path in sources:
        try:
            text = path.read_text()
        except OSError:
            continue
        if path.suffix == ".sources":  # deb822 stanzas
            for stanza in re.split(r"\n\s*\n", text):
                fields = dict(re.findall(r"^([A-Za-z-]+):\s*(.*)$", stanza, re.M))
                if "deb" not in fields.get("Types", "").split():
                    continue
                if "main" in fields.get("Components", "").split() and re.search(
                        r"\b(bookworm|trixie|bullseye|stable)\b(?![-/])", fields.get("Suites", "")):
                    for uri in fields.get("URIs", "").split():
                        if "security" not in uri:
                            return uri.rstrip("/")
        else:
            for line in text.splitlines():
                m = re.match(r"^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.*)$", line)
                if m and "security" not in m.group(1) and "-" not in m.group(2) and "main" in m.group(3).split():
                    return m.group(1).rstrip("/")
    return DEFAULT_MIRROR


def debootstrap_available() -> str | None:
    """Why the base cannot be built here, or None when it can."""
    if shutil.which("debootstrap") is None:
        return "debootstrap is not installed (apt-get install debootstrap, or run scripts/ensure-docker.sh)"
    if os.geteuid() != 0:
        return "building the base image with debootstrap needs root"
    return None


def _remove_in_rootfs(rootfs: Path, patterns: list[str]) -> None:
    root = rootfs.resolve()
    for pattern in patterns:
        for match in glob.glob(str(root / pattern.lstrip("/"))):
            path = Path(match)
            if root not in path.resolve().parents and path.resolve() != root:
                continue  # never leave the root file system (symlinks)
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)


def build_base(language: str = "python", progress: Progress = print, force: bool = False,
               client=None) -> str:
    """Build (or reuse) the base image from sandboxes/<language>/base.json; returns its tag."""
    own = client is None
    client = client or get_client(timeout=600)
    try:
        tag = base_tag(language)
        if not force and _image_exists(client, tag):
            progress(f"base image {tag} exists (same recipe): skipping debootstrap")
            return tag
        reason = debootstrap_available()
        if reason:
            raise ImageBuildError(f"cannot build the base image {tag}: {reason}")
        recipe = base_recipe(language)
        mirror = debian_mirror()
        work = Path(tempfile.mkdtemp(prefix=f"judge-base-{language}-", dir="/var/tmp"))
        rootfs, log = work / "rootfs", work / "debootstrap.log"
        try:
            cmd = ["debootstrap", f"--variant={recipe.get('variant', 'minbase')}"]
            if recipe.get("include"):
                cmd.append("--include=" + ",".join(recipe["include"]))
            cmd += [recipe.get("suite", "bookworm"), str(rootfs), mirror]
            progress(f"debootstrap: {' '.join(cmd)} (log: {log})")
            t0 = time.monotonic()
            with open(log, "wb") as logf:
                proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
                last = t0
                while proc.poll() is None:
                    time.sleep(0.5)
                    if time.monotonic() - last >= 15:
                        last = time.monotonic()
                        progress(f"  ... debootstrap running ({last - t0:.0f} s)")
            if proc.returncode != 0:
                tail = log.read_text(errors="replace").splitlines()[-15:]
                raise ImageBuildError("debootstrap failed (exit %d):\n%s" % (proc.returncode, "\n".join(tail)))
            t_boot = time.monotonic() - t0
            progress(f"debootstrap done in {t_boot:.1f} s")
            _remove_in_rootfs(rootfs, recipe.get("remove", []))
            if recipe.get("check"):
                check = subprocess.run(["chroot", str(rootfs), "python3", "-I", "-c", recipe["check"]],
                                       capture_output=True, text=True, timeout=60)
                if check.returncode != 0:
                    raise ImageBuildError(f"the new root file system fails its check: {check.stderr.strip()}")
            t1 = time.monotonic()
            tar_path = work / "rootfs.tar"
            subprocess.run(["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(tar_path), "."],
                           check=True, capture_output=True)
            changes = [f"ENV {k}={v}" for k, v in recipe.get("env", {}).items()]
            changes += [f'LABEL {LABEL_BASE}="{base_recipe_hash(language)}" '
                        f'{LABEL_SANDBOX}.base="{language}"',
                        'CMD ["python3"]']
            repo, _, version = tag.partition(":")
            client.api.import_image_from_file(str(tar_path), repository=repo, tag=version, changes=changes)
            size = client.images.get(tag).attrs.get("Size", 0)
            progress(f"imported {tag} ({size / 1e6:.0f} MB) in {time.monotonic() - t1:.1f} s")
            return tag
        finally:
            shutil.rmtree(work, ignore_errors=True)
    finally:
        if own:
            client.close()


# ---------------------------------------------------------------------------- sandbox image
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _context_tar(language: str) -> io.BytesIO:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        entries = [(name, data) for name, data in _tree_files(sandbox_dir(language)).items()]
        entries += [(f"runner/{name}", data) for name, data in runner_files(language).items()]
        for name, data in entries:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    buf.seek(0)
    return buf


def official_base(language: str = "python") -> str | None:
    """The official image to pull as a base when a registry answers (``JUDGE_OFFICIAL_BASE``
    wins over the recipe's ``official`` entry, e.g. ``python:3.11-slim``)."""
    env = os.environ.get("JUDGE_OFFICIAL_BASE")
    if env is not None:
        return env or None
    return base_recipe(language).get("official")


def pull_timeout() -> float:
    """Seconds a pull may wait for the registry to answer (``JUDGE_PULL_TIMEOUT``, default 10;
    0 means never pull)."""
    text = os.environ.get("JUDGE_PULL_TIMEOUT", "")
    try:
        return max(0.0, float(text)) if text else 10.0
    except ValueError:
        raise ImageBuildError(f"JUDGE_PULL_TIMEOUT={text!r} is not a number of seconds") from None


def pull_image(name: str, timeout: float, client=None) -> tuple[bool, str]:
    """Pull ``name`` through the engine; give up when the engine sends nothing for
    ``timeout`` seconds (a slow but progressing download is not cut off; the SDK's own pull
    has no timeout, and the engine waits ~25 s for a registry that accepts but never answers).
    Returns (pulled, what happened). Never raises for registry trouble."""
    import queue  # noqa: PLC0415
    import threading  # noqa: PLC0415

    import docker.errors  # noqa: PLC0415

    repo, tag = _split_name(name)
    t0 = time.monotonic()
    try:
        puller = get_client(timeout=max(timeout, 1.0))
    except EngineUnavailable as exc:
        return False, str(exc)
    events: queue.Queue = queue.Queue()

    def pump() -> None:
        try:
            for chunk in puller.api.pull(repo, tag=tag, stream=True, decode=True):
                events.put(("chunk", chunk))
            events.put(("done", None))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            events.put(("error", exc))

    threading.Thread(target=pump, name=f"pull {name}", daemon=True).start()
    try:
        while True:
            try:
                kind, item = events.get(timeout=timeout)
            except queue.Empty:
                return False, f"registry unreachable (no answer within {timeout:g} s)"
            if kind == "done":
                break
            if kind == "error":
                if isinstance(item, docker.errors.APIError):
                    text = getattr(item, "explanation", None) or str(item)
                    return False, f"registry unreachable ({_short(str(text))}) after {time.monotonic() - t0:.1f} s"
                return False, f"pull failed ({type(item).__name__}: {_short(item)})"
            if isinstance(item, dict) and item.get("error"):
                return False, f"registry refused ({_short(item['error'])}) after {time.monotonic() - t0:.1f} s"
    finally:
        puller.close()  # a pump still blocked on a silent engine is a daemon thread: left behind
    if client is not None and not _image_exists(client, name):
        return False, "pull reported success but the image is not present"
    return True, f"pulled in {time.monotonic() - t0:.1f} s"


def _split_name(name: str) -> tuple[str, str]:
    """'host:5000/repo:tag' -> ('host:5000/repo', 'tag'); no tag means 'latest'."""
    if "@" in name:
        return name, ""
    head, _, last = name.rpartition("/")
    if ":" in last:
        last, _, tag = last.partition(":")
        return (f"{head}/{last}" if head else last), tag
    return name, "latest"


def _image_id(client, name: str) -> str | None:
    import docker.errors  # noqa: PLC0415

    try:
        return client.images.get(name).id
    except docker.errors.ImageNotFound:
        return None
    except docker.errors.APIError:
        return None


def _check_base(client, name: str, language: str) -> None:
    """A base that did not come from our own recipe must run the recipe's check (python3 of
    the right version with the modules the worker needs). The check container is always
    removed, also when it cannot even start."""
    check = base_recipe(language).get("check")
    if not check:
        return
    container = None
    try:
        container = client.containers.create(name, ["python3", "-I", "-c", check], network_mode="none",
                                             labels={LABEL_SANDBOX: "base-check"})
        container.start()
        status = container.wait(timeout=120).get("StatusCode")
        if status != 0:
            output = container.logs(stdout=True, stderr=True).decode(errors="replace").strip()
            raise ImageBuildError(f"base image {name} is not usable: its python3 check exited {status}: "
                                  f"{_short(output.splitlines()[-1] if output else 'no output')} "
                                  f"(it needs python3 with: {check})")
    except ImageBuildError:
        raise
    except Exception as exc:  # noqa: BLE001 - no python3 in the image, engine trouble, ...
        raise ImageBuildError(f"base image {name} is not usable: {_short(exc)} "
                              f"(it needs python3 with: {check})") from None
    finally:
        if container is not None:
            remove_containers(client, [container])


def choose_base(language: str = "python", progress: Progress = print, client=None,
                rebuild_base: bool = False) -> str:
    """Pick the base image, in this order, saying one line per step tried:

    1. ``JUDGE_BASE_IMAGE`` (a local image, pulled if absent; an explicit choice that fails is
       an error, not a fall-through);
    2. a base already present: our recipe's ``judge-base-<language>:<hash>``, or the official
       image pulled earlier (skipped with ``rebuild_base``);
    3. the official image (``python:3.11-slim``) pulled when a registry answers within
       ``JUDGE_PULL_TIMEOUT`` seconds;
    4. the offline debootstrap build (needs root and debootstrap).

    Raises ImageBuildError listing what was tried when none works."""
    own = client is None
    client = client or get_client(timeout=600)
    tried: list[str] = []

    def step(what: str, result: str) -> None:
        line = f"{what}: {result}"
        tried.append(line)
        progress(f"base {len(tried)}. {line}")

    try:
        ours = base_tag(language)
        official = official_base(language)
        env = os.environ.get("JUDGE_BASE_IMAGE", "").strip()
        if env:
            if _image_exists(client, env):
                step(f"JUDGE_BASE_IMAGE={env}", "present locally: using it")
            else:
                timeout = pull_timeout()
                ok, how = pull_image(env, timeout, client) if timeout else (False, "pulling disabled")
                step(f"JUDGE_BASE_IMAGE={env}", ("not local, " + how + ": using it") if ok
                     else f"not a local image and not pulled: {how}")
                if not ok:
                    raise ImageBuildError(
                        f"JUDGE_BASE_IMAGE={env} is not a local image and could not be pulled ({how}); "
                        "name an image listed by `docker images`, or unset JUDGE_BASE_IMAGE")
            _check_base(client, env, language)
            return env
        step("JUDGE_BASE_IMAGE", "not set")

        if rebuild_base:
            step("local base", "skipped (--rebuild-base)")
        else:
            local = [name for name in (ours, official) if name and _image_exists(client, name)]
            if local:
                step(f"local base {local[0]}", "present: using it (skipping debootstrap)")
                if local[0] != ours:
                    _check_base(client, local[0], language)
                return local[0]
            step(f"local base {ours}" + (f" or {official}" if official else ""), "not present")

        timeout = pull_timeout()
        if not official:
            step("pull official image", "none configured")
        elif not timeout:
            step(f"pull {official}", "skipped (JUDGE_PULL_TIMEOUT=0)")
        else:
            t0 = time.monotonic()
            ok, how = pull_image(official, timeout, client)
            step(f"pull {official}", how)
            if ok:
                try:
                    _check_base(client, official, language)
                    return official
                except ImageBuildError as exc:
                    step(f"check {official}", f"unusable ({exc}); falling through")
            elif time.monotonic() - t0 > timeout + 5:
                progress("  (the pull took long to fail; JUDGE_PULL_TIMEOUT=0 skips it)")

        reason = debootstrap_available()
        if reason:
            step("debootstrap build", f"cannot run: {reason}")
            raise ImageBuildError(
                f"no base image for the sandbox ({len(tried)} ways tried, see `judge sandbox build`); "
                "fix one: run `bash scripts/ensure-docker.sh` as root (installs debootstrap), "
                "make a registry reachable, or set JUDGE_BASE_IMAGE to a local image with python3.11")
        t0 = time.monotonic()
        tag = build_base(language, progress, force=rebuild_base, client=client)
        step("debootstrap build", f"built {tag} in {time.monotonic() - t0:.1f} s")
        return tag
    finally:
        if own:
            client.close()


def build_image(language: str = "python", progress: Progress = print, force: bool = False,
                base_image: str | None = None, client=None, repository: str | None = None,
                rebuild_base: bool = False) -> str:
    """Build the sandbox image for ``language`` if the current definition's tag is missing
    (or ``force``); returns the tag. The base is ``base_image`` when given, else the first
    that works of ``choose_base``'s order. An existing image is reused unless ``force``, or
    ``JUDGE_BASE_IMAGE`` names a base other than the one it was built from.
    ``repository`` replaces ``judge-sandbox-<language>`` (tests build beside the real tag).
    Raises EngineUnavailable or ImageBuildError with the reason."""
    own = client is None
    client = client or get_client(timeout=600)
    try:
        tag = image_tag(language)
        if repository:
            tag = f"{repository}:{tag.partition(':')[2]}"
        if not force and not rebuild_base and _image_exists(client, tag):
            env = base_image or os.environ.get("JUDGE_BASE_IMAGE", "").strip()
            built_from = (client.images.get(tag).labels or {}).get(LABEL_BASE_ID)
            wanted = _image_id(client, env) if env else None
            if not env or (wanted and wanted == built_from):
                progress(f"sandbox image {tag} is up to date" + (f" (built from {env})" if env else ""))
                return tag
            progress(f"sandbox image {tag} was built from another base than {env}: rebuilding")
        t0 = time.monotonic()
        if base_image:
            if not _image_exists(client, base_image):
                raise ImageBuildError(f"base image {base_image} is not present locally")
            base = base_image
        else:
            base = choose_base(language, progress, client=client, rebuild_base=rebuild_base)
        t1 = time.monotonic()
        progress(f"building {tag} from {base}")
        repo, _, version = tag.partition(":")
        labels = {LABEL_SANDBOX: language, LABEL_DEFINITION: version, f"{LABEL_SANDBOX}.base_image": base,
                  LABEL_BASE_ID: _image_id(client, base) or ""}
        stream = client.api.build(fileobj=_context_tar(language), custom_context=True, tag=tag,
                                  buildargs={"BASE_IMAGE": base}, labels=labels, network_mode="none",
                                  rm=True, forcerm=True, pull=False, decode=True)
        for chunk in stream:
            if "error" in chunk:
                detail = chunk.get("errorDetail", {}).get("message") or chunk["error"]
                raise ImageBuildError(f"docker build of {tag} failed: {detail.strip()}")
            line = _ANSI.sub("", chunk.get("stream") or "").rstrip()
            if line:
                progress("  " + line)
        if not _image_exists(client, tag):
            raise ImageBuildError(f"docker build finished but {tag} does not exist")
        _smoke_test(client, tag)
        size = client.images.get(tag).attrs.get("Size", 0)
        progress(f"built {tag} ({size / 1e6:.0f} MB): base {t1 - t0:.1f} s, image {time.monotonic() - t1:.1f} s")
        return tag
    finally:
        if own:
            client.close()


def _smoke_test(client, tag: str) -> None:
    """The image runs python3 as the sandbox user with the runner in place, offline."""
    script = ("import json, select, resource, ctypes, signal, os, sys; "
              "assert os.getuid() == 10001, os.getuid(); "
              "assert os.path.exists('/opt/judge/runner/worker.py') or os.listdir('/opt/judge/runner'); "
              "print(json.dumps(sys.version_info[:2]))")
    try:
        out = client.containers.run(tag, ["python3", "-I", "-c", script], remove=True, network_mode="none",
                                    read_only=True, cap_drop=["ALL"], stdout=True, stderr=True,
                                    labels={LABEL_SANDBOX: "smoke-test"})
    except Exception as exc:  # noqa: BLE001
        raise ImageBuildError(f"smoke test of {tag} failed: {_short(exc)}") from None
    if json.loads(out.decode().strip().splitlines()[-1])[0] != 3:
        raise ImageBuildError(f"smoke test of {tag}: unexpected output {out!r}")


# ---------------------------------------------------------------------------- doctor
@dataclasses.dataclass
class DoctorReport:
    language: str
    engine_ok: bool
    engine_version: str | None = None
    api_version: str | None = None
    engine_error: str | None = None
    wanted_tag: str | None = None
    built: bool = False
    images: list[dict] = dataclasses.field(default_factory=list)    # {"tag", "created", "size_mb", "current"}
    base_tag: str | None = None
    base_built: bool = False
    base_builder_problem: str | None = None                          # why debootstrap cannot run
    env_base: str | None = None                                      # JUDGE_BASE_IMAGE and its state
    run_containers: list[dict] = dataclasses.field(default_factory=list)  # {"name", "run", "status", "stale"}
    next_steps: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        """The docker sandbox can be used right now."""
        return self.engine_ok and self.built

    def to_dict(self) -> dict:
        return dataclasses.asdict(self) | {"ok": self.ok}

    def __str__(self) -> str:
        lines = [f"docker sandbox ({self.language})"]
        if self.engine_ok:
            lines.append(f"  engine:        Docker {self.engine_version} (API {self.api_version})")
        else:
            lines.append(f"  engine:        NOT AVAILABLE - {self.engine_error}")
        if self.wanted_tag:
            lines.append(f"  needed image:  {self.wanted_tag} ({'built' if self.built else 'NOT BUILT'})")
        if self.base_tag:
            state = "present" if self.base_built else (
                "missing, can be built" if not self.base_builder_problem else f"missing, cannot build: {self.base_builder_problem}")
            lines.append(f"  base image:    {self.base_tag} ({state})")
        if self.env_base:
            lines.append(f"  JUDGE_BASE_IMAGE: {self.env_base}")
        if self.images:
            lines.append("  judge images:")
            for im in self.images:
                mark = " <- current" if im["current"] else " (stale)"
                lines.append(f"    {im['tag']}  {im['size_mb']:.0f} MB  {im['created']}{mark}")
        elif self.engine_ok:
            lines.append("  judge images:  none")
        if self.run_containers:
            stale = sum(c["stale"] for c in self.run_containers)
            lines.append(f"  run containers: {len(self.run_containers)} ({stale} left over by dead runs)")
        lines.append(f"  status:        {'READY' if self.ok else 'NOT READY'}")
        if self.next_steps:
            lines.append("  next:")
            lines += [f"    - {step}" for step in self.next_steps]
        return "\n".join(lines)


def doctor(language: str = "python") -> DoctorReport:
    """What state the docker sandbox is in and what to do next. Never raises."""
    try:
        client = get_client(timeout=5)
    except EngineUnavailable as exc:
        report = DoctorReport(language, engine_ok=False, engine_error=str(exc))
        try:
            report.wanted_tag = image_tag(language)
        except Exception as exc2:  # noqa: BLE001
            report.next_steps.append(f"fix the sandbox definition: {exc2}")
        report.next_steps.append("start a Docker engine: scripts/ensure-docker.sh (as root on Debian installs "
                                 "docker.io and starts dockerd), or use --sandbox process")
        return report
    try:
        version = client.version()
        report = DoctorReport(language, engine_ok=True, engine_version=version.get("Version"),
                              api_version=version.get("ApiVersion"))
        try:
            report.wanted_tag = image_tag(language)
            report.base_tag = base_tag(language)
        except Exception as exc:  # noqa: BLE001
            report.next_steps.append(f"fix the sandbox definition: {exc}")
        for img in client.images.list(filters={"label": f"{LABEL_SANDBOX}={language}"}):
            for tag in img.tags or [img.short_id]:
                report.images.append({
                    "tag": tag, "created": img.attrs.get("Created", "")[:19].replace("T", " "),
                    "size_mb": img.attrs.get("Size", 0) / 1e6, "current": tag == report.wanted_tag})
        report.built = any(im["current"] for im in report.images)
        if report.base_tag:
            report.base_built = _image_exists(client, report.base_tag)
            report.base_builder_problem = None if report.base_built else debootstrap_available()
        for c in client.containers.list(all=True, ignore_removed=True, filters={"label": LABEL_RUN}):
            labels = c.labels or {}
            report.run_containers.append({"name": c.name, "run": labels.get(LABEL_RUN), "status": c.status,
                                          "stale": not owner_alive(labels)})
        env_base = os.environ.get("JUDGE_BASE_IMAGE", "").strip()
        if env_base:
            try:
                report.env_base = f"{env_base} ({'present' if _image_exists(client, env_base) else 'NOT PRESENT'})"
            except ImageBuildError as exc:
                report.env_base = f"{env_base} (invalid: {exc})"
        if report.wanted_tag and not report.built:
            if report.base_built or env_base:
                report.next_steps.append("build the image: judge sandbox build")
            else:
                official = official_base(language)
                report.next_steps.append(
                    "build the image: judge sandbox build; it takes the first base that works of: "
                    "JUDGE_BASE_IMAGE (unset), a local base (none), "
                    + (f"{official} pulled when a registry answers, " if official else "")
                    + ("a debootstrap build" if not report.base_builder_problem
                       else f"a debootstrap build (not possible here: {report.base_builder_problem})"))
        if any(c["stale"] for c in report.run_containers):
            report.next_steps.append("remove containers left over by dead runs: judge sandbox gc")
        if sum(not im["current"] for im in report.images) and report.built:
            report.next_steps.append("old images can be removed: judge sandbox gc (with images)")
        return report
    except Exception as exc:  # noqa: BLE001
        return DoctorReport(language, engine_ok=False, engine_error=f"engine answered but failed: {_short(exc)}",
                            next_steps=["check the engine: docker info; see /tmp/dockerd.log"])
    finally:
        client.close()


# ---------------------------------------------------------------------------- gc
def owner_labels(run_id: str, language: str = "python") -> dict[str, str]:
    """The labels every container of this process's run carries."""
    me = psutil.Process()
    return {LABEL_RUN: run_id, LABEL_SANDBOX: language, LABEL_PID: str(me.pid),
            LABEL_PID_START: f"{me.create_time():.2f}", LABEL_HOST: socket.gethostname()}


def owner_alive(labels: dict[str, str]) -> bool:
    """Is the judge process that started a container still running? Containers of another host
    (a shared engine) count as alive: we cannot tell."""
    host = labels.get(LABEL_HOST)
    if host and host != socket.gethostname():
        return True
    try:
        pid = int(labels.get(LABEL_PID, ""))
    except ValueError:
        return False
    try:
        proc = psutil.Process(pid)
        start = labels.get(LABEL_PID_START)
        if start and abs(proc.create_time() - float(start)) > 1.0:
            return False  # pid reused by another process
        return proc.status() != psutil.STATUS_ZOMBIE
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return False


def remove_containers(client, containers) -> int:
    """Kill and remove containers (already-gone ones are fine); returns how many went."""
    import docker.errors  # noqa: PLC0415

    removed = 0
    for c in containers:
        try:
            c.remove(force=True)
            removed += 1
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError as exc:
            if "already in progress" in str(exc):
                removed += 1
    return removed


def reap_stale(client, language: str | None = None) -> int:
    """Remove containers whose judge process is gone (called when a DockerSandbox starts)."""
    filters = {"label": [LABEL_RUN] + ([f"{LABEL_SANDBOX}={language}"] if language else [])}
    stale = [c for c in client.containers.list(all=True, ignore_removed=True, filters=filters) if not owner_alive(c.labels or {})]
    return remove_containers(client, stale)


def gc(images: bool = False, all_runs: bool = True, language: str | None = None,
       progress: Progress = _quiet) -> int:
    """Remove containers labelled ``org.judge.run`` (every run's when ``all_runs``, else only
    those whose judge process is dead) and, when ``images``, judge image tags the current
    definitions no longer need. Returns the number of containers and images removed."""
    import docker.errors  # noqa: PLC0415

    client = get_client(timeout=30)
    try:
        filters = {"label": [LABEL_RUN] + ([f"{LABEL_SANDBOX}={language}"] if language else [])}
        containers = client.containers.list(all=True, ignore_removed=True, filters=filters)
        if not all_runs:
            containers = [c for c in containers if not owner_alive(c.labels or {})]
        removed = remove_containers(client, containers)
        progress(f"removed {removed} container(s)")
        if images:
            keep: set[str] = set()
            unsure: set[str] = set()  # languages whose definition cannot be read: keep all
            langs = [language] if language else [p.name for p in (resource_root() / "sandboxes").iterdir() if p.is_dir()]
            for lang in langs:
                try:
                    keep |= {image_tag(lang), base_tag(lang)}
                except Exception:  # noqa: BLE001
                    unsure |= {image_repository(lang), base_repository(lang)}
            n_img = 0
            tags = {tag for label in (LABEL_SANDBOX, LABEL_BASE)
                    for img in client.images.list(filters={"label": label}) for tag in img.tags}
            for tag in sorted(tags):
                repo = tag.partition(":")[0]
                if tag in keep or repo in unsure or not repo.startswith(("judge-sandbox-", "judge-base-")):
                    continue
                if language and repo not in (image_repository(language), base_repository(language)):
                    continue
                try:
                    client.images.remove(tag)
                    n_img += 1
                    progress(f"removed image {tag}")
                except docker.errors.APIError as exc:
                    progress(f"kept image {tag}: {_short(exc)}")
            removed += n_img
        return removed
    finally:
        client.close()
