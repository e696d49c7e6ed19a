"""AIME-style tasks: extraction, both modes, the benchmark API, the importer, the task set."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from judge.scoring.math_answers import (
    AIMEBenchmark,
    InputError,
    UnknownTaskError,
    evaluate_answer,
    extract_final_answer,
    extract_numbers,
    import_jsonl,
    load_task,
    score_outputs,
)
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

SAMPLE = ROOT / "examples" / "math" / "aime_sample" / "tasks"


def _task(task_id="aime2025_aime2025_i_1", answer="70", subset="AIME2025-I", number=1):
    return {"task_id": task_id, "question": "Find the sum of all integer bases b>9 for which 17_b divides 97_b",
            "evaluator_type": "aime", "source": "AIME2025", "domain": "mathematics", "level": None,
            "ground_truth": answer, "file_path": None,
            "metadata": {"subset": subset, "problem_number": number}, "evaluator_config": None}


@pytest.fixture
def bench(tmp_path):
    d = tmp_path / "tasks"
    d.mkdir()
    (d / "i1.json").write_text(json.dumps(_task()))
    (d / "i2.json").write_text(json.dumps(_task("aime2025_aime2025_i_2", "588", number=2)))
    (d / "ii1.json").write_text(json.dumps(_task("aime2025_aime2025_ii_1", "504", "AIME2025-II", 1)))
    return AIMEBenchmark(d)


def values(text):
    return [n.value for n in extract_numbers(text)]


# ---------------------------------------------------------------- extraction


@pytest.mark.parametrize("text,expected", [
    ("42", [42]), ("123", [123]), ("42.0", [42]), ("84/2", [42]), ("84 / 2", [42]),
    ("The answer is 42", [42]), (r"\frac{84}{2}", [42]), (r"\dfrac{140}{2}", [70]), (r"\frac12", [Fraction(1, 2)]),
    (r"\boxed{70}", [70]), ("1,000", [1000]), ("12,345,678", [12345678]), (r"1{,}000", [1000]),
    (r"1\,000", [1000]), ("1,2,3", [1, 2, 3]), ("-5", [-5]), ("x = -5", [-5]), ("\u22125", [-5]),
    ("10-5", [10, 5]), ("x-5", [5]), ("3.5", [Fraction(7, 2)]), (".5", [Fraction(1, 2)]),
    ("1/0", []), ("no numbers here", []), ("", []), ("**", []),
])
def test_extract_numbers(text, expected):
    assert values(text) == expected


@pytest.mark.parametrize("text,value,how", [
    (r"so \boxed{70}. Check: 12", 70, "boxed"),
    (r"\boxed{\frac{140}{2}}", 70, "boxed"),
    (r"first \boxed{3} then \boxed{x^{2} = 12}", 12, "boxed"),    # last box, nested braces
    (r"\boxed{\text{none}} 70", None, "boxed"),
    ("I considered 70 but the answer is 12", 12, "answer phrase"),
    ("Answer: 1,000 (checked with 999)", 1000, "answer phrase"),
    ("The final answer is:\n\n**336**", 336, "answer phrase"),
    ("Try 5, then 7, so 9", 9, "last number"),
    ("nothing", None, "none"),
])
def test_extract_final_answer(text, value, how):
    fa = extract_final_answer(text)
    assert (fa.value, fa.how) == (value, how)


def test_unbalanced_box_falls_back():
    assert extract_final_answer(r"\boxed{70 and the answer is 12").value == 12


# ---------------------------------------------------------------- the document's examples


@pytest.mark.parametrize("mode", ["final", "any"])
@pytest.mark.parametrize("output", ["The sum is 70", "70.0", "140/2", "70", r"$\boxed{70}$", r"\frac{140}{2}"])
def test_document_examples_score_in_both_modes(bench, output, mode):
    result = bench.evaluate("aime2025_aime2025_i_1", output, mode=mode)
    assert result.score == 1.0
    assert result.mode == mode and mode in result.score_explanation


@pytest.mark.parametrize("mode", ["final", "any"])
def test_wrong_answers_score_zero(bench, mode):
    assert bench.evaluate("aime2025_aime2025_i_1", "The sum is 71", mode=mode).score == 0.0
    assert bench.evaluate("aime2025_aime2025_i_1", "", mode=mode).score == 0.0
    assert bench.evaluate("aime2025_aime2025_i_1", "70.5", mode=mode).score == 0.0


def test_considered_70_but_answer_is_12():
    text = "I considered 70 but the answer is 12"
    assert evaluate_answer(text, 70, "any").score == 1.0
    assert evaluate_answer(text, 12, "any").score == 1.0
    assert evaluate_answer(text, 70, "final").score == 0.0
    final12 = evaluate_answer(text, 12, "final")
    assert final12.score == 1.0 and final12.extracted == "12" and "answer phrase" in final12.score_explanation


def test_listing_every_number_only_scores_in_any_mode():
    listing = " ".join(str(i) for i in range(1000))
    assert evaluate_answer(listing, 70, "any").score == 1.0
    assert evaluate_answer(listing, 70, "final").score == 0.0


def test_default_mode_is_final(bench):
    assert bench.mode == "final"
    assert bench.evaluate("aime2025_aime2025_i_1", "70 or maybe the answer is 12").mode == "final"
    assert bench.evaluate("aime2025_aime2025_i_1", "70 or maybe the answer is 12").score == 0.0
    with pytest.raises(ValueError):
        evaluate_answer("1", 1, "all")


# ---------------------------------------------------------------- benchmark API


def test_benchmark_api(bench):
    assert bench.get_task_ids() == ["aime2025_aime2025_i_1", "aime2025_aime2025_i_2", "aime2025_aime2025_ii_1"]
    assert bench.get_task("aime2025_aime2025_i_2").ground_truth == "588"
    assert bench.get_tasks_by_subset("AIME2025-II") == ["aime2025_aime2025_ii_1"]
    assert bench.get_tasks_by_subset("nope") == []
    assert bench.get_problem_numbers() == {"AIME2025-I": [1, 2], "AIME2025-II": [1]}
    info = bench.get_task_info("aime2025_aime2025_i_1")
    assert info == {"question": _task()["question"], "ground_truth": "70", "source": "AIME2025",
                    "domain": "mathematics", "subset": "AIME2025-I", "problem_number": 1}
    with pytest.raises(UnknownTaskError, match="nope"):
        bench.get_task("nope")
    with pytest.raises(UnknownTaskError):
        bench.evaluate("nope", "1")


def test_shipped_task_set():
    b = AIMEBenchmark(SAMPLE)
    ids = b.get_task_ids()
    assert len(ids) >= 12
    assert set(b.get_problem_numbers()) == {"SAMPLE-I", "SAMPLE-II"}
    for tid in ids:
        t = b.get_task(tid)
        assert 0 <= t.answer <= 999
        assert b.evaluate(tid, f"The answer is $\\boxed{{{t.ground_truth}}}$.").score == 1.0
    assert AIMEBenchmark().get_task_ids() == ids  # the default task set is the shipped one


# ---------------------------------------------------------------- broken task files


@pytest.mark.parametrize("content,message", [
    ('{"task_id": "x",\n "question": }', r"bad\.json:2: invalid JSON"),
    (json.dumps({**_task(), "metadata": {"subset": "S"}}), r"bad\.json: at metadata\.problem_number: Field required"),
    (json.dumps({**_task(), "ground_truth": "1000"}), r"bad\.json: at ground_truth: .*0\.\.999"),
    (json.dumps({**_task(), "ground_truth": "seventy"}), r"bad\.json: at ground_truth"),
    (json.dumps({k: v for k, v in _task().items() if k != "task_id"}), r"at task_id: Field required"),
    (json.dumps({**_task(), "evaluator_type": "exact"}), r"at evaluator_type"),
])
def test_broken_task_files(tmp_path, content, message):
    (tmp_path / "bad.json").write_text(content)
    with pytest.raises(InputError, match=message):
        AIMEBenchmark(tmp_path)


def test_ground_truth_normalisation(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps({**_task(), "ground_truth": "070"}))
    assert load_task(p).ground_truth == "70"
    p.write_text(json.dumps({**_task(), "ground_truth": 70}))
    assert load_task(p).answer == 70


def test_duplicate_ids_and_slots(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(_task()))
    (tmp_path / "b.json").write_text(json.dumps(_task()))
    with pytest.raises(InputError, match="already used by"):
        AIMEBenchmark(tmp_path)
    (tmp_path / "b.json").write_text(json.dumps(_task("other")))
    with pytest.raises(InputError, match="problem 1 already defined"):
        AIMEBenchmark(tmp_path)


def test_empty_or_missing_dir(tmp_path):
    with pytest.raises(InputError, match="no \\*.json"):
        AIMEBenchmark(tmp_path)
    with pytest.raises(InputError, match="not a directory"):
        AIMEBenchmark(tmp_path / "nope")


# ---------------------------------------------------------------- outputs file


def test_score_outputs_reports_bad_lines_and_scores_the_rest(bench, tmp_path):
    out = tmp_path / "outputs.jsonl"
    out.write_text("\n".join([
        json.dumps({"task_id": "aime2025_aime2025_i_1", "output": "The answer is 70"}),
        "{not json",
        json.dumps({"task_id": "aime2025_aime2025_i_1", "output": "70? no, the answer is 12"}),
        json.dumps({"task_id": "unknown_task", "output": "1"}),
        json.dumps({"task_id": "aime2025_aime2025_ii_1"}),
        json.dumps({"task_id": "aime2025_aime2025_ii_1", "output": r"\boxed{504}"}),
        "",
    ]) + "\n")
    rep = score_outputs(bench, out)
    assert rep.per_task["aime2025_aime2025_i_1"] == {"subset": "AIME2025-I", "problem_number": 1, "n": 2, "accuracy": 0.5}
    assert rep.per_task["aime2025_aime2025_i_2"]["n"] == 0  # no output: counts as 0
    assert rep.per_subset == {"AIME2025-I": 0.25, "AIME2025-II": 1.0}
    assert rep.overall == pytest.approx(0.5)
    assert len(rep.errors) == 3
    assert rep.errors[0].startswith(f"{out}:2: invalid JSON")
    assert rep.errors[1] == f"{out}:4: unknown task id 'unknown_task'"
    assert rep.errors[2] == f"{out}:5: missing key(s) output"
    assert score_outputs(bench, out, "any").per_task["aime2025_aime2025_i_1"]["accuracy"] == 1.0


# ---------------------------------------------------------------- importer


def test_import_jsonl(tmp_path):
    src = tmp_path / "aime24.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in [
        {"id": "2024-I-1", "problem": "P1", "answer": "204"},
        {"ID": "2024-I-2", "Problem": "P2", "Answer": 25},
        {"id": 60, "question": "P3", "answer": "073", "url": "x"},
    ]) + "\n")
    paths = import_jsonl(src, tmp_path / "tasks", subset="AIME2024-I", source="AIME2024")
    assert [p.name for p in paths] == ["aime2024_i_2024_i_1.json", "aime2024_i_2024_i_2.json", "aime2024_i_60.json"]
    b = AIMEBenchmark(tmp_path / "tasks")
    assert b.get_problem_numbers() == {"AIME2024-I": [1, 2, 3]}
    assert b.get_task("aime2024_i_60").ground_truth == "73"
    assert b.evaluate("aime2024_i_2024_i_2", "25").score == 1.0
    with pytest.raises(InputError, match="already exists"):
        import_jsonl(src, tmp_path / "tasks", subset="AIME2024-I")
    assert len(import_jsonl(src, tmp_path / "tasks", subset="AIME2024-I", overwrite=True)) == 3


def test_import_jsonl_bad_file_writes_nothing(tmp_path):
    src = tmp_path / "bad.jsonl"
    src.write_text('{"id": 1, "problem": "P", "answer": "5"}\n{"id": 2, "problem": "P"}\n{oops\n'
                   '{"id": 3, "problem": "P", "answer": "1234"}\n')
    with pytest.raises(InputError) as exc:
        import_jsonl(src, tmp_path / "out", subset="S")
    msg = str(exc.value)
    assert f"{src}:2: needs keys" in msg and f"{src}:3: invalid JSON" in msg and f"{src}:4:" in msg
    assert not (tmp_path / "out").exists()
