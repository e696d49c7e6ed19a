"""Jobs of whole programs (program problems): standard input in, standard output back.

A program job (its ``build`` says ``"program": true``) is compiled once like any job of
another language (``NativeWorker._build``: the judge's compile cache, or the compile
commands under the compile limits), then each test runs the program once, in a fresh work
directory, with:

- the test's standard input from a file that is opened and unlinked before the program
  starts (no path to it exists while the program runs);
- its arguments appended to the run command, and its input files written into the work
  directory;
- standard output into a private memory file bounded by the output limit (the file size
  rlimit), standard error into the capture file (its head is kept for messages);
- the test's CPU, wall-clock and memory limits, the candidate's time budget, the candidate's
  user, the same supervision as every other test child.

The record sent back holds the program's standard output (base64, at most the output limit;
``output_capped`` when it reached it), its exit code or the signal or limit that stopped it,
and the measurements. Expected outputs never come here: the judge checks the output on its
side. An output validator is run the same way (it is a program too), with the files it reads
(the test's input and answer) and an empty feedback folder, whose files come back bounded.
"""

import base64
import os
import resource
import stat
import time

from .child import _safe_str, _write_raw, become_candidate
from .files import _chown_below, _make_parents, _remove_tree, _reset_capture
from .native import _native_env, _within_hard
from .program_batch import can_series, run_series
from .records import BUDGET_SPENT, EXITED, SETUP_ERROR, SPOILED
from .relay import Relay, relay_pipes
from .supervise import supervise
from .system import _counters, kill_leftovers
from .worker import Budget

#: bytes kept of the program's standard error, and of each feedback file
STDERR_HEAD = 2048
FEEDBACK_BYTES = 4096
FEEDBACK_FILES = 8


def is_program(job):
    return isinstance(job, dict) and isinstance(job.get("build"), dict) and \
        bool(job["build"].get("program"))


def _inside(base, name):
    target = os.path.normpath(os.path.join(base, name))
    if not target.startswith(base + os.sep):
        raise ValueError("a file outside the work directory: %r" % name)
    return target


def _write_inputs(workdir, files, uid, gid):
    """The test's input files (name -> base64) in its work directory, the candidate's."""
    for name, data in sorted(files.items()):
        target = _inside(workdir, name)
        _make_parents(workdir, target)
        with open(target, "wb") as handle:
            handle.write(base64.b64decode(data))
        os.chmod(target, 0o644)
    if uid is not None:
        _chown_below(workdir, uid, gid)


