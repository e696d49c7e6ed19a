"""The judge's settings (judge/settings.py): every environment variable the judge reads as
its own is declared there and read there only, once; each form parses as its readers did; a
malformed value is one located error; the docs page holds the current table."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import judge
import judge.settings
from judge.settings import OFF, InvalidSetting, Settings, declarations, parse, reload, settings
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

PACKAGE = ROOT / "judge"
PAGE = ROOT / "docs" / "settings.md"


@pytest.fixture(autouse=True)
def _settings_read_again():
    """A test here that sets a variable reads the settings again; after it (once monkeypatch
    has put the environment back) so do we."""
    yield
    judge.settings.reload()


# ---- no module but judge/settings.py reads a setting -----------------------------------------

def _is_environ(node: ast.AST) -> bool:
    """``os.environ`` or a bare ``environ`` (``from os import environ``)."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ"
            and isinstance(node.value, ast.Name) and node.value.id == "os") \
        or (isinstance(node, ast.Name) and node.id == "environ")


def _is_getenv(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "getenv"
            and isinstance(node.value, ast.Name) and node.value.id == "os") \
        or (isinstance(node, ast.Name) and node.id == "getenv")


def _read_keys(tree: ast.AST) -> list[tuple[int, ast.AST]]:
    """(line, key) of every read of the environment: ``os.environ.get(k)``,
    ``os.environ.setdefault(k, ...)``, ``os.environ[k]`` (not as an assignment's target),
    ``os.getenv(k)`` and ``k in os.environ`` / ``k not in os.environ``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if _is_getenv(func) or (isinstance(func, ast.Attribute)
                                    and func.attr in ("get", "setdefault")
                                    and _is_environ(func.value)):
                found.append((node.lineno, node.args[0]))
        elif isinstance(node, ast.Subscript) and _is_environ(node.value) \
                and isinstance(node.ctx, ast.Load):
            found.append((node.lineno, node.slice))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 \
                and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and _is_environ(node.comparators[0]):
            found.append((node.lineno, node.left))
    return found


def _named(variable: str) -> bool:
    return variable.startswith("JUDGE_") or variable in {d.variable for d in declarations()}


def _constants(trees: list[ast.AST]) -> set[str]:
    """Names bound anywhere in the package to a string constant that names a setting
    (``ENV_MODEL = "JUDGE_LLM_MODEL"``): a read through such a name is a read of it."""
    names = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, str) and _named(node.value.value):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def setting_reads(source: str, constants: set[str] = frozenset()) -> list[int]:
    """Lines of ``source`` that read a setting's variable from the environment: by a string
    constant (``"JUDGE_..."``, ``"RAY_ADDRESS"``...) or by a name in ``constants``."""
    lines = []
    for line, key in _read_keys(ast.parse(source)):
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and _named(key.value):
            lines.append(line)
        name = key.id if isinstance(key, ast.Name) else getattr(key, "attr", None)
        if name in constants:
            lines.append(line)
    return sorted(set(lines))


def test_the_scan_finds_every_kind_of_read():
    source = ("import os\nfrom os import environ, getenv\nENV = 'JUDGE_X'\n"
              "a = os.environ.get('JUDGE_A')\n"
              "b = os.environ['JUDGE_B']\n"
              "c = os.getenv('JUDGE_C', '1')\n"
              "d = 'JUDGE_D' in os.environ\n"
              "e = environ.get(ENV)\n"
              "f = getenv('RAY_ADDRESS')\n"
              "g = os.environ.setdefault('JUDGE_G', '')\n"
              "h = os.environ.get('PATH')\n"
              "os.environ['JUDGE_I'] = '1'\n"
              "j = 'JUDGE_J' not in environ\n"
              "k = os.environ.get(module.ENV)\n")
    assert setting_reads(source, {"ENV"}) == [4, 5, 6, 7, 8, 9, 10, 13, 14]


def test_no_module_outside_settings_reads_a_setting_from_the_environment():
    paths = sorted(p for p in PACKAGE.rglob("*.py") if "_resources" not in p.parts)
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in paths}
    constants = _constants(list(trees.values()))
    assert {"ENV_MODEL", "FULL_WALK_ENV"} <= constants  # the scan sees names, not only strings
    found = []
    for path in paths:
        if path == PACKAGE / "settings.py":
            continue
        source = path.read_text(encoding="utf-8")
        found += ["%s:%d" % (path.relative_to(ROOT), line)
                  for line in setting_reads(source, constants)]
    assert not found, "read it from judge.settings.settings() instead: %s" % ", ".join(found)


# ---- declarations ----------------------------------------------------------------------------

def test_every_setting_is_declared_once_with_its_meaning_and_reader():
    declared = declarations()
    variables = [d.variable for d in declared]
    assert len(variables) == len(set(variables)) >= 20
    assert [d.name for d in declared] == list(Settings.__dataclass_fields__)
    for d in declared:
        assert d.meaning and d.read_by and d.shown and d.form.label and d.form.expected, d
        assert d.variable.startswith("JUDGE_") or d.variable in ("RAY_ADDRESS", "OPENAI_API_KEY")


def test_every_setting_is_read_and_its_readers_exist():
    """No declaration without a reader: some module of judge/ reads each field, and every
    module the table names (`judge.x.y`) exists."""
    import importlib.util
    import re

    read = set()
    for path in PACKAGE.rglob("*.py"):
        if path != PACKAGE / "settings.py" and "_resources" not in path.parts:
            read.update(node.attr for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                        if isinstance(node, ast.Attribute))
    for d in declarations():
        assert d.name in read, "%s (%s) is declared but never read" % (d.variable, d.name)
        for module in re.findall(r"`(judge\.[a-z_.]+)`", d.read_by):
            assert importlib.util.find_spec(module) is not None, (d.variable, module)


def test_unset_or_empty_is_the_default():
    assert parse({}) == Settings()
    empty = parse({d.variable: "" for d in declarations() if d.variable != "JUDGE_OFFICIAL_BASE"})
    assert empty == Settings()
    s = Settings()
    assert (s.sandbox_uid_base, s.sandbox_lock_dir, s.pull_timeout_s, s.progress_interval_s,
            s.ray_keep_s, s.import_time_s, s.results_dir) == (
        61000, Path("/run/judge-sandbox"), 10.0, 10.0, 60.0, 60.0, Path("judge-results"))
    assert (s.sandbox_full_walk, s.base_image, s.official_base, s.reference_cache,
            s.llm_model, s.llm_cache, s.ray_address, s.api_token) == (
        False, "", None, None, None, None, None, None)


# ---- each form, as its readers read it -------------------------------------------------------

def test_numbers():
    assert parse({"JUDGE_RAY_KEEP_S": " 1.5 "}).ray_keep_s == 1.5
    assert parse({"JUDGE_RAY_KEEP_S": "0"}).ray_keep_s == 0.0
    assert parse({"JUDGE_PROGRESS_INTERVAL": "0"}).progress_interval_s == 0.0
    assert parse({"JUDGE_PULL_TIMEOUT": "2"}).pull_timeout_s == 2.0
    assert parse({"JUDGE_PULL_TIMEOUT": "-3"}).pull_timeout_s == 0.0  # below 0: never pull
    assert parse({"JUDGE_IMPORT_TIME_S": "3"}).import_time_s == 3.0
    for variable, bad in [("JUDGE_RAY_KEEP_S", "abc"), ("JUDGE_RAY_KEEP_S", "-1"),
                          ("JUDGE_RAY_KEEP_S", "nan"), ("JUDGE_PROGRESS_INTERVAL", "inf"),
                          ("JUDGE_PULL_TIMEOUT", "10s"), ("JUDGE_IMPORT_TIME_S", "0")]:
        with pytest.raises(InvalidSetting):
            parse({variable: bad})


def test_whole_numbers():
    assert parse({"JUDGE_SANDBOX_UID_BASE": "65000"}).sandbox_uid_base == 65000
    for bad in ("0", "-5", "6.5e4", "lots", str(2 ** 32)):
        with pytest.raises(InvalidSetting, match="JUDGE_SANDBOX_UID_BASE"):
            parse({"JUDGE_SANDBOX_UID_BASE": bad})


def test_texts_keep_what_their_readers_kept():
    assert parse({"JUDGE_BASE_IMAGE": "  base:1 "}).base_image == "base:1"  # stripped
    assert parse({"JUDGE_BASE_IMAGE": "   "}).base_image == ""
    # JUDGE_OFFICIAL_BASE: unset is the recipe's, set but empty is none
    assert parse({}).official_base is None
    assert parse({"JUDGE_OFFICIAL_BASE": ""}).official_base == ""
    assert parse({"JUDGE_OFFICIAL_BASE": "python:3.12-slim"}).official_base == "python:3.12-slim"
    assert parse({"JUDGE_DOCKER_CGROUP_PARENT": "/"}).docker_cgroup_parent == "/"
    assert parse({"RAY_ADDRESS": "ray://head:10001"}).ray_address == "ray://head:10001"
    got = parse({"JUDGE_LLM_MODEL": "m", "JUDGE_LLM_BASE_URL": "http://x/v1",
                 "JUDGE_LLM_API_KEY": "sk-1", "OPENAI_API_KEY": "sk-2"})
    assert (got.llm_model, got.llm_base_url, got.llm_api_key, got.openai_api_key) == (
        "m", "http://x/v1", "sk-1", "sk-2")


def test_secrets_are_never_shown():
    got = parse({"JUDGE_API_TOKEN": "tok-123", "JUDGE_LLM_API_KEY": "sk-1",
                 "OPENAI_API_KEY": "sk-2"})
    assert got.api_token == "tok-123"
    assert not any(secret in repr(got) for secret in ("tok-123", "sk-1", "sk-2"))


def test_folders(tmp_path):
    assert parse({"JUDGE_RESULTS_DIR": str(tmp_path)}).results_dir == tmp_path
    assert parse({"JUDGE_SANDBOX_LOCK_DIR": "/run/x"}).sandbox_lock_dir == Path("/run/x")
    assert parse({"JUDGE_LLM_CACHE": "~/llm"}).llm_cache == Path("~/llm").expanduser()
    assert parse({"JUDGE_REFERENCE_CACHE": " ~/times "}).reference_cache == \
        Path("~/times").expanduser()
    for off in ("off", "0", "no", "OFF", "False", "none"):
        assert parse({"JUDGE_REFERENCE_CACHE": off}).reference_cache == OFF


def test_flags():
    for value, on in (("", False), ("0", False), ("1", True), ("yes", True), ("false", True)):
        assert parse({"JUDGE_SANDBOX_FULL_WALK": value}).sandbox_full_walk is on, value


# ---- a malformed value -----------------------------------------------------------------------

def test_a_malformed_value_is_one_located_error():
    with pytest.raises(InvalidSetting) as caught:
        parse({"JUDGE_RAY_KEEP_S": "abc"})
    error = caught.value
    assert isinstance(error, judge.JudgeError) and error.code == "invalid_setting"
    assert judge.InvalidSetting is InvalidSetting
    assert (error.variable, error.value, error.expected) == (
        "JUDGE_RAY_KEEP_S", "'abc'", "a number of seconds >= 0")
    assert str(error) == ("environment variable JUDGE_RAY_KEEP_S='abc': expected a number of "
                          "seconds >= 0 (see docs/settings.md)")


def test_every_malformed_value_is_named_at_once():
    with pytest.raises(InvalidSetting) as caught:
        parse({"JUDGE_RAY_KEEP_S": "abc", "JUDGE_SANDBOX_UID_BASE": "x", "JUDGE_PULL_TIMEOUT": "1"})
    assert [p[0] for p in caught.value.problems] == ["JUDGE_SANDBOX_UID_BASE", "JUDGE_RAY_KEEP_S"]
    assert "JUDGE_SANDBOX_UID_BASE='x'" in str(caught.value)


def test_the_command_line_says_it_in_one_line_with_exit_2(monkeypatch, capsys):
    from judge.cli.main import main

    monkeypatch.setenv("JUDGE_RAY_KEEP_S", "abc")
    with pytest.raises(InvalidSetting):
        reload()
    assert main(["validate", str(ROOT / "problems" / "basics")]) == 2
    err = capsys.readouterr().err
    assert "JUDGE_RAY_KEEP_S='abc'" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


# ---- read once; reload -----------------------------------------------------------------------

def test_read_once_until_reloaded(monkeypatch):
    first = reload()
    assert settings() is first and settings() is settings()
    monkeypatch.setenv("JUDGE_RAY_KEEP_S", "7")
    assert settings().ray_keep_s == first.ray_keep_s  # not read again on its own
    again = reload()
    assert again.ray_keep_s == 7.0 and settings() is again
    with pytest.raises(Exception):  # frozen
        again.ray_keep_s = 1.0  # type: ignore[misc]


def test_a_failed_reload_keeps_no_stale_settings(monkeypatch):
    reload()
    monkeypatch.setenv("JUDGE_PULL_TIMEOUT", "soon")
    with pytest.raises(InvalidSetting):
        reload()
    with pytest.raises(InvalidSetting):  # read again, not the earlier values
        settings()
    monkeypatch.setenv("JUDGE_PULL_TIMEOUT", "3")
    assert settings().pull_timeout_s == 3.0


def test_the_readers_follow_the_settings(monkeypatch, tmp_path):
    from judge.cli.results_path import default_results_path
    from judge.distribution import ray_session
    from judge.grading.client import default_cache_dir
    from judge.sandbox.backends.docker import image
    from judge.sandbox.backends.process import sandbox as process

    monkeypatch.setenv("JUDGE_RAY_KEEP_S", "2.5")
    monkeypatch.setenv("JUDGE_PULL_TIMEOUT", "0")
    monkeypatch.setenv("JUDGE_OFFICIAL_BASE", "")
    monkeypatch.setenv("JUDGE_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setenv("JUDGE_LLM_CACHE", str(tmp_path / "llm"))
    monkeypatch.setenv("JUDGE_SANDBOX_UID_BASE", "65000")
    reload()
    assert ray_session.keep_seconds() == 2.5
    assert image.pull_timeout() == 0.0 and image.official_base() is None
    assert default_results_path("s", "sol.jsonl").parent == tmp_path / "results"
    assert default_cache_dir() == tmp_path / "llm"
    assert process.UID_BASE == 65000
    assert process.LOCK_DIR == str(settings().sandbox_lock_dir)


# ---- the docs table --------------------------------------------------------------------------

def test_the_docs_page_holds_the_current_table():
    page = PAGE.read_text(encoding="utf-8")
    assert judge.settings.with_current_table(page) == page, (
        "docs/settings.md is not current: python -m judge.settings --write docs/settings.md")
    for declared in declarations():
        assert "| `%s` |" % declared.variable in page


def test_the_table_has_one_row_per_setting_and_no_stray_cell():
    rows = judge.settings.markdown_table().splitlines()
    assert len(rows) == 2 + len(declarations())
    assert all(row.count("|") == 6 for row in rows)  # no "|" inside a cell


def test_the_page_check_and_write(tmp_path, capsys):
    stale = tmp_path / "settings.md"
    stale.write_text("# S\n\n%s\n| old |\n%s\n" % (judge.settings.TABLE_BEGIN,
                                                   judge.settings.TABLE_END))
    assert judge.settings.main(["--check", str(stale)]) == 1
    assert "not current" in capsys.readouterr().err
    assert judge.settings.main(["--write", str(stale)]) == 0
    assert judge.settings.main(["--check", str(stale)]) == 0
    assert "| `JUDGE_RAY_KEEP_S` |" in stale.read_text()
    with pytest.raises(ValueError):
        judge.settings.with_current_table("no markers")
