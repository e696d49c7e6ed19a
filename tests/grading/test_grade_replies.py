"""Model replies are read like candidate output: bounded in depth and size (issue 22, item 3).

A reply of ``[`` x 100,000 after a partial object used to be a RecursionError that ended
``judge grade`` with no line written. Now every such reply is one invalid reply (re-asked,
then a grading error for that solution) and the run writes every other line. Real HTTP to a
scripted model server; real ``judge grade``.
"""

from __future__ import annotations

import json
import sys
import threading

import pytest
from tests.paths import TESTS

sys.path.insert(0, str(TESTS))
from proof_server import ScriptedServer, grade_reply  # noqa: E402
from test_proof_grading import PROBLEMS, SOLUTIONS, grade, write_jsonl  # noqa: E402

from judge.grading.llm import parse_verdict  # noqa: E402
from judge.grading.proofs.schemas import (  # noqa: E402
    MAX_REPLY_CHARS,
    GradeReport,
    ReplyInvalid,
    extract_json,
    parse_reply,
)

PARTIAL = '{"overall_assessment": {"score": 7, "rationale": "'
HOSTILE_REPLIES = {
    "open_brackets_after_partial_object": PARTIAL[:-1] + "[" * 100_000,
    "open_braces": "{" * 200_000,
    "balanced_but_deep": "[" * 100_000 + "]" * 100_000,
    "deep_inside_a_fence": "Here:\n```json\n" + '{"a": ' * 50_000 + "1" + "}" * 50_000 + "\n```",
    "deep_after_prose": "The grade is " + "[{" * 60_000,
    "many_false_starts": "{x " * 300_000,
    "too_long": grade_reply(7) + " " * (MAX_REPLY_CHARS + 1),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_REPLIES))
def test_a_hostile_reply_is_one_invalid_reply(name):
    text = HOSTILE_REPLIES[name]
    with pytest.raises(ReplyInvalid):
        parse_reply(text, GradeReport)


def test_a_deep_reply_in_a_thread_with_a_small_stack_is_still_an_invalid_reply():
    """The bound is the parser's, not the recursion limit's: with a small thread stack too."""
    outcome = []

    def run():
        try:
            extract_json(HOSTILE_REPLIES["open_brackets_after_partial_object"])
        except ReplyInvalid as exc:
            outcome.append(str(exc))
        except BaseException as exc:  # noqa: BLE001 - what the test is about
            outcome.append("escaped: %r" % exc)

    threading.stack_size(256 * 1024)
    try:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(0)
    assert outcome and "nested deeper" in outcome[0], outcome


def test_honest_replies_still_parse():
    assert extract_json("Sure.\n```json\n" + grade_reply(6) + "\n```")["overall_assessment"][
        "score"] == 6
    assert extract_json('prose {"a": [1, {"b": "[[[[{{{{"}]} then ' + "[" * 500) == {
        "a": [1, {"b": "[[[[{{{{"}]}
    nested = {"x": 1}
    for _ in range(40):
        nested = {"x": nested}
    assert extract_json(json.dumps(nested)) == nested


def test_llm_verdicts_are_bounded_too():
    assert parse_verdict('{"verdict": 1}') is True
    assert parse_verdict("[" * 100_000 + " so: 0") is False


@pytest.fixture
def server():
    s = ScriptedServer()
    yield s
    s.close()


def test_judge_grade_survives_a_nested_reply_and_writes_every_other_line(server, tmp_path,
                                                                          capsys):
    write_jsonl(tmp_path / "problems.jsonl", PROBLEMS)
    write_jsonl(tmp_path / "solutions.jsonl", SOLUTIONS)
    # the first solution's grade request (and both re-asks) get the nested reply
    server.script["grade_single"] = [HOSTILE_REPLIES["open_brackets_after_partial_object"]] * 3
    code, lines, summary, err = grade(server, tmp_path, capsys, "--workflow", "single",
                                      "--concurrency", "1")
    assert code == 4, err  # some solution could not be graded: not a crash
    assert "Traceback" not in err and "RecursionError" not in err
    assert [x["solution_id"] for x in lines] == ["s1", "s2", "s3"]
    assert [x["status"] for x in lines] == ["error", "ok", "ok"]
    assert "nested deeper than" in lines[0]["error"]
    assert summary["graded"]["errors"] == 1 and summary["graded"]["ok"] == 2
