"""Issue 36, defects 1, 7 and 13, without a sandbox: every file a Kattis package names is
read through the one safe reader (judge/problem/package_files.py): a symbolic link
leading outside the package, at any path the importer reads, is a located issue and its
target is never read; devices and FIFOs are refused; sizes are bounded; links inside the
package are followed. Hostile YAML is a located issue, never a traceback or a hang.
Package text printed by ``judge verify`` / ``judge import`` is escaped for the terminal.
(The same links through the real CLI, in both sandboxes: test_package_safety_cli.py.)"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

import pytest

from judge.cli.main import main
from judge.cli.terminal import printable
from judge.errors import InputError
from judge.problem import package_files
from judge.problem.package_files import PackageFiles, Refused, program_sources
from judge.engine.program_verdicts import validator_sources
from judge.importers.kattis import read_package, read_packages
from tests.hostile_packages import HOSTILE, package, plant, secret_tree

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure


@pytest.fixture
def marker() -> str:
    return "SECRET-%s" % secrets.token_hex(8)


@pytest.fixture
def secret(tmp_path, marker) -> Path:
    return secret_tree(tmp_path / "root-only", marker)


def _issues(root: Path) -> list[str]:
    with pytest.raises(InputError) as caught:
        read_package(root)
    return [str(issue) for issue in caught.value.issues]


@pytest.mark.parametrize("layout", ["legacy", "2023-07", "domjudge"])
def test_the_generated_packages_are_valid(tmp_path, layout):
    found = read_package(package(tmp_path, layout))
    assert found.supported and len(found.problem.tests) == 2
    assert all(s.sources for s in found.submissions)


@pytest.mark.parametrize("layout,rel,target", HOSTILE, ids=["%s:%s" % h[:2] for h in HOSTILE])
def test_a_link_to_outside_at_any_path_is_refused_and_never_read(tmp_path, secret, marker,
                                                                 layout, rel, target):
    root = package(tmp_path, layout)
    plant(root, rel, secret / target)
    issues = _issues(root)
    text = "\n".join(issues)
    assert marker not in text
    assert "%s: a symbolic link to outside the package" % (root / rel) in text, text
    assert str(secret) not in text  # the link's target is not named either


def test_links_inside_the_package_are_followed(tmp_path):
    root = package(tmp_path, "legacy")
    (root / "data/sample/1.in").unlink()
    (root / "data/sample/1.in").symlink_to("../secret/1.in")
    (root / "problem_statement").rename(root / "texts")
    (root / "problem_statement").symlink_to("texts")
    (root / "include").mkdir()
    (root / "include/python").symlink_to("../submissions/accepted/multi")
    found = read_package(root)
    assert found.problem.samples[0].stdin == "2\n"
    assert found.problem.name == "Echo" and "Echo the number." in found.problem.statement
    assert found.submissions[0].include == {"main.py": "import util\nprint(input())\n",
                                            "util.py": "X = 1\n"}


def test_a_folder_of_packages_does_not_follow_a_package_link_outside(tmp_path, secret,
                                                                     marker):
    outside = package(tmp_path / "elsewhere", "legacy")
    (outside / "problem.yaml").write_text("name: %s\n" % marker)
    folder = tmp_path / "packages"
    package(folder, "legacy", "fine")
    (folder / "linked").symlink_to(outside)
    result = read_packages(folder)
    assert [p.identifier for p in result.packages] == ["fine"]
    assert ["%s" % i for i in result.issues] == [
        "%s: a symbolic link to outside the folder of packages" % (folder / "linked")]


@pytest.mark.parametrize("rel", [".timelimit", "problem.yaml", "domjudge-problem.ini",
                                 "problem_statement/problem.en.md", "data/secret/1.ans",
                                 "submissions/accepted/echo.py",
                                 "output_validators/check/check.py"])
def test_fifos_are_refused_without_blocking(tmp_path, rel):
    root = package(tmp_path, "legacy")
    (root / rel).unlink()
    os.mkfifo(root / rel)
    started = time.monotonic()
    issues = _issues(root)
    assert time.monotonic() - started < 10
    assert any(str(root / rel) in i and "not a regular file" in i for i in issues), issues


def test_a_device_file_is_refused_without_being_opened(tmp_path, monkeypatch):
    files = PackageFiles(tmp_path)
    if os.geteuid() == 0:
        os.mknod(tmp_path / "zero", 0o600 | 0o020000, os.makedev(1, 5))  # /dev/zero
    else:
        (tmp_path / "zero").symlink_to("/dev/zero")
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda p, *a, **k: opened.append(p) or real_open(p, *a, **k))
    with pytest.raises(Refused) as caught:
        files.read_bytes(tmp_path / "zero")
    assert "zero" not in [str(p) for p in opened]
    assert caught.value.issue.file == str(tmp_path / "zero")


@pytest.mark.parametrize("rel,limit", [("problem.yaml", package_files.MAX_YAML_BYTES),
                                       (".timelimit", package_files.MAX_SMALL_BYTES),
                                       ("problem_statement/problem.en.md",
                                        package_files.MAX_TEXT_BYTES),
                                       ("submissions/accepted/echo.py",
                                        package_files.MAX_TEXT_BYTES),
                                       ("output_validators/check/check.py",
                                        package_files.MAX_TEXT_BYTES)])
def test_sizes_are_bounded(tmp_path, rel, limit):
    root = package(tmp_path, "legacy")
    with open(root / rel, "r+b") as handle:  # sparse: many GB would not be read either
        handle.truncate(64 << 30)
    issues = _issues(root)
    assert any(str(root / rel) in i and "more than a" in i and "(%d bytes)" % limit in i
               for i in issues), issues


def test_a_folder_link_that_loops_is_an_issue_not_a_crash(tmp_path):
    root = package(tmp_path, "legacy")
    (root / "data/secret/again").symlink_to(".")
    (root / "submissions/accepted/multi/deeper").symlink_to("..")
    (root / "loop.yaml").symlink_to("loop.yaml")
    (root / "problem.yaml").unlink()
    (root / "problem.yaml").symlink_to("loop.yaml")
    issues = _issues(root)
    assert any("data/secret/again" in i for i in issues), issues
    assert any("multi/deeper" in i and "loop" in i for i in issues), issues
    assert any("problem.yaml" in i and "loops" in i for i in issues), issues


def test_a_link_swapped_in_after_the_check_is_not_followed(tmp_path, secret, marker,
                                                           monkeypatch):
    """The check (realpath inside the root) and the open are two steps: a link put in
    between is refused by the open (O_NOFOLLOW, component by component)."""
    root = package(tmp_path, "legacy")
    files = PackageFiles(root)
    path = root / "problem_statement/problem.en.md"
    checked = os.path.realpath(path)
    path.unlink()
    path.symlink_to(secret / "statement/problem.en.md")
    monkeypatch.setattr(package_files.os.path, "realpath",
                        lambda p: checked if str(p) == str(path) else os.path.abspath(p))
    with pytest.raises(Refused) as caught:
        files.read_text(path)
    assert marker not in str(caught.value) and "loops (or changed" in str(caught.value)
    (root / "problem_statement/problem.en.md").unlink()
    (root / "problem_statement").rmdir()
    (root / "problem_statement").symlink_to(secret / "statement")  # a folder swapped in
    with pytest.raises(Refused):
        files.read_text(path)


def test_the_output_validator_is_read_inside_its_folder_when_judged(tmp_path, secret, marker):
    """A problem file's validator (judge run): its files are read by the same rules, so a
    link planted after the import never reaches the validator's sandbox."""
    root = package(tmp_path, "legacy")
    folder = root / "output_validators/check"
    assert validator_sources(folder) == {"check.py": (folder / "check.py").read_text()}
    plant(root, "output_validators/check/util.py", secret / "secret.py")
    with pytest.raises(InputError) as caught:
        validator_sources(folder)
    assert "util.py: a symbolic link to outside the validator's folder" in str(caught.value)
    assert marker not in str(caught.value)
    plant(root, "output_validators/check/util.py", secret / "statement")
    with pytest.raises(ValueError):
        program_sources(folder)
    (folder / "util.py").unlink()
    plant(root, "output_validators/check", secret / "validator")
    with pytest.raises(ValueError, match="outside"):
        validator_sources(root / "output_validators/check")


