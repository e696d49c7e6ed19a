"""What a sandbox back end or a language needs on this host, checked: one
:class:`Prerequisite` per need, with whether it is met here and what was found.

``judge sandbox doctor`` lists them for every registered back end and language. A check never
raises: what it could not find is a prerequisite not met, with the reason.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Prerequisite:
    """One need and whether it is met here."""

    name: str  # short: "g++", "docker engine", "user switching"
    needed: str  # what for, one line
    met: bool
    found: str = ""  # what was found (a version, a path) or why it is not met
    #: False: the back end works without it, with less (e.g. unisolated, or built on demand)
    required: bool = True
    hint: str = ""  # how to meet it

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        mark = "ok" if self.met else ("MISSING" if self.required else "no")
        text = "%-8s %-22s %s" % (mark, self.name, self.found or self.needed)
        if not self.met and self.hint:
            text += "  (%s)" % self.hint
        return text


def tool_version(name: str, command: list[str], needed: str, required: bool = True,
                 hint: str = "scripts/ensure-toolchains.sh installs the toolchains",
                 timeout: float = 60.0) -> Prerequisite:
    """A program on PATH and the first line of its version output."""
    path = shutil.which(command[0])
    if path is None:
        return Prerequisite(name, needed, False, "%s not found on PATH" % command[0], required,
                            hint)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as exc:
        return Prerequisite(name, needed, False, "%s: %s" % (path, exc), required, hint)
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    if done.returncode != 0:
        return Prerequisite(name, needed, False, "%s exited %d: %s" % (
            path, done.returncode, lines[0] if lines else ""), required, hint)
    return Prerequisite(name, needed, True, lines[0] if lines else path, required, hint)


def all_met(prerequisites: list[Prerequisite]) -> bool:
    """Whether every required prerequisite is met."""
    return all(p.met for p in prerequisites if p.required)


__all__ = ["Prerequisite", "all_met", "tool_version"]
