"""The sandbox worker as plain code: the ``judge_worker`` package of runners/python/, imported
and unit-tested here like any module; one vocabulary of record statuses shared with the judge
(judge/sandbox/records.py), which every language's harness keeps to; one wire codec.

No sandbox is started here: the parts of the worker that decide things from what a child
wrote or used are called directly, with what a hostile child could write."""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.resources import runner_dir
from judge.sandbox import harness, records, wire
from tests.paths import ROOT

LANGUAGES = ("cpp", "go", "java", "js", "rust")


@pytest.fixture(scope="module")
def pkg():
    """The worker package, imported from the source tree."""
    sys.path.insert(0, str(runner_dir("python")))
    try:
        modules = {name: importlib.import_module("judge_worker." + name)
                   for name in ("main", "worker", "native", "child", "supervise", "system",
                                "files", "records", "wire")}
    finally:
        sys.path.remove(str(runner_dir("python")))
    return modules


# ---- one source -------------------------------------------------------------------------------

def test_worker_shares_the_judges_codec_and_vocabulary():
    files = harness.worker_files()
    assert files["judge_worker/wire.py"] == Path(wire.__file__).read_bytes()
    assert files["judge_worker/records.py"] == Path(records.__file__).read_bytes()
    package = runner_dir("python") / "judge_worker"
    if package.is_relative_to(ROOT / "runners"):  # a checkout (a wheel carries copies)
        for name, module in (("wire.py", wire), ("records.py", records)):
            # a link to the judge's file, not a copy that could drift
            assert (package / name).resolve() == Path(module.__file__).resolve()
    assert harness.PROTOCOL == records.PROTOCOL


def test_the_worker_is_a_package_of_plain_modules():
    files = harness.worker_files()
    assert not [name for name in files if name.endswith(".j2")]
    assert {"worker.py", "judge_worker/__init__.py", "judge_worker/main.py",
            "judge_worker/native.py"} <= set(files)
    for name, data in files.items():
        assert len(data.decode().splitlines()) < 600, name  # modules stay small


