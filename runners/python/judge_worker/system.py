"""What the worker knows of the system: namespaces, /proc bookkeeping of the candidate's
processes (CPU, memory, threads), leftovers, and the container's own OOM and process-limit
counters. Read on the hot path (every poll of every test): two syscalls per /proc file.
"""

import ctypes
import os
import signal
import time

_libc = None


def _prctl(option, value):
    global _libc
    try:
        if _libc is None:
            _libc = ctypes.CDLL(None, use_errno=True)
        return _libc.prctl(option, value, 0, 0, 0) == 0
    except Exception:
        return False


def _unshare_network():
    """Give the worker (and so every child) an empty network namespace where we may."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.unshare(0x40000000) == 0  # CLONE_NEWNET
    except Exception:
        return False


PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
CLONE_NEWNS, CLONE_NEWIPC = 0x00020000, 0x08000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 0x40000
#: private tmpfs mounts of an isolated worker: (where, size, inodes)
PRIVATE_TMPFS = (("/tmp", "256m", 16384), ("/var/tmp", "64m", 4096), ("/dev/shm", "64m", 4096))
#: private tmpfs mounted only where nothing the worker runs lies beneath (its interpreter,
#: the runner, its work root, the PATH's folders: e.g. a checkout under /mnt/c is never
#: hidden): SandboxFusion's programs may write there (its ``test_python_fetch_files``
#: writes /mnt/b); wiped per candidate like /tmp
PRIVATE_IF_UNUSED = (("/mnt", "64m", 4096),)
#: the folders of PRIVATE_IF_UNUSED this worker did mount (its own: wiped, fetchable)
MOUNTED_IF_UNUSED = []


def _beneath_any(folder, paths):
    """Whether any of ``paths`` (absolute) is ``folder`` or lies beneath it."""
    folder = folder.rstrip("/") + "/"
    return any((os.path.abspath(p) + "/").startswith(folder) for p in paths if p)


def _private_mounts(needed=()):
    """As root: a mount and IPC namespace of the worker's own, with fresh tmpfs on /tmp,
    /var/tmp and /dev/shm and a fresh mqueue on /dev/mqueue where it exists, so nothing a
    candidate leaves there reaches another worker's candidates (the worker wipes them
    between its own candidates), and on the folders of PRIVATE_IF_UNUSED where none of
    ``needed`` (the paths the worker itself uses) lies. True when every mount is in place."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWNS | CLONE_NEWIPC) != 0:
            return False
        if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
            return False
        for where, size, inodes in PRIVATE_TMPFS:
            if not os.path.isdir(where):
                continue
            options = ("mode=1777,size=%s,nr_inodes=%d" % (size, inodes)).encode()
            if libc.mount(b"tmpfs", where.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                          options) != 0:
                return False
        for where, size, inodes in PRIVATE_IF_UNUSED:
            if not os.path.isdir(where) or _beneath_any(where, needed):
                continue
            options = ("mode=1777,size=%s,nr_inodes=%d" % (size, inodes)).encode()
            if libc.mount(b"tmpfs", where.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                          options) == 0:
                MOUNTED_IF_UNUSED.append(where)
        if os.path.isdir("/dev/mqueue"):
            if libc.mount(b"mqueue", b"/dev/mqueue", b"mqueue",
                          MS_NOSUID | MS_NODEV | MS_NOEXEC, None) != 0:
                return False
        return True
    except Exception:
        return False

#: System V IPC objects of the worker's IPC namespace: (listing, remove(id)), the id in the
#: listing's second column; IPC_RMID is 0 for all three
_SYSV = (("/proc/sysvipc/shm", "shmctl"), ("/proc/sysvipc/msg", "msgctl"),
         ("/proc/sysvipc/sem", "semctl"))
_LIBC = []