def _private_file(name):
    """A fresh memory file (a private temporary file where there are none), read-write."""
    try:
        return os.memfd_create(name, os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        import tempfile

        handle, path = tempfile.mkstemp()
        os.unlink(path)
        return handle


def _stream(job, ref):
    """Stream ``ref`` of the job (the bytes the judge sent after its line, kept in a private
    file by ``Channel.read_streams``): a descriptor of its own, at the start."""
    streams = job.get("_streams") or []
    if type(ref) is not int or not 0 <= ref < len(streams):
        raise ValueError("no input stream %r" % (ref,))
    fd = os.dup(streams[ref])
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _test_stdin(job, spec):
    """The test's standard input in a private file, at its start: its stream
    (``stdin_stream``: a program test's input, streamed), else the inline base64 text."""
    if spec.get("stdin_stream") is not None:
        return _stream(job, spec["stdin_stream"])
    return _stdin_fd(base64.b64decode(spec.get("stdin") or ""))


def _write_streamed(workdir, job, streamed):
    """The test's input files that came as streams (name -> stream: a test folder's files,
    an output validator's input and answer) in its work directory, copied a bounded piece
    at a time (``_write_inputs`` then gives them to the candidate)."""
    for name, ref in sorted(streamed.items()):
        target = _inside(workdir, name)
        _make_parents(workdir, target)
        source = _stream(job, ref)
        try:
            with open(target, "wb") as handle:
                while True:
                    piece = os.read(source, 1 << 20)
                    if not piece:
                        break
                    handle.write(piece)
        finally:
            os.close(source)
        os.chmod(target, 0o644)


def _stdin_fd(data):
    """The test's standard input: written to a private file and rewound; the child gets it
    read-only (through /proc, so the program cannot write into the judge's copy)."""
    fd = _private_file("judge-stdin")
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _program_child(job, limits, command, env, stdin_fd, out_fd, err_fd, workdir, error_fd,
                   in_worker=None):
    """In the forked child: a session of its own, stdin/stdout/stderr, no other descriptor,
    the candidate's user, its work directory, the rlimits, then exec (or, for a Python
    program run by the worker's own interpreter, ``in_worker``: its path, run here as
    ``__main__``). A set-up or exec failure is reported on ``error_fd`` (close-on-exec:
    silent when the exec works)."""
    try:
        os.setsid()
        try:
            readonly = os.open("/proc/self/fd/%d" % stdin_fd, os.O_RDONLY)
        except OSError:
            readonly = stdin_fd
        os.dup2(readonly, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        os.closerange(3, error_fd)
        os.closerange(error_fd + 1, 1 << 16)
        become_candidate(job, limits, workdir)
        # the stack may take the whole memory limit, as on Kattis and DOMjudge (deep
        # recursion is common in contest solutions); the memory limit still bounds it
        stack = _within_hard(resource.RLIMIT_STACK, job["memory_bytes"])
        resource.setrlimit(resource.RLIMIT_STACK, (stack, stack))
        if in_worker is not None:
            os.close(error_fd)
            _run_python(in_worker, command[2:])  # never returns (command: python3 main argv)
        os.execve(command[0], command, env)
    except BaseException as exc:
        _write_raw(error_fd, ("cannot start %s: %s" % (command[0], _safe_str(exc)))[:300]
                   .encode("utf-8", "replace"))
    os._exit(3)


def _run_python(path, argv):
    """Run a Python program in this (forked) interpreter as ``python3 path argv...`` would
    (``run_main``), then end the process with its exit status. The interpreter start-up
    (tens of milliseconds a test) is the worker's, paid once."""
    os._exit(run_main(path, argv))


def standard_streams():
    """Fresh text streams on descriptors 0-2, as a starting interpreter makes them."""
    import io

    return (io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                             encoding="utf-8"),
            io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                             encoding="utf-8"),
            io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                             errors="backslashreplace", write_through=True))


def run_main(path, argv, code=None):
    """Run a Python program as ``python3 path argv...`` would: ``__main__``, fresh standard
    streams on descriptors 0-2, ``sys.exit`` and uncaught exceptions as exit codes,
    non-daemon threads and ``atexit`` handlers awaited. Returns the exit status. ``code``:
    the program already compiled (a batch compiles it once)."""
    import builtins
    import sys
    import types

    status = 0
    sys.stdin, sys.stdout, sys.stderr = standard_streams()
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
    sys.argv = [path] + list(argv)
    sys.path[0:0] = [os.path.dirname(path)]
    sys.setrecursionlimit(1000)
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __builtins__=builtins, __cached__=None)
    sys.modules["__main__"] = main
    try:
        if code is None:
            with open(path, "rb") as handle:
                source = handle.read()
            code = compile(source, path, "exec", dont_inherit=True)
        exec(code, main.__dict__)
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except BaseException as exc:
        import traceback

        # the program's own frames, not this function's
        traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next)
        status = 1
    try:
        _join_threads(sys)
        import atexit

        atexit._run_exitfuncs()
        sys.stdout.flush()
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except BaseException:
        status = status or 120  # what python3 does when it cannot flush its output
    return status


def _join_threads(sys):
    """Wait for the program's non-daemon threads, as the interpreter does at exit."""
    threading = sys.modules.get("threading")
    if threading is None:
        return
    main = threading.main_thread()
    while True:  # threads may start others as they end
        waiting = [t for t in threading.enumerate() if t is not main and not t.daemon]
        if not waiting:
            return
        for thread in waiting:
            thread.join()


