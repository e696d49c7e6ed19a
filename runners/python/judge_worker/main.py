"""The worker's entry point: its command line, its channel to the judge, and the loop that
reads jobs and runs them (see the package's docstring)."""

import gc
import json
import os
import signal
import sys

from . import system
from .files import _remove_tree
from .native import NativeWorker
from .program import _private_file, is_program, run_program_job
from .records import PROTOCOL
from .system import (
    PR_SET_CHILD_SUBREAPER,
    PR_SET_DUMPABLE,
    _prctl,
    _private_mounts,
    _unshare_network,
)

#: bytes of a job's input stream read at a time (see Channel.read_streams)
STREAM_PIECE = 1 << 20
#: standard-library modules imported once when none are named (``--preimport``), so each
#: forked test finds them loaded. Only light, common ones: every page the worker holds makes
#: each fork slower (measured: 30 modules doubled the cost of a fork).
PREIMPORTS = ("bisect", "collections", "functools", "heapq", "itertools", "math", "operator",
              "re", "string", "typing")


class Channel:
    """The worker's private line channel to the judge (a dup of the original stdin/stdout)."""

    def __init__(self):
        self.inp = os.fdopen(os.dup(0), "rb", buffering=1 << 16)
        self.out_fd = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.close(devnull)

    held = None  # lines kept for one write (see hold)

    def hold(self):
        """Keep what is sent until ``flush``: records the judge takes together go out in one
        write (each write wakes the judge's reader and, through Docker, a shim and the
        engine too)."""
        if self.held is None:
            self.held = []

    def flush(self):
        held, self.held = self.held, None
        if held:
            self._write(b"".join(held))

    def send(self, record):
        self.send_line((json.dumps(record, separators=(",", ":"), allow_nan=False)
                        + "\n").encode())

    def send_line(self, data):
        if self.held is not None:
            self.held.append(data)
            return
        self._write(data)

    def _write(self, data):
        view = memoryview(data)
        while view:
            written = os.write(self.out_fd, view)
            view = view[written:]

    def receive(self):
        line = self.inp.readline()
        if not line:
            return None
        job = json.loads(line)
        if isinstance(job, dict) and "streams" in job:
            job["_streams"] = self.read_streams(job["streams"])  # None: the input ended
            if job["_streams"] is None:
                return None
        return job

    def read_streams(self, sizes):
        """The bytes the judge sends right after a job's line (``"streams"``: their sizes; a
        program test's standard input and input files): each into a private file of its
        own, a bounded piece at a time (a big input is never held whole here, nor in the
        judge). Every byte is read even when one cannot be kept (the next job's line comes
        after them): then a ValueError says why. None: the judge's input ended."""
        if not isinstance(sizes, list) or not all(
                type(size) is int and size >= 0 for size in sizes):
            raise ValueError("streams must be a list of sizes")
        fds, failure = [], None
        for size in sizes:
            fd = None
            if failure is None:
                try:
                    fd = _private_file("judge-input")
                    fds.append(fd)
                except OSError as exc:
                    failure = exc
            left = size
            while left:
                chunk = self.inp.read(min(left, STREAM_PIECE))
                if not chunk:
                    for kept in fds:
                        os.close(kept)
                    return None
                left -= len(chunk)
                if failure is None:
                    try:
                        view = memoryview(chunk)
                        while view:
                            view = view[os.write(fd, view):]
                    except OSError as exc:
                        failure = exc
        if failure is not None:
            for kept in fds:
                os.close(kept)
            raise ValueError("cannot keep the job's input: %s" % failure)
        return fds

    offered = None  # (jobs read end, results write end, the judge's two ends) while offered

    def offer_pipes(self):
        """Two pipes the judge may take from this process (a host-side judge as root, with
        ``pidfd_getfd``) to talk to the worker directly instead of through the container's
        stdin/stdout, which Docker relays through its engine and a shim: the fds of the
        judge's ends, for the ready record."""
        jobs_r, jobs_w = os.pipe()
        results_r, results_w = os.pipe()
        self.offered = (jobs_r, results_w, jobs_w, results_r)
        return {"jobs": jobs_w, "results": results_r}

    def switch(self):
        """The judge holds its ends of the offered pipes: close ours of them (so its death is
        our end of input) and the old channel; jobs now come and records go through them."""
        jobs_r, results_w, jobs_w, results_r = self.offered
        self.offered = None
        for fd in (jobs_w, results_r):
            os.close(fd)
        old_in, old_out = self.inp, self.out_fd
        self.inp = os.fdopen(jobs_r, "rb", buffering=1 << 16)
        self.out_fd = results_w
        old_in.close()
        os.close(old_out)
        self.send({"event": "switched"})

    def drop_offer(self):
        """The judge did not take the pipes: close all four ends."""
        if self.offered is not None:
            for fd in self.offered:
                os.close(fd)
            self.offered = None



