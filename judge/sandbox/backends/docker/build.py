"""How sandbox images are made: the base (a local one, an official image pulled when a
registry answers, or an offline debootstrap build) and the sandbox image on top of it.

``build_image`` is what ``judge sandbox build`` and the docker sandbox call; naming, hashing,
the engine client and pulls live in :mod:`judge.sandbox.backends.docker.image`.
"""

from __future__ import annotations

import glob
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

from judge.resources import sandbox_dir
from judge.sandbox.backends.docker.image import (
    DEFAULT_MIRROR,
    LABEL_BASE,
    LABEL_BASE_ID,
    LABEL_DEFINITION,
    LABEL_SANDBOX,
    ImageBuildError,
    Progress,
    _image_exists,
    _image_id,
    _short,
    _tree_files,
    base_recipe,
    base_recipe_hash,
    base_tag,
    get_client,
    host_tree_files,
    host_trees,
    image_tag,
    official_base,
    pull_image,
    pull_timeout,
    remove_containers,
    runner_files,
)
from judge.settings import settings


# ---------------------------------------------------------------------------- base image
def debian_mirror() -> str:
    """The machine's configured Debian mirror (env JUDGE_DEBIAN_MIRROR wins)."""
    if settings().debian_mirror:
        return settings().debian_mirror
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
        for tree in host_trees(language):  # (the polyglot image's jest: host_trees.json)
            entries += list(host_tree_files(tree).items())
        for name, data in entries:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    buf.seek(0)
    return buf


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


def env_base_image(language: str) -> str:
    """``JUDGE_BASE_IMAGE``: a Python base, so it names the base of an image whose recipe is
    a plain Python base (one with an ``official`` Python image to pull) only: the native image
    needs its toolchains, which only its own recipe has."""
    if "official" not in base_recipe(language):
        return ""
    return settings().base_image


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
        env = env_base_image(language)
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
            env = base_image or env_base_image(language)
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


