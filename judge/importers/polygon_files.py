"""A Polygon (Codeforces) package's files read safely: its ``.zip`` extracted within bounds,
its ``problem.xml`` parsed without a DTD, its statement's sections. Part of
``judge.importers.polygon``; pure reading (nothing of the package runs here).

- **zip**: every member is checked before a byte is written: no absolute path, no ``..``,
  no symbolic link or special file, no duplicate, at most ``MAX_MEMBERS`` members; the bytes
  written are counted as they are inflated (never the sizes the archive declares), at most
  ``MAX_MEMBER_BYTES`` a member and ``MAX_ZIP_BYTES`` in all: a zip bomb stops there.
- **problem.xml**: at most ``MAX_XML_BYTES``; a document type declaration (``<!DOCTYPE``,
  hence any entity) is refused before parsing, so no entity is ever expanded.
"""

from __future__ import annotations

import json
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from xml.etree import ElementTree

from judge.errors import InputError, Issue
from judge.problem.package_files import PackageFiles, Refused

MAX_XML_BYTES = 4 << 20
MAX_MEMBERS = 20_000
MAX_MEMBER_BYTES = 512 << 20
MAX_ZIP_BYTES = 2 << 30
_CHUNK = 1 << 20


def _refuse(path: Path | str, message: str) -> InputError:
    return InputError([Issue(str(path), message)])


def extract_zip(archive: Path, dest: Path) -> Path:
    """Extract ``archive`` into ``dest`` (created) and return the package folder in it:
    ``dest`` itself, or its one top folder when ``problem.xml`` is there. InputError (one
    located issue) on the first member refused or bound passed."""
    try:
        zf = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as exc:
        raise _refuse(archive, "not a readable zip archive: %s" % exc) from None
    with zf:
        members = zf.infolist()
        if len(members) > MAX_MEMBERS:
            raise _refuse(archive, "%d members, more than a package may have (%d)"
                          % (len(members), MAX_MEMBERS))
        seen: set[str] = set()
        for info in members:
            name = info.filename
            where = "%s: %s" % (archive, name)
            parts = PurePosixPath(name.replace("\\", "/")).parts
            if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) or \
                    ".." in parts or "\x00" in name:
                raise _refuse(where, "a member path leading outside the package: refused")
            mode = info.external_attr >> 16
            kind = stat.S_IFMT(mode)  # 0: no type recorded (a plain file, zipfile's own)
            if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
                raise _refuse(where, "a symbolic link or special file in the archive: refused")
            key = "/".join(parts).lower()
            if key in seen:
                raise _refuse(where, "the same path twice in the archive: refused")
            seen.add(key)
        dest.mkdir(parents=True, exist_ok=True)
        total = 0
        for info in members:
            parts = PurePosixPath(info.filename.replace("\\", "/")).parts
            if not parts:
                continue
            target = dest.joinpath(*parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            written = 0
            try:
                with zf.open(info) as src, open(target, "xb") as out:
                    while True:
                        chunk = src.read(_CHUNK)
                        if not chunk:
                            break
                        written += len(chunk)
                        total += len(chunk)
                        if written > MAX_MEMBER_BYTES:
                            raise _refuse("%s: %s" % (archive, info.filename),
                                          "inflates past %d bytes, more than a package file "
                                          "may have (a zip bomb?)" % MAX_MEMBER_BYTES)
                        if total > MAX_ZIP_BYTES:
                            raise _refuse(archive, "inflates past %d bytes, more than a "
                                          "package may hold (a zip bomb?)" % MAX_ZIP_BYTES)
                        out.write(chunk)
            except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError,
                    EOFError) as exc:  # zlib.error is an Exception too
                raise _refuse("%s: %s" % (archive, info.filename),
                              "cannot extract it: %s" % exc) from None
            except Exception as exc:  # zlib.error: a corrupt member
                if isinstance(exc, InputError):
                    raise
                raise _refuse("%s: %s" % (archive, info.filename),
                              "cannot extract it: %s" % exc) from None
    if (dest / "problem.xml").is_file():
        return dest
    tops = [p for p in dest.iterdir()]
    if len(tops) == 1 and tops[0].is_dir() and (tops[0] / "problem.xml").is_file():
        return tops[0]
    raise _refuse(archive, "no problem.xml at the top of the archive (not a Polygon package)")