def wipe_sysv_ipc():
    """Remove every System V shared memory segment, message queue and semaphore set of the
    worker's IPC namespace (its own where the worker isolates, the container's under
    Docker): they live in no folder, so wiping /tmp and /dev/shm leaves them, and a warm
    worker's next candidate could read what this one left there. The candidate's processes
    are gone by now, so nothing is attached. Returns how many were removed."""
    removed = 0
    for listing, control in _SYSV:
        for _ in range(64):  # a listing is read 64 KiB at a time: again until it is empty
            ids = []
            for line in _read_proc(listing).split(b"\n")[1:]:
                fields = line.split()
                if len(fields) > 1 and fields[1].isdigit():
                    ids.append(int(fields[1]))
            if not ids:
                break
            if not _LIBC:
                _LIBC.append(ctypes.CDLL(None, use_errno=True))
            function = getattr(_LIBC[0], control)
            gone = 0
            for ident in ids:
                done = function(ident, 0, 0) if control == "semctl" else \
                    function(ident, 0, None)
                gone += done == 0
            removed += gone
            if not gone:
                break  # none could be removed (not ours to remove): do not spin
    return removed


#: the keyctl system call's number (glibc has no wrapper): x86_64, arm64
_KEYCTL = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR, KEYCTL_GET_PERSISTENT = 1, 7, 22
KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -3, -4, -5


def fresh_keyrings():
    """In a child, once it is the candidate's user: empty the kernel keyrings that outlive a
    process (the user's keyring and user-session keyring live as long as the uid has
    processes, the persistent keyring days), in a new session keyring of its own. A warm
    worker's candidates share their uid: without this, a key one candidate adds is there
    for the next to read. (Docker's seccomp profile refuses these calls to candidates.)"""
    if _KEYCTL is None:
        return
    try:
        if not _LIBC:
            _LIBC.append(ctypes.CDLL(None, use_errno=True))
        syscall, long = _LIBC[0].syscall, ctypes.c_long
        syscall(long(_KEYCTL), long(KEYCTL_JOIN_SESSION_KEYRING), None)
        syscall(long(_KEYCTL), long(KEYCTL_CLEAR), long(KEY_SPEC_USER_KEYRING))
        syscall(long(_KEYCTL), long(KEYCTL_CLEAR), long(KEY_SPEC_USER_SESSION_KEYRING))
        persistent = syscall(long(_KEYCTL), long(KEYCTL_GET_PERSISTENT), long(-1),
                             long(KEY_SPEC_SESSION_KEYRING))
        if persistent > 0:
            syscall(long(_KEYCTL), long(KEYCTL_CLEAR), long(persistent))
    except Exception:
        pass


# ---- process bookkeeping ------------------------------------------------------------------

def _read_proc(path):
    """A small /proc file with two syscalls (open() would add fstat, ioctl and lseek: this
    runs several times per test, on the hot path)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return b""
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _children_of(pid, threads=True):
    """Direct children of pid, via /proc. The worker itself is single-threaded, so it reads
    its own main task only; a candidate's process may have threads, which are all read."""
    tids = [str(pid)]
    if threads:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            return []
    kids = []
    for tid in tids:
        kids.extend(int(p) for p in _read_proc("/proc/%d/task/%s/children" % (pid, tid)).split())
    return kids


def _tree(pid):
    seen, todo = [], [pid]
    while todo and len(seen) < 4096:
        current = todo.pop()
        seen.append(current)
        todo.extend(_children_of(current))
    return seen


PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


def _rss_bytes(pids):
    total = 0
    for pid in pids:
        try:
            total += int(_read_proc("/proc/%d/statm" % pid).split()[1]) * PAGE
        except (IndexError, ValueError):
            pass
    return total


def _cpu_seconds(pid):
    try:
        fields = _read_proc("/proc/%d/stat" % pid).rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (IndexError, ValueError):
        return 0.0


def _waited(pid):
    """Seconds the process has spent runnable but waiting for a CPU (the scheduler's
    run_delay): time a loaded machine took from it, not time it spent sleeping."""
    try:
        return int(_read_proc("/proc/%d/schedstat" % pid).split()[1]) / 1e9
    except (IndexError, ValueError):
        return 0.0


def _waited_most(me):
    """The longest any process of the candidate has waited for a CPU."""
    return max([_waited(pid) for pid in _tree(me)[1:]] or [0.0])


