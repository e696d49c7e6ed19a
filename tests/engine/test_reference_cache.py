"""Reference timings remembered across runs (judge.engine.reference_cache): a later run
on the same machine takes the stored per-test times instead of running the reference again,
and gets the same limits and verdicts; any change to what was measured is another key; an
unusable, foreign, expired or oversized entry is a miss, never an error; turned off, nothing
is kept."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

import judge
import judge.settings
from judge.engine import reference_cache
from judge.running.executor import Executor
from judge.engine.reference_cache import ReferenceTimes, for_sandbox, sandbox_identity
from judge.candidates.submission import Submission
from judge.sandbox.base import Job, Limits
from judge.sandbox.base import TestInput as Call  # (not a pytest class)
from judge.sandbox.backends.process.sandbox import ProcessSandbox


@pytest.fixture(autouse=True)
def _settings_read_again():
    """The judge reads its settings once (judge.settings): a test that sets a variable reads
    them again, and after it (once monkeypatch has put the environment back) so do we."""
    yield
    judge.settings.reload()


LIMITS = Limits(time_limit_s=2.0, memory_mb=256)
GOOD = "def digital_root(n):\n    while n >= 10:\n        n = sum(map(int, str(n)))\n    return n\n"
WRONG = "def digital_root(n):\n    return 1\n"
LOOPS = "def digital_root(n):\n    while True:\n        pass\n"


def _problem():
    return judge.load_suite("problems/basics")["basics_digital_root"]


def _wire(code="def f(x):\n    return x\n", args=(1, 2), time_limit=10.0, memory_mb=256):
    tests = [Call(args=[a], time_limit_s=time_limit, wall_limit_s=time_limit + 1)
             for a in args]
    return Job(id="reference", code=code, function="f", tests=tests,
               limits=Limits(memory_mb=memory_mb)).to_wire()


#: the limits the two tests of ``_wire()`` are timed under
TWO = [10.0, 10.0]


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.json"))


class Counting:
    """The real sandbox, counting the reference jobs and the candidates' jobs it is given."""

    def __init__(self, sandbox):
        self._sandbox = sandbox
        self.references = 0
        self.candidates = 0

    def __getattr__(self, name):
        return getattr(self._sandbox, name)

    def run(self, job):
        if job.id == "reference":
            self.references += 1
        else:
            self.candidates += 1
        return self._sandbox.run(job)


# ---- the store ---------------------------------------------------------------------------

def test_stored_times_come_back_and_only_for_their_key(tmp_path):
    store = ReferenceTimes(tmp_path, "process|python=/usr/bin/python3")
    key = store.key(_wire())
    assert store.get(key, TWO) is None
    assert store.put(key, [0.001, 0.25])
    assert store.get(key, TWO) == [0.001, 0.25] and store.hits == 1
    # the job's id is not part of what was measured; everything else is
    assert store.key(dict(_wire(), id="other")) == key
    changed = [_wire(code="def f(x):\n    return x + 0\n"), _wire(args=(1, 3)),
               _wire(time_limit=9.0), _wire(memory_mb=512)]
    assert len({key} | {store.key(w) for w in changed}) == 5
    # another sandbox, another machine or another judge is another context
    other = ReferenceTimes(tmp_path, "docker|image=judge-python:abc")
    assert other.key(_wire()) != key
    assert other.get(other.key(_wire()), TWO) is None


@pytest.mark.parametrize("times", [[0.1], [0.1, 0.2, 0.3], [0.1, -1.0], [0.1, float("nan")],
                                   [0.1, "0.2"], [0.1, True], "0.1,0.2", None])
def test_an_unusable_entry_is_a_miss(tmp_path, times):
    store = ReferenceTimes(tmp_path, "process")
    key = store.key(_wire())
    path = store._path(key)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"key": key, "measured_at": time.time(), "times": times},
                               allow_nan=True))
    assert store.get(key, TWO) is None


def test_a_foreign_broken_expired_or_oversized_file_is_a_miss(tmp_path):
    store = ReferenceTimes(tmp_path, "process")
    key, other = store.key(_wire()), store.key(_wire(args=(5, 6)))
    assert store.put(other, [0.1, 0.2])
    path = store._path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    # another key's entry copied under this name
    path.write_bytes(store._path(other).read_bytes())
    assert store.get(key, TWO) is None
    for content in (b"", b"{", b"[1, 2]", b"\xff\xfe", b'{"key": "%s"}' % key.encode()):
        path.write_bytes(content)
        assert store.get(key, TWO) is None
    path.write_text(json.dumps({"key": key, "measured_at": time.time(), "times": [0.1, 0.2],
                                "pad": "x" * reference_cache.MAX_BYTES}))
    assert store.get(key, TWO) is None
    assert store.put(key, [0.1, 0.2])
    assert store.get(key, TWO) == [0.1, 0.2]
    later = time.time() + reference_cache.MAX_AGE_S + 60
    assert store.get(key, TWO, now=later) is None  # a week on, measured again
    assert store.get(key, TWO, now=time.time() - 3600) is None  # from the future: not trusted


