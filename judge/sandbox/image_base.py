"""The base of a sandbox image, built without any registry: ``debootstrap`` of a minimal
Debian root file system from the recipe ``sandboxes/<language>/base.json`` and the machine's
Debian mirror, then ``docker import``. Split from judge.sandbox.image (which re-exports these
names) to keep modules small; the image module decides *when* a base is built."""

from __future__ import annotations

from typing import Callable

import glob
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from judge.sandbox import image as _img

Progress = Callable[[str], None]

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
    return _img.DEFAULT_MIRROR


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
    client = client or _img.get_client(timeout=600)
    try:
        tag = _img.base_tag(language)
        if not force and _img._image_exists(client, tag):
            progress(f"base image {tag} exists (same recipe): skipping debootstrap")
            return tag
        reason = debootstrap_available()
        if reason:
            raise _img.ImageBuildError(f"cannot build the base image {tag}: {reason}")
        recipe = _img.base_recipe(language)
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
                raise _img.ImageBuildError("debootstrap failed (exit %d):\n%s" % (proc.returncode, "\n".join(tail)))
            t_boot = time.monotonic() - t0
            progress(f"debootstrap done in {t_boot:.1f} s")
            _remove_in_rootfs(rootfs, recipe.get("remove", []))
            if recipe.get("check"):
                check = subprocess.run(["chroot", str(rootfs), "python3", "-I", "-c", recipe["check"]],
                                       capture_output=True, text=True, timeout=60)
                if check.returncode != 0:
                    raise _img.ImageBuildError(f"the new root file system fails its check: {check.stderr.strip()}")
            t1 = time.monotonic()
            tar_path = work / "rootfs.tar"
            subprocess.run(["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(tar_path), "."],
                           check=True, capture_output=True)
            changes = [f"ENV {k}={v}" for k, v in recipe.get("env", {}).items()]
            changes += [f'LABEL {_img.LABEL_BASE}="{_img.base_recipe_hash(language)}" '
                        f'{_img.LABEL_SANDBOX}.base="{language}"',
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
