"""Progress of a batch, as people expect it: a total, an ETA and the verdicts so far.

Drawn with tqdm (see docs/dependencies.md), in one of three ways:

- ``bar``: a live bar, on a terminal (``judge run`` whose stderr is a terminal);
- ``lines``: a plain line every ``interval`` seconds (and a last one at the end), for what is
  not a terminal: CI logs, ``nohup``, a file, a pipe. No ``\\r``, no escape codes::

      judging: 120/1000 (12%) elapsed 00:38, ETA 04:44, 3.15 candidates/s; pass 80, wrong_answer 40

- ``notebook``: ``tqdm.auto``, a widget bar in Jupyter (plain tqdm where no widgets are);
  ``auto`` picks it when running inside a notebook kernel.

The total is known when the input is a file (:func:`count_lines` counts it first) or a
sized collection; without one the lines show the count and rate, no ETA.
"""

from __future__ import annotations

import gzip
import sys
from collections import Counter
from pathlib import Path
from typing import IO, Any

from judge.settings import settings

MODES = ("auto", "bar", "lines", "notebook", "off")
_LINES_FORMAT = ("{desc}: {n_fmt}/{total_fmt} ({percentage:.0f}%) elapsed {elapsed}, ETA "
                 "{remaining}, {rate_fmt}{postfix}")
_LINES_FORMAT_UNSIZED = "{desc}: {n_fmt} elapsed {elapsed}, {rate_fmt}{postfix}"


def count_lines(path: str | Path) -> int:
    """Non-empty lines of a (possibly gzipped) JSON Lines file: the total of a run over it.
    Blank lines are not candidates; bad lines are counted (the bar steps over them too)."""
    with open(path, "rb") as handle:
        gzipped = handle.read(2) == b"\x1f\x8b"
    opener: Any = gzip.open if gzipped else open
    count = 0
    with opener(path, "rb") as handle:
        for line in handle:
            if line.strip():
                count += 1
    return count


def in_notebook() -> bool:
    """Running inside a Jupyter (IPython kernel) session."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    shell = get() if callable(get) else None
    if shell is None:
        return False
    return type(shell).__name__ == "ZMQInteractiveShell" or "IPKernelApp" in getattr(
        shell, "config", {})


def choose_mode(mode: str, stream: IO[str]) -> str:
    if mode not in MODES:
        raise ValueError("progress must be one of %s" % ", ".join(MODES))
    if mode != "auto":
        return mode
    if in_notebook():
        return "notebook"
    return "bar" if getattr(stream, "isatty", lambda: False)() else "lines"


class _Lines:
    """A file for tqdm that turns each refresh into one plain line (the same line twice in a
    row is written once)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self._last = ""

    def write(self, text: str) -> None:
        line = text.replace("\r", "").replace("\x1b[A", "").strip()
        if line and line != self._last:
            self._last = line
            self.stream.write(line + "\n")

    def flush(self) -> None:
        self.stream.flush()


class Progress:
    """Progress of ``total`` candidates (None: unknown) on ``stream`` (stderr by default).
    ``step(verdict)`` for each result, ``skip()`` for an input that gives none (a bad line, a
    candidate already judged), ``close()`` at the end (idempotent)."""

    def __init__(self, total: int | None = None, stream: IO[str] | None = None, *,
                 mode: str = "auto", interval: float | None = None,
                 desc: str = "judging") -> None:
        self.stream = stream or sys.stderr
        self.mode = choose_mode(mode, self.stream)
        self.total = total
        self.done = 0
        self.skipped = 0
        self.verdicts: Counter[str] = Counter()
        self._bar: Any = None
        if self.mode == "off":
            return
        if interval is None:
            interval = settings().progress_interval_s
        options: dict[str, Any] = dict(total=total, desc=desc, unit=" candidates",
                                       leave=True)
        if self.mode == "lines":
            from tqdm import tqdm

            options.update(file=_Lines(self.stream), mininterval=interval, miniters=1, smoothing=0,
                           maxinterval=max(interval, 10.0), ascii=True,
                           bar_format=_LINES_FORMAT if total else _LINES_FORMAT_UNSIZED)
            self._bar = tqdm(**options)
        elif self.mode == "notebook":
            from tqdm.auto import tqdm as auto_tqdm

            self._bar = auto_tqdm(file=self.stream, mininterval=0.2, **options)
        else:
            from tqdm import tqdm

            self._bar = tqdm(file=self.stream, mininterval=0.1, dynamic_ncols=True, **options)

    @property
    def enabled(self) -> bool:
        return self._bar is not None

    def _postfix(self) -> str:
        return ", ".join("%s %d" % item for item in self.verdicts.most_common())

    def step(self, verdict: str) -> None:
        self.done += 1
        self.verdicts[verdict] += 1
        if self._bar is not None:
            self._bar.set_postfix_str(self._postfix(), refresh=False)
            self._bar.update(1)

    def skip(self) -> None:
        """An input that gives no result: the bar moves on, the verdicts do not."""
        self.skipped += 1
        if self._bar is not None:
            self._bar.update(1)

    def close(self) -> None:
        bar, self._bar = self._bar, None
        if bar is not None:
            bar.set_postfix_str(self._postfix(), refresh=False)
            bar.close()
