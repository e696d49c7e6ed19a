"""One safe reader for the files a problem package names (a Kattis / ICPC package, an output
validator's folder): every read of a package's own file goes through ``PackageFiles``.

The judge runs as root, and a package is someone else's input. So, for every path a package
names:

- it is resolved inside the package's root: a symbolic link (a file or a folder, at any
  depth) that leads outside the root is refused; one that stays inside is followed (real
  packages link ``data/sample`` cases to ``data/secret``);
- it is opened component by component from the root with ``O_NOFOLLOW`` (the resolved path
  has no link left, so a link swapped in after the check is refused, not followed), and the
  opened descriptor is checked (``fstat``): a regular file, within its size bound. A device
  file, a FIFO or a socket is refused before it is opened;
- sizes, folder depth and the number of entries listed are bounded (below);
- what is refused is a located ``judge.errors.Issue`` (the path, as the package spells it,
  and why), never a traceback; a refused file's contents are never read, and its link's
  target is never named.

``PackageFiles(root)`` lives here (layer 5) so that both the importers and the executor,
which reads a package's output validator to compile it, use the same rules.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Callable

from judge.errors import InputError, Issue

#: ``.timelimit``, ``domjudge-problem.ini``
MAX_SMALL_BYTES = 64 << 10
#: ``problem.yaml``, ``testdata.yaml``, ``test_group.yaml``, a test case's ``.yaml``
MAX_YAML_BYTES = 1 << 20
#: one statement file, one source file (a submission's, an include file, an output
#: validator's)
MAX_TEXT_BYTES = 4 << 20
#: every source file of one program together (a submission with its include files, an
#: output validator's folder), and how many files that may be
MAX_PROGRAM_BYTES = 16 << 20
MAX_PROGRAM_FILES = 1000
#: folders below the package's root (a folder link looping back is caught by this too)
MAX_DEPTH = 32
#: directory entries listed while reading one package, in all
MAX_ENTRIES = 200_000

OUTSIDE = "a symbolic link to outside the package"
SPECIAL = "not a regular file or folder (a device, FIFO or socket): refused"
LOOP = "a symbolic link that loops (or changed while it was read): refused"


class Refused(InputError):
    """A package file the safe reader will not read (one located issue)."""

    code = "package_file_refused"

    def __init__(self, path: str | Path, message: str, too_big: bool = False) -> None:
        super().__init__([Issue(str(path), message)])
        self.issue = self.issues[0]
        #: refused for its size only (a file within the rules otherwise)
        self.too_big = too_big


class PackageFiles:
    """The files under ``root``, read safely. ``issues``: where the non-raising helpers
    (``is_file``, ``is_dir``, ``listdir``, ``text``) put what they refuse (each once)."""

    def __init__(self, root: str | Path, issues: list[Issue] | None = None,
                 label: str = "package") -> None:
        self.root = Path(os.path.realpath(root))
        self.issues: list[Issue] = issues if issues is not None else []
        self.label = label
        self._said: set[tuple[str, str]] = set()
        self._listed = 0

    # ---- refusals -------------------------------------------------------------------------

    def refuse(self, path: str | Path, message: str, too_big: bool = False) -> Refused:
        return Refused(path, message.replace("the package", "the %s" % self.label), too_big)

    def note(self, refused: InputError) -> None:
        """Keep a refusal's issues (once each) in ``issues``."""
        for issue in refused.issues:
            key = (issue.file, issue.message)
            if key not in self._said:
                self._said.add(key)
                self.issues.append(issue)

    # ---- where a path leads ---------------------------------------------------------------

    def _parts(self, path: str | Path) -> tuple[str, ...]:
        """The components below the root of where ``path`` leads (every link resolved);
        Refused when that is outside the root."""
        given = Path(path)
        if not given.is_absolute():
            given = self.root / given
        real = os.path.realpath(given)
        root = str(self.root)
        if real == root:
            return ()
        if not real.startswith(root.rstrip(os.sep) + os.sep):
            raise self.refuse(path, OUTSIDE)
        return tuple(Path(real[len(root):].lstrip(os.sep)).parts)

    def kind(self, path: str | Path) -> str | None:
        """"file", "dir", or None (nothing there); Refused for a path leading outside the
        root and for anything but a regular file or a folder."""
        parts = self._parts(path)
        try:
            info = os.lstat(self.root.joinpath(*parts))
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            return None
        except OSError as exc:
            raise self.refuse(path, "cannot look at it: %s" % (exc.strerror or exc)) from None
        if stat.S_ISREG(info.st_mode):
            return "file"
        if stat.S_ISDIR(info.st_mode):
            return "dir"
        if stat.S_ISLNK(info.st_mode):  # resolved a moment ago: a loop, or a race
            raise self.refuse(path, LOOP)
        raise self.refuse(path, SPECIAL)

    def is_file(self, path: str | Path) -> bool:
        """A regular file inside the root; a refusal is noted (``issues``) and is False."""
        try:
            return self.kind(path) == "file"
        except Refused as exc:
            self.note(exc)
            return False

    def is_dir(self, path: str | Path) -> bool:
        """A folder inside the root; a refusal is noted (``issues``) and is False."""
        try:
            return self.kind(path) == "dir"
        except Refused as exc:
            self.note(exc)
            return False

    def exists(self, path: str | Path) -> bool:
        try:
            return self.kind(path) is not None
        except Refused as exc:
            self.note(exc)
            return False

    # ---- opening --------------------------------------------------------------------------

    def _open(self, path: str | Path, directory: bool) -> int:
        """A descriptor of ``path`` opened from the root one component at a time, never
        following a link (the components are the resolved ones)."""
        parts = self._parts(path)
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for index, part in enumerate(parts):
                last = index == len(parts) - 1
                info = os.stat(part, dir_fd=fd, follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode):
                    raise self.refuse(path, LOOP)
                if not (stat.S_ISDIR(info.st_mode) or (last and not directory and
                                                       stat.S_ISREG(info.st_mode))):
                    raise self.refuse(path, SPECIAL if not stat.S_ISREG(info.st_mode) else
                                      "not a folder")
                flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
                if not last or directory:
                    flags |= os.O_DIRECTORY
                following = os.open(part, flags, dir_fd=fd)
                os.close(fd)
                fd = following
            return fd
        except Refused:
            os.close(fd)
            raise
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise self.refuse(path, LOOP) from None
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                raise self.refuse(path, "not found") from None
            raise self.refuse(path, "cannot open it: %s" % (exc.strerror or exc)) from None

    def read_bytes(self, path: str | Path, limit: int = MAX_TEXT_BYTES,
                   what: str = "file") -> bytes:
        """The bytes of a regular file inside the root, at most ``limit`` of them (a bigger
        file is Refused, naming both sizes)."""
        fd = self._open(path, directory=False)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise self.refuse(path, SPECIAL)
            if info.st_size > limit:
                raise self.refuse(path, "%d bytes, more than a %s may have (%d bytes)"
                                  % (info.st_size, what, limit), too_big=True)
            chunks: list[bytes] = []
            size = 0
            while True:
                chunk = os.read(fd, min(1 << 20, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > limit:
                    raise self.refuse(path, "more than a %s may have (%d bytes): it grew "
                                      "while it was read" % (what, limit), too_big=True)
            return b"".join(chunks)
        except OSError as exc:
            raise self.refuse(path, "cannot read it: %s" % (exc.strerror or exc)) from None
        finally:
            os.close(fd)

    def read_text(self, path: str | Path, limit: int = MAX_TEXT_BYTES,
                  what: str = "file") -> str:
        """A text file (UTF-8; undecodable bytes replaced), within ``limit`` bytes."""
        return self.read_bytes(path, limit, what).decode("utf-8", errors="replace")

    def text(self, path: str | Path, limit: int = MAX_TEXT_BYTES,
             what: str = "file") -> str | None:
        """``read_text``, with a refusal noted (``issues``) and None."""
        try:
            return self.read_text(path, limit, what)
        except Refused as exc:
            self.note(exc)
            return None

    # ---- folders --------------------------------------------------------------------------

    def names(self, folder: str | Path) -> list[str]:
        """The names in a folder inside the root, sorted; Refused as ``kind`` says."""
        fd = self._open(folder, directory=True)
        try:
            names = sorted(os.listdir(fd))
        except OSError as exc:
            raise self.refuse(folder, "cannot list it: %s" % (exc.strerror or exc)) from None
        finally:
            os.close(fd)
        self._listed += len(names)
        if self._listed > MAX_ENTRIES:
            raise self.refuse(folder, "more files and folders than a %s may have (%d)"
                              % (self.label, MAX_ENTRIES))
        return names

    def listdir(self, folder: str | Path) -> list[Path]:
        """The entries of a folder (paths under ``folder`` as given), sorted by name; a
        refusal is noted (``issues``) and is an empty list."""
        try:
            return [Path(folder) / name for name in self.names(folder)]
        except Refused as exc:
            self.note(exc)
            return []

    def files(self, folder: str | Path, hidden: bool = True) -> list[Path]:
        """Every regular file below ``folder`` (paths under it as given), sorted by their
        relative path; a link leading outside the root, a special file, a folder deeper
        than ``MAX_DEPTH`` (a looping link) are Refused. ``hidden=False`` leaves out
        what starts with a dot."""
        found: list[Path] = []
        todo: list[tuple[Path, tuple[tuple[str, ...], ...]]] = [
            (Path(folder), (self._parts(folder),))]
        while todo:
            current, above = todo.pop()
            if len(above) > MAX_DEPTH:
                raise self.refuse(current, "folders nested deeper than %d" % MAX_DEPTH)
            for name in self.names(current):
                if not hidden and name.startswith("."):
                    continue
                entry = current / name
                kind = self.kind(entry)
                if kind == "dir":
                    real = self._parts(entry)
                    if real in above:
                        raise self.refuse(entry, "a link to a folder it is in (a loop): "
                                          "refused")
                    todo.append((entry, above + (real,)))
                elif kind == "file":
                    found.append(entry)
        return sorted(found, key=lambda p: p.relative_to(folder).parts)

    def sources(self, path: str | Path, keep: Callable[[Path], bool] | None = None,
                what: str = "source file") -> dict[str, str]:
        """A program's files (name relative to the program's folder -> text): ``path``
        itself when it is a file, else every file below it that ``keep(path)`` accepts;
        each within ``MAX_TEXT_BYTES``, together within ``MAX_PROGRAM_BYTES`` and
        ``MAX_PROGRAM_FILES`` files. Refused on the first file it will not read."""
        path = Path(path)
        kind = self.kind(path)
        if kind is None:
            raise self.refuse(path, "not found")
        if kind == "file":
            return {path.name: self.read_text(path, MAX_TEXT_BYTES, what)}
        chosen = [p for p in self.files(path) if keep is None or keep(p)]
        if len(chosen) > MAX_PROGRAM_FILES:
            raise self.refuse(path, "%d files, more than a program may have (%d)"
                              % (len(chosen), MAX_PROGRAM_FILES))
        texts: dict[str, str] = {}
        total = 0
        for file in chosen:
            data = self.read_bytes(file, MAX_TEXT_BYTES, what)
            total += len(data)
            if total > MAX_PROGRAM_BYTES:
                raise self.refuse(path, "more than a program's files may hold together "
                                  "(%d bytes)" % MAX_PROGRAM_BYTES)
            texts[file.relative_to(path).as_posix()] = data.decode("utf-8", errors="replace")
        return texts


def program_sources(path: str | Path) -> dict[str, str]:
    """An output validator's files to compile (name -> text), read inside the folder the
    program is in (``path``'s parent): nothing may lead outside it. Refused (an InputError)
    with the file and why."""
    path = Path(path)
    return PackageFiles(path.parent, label="validator's folder").sources(
        path, what="validator source file")


__all__ = ["MAX_DEPTH", "MAX_ENTRIES", "MAX_PROGRAM_BYTES", "MAX_PROGRAM_FILES",
           "MAX_SMALL_BYTES", "MAX_TEXT_BYTES", "MAX_YAML_BYTES", "PackageFiles", "Refused",
           "program_sources"]
