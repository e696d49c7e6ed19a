"""The host's world-writable places, hidden from the process sandbox's candidates.

A candidate runs as an unprivileged uid of its own, so the only places of the host it could
write are the ones others may write. :func:`world_writable_places` finds them all by walking
the host as a stranger would; :func:`shadow_command` starts the worker behind a small
bootstrap that, in a mount namespace of the worker's own, mounts a small private tmpfs
(``SHADOW_TMPFS``: size and inode limits) on each such directory and /dev/null on each such
file, FIFO or socket. The worker itself makes /tmp, /var/tmp, /dev/shm and /dev/mqueue
private (``PRIVATE_DIRS``) and wipes all of them between candidates.
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
#: the walk begun by :func:`prefetch`, not yet taken
_prefetched: subprocess.Popen[bytes] | None = None


def world_writable_places(root: str = "/", refresh: bool = False
                          ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Every place on the host where a candidate's uid could write or leave something:
    ``(directories, files)``. Found by walking the host's tree from ``root`` as a stranger
    would (only into directories others may enter: ``o+x``), taking every directory that
    others may write (``o+w``: not entered, all below it gets hidden) and every world-writable
    file, FIFO, socket or block device (a character device such as /dev/null is a device, not
    a place). /proc is not walked. Found once per judge process (the walk stats every entry
    others can reach: about a second of CPU on a host with a few hundred thousand files) and
    cached; :data:`PRIVATE_DIRS` are the worker's own and left out. When :func:`prefetch`
    started the walk of ``/`` in a process of its own, its answer is taken (the same walk,
    begun earlier); if that process failed, the walk is done here."""
    global _walked, _prefetched
    if root == "/" and refresh:
        _stop_prefetch()  # begun before what the caller wants seen: not taken
    with _walk_lock:
        if root == "/" and not refresh:
            if _walked is not None:
                return _walked
            started, _prefetched = _prefetched, None
            if started is not None:
                found = _prefetch_result(started)
                if found is not None:
                    _walked = found
                    return found
        found = _walk(root)
        if root == "/":
            _walked = found
        return found


def _walk(root: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The walk itself (see :func:`world_writable_places`). Each folder is opened once and
    its entries stat'ed relative to it (``fstatat``: one path component each, not the whole
    path again: about an eighth less CPU than stat'ing full paths)."""
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
    with _walk_lock:
        if _walked is not None or _prefetched is not None:
            return
        try:
            _prefetched = subprocess.Popen(
                [sys.executable, "-I", "-S", os.path.abspath(__file__)],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                close_fds=True)
        except OSError:
            _prefetched = None
            return
    atexit.register(_stop_prefetch)


def _prefetch_result(process: subprocess.Popen[bytes]
                     ) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The walk's answer from :func:`prefetch`'s process, or None when it failed."""
    try:
        out, _ = process.communicate()
        if process.returncode != 0:
            return None
        data = json.loads(out)
        directories, files = data["dirs"], data["files"]
        if not all(isinstance(p, str) for p in directories + files):
            return None
        return tuple(directories), tuple(files)
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
#: follows): a mount namespace of its own where every world-writable directory of the host
#: is a small private tmpfs and every world-writable file, FIFO or socket is /dev/null; then
#: exec the worker (which makes its own /tmp, /var/tmp, /dev/shm and /dev/mqueue private)
_SHADOW_BOOT = """\
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
places = json.loads(sys.argv[1])
def fail(what, path):
    sys.stderr.write("cannot hide the host's world-writable %s (errno %d)\\n"
                     % (what % path, ctypes.get_errno()))
    sys.exit(12)
if libc.unshare(0x00020000) != 0:
    fail("%s: no mount namespace", "places")
if libc.mount(b"none", b"/", None, 0x4000 | 0x40000, None) != 0:
    fail("%s: / stays shared", "places")
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
    places = {"tmpfs": SHADOW_TMPFS, "files": list(files), "dirs": []}
    for path in directories:
        try:
            places["dirs"].append([path, stat.S_IMODE(os.lstat(path).st_mode)])
        except OSError:
            continue
    return [python, "-I", "-c", _SHADOW_BOOT, json.dumps(places)] + command


if __name__ == "__main__":  # prefetch(): the walk of / in a process of its own
    walked = _walk("/")
    sys.stdout.write(json.dumps({"dirs": list(walked[0]), "files": list(walked[1])}))