def test_installed_worker_starts_and_answers_the_handshake(tmp_path):
    """Installed as a back end installs it, started as a back end starts it (an imported
    module, from its bytecode): it says its protocol and runs a job."""
    harness.install_worker(tmp_path / "w")
    assert list((tmp_path / "w" / "judge_worker" / "__pycache__").glob("main.*.pyc"))
    command = harness.worker_command(sys.executable, str(tmp_path / "w")) + [
        "--workroot", str(tmp_path / "root")]
    job = {"id": "j", "code": "def f(x):\n    return x * 2\n", "function": "f",
           "tests": [{"args": [21], "time_limit": 2.0, "wall_limit": 4.0}],
           "memory_bytes": 256 << 20, "output_bytes": 1 << 16, "value_bytes": 1 << 16}
    done = subprocess.run(command, input=(json.dumps(job) + "\n").encode(),
                          capture_output=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["event"] == "ready" and lines[0]["protocol"] == records.PROTOCOL
    test = next(line for line in lines if line.get("event") == "test")
    assert test["status"] == records.RETURNED and test["value"] == 42
    assert lines[-1]["event"] == "end"


@pytest.mark.skipif(shutil.which("ruff") is None and not
                    (Path(sys.executable).parent / "ruff").exists(), reason="ruff not installed")
def test_worker_passes_ruff():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    done = subprocess.run([ruff, "check", "--select", "E,F,W,I", "--line-length", "100",
                           "runners/python", "judge/sandbox/records.py",
                           "judge/sandbox/harness.py", "judge/engine/classify.py"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


# ---- one vocabulary -----------------------------------------------------------------------------

#: a status written by a harness: ``"status": "x"``, ``\"status\":\"x\"`` or ``status: 'x'``
_STATUS = re.compile(r"""\bstatus\\?["']?\s*:\s*\\?["']([A-Za-z_]+)""")


def _statuses(path: Path) -> set[str]:
    return set(_STATUS.findall(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_harness_writes_only_statuses_of_the_vocabulary(language):
    found: set[str] = set()
    for path in sorted(runner_dir(language).glob("*.j2")):
        found |= _statuses(path)
    assert found, "no status found in runners/%s: the pattern is stale" % language
    assert found <= records.HARNESS, sorted(found - records.HARNESS)
    assert records.RETURNED in found and records.RAISED in found


def test_the_worker_writes_statuses_only_through_the_vocabulary():
    """The worker's modules name statuses by the vocabulary's constants, never as literals
    (so a status cannot be misspelt in one place); only the vocabulary defines them."""
    package = runner_dir("python") / "judge_worker"
    for path in sorted(package.glob("*.py")):
        if path.name in ("records.py", "wire.py"):
            continue
        assert _statuses(path) == set(), path.name


def test_the_judge_side_names_statuses_by_the_vocabulary():
    """The sandbox and execution layers, which read records, compare statuses with the
    vocabulary's constants, never with a literal (a typo there would silently never match)."""
    literal = re.compile(r"""["'](%s)["']""" % "|".join(sorted(records.STATUSES)))
    found = []
    for folder in ("sandbox", "execution"):
        for path in sorted((ROOT / "judge" / folder).glob("*.py")):
            if path.name in ("records.py", "wire.py"):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if "status" in line and literal.search(line):
                    found.append("%s:%d" % (path.relative_to(ROOT), number))
    assert not found, found


def test_the_vocabulary_is_consistent():
    assert records.CHILD < records.HARNESS <= records.STATUSES
    assert records.WORKER <= records.STATUSES
    assert all(re.fullmatch(r"[a-z_]+", status) for status in records.STATUSES)


def test_the_judge_knows_every_status():
    """Each status of the vocabulary gets a verdict of its own, never "unknown status"."""
    from judge.engine.classify import describe_status

    for status in records.STATUSES:
        assert describe_status(status) is not None, status


# ---- what a child may say -----------------------------------------------------------------------

def test_a_child_cannot_set_what_the_worker_measures(pkg):
    parse = pkg["supervise"]._parse_child_result
    forged = json.dumps({"status": "returned", "value": 1, "cpu_s": 0.0, "wall_s": 0.0,
                         "index": 7, "oom_kill": False, "budget_s": 9}).encode()
    assert parse(forged, 0) == {"status": "returned", "value": 1}


@pytest.mark.parametrize("raw", [
    b'{"status": "timeout"}',                # the worker's word, not the child's
    b'{"status": "setup_error", "message": "x"}',  # claims our set-up failed after it ran
    b'{"status": "returned", "value": 1, "line": "one"}',
    b'{"status": "raised", "message": 5}',
    b"[1, 2]", b"NaN", b"{", b'{"status": "returned", "value": ' + b"[" * 400 + b"]" * 400 + b"}",
])
def test_a_forged_record_is_malformed(pkg, raw):
    assert pkg["supervise"]._parse_child_result(raw, 0)["status"] == records.MALFORMED


def test_a_setup_error_stands_only_before_the_candidate_ran(pkg):
    parse = pkg["supervise"]._parse_child_result
    raw = b'{"status": "setup_error", "message": "cannot chdir"}'
    assert parse(raw, 3, marked=False) == {"status": "setup_error", "message": "cannot chdir"}
    assert parse(b'{"status": "returned", "value": 1}', 0, marked=False)["status"] == \
        records.MALFORMED


def test_lone_surrogates_are_escaped_and_text_capped(pkg):
    raw = json.dumps({"status": "raised", "exc_type": "E" * 300,
                      "message": "\ud800" + "m" * 900}).encode()
    record = pkg["supervise"]._parse_child_result(raw, 0)
    assert len(record["exc_type"]) == 100
    assert record["message"].startswith("\\ud800")
    json.dumps(record, ensure_ascii=False).encode("utf-8")  # valid UTF-8 anywhere


def test_nothing_but_bytes_means_exited(pkg):
    assert pkg["supervise"]._parse_child_result(b"", 7) == {"status": "exited", "exit_code": 7}


def test_an_oversized_record_becomes_value_too_large(pkg):
    line = pkg["supervise"]._bounded_line({"event": "test", "index": 0, "status": "returned",
                                           "value": "x" * 5000, "message": "m"}, 1000)
    record = json.loads(line)
    assert record == {"event": "test", "index": 0, "status": "value_too_large",
                      "size": record["size"]} and record["size"] > 5000


def test_batch_lines_stand_only_when_complete(pkg):
    complete = pkg["supervise"]._complete_lines
    assert complete([b"+\n{\"a\":1}\n{\"b\""]) == b"+\n{\"a\":1}\n"
    assert complete([b"+"]) == b"+"
    assert complete([b"garbage"]) is None and complete([]) is None


# ---- the worker's own bookkeeping ---------------------------------------------------------------

def test_options_take_what_varies_per_run(pkg):
    options = pkg["main"].Options(["--workroot", "/w", "--wipe", "/tmp", "--wipe", "/dev/shm",
                                   "--isolate-network", "--preimport", "math,re"])
    assert options.workroot == "/w" and options.wipe == ["/tmp", "/dev/shm"]
    assert options.isolate_network and not options.private_tmp
    assert options.preimports == ("math", "re")
    assert pkg["main"].Options(["--preimport", ""]).preimports == ()
    assert pkg["main"].Options([]).preimports == pkg["main"].PREIMPORTS
    with pytest.raises(SystemExit):
        pkg["main"].Options(["--bogus"])


def test_the_budget_cuts_a_test_to_what_is_left(pkg):
    budget = pkg["worker"].Budget({"cpu": 1.0, "wall": 2.0, "grace": 0.1})
    test = {"time_limit": 0.8, "wall_limit": 1.6}
    first = budget.limits_for(test)
    assert first["time_limit"] == 0.8 and first["cut"] == {"cpu": False, "wall": False}
    budget.charge({"status": "returned", "cpu_s": 0.7, "wall_s": 0.8}, first)
    second = budget.limits_for(test)
    assert second["time_limit"] == pytest.approx(0.3) and second["cut"]["cpu"]
    record = {"status": "timeout", "limit": "cpu", "cpu_s": 0.3, "wall_s": 0.3}
    budget.charge(record, second)
    assert record["budget_s"] == 1.0 and budget.limits_for(test) is None
    assert pkg["worker"].Budget(None).limits_for(test) is test


def test_isolated_order(pkg):
    order = pkg["worker"]._isolated_order
    assert order({"tests": [0] * 4}) == [0, 1, 2, 3]
    assert order({"tests": [0] * 4, "first": 2}) == [2, 3]
    assert order({"tests": [0] * 4, "only": [3, 1, 9, -1, "2", True]}) == [3, 1]


def test_remove_tree_of_any_depth_and_mode(pkg, tmp_path):
    top = tmp_path / "deep"
    fd = os.open(str(tmp_path), os.O_RDONLY)
    os.mkdir("deep", dir_fd=fd)
    current = os.open("deep", os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    for _ in range(2000):  # deeper than the recursion limit and PATH_MAX
        os.mkdir("d" * 50, dir_fd=current)
        nxt = os.open("d" * 50, os.O_RDONLY, dir_fd=current)
        os.close(current)
        current = nxt
    os.close(os.open("f", os.O_CREAT | os.O_WRONLY, dir_fd=current))
    os.fchmod(current, 0)
    os.close(current)
    pkg["files"]._remove_tree(str(top))
    assert not top.exists()


def test_limit_checks_space_out_only_where_no_verdict_can_move(pkg):
    """A test's limits are checked every POLL_S during its first POLL_SETTLE_S and while it
    holds over a quarter of its memory limit; after that, no later than POLL_MAX_S, nor than
    the moment its CPU could reach its limit on every core, nor its wall deadline."""
    sv = pkg["supervise"]
    step, most, cores = sv.POLL_S, sv.POLL_MAX_S, sv._CPUS
    mb = 1 << 20
    at = 100.0

    def gap(since, cpu=0.0, limit=3.0, rss=10 * mb, memory=1024 * mb, deadline=at + 3.0):
        return round(sv._next_poll(at, at - since, cpu, limit, rss, memory, deadline) - at, 9)

    assert gap(0.0) == step and gap(sv.POLL_SETTLE_S / 2) == step  # a test's start
    assert gap(1.0) == most  # a looper or a sleeper well inside its limits
    assert gap(1.0, rss=300 * mb) == step  # over a quarter of its memory: every check
    assert gap(1.0, rss=256 * mb) == most  # at a quarter exactly: not yet
    # near its CPU limit: never later than all cores could take it there
    assert gap(1.0, cpu=3.0 - cores * 0.01) == pytest.approx(max(step, 0.01))
    assert gap(1.0, cpu=3.5) == step  # past it: checked at once (POLL_S)
    assert gap(1.0, deadline=at + 0.012) == pytest.approx(0.012)  # near its wall deadline
    assert gap(1.0, deadline=at - 1.0) == step


def test_cgroup_counters_are_read_only_in_a_container_the_sandbox_names(pkg):
    """Whether the worker reads the memory and pids cgroup counters as the candidate's is
    said by the sandbox that starts it (``--container``), never guessed from ``/.dockerenv``,
    which a host or VM may carry (this one does): there, the root cgroup's OOM-kill counter
    would charge any process's OOM kill on the machine to the candidate running then."""
    main, system = pkg["main"], pkg["system"]
    assert system.IN_CONTAINER is False
    assert system._oom_kills() is None and system._pids_limit_hits() is None
    assert main.Options([]).container is False
    assert main.Options(["--container"]).container is True
    from judge.sandbox.backends.docker.sandbox import WORKER_COMMAND

    assert "--container" in WORKER_COMMAND  # the Docker sandbox's worker: its own cgroups
    from judge.sandbox.backends.process import sandbox as process

    source = Path(process.__file__).read_text()
    assert "--container" not in source  # the process sandbox's worker: the host's
