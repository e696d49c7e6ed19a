"""The worker's side of a test: supervising the child (time, memory and result-size limits
over every process of the candidate) and reading what it wrote, which may be forged."""

import json
import os
import select
import signal
import time

from .child import CANDIDATE_MARK, _safe_str
from .records import (
    CHILD,
    EXITED,
    MALFORMED,
    MEMORY,
    SETUP_ERROR,
    SIGNALED,
    TIMEOUT,
    VALUE_TOO_LARGE,
)
from .system import _charged_memory, _usage, _waited, _waited_most
from .wire import MAX_DEPTH, decode

#: how often the limits are checked, seconds: always during a test's first POLL_SETTLE_S
#: (most tests end within it), and whenever the candidate holds over a quarter of its
#: memory limit
POLL_S = 0.005
POLL_SETTLE_S = 0.1
#: past that, the checks of a test that keeps running (a looper, a sleeper) space out up to
#: this, never past the moment its CPU could reach its limit on every core, nor its wall
#: deadline: each check reads /proc for the whole process tree, and 600 of them in a 3 s
#: timeout cost 0.1 s of CPU. A memory bomb grows at most this long between two checks
#: from under a quarter of its limit (~100 MB at 4 GB/s) before it is stopped as ``memory``.
POLL_MAX_S = 0.025
_CPUS = os.cpu_count() or 1
#: the wall-clock backstop never stretches past this many times its limit, however loaded
WALL_HARD_FACTOR = 5.0


def _next_poll(now, settle_from, cpu, cpu_limit, rss, memory, deadline):
    """When to check the limits next (see POLL_MAX_S)."""
    if now - settle_from < POLL_SETTLE_S or 4 * rss > memory:
        return now + POLL_S
    return now + max(POLL_S, min(POLL_MAX_S, (cpu_limit - cpu) / _CPUS, deadline - now))


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "signal %d" % number


