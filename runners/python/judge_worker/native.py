"""Jobs of the compiled and other non-Python languages.

The worker stays the supervisor: the same limits, memory watcher, output cap, leftover killing
and records as for Python. Only what runs in a test's child differs: instead of calling a
Python function the child execs the candidate's program (compiled once per job, or taken from
the judge's compile cache), which reads the test's arguments as wire data from a file and
writes one result record to file descriptor 3. Everything language-specific (files, compile
and run commands, environment) comes with the job from judge/languages/; this module knows no
language.
"""

import json
import os
import resource
import time

from .child import CANDIDATE_MARK, _child_setup, _safe_str, _write_raw
from .files import _remove_tree, _reset_capture
from .records import (
    EXITED,
    MISSING_FUNCTION,
    RETURNED,
    SETUP_ERROR,
    SIGNALED,
    SPOILED,
    SYNTAX_CHECK,
)
from .supervise import (
    NATIVE_FIELDS,
    _bounded_line,
    _parse_child_result,
    _split_mark,
    supervise,
)
from .system import _counters, kill_leftovers
from .worker import Worker

RESULT_FD = 3
NATIVE_CAPTURE_HEAD = 8192
def _chown_tree(path, uid, gid):
    if uid is None:
        return
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            try:
                os.lchown(os.path.join(root, name), uid, gid)
            except OSError:
                pass
    try:
        os.lchown(path, uid, gid)
    except OSError:
        pass


def source_bytes(text):
    """A candidate's source text as the bytes of its file: UTF-8, a lone surrogate (valid in
    JSON and Python strings, not in UTF-8) written as its ``surrogatepass`` bytes. The file
    is then invalid UTF-8 that the compiler or interpreter judges (a compile error, or a
    comment it ignores), as it would judge the same bytes anywhere: never our failure."""
    return text.encode("utf-8", "surrogatepass")


