"""The failure-heavy corpora the speed benchmarks build (benchmarks/failure_corpus.py): the
hangs profile is half sleepers, half loopers, at every size, deterministically."""

from __future__ import annotations

import sys

import pytest
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

sys.path.insert(0, str(ROOT / "benchmarks"))
import failure_corpus  # noqa: E402

#: the shared corpus, beside the clone (CI's layout) or where the benchmark looks by default
SAMPLES = ROOT.parent / "shared" / "data" / failure_corpus.DEFAULT_SAMPLES.name
if not SAMPLES.exists():
    SAMPLES = failure_corpus.DEFAULT_SAMPLES


@pytest.mark.parametrize("every", [1, 2, 4, 8])
def test_the_hangs_corpus_is_half_sleepers_half_loopers(every):
    rows = failure_corpus.read_rows(SAMPLES)
    built = failure_corpus.build(rows, every, "hangs")
    kinds = [row["mutation"] for row in built]
    assert kinds.count("loop") == kinds.count("sleep") > 0
    assert len(built) == len(rows[::every])
    for row in built:
        if row["mutation"] == "sleep":
            assert "time.sleep(30)" in row["completion"]
        elif row["mutation"] == "loop":
            assert "while True:" in row["completion"]
    assert failure_corpus.build(rows, every, "hangs") == built  # seeded: the same every time


def test_the_failures_corpus_keeps_its_shares():
    rows = failure_corpus.read_rows(SAMPLES)
    kinds = [row["mutation"] for row in failure_corpus.build(rows, 2, "failures")]
    assert kinds.count("loop") > kinds.count("sleep") > 0  # 2% and 1%
    assert kinds.count("real") > 0.7 * len(kinds)