class Options:
    """The worker's command line: --workroot DIR, --wipe DIR (repeated), --isolate-network,
    --private-tmp, --own-ipc (the sandbox gave the worker an IPC namespace of its own: a
    container's), --container (the worker runs in a container of its own: its memory and
    pids cgroup counters are the candidate's), --offer-pipes, --preimport NAME,NAME...
    (empty: none). Parsed by hand (argparse alone is a megabyte of the worker's memory)."""

    def __init__(self, argv):
        self.workroot, self.wipe = None, []
        self.isolate_network = self.private_tmp = self.offer_pipes = self.own_ipc = False
        self.container = False
        self.preimports = PREIMPORTS
        args = list(argv)
        while args:
            arg = args.pop(0)
            if arg in ("--workroot", "--wipe", "--preimport") and args:
                value = args.pop(0)
                if arg == "--workroot":
                    self.workroot = value
                elif arg == "--preimport":
                    self.preimports = tuple(name for name in value.split(",") if name)
                else:
                    self.wipe.append(value)
            elif arg == "--isolate-network":
                self.isolate_network = True
            elif arg == "--private-tmp":
                self.private_tmp = True
            elif arg == "--offer-pipes":
                self.offer_pipes = True
            elif arg == "--own-ipc":
                self.own_ipc = True
            elif arg == "--container":
                self.container = True
            else:
                sys.stderr.write("judge sandbox worker: unknown argument %r\n" % arg)
                sys.exit(2)


def main(argv):
    options = Options(argv)
    system.IN_CONTAINER = options.container
    channel = Channel()
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_DUMPABLE, 0)  # same-user children cannot ptrace us or read our fds
    network_isolated = _unshare_network() if options.isolate_network else False
    needed = ([options.workroot, sys.executable, sys.prefix, sys.base_prefix, os.getcwd(),
               os.path.dirname(os.path.abspath(__file__))]
              + os.environ.get("PATH", "").split(os.pathsep))
    private_tmp = _private_mounts(needed) if options.private_tmp else False
    # Dispositions the test children inherit: limits kill them (Python itself ignores
    # SIGXFSZ, which would turn an output flood into a quiet EFBIG); SIGPIPE stays ignored,
    # as in any Python program.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    for name in ("SIGXFSZ", "SIGXCPU", "SIGTERM", "SIGINT"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    for module in options.preimports:
        try:
            __import__(module)
        except Exception:
            pass
    os.umask(0o022)  # the folders above the work root must be traversable by candidates
    if options.workroot:
        workroot = options.workroot
    else:
        import tempfile

        workroot = tempfile.mkdtemp(prefix="judge-worker-")
    os.makedirs(workroot, mode=0o755, exist_ok=True)
    os.chmod(workroot, 0o711)  # candidates switched to another user must reach their workdir
    gc.collect()
    gc.freeze()  # keep the forked children from copying the worker's heap on gc passes
    wipe = list(options.wipe) + [d for d in system.MOUNTED_IF_UNUSED if d not in options.wipe]
    worker = NativeWorker(channel, workroot, wipe, network_isolated,
                          own_ipc=private_tmp or options.own_ipc)
    ready = {"event": "ready", "protocol": PROTOCOL, "pid": os.getpid(),
             "python": sys.version.split()[0], "network_isolated": network_isolated,
             "private_tmp": private_tmp, "uid": os.getuid()}
    if options.offer_pipes:
        ready["pipes"] = channel.offer_pipes()
    channel.send(ready)
    while True:
        try:
            job = channel.receive()
        except ValueError as exc:
            channel.send({"event": "error", "message": "bad job line: %s" % exc})
            continue
        if job is None:
            break
        if channel.offered is not None:  # the judge's first line: take the pipes, or not
            if isinstance(job, dict) and job.get("event") == "switch":
                channel.switch()
                continue
            channel.drop_offer()
        try:
            if is_program(job):  # a whole program: standard input in, output back
                run_program_job(worker, job)
            else:
                worker.run_job(job)
        except Exception as exc:  # a bug of ours, never the candidate's: report and go on
            channel.send({"event": "error", "message": "%s: %s" % (type(exc).__name__, exc),
                          "id": job.get("id") if isinstance(job, dict) else None})
        finally:
            for fd in (job.get("_streams") or []) if isinstance(job, dict) else []:
                os.close(fd)
    if options.workroot is None:
        _remove_tree(workroot)
    return 0

