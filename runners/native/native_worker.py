# ---- compiled and other non-Python languages (runners/native/native_worker.py) ----------
# Appended to the Python worker by judge.sandbox.harness.render_worker(). The worker stays the
# supervisor: the same limits, memory watcher, output cap, leftover killing and records as
# for Python. Only what runs in a test's child differs: instead of calling a Python function
# the child execs the candidate's program (compiled once per job, or taken from the judge's
# compile cache), which reads the test's arguments as wire data from a file and writes one
# result message to file descriptor 3. Everything language-specific (files, compile and run
# commands, environment) comes with the job from judge/languages/; this part knows no
# language.

import base64 as _b64
import io as _io
import zipfile as _zipfile

RESULT_FD = 3
NATIVE_CAPTURE_HEAD = 8192
#: messages a runtime prints when it runs out of memory: the verdict is memory_limit
OOM_MARKERS = (
    b"fatal error: runtime: out of memory",       # Go
    b"runtime: out of memory",                    # Go
    b"JavaScript heap out of memory",             # Node.js (V8 heap limit)
    b"java.lang.OutOfMemoryError",                # JVM, outside the harness
    b"memory allocation of ",                     # Rust's alloc error handler
    b"std::bad_alloc",                            # C++ uncaught
)


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


def _write_files(base, files, uid, gid):
    for name, text in files.items():
        target = os.path.normpath(os.path.join(base, name))
        if not target.startswith(base + os.sep):
            raise ValueError("file outside the work directory: %r" % name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)
    _chown_tree(base, uid, gid)


def _pack(base, paths, limit):
    """The compile products as a zip (base64), for the judge's compile cache; None when
    there are none or they are too big to be worth sending."""
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


def _exec_child(job, limits, command, env, result_fd, capture_fd, workdir):
    """In a forked child: the usual setup (session, capture, user, rlimits), the result pipe
    as fd 3, then exec. Nothing of the worker survives the exec."""
    _child_setup(job, limits, result_fd, capture_fd, workdir)
    try:
        if result_fd != RESULT_FD:
            os.dup2(result_fd, RESULT_FD)
            os.close(result_fd)
        else:
            os.set_inheritable(RESULT_FD, True)
        os.execve(command[0], command, env)
    except BaseException as exc:
        try:
            _write(RESULT_FD, {"status": "setup_error",
                               "message": ("cannot start %s: %s" % (command[0], _safe_str(exc)))[:300]})
        finally:
            os._exit(3)


