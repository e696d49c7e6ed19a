"""What the SandboxFusion routes take from a client, without a server or a sandbox (issue 36:
36.4, 36.10, 36.11): the request models, the test-case shapes and the error bodies. The same
requests against a real server, in both sandboxes: tests/service/test_service_fusion_hardening.py."""

from __future__ import annotations

import json
import math

import pytest
from pydantic import ValidationError

from judge.service import fusion
from judge.service.fusion import checker_of, evaluation
from judge.service.fusion_models import (MAX_FILE_DEPTH, RunCodeRequest, SubmitRequest,
                                         TestConfig, check_file_path, input_bytes)

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure


def test_code_may_hold_a_lone_surrogate_and_stays_bounded():
    assert RunCodeRequest(code="print(1)  # \ud800", language="python").code.endswith("\ud800")
    assert SubmitRequest(completion="\ud800", config=TestConfig()).completion == "\ud800"
    with pytest.raises(ValidationError, match="at most 1000000"):
        RunCodeRequest(code="x" * 1_000_001, language="python")


@pytest.mark.parametrize("field", ["run_timeout", "compile_timeout"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_timeouts_are_finite(field, value):
    with pytest.raises(ValidationError) as caught:
        RunCodeRequest(code="x", language="python", **{field: value})
    assert caught.value.errors()[0]["loc"] == (field,)
    with pytest.raises(ValidationError):
        TestConfig(**{field: value})


def test_stdin_is_text_or_escaped_bytes():
    assert input_bytes("a\udcff", "stdin") == b"a\xff"
    with pytest.raises(ValueError, match=r"stdin holds a lone surrogate \(U\+D800 at character 1\)"):
        input_bytes("a\ud800", "stdin")
    with pytest.raises(ValidationError):
        RunCodeRequest(code="x", language="python", stdin="\udbff")


@pytest.mark.parametrize("name, why", [
    ("/".join(["a"] * 1200) + "/f", "characters"),
    ("/".join(["a"] * MAX_FILE_DEPTH) + "/f", "levels deep"),
    ("../x", "relative path"), ("/etc/passwd", "relative path"), ("a/../../x", "relative path"),
    (".", "relative path"), ("", "not a file name"), ("a\x00b", "not a file name"),
    ("a\ud800", "lone surrogate"),
])
def test_files_paths_are_bounded(name, why):
    with pytest.raises(ValueError, match=why):
        check_file_path(name)
    with pytest.raises(ValidationError):
        RunCodeRequest(code="x", language="python", files={name: "eA=="})


def test_files_paths_within_bounds():
    assert check_file_path("data/./in.txt") == "data/in.txt"
    assert check_file_path("/".join(["a"] * (MAX_FILE_DEPTH - 1)) + "/f").count("/") == \
        MAX_FILE_DEPTH - 1
    with pytest.raises(ValidationError, match="not base64"):
        RunCodeRequest(code="x", language="python", files={"a": "not base64!"})


@pytest.mark.parametrize("data, message", [
    ({"test_cases": [{"input": "1", "output": "1"}, 7]},
     r"config.provided_data.test_cases\[1\] is not an object"),
    ([{"input": "1", "output": "1"}, "x"], None),  # refused by the model: list of objects
    ({"test": [{"input": "1", "output": {"stdout": "2"}}]},
     r"config.provided_data.test\[0\].input is not an object"),
    ({"test": [3]}, r"config.provided_data.test\[0\] is not an object"),
    ({"test_cases": {"input": "12", "output": ["3", "4"]}},
     "config.provided_data.test_cases.input must be a list"),
    ({"test_cases": "x"}, "config.provided_data.test_cases must be a list"),
    ({"inputs": "12", "outputs": "34"}, "config.provided_data.inputs must be a list"),
    ({"inputs": ["1"], "outputs": []}, "1 inputs, 0 outputs"),
    ({}, "holds no test cases"),
])
def test_test_cases_of_another_shape_are_named(data, message):
    if message is None:
        with pytest.raises(ValidationError):
            TestConfig(provided_data=data)
        return
    with pytest.raises(ValueError, match=message):
        fusion.test_cases(TestConfig(provided_data=data))


def test_surrogates_in_test_data_are_named_and_function_calls_escape_them():
    cases = {"test_cases": [{"input": "1", "output": "1"}, {"input": "\ud800", "output": "1"}]}
    with pytest.raises(ValueError, match=r"test_cases\[1\].input holds a lone surrogate"):
        evaluation(TestConfig(provided_data=cases))
    # a function call's arguments travel as JSON, escapes and all: nothing to refuse
    lang, _, function, inputs, _ = evaluation(TestConfig(provided_data={
        "fn_name": "f", "inputs": [["\ud800"]], "outputs": [["\ud800"]]}))
    assert function == "f" and json.loads(inputs[0]) == "\ud800"


@pytest.mark.parametrize("checker, message", [
    ("tokens", "must be an output checker object"), ([1], "must be an output checker object"),
    ({"type": "nope"}, "config.extra.checker.type"),
    ({"float_tolerance": "x"}, "config.extra.checker.float_tolerance"),
])
def test_an_unknown_checker_is_named(checker, message):
    with pytest.raises(ValueError, match=message):
        checker_of(TestConfig(extra={"checker": checker}))


def test_error_bodies_can_always_be_written():
    from fastapi.exceptions import RequestValidationError

    from judge.service.fusion_routes import Answer, invalid

    try:
        RunCodeRequest.model_validate({"code": "x" * 500, "language": "python",
                                       "run_timeout": math.nan, "stdin": "\ud800"})
    except ValidationError as exc:
        body = json.loads(invalid(RequestValidationError(exc.errors())).body)
    assert {tuple(e["loc"]) for e in body["detail"]} == {("run_timeout",), ("stdin",)}
    assert [e["input"] for e in body["detail"] if e["loc"] == ["run_timeout"]] == ["nan"]
    assert json.loads(Answer({"code": "\ud800"}).body) == {"code": "\ud800"}


def test_the_client_sends_lone_surrogates_as_json_escapes():
    from judge.client import _content

    sent = _content({"solution": "print(1)  # \ud800"})
    assert json.loads(sent["content"]) == {"solution": "print(1)  # \ud800"}
    assert sent["headers"]["Content-Type"] == "application/json"
    assert _content(None) == {}
