"""Python programs in series: one forked child runs a candidate's tests one after another.

A Python program run by the worker's own interpreter (``in_worker``) costs a fork, fresh
standard streams, a compile and an exit per test; most of that is paid once here. The
child (the candidate's user, the job's limits, its code compiled once) runs each test as
``python3 main.py`` would (``run_main``: a fresh ``__main__``, fresh streams, exit status),
then puts back what a program may change in the interpreter (imported modules, builtins,
``sys`` settings, the garbage collector, the working directory) before the next one.

What keeps each test its own:

- the worker hands the child a test's standard input, output and error (three descriptors
  over a socket) only when the previous test has ended, so no test can read a later test's
  input;
- the child ends a test with a line; the worker then takes that test's output and error as
  they stand (later writes are not seen) and measures the CPU time between two lines as that
  test's own (the child waits for the next descriptors, so each test is measured exactly);
- each test's standard error is a file of its own, under the output limit of its own, as in
  a process per test (``program.stderr_fields``: one rule): a test that floods it is
  ``output_limit``, and it never counts against the tests after it;
- a test is stopped at its own CPU, wall-clock and memory limits (``supervise``'s phases).

Anything else (a crash, a signal, a limit other than the test's own time, a malformed line,
a thread or an alarm left running) ends the child; the worker starts another for the tests
left. The judge takes a pass or a timeout at the test's own CPU limit from here, and a
failure of a child's first test (nothing ran before it in that interpreter), and reruns any
other failure with one process per test (``run_test``).
"""

import base64
import os
import resource
import signal
import socket
import time

from . import program as _program  # (it imports this module: names are read at run time)
from .child import _safe_str, _write_raw, become_candidate
from .files import _remove_tree, _reset_capture
from .native import _within_hard
from .records import EXITED, MALFORMED, SETUP_ERROR, TIMEOUT
from .supervise import supervise
from .system import _counters

#: tests one child runs at most
SERIES_TESTS = 64
#: signals whose handler a program may set and the next test could receive (a handler left
#: there ends the child)
_SIGNALS = tuple(getattr(signal, name) for name in (
    "SIGALRM", "SIGVTALRM", "SIGPROF", "SIGHUP", "SIGTERM", "SIGUSR1", "SIGUSR2", "SIGCHLD",
    "SIGPIPE", "SIGSEGV", "SIGFPE", "SIGABRT", "SIGBUS", "SIGILL", "SIGTRAP", "SIGQUIT",
    "SIGXCPU", "SIGXFSZ") if hasattr(signal, name))


def can_series(job, build):
    """A Python program (run by the worker's interpreter) whose tests have no files or
    arguments and that asks for it (the judge does for programs without a validator)."""
    if not (build.get("series") and build.get("in_worker")):
        return False
    for test in job["tests"]:
        spec = test.get("args") if isinstance(test.get("args"), dict) else {}
        if spec.get("files") or spec.get("file_streams") or spec.get("argv") or \
                spec.get("feedback") or spec.get("output_file"):
            return False
    return True


def run_series(worker, job, build, capture_fd, builddir, send):
    """Every test of the job (in children of at most ``SERIES_TESTS`` tests), each record
    sent as it is known; stops at the first failing run under ``stop_on_failure``. Returns
    whether the worker must be replaced."""
    tests = job["tests"]
    start, recycle = 0, False
    stop = job.get("stop_on_failure")
    while start < len(tests):
        group = list(range(start, min(len(tests), start + SERIES_TESTS)))
        records = _run_group(worker, job, build, capture_fd, builddir, group)
        for record in records:
            send(record)
            recycle = recycle or record.get("leftovers", 0) < 0
        failed = [r for r in records if r["status"] != EXITED or r.get("exit_code") != 0]
        if not records or records[-1]["status"] == SETUP_ERROR or (stop and failed):
            break
        start = records[-1]["index"] + 1
    return recycle