def test_a_time_no_measurement_could_give_or_a_file_of_another_user_is_a_miss(tmp_path):
    """A stored time sets a limit (``max(floor, factor x time)``): one above the limit its
    test is timed under could only be planted, never measured; neither is a file another
    user wrote."""
    store = ReferenceTimes(tmp_path, "process")
    key = store.key(_wire())
    assert store.put(key, [0.1, 10.5])
    assert store.get(key, TWO) is None
    assert store.put(key, [0.1, 10.0])
    assert store.get(key, TWO) == [0.1, 10.0]
    if os.geteuid() != 0:
        pytest.skip("giving the entry to another user needs root")
    os.chown(store._path(key), 65534, 65534)
    assert store.get(key, TWO) is None


def test_a_folder_that_cannot_be_written_only_costs_speed(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    store = ReferenceTimes(blocker / "cache", "process")
    key = store.key(_wire())
    assert store.put(key, [0.1, 0.2]) is False
    assert store.get(key, TWO) is None


def test_where_it_is_kept_and_how_it_is_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_REFERENCE_CACHE", str(tmp_path / "here"))
    judge.settings.reload()
    assert reference_cache.default_folder() == tmp_path / "here"
    for off in ("off", "0", "no", "OFF"):
        monkeypatch.setenv("JUDGE_REFERENCE_CACHE", off)
        judge.settings.reload()
        assert reference_cache.default_folder() is None
        assert for_sandbox(object()) is None
    monkeypatch.delenv("JUDGE_REFERENCE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    judge.settings.reload()
    assert reference_cache.default_folder() == tmp_path / "xdg" / "judge" / "reference-times"


def test_the_sandbox_identity_names_what_runs_the_code():
    class Inner:
        name = "docker"
        image = "judge-python:1234"

        def run(self, job):  # pragma: no cover - never called
            raise AssertionError

    class Wrapper:
        name = "docker"
        python = Inner()

    assert sandbox_identity(Wrapper()) == "docker|image=judge-python:1234"

    class Process:
        name = "process"
        python = "/usr/bin/python3"

    assert sandbox_identity(Process()) == "process|python=/usr/bin/python3"


# ---- in a real run -----------------------------------------------------------------------

def test_a_later_run_takes_the_stored_times_and_judges_the_same(tmp_path):
    problem = _problem()
    store_folder = tmp_path / "reference"
    outcomes = []
    counts = []
    for _ in range(2):  # two runs: each its own sandbox, executor and store object
        sandbox = Counting(ProcessSandbox(size=2))
        try:
            executor = Executor(sandbox, LIMITS, reference_cache=ReferenceTimes(
                store_folder, sandbox_identity(sandbox)))
            limits = executor.kind_judge("function").test_limits(problem)[1]
            verdicts = [executor.judge(problem, Submission(code, problem.function_name))
                        .verdict.value for code in (GOOD, WRONG)]
            outcomes.append((limits, verdicts))
            counts.append(sandbox.references)
        finally:
            sandbox.close()
    assert counts == [1, 0], counts  # measured by the first run only
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][1] == ["pass", "wrong_answer"]
    assert len(_entries(store_folder)) == 1


def test_a_damaged_entry_is_measured_again_and_replaced(tmp_path):
    problem = _problem()
    folder = tmp_path / "reference"
    sandbox = Counting(ProcessSandbox(size=1))
    try:
        store = ReferenceTimes(folder, sandbox_identity(sandbox))
        first = Executor(sandbox, LIMITS, reference_cache=store).kind_judge("function").reference_times(problem)
        (entry,) = _entries(folder)
        entry.write_text('{"key": "forged", "measured_at": 0, "times": [1e9]}')
        again = Executor(sandbox, LIMITS, reference_cache=store).kind_judge("function").reference_times(problem)
        assert sandbox.references == 2
        assert first is not None and again is not None and len(again) == len(first)
        assert max(again) < 100  # the forged time never reached a limit
        assert json.loads(entry.read_text())["times"] == again
    finally:
        sandbox.close()


def test_turned_off_nothing_is_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_REFERENCE_CACHE", "off")
    judge.settings.reload()
    problem = _problem()
    sandbox = Counting(ProcessSandbox(size=1))
    try:
        executor = Executor(sandbox, LIMITS)
        assert executor.kind_judge("function").reference_cache is None
        executor.kind_judge("function").reference_times(problem)
        Executor(sandbox, LIMITS).kind_judge("function").reference_times(problem)
        assert sandbox.references == 2
    finally:
        sandbox.close()
    monkeypatch.setenv("JUDGE_REFERENCE_CACHE", str(tmp_path / "on"))
    judge.settings.reload()
    with judge.Judge(sandbox="process", jobs=1, limits=LIMITS) as first:
        assert first.judge(problem, GOOD).verdict.value == "pass"
        assert _entries(tmp_path / "on") == []  # its verdict did not need the reference
        assert first.judge(problem, LOOPS).verdict.value == "timeout"  # this one did
    assert len(_entries(tmp_path / "on")) == 1
    with judge.Judge(sandbox="process", jobs=1, limits=LIMITS,
                     reference_timing=False) as untimed:
        untimed.judge(problem, LOOPS)
    assert len(_entries(tmp_path / "on")) == 1