def parse_xml(path: Path, files: PackageFiles) -> ElementTree.Element:
    """``problem.xml``, bounded, with no DTD (refused); InputError with the line."""
    try:
        data = files.read_bytes(path, MAX_XML_BYTES, "problem.xml")
    except Refused as exc:
        raise InputError(exc.issues) from None
    found = re.search(rb"<!\s*(DOCTYPE|ENTITY)", data, re.IGNORECASE)
    if found:
        line = data.count(b"\n", 0, found.start()) + 1
        raise InputError([Issue(str(path), "a document type declaration (<!%s): refused "
                                "(Polygon's problem.xml has none; entities are never expanded)"
                                % found.group(1).decode().upper(), line=line)])
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise InputError([Issue(str(path), "not well-formed XML: %s" % exc.msg
                                if hasattr(exc, "msg") else "not well-formed XML",
                                line=line)]) from None
    if root.tag != "problem":
        raise InputError([Issue(str(path), "the root element is <%s>, not <problem>"
                                % str(root.tag)[:40])])
    return root


@dataclass
class Statement:
    name: str | None
    text: str
    input_format: str | None
    output_format: str | None
    language: str


_SECTIONS = ("legend", "input", "output", "notes", "interaction", "scoring")


def read_statement(root: Path, xml: ElementTree.Element, files: PackageFiles,
                   notes: list[str]) -> Statement | None:
    """The English statement (else the first language): ``statements/<lang>/
    problem-properties.json`` (legend, input, output, notes, interaction), else the
    ``statement-sections/<lang>/*.tex`` files. Text as Polygon keeps it (LaTeX)."""
    languages = [s.get("language") or "" for s in xml.iter("statement")]
    languages += [n.get("language") or "" for n in xml.iter("name")]
    order = (["english"] if "english" in languages else []) + \
        [x for x in dict.fromkeys(languages) if x and x != "english"]
    for lang in order:
        if not re.fullmatch(r"[a-z_-]{1,32}", lang):
            continue
        sections: dict[str, str] = {}
        props = root / "statements" / lang / "problem-properties.json"
        if files.is_file(props):
            text = files.text(props)
            try:
                data = json.loads(text) if text is not None else None
            except ValueError:
                notes.append("%s is not JSON: not used" % props.relative_to(root))
                data = None
            if isinstance(data, dict):
                for key in _SECTIONS + ("name",):
                    if isinstance(data.get(key), str) and data[key].strip():
                        sections[key] = data[key].strip()
        if not sections:
            folder = root / "statement-sections" / lang
            for key in _SECTIONS + ("name",):
                path = folder / ("%s.tex" % key)
                if files.is_file(path):
                    text = files.text(path)
                    if text and text.strip():
                        sections[key] = text.strip()
        if sections:
            if lang != "english":
                notes.append("no English statement: the %s one is used" % lang)
            body = [sections.get("legend", "")]
            for key, title in (("interaction", "Interaction"), ("notes", "Notes"),
                               ("scoring", "Scoring")):
                if key in sections:
                    body.append("%s\n\n%s" % (title, sections[key]))
            return Statement(sections.get("name"), "\n\n".join(b for b in body if b),
                             sections.get("input"), sections.get("output"), lang)
    return None


__all__ = ["MAX_MEMBERS", "MAX_MEMBER_BYTES", "MAX_XML_BYTES", "MAX_ZIP_BYTES", "Statement",
           "extract_zip", "parse_xml", "read_statement"]