def _run_group(worker, job, build, capture_fd, builddir, group):
    tests = job["tests"]
    path = os.path.join(builddir, build["in_worker"])
    workdir = worker._workdir(job)
    inputs, outputs, errors, taken = [], [], [], {}
    parent = child = None
    try:
        try:
            for index in group:
                spec = tests[index].get("args") or {}
                fd = _program._test_stdin(job, spec)
                try:  # the child gets it read-only (it cannot write into the worker's copy)
                    readonly = os.open("/proc/self/fd/%d" % fd, os.O_RDONLY | os.O_CLOEXEC)
                finally:
                    os.close(fd)
                inputs.append(readonly)
                outputs.append(_program._private_file("judge-stdout"))
                errors.append(_program._private_file("judge-stderr"))
            parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        except (OSError, ValueError, TypeError) as exc:
            return [{"event": "test", "index": group[0], "status": SETUP_ERROR,
                     "message": "preparing the tests: %s" % exc}]
        phases = [tests[i] for i in group]
        total = {"time_limit": sum(t["time_limit"] for t in phases),
                 "wall_limit": sum(t["wall_limit"] for t in phases)}
        _reset_capture(capture_fd)
        oom_before = _counters()
        read_fd, write_fd = os.pipe()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            parent.close()
            _series_child(job, total, path, child.fileno(), write_fd, capture_fd, workdir)
            os._exit(4)  # not reached
        os.close(write_fd)
        child.close()
        child = None

        def on_line(seen):
            # seen - 1 tests are over: take the last one's output and error as they stand,
            # then hand over the next test's descriptors (or none: the end)
            done = seen - 2
            if 0 <= done < len(group) and done not in taken:
                taken[done] = _take(outputs[done], job), _taken_errors(errors[done], job)
            following = seen - 1
            try:
                if following < len(group):
                    socket.send_fds(parent, [b"t"], [inputs[following], outputs[following],
                                                     errors[following]],
                                    socket.MSG_DONTWAIT)
                else:
                    parent.send(b"e", socket.MSG_DONTWAIT)
            except OSError:
                pass

        try:
            outcome, raw = supervise(pid, read_fd, job, total, started,
                                     cap=16 * len(group) + 4096, phases=phases, me=worker.me,
                                     on_line=on_line)
        finally:
            os.close(read_fd)
        return _records(worker, job, group, outcome, raw, outputs, errors, taken, capture_fd,
                        oom_before, workdir)
    finally:
        for fd in inputs + outputs + errors:
            os.close(fd)
        for end in (parent, child):
            if end is not None:
                end.close()
        _remove_tree(workdir)


def _take(fd, job):
    size = os.fstat(fd).st_size
    return size, os.pread(fd, min(size, job["output_bytes"]), 0)


def _taken_errors(fd, job):
    """A finished test's standard error as its record tells it; the file is emptied then
    (only its head, tail and size are kept: a series of floods holds no memory)."""
    fields = _program.stderr_fields(fd, job)
    try:
        os.ftruncate(fd, 0)
    except OSError:
        pass
    return fields


def _records(worker, job, group, outcome, raw, outputs, errors, taken, capture_fd, oom_before,
             workdir):
    exit_code = outcome.pop("exit_code", None)
    phase_cpu = outcome.pop("phase_cpu", [])
    grouped = outcome.pop("phase_grouped", [])
    lines = (raw or b"").split(b"\n")
    records = []
    if raw and raw.startswith(b"!"):  # the child could not set itself up: ours
        message = raw[1:].decode("utf-8", "replace")[:300]
        return [{"event": "test", "index": group[0], "status": SETUP_ERROR,
                 "message": message}]
    results = lines[1:-1] if len(lines) > 2 else []  # after "loaded", complete lines only
    ended = False
    for position, line in enumerate(results[:len(group)]):
        index = group[position]
        ended = line.endswith(b".")
        line = line[:-1] if ended else line
        cpu = phase_cpu[position] if position < len(phase_cpu) else outcome.get("cpu_s", 0.0)
        record = {"event": "test", "index": index, "series": True, "cpu_s": cpu}
        try:
            status = int(line)
            if not 0 <= status <= 255:
                raise ValueError(line)
            record.update(status=EXITED, exit_code=status)
        except ValueError:
            record.update(status=MALFORMED, message="malformed result line")
        record["own"] = not (grouped[position] if position < len(grouped) else True)
        if cpu > job["tests"][index]["time_limit"]:
            # over its limit by a clock of ticks, after the fact: the judge reruns it alone
            record.update(status=TIMEOUT, limit="cpu", own=False)
            record.pop("exit_code", None)
        _output(record, taken.get(position), job)
        records.append(record)
        if record["status"] != EXITED or ended:
            break
    finished = len(records) == len(group) or ended or (
        records and records[-1]["status"] != EXITED)
    if not finished:
        # the child ended during this test (its limit, a signal, or an exit of its own)
        position = len(records)
        record = {"event": "test", "index": group[position], "series": True}
        if outcome.get("status"):
            record.update(outcome)
            by_total = record.pop("by_total", False)
            phase = record.pop("phase", None)
            record["own"] = phase == position and not by_total and \
                not record.pop("starved", False)
        else:
            record.update({k: v for k, v in outcome.items() if k != "status"},
                          status=EXITED, exit_code=exit_code, own=False)
        if position < len(phase_cpu):
            record["cpu_s"] = phase_cpu[position]
        elif phase_cpu and "cpu_s" in record:
            # the child's CPU less its earlier tests': this test's own (not theirs too)
            record["cpu_s"] = round(max(0.0, record["cpu_s"] - sum(phase_cpu[:position])), 6)
        taken[position] = _take(outputs[position], job), _program.stderr_fields(
            errors[position], job)
        _output(record, taken[position], job)
        records.append(record)
    if records:
        # the child's first test ran in an interpreter no other test had touched: the
        # judge takes its failure as an isolated run's (as a function batch's first test)
        records[0]["first"] = True
        last = records[-1]
        worker._after_child(last, oom_before, capture_fd, job, workdir)
        last.pop("stdout_head", None)
        position = len(records) - 1
        _output(last, taken.get(position) or (_take(outputs[position], job),
                                              _program.stderr_fields(errors[position], job)),
                job)
        if "stderr_head" not in last and os.fstat(capture_fd).st_size:
            # the child's own setup, before its first test, said why it failed
            last["stderr_head"] = os.pread(capture_fd, _program.STDERR_HEAD, 0).decode(
                "utf-8", "replace")
    return records