def _exit_status(code):
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys_stderr = __import__("sys").stderr
        sys_stderr.write("%s\n" % (code,))
    except BaseException:
        pass
    return 1


def _command(build, builddir, workdir, argv):
    places = {"{build}": builddir, "{tmp}": os.path.join(workdir, "tmp")}
    command = []
    for part in build["run"]:
        for key, value in places.items():
            part = part.replace(key, value)
        command.append(part)
    return command + [str(arg) for arg in argv]


def _feedback(folder):
    """The feedback files an output validator wrote (name -> text), bounded."""
    found = {}
    try:
        names = sorted(os.listdir(folder))[:FEEDBACK_FILES]
    except OSError:
        return found
    for name in names:
        try:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                found[name] = os.read(fd, FEEDBACK_BYTES).decode("utf-8", "replace")
        finally:
            os.close(fd)
    return found


def _kept(folder, limit):
    """Every regular file of a feedback folder (name -> base64), together at most
    ``limit`` bytes; ``{"": "too large"}`` past it."""
    kept, total = {}, 0
    try:
        names = sorted(os.listdir(folder))[:64]
    except OSError:
        return kept
    for name in names:
        try:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            data = os.pread(fd, limit - total + 1, 0)
        finally:
            os.close(fd)
        total += len(data)
        if total > limit:
            return {"": "too large"}
        kept[name] = base64.b64encode(data).decode("ascii")
    return kept


def _open_beneath(base, name):
    """A regular file ``name`` (relative) under ``base`` opened for reading, every component
    without following a link (a program's link to a folder or file of the worker's never
    leads out); None when there is none."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or ".." in parts or name.startswith("/"):
        return None
    fds = []
    try:
        fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
        fds.append(fd)
        for part in parts[:-1]:
            fd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            fds.append(fd)
        found = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    except OSError:
        return None
    finally:
        for fd in fds:
            os.close(fd)
    if not stat.S_ISREG(os.fstat(found).st_mode):
        os.close(found)
        return None
    return found


def _fetch_root(name, roots, workroot):
    """Where an absolute ``name`` may be read from: ``(root, relative)`` when it lies in one
    of the worker's private folders (``roots``: its own tmpfs, wiped per candidate: /tmp,
    /mnt...), never inside the worker's work root; else None."""
    for root in roots:
        base = root.rstrip("/")
        if not base or not name.startswith(base + "/"):
            continue
        if workroot and (name + "/").startswith(workroot.rstrip("/") + "/"):
            return None
        return base, name[len(base) + 1:]
    return None


def _fetched(workdir, names, limit, roots=(), workroot=None):
    """The files a run left that the job asked back (name -> base64; at most 64, together
    at most ``limit`` bytes: past it, ``{"": "too large"}``). A relative name is read in the
    work directory, an absolute one only in the worker's private folders (``roots``, as
    SandboxFusion's programs may write /mnt/b); a name that is not there, not a regular
    file, or anywhere else is left out."""
    fetched, total = {}, 0
    for name in list(names)[:64]:
        if not isinstance(name, str) or len(name) > 4096:
            continue
        if name.startswith("/"):
            where = _fetch_root(name, roots, workroot)
            fd = _open_beneath(*where) if where else None
        else:
            fd = _open_beneath(workdir, name)
        if fd is None:
            continue
        try:
            data = os.pread(fd, limit - total + 1, 0)
        finally:
            os.close(fd)
        total += len(data)
        if total > limit:
            return {"": "too large"}
        fetched[name] = base64.b64encode(data).decode("ascii")
    return fetched


