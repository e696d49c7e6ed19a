"""A candidate's files: its work directories, its capture file, the environment its
children see, and removing whatever trees it built (iteratively, whatever their depth)."""

import errno
import os
import stat


def _candidate_environment(workdir):
    """What the candidate's children see: nothing of the judge's, only these."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": workdir,
           "TMPDIR": os.path.join(workdir, "tmp"), "PYTHONHASHSEED": "0"}
    for key in list(os.environ):
        if key not in env:
            del os.environ[key]
    os.environ.update(env)


def _force_remove(function, path, excinfo):
    try:
        os.chmod(os.path.dirname(path), stat.S_IRWXU)
        os.chmod(path, stat.S_IRWXU)
        function(path)
    except OSError:
        pass


def _reset_capture(capture_fd):
    """A fresh, empty capture file on the same descriptor number for the next child. Where
    the kernel has sealed memory files it cannot shrink: a candidate that floods its output
    and then truncates or rewinds the file still leaves its size behind (output_limit)."""
    try:
        import fcntl

        fresh = os.memfd_create("judge-capture", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            fcntl.fcntl(fresh, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
            os.dup2(fresh, capture_fd, inheritable=False)
        finally:
            os.close(fresh)
        return
    except (AttributeError, ImportError, OSError):
        pass
    os.ftruncate(capture_fd, 0)
    os.lseek(capture_fd, 0, os.SEEK_SET)


def _remove_tree(path, budget=1000000):
    """Remove a directory tree the candidate built: iteratively (a tree nested thousands deep
    must not exhaust the recursion limit), relative to open directory descriptors (no path
    length limit), one descriptor at a time, fixing permissions on the way."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError:
        try:
            os.unlink(path)
        except OSError:
            pass
        return
    depth, stuck = 0, set()
    try:
        while budget > 0:
            budget -= 1
            try:
                os.fchmod(fd, stat.S_IRWXU)
            except OSError:
                pass
            try:
                names = os.listdir(fd)
            except OSError:
                names = []
            child = None
            for name in names:
                budget -= 1
                try:
                    os.unlink(name, dir_fd=fd)
                    continue
                except IsADirectoryError:
                    pass
                except OSError as exc:
                    if exc.errno not in (errno.EISDIR, errno.EPERM):
                        continue
                try:
                    os.rmdir(name, dir_fd=fd)
                    continue
                except OSError:
                    pass
                try:
                    opened = os.open(name, flags, dir_fd=fd)
                except OSError:
                    continue
                key = os.fstat(opened)[1:3]
                if key in stuck:
                    os.close(opened)
                    continue
                stuck.add(key)  # entered once; a tree that cannot be emptied is left
                child = opened
                break
            if child is not None:
                os.close(fd)
                fd, depth = child, depth + 1
                continue
            if depth == 0:
                break
            parent = os.open("..", flags & ~os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd, depth = parent, depth - 1
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError:
        pass


def _wipe(directory, keep=None):
    """Empty ``directory``, sparing the folder that holds ``keep`` (the worker's own)."""
    try:
        entries = os.listdir(directory)
    except OSError:
        return
    for entry in entries:
        path = os.path.join(directory, entry)
        if keep and (keep == path or keep.startswith(path + os.sep)):
            continue
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                _remove_tree(path)
            else:
                os.unlink(path)
        except OSError:
            pass



def _make_parents(base, target):
    """The folders between ``base`` and ``target`` (a path below it), made one level at a
    time: no recursion a deep path could exhaust (``os.makedirs`` recurses once per level;
    a path deeper than the interpreter's recursion limit would end the worker). A path too
    long for the kernel is its OSError."""
    relative = os.path.relpath(os.path.dirname(target), base)
    if relative == os.curdir:
        return
    current = base
    for part in relative.split(os.sep):
        current = os.path.join(current, part)
        try:
            os.mkdir(current)
        except FileExistsError:
            if not os.path.isdir(current) or os.path.islink(current):
                raise NotADirectoryError("not a folder: %s" % part) from None


def _chown_below(base, uid, gid, budget=100000):
    """Everything below ``base`` given to the candidate's user, iteratively (``os.walk``
    recurses once per level in this Python)."""
    stack = [base]
    while stack and budget > 0:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            budget -= 1
            os.lchown(entry.path, uid, gid)
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)


def _file_reached(directories, size, budget=20000):
    """Is a regular file of at least ``size`` bytes anywhere below ``directories``? Searched
    iteratively (no recursion a deep tree could exhaust), at most ``budget`` entries."""
    stack = list(directories)
    while stack and budget > 0:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            budget -= 1
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False) and \
                        entry.stat(follow_symlinks=False).st_size >= size:
                    return True
            except OSError:
                continue
    return False