def supervise(pid, result_fd, job, test, started, cap=None, phases=None, me=None, ack_fd=None,
              on_line=None):
    """Wait for the child, enforcing wall/CPU/memory/result-size limits. Returns an outcome
    dict (without the child's result, which is parsed by the caller).

    Limits cover the whole candidate: CPU and resident memory are summed over every process
    below the worker (``_usage``), not only the child's own tree. They are checked on the
    worker's own schedule (``_next_poll``: every ``POLL_S``, spacing out for a test that
    keeps running) whatever the result pipe does (a child trickling bytes into it cannot
    postpone them), memory first, so a memory bomb is ``memory`` however late the worker
    gets to look.

    ``phases`` (batch mode) are the tests the child runs one after another: each result line
    it writes starts the next phase, with that test's own wall and CPU limits, so a test that
    hangs is stopped at its own limit, not at the sum of all of them. The CPU time of each
    phase is measured here (``outcome["phase_cpu"]``) while the child waits on ``ack_fd``
    (or on what ``on_line(lines so far)``, called as each line arrives, sends it).

    The wall-clock backstop (for candidates that sleep or block) does not count the time the
    child spent waiting for a CPU, so a loaded machine does not turn a CPU or memory verdict
    into a wall-clock timeout; it never stretches past ``WALL_HARD_FACTOR`` times its limit."""
    me = me or os.getpid()
    wall_limit, cpu_limit = test["wall_limit"], test["time_limit"]
    # batch: ``test`` is the whole child's (the candidate's budget): its wall clock is a
    # deadline of its own beside each phase's, and ``by_total`` says which limit cut
    total_deadline = total_hard = None
    cpu_by_total = by_total = False
    if phases:
        wall_limit = phases[0]["wall_limit"]
        cpu_limit = min(phases[0]["time_limit"], test["time_limit"])
        cpu_by_total = test["time_limit"] < phases[0]["time_limit"]
        total_deadline = started + test["wall_limit"]
        total_hard = started + WALL_HARD_FACTOR * test["wall_limit"]
    deadline = started + wall_limit
    hard_deadline = started + WALL_HARD_FACTOR * wall_limit
    waited_base, waited = 0.0, 0.0
    memory = job["memory_bytes"]
    cap = cap or job["value_bytes"] + 4096
    chunks, size, eof, killed_for = [], 0, False, None
    lines_seen = 0                  # batch: complete lines so far
    phase_cpu, phase_grouped, phase_start = [], [], None
    pidfd = None
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    peak, waited_end, stopped_phase, tasks_peak = 0, 0.0, None, 0
    starved = False  # stopped by the hard cap only: the machine gave it no CPU (not its doing)
    next_check = time.monotonic() + POLL_S
    settle_from = started  # the current test's start (batch: its phase's)
    while True:
        now = time.monotonic()
        waiting = [pidfd] if pidfd is not None else []
        if not eof:
            waiting.append(result_fd)
        timeout = max(0.0, next_check - now)
        ready = select.select(waiting, [], [], timeout)[0] if waiting else time.sleep(timeout)
        if ready and result_fd in ready:
            chunk = os.read(result_fd, 1 << 16)
            if not chunk:
                eof = True
            else:
                chunks.append(chunk)
                size += len(chunk)
                if size > cap and killed_for is None:
                    killed_for = "value_too_large"
                count = chunk.count(b"\n") if phases and killed_for is None else 0
                if not phases and len(chunk) > 1:
                    # the record: the processes and threads the candidate holds as it reports
                    # (a thread it could not start is reported while the others still run)
                    tasks_peak = max(tasks_peak, _usage(me)[2])
                if count:
                    # each result line of this read gets the CPU since the previous read:
                    # exact when the child waits for acks (one line per read), an upper
                    # bound when it does not ("grouped": several lines in one read)
                    cpu_now, _, tasks = _usage(me)
                    tasks_peak = max(tasks_peak, tasks)
                    base = phase_start or 0.0  # test 0 counts its load, as a child per test
                    results = count - (1 if lines_seen == 0 else 0)
                    for _ in range(count):
                        if lines_seen > 0:
                            phase_cpu.append(max(0.0, cpu_now - base))
                            phase_grouped.append(results > 1)
                            if lines_seen < len(phases):
                                wall_limit = phases[lines_seen]["wall_limit"]
                                phase_started = time.monotonic()
                                settle_from = phase_started
                                next_check = min(next_check, phase_started + POLL_S)
                                deadline = phase_started + wall_limit
                                hard_deadline = phase_started + WALL_HARD_FACTOR * wall_limit
                                waited_base = waited = _waited_most(me)
                                own = cpu_now + phases[lines_seen]["time_limit"]
                                cpu_limit = min(own, test["time_limit"])
                                cpu_by_total = test["time_limit"] < own
                        lines_seen += 1
                        if on_line is not None:
                            on_line(lines_seen)
                        if ack_fd is not None:
                            try:
                                os.write(ack_fd, b"k")
                            except OSError:
                                pass
                    phase_start = cpu_now
        if pidfd is not None and ready and pidfd in ready:
            waited_end = _waited(pid)  # the child has exited: read before it is reaped
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            stopped_phase = lines_seen - 1
            break
        now = time.monotonic()
        if killed_for is None and now >= next_check:
            cpu, rss, tasks = _usage(me)
            tasks_peak = max(tasks_peak, tasks)
            if rss > memory:
                rss = _charged_memory(me, rss)
            peak = max(peak, rss)
            next_check = _next_poll(now, settle_from, cpu, cpu_limit, rss, memory,
                                    min(deadline, total_deadline or deadline))
            if now >= deadline or (total_deadline is not None and now >= total_deadline):
                waited = max(waited, _waited_most(me))
            if rss > memory:
                killed_for = "memory"
            elif now >= min(deadline + waited - waited_base, hard_deadline):
                killed_for = "wall"
                starved = now < deadline + waited - waited_base
            elif total_deadline is not None and now >= min(total_deadline + waited, total_hard):
                killed_for, by_total = "wall", True
                starved = now < total_deadline + waited
            elif cpu > cpu_limit:
                killed_for, by_total = "cpu", cpu_by_total
        if killed_for is not None:
            stopped_phase = lines_seen - 1
            waited_end = _waited(pid)
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            _, status, usage = os.wait4(pid, 0)
            break
    wall = time.monotonic() - started
    # what is still below the worker (orphans, zombies of helpers nobody waited for) counts
    # too, read before kill_leftovers takes it away
    others_cpu, others_rss, tasks = _usage(me)
    tasks_peak = max(tasks_peak, tasks)
    if others_rss > memory:
        others_rss = _charged_memory(me, others_rss)
    peak = max(peak, others_rss)
    while not eof and (killed_for is None or (phases and killed_for != "value_too_large")):
        # the child has exited; take what is left in the pipe without blocking forever on a
        # grandchild that inherited the write end
        if not select.select([result_fd], [], [], 0)[0]:
            break
        chunk = os.read(result_fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            killed_for = "value_too_large"
    if pidfd is not None:
        os.close(pidfd)
    cpu = usage.ru_utime + usage.ru_stime + others_cpu
    if phases and phase_start is not None:
        # lines read after the child stopped: the last one's phase ended when the child did
        unread = b"".join(chunks).count(b"\n") - lines_seen
        if unread > 0:
            phase_cpu.append(max(0.0, cpu - phase_start))
            phase_grouped.append(unread > 1 or killed_for is not None)
    outcome = {
        "wall_s": round(wall, 6),
        "cpu_s": round(cpu, 6),
        "waited_s": round(max(0.0, waited_end - waited_base), 6),
        "maxrss_bytes": max(peak, usage.ru_maxrss * 1024),
        "tasks_peak": tasks_peak,
    }
    if phases:
        outcome["phase_cpu"] = [round(c, 6) for c in phase_cpu]
        outcome["phase_grouped"] = phase_grouped
    # batch: the complete result lines stand even when the child was stopped later
    lines = _complete_lines(chunks) if phases else None
    if killed_for == "value_too_large":
        outcome["status"] = VALUE_TOO_LARGE
        outcome["size"] = size
        return outcome, None
    if phases and (killed_for in ("memory", "wall", "cpu") or os.WIFSIGNALED(status)):
        outcome["phase"] = stopped_phase  # the test that was running (-1: still loading)
    if killed_for == "memory":
        outcome["status"] = MEMORY
        return outcome, lines
    if killed_for in ("wall", "cpu"):
        outcome["status"] = TIMEOUT
        outcome["limit"] = killed_for
        if by_total:
            outcome["by_total"] = True  # the whole child's limit, not the test's own
        if starved and killed_for == "wall":
            outcome["starved"] = True
        return outcome, lines
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        outcome["status"] = SIGNALED
        outcome["signal"] = _signal_name(number)
        return outcome, lines
    # finished between two polls: the limits still hold, memory first (batch: checked per
    # test on the worker's own phase clock, then re-judged per test on any doubt)
    if outcome["maxrss_bytes"] > memory:
        outcome["status"] = MEMORY
        return outcome, None
    over_wall = wall - waited > test["wall_limit"]
    if not phases and (cpu > cpu_limit or over_wall):
        outcome["status"] = TIMEOUT
        outcome["limit"] = "cpu" if cpu > cpu_limit else "wall"
        return outcome, None
    outcome["exit_code"] = os.WEXITSTATUS(status)
    return outcome, b"".join(chunks)


def _complete_lines(chunks):
    """What the child wrote, up to its last complete line (None when it wrote nothing)."""
    raw = b"".join(chunks)
    if not raw:
        return None
    if b"\n" in raw:
        return raw[:raw.rfind(b"\n") + 1]
    return raw[:1] if raw[:1] == CANDIDATE_MARK else None


CHILD_FIELDS = {"status", "value", "stage", "exc_type", "message", "line", "import_error",
                "defined", "size"}
BATCH_FIELDS = CHILD_FIELDS | {"index", "cpu_s"}
#: a native harness may also say its candidate chose 32-bit floats (compared at their precision)
NATIVE_FIELDS = CHILD_FIELDS | {"narrow"}
#: what a child may put in each field, and how long a string may be
_FIELD_TYPES = {"status": str, "stage": str, "exc_type": str, "message": str, "line": int,
                "import_error": bool, "defined": list, "size": int, "index": int,
                "cpu_s": float, "narrow": bool}
_TEXT_CAPS = {"status": 20, "stage": 10, "exc_type": 100, "message": 500}
#: JSON nesting a wire value can have: two levels per wire level (a tag and its list)
MAX_JSON_DEPTH = 2 * MAX_DEPTH + 4


def _no_constants(name):
    raise ValueError("%s is not JSON" % name)


def _escape_text(text):
    """Lone surrogates written as their escapes, so the text is valid UTF-8 anywhere."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _json_depth_ok(data, limit):
    """Iteratively (no recursion a value could exhaust): is data nested at most limit deep?"""
    if type(data) is not list and type(data) is not dict:
        return True
    stack = [iter(data.values() if type(data) is dict else data)]
    while stack:
        for child in stack[-1]:
            kind = type(child)
            if kind is list or kind is dict:
                if len(stack) >= limit:
                    return False
                stack.append(iter(child.values() if kind is dict else child))
                break
        else:
            stack.pop()
    return True


def _clean_field(key, value):
    """The field as the worker passes it on, or raise ValueError when it is not what an
    honest child writes. Strings are capped and their lone surrogates escaped."""
    if key == "value":
        if not _json_depth_ok(value, MAX_JSON_DEPTH):
            raise ValueError("nested too deep")
        return value
    wanted = _FIELD_TYPES[key]
    if key == "line" and value is None:
        return None
    if wanted is float and type(value) is int:
        value = float(value)
    if type(value) is not wanted:
        raise ValueError("bad %s" % key)
    if wanted is int and not -(1 << 62) < value < (1 << 62):
        raise ValueError("bad %s" % key)
    if wanted is str:
        return _escape_text(value[:_TEXT_CAPS.get(key, 500)])
    if key == "defined":
        if not all(type(name) is str for name in value):
            raise ValueError("bad defined")
        return [_escape_text(name[:80]) for name in value[:20]]
    return value


def _parse_child_result(raw, exit_code, fields=CHILD_FIELDS, marked=True):
    """The child's message, reduced to the fields a child may report and checked field by
    field: it ran candidate code, so anything it wrote may be forged. It must not set its own
    timing, index or anything else the worker measures, and it cannot claim a setup error
    (``marked``: the record came after CANDIDATE_MARK)."""
    if not raw:
        return {"status": EXITED, "exit_code": exit_code}
    malformed = {"status": MALFORMED,
                 "message": "malformed result: the test process wrote something that is not "
                            "a result record"}
    try:
        result = json.loads(raw, parse_constant=_no_constants)
    except (ValueError, RecursionError, MemoryError):
        return malformed
    if not isinstance(result, dict):
        return malformed
    statuses = CHILD if marked else (SETUP_ERROR,)
    if result.get("status") not in statuses:
        return malformed
    if not marked:  # the child's own setup failed before any candidate code ran
        return {"status": SETUP_ERROR, "message": _escape_text(str(result.get("message"))[:300])}
    try:
        return {key: _clean_field(key, value) for key, value in result.items() if key in fields}
    except (ValueError, TypeError, RecursionError):
        return malformed


def _split_mark(raw):
    """(marked, rest): whether the child got past its own setup, and what it wrote after."""
    if raw and raw.startswith(CANDIDATE_MARK):
        return True, raw[len(CANDIDATE_MARK):]
    return False, raw


def _decode_args(tests):
    """Every test's arguments, decoded by the worker itself (before any fork): a failure here
    is ours, never the candidate's."""
    try:
        return [decode(test["args"]) for test in tests], None
    except BaseException as exc:
        return None, {"status": SETUP_ERROR,
                      "message": "cannot decode the test arguments: %s" % _safe_str(exc)[:300]}


def _bounded_line(record, limit):
    """The record as one JSON line for the judge, at most ``limit`` bytes: a value that grew
    past it once re-escaped (raw UTF-8 from a child becomes \\uXXXX here) is an oversized
    value, as it would have been had the child escaped it itself."""
    data = json.dumps(record, separators=(",", ":"), allow_nan=False)
    if len(data) > limit:
        size = len(data)
        record = {key: value for key, value in record.items() if key != "value"}
        record.update({"status": VALUE_TOO_LARGE, "size": size})
        for key in ("message", "exc_type", "defined", "stage", "line", "import_error"):
            record.pop(key, None)
        data = json.dumps(record, separators=(",", ":"), allow_nan=False)
    return (data + "\n").encode()