#: the wall-clock backstop never stretches past this many times its limit, however loaded
WALL_HARD_FACTOR = 5.0


def _usage(me):
    """(CPU seconds, resident bytes, tasks) of *every* process below the worker: the test
    child, its children, and orphans (the worker is a child subreaper, so a process whose
    parent died is re-parented to it, never lost). CPU counts each process's own time plus
    that of the children it waited for, and zombies still show theirs, so CPU burned in
    helpers nobody waits for is counted too. Tasks are processes and threads, as the process
    limit counts them."""
    cpu_ticks, rss, tasks = 0, 0, 0
    for pid in _tree(me)[1:]:
        try:
            fields = _read_proc("/proc/%d/stat" % pid).rsplit(b")", 1)[1].split()
            cpu_ticks += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
            tasks += int(fields[17])
            rss += int(fields[21]) * PAGE
        except (IndexError, ValueError):
            pass
    return cpu_ticks / TICK, rss, tasks


def _charged_memory(me, rss):
    """The memory the candidate's processes hold, for a limit ``rss`` (their summed resident
    sizes) seems to exceed: summed RSS counts a page shared by several processes once per
    process, so forks of one process that share nearly everything (a fork bomb that sleeps)
    would add up to far more than they use, and whether they crossed the limit would depend
    on how many forks the machine's speed let through. Their proportional set sizes (each
    shared page split among its sharers) add up to what they really hold. Read only when the
    cheap sum is over the limit, and only by a root worker (the process sandbox), which may
    read the candidate's (non-dumpable) processes; elsewhere (a container's worker, without
    CAP_SYS_PTRACE) the summed RSS stands, beside the container's own memory limit."""
    if not IS_ROOT:
        return rss
    total = 0
    for pid in _tree(me)[1:]:
        try:
            fd = os.open("/proc/%d/smaps_rollup" % pid, os.O_RDONLY)
        except OSError:
            continue  # gone or going since the tree was read: it holds nothing more
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        finally:
            os.close(fd)
        start = data.find(b"\nPss:")
        if start >= 0:
            try:
                total += int(data[start + 5:].split(None, 1)[0]) * 1024
            except (IndexError, ValueError):
                return rss
    return min(total, rss)


def _reap_zombies():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_leftovers(me):
    """Kill every process still below the worker. The worker is a child subreaper, so a
    process that double-forked or started its own session is re-parented here, not lost."""
    killed = 0
    for _ in range(2000):
        kids = _children_of(me, threads=False)
        if not kids:
            return killed
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:
                pass
        time.sleep(0.0005)
        _reap_zombies()
    return -1


IS_ROOT = os.geteuid() == 0
OOM_FILES = ("/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory.events")
#: whether the worker runs in a container of its own, whose cgroups (memory, pids) are the
#: candidate's alone: said by the sandbox that started it (``--container``), never guessed
#: from the filesystem (a host or VM may carry ``/.dockerenv``, and its root cgroup's
#: counters would then charge the host's OOM kills to a candidate)
IN_CONTAINER = False
PIDS_EVENTS = ("/sys/fs/cgroup/pids.events", "/sys/fs/cgroup/pids/pids.events")


def _pids_limit_hits():
    """How often the container's pids cgroup refused a fork or a thread (its "max" event
    counter), else None (no container, or no counter)."""
    if not IN_CONTAINER:
        return None
    for path in PIDS_EVENTS:
        for line in _read_proc(path).splitlines():
            if line.startswith(b"max "):
                return int(line.split()[1])
    return None


def _counters():
    """The container's OOM-kill and process-limit counters, read before a child runs."""
    return _oom_kills(), _pids_limit_hits()


def _oom_kills():
    """The memory cgroup's oom_kill counter inside a container (whose cgroup is its own),
    else None: on a host it would count other processes' OOM kills."""
    if not IN_CONTAINER:
        return None
    for path in OOM_FILES:
        for line in _read_proc(path).splitlines():
            if line.startswith(b"oom_kill "):
                return int(line.split()[1])
    return None