def _write_files(base, files, uid, gid):
    for name, text in files.items():
        target = os.path.normpath(os.path.join(base, name))
        if not target.startswith(base + os.sep):
            raise ValueError("file outside the work directory: %r" % name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(source_bytes(text))
    _chown_tree(base, uid, gid)


def _pack(base, paths, limit):
    """The compile products as a zip (base64), for the judge's compile cache; None when
    there are none or they are too big to be worth sending."""
    import base64 as _b64
    import io as _io
    import zipfile as _zipfile  # only here: the worker forks per
    # test, and every module it holds is memory each fork copies the page tables of

    buffer = _io.BytesIO()
    with _zipfile.ZipFile(buffer, "w", _zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for relative in paths:
            top = os.path.join(base, relative)
            if os.path.isdir(top):
                for root, _, files in os.walk(top):
                    for name in files:
                        full = os.path.join(root, name)
                        archive.write(full, os.path.relpath(full, base))
            elif os.path.exists(top):
                archive.write(top, relative)
            else:
                return None
    data = buffer.getvalue()
    if len(data) > limit:
        return None
    return _b64.b64encode(data).decode("ascii")


def _unpack(base, artifact):
    import base64 as _b64
    import io as _io
    import zipfile as _zipfile

    with _zipfile.ZipFile(_io.BytesIO(_b64.b64decode(artifact))) as archive:
        for info in archive.infolist():
            target = os.path.normpath(os.path.join(base, info.filename))
            if not target.startswith(base + os.sep):
                raise ValueError("bad path in artifact")
            archive.extract(info, base)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(target, mode)


def _within_hard(which, wanted):
    hard = resource.getrlimit(which)[1]
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


def _exec_child(job, limits, command, env, result_fd, capture_fd, workdir, error_fd):
    """In a forked child: the usual setup (session, capture, user, rlimits), the mark that
    set-up is over, the result pipe as fd 3, then exec. Nothing of the worker survives the
    exec. An exec that fails is reported on ``error_fd`` (close-on-exec: it stays silent when
    the exec works), so a missing toolchain is ours (setup_error), never the candidate's."""
    _child_setup(job, limits, result_fd, capture_fd, workdir, keep_fd=error_fd)
    if command[0] == SYNTAX_CHECK:
        _syntax_check(command[1:])  # does not return
    try:
        _write_raw(result_fd, CANDIDATE_MARK)
        if result_fd != RESULT_FD:
            os.dup2(result_fd, RESULT_FD)
            os.close(result_fd)
        else:
            os.set_inheritable(RESULT_FD, True)
        os.execve(command[0], command, env)
    except BaseException as exc:
        _write_raw(error_fd, ("cannot start %s: %s" % (command[0], _safe_str(exc)))[:300]
                   .encode("utf-8", "replace"))
    os._exit(3)


def _syntax_check(names):
    """In the compile child (the candidate's user, the compile limits): compile each file;
    the first error as ``file:line: error: message`` on the captured output, exit 1."""
    status = 0
    try:
        for name in names:
            with open(name, "rb") as handle:
                source = handle.read()
            try:
                compile(source, name, "exec", dont_inherit=True)
            except (SyntaxError, ValueError) as exc:
                os.write(1, ("%s:%s: error: %s\n" % (name, getattr(exc, "lineno", "?"), _safe_str(
                    getattr(exc, "msg", exc)))).encode("utf-8", "replace"))
                status = 1
                break
    except BaseException as exc:  # what python3 -c would print and exit 1 with
        try:
            os.write(2, ("%s: %s\n" % (type(exc).__name__, _safe_str(exc)))[:2000]
                     .encode("utf-8", "replace"))
        except BaseException:
            pass
        status = 1
    os._exit(status)


def _seal(path, uid):
    """After the compile: the build products belong to the worker and are read-only to the
    candidate (when it runs as another user), so no test can change what the next one runs."""
    if uid is None:
        mode_dir, mode_file = 0o555, 0o555
    else:
        mode_dir, mode_file = 0o755, 0o755
    me, group = os.getuid(), os.getgid()
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            full = os.path.join(root, name)
            if os.path.islink(full):
                continue
            if uid is not None:
                os.lchown(full, me, group)
            os.chmod(full, mode_dir if name in dirs else mode_file)
    if uid is not None:
        os.lchown(path, me, group)
    os.chmod(path, mode_dir)


def _native_env(build, workdir):
    env = dict(build.get("env") or {})
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.setdefault("LANG", "C.UTF-8")
    env["HOME"] = workdir
    env["TMPDIR"] = os.path.join(workdir, "tmp")
    return env


class NativeWorker(Worker):
    """The worker, also for jobs whose ``language`` is not Python. Same isolation as a Python
    test: the candidate's user, the rlimits, the whole-candidate CPU and memory accounting,
    the network and /tmp of the worker, a fresh work directory per test."""

    def run_job(self, job):
        if job.get("language", "python") == "python":
            return super().run_job(job)
        return self.run_native_job(job)

    def _capture_head(self, capture_fd, size=NATIVE_CAPTURE_HEAD):
        return os.pread(capture_fd, size, 0)

    def _spawn(self, job, limits, command, env, capture_fd, workdir):
        """One process of the candidate (a compiler or a test), supervised like a Python
        test child. Returns (outcome, marked, raw result, exec error)."""
        _reset_capture(capture_fd)
        read_fd, write_fd = os.pipe()
        error_read, error_write = os.pipe2(os.O_CLOEXEC)
        # a runtime that can only reopen fd 3 by path (the JVM: /proc/self/fd/3) must be able
        # to, as the candidate's user; the pipe is private to this child anyway
        os.fchmod(write_fd, 0o622)
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            os.close(error_read)
            _exec_child(job, limits, command, env, write_fd, capture_fd, workdir, error_write)
            os._exit(4)  # not reached
        os.close(write_fd)
        os.close(error_write)
        try:
            outcome, raw = supervise(pid, read_fd, job, limits, started, me=self.me)
            failed = os.read(error_read, 400)
        finally:
            os.close(read_fd)
            os.close(error_read)
        marked, raw = _split_mark(raw)
        return outcome, marked, raw, failed.decode("utf-8", "replace") if failed else None

    def _compile(self, job, build, capture_fd, builddir):
        """Run the compile commands in the build directory under the compile limits. Returns
        None on success, else a record for the judge (the compiler's output head, status)."""
        compile_job = dict(job)
        compile_job["memory_bytes"] = build.get("compile_memory_bytes", 2 << 30)
        # within the hard limits the worker itself was given (a container's ulimits)
        compile_job["output_bytes"] = _within_hard(resource.RLIMIT_FSIZE,
                                                   build.get("compile_file_bytes", 512 << 20))
        compile_job["nofile"] = _within_hard(resource.RLIMIT_NOFILE,
                                             max(job.get("nofile", 64), 1024))
        if compile_job.get("_nproc"):
            compile_job["_nproc"] = compile_job["_nproc"] + build.get("compile_nproc", 256)
        limits = {"time_limit": build.get("compile_cpu_s", 60.0),
                  "wall_limit": build.get("compile_wall_s", 120.0)}
        env = _native_env(build, builddir)
        started = time.monotonic()
        for command in build.get("compile") or []:
            outcome, _, _, failed = self._spawn(compile_job, limits, command, env, capture_fd,
                                                builddir)
            kill_leftovers(self.me)
            if failed:
                return {"event": "error", "message": failed}
            status = outcome.get("status")
            exit_code = outcome.get("exit_code", 0)
            if status is None and exit_code == 0:
                continue
            output = self._capture_head(capture_fd).decode("utf-8", "replace")
            return {"event": "compile", "ok": False, "output": output, "status": status or "failed",
                    "exit_code": exit_code, "signal": outcome.get("signal"),
                    "compile_s": round(time.monotonic() - started, 4),
                    "error": (output.strip() or status or "exit status %s" % exit_code)[:2000]}
        return {"compile_s": round(time.monotonic() - started, 4)}

    def _build(self, job, build, capture_fd, builddir):
        """The candidate's program in ``builddir``: unpacked from the judge's compile cache or
        compiled now. Returns the compile record to send, and whether to go on."""
        uid, gid = job.get("uid"), job.get("gid")
        if build.get("artifact"):
            _unpack(builddir, build["artifact"])
            _write_files(builddir, build.get("run_files") or {}, uid, gid)
            _seal(builddir, uid)
            return {"event": "compile", "ok": True, "cached": True, "compile_s": 0.0}, True
        _write_files(builddir, build.get("files") or {}, uid, gid)
        failed = self._compile(job, build, capture_fd, builddir)
        if failed.get("event"):
            return failed, False
        artifact = _pack(builddir, build.get("artifacts") or [],
                         build.get("artifact_bytes", 24 << 20))
        _seal(builddir, uid)
        return {"event": "compile", "ok": True, "cached": False,
                "compile_s": failed["compile_s"], "artifact": artifact}, True

    def run_native_job(self, job):
        send = self.channel.send
        send({"event": "job", "id": job["id"]})
        build = job.get("build") or {}
        job["_nproc"] = self._nproc(job)
        builddir = self._workdir(job)
        capture_path = os.path.join(self.workroot, ".capture-%d" % self.me)
        capture_fd = os.open(capture_path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        os.unlink(capture_path)
        recycle = False
        try:
            try:
                record, go_on = self._build(job, build, capture_fd, builddir)
            except (OSError, ValueError) as exc:  # zipfile.BadZipFile is a ValueError
                record = {"event": "error", "message": "preparing the build: %s" % exc}
                go_on = False
            send(record)
            if not go_on:
                return
            line_limit = job["value_bytes"] + 32768
            candidate_ran = False
            for index, test in enumerate(job["tests"]):
                workdir = self._workdir(job)  # a fresh one per test, as for Python
                try:
                    record = self._run_native_test(job, index, test, build, capture_fd,
                                                   builddir, workdir)
                finally:
                    _remove_tree(workdir)
                if record["status"] == SETUP_ERROR and candidate_ran:
                    record["status"] = SPOILED
                    record["message"] = ("the test could not be set up after the candidate's "
                                         "earlier tests ran: %s" % record.get("message"))
                candidate_ran = candidate_ran or record["status"] != SETUP_ERROR
                self.channel.send_line(_bounded_line(record, line_limit))
                recycle = recycle or record.get("leftovers", 0) < 0
                if record["status"] in (MISSING_FUNCTION, SETUP_ERROR, SPOILED):
                    break
                if job.get("stop_on_failure") and record["status"] != RETURNED:
                    break
        finally:
            os.close(capture_fd)
            _remove_tree(builddir)
            self.wipe_leftovers()
            send({"event": "end", "id": job["id"], "recycle": recycle})

    def _run_native_test(self, job, index, test, build, capture_fd, builddir, workdir):
        args_path = os.path.join(workdir, ".args.json")
        with open(args_path, "w", encoding="utf-8") as handle:
            json.dump(test["args"], handle, separators=(",", ":"))
        os.chmod(args_path, 0o644)
        oom_before = _counters()
        places = {"{args}": args_path, "{build}": builddir, "{tmp}": os.path.join(workdir, "tmp")}
        command = []
        for part in build["run"]:
            for key, value in places.items():
                part = part.replace(key, value)
            command.append(part)
        outcome, marked, raw, failed = self._spawn(job, test, command, _native_env(build, workdir),
                                                   capture_fd, workdir)
        exit_code = outcome.pop("exit_code", 0)
        record = {"event": "test", "index": index}
        record.update(outcome)
        if failed:
            record.update({"status": SETUP_ERROR, "message": failed})
        elif raw is not None:
            record.update(_parse_child_result(raw, exit_code, NATIVE_FIELDS, marked=marked))
        self._classify(record, capture_fd)
        self._after_child(record, oom_before, capture_fd, job, workdir)
        if record.get("output_capped") and record.get("status") != RETURNED:
            # the file size limit stopped its output; some runtimes (Go, Node) ignore SIGXFSZ
            # and go on failing to write, then die of something else: the cause is the output
            record["cause"] = record.get("status")
            record["status"] = SIGNALED
            record["signal"] = "SIGXFSZ"
        return record

    def _classify(self, record, capture_fd):
        """A death keeps the head of what the program printed (the panic, the exception, the
        signal's context, a runtime's out-of-memory message). What it means is the judge's
        to decide, from what was measured (judge.engine.classify), never the worker's
        from the text."""
        if record.get("status") in (EXITED, SIGNALED):
            head = self._capture_head(capture_fd)
            if head:
                record["stderr_head"] = head.decode("utf-8", "replace")