# ---- defect 7: hostile YAML ---------------------------------------------------------------

LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    "%s: &%s [%s]\n" % (c, c, ", ".join(["*" + p] * 9)) for p, c in zip("abcdefgh", "bcdefghi"))
HOSTILE_YAML = {
    "billion laughs": (LAUGHS, "aliases expand to more than"),
    "20,000 deep": ("name: " + "[" * 20000 + "]" * 20000 + "\n", "nested deeper than 64"),
    "deep block": ("".join("  " * i + "k:\n" for i in range(200)), "nested deeper than 64"),
    "10,000 digits": ("name: x\nlimits:\n  memory: " + "9" * 10000 + "\n",
                      ":3: an integer of 10000 characters"),
    "recursive alias": ("name: &a [*a]\n", "a recursive alias"),
    "bad date": ("name: 2001-13-45\n", "invalid YAML value"),
    "too big": ("name: x\n" + "#" * (package_files.MAX_YAML_BYTES + 1) + "\n",
                "more than a YAML file may have"),
}


@pytest.mark.parametrize("where", ["problem.yaml", "data/secret/testdata.yaml",
                                   "data/secret/1.yaml"])
@pytest.mark.parametrize("name", list(HOSTILE_YAML))
def test_hostile_yaml_is_a_located_issue(tmp_path, name, where):
    text, expected = HOSTILE_YAML[name]
    root = package(tmp_path, "legacy")
    (root / where).write_text(text)
    started = time.monotonic()
    issues = _issues(root)
    assert time.monotonic() - started < 10
    assert any(i.startswith(str(root / where)) and expected in i for i in issues), issues


