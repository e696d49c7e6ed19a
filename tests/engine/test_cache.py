"""Verdicts remembered across runs (judge.engine.cache): a later Judge with the same cache
folder takes stored results instead of judging, under each candidate's own identity; a
sandbox_error is never stored; other limits or other code are other keys; concurrent
writers never leave a partial file."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import judge
from judge.engine.cache import VerdictCache
from judge.engine.verdicts import CandidateResult, Verdict
from judge.engine.verdicts import TestResult as Record
from judge.sandbox.base import JobReport, Sandbox

GOOD = "def digital_root(n):\n    while n >= 10:\n        n = sum(map(int, str(n)))\n    return n\n"
WRONG = "def digital_root(n):\n    return 1\n"
CRASH = "def digital_root(n):\n    return [][0]\n"


def _problem():
    return judge.load_suite("problems/basics")["basics_digital_root"]


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.json"))


class BrokenSandbox(Sandbox):
    """Infrastructure that never runs anything: every job is an infra_error. Named as the
    process sandbox, so a result judged there is what a run on it would take."""

    name = "process"

    def run(self, job):
        return JobReport(sandbox=self.name, infra_error="no worker could be started")

    def describe(self):
        return {"backend": self.name}

    def close(self) -> None:
        pass


def test_a_second_run_takes_stored_verdicts_under_its_own_identity(tmp_path):
    problem = _problem()
    items = [(problem, code, {"model": "m", "sample": i})
             for i, code in enumerate((GOOD, WRONG, CRASH))]
    with judge.Judge(sandbox="process", jobs=2, cache=tmp_path) as first:
        judged = list(first.judge_many(items))
        assert first.cache.stored == 3 and first.cache.hits == 0
    assert [r.verdict for r in judged] == [Verdict.PASS, Verdict.WRONG_ANSWER,
                                          Verdict.RUNTIME_ERROR]
    assert len(_files(tmp_path)) == 3
    again = [(problem, code, {"model": "other", "sample": 10 + i})
             for i, code in enumerate((GOOD, WRONG, CRASH))]
    # a sandbox that cannot run anything: every result must come from the cache
    with judge.Judge(sandbox=BrokenSandbox(), jobs=2, cache=tmp_path,
                     reference_timing=True) as second:
        remembered = list(second.judge_many(again))
        assert second.cache.hits == 3
    for old, new in zip(judged, remembered):
        assert new.cached is True
        assert new.model == "other" and new.sample == old.sample + 10
        assert new.verdict is old.verdict
        assert [t.to_json() for t in new.tests] == [t.to_json() for t in old.tests]
    one = judge.Judge(sandbox="process", jobs=1, cache=tmp_path)
    with one:
        single = one.judge(problem, WRONG, model="x")
    assert single.cached is True and single.model == "x"


def test_other_limits_or_code_are_other_keys(tmp_path):
    problem = _problem()
    with judge.Judge(sandbox="process", jobs=1, cache=tmp_path) as first:
        list(first.judge_many([(problem, GOOD)]))
    with judge.Judge(sandbox="process", jobs=1, cache=tmp_path, memory_mb=256) as other:
        result = list(other.judge_many([(problem, GOOD), (problem, GOOD + "# changed\n")]))
        assert other.cache.hits == 0
    assert all(r.cached is None for r in result)
    assert len(_files(tmp_path)) == 3


def test_a_sandbox_error_is_never_stored(tmp_path):
    problem = _problem()
    with judge.Judge(sandbox=BrokenSandbox(), jobs=1, cache=tmp_path,
                     reference_timing=False) as broken:
        result = list(broken.judge_many([(problem, GOOD)]))[0]
        assert broken.cache.stored == 0
    assert result.verdict is Verdict.SANDBOX_ERROR
    assert _files(tmp_path) == []
    cache = VerdictCache(tmp_path)
    failed = CandidateResult("p", Verdict.SANDBOX_ERROR,
                             [Record(0, Verdict.SANDBOX_ERROR, 0.0, "engine gone")],
                             "process", 0.0)
    assert cache.put("ab" * 32, failed) is False
    assert cache.get("ab" * 32) is None


def test_concurrent_writers_never_leave_a_partial_file(tmp_path):
    caches = [VerdictCache(tmp_path) for _ in range(4)]
    key = "cd" * 32
    long_message = "x" * 200_000  # big enough that a torn write would show
    results = [CandidateResult("p", Verdict.WRONG_ANSWER,
                               [Record(0, Verdict.WRONG_ANSWER, 0.1, long_message + str(i))],
                               "process", 0.1) for i in range(4)]
    seen: list[str | None] = []
    errors: list[BaseException] = []

    def write(cache: VerdictCache, result: CandidateResult) -> None:
        for _ in range(25):
            assert cache.put(key, result)

    def read() -> None:
        try:
            for _ in range(200):
                got = caches[0].get(key)
                seen.append(None if got is None else got.tests[0].message)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=pair) for pair in zip(caches, results)]
    threads.append(threading.Thread(target=read))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    wanted = {r.tests[0].message for r in results}
    assert all(message is None or message in wanted for message in seen)
    assert [p.name for p in (tmp_path / key[:2]).iterdir()] == [key + ".json"]  # no leftovers
    stored = json.loads((tmp_path / key[:2] / (key + ".json")).read_text())
    assert stored["cache_key"] == key and stored["result"]["tests"][0]["message"] in wanted


def test_a_foreign_or_damaged_file_is_a_miss(tmp_path):
    cache = VerdictCache(tmp_path)
    key = "ef" * 32
    (tmp_path / key[:2]).mkdir()
    (tmp_path / key[:2] / (key + ".json")).write_text('{"cache_key": "ef", "resu')
    assert cache.get(key) is None
    (tmp_path / key[:2] / (key + ".json")).write_text(json.dumps(
        {"cache_key": "00" * 32, "result": {}}))
    assert cache.get(key) is None
