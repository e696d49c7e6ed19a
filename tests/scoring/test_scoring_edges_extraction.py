"""Issue 14, items 2 and 3: AIME answer extraction on degenerate model output.

Correctness only (no time bounds here: the machines are shared); the growth of extraction
time with input size is measured by ``benchmarks/extraction_answers.py``.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from judge.scoring.math_answers import (
    MAX_DIGITS,
    AIMEBenchmark,
    evaluate_answer,
    extract_final_answer,
    extract_numbers,
    score_outputs,
)

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

# ---------------------------------------------------------------- the degenerate inputs


def test_repeated_answer_phrase_without_a_number():
    text = "answer is " * 2_000  # 20 KB: 6.8 s before, one pass now
    fa = extract_final_answer(text)
    assert fa.value is None and fa.how == "none"
    fa = extract_final_answer(text + " 42 " + "answer is " * 2_000)
    assert (fa.value, fa.how) == (42, "answer phrase")


def test_unclosed_boxed_repeated():
    text = "\\boxed{" * 20_000  # 140 KB: 285 s before
    assert extract_final_answer(text).how in ("none", "last number")
    assert extract_final_answer(text).value is None
    assert extract_final_answer("\\boxed{12} then " + text).value == 12          # the last *closed* box
    assert extract_final_answer(text + "\\boxed{42}").value == 42                 # innermost closes
    assert extract_final_answer("\\boxed{1" + "{" * 50_000 + "}").value == 1     # unbalanced inside: last number


def test_five_thousand_digit_run():
    run = "7" * 5_000
    r = evaluate_answer(f"The answer is {run}", 70)
    assert r.score == 0.0 and f"more than {MAX_DIGITS} digits" in r.score_explanation
    assert len(r.score_explanation) < 200
    assert evaluate_answer(f"{run} and finally 70", 70).score == 1.0
    assert evaluate_answer(f"we had {run}; the answer is 70", 70, "any").score == 1.0
    r = evaluate_answer(f"\\boxed{{{run}}}", 70)
    assert r.score == 0.0 and "more than" in r.score_explanation
    assert evaluate_answer("1" + "0" * 200_000, 70, "any").score == 0.0


def test_digits_are_counted_without_leading_and_trailing_zeros():
    assert extract_final_answer("70." + "0" * 5_000).value == 70
    assert extract_final_answer("0" * 5_000 + "70").value == 70
    assert extract_final_answer("0" * 5_000 + "7" * 101).value is None
    assert extract_final_answer("0." + "0" * 5_000 + "1").value is None        # 5,001 significant digits
    n = "1" + "0" * (MAX_DIGITS - 1)
    assert extract_final_answer(n).value == 10 ** (MAX_DIGITS - 1)            # exactly the cap: exact
    assert extract_final_answer(n + "0").value is None                          # one more: kept as text
    big = "9" * 5_000
    assert extract_final_answer(f"{big}/{big}").value is None                  # not evaluated, no crash
    assert extract_final_answer("140/2").value == 70 and extract_final_answer("\\frac{84}{2}").value == 42


def test_score_outputs_with_a_huge_run_keeps_the_other_lines(tmp_path):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    for i, answer in ((1, "70"), (2, "12")):
        (tasks / f"t{i}.json").write_text(json.dumps({
            "task_id": f"t{i}", "question": "q", "evaluator_type": "aime", "ground_truth": answer,
            "metadata": {"subset": "S", "problem_number": i}}))
    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps({"task_id": "t1", "output": "9" * 5_000}) + "\n"
                   + json.dumps({"task_id": "t2", "output": "so the answer is 12"}) + "\n")
    report = score_outputs(AIMEBenchmark(tasks), out)
    assert report.per_task["t1"]["accuracy"] == 0.0 and report.per_task["t2"]["accuracy"] == 1.0
    assert not report.errors


@pytest.mark.parametrize("answer", ["9" * 5_000, "0" * 5_000 + "1000", 10 ** 4000, -1, "1e3"])
def test_task_ground_truth_outside_0_999_is_a_clear_error(tmp_path, answer):
    from judge.scoring.math_answers import load_task
    from judge.errors import InputError

    p = tmp_path / "t.json"
    p.write_text(json.dumps({"task_id": "t", "question": "q", "ground_truth": answer,
                             "metadata": {"subset": "S", "problem_number": 1}}))
    with pytest.raises(InputError, match=r"t\.json: at ground_truth: answer must be") as exc:
        load_task(p)
    assert len(str(exc.value)) < 400


def test_leading_zeros_in_the_ground_truth_are_fine(tmp_path):
    from judge.scoring.math_answers import load_task

    p = tmp_path / "t.json"
    p.write_text(json.dumps({"task_id": "t", "question": "q", "ground_truth": "0" * 5_000 + "70",
                             "metadata": {"subset": "S", "problem_number": 1}}))
    assert load_task(p).answer == 70


# ---------------------------------------------------------------- arithmetic after the answer phrase


@pytest.mark.parametrize("text,value", [
    ("Final answer: 3 + 67 = 70", 70),                     # the vector (extracted 3 before)
    ("The answer is 2 \\cdot 35 = 70.", 70),
    ("answer: 10 - 3 = 7", 7),
    ("answer = 1 + 1 = 2 = 2", 2),
    ("The answer is (3+4)*10 = 70\nThen we check 2 + 2 = 4.", 70),  # the chain stops at the line
    ("The answer is 12, since 5 + 7 = 12", 12),
    ("The answer is 12, not 3 + 4 = 7", 12),              # prose breaks the chain: first number
    ("The answer is 70 because 35 * 2 = 70", 70),
    ("The answer is \\frac{140}{2} = 70", 70),
    ("answer: 5 / 2 * 4 = 10", 10),
    ("Final answer: 3 + 67 =", 3),                        # nothing after "=": the first number
    ("Answer: 3 + 67 = $70$", 70),
])
def test_answer_phrase_with_an_arithmetic_chain(text, value):
    fa = extract_final_answer(text)
    assert (fa.value, fa.how) == (value, "answer phrase")


def test_boxed_still_wins_over_the_phrase():
    assert extract_final_answer("\\boxed{70}. Final answer: 3 + 4 = 7").value == 70


def test_last_phrase_with_a_number_after_it():
    assert extract_final_answer("The answer is 5. Let me recheck: the answer is 6. Thus the answer is").value == 6
    assert extract_final_answer("answer is 1 answer is").value == 1


# ---------------------------------------------------------------- other degenerate text


@pytest.mark.parametrize("make,check", [
    (lambda: "1,000," * 20_000, lambda nums: len(nums) == 20_000 and all(n.value == 1000 for n in nums)),
    (lambda: "1." * 50_000, lambda nums: [n.value for n in nums] == [Fraction(11, 10)]),  # "1.1", then no
    (lambda: "1. " * 50_000, lambda nums: len(nums) == 50_000 and all(n.value == 1 for n in nums)),
    (lambda: "-" * 100_000 + "5", lambda nums: [n.value for n in nums] == [-5]),
    (lambda: "- " * 50_000 + "5", lambda nums: [n.value for n in nums] == [5]),    # a detached "-" is no sign
    (lambda: "1 / " * 30_000, lambda nums: len(nums) == 15_000),
    (lambda: "\\frac{1}{" * 20_000, lambda nums: len(nums) == 20_000),
    (lambda: "x" * 100_000, lambda nums: nums == []),
    (lambda: "1" + " " * 200_000 + "/2", lambda nums: [n.value for n in nums] == [Fraction(1, 2)]),
])
def test_extract_numbers_on_degenerate_text(make, check):
    assert check(extract_numbers(make()))


def test_answer_phrase_run_with_spaces_and_chain_run():
    text = "answer: " + "1+" * 100_000  # a chain without "=": the first number after the phrase
    assert extract_final_answer(text).value == 1
    text = "answer" + " " * 200_000 + "is 7"
    assert extract_final_answer(text).value == 7