def test_benign_aliases_are_still_read(tmp_path):
    root = package(tmp_path, "legacy")
    (root / "problem.yaml").write_text("name: &n Echo\nvalidation: custom\nsource: *n\n")
    assert read_package(root).problem.name == "Echo"


def test_hostile_yaml_through_the_cli_has_no_traceback(tmp_path, capsys):
    root = package(tmp_path, "legacy")
    (root / "problem.yaml").write_text(HOSTILE_YAML["20,000 deep"][0])
    assert main(["import", "kattis", str(root), "--output", str(tmp_path / "out"),
                 "--no-measure"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "problem.yaml:1: YAML nested deeper than 64" in err


# ---- defect 13: terminal escapes ----------------------------------------------------------

def test_printable_escapes_what_drives_a_terminal():
    assert printable("ok: héllo 中文\ttab") == "ok: héllo 中文\ttab"
    assert printable("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m"
    assert printable("\x1b]0;title\x07") == "\\x1b]0;title\\x07"
    assert printable("a\nb\rc\x00\x7f\x9b2J") == "a\\nb\\rc\\x00\\x7f\\x9b2J"
    assert printable("\u202egnp.exe \u2066x\u2069 \u200f") == \
        "\\u202egnp.exe \\u2066x\\u2069 \\u200f"
    assert printable("bad \udcff name") == "bad \\udcff name"
    assert printable(42) == "42"


def test_import_and_verify_escape_package_text(tmp_path, capsys):
    root = package(tmp_path, "legacy", "esc")
    (root / "problem.yaml").write_text('name: Echo\nvalidation: custom\n"\\e]0;pwned\\a": 1\n')
    assert main(["import", "kattis", str(root), "--output", str(tmp_path / "out"),
                 "--no-measure"]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\\x1b]0;pwned\\x07" in err
    (root / "data/secret/\x1b[2J\u202e.in").write_text("1\n")  # no answer: an error
    assert main(["verify", str(root), "--sandbox", "process"]) == 1
    captured = capsys.readouterr()
    assert "\x1b" not in captured.err + captured.out and "\u202e" not in captured.err
    assert "\\x1b[2J\\u202e.in: test case" in captured.err
