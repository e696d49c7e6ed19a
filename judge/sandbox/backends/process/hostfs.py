"""The host's world-writable places, hidden from the process sandbox's candidates.

A candidate runs as an unprivileged uid of its own, so the only places of the host it could
write are the ones others may write. :func:`shadow_command` starts the worker behind a small
bootstrap that, in a mount namespace of the worker's own, makes every mount of the host
read-only (``mount_setattr(2)`` with ``AT_RECURSIVE``: Linux 5.12+; /proc is set back to
read-write, as the host has it), then mounts a small private tmpfs (``SHADOW_TMPFS``: size
and inode limits) on each world-writable directory and /dev/null on each world-writable
FIFO, socket or block device. The worker itself makes /tmp, /var/tmp, /dev/shm and
/dev/mqueue private (``PRIVATE_DIRS``, mounted after: writable) and wipes all of them
between candidates.

A read-only mount refuses every write to, and every creation in, a regular file or a
directory (``EROFS``), wherever it is: so :func:`world_writable_places` only has to find the
places a read-only mount does not close: the world-writable directories (shadowed, so that
what other users of the host leave there later stays unseen too) and the FIFOs, unix sockets
and block devices others may open for writing (opening a special file for writing, or
connecting to a socket, ignores the mount's read-only flag). The walk reads each entry's
type from the directory itself (``d_type``) and stats only directories and special files:
a fraction of the CPU of stat'ing every entry. Where the read-only mounts are unavailable
(an older kernel, a refusal, ``JUDGE_SANDBOX_FULL_WALK=1``) the walk stats every entry and
also hides every world-writable regular file, as before; :func:`host_mode` says which.
"""

from __future__ import annotations

import atexit
import json
import os
import stat
import subprocess
import sys
import threading

#: directories private to each worker (tmpfs in its own mount namespace), wiped per candidate
PRIVATE_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")
#: the tmpfs given to every other world-writable directory found on the host
SHADOW_TMPFS = "size=4m,nr_inodes=256"
#: never walked: proc's entries are per process (not places to leave files)
_UNWALKED = ("/proc",)
_walk_lock = threading.Lock()
_walked: tuple[tuple[str, ...], tuple[str, ...]] | None = None
#: whether the workers' host mounts are read-only (decided with the walk of /)
_readonly: bool | None = None
#: set (to anything but "" or "0") to never use read-only mounts: the full walk, as before
#: (a setting of :mod:`judge.settings`, read by :func:`full_walk_asked`)
FULL_WALK_ENV = "JUDGE_SANDBOX_FULL_WALK"
#: the argument that tells this file run as a script that the full walk was asked for
_FULL_WALK_ARG = "--full-walk"
#: mount_setattr(2): one number on every architecture listed (the unified table, 5.12+)
_MOUNT_SETATTR = {"x86_64": 442, "aarch64": 442, "i686": 442, "armv7l": 442,
                  "riscv64": 442, "s390x": 442, "ppc64le": 442}

#: run in a process about to become (or probing for) a worker, in its own mount namespace
#: with / already private: every mount read-only, /proc back to read-write; 0 when done,
#: else an errno. Shared by the worker's bootstrap, the probe and the import converter.
READONLY_CODE = """
def host_readonly(libc, numbers=%r):
    import ctypes, os
    number = numbers.get(os.uname().machine)
    if number is None:
        return 38
    word = ctypes.c_long
    rdonly = ctypes.create_string_buffer(b"\\x01" + b"\\x00" * 31)
    if libc.syscall(word(number), word(-100), b"/", word(0x8000), rdonly, word(32)) != 0:
        return ctypes.get_errno() or 1
    if os.path.ismount("/proc"):
        back = ctypes.create_string_buffer(b"\\x00" * 8 + b"\\x01" + b"\\x00" * 23)
        libc.syscall(word(number), word(-100), b"/proc", word(0), back, word(32))
    return 0 if os.statvfs("/").f_flag & os.ST_RDONLY else 1
""" % (_MOUNT_SETATTR,)
#: the walk begun by :func:`prefetch`, not yet taken
_prefetched: subprocess.Popen[bytes] | None = None