def stderr_fields(fd, job, head=STDERR_HEAD):
    """What a run's standard error (the file at ``fd``) adds to its record: its head
    (``head`` bytes: a build may ask for more, ``stderr_bytes``) and tail (a message quotes
    them) and, once it reached the output limit, ``output_capped``.
    Standard error shares the output limit: one rule for a process per test and for the
    tests of a series (``program_batch``), so a flood is ``output_limit`` on both."""
    size = os.fstat(fd).st_size
    if not size:
        return {}
    head = max(STDERR_HEAD, min(int(head), job["output_bytes"]))
    fields = {"stderr_head": os.pread(fd, head, 0).decode("utf-8", "replace")}
    if size > head:  # where a Python traceback says what was raised
        fields["stderr_tail"] = os.pread(
            fd, STDERR_HEAD, min(size, job["output_bytes"]) - STDERR_HEAD
        ).decode("utf-8", "replace")
    if size >= job["output_bytes"]:
        fields["output_capped"] = True
    return fields


def _failed(record, build):
    """Whether a run failed: stopped, capped, or an exit code other than the one that
    accepts (0 for a program; 42 for an output validator, ``accept_exit``)."""
    return record.get("status") != EXITED or \
        record.get("exit_code") != build.get("accept_exit", 0) or record.get("output_capped")


def run_test(worker, job, index, test, limits, build, capture_fd, builddir, workdir):
    """One run of the program on one test; returns its record."""
    spec = test.get("args") if isinstance(test.get("args"), dict) else {}
    uid, gid = job.get("uid"), job.get("gid")
    record = {"event": "test", "index": index}
    stdin_fd = out_fd = None
    try:
        _write_streamed(workdir, job, spec.get("file_streams") or {})
        _write_inputs(workdir, spec.get("files") or {}, uid, gid)
        feedback = spec.get("feedback")
        if feedback:
            folder = _inside(workdir, feedback)
            os.mkdir(folder, 0o700)
            if uid is not None:
                os.chown(folder, uid, gid)
        relay_fds = relay_pipes() if spec.get("relay") else None
        stdin_fd = relay_fds[0] if relay_fds else _test_stdin(job, spec)
        out_fd = _private_file("judge-stdout")
        for name, data in sorted((spec.get("feedback_files") or {}).items() if feedback
                                 else ()):
            # what an earlier pass of a multi-pass test left in the feedback folder
            target = _inside(folder, name)
            with open(target, "wb") as handle:
                handle.write(base64.b64decode(data))
            if uid is not None:
                os.chown(target, uid, gid)
    except Exception as exc:  # any failure to set the test up is ours
        # (a path too deep or too long, a bad name, a full disk): setup_error, never a
        # verdict of the candidate's, and never an exception that ends the worker's job
        for fd in (stdin_fd, out_fd):
            if fd is not None:
                os.close(fd)
        record.update({"status": SETUP_ERROR, "message": "preparing the test: %s" % exc})
        return record
    _reset_capture(capture_fd)
    command = _command(build, builddir, workdir, spec.get("argv") or [])
    env = _native_env(build, workdir)
    error_read, error_write = os.pipe2(os.O_CLOEXEC)
    quiet_read, quiet_write = os.pipe()  # supervise's result channel: programs write none
    oom_before = _counters()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(error_read)
        os.close(quiet_read)
        in_worker = build.get("in_worker")
        if relay_fds:
            os.close(relay_fds[1])
            os.close(relay_fds[2])
        _program_child(job, limits, command, env, stdin_fd,
                       relay_fds[3] if relay_fds else out_fd, capture_fd, workdir,
                       error_write, os.path.join(builddir, in_worker) if in_worker else None)
        os._exit(4)  # not reached
    os.close(error_write)
    os.close(quiet_write)
    os.close(stdin_fd)
    relay = None
    if relay_fds:
        os.close(relay_fds[3])
        relay = Relay(worker.channel, pid, relay_fds[1], relay_fds[2])
        relay.start()
    try:
        outcome, _ = supervise(pid, quiet_read, job, limits, started, me=worker.me)
        failed = os.read(error_read, 400)
    finally:
        os.close(quiet_read)
        os.close(error_read)
        if relay is not None:
            kill_leftovers(worker.me)  # nothing it started keeps the pipes open
            relay.finish()
    try:
        exit_code = outcome.pop("exit_code", None)
        record.update(outcome)
        if failed:
            record.update({"status": SETUP_ERROR,
                           "message": failed.decode("utf-8", "replace")})
        elif "status" not in record:
            record["status"] = EXITED
            record["exit_code"] = exit_code
        # leftovers, OOM, output, files
        worker._after_child(record, oom_before, out_fd, job, workdir)
        record.pop("stdout_head", None)
        size = os.fstat(out_fd).st_size
        record["stdout_bytes"] = size
        record["stdout"] = base64.b64encode(
            os.pread(out_fd, min(size, job["output_bytes"]), 0)).decode("ascii")
        record.update(stderr_fields(capture_fd, job, build.get("stderr_bytes", STDERR_HEAD)))
        output_file = spec.get("output_file")
        if isinstance(output_file, str) and output_file:
            # the answer is a file the program writes (input.txt/output.txt problems): what
            # it left there is judged, at most the output limit (its size was capped too)
            record["console_bytes"] = size
            fd = _open_beneath(workdir, output_file)
            data = b""
            if fd is None:
                record["output_file_missing"] = output_file
            else:
                try:
                    data = os.pread(fd, job["output_bytes"], 0)
                finally:
                    os.close(fd)
            record["stdout_bytes"] = len(data)
            record["stdout"] = base64.b64encode(data).decode("ascii")
        if spec.get("fetch"):  # files the run left, asked back (SandboxFusion's fetch_files)
            record["fetched"] = _fetched(workdir, spec["fetch"], job["output_bytes"],
                                         worker.wipe_dirs, worker.workroot)
        if feedback:
            record["feedback"] = _feedback(os.path.join(workdir, feedback))
            keep = spec.get("feedback_keep")
            if keep:  # a multi-pass validator's state and next input: whole, bounded
                record["feedback_kept"] = _kept(os.path.join(workdir, feedback),
                                                job["output_bytes"])
    finally:
        os.close(out_fd)
    return record


