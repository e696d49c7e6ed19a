"""The worker's jobs: a candidate's tests, one forked child each or all in one child,
within the candidate's time budget, with a fresh work directory per child and whatever the
candidate left behind killed and wiped after it."""

import os
import time

from . import system
from .child import STOPPING, compile_candidate, run_batch_child, run_child
from .files import _candidate_environment, _file_reached, _remove_tree, _reset_capture, _wipe
from .records import (
    BUDGET_SPENT,
    EXITED,
    MALFORMED,
    MISSING_FUNCTION,
    RAISED,
    RETURNED,
    SETUP_ERROR,
    SPOILED,
    TIMEOUT,
)
from .supervise import (
    BATCH_FIELDS,
    _bounded_line,
    _decode_args,
    _parse_child_result,
    _split_mark,
    supervise,
)
from .system import _counters, kill_leftovers, wipe_sysv_ipc

#: below this many CPU seconds left, a budget counts as spent (a test could not even load)
BUDGET_EPSILON = 0.005


class Budget:
    """A candidate's time budget over all its tests: CPU seconds, and wall-clock seconds (CPU
    plus time the candidate spent blocked, for sleepers). Each test runs under the smaller of
    its own limits and what is left; a test stopped by what was left is marked
    ``budget_s``, and once nothing is left the remaining tests are not run. Without a budget,
    every test gets its own limits.

    Blocked time is a test's wall-clock time less its CPU time, less the time it waited for a
    CPU, less ``grace`` (the per-test wall slack, ``Limits.wall_extra_s``): our own start-up
    and clean-up of each test are never charged, so a loaded machine does not spend an
    honest candidate's budget."""

    def __init__(self, spec):
        spec = spec if isinstance(spec, dict) else {}
        self.cpu = spec.get("cpu")
        self.cpu_left = self.cpu
        self.wall_left = spec.get("wall")
        self.grace = float(spec.get("grace") or 0.0)

    def limits_for(self, test):
        """The test's limits within the budget, or None when the budget is spent."""
        if self.cpu is None:
            return test
        if self.cpu_left < BUDGET_EPSILON or self.wall_left < BUDGET_EPSILON:
            return None
        limits = dict(test)
        limits["time_limit"] = min(test["time_limit"], self.cpu_left)
        limits["wall_limit"] = min(test["wall_limit"], self.wall_left + self.grace)
        limits["cut"] = {"cpu": limits["time_limit"] < test["time_limit"],
                         "wall": limits["wall_limit"] < test["wall_limit"]}
        return limits

    def charge(self, record, limits):
        """Subtract what the test used; mark a timeout that only the budget caused."""
        if self.cpu is None:
            return
        cpu = float(record.get("cpu_s") or 0.0)
        blocked = (float(record.get("wall_s") or 0.0) - float(record.get("waited_s") or 0.0)
                   - cpu - self.grace)
        self.cpu_left -= cpu
        self.wall_left -= cpu + max(0.0, blocked)
        cut = limits.get("cut") or {}
        if record.get("status") == TIMEOUT and cut.get(record.get("limit"), False):
            record["budget_s"] = self.cpu
            self.cpu_left = self.wall_left = 0.0  # stopped by what was left: nothing is


def _goes_on(record, past_raises):
    """Whether the batch child went on to its next test after this record: after a return,
    and with ``past_raises`` after a call that raised anything but ``STOPPING``."""
    if record["status"] == RETURNED:
        return True
    return past_raises and record["status"] == RAISED and record.get("stage") == "call" \
        and record.get("exc_type") not in STOPPING


def _isolated_order(job):
    """The tests to run one child each: ``only`` (the judge's pick, in its order; indices out
    of range are dropped), else every test from ``first`` on."""
    count = len(job["tests"])
    only = job.get("only")
    if isinstance(only, list):
        return [i for i in only if type(i) is int and 0 <= i < count]
    return list(range(job.get("first", 0), count))