def _output(record, taken, job):
    """A test's output and error (as ``_take`` and ``stderr_fields`` found them) on its
    record: the output limit is reached by either, as in a process per test."""
    if taken is None:
        return
    (size, data), errors = taken
    record["stdout_bytes"] = size
    record["stdout"] = base64.b64encode(data).decode("ascii")
    if size >= job["output_bytes"]:
        record["output_capped"] = True
    record.update(errors)


# ---- the child ------------------------------------------------------------------------------

def _series_child(job, total, path, sock_fd, result_fd, capture_fd, workdir):
    """In the forked child: set up once, then one test per pair of descriptors received."""
    try:
        os.setsid()
        os.dup2(capture_fd, 2)
        keep = sorted({sock_fd, result_fd})
        low = 3
        for fd in keep:
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, 1 << 16)
        become_candidate(job, total, workdir)
        # the stack may take the whole memory limit, as in one run per test
        stack = _within_hard(resource.RLIMIT_STACK, job["memory_bytes"])
        resource.setrlimit(resource.RLIMIT_STACK, (stack, stack))
        sock = socket.socket(fileno=sock_fd)
        try:
            with open(path, "rb") as handle:
                code = compile(handle.read(), path, "exec", dont_inherit=True)
        except BaseException:
            code = None  # each run raises it as python3 would
        state = _State(workdir)
    except BaseException as exc:
        _write_raw(result_fd, ("!cannot start the tests: %s" % _safe_str(exc))[:300]
                   .encode("utf-8", "replace"))
        os._exit(3)
    _write_raw(result_fd, b"\n")  # set up: the first test's clock starts
    stop = job.get("stop_on_failure")
    me = os.getpid()
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, 1, 3)
        except OSError:
            break
        if message != b"t" or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            break
        os.dup2(fds[0], 0)
        os.dup2(fds[1], 1)
        os.dup2(fds[2], 2)
        for fd in fds:
            os.close(fd)
        status = _program.run_main(path, [], code)
        if os.getpid() != me:
            # a copy the program forked ran to its end: it exits, as it would in a process
            # of its own (it never speaks for the child)
            os._exit(status)
        last = not state.restore() or (stop and status != 0)
        # "." : the child ends after this test (the worker starts another for the rest)
        _write_raw(result_fd, b"%d%s\n" % (status, b"." if last else b""))
        if last:
            break
    os._exit(0)


class _State:
    """What a program may change in the interpreter, as it was before the first test."""

    def __init__(self, workdir):
        import builtins
        import gc
        import sys

        self.workdir = workdir
        self.modules = set(sys.modules)
        self.builtins = dict(builtins.__dict__)
        self.path = list(sys.path)
        self.digits = sys.get_int_max_str_digits() if hasattr(
            sys, "get_int_max_str_digits") else None
        self.thresholds = gc.get_threshold()
        self.switch = sys.getswitchinterval()

    def restore(self):
        """Put it back; False when something cannot be (a thread, a timer or a child
        process still running): the child must end."""
        import _thread
        import builtins
        import gc
        import signal
        import sys

        clean = _thread._count() == 0
        if signal.alarm(0) or any(signal.getitimer(which)[0] for which in
                                  (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL,
                                   signal.ITIMER_PROF)):
            clean = False
        for name in list(sys.modules):
            if name not in self.modules:
                del sys.modules[name]
        table = builtins.__dict__
        if len(table) != len(self.builtins) or any(
                table.get(k) is not v for k, v in self.builtins.items()):
            table.clear()
            table.update(self.builtins)
        sys.path[:] = self.path
        if self.digits is not None:
            sys.set_int_max_str_digits(self.digits)
        sys.settrace(None)
        sys.setprofile(None)
        sys.setswitchinterval(self.switch)
        gc.enable()
        gc.set_threshold(*self.thresholds)
        for number in _SIGNALS:
            if signal.getsignal(number) not in (signal.SIG_DFL, signal.SIG_IGN, None):
                clean = False
        try:
            os.chdir(self.workdir)
        except OSError:
            clean = False
        # the test's own garbage (its __main__ and what refers to it) is young: a full
        # collection, which walks what the child inherited too, costs a test's time
        gc.collect(1)
        return clean


__all__ = ["can_series", "run_series"]
