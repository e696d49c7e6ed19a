"""inspect_ai end to end, offline: a judge suite as a task, the mockllm provider's replies
(a fenced right answer with prose, a wrong one, a crashing one), the judge as scorer; the
per-test results are in the log's sample metadata and score metadata."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.paths import ROOT

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from judge.integrations.inspect_ai import judge_samples, judge_task  # noqa: E402

PROBLEMS = ["basics_pascal_row", "basics_digital_root", "basics_caesar_shift"]


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("inspect-suite")
    for name in PROBLEMS:
        shutil.copy(ROOT / "problems" / "basics" / ("%s.json" % name), folder)
    return folder


def _optimal(name: str) -> str:
    return json.loads((ROOT / "problems" / "basics" / ("%s.json" % name)).read_text())[
        "optimal_solution"]


def _reply(text: str) -> ModelOutput:
    output = ModelOutput.from_content("mockllm/model", text)
    # usage given: otherwise mockllm counts tokens with tiktoken, which downloads its encoding
    output.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
    return output


def test_inspect_eval_with_the_judge_as_scorer(suite, tmp_path):
    samples = judge_samples(str(suite))
    assert [s.id for s in samples] == sorted(PROBLEMS)  # the suite's order: by file name
    by_id = {s.id: s for s in samples}
    assert "pascal_row" in by_id["basics_pascal_row"].input
    replies = {
        "basics_caesar_shift": "Here is my answer:\n```python\n%s```\nIt shifts letters."
                               % _optimal("basics_caesar_shift"),
        "basics_digital_root": "```python\ndef digital_root(n):\n    return n % 9\n```",
        "basics_pascal_row": "def pascal_row(row_index):\n    raise RuntimeError('boom')\n",
    }
    model = get_model("mockllm/model", custom_outputs=[_reply(replies[s.id]) for s in samples])
    logs = inspect_eval(judge_task(str(suite), sandbox="process"), model=model,
                        log_dir=str(tmp_path), display="none", max_samples=1)
    assert logs[0].status == "success", logs[0].error
    log = read_eval_log(logs[0].location)  # what `inspect view` reads
    scores = {s.id: s.scores["judge_scorer"] for s in log.samples}
    assert {k: v.value for k, v in scores.items()} == {
        "basics_caesar_shift": "C", "basics_digital_root": "I", "basics_pascal_row": "I"}
    wrong = scores["basics_digital_root"].metadata
    assert wrong["verdict"] == "wrong_answer" and 0 < wrong["passed"] < wrong["total"]
    failing = [t for t in wrong["tests"] if t["verdict"] == "wrong_answer"]
    assert failing and "expected" in failing[0]["message"]
    assert "wrong_answer" in scores["basics_digital_root"].explanation
    crash = scores["basics_pascal_row"].metadata
    assert crash["verdict"] == "runtime_error" and crash["passed"] == 0
    assert "boom" in json.dumps(crash["tests"])
    sample = next(s for s in log.samples if s.id == "basics_digital_root")
    assert sample.metadata["judge"]["verdict"] == "wrong_answer"  # the sample's own metadata
    metrics = log.results.scores[0].metrics
    assert metrics["accuracy"].value == pytest.approx(1 / 3)
    assert "stderr" in metrics


def test_the_example_runs(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(ROOT / "examples" / "integrations" /
                                               "inspect_eval.py"), "--sandbox", "process",
                           "--log-dir", str(tmp_path)], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    count = len(judge_samples())
    assert "pass rate %.3f" % ((count - 1) / count) in done.stdout
    assert list(tmp_path.glob("*.eval"))


def test_epochs_reduce_to_pass_at_k(suite, tmp_path):
    """Two epochs: one problem right then wrong, one wrong twice, one right twice."""
    samples = judge_samples(str(suite))
    right = {s.id: "```python\n%s```" % _optimal(s.id) for s in samples}
    wrong = "def nothing():\n    return None\n"
    plan = {"basics_caesar_shift": [right["basics_caesar_shift"], wrong],
            "basics_digital_root": [wrong, wrong],
            "basics_pascal_row": [right["basics_pascal_row"], right["basics_pascal_row"]]}
    # max_samples=1: the samples in order, epoch after epoch (checked by the counts below)
    outputs = [_reply(plan[s.id][epoch]) for epoch in range(2) for s in samples]
    model = get_model("mockllm/model", custom_outputs=outputs)
    logs = inspect_eval(judge_task(str(suite), sandbox="process", epochs=2), model=model,
                        log_dir=str(tmp_path), display="none", max_samples=1)
    assert logs[0].status == "success", logs[0].error
    log = read_eval_log(logs[0].location)
    judged = {(s.id, s.epoch): s.scores["judge_scorer"].value for s in log.samples}
    passes = {sid: sum(v == "C" for (i, _), v in judged.items() if i == sid) for sid in plan}
    assert passes == {"basics_caesar_shift": 1, "basics_digital_root": 0,
                      "basics_pascal_row": 2}
    metrics = {s.reducer: s.metrics["accuracy"].value for s in log.results.scores}
    assert metrics["pass_at_1"] == pytest.approx((0.5 + 0 + 1) / 3)
    assert metrics["pass_at_2"] == pytest.approx(2 / 3)