class NativeWorker(Worker):
    """The worker, also for jobs whose ``language`` is not Python."""

    def run_job(self, job):
        if job.get("language", "python") == "python":
            return super().run_job(job)
        return self.run_native_job(job)

    def _capture_head(self, capture_fd, size=NATIVE_CAPTURE_HEAD):
        return os.pread(capture_fd, size, 0)

    def _spawn(self, job, limits, command, env, capture_fd, workdir):
        os.ftruncate(capture_fd, 0)
        os.lseek(capture_fd, 0, os.SEEK_SET)
        read_fd, write_fd = os.pipe()
        # a runtime that can only reopen fd 3 by path (the JVM: /proc/self/fd/3) must be able
        # to, as the candidate's user; the pipe is private to this child anyway
        os.fchmod(write_fd, 0o622)
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _exec_child(job, limits, command, env, write_fd, capture_fd, workdir)
            os._exit(4)  # not reached
        os.close(write_fd)
        try:
            outcome, raw = supervise(pid, read_fd, job, limits, started)
        finally:
            os.close(read_fd)
        return outcome, raw

    def _compile(self, job, build, capture_fd, workdir):
        """Run the compile commands in the workdir under the compile limits. Returns None on
        success, else a record for the judge (the compiler's output head, the status)."""
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
        env = dict(build.get("env") or {})
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env["HOME"] = workdir
        env["TMPDIR"] = os.path.join(workdir, "tmp")
        started = time.monotonic()
        for command in build.get("compile") or []:
            outcome, raw = self._spawn(compile_job, limits, command, env, capture_fd, workdir)
            kill_leftovers(self.me)
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

    def run_native_job(self, job):
        send = self.channel.send
        send({"event": "job", "id": job["id"]})
        build = job.get("build") or {}
        job["_nproc"] = self._nproc(job)
        workdir = self._workdir(job)
        _candidate_environment(workdir)
        uid, gid = job.get("uid"), job.get("gid")
        capture_path = os.path.join(self.workroot, ".capture-%d" % self.me)
        capture_fd = os.open(capture_path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        os.unlink(capture_path)
        recycle = False
        try:
            try:
                if build.get("artifact"):
                    _unpack(workdir, build["artifact"])
                    _write_files(workdir, build.get("run_files") or {}, uid, gid)
                    _chown_tree(workdir, uid, gid)
                    send({"event": "compile", "ok": True, "cached": True, "compile_s": 0.0})
                else:
                    _write_files(workdir, build.get("files") or {}, uid, gid)
                    failed = self._compile(job, build, capture_fd, workdir)
                    if failed.get("event"):
                        send(failed)
                        return
                    artifact = _pack(workdir, build.get("artifacts") or [],
                                     build.get("artifact_bytes", 24 << 20))
                    send({"event": "compile", "ok": True, "cached": False,
                          "compile_s": failed["compile_s"], "artifact": artifact})
            except (OSError, ValueError, _zipfile.BadZipFile) as exc:
                send({"event": "error", "message": "preparing the build: %s" % exc})
                return
            env = dict(build.get("env") or {})
            env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
            env["HOME"] = workdir
            env["TMPDIR"] = os.path.join(workdir, "tmp")
            run = list(build["run"])
            for index, test in enumerate(job["tests"]):
                record = self._run_native_test(job, index, test, run, env, capture_fd, workdir)
                send(record)
                recycle = recycle or record.get("leftovers", 0) < 0
                if record["status"] in ("missing_function", "setup_error"):
                    break
                if job.get("stop_on_failure") and record["status"] != "returned":
                    break
        finally:
            os.close(capture_fd)
            shutil.rmtree(workdir, onerror=_force_remove)
            for directory in self.wipe_dirs:
                _wipe(directory)
            send({"event": "end", "id": job["id"], "recycle": recycle})

    def _run_native_test(self, job, index, test, run, env, capture_fd, workdir):
        args_path = os.path.join(workdir, ".args-%d.json" % index)
        with open(args_path, "w", encoding="utf-8") as handle:
            json.dump(test["args"], handle, separators=(",", ":"))
        os.chmod(args_path, 0o644)
        oom_before = _oom_kills()
        command = [part.replace("{args}", args_path) for part in run]
        outcome, raw = self._spawn(job, test, command, env, capture_fd, workdir)
        try:
            os.unlink(args_path)
        except OSError:
            pass
        exit_code = outcome.pop("exit_code", 0)
        record = {"event": "test", "index": index}
        record.update(outcome)
        if raw is not None:
            record.update(_parse_child_result(raw, exit_code, CHILD_FIELDS | {"narrow"}))
        status = record.get("status")
        if status in ("exited", "signaled", "raised"):
            head = self._capture_head(capture_fd)
            if record.get("exc_type") in ("MemoryError", "OutOfMemoryError", "std::bad_alloc") or (
                    status != "raised" and any(marker in head for marker in OOM_MARKERS)):
                record["status"] = "memory"
                record["runtime_message"] = head.decode("utf-8", "replace")[:300]
            elif status != "raised" and head:
                record["stderr_head"] = head[-600:].decode("utf-8", "replace")
        self._after_child(record, oom_before, capture_fd, job)
        if record.get("output_capped") and record.get("status") != "returned":
            # the file size limit stopped its output; some runtimes (Go, Node) ignore SIGXFSZ
            # and go on failing to write, then die of something else: the cause is the output
            record["cause"] = record.get("status")
            record["status"] = "signaled"
            record["signal"] = "SIGXFSZ"
        return record


Worker = NativeWorker
