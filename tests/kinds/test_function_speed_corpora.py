"""The HumanEval corpora of other models (benchmarks/humaneval_corpora.py): a model's folder of
jamesmurdza/humaneval-results, as a checkout or a bare git directory, becomes the samples
humaneval_real.py reads, one line a run, code as recorded."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

sys.path.insert(0, str(ROOT / "benchmarks"))
import humaneval_corpora  # noqa: E402

#: a page in the record's format (made up here: no third-party data in this repository)
PAGE = '''# Results of GPT-4 on HumanEval/7
Passing runs: 1<br />
## Prompt
```python
def add(a, b):
    """Add."""
```
## Unit tests
```python
def check(candidate):
    assert candidate(1, 2) == 3
```
## Runs
### ✅ Run 2
Start time: 2023-07-18 18:58:53<br />
Result: Pass
```python
def add(a, b):
    return a + b
```
### ❌ Run 1
Start time: 2023-07-18 18:58:40<br />
Duration: 13.46s<br />
Result: Fail
```python
def add(a, b):
    return a - b
```
### ❌ Run 3
Result: Fail
'''


def _record(root: Path) -> Path:
    for model in ("gpt-4", "tiny"):
        (root / model).mkdir(parents=True)
        (root / model / "7.md").write_text(PAGE, encoding="utf-8")
        (root / model / "10.md").write_text(PAGE.replace("### ❌ Run 1", "### ❌ Run 4"),
                                            encoding="utf-8")
    (root / "README.md").write_text("record\n", encoding="utf-8")
    return root


def test_a_page_gives_every_run_with_its_result_and_code():
    runs = list(humaneval_corpora.parse_page(PAGE))
    assert [r["run"] for r in runs] == [2, 1, 3]
    assert [r["result"] for r in runs] == ["Pass", "Fail", "Fail"]
    assert runs[0]["code"] == "def add(a, b):\n    return a + b\n"
    assert runs[1]["code"] == "def add(a, b):\n    return a - b\n"
    assert runs[2]["code"] == ""  # a run with no answer: judged as empty code, not dropped


def test_a_checkout_converts_in_task_and_run_order(tmp_path):
    source = humaneval_corpora.Source(_record(tmp_path / "record"))
    assert source.models() == ["gpt-4", "tiny"]
    rows = humaneval_corpora.convert(source, "gpt-4")
    assert [(r["task_id"], r["run"]) for r in rows] == [
        ("HumanEval/7", 1), ("HumanEval/7", 2), ("HumanEval/7", 3),
        ("HumanEval/10", 2), ("HumanEval/10", 3), ("HumanEval/10", 4)]
    assert all(r["model"] == "gpt-4" for r in rows)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_bare_git_directory_reads_the_same_as_its_checkout(tmp_path):
    checkout = _record(tmp_path / "record")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(checkout)]
    subprocess.run(git[:5] + ["init", "-q", str(checkout)], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "record"], check=True)
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(checkout), str(bare)], check=True)
    from_bare = humaneval_corpora.convert(humaneval_corpora.Source(bare), "gpt-4")
    from_checkout = humaneval_corpora.convert(humaneval_corpora.Source(checkout), "gpt-4")
    assert from_bare == from_checkout


def test_the_command_writes_gzip_keeps_distinct_runs_and_refuses_the_repository(tmp_path):
    record = _record(tmp_path / "record")
    out = tmp_path / "samples.jsonl.gz"
    assert humaneval_corpora.main(["--repo", str(record), "--model", "gpt-4",
                                   "--out", str(out)]) == 0
    with gzip.open(out, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    assert len(rows) == 6 and set(rows[0]) == {"task_id", "model", "run", "result", "code"}
    # task 12: run 3 answers what run 2 did
    (record / "gpt-4" / "12.md").write_text(PAGE.replace(
        "### ❌ Run 3\nResult: Fail\n",
        "### ✅ Run 3\nResult: Pass\n```python\ndef add(a, b):\n    return a + b\n```\n"),
        encoding="utf-8")
    distinct = tmp_path / "distinct.jsonl"
    humaneval_corpora.main(["--repo", str(record), "--model", "gpt-4", "--distinct",
                            "--out", str(distinct)])
    kept = [json.loads(line) for line in distinct.read_text(encoding="utf-8").splitlines()]
    # per task, each answer once (the first run that gave it): task 12's run 3 is run 2's
    assert [(r["task_id"], r["run"]) for r in kept] == [
        ("HumanEval/7", 1), ("HumanEval/7", 2), ("HumanEval/7", 3),
        ("HumanEval/10", 2), ("HumanEval/10", 3), ("HumanEval/10", 4),
        ("HumanEval/12", 1), ("HumanEval/12", 2)]
    with pytest.raises(SystemExit, match="outside this repository"):
        humaneval_corpora.main(["--repo", str(record), "--model", "gpt-4",
                                "--out", str(ROOT / "samples.jsonl")])
    with pytest.raises(SystemExit, match="no task pages.*models there: gpt-4, tiny"):
        humaneval_corpora.main(["--repo", str(record), "--model", "claude",
                                "--out", str(tmp_path / "x.jsonl")])