class Worker:
    def __init__(self, channel, workroot, wipe_dirs, network_isolated, own_ipc=False):
        self.channel = channel
        self.workroot = workroot
        self.wipe_dirs = wipe_dirs
        self.network_isolated = network_isolated
        #: the worker has an IPC namespace of its own (it isolates, or is in a container):
        #: only then are the System V IPC objects in it the candidates' to remove
        self.own_ipc = own_ipc
        self.me = os.getpid()
        self.made = 0
        self.environment_set = False

    def _workdir(self, job):
        """A fresh, empty working directory (and TMPDIR) for one child, owned by the
        candidate's user; the environment the child inherits points at it."""
        # a counter, not mkdtemp's random names: only this worker writes in its work root
        # (mode 0711, its own), and a name already taken is skipped
        while True:
            self.made += 1
            path = os.path.join(self.workroot, "job-%d" % self.made)
            try:
                os.mkdir(path, 0o700)
                break
            except FileExistsError:
                continue
        os.mkdir(os.path.join(path, "tmp"))
        if job.get("uid") is not None:
            for where in (path, os.path.join(path, "tmp")):
                os.chown(where, job["uid"], job["gid"])
        os.chmod(path, 0o700)
        if not self.environment_set:
            _candidate_environment(path)
            self.environment_set = True
        else:  # the rest of the environment was set once and nothing here changes it
            os.environ["HOME"] = path
            os.environ["TMPDIR"] = os.path.join(path, "tmp")
        return path

    def _nproc(self, job):
        """RLIMIT_NPROC counts every process of the user: when the candidate shares our user,
        allow what already runs plus the job's budget."""
        budget = job.get("nproc", 32)
        if job.get("uid") is not None:
            return budget
        if os.getuid() == 0:
            return None  # root ignores RLIMIT_NPROC; the process sandbox switches users
        if system.IN_CONTAINER:
            # every container runs as the same host uid, so RLIMIT_NPROC would count the
            # other containers' processes too (one candidate's fork bomb failing another's
            # fork): the container's own pids cgroup limit bounds its processes instead
            return None
        mine = 0
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    if os.stat("/proc/" + entry).st_uid == os.getuid():
                        mine += 1
                except OSError:
                    pass
        return mine + budget

    def run_job(self, job):
        send = self.channel.send
        self.channel.hold()  # "job" and "compile" in one write, before any candidate code runs
        send({"event": "job", "id": job["id"]})
        try:
            code = compile_candidate(job["code"])
        except (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError) as exc:
            message = "%s: %s" % (type(exc).__name__, getattr(exc, "msg", None) or exc)
            send({"event": "compile", "ok": False, "error": message[:500],
                  "line": getattr(exc, "lineno", None)})
            send({"event": "end", "id": job["id"], "recycle": False})
            self.channel.flush()
            return
        send({"event": "compile", "ok": True})
        self.channel.flush()
        job["_nproc"] = self._nproc(job)
        capture_path = os.path.join(self.workroot, ".capture-%d" % self.me)
        capture_fd = os.open(capture_path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        os.unlink(capture_path)
        recycle = self.recycle = False
        try:
            line_limit = job["value_bytes"] + 32768
            args, failed = _decode_args(job["tests"])
            if failed is not None:
                failed.update({"event": "test", "index": 0})
                send(failed)
                return
            if job.get("batch"):
                workdir = self._workdir(job)
                # the batch's records exist only once its child is over: they go out in one
                # write with "end"
                self.channel.hold()
                try:
                    for record in self._run_batch(job, code, capture_fd, workdir, args):
                        self.channel.send_line(_bounded_line(record, line_limit))
                        recycle = recycle or record.get("leftovers", 0) < 0
                finally:
                    _remove_tree(workdir)
                return
            self._run_isolated(job, code, capture_fd, args, line_limit)
        finally:
            os.close(capture_fd)
            self.wipe_leftovers()
            send({"event": "end", "id": job["id"], "recycle": recycle or self.recycle})
            self.channel.flush()
            self.recycle = False

    def wipe_leftovers(self):
        """After a candidate: nothing it left reaches the next one, in the wiped folders nor
        in System V IPC (which lives in no folder). Unisolated, the worker shares the
        host's IPC namespace: what is there is not the candidate's, and stays."""
        for directory in self.wipe_dirs:
            _wipe(directory, keep=self.workroot)
        if self.own_ipc:
            wipe_sysv_ipc()

    def _run_isolated(self, job, code, capture_fd, args, line_limit):
        """One child per test, each in a fresh work directory, within the candidate's budget
        (``Budget``): once it is spent, the remaining tests are reported as not run."""
        budget = Budget(job.get("budget"))
        candidate_ran = False
        order = _isolated_order(job)
        for position, index in enumerate(order):
            limits = budget.limits_for(job["tests"][index])
            if limits is None:
                for rest in order[position:]:
                    self.channel.send({"event": "test", "index": rest, "status": BUDGET_SPENT,
                                       "budget_s": budget.cpu})
                return
            workdir = self._workdir(job)  # a fresh one per test
            try:
                record = self._run_test(job, index, limits, code, capture_fd, workdir,
                                        args[index])
            finally:
                _remove_tree(workdir)
            budget.charge(record, limits)
            if record["status"] == SETUP_ERROR and candidate_ran:
                # an earlier test of this candidate ran its code in the same sandbox (it can
                # chmod or delete its work directory, fill its disk...): a set-up that fails
                # after that is about the candidate, not ours to answer for
                record["status"] = SPOILED
                record["message"] = ("the test could not be set up after the candidate's "
                                     "earlier tests ran: %s" % record.get("message"))
            candidate_ran = candidate_ran or record["status"] != SETUP_ERROR
            self.channel.send_line(_bounded_line(record, line_limit))
            self.recycle = self.recycle or record.get("leftovers", 0) < 0
            if record["status"] in (MISSING_FUNCTION, SETUP_ERROR, SPOILED) or (
                    record["status"] == RAISED and record.get("stage") == "load"):
                return  # loading is deterministic: the remaining tests would fail the same way
            if job.get("stop_on_failure") and record["status"] != RETURNED:
                return

    def _run_test(self, job, index, test, code, capture_fd, workdir, args):
        _reset_capture(capture_fd)
        oom_before = _counters()
        read_fd, write_fd = os.pipe()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            run_child(job, test, code, write_fd, capture_fd, workdir, args)
            os._exit(4)  # not reached
        os.close(write_fd)
        try:
            outcome, raw = supervise(pid, read_fd, job, test, started, me=self.me)
        finally:
            os.close(read_fd)
        exit_code = outcome.pop("exit_code", 0)
        record = {"event": "test", "index": index}
        record.update(outcome)
        if raw is not None:
            marked, raw = _split_mark(raw)
            record.update(_parse_child_result(raw, exit_code, marked=marked))
        self._after_child(record, oom_before, capture_fd, job, workdir)
        return record

    def _after_child(self, record, before, capture_fd, job, workdir=None):
        """What the worker learns after any child: leftovers killed, OOM kills, whether the
        process limit refused it a process or thread (``before``: the counters of
        ``_counters`` before the child ran), output, and for a death by SIGXFSZ whether a
        file it could write (in ``workdir`` or the wiped folders) reached the size limit."""
        leftovers = kill_leftovers(self.me)
        if leftovers:
            record["leftovers"] = leftovers
        after = _counters()
        if before[0] is not None and after[0] is not None and after[0] > before[0]:
            record["oom_kill"] = True
        if before[1] is not None and after[1] is not None and after[1] > before[1]:
            record["process_limit"] = True  # the container's pids cgroup refused a task
        elif job.get("uid") is not None and job.get("_nproc") and \
                2 * record.get("tasks_peak", 0) >= job["_nproc"]:
            # its own user's RLIMIT_NPROC: all its tasks are the candidate's. Sampled (every
            # poll, and as the record arrives), so a loaded machine may show fewer than the
            # limit; half of it is far beyond what a program that is not a bomb holds
            record["process_limit"] = True
        printed = os.fstat(capture_fd).st_size
        if printed:
            record["stdout_bytes"] = printed
            record["stdout_head"] = os.pread(capture_fd, 512, 0).decode("utf-8", "replace")
            if printed >= job["output_bytes"]:
                record["output_capped"] = True
        if record.get("signal") == "SIGXFSZ" and not record.get("output_capped"):
            # the kernel sends it to a write past the file size limit; a process can send it
            # to itself too: only a file at the limit says which
            places = ([workdir] if workdir else []) + list(self.wipe_dirs)
            if _file_reached(places, job["output_bytes"]):
                record["file_capped"] = True

    def _run_batch(self, job, code, capture_fd, workdir, args):
        """All tests in one child (see run_batch_child). Returns the records it produced:
        one per test that ran; what stopped the child is put on the test it was running."""
        tests = job["tests"]
        total = {"time_limit": sum(t["time_limit"] for t in tests),
                 "wall_limit": sum(t["wall_limit"] for t in tests)}
        budget = job.get("budget")
        if isinstance(budget, dict):  # the whole candidate's CPU, counted from the fork
            total["time_limit"] = min(total["time_limit"], budget["cpu"])
            total["wall_limit"] = min(total["wall_limit"],
                                      budget["wall"] + float(budget.get("grace") or 0.0))
            # (the wall budget counts CPU and blocked time together, as Budget charges it)
        _reset_capture(capture_fd)
        oom_before = _counters()
        read_fd, write_fd = os.pipe()
        ack_read, ack_write = os.pipe()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            os.close(ack_write)
            run_batch_child(job, total, code, write_fd, capture_fd, workdir, args, ack_read)
            os._exit(4)  # not reached
        os.close(write_fd)
        os.close(ack_read)
        try:
            outcome, raw = supervise(pid, read_fd, job, total, started,
                                     cap=(job["value_bytes"] + 4096) * len(tests), phases=tests,
                                     me=self.me,
                                     ack_fd=ack_write if job.get("acks", True) else None)
        finally:
            os.close(read_fd)
            os.close(ack_write)
        exit_code = outcome.pop("exit_code", 0)
        past_raises = bool(job.get("past_raises"))
        phase_cpu = outcome.pop("phase_cpu", [])
        grouped = outcome.pop("phase_grouped", [])
        records = []
        marked, raw = _split_mark(raw)
        lines = (raw or b"").split(b"\n")
        if lines and lines[0] == b"" and len(lines) > 1:
            del lines[0]  # the child's "loaded" mark
        for line in lines:
            if not line:
                continue
            result = _parse_child_result(line, exit_code, BATCH_FIELDS, marked=marked)
            index = result.pop("index", len(records))
            result.pop("cpu_s", None)  # the child's word about its own time is not taken
            if index != len(records) or index >= len(tests):
                result = {"status": MALFORMED, "message": "result lines out of order"}
                index = len(records)
            # CPU time of this test as the worker measured it (whole candidate, from the
            # child's previous result line to this one)
            cpu = phase_cpu[index] if index < len(phase_cpu) else outcome.get("cpu_s", 0.0)
            # "own": what the record says happened while this test ran, and only then (the
            # judge takes a batch's failing first test as an isolated one on that word)
            record = {"event": "test", "index": index, "batch": True, "cpu_s": cpu, "own": True}
            record.update(result)
            if record["status"] == RETURNED and record["cpu_s"] > tests[index]["time_limit"]:
                # over its limit, or only perhaps (an upper bound over several tests): not
                # a pass either way, and only an exact measure is the test's own
                record = {"event": "test", "index": index, "batch": True, "status": TIMEOUT,
                          "limit": "cpu", "cpu_s": record["cpu_s"],
                          "own": not (grouped[index] if index < len(grouped) else True)}
            records.append(record)
            if len(records) == len(tests) or not _goes_on(record, past_raises):
                break
        stopped = outcome.get("status")
        if len(records) < len(tests) and (stopped or raw is not None) and (
                not records or _goes_on(records[-1], past_raises)):
            record = {"event": "test", "index": len(records), "batch": True}
            record.update(outcome if stopped else {"status": EXITED, "exit_code": exit_code})
            if record.pop("by_total", False) and isinstance(budget, dict):
                record["budget_s"] = budget["cpu"]  # stopped by what the budget allowed
            if record.pop("phase", None) == record["index"]:
                record["own"] = True  # stopped, or died, while this very test ran
            records.append(record)
        if records:
            self._after_child(records[-1], oom_before, capture_fd, job, workdir)
            if records[-1].get("output_capped"):
                # the batch's tests share one capture file: which of them printed is not
                # known, so from the first test on none is a pass (nor a failure) of its own
                records[0]["output_capped"] = True
                records[0]["own"] = False
        else:
            kill_leftovers(self.me)
        return records