def run_program_job(worker, job):
    """Compile once, then run every test (see the module doc)."""
    send = worker.channel.send
    send({"event": "job", "id": job["id"]})
    build = job.get("build") or {}
    job["_nproc"] = worker._nproc(job)
    builddir = worker._workdir(job)
    capture_path = os.path.join(worker.workroot, ".capture-%d" % worker.me)
    capture_fd = os.open(capture_path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    os.unlink(capture_path)
    # a job with expected answers (an output validator's) leaves them in this process's
    # memory, which every later forked child would inherit: the worker is replaced after it
    recycle = bool(build.get("confidential"))
    try:
        try:
            record, go_on = worker._build(job, build, capture_fd, builddir)
        except (OSError, ValueError) as exc:  # zipfile.BadZipFile is a ValueError
            record, go_on = {"event": "error", "message": "preparing the build: %s" % exc}, False
        send(record)
        if not go_on:
            return
        if job.get("budget") is None and can_series(job, build):
            recycle = run_series(worker, job, build, capture_fd, builddir, send) or recycle
            return
        budget = Budget(job.get("budget"))
        candidate_ran = False
        for index, test in enumerate(job["tests"]):
            limits = budget.limits_for(test)
            if limits is None:
                send({"event": "test", "index": index, "status": BUDGET_SPENT,
                      "budget_s": budget.cpu})
                continue
            workdir = worker._workdir(job)
            try:
                record = run_test(worker, job, index, test, limits, build, capture_fd,
                                  builddir, workdir)
            finally:
                _remove_tree(workdir)
            if record["status"] == SETUP_ERROR and candidate_ran:
                record["status"] = SPOILED
            candidate_ran = candidate_ran or record["status"] != SETUP_ERROR
            budget.charge(record, limits)
            send(record)
            recycle = recycle or record.get("leftovers", 0) < 0
            if record["status"] in (SETUP_ERROR, SPOILED):
                break
            if job.get("stop_on_failure") and _failed(record, build):
                break
    finally:
        os.close(capture_fd)
        _remove_tree(builddir)
        worker.wipe_leftovers()
        send({"event": "end", "id": job["id"], "recycle": recycle})


__all__ = ["is_program", "run_program_job"]
