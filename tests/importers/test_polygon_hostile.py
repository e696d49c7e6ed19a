"""Hostile Polygon packages are input: symbolic links out of the package, entity bombs and
huge or broken problem.xml, paths leading out, zip bombs and zip path traversal, links in a
zip. Each is refused with a one-line located error (never a traceback, never the secret a
link points at), and nothing of the package runs."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from judge.importers import IMPORTERS, polygon_files
from judge.importers.polygon import read_packages
from tests.paths import DATA, ROOT

pytestmark = pytest.mark.pure

POLYGON = DATA / "polygon"
MARKER = "SECRET-7f3a9c"


def _copy(tmp_path: Path, name: str = "aplusb") -> Path:
    return Path(shutil.copytree(POLYGON / name, tmp_path / "pkg" / name, symlinks=True))


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text("%s\n" % MARKER)
    return secret


def _issues(*paths: Path) -> list[str]:
    found = read_packages(*paths)
    assert not found.packages
    return [str(i) for i in found.issues]


@pytest.mark.parametrize("name, rel", [
    ("aplusb", "tests/02"), ("aplusb", "tests/03.a"), ("aplusb", "solutions/main.py"),
    ("aplusb", "statements/english/problem-properties.json"), ("aplusb", "problem.xml"),
    ("split", "files/check.cpp"), ("guess", "files/interactor.cpp"),
])
def test_a_link_out_of_the_package_is_refused_where_it_is(tmp_path, name, rel):
    root = _copy(tmp_path, name)
    secret = _secret(tmp_path)
    (root / rel).unlink()
    os.symlink(secret, root / rel)
    issues = _issues(root)
    assert issues and any(rel in i and "symbolic link to outside the package" in i
                          for i in issues), issues
    assert not any(MARKER in i or "\n" in i for i in issues)


def test_a_linked_tests_folder_is_refused(tmp_path):
    root = _copy(tmp_path)
    outside = tmp_path / "outside" / "tests"
    shutil.copytree(root / "tests", outside)
    shutil.rmtree(root / "tests")
    os.symlink(outside, root / "tests")
    assert any("symbolic link to outside the package" in i for i in _issues(root))


@pytest.mark.parametrize("xml, expected", [
    ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 '
     '"&lol;&lol;&lol;">]>\n<problem>&lol2;</problem>',
     "problem.xml:2: a document type declaration (<!DOCTYPE): refused"),
    ('<problem>\n<judging>\n</problem>', "problem.xml:3: not well-formed XML"),
    ('<html></html>', "the root element is <html>, not <problem>"),
    ('<problem><judging><testset name="tests"><time-limit>1000</time-limit>'
     '<input-path-pattern>../../outside/%02d</input-path-pattern>'
     '<answer-path-pattern>tests/%02d.a</answer-path-pattern><tests><test/></tests>'
     '</testset></judging></problem>', "'../../outside/01' leads outside the package"),
    ('<problem><judging><testset name="tests"><time-limit>-5</time-limit>'
     '<input-path-pattern>tests/%02d</input-path-pattern><test-count>1</test-count>'
     '</testset></judging></problem>', "time-limit (ms) must be a positive number"),
    ('<problem><judging><testset name="tests"><test-count>99999999</test-count>'
     '</testset></judging></problem>', "99999999 tests: more than a package may have"),
    ('<problem><judging/></problem>', 'no <judging><testset name="tests">'),
])
def test_a_hostile_or_broken_problem_xml_is_located(tmp_path, xml, expected):
    root = _copy(tmp_path)
    (root / "problem.xml").write_text(xml)
    issues = _issues(root)
    assert any(expected in i for i in issues), issues
    assert all(i.startswith(str(root)) and "\n" not in i for i in issues)


def test_a_huge_problem_xml_is_refused_unread(tmp_path):
    root = _copy(tmp_path)
    with open(root / "problem.xml", "wb") as out:
        out.write(b"<problem>" + b" " * (polygon_files.MAX_XML_BYTES + 10) + b"</problem>")
    issues = _issues(root)
    assert any("more than a problem.xml may have" in i for i in issues), issues


def _zip(path: Path, members: dict[str, bytes], links: dict[str, str] = {}) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, target in links.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return path


def _package_members() -> dict[str, bytes]:
    return {p.relative_to(POLYGON / "aplusb").as_posix(): p.read_bytes()
            for p in sorted((POLYGON / "aplusb").rglob("*")) if p.is_file()}


@pytest.mark.parametrize("extra, links, expected", [
    ({"../evil.txt": b"x"}, {}, "a member path leading outside the package"),
    ({"/etc/evil": b"x"}, {}, "a member path leading outside the package"),
    ({"sub/../../evil": b"x"}, {}, "a member path leading outside the package"),
    ({}, {"tests/04": "/etc/passwd"}, "a symbolic link or special file in the archive"),
    ({"TESTS/01": b"x"}, {}, "the same path twice in the archive"),
])
def test_a_hostile_zip_is_refused_before_anything_is_written(tmp_path, extra, links,
                                                             expected):
    archive = _zip(tmp_path / "p.zip", {**_package_members(), **extra}, links)
    out = tmp_path / "suite"
    report = IMPORTERS.get("polygon").import_paths([archive], out)
    issues = [str(i) for i in report.issues]
    assert len(issues) == 1 and expected in issues[0] and "p.zip" in issues[0], issues
    assert not (out / "packages").exists() or not any((out / "packages").rglob("*.json"))
    assert not (tmp_path / "evil.txt").exists()


def test_a_zip_bomb_stops_at_the_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(polygon_files, "MAX_MEMBER_BYTES", 1 << 20)
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("problem.xml", (POLYGON / "aplusb/problem.xml").read_bytes())
        with zf.open("tests/01", "w") as member:
            for _ in range(8):
                member.write(bytes(1 << 20))
    assert archive.stat().st_size < 100_000
    report = IMPORTERS.get("polygon").import_paths([archive], tmp_path / "suite")
    [issue] = [str(i) for i in report.issues]
    assert "bomb.zip: tests/01: inflates past 1048576 bytes" in issue
    written = tmp_path / "suite/packages/bomb/tests/01"
    assert not written.exists() or written.stat().st_size <= 1 << 20


def test_a_total_past_the_bound_stops_too(tmp_path, monkeypatch):
    monkeypatch.setattr(polygon_files, "MAX_ZIP_BYTES", 100_000)
    archive = _zip(tmp_path / "many.zip", {**_package_members(),
                                          **{"files/%d" % i: bytes(30_000) for i in range(5)}})
    report = IMPORTERS.get("polygon").import_paths([archive], tmp_path / "suite")
    assert any("inflates past 100000 bytes, more than a package may hold" in str(i)
               for i in report.issues), report.issues


def test_not_a_zip_and_a_zip_without_problem_xml(tmp_path):
    (tmp_path / "fake.zip").write_bytes(b"PK\x03\x04 not really")
    _zip(tmp_path / "empty.zip", {"readme.txt": b"hello"})
    issues = _issues(tmp_path / "fake.zip", tmp_path / "empty.zip")
    assert any("fake.zip: not a readable zip archive" in i for i in issues), issues
    assert any("empty.zip: no problem.xml at the top of the archive" in i for i in issues)


def test_the_cli_says_one_line_per_error_and_no_traceback(tmp_path):
    root = _copy(tmp_path)
    (root / "problem.xml").write_text('<!DOCTYPE x [<!ENTITY a "b">]><problem/>')
    bad_zip = _zip(tmp_path / "bad.zip", {"../x": b"x"})
    done = subprocess.run([sys.executable, "-m", "judge", "import", "polygon", str(root),
                           str(bad_zip), "-o", str(tmp_path / "suite")],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "document type declaration" in done.stderr
    assert "a member path leading outside the package" in done.stderr
    assert "2 errors" in done.stdout


@pytest.mark.parametrize("old, new", [
    ('group="small" points="40"/>', 'group="small" points="nan"/>'),
    ('group="small" points="40"/>', 'group="small" points="inf"/>'),
    ('group="small" points="40"/>', 'group="small" points="-40"/>'),
    ('group="small" points="40"/>', 'group="small" points="1e400"/>'),
    ('group="small" points="40"/>', 'group="small" points="forty"/>'),
    ('name="small" points="40"', 'name="small" points="1e12"'),
    ('name="small" points="40"', 'name="small" points="-inf"'),
])
def test_points_that_are_no_bounded_number_are_refused(tmp_path, old, new):
    package = _copy(tmp_path, "bigsum")
    xml = package / "problem.xml"
    text = xml.read_text()
    assert old in text
    xml.write_text(text.replace(old, new, 1))
    issues = _issues(package)
    assert any("is not a number from 0 to 1e+06" in i for i in issues), issues
