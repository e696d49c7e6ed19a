"""Checker expressions, run outside the judge's own threads with a time and memory bound.

A problem's ``check`` tests (``abs(output - 3.5) < 1e-6``, helper functions from its
``checker`` source) are trusted code, but they run on what a *candidate* returned, so a
crafted value can make a naive checker slow or hungry, and a bug in a checker must not be
scored as the candidate's failure. So checks run in small helper processes (one per job
slot, started on first use, standard library only) under ``RLIMIT_AS`` and a wall-clock
bound; a check that overruns is killed with its process, which is replaced.

What crosses: the checker source, the expression, the inputs and the decoded output, all
built by the judge (pickled towards the helper, which only ever unpickles the judge's own
data); back comes a small JSON verdict, never an object.
"""

from __future__ import annotations

import json
import os
import pickle
import queue
import select
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

#: wall-clock seconds one check may take
CHECK_TIME_S = 5.0
#: address-space bound of a checker process
CHECK_MEMORY_MB = 2048

_HEADER = struct.Struct("!I")

# The helper's whole program: read a frame, evaluate, answer. Namespaces are cached per
# checker source so helper functions are defined once per problem.
_CHILD = r'''
import json, pickle, resource, struct, sys, traceback
limit = int(sys.argv[1]) * 1024 * 1024
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.set_int_max_str_digits(0)
H = struct.Struct("!I")
inp, out = sys.stdin.buffer, sys.stdout.buffer
spaces, codes = {}, {}
def read(n):
    data = b""
    while len(data) < n:
        chunk = inp.read(n - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data
def reply(obj):
    data = json.dumps(obj).encode()
    out.write(H.pack(len(data)) + data)
    out.flush()
while True:
    source, expression, inputs, output = pickle.loads(read(H.unpack(read(4))[0]))
    try:
        space = spaces.get(source)
        if space is None:
            space = {}
            if source:
                exec(compile(source, "<checker>", "exec"), space)
            spaces[source] = space
    except BaseException as exc:
        spaces.pop(source, None)
        reply({"setup_error": "%s: %s" % (type(exc).__name__, str(exc)[:500])})
        continue
    try:
        code = codes.get(expression) or codes.setdefault(
            expression, compile(expression, "<check>", "eval"))
        scope = dict(space)
        scope.update(inputs)
        scope["output"] = output
        result = eval(code, scope)
        if isinstance(result, tuple) and len(result) == 2:
            reply({"ok": bool(result[0]), "why": None if result[0] else str(result[1])[:500]})
        else:
            reply({"ok": bool(result)})
    except MemoryError:
        reply({"raised": "MemoryError: the check ran out of its memory bound"})
    except BaseException as exc:
        reply({"raised": "%s: %s" % (type(exc).__name__, str(exc)[:500])})
'''


@dataclass(frozen=True)
class CheckOutcome:
    """How a check went: ``ok``; else ``why`` (it failed: the candidate's answer is wrong),
    ``raised`` (the expression raised on this output) or ``problem_error`` (the checker
    itself is broken or overran its bound: the problem's fault, reported apart)."""

    ok: bool
    why: str | None = None
    raised: str | None = None
    problem_error: str | None = None


class _Helper:
    def __init__(self, memory_mb: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-c", _CHILD, str(memory_mb)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"},
            close_fds=True, start_new_session=True)

    def ask(self, frame: bytes, timeout: float) -> dict[str, Any] | None:
        """The helper's answer, or None when it died or overran ``timeout``."""
        try:
            self.process.stdin.write(_HEADER.pack(len(frame)) + frame)  # type: ignore[union-attr]
            self.process.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            return None
        deadline = time.monotonic() + timeout
        header = self._read(_HEADER.size, deadline)
        if header is None:
            return None
        body = self._read(_HEADER.unpack(header)[0], deadline)
        if body is None:
            return None
        try:
            answer = json.loads(body)
        except ValueError:
            return None
        return answer if isinstance(answer, dict) else None

    def _read(self, size: int, deadline: float) -> bytes | None:
        fd = self.process.stdout.fileno()  # type: ignore[union-attr]
        data = b""
        while len(data) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                return None
            chunk = os.read(fd, size - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def close(self) -> None:
        try:
            self.process.kill()
        except OSError:
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


class CheckerPool:
    """Helper processes that evaluate checks, at most ``size`` at once. Thread-safe."""

    def __init__(self, size: int = 1, time_s: float = CHECK_TIME_S,
                 memory_mb: int = CHECK_MEMORY_MB) -> None:
        self.size = max(1, size)
        self.time_s = time_s
        self.memory_mb = memory_mb
        self._idle: queue.LifoQueue[_Helper] = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(self.size)
        self._all: set[_Helper] = set()
        self._lock = threading.Lock()
        self._closed = False

    def check(self, source: str | None, expression: str, inputs: dict[str, Any],
              output: Any) -> CheckOutcome:
        try:
            frame = pickle.dumps((source or "", expression, inputs, output),
                                 protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, RecursionError, TypeError) as exc:
            return CheckOutcome(False, raised="the output cannot be handed to the checker: %s"
                                % exc)
        with self._slots:
            helper = self._take()
            answer = helper.ask(frame, self.time_s)
            if answer is None:
                self._discard(helper)
                return CheckOutcome(False, raised="the check ran over its bound of %.0fs or "
                                    "died (memory bound %d MB)" % (self.time_s, self.memory_mb))
            self._idle.put(helper)
        if "setup_error" in answer:
            return CheckOutcome(False, problem_error="the problem's checker does not load: %s"
                                % answer["setup_error"])
        if "raised" in answer:
            return CheckOutcome(False, raised=str(answer["raised"]))
        return CheckOutcome(bool(answer.get("ok")), why=answer.get("why"))

    def _take(self) -> _Helper:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            if self._closed:
                raise RuntimeError("the checker pool is closed")
            helper = _Helper(self.memory_mb)
            self._all.add(helper)
            return helper

    def _discard(self, helper: _Helper) -> None:
        helper.close()
        with self._lock:
            self._all.discard(helper)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            helpers, self._all = list(self._all), set()
        for helper in helpers:
            helper.close()
