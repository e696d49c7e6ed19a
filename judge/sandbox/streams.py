"""Bytes a job sends after its line: a program test's input, streamed from its file a piece
at a time (the judge never holds a test input whole). Part of :mod:`judge.sandbox.base`."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Any

#: bytes of a stream read and sent at a time (the judge never holds a test input whole)
STREAM_CHUNK = 1 << 20


@dataclass(frozen=True)
class InputStream:
    """Bytes a job sends right after its line, in order: the first ``size`` bytes of the
    file ``path`` (read and sent ``STREAM_CHUNK`` at a time, never held whole), or
    ``data``. The job line says only the sizes (``"streams"``); a program test names its
    standard input's stream (``"stdin_stream": k``), and the worker keeps each in a private
    file as it reads it."""

    size: int
    path: str | None = None
    data: bytes | None = None

    def chunks(self) -> Any:
        """The stream's bytes, ``STREAM_CHUNK`` at a time. Raises OSError when the file
        cannot be read, is not a regular file, or holds fewer than ``size`` bytes (it
        changed since it was measured)."""
        if self.path is None:
            data = memoryview(self.data or b"")[: self.size]
            for start in range(0, len(data), STREAM_CHUNK):
                yield data[start:start + STREAM_CHUNK]
            return
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError("%s is not a regular file" % self.path)
            left = self.size
            while left:
                chunk = os.read(fd, min(left, STREAM_CHUNK))
                if not chunk:
                    raise OSError("%s holds fewer than the %d bytes it had (it changed)"
                                  % (self.path, self.size))
                left -= len(chunk)
                yield chunk
        finally:
            os.close(fd)


__all__ = ["InputStream", "STREAM_CHUNK"]