def world_writable_places(root: str = "/", refresh: bool = False
                          ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Every place on the host where a candidate's uid could write or leave something, and
    that the workers' mounts do not already close: ``(directories, files)``. Found by walking
    the host's tree from ``root`` as a stranger would (only into directories others may
    enter: ``o+x``), taking every directory that others may write (``o+w``: not entered, all
    below it gets hidden) and every world-writable FIFO, socket or block device (a character
    device such as /dev/null is a device, not a place); with the full walk (no read-only
    mounts: :func:`host_mode`) every world-writable regular file too. /proc is not walked.
    Found once per judge process and cached; :data:`PRIVATE_DIRS` are the worker's own and
    left out. When :func:`prefetch` started the walk of ``/`` in a process of its own, its
    answer is taken (the same walk, begun earlier); if that process failed, the walk is done
    here."""
    global _walked, _prefetched, _readonly
    if root == "/" and refresh:
        _stop_prefetch()  # begun before what the caller wants seen: not taken
    with _walk_lock:
        if root == "/" and not refresh:
            if _walked is not None:
                return _walked
            started, _prefetched = _prefetched, None
            if started is not None:
                answer = _prefetch_result(started)
                if answer is not None:
                    _walked, _readonly = answer[:2], answer[2]
                    return _walked
        readonly = _readonly if root == "/" and not refresh and _readonly is not None \
            else readonly_supported()
        found = _walk(root, readonly)
        if root == "/":
            _walked, _readonly = found, readonly
        return found


def host_mode() -> str:
    """How the host's world-writable places are hidden from the workers (walks / if not yet
    walked): ``"read-only"`` (every host mount read-only in the worker's namespace, and a
    walk that stats only directories and special files) or ``"full walk"`` (every entry
    stat'ed, every world-writable file hidden)."""
    world_writable_places()
    return "read-only" if _readonly else "full walk"


def readonly_mounts() -> bool:
    """Whether the workers' host mounts are read-only (see :func:`host_mode`)."""
    world_writable_places()
    return bool(_readonly)


def full_walk_asked() -> bool:
    """Whether :data:`FULL_WALK_ENV` asks for the full walk (never read-only mounts)."""
    # imported here: this file also runs as a script (the probe, the prefetched walk), with
    # no package on its path; the script is told by an argument (_FULL_WALK_ARG)
    from judge.settings import settings  # noqa: PLC0415

    return settings().sandbox_full_walk


def readonly_supported() -> bool:
    """Can a mount namespace of the host be made read-only here? Asked of a throwaway
    process (this file run with ``--probe``: it unshares its own mount namespace and tries);
    False when not root, when :data:`FULL_WALK_ENV` says so, or when the kernel refuses."""
    if os.geteuid() != 0 or full_walk_asked():
        return False
    try:
        return subprocess.run(
            [sys.executable, "-I", "-S", os.path.abspath(__file__), "--probe"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _probe_here() -> bool:
    """Make this process's own mount namespace read-only: whether it worked. Only ever run
    in a process of its own (``--probe`` and the prefetched walk): it changes where it runs.
    Its caller has asked :func:`full_walk_asked` already."""
    if os.geteuid() != 0:
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(0x00020000) != 0:
            return False
        if libc.mount(b"none", b"/", None, 0x4000 | 0x40000, None) != 0:
            return False
        scope: dict[str, object] = {}
        exec(READONLY_CODE, scope)
        return scope["host_readonly"](libc) == 0  # type: ignore[operator]
    except (OSError, AttributeError):
        return False


def _walk(root: str, readonly: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The walk itself (see :func:`world_writable_places`). Each folder is opened once and
    its entries stat'ed relative to it (``fstatat``: one path component each, not the whole
    path again: about an eighth less CPU than stat'ing full paths). With ``readonly`` (the
    workers' mounts are read-only), regular files and symlinks are known by the type the
    directory gives (``d_type``) and never stat'ed: only directories (for their mode) and
    special files are."""
    directories: list[str] = []
    files: list[str] = []
    skip = frozenset(_UNWALKED) | frozenset(PRIVATE_DIRS)
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            fd = os.open(folder, flags)
        except OSError:
            continue
        modes = []
        try:
            with os.scandir(fd) as entries:
                for entry in entries:
                    try:
                        if readonly and (entry.is_file(follow_symlinks=False)
                                         or entry.is_symlink()):
                            continue  # closed by the read-only mount: no stat
                        modes.append((entry.name, entry.stat(follow_symlinks=False).st_mode))
                    except OSError:
                        continue
        except OSError:
            continue
        finally:
            os.close(fd)
        prefix = folder if folder.endswith("/") else folder + "/"
        for name, mode in modes:
            if stat.S_ISLNK(mode) or stat.S_ISCHR(mode):
                continue
            path = prefix + name
            if path in skip:
                continue
            if stat.S_ISDIR(mode):
                if mode & stat.S_IWOTH:
                    directories.append(path)
                elif mode & stat.S_IXOTH:
                    stack.append(path)
            elif mode & stat.S_IWOTH:
                files.append(path)
    return tuple(sorted(directories)), tuple(sorted(files))


def prefetch() -> None:
    """Begin the walk of ``/`` now, in a process of its own (this file run as a script by
    the same interpreter, as the same user), so that it overlaps the judge's own start-up
    (imports, suite loading, reading the samples) on another core instead of delaying the
    first worker by its whole length. Only as root (only a root judge switches users and
    hides these places); a no-op once walked or begun. :func:`world_writable_places` takes
    its answer; a walk begun and never asked for is stopped at exit."""
    global _prefetched
    if os.geteuid() != 0:
        return
    from judge.settings import InvalidSetting  # noqa: PLC0415 (this file also runs as a script)

    try:
        full_walk = full_walk_asked()
    except InvalidSetting:  # said where the run reads its settings; the walk can wait
        return
    with _walk_lock:
        if _walked is not None or _prefetched is not None:
            return
        try:
            _prefetched = subprocess.Popen(
                [sys.executable, "-I", "-S", os.path.abspath(__file__)]
                + ([_FULL_WALK_ARG] if full_walk else []),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                close_fds=True)
        except OSError:
            _prefetched = None
            return
    atexit.register(_stop_prefetch)


def _prefetch_result(process: subprocess.Popen[bytes]
                     ) -> tuple[tuple[str, ...], tuple[str, ...], bool] | None:
    """The walk's answer from :func:`prefetch`'s process (places, and whether the mounts are
    read-only), or None when it failed."""
    try:
        out, _ = process.communicate()
        if process.returncode != 0:
            return None
        data = json.loads(out)
        directories, files, readonly = data["dirs"], data["files"], data["readonly"]
        if not all(isinstance(p, str) for p in directories + files) \
                or not isinstance(readonly, bool):
            return None
        return tuple(directories), tuple(files), readonly
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _stop_prefetch() -> None:
    global _prefetched
    with _walk_lock:
        process, _prefetched = _prefetched, None
    if process is not None:
        if process.poll() is None:
            process.kill()
        process.communicate()


#: run as root before the worker (argv[1]: JSON of the places; the worker's command
#: follows): a mount namespace of its own where every host mount is read-only (when the
#: places say so), every world-writable directory of the host is a small private tmpfs and
#: every world-writable file, FIFO or socket is /dev/null; then exec the worker (which
#: makes its own /tmp, /var/tmp, /dev/shm and /dev/mqueue private, and writable)
_SHADOW_BOOT = """\
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
""" + READONLY_CODE + """
places = json.loads(sys.argv[1])
def fail(what, path):
    sys.stderr.write("cannot hide the host's world-writable %s (errno %d)\\n"
                     % (what % path, ctypes.get_errno()))
    sys.exit(12)
if libc.unshare(0x00020000) != 0:
    fail("%s: no mount namespace", "places")
if libc.mount(b"none", b"/", None, 0x4000 | 0x40000, None) != 0:
    fail("%s: / stays shared", "places")
if places["readonly"]:
    if host_readonly(libc) != 0:
        fail("%s: the host's mounts stay writable", "places")
for path, mode in places["dirs"]:
    options = ("mode=%o," % mode + places["tmpfs"]).encode()
    if libc.mount(b"tmpfs", path.encode(), b"tmpfs", 2 | 4 | 8, options) != 0:
        fail("directory %s", path)
for path in places["files"]:
    if libc.mount(b"/dev/null", path.encode(), None, 0x1000, None) != 0:
        fail("file %s", path)
os.execv(sys.argv[2], sys.argv[2:])
"""


def shadow_command(python: str, command: list[str]) -> list[str]:
    """``command`` started behind :data:`_SHADOW_BOOT`: every world-writable place of the
    host hidden from it (see :func:`world_writable_places`)."""
    directories, files = world_writable_places()
    readonly = readonly_mounts()
    places = {"tmpfs": SHADOW_TMPFS, "files": list(files), "dirs": [], "readonly": readonly}
    for path in directories:
        try:
            places["dirs"].append([path, stat.S_IMODE(os.lstat(path).st_mode)])
        except OSError:
            continue
    return [python, "-I", "-c", _SHADOW_BOOT, json.dumps(places)] + command


if __name__ == "__main__":  # the probe, or prefetch(): the walk of / in a process of its own
    # this process's own mount namespace: nothing else changes
    supported = _FULL_WALK_ARG not in sys.argv[1:] and _probe_here()
    if sys.argv[1:] == ["--probe"]:
        sys.exit(0 if supported else 1)
    walked = _walk("/", supported)
    sys.stdout.write(json.dumps({"dirs": list(walked[0]), "files": list(walked[1]),
                                 "readonly": supported}))
