"""Reference timings remembered across runs (on by default; ``JUDGE_REFERENCE_CACHE=off``).

With reference timing (the default), each problem's per-test time limits follow its
reference solution's CPU time on this machine (:meth:`Executor.reference_times`). That
measurement is a fact about the machine and the problem, not about the run: EvalPlus keeps
its ground truth's times in ``~/.cache/evalplus`` for the same reason. Measured once, it is
kept here, so a re-run, the next checkpoint's evaluation or a training loop's next process
does not run a reference again when a candidate needs its limits (the executor times a
reference only then: a candidate stopped at a limit; see :meth:`Executor.judge`).

An entry is found only by the hash of everything the measurement depends on, so nothing
else can ever reuse it:

- the job the reference runs as (code, function, every test's arguments, the limits);
- the sandbox it ran in (kind, interpreter or image) and the machine (CPU model and count);
- the judge's version and its own code (:func:`judge.engine.cache.code_version`).

An entry is kept for ``MAX_AGE_S`` (a week), then measured again. A file that cannot be
read, is too large, is not the judge's user's own, or does not hold one finite,
non-negative number per test within the limit that test is timed under is a miss,
never an error; writes go to a temporary file renamed into place (concurrent runs never see
a partial one) and a folder that cannot be written only costs speed. The folder is the
judge's user's (candidates never reach it: they run as other users, or in containers).

Where: ``JUDGE_REFERENCE_CACHE`` (a folder; ``off``, ``0`` or ``no`` to never remember),
else ``$XDG_CACHE_HOME/judge/reference-times``, else ``~/.cache/judge/reference-times``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import time
from pathlib import Path
from typing import Any

from judge.settings import OFF as SETTING_OFF
from judge.settings import OFF_WORDS, cache_home, settings

#: the setting (:mod:`judge.settings`): a folder, or one of OFF
ENV = "JUDGE_REFERENCE_CACHE"
OFF = OFF_WORDS
#: an entry older than this is measured again (machines change: BIOS, governor, neighbours)
MAX_AGE_S = 7 * 24 * 3600.0
#: a larger file is not read (an entry holds one number per test)
MAX_BYTES = 1 << 20
_FORMAT = 1
_MACHINE: list[str] = []


def default_folder() -> Path | None:
    """Where reference timings are kept, or None when remembering them is turned off."""
    setting = settings().reference_cache
    if setting == SETTING_OFF:
        return None
    if setting is not None:
        return Path(setting)
    return cache_home() / "judge" / "reference-times"


def machine() -> str:
    """The CPU this is measured on: model name, count and architecture."""
    if not _MACHINE:
        model = ""
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    if line.startswith("model name"):
                        model = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        _MACHINE.append("%s|%s|%s" % (model or platform.processor(), os.cpu_count(),
                                      platform.machine()))
    return _MACHINE[0]


def sandbox_identity(sandbox: Any) -> str:
    """The sandbox a reference runs in: its kind and what runs the code (the interpreter of
    the process sandbox, the image of the Docker one). A language wrapper is looked
    through to the Python sandbox it holds."""
    inner = getattr(sandbox, "python", None)
    if inner is not None and not isinstance(inner, str) and hasattr(inner, "run"):
        sandbox = inner
    parts = [str(getattr(sandbox, "name", type(sandbox).__name__))]
    for attribute in ("python", "image"):
        value = getattr(sandbox, attribute, None)
        if isinstance(value, str):
            parts.append("%s=%s" % (attribute, value))
    return "|".join(parts)


class ReferenceTimes:
    """Per-test reference CPU seconds by content (see the module's docstring). Thread- and
    process-safe."""

    def __init__(self, folder: str | os.PathLike[str], sandbox: str) -> None:
        from judge.engine.cache import code_version

        self.folder = Path(folder)
        self.context = "\x00".join([str(_FORMAT), code_version(), machine(), sandbox])
        self.hits = 0
        self.stored = 0

    def key(self, job_wire: dict[str, Any]) -> str:
        """The hash of the job (its id left out) in this context."""
        content = {k: v for k, v in job_wire.items() if k != "id"}
        text = json.dumps(content, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(("%s\x00%s" % (self.context, text))
                              .encode("utf-8", "surrogatepass")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / ("%s.json" % key)

    def get(self, key: str, limits: list[float], now: float | None = None
            ) -> list[float] | None:
        """The stored times (one per test, each within that test's limit in ``limits``: a
        real measurement never exceeds the limit it ran under), or None: absent, expired,
        unusable, or in a file that is not the judge's user's own."""
        path = self._path(key)
        count = len(limits)
        try:
            with open(path, "rb") as handle:
                if os.fstat(handle.fileno()).st_uid != os.geteuid():
                    return None  # written by someone else: never trusted with a limit
                raw = handle.read(MAX_BYTES + 1)
            if len(raw) > MAX_BYTES:
                return None
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("key") != key:
                return None
            measured = float(data["measured_at"])
            times = data["times"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        age = (time.time() if now is None else now) - measured
        if not (0.0 <= age <= MAX_AGE_S):
            return None
        if not isinstance(times, list) or len(times) != count or not all(
                type(t) in (int, float) and math.isfinite(t) and 0 <= t <= limit
                for t, limit in zip(times, limits)):
            return None
        self.hits += 1
        return [float(t) for t in times]

    def put(self, key: str, times: list[float]) -> bool:
        """Remember a measurement; False when it could not be written."""
        from judge.engine.cache import write_atomically

        payload = json.dumps({"key": key, "measured_at": time.time(),
                              "times": [float(t) for t in times]})
        if not write_atomically(self._path(key), payload):
            return False
        self.stored += 1
        return True


def for_sandbox(sandbox: Any) -> ReferenceTimes | None:
    """The store for this sandbox at the configured folder, or None when turned off."""
    folder = default_folder()
    if folder is None:
        return None
    return ReferenceTimes(folder, sandbox_identity(sandbox))
