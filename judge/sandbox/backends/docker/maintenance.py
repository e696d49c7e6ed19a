"""Keeping the Docker side tidy and explained: ``doctor`` (what state the docker sandbox is
in and what to do next), container ownership labels, and ``gc`` of containers left by dead
runs and of images no current definition needs.
"""

from __future__ import annotations

import dataclasses
import socket

import psutil

from judge.resources import resource_root
from judge.sandbox.backends.docker.build import debootstrap_available
from judge.sandbox.prerequisites import Prerequisite
from judge.sandbox.backends.docker.image import (
    LABEL_BASE,
    LABEL_HOST,
    LABEL_PID,
    LABEL_PID_START,
    LABEL_RUN,
    LABEL_SANDBOX,
    EngineUnavailable,
    ImageBuildError,
    Progress,
    _image_exists,
    _quiet,
    _short,
    base_repository,
    base_tag,
    get_client,
    image_repository,
    image_tag,
    official_base,
    remove_containers,
)
from judge.settings import settings


# ---------------------------------------------------------------------------- prerequisites
def prerequisites() -> list[Prerequisite]:
    """What the docker sandbox needs here, each checked: the docker SDK, an engine that
    answers, and its images (the Python image; the native image of the other languages).
    An image not built yet is built on first use, so it is not required."""
    found: list[Prerequisite] = []
    try:
        import docker  # noqa: PLC0415

        found.append(Prerequisite("docker SDK", "the docker Python package", True,
                                  "docker %s" % getattr(docker, "__version__", "?")))
    except ImportError as exc:
        found.append(Prerequisite("docker SDK", "the docker Python package", False, str(exc),
                                  hint="pip install docker"))
        return found
    try:
        client = get_client(timeout=5)
    except EngineUnavailable as exc:
        found.append(Prerequisite("docker engine", "an engine that answers", False, str(exc),
                                  hint="scripts/ensure-docker.sh (as root), or --sandbox process"))
        return found
    try:
        version = client.version()
        found.append(Prerequisite("docker engine", "an engine that answers", True,
                                  "Docker %s (API %s)" % (version.get("Version"),
                                                          version.get("ApiVersion"))))
        for image, what, build in (
                ("python", "the Python image", "judge sandbox build"),
                ("native", "the image of js, cpp, go, rust, java",
                 "judge sandbox build --language native"),
                ("polyglot", "the image of the languages beyond the native seven",
                 "judge sandbox build --language polyglot")):
            try:
                tag = image_tag(image)
                built = _image_exists(client, tag)
            except Exception as exc:  # noqa: BLE001 - a broken definition: say it, go on
                found.append(Prerequisite("%s image" % image, what, False, _short(exc),
                                          required=False))
                continue
            found.append(Prerequisite(
                "%s image" % image, what, built, tag if built else "%s not built" % tag,
                required=False, hint="%s (else built on first use)" % build))
    except Exception as exc:  # noqa: BLE001 - the engine answered a ping, then failed
        found.append(Prerequisite("docker engine", "an engine that answers", False,
                                  "answered but failed: %s" % _short(exc)))
    finally:
        client.close()
    return found


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
        env_base = settings().base_image
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
