"""Sandbox images: names, content hashes, the engine client, pulls.

The sandbox image is built without any registry (see :mod:`judge.sandbox.backends.docker.build`):

1. A *base* image: ``JUDGE_BASE_IMAGE``, a local base, an official ``python:<v>-slim`` pulled
   when a registry answers, or a minimal Debian root file system made by
   ``debootstrap --variant=minbase`` and ``docker import``ed as
   ``judge-base-<language>:<recipe hash>`` (recipe: ``sandboxes/<language>/base.json``).
2. The *sandbox* image, ``judge-sandbox-<language>:<definition hash>``, from
   ``sandboxes/<language>/Dockerfile`` with the worker (``runners/python/``, the same for every
   language: :func:`judge.sandbox.harness.worker_files`) copied to ``/opt/judge/runner/``. The
   tag is a content hash of both and the base recipe, so a changed definition means a new tag
   and ``image_ready()`` reports the old one as stale.

This module is the bottom of the Docker side: :mod:`judge.sandbox.backends.docker.build` makes images,
:mod:`judge.sandbox.backends.docker.maintenance` explains (``doctor``) and tidies (``gc``) them.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Callable, Iterable

from judge.errors import InfrastructureFault
from judge.resources import sandbox_dir
from judge.settings import settings

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


class EngineUnavailable(InfrastructureFault, RuntimeError):
    """No Docker engine answers (or the docker SDK is missing)."""

    code = "engine_unavailable"


class ImageBuildError(InfrastructureFault, RuntimeError):
    """The base or sandbox image could not be built; the message says why and what to do."""

    code = "image_build_failed"


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


def runner_files(language: str = "python") -> dict[str, bytes]:
    """The files that go to /opt/judge/runner/ in the image: the worker, exactly as the
    process sandbox installs it (:func:`judge.sandbox.harness.worker_files`; the other
    languages' sandbox runs the same worker). Their content enters the definition hash, so a
    change of anything the worker carries (the wire codec, the record vocabulary) also makes
    a new image tag."""
    from judge.sandbox.harness import worker_files  # noqa: PLC0415

    files = worker_files(language)
    if not files:
        raise ImageBuildError("runners/python/ is empty or missing: nothing to put in the image")
    return files


def host_trees(language: str = "python") -> list[dict]:
    """The trees installed on the host that the image copies (``sandboxes/<language>/
    host_trees.json``: ``{"trees": [{"from": host dir, "to": context dir, "stamp": file}]}``;
    the polyglot image's jest toolchain, installed by scripts/ensure-toolchains.sh). A tree
    enters the definition hash by its stamp (what was installed), not its files."""
    path = sandbox_dir(language) / "host_trees.json"
    if not path.is_file():
        return []
    try:
        return list(json.loads(path.read_text()).get("trees", []))
    except (json.JSONDecodeError, AttributeError) as exc:
        raise ImageBuildError(f"{path}: not a list of trees: {exc}") from None


def host_tree_stamp(tree: dict) -> bytes:
    """The stamp of an installed host tree (b"" when it is not installed)."""
    try:
        return (Path(tree["from"]) / tree["stamp"]).read_bytes().strip()
    except OSError:
        return b""


def host_tree_files(tree: dict) -> dict[str, bytes]:
    """Context path -> content of a host tree's files (a note alone when it is not
    installed: the image is built without it, and its language says so when run)."""
    if not host_tree_stamp(tree):
        return {f"{tree['to']}/NOT-INSTALLED": b"%s was not installed when this image was built "
                b"(scripts/ensure-toolchains.sh)\n" % str(tree["from"]).encode()}
    return {f"{tree['to']}/{name}": data for name, data in _tree_files(Path(tree["from"])).items()}


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
    for tree in host_trees(language):
        chunks += [("tree/" + tree["to"]).encode(), host_tree_stamp(tree) or b"absent"]
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


def official_base(language: str = "python") -> str | None:
    """The official image to pull as a base when a registry answers (``JUDGE_OFFICIAL_BASE``
    wins over the recipe's ``official`` entry, e.g. ``python:3.11-slim``; set but empty:
    none)."""
    env = settings().official_base
    if env is not None:
        return env or None
    return base_recipe(language).get("official")


def pull_timeout() -> float:
    """Seconds a pull may wait for the registry to answer (``JUDGE_PULL_TIMEOUT``, default 10;
    0 means never pull; a malformed one is :class:`judge.settings.InvalidSetting`)."""
    return settings().pull_timeout_s


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
