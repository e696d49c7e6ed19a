"""judge.problem: problem files loaded and validated, every issue with its file and location."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from judge.engine.compare import Tolerance
from judge.errors import InputError, Issue
from judge.problem.model import function_from_data
from judge.kinds.loader import load_problem, load_suite
from judge.problem.types import TypeSpec
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

DATA = ROOT / "tests" / "data" / "core"
SHIPPED = ["basics", "debugging", "types"]


def valid() -> dict:
    return json.loads((DATA / "valid.json").read_text(encoding="utf-8"))


def issues_of(data, file="problem.json") -> list[Issue]:
    with pytest.raises(InputError) as info:
        function_from_data(data, file)
    return info.value.issues


def write(path: Path, data) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def locations(issues):
    return [issue.location for issue in issues]


def field_issue(issues, parent: str, name: str) -> Issue:
    """The issue about field ``name`` under ``parent``: either located at the field itself, or
    (unknown/missing fields grouped per object) located at its parent and naming it."""
    full = "%s.%s" % (parent, name) if parent else name
    found = [i for i in issues if i.location == full
             or (i.location == parent and repr(name) in i.message)]
    assert len(found) == 1, [str(i) for i in issues]
    return found[0]


# ---- a valid file ------------------------------------------------------------------------------

def test_valid_fixture_loads():
    problem = load_problem(DATA / "valid.json")
    assert problem.identifier == "core_divmod"
    assert problem.source == str(DATA / "valid.json")
    assert problem.function_name == "split_div"
    assert problem.parameter_names == ["dividend", "divisor"]
    assert problem.param_specs == [TypeSpec("int"), TypeSpec("int")]
    assert problem.return_spec == TypeSpec("tuple", (TypeSpec("int"), TypeSpec("int")))
    assert [t.index for t in problem.tests] == [0, 1, 2]
    assert problem.tests[2].args == (-7, 2)
    assert problem.tests[2].inputs == {"dividend": -7, "divisor": 2}
    assert problem.float_tolerance == Tolerance()
    assert problem.prompt("generic").genericize is True
    assert problem.prompt("nope") is None


def test_expected_output_object_and_list_forms_both_give_a_tuple_for_several_values():
    problem = load_problem(DATA / "valid.json")
    # test 0 uses the object form, test 1 the list form
    assert problem.tests[0].expected == (3, 1)
    assert problem.tests[1].expected == (3, 0)
    assert type(problem.tests[0].expected) is tuple and type(problem.tests[1].expected) is tuple


def single_return(expected_forms):
    data = valid()
    data["function_prototype"]["return_values"] = [{"type": "List[int]"}]
    data["prompts"] = [{"prompt_id": "p", "prompt": "x", "genericize": False,
                        "sample_inputs_outputs": []}]
    data["correctness_test_suite"] = [
        {"input": {"dividend": 1, "divisor": 2}, "expected_output": form}
        for form in expected_forms]
    return function_from_data(data, "single.json")


def test_one_return_value_is_a_scalar_in_both_forms():
    problem = single_return([[[1, 2]], {"result": [1, 2]}])
    assert problem.return_spec == TypeSpec("list", (TypeSpec("int"),))
    assert problem.tests[0].expected == [1, 2]
    assert problem.tests[1].expected == [1, 2]


def test_expected_values_are_converted_by_type():
    data = valid()
    data["function_prototype"]["return_values"] = [{"type": "Tuple[float, ...]"},
                                                   {"type": "Set[int]"}]
    for case in data["correctness_test_suite"]:
        case["expected_output"] = [[1, "inf"], [3, 3, 4]]
    data["prompts"][0]["sample_inputs_outputs"] = []
    data["prompts"][1]["sample_inputs_outputs"] = []
    problem = function_from_data(data, "conv.json")
    assert problem.tests[0].expected == ((1.0, math.inf), {3, 4})


def test_tolerance_and_limits_extensions():
    data = valid()
    data["tolerance"] = {"rel": 1e-3}
    data["limits"] = {"time_limit_s": 2.5, "memory_mb": 128}
    problem = function_from_data(data, "ext.json")
    assert problem.float_tolerance == Tolerance(rel=1e-3, abs=1e-6)
    assert problem.limits.time_limit_s == 2.5


def test_check_instead_of_expected_output():
    data = valid()
    data["checker"] = "def ok(q, r):\n    return True\n"
    data["correctness_test_suite"][2] = {"input": {"dividend": 5, "divisor": 5},
                                         "check": "output == (1, 0)"}
    problem = function_from_data(data, "check.json")
    assert problem.tests[2].check == "output == (1, 0)"
    assert problem.tests[2].expected is None


# ---- the three-mistake file -------------------------------------------------------------------

def test_three_mistakes_give_exactly_three_issues_with_locations():
    path = DATA / "three_mistakes.json"
    with pytest.raises(InputError) as info:
        load_problem(path)
    issues = info.value.issues
    assert len(issues) == 3, [str(i) for i in issues]
    assert all(issue.file == str(path) for issue in issues)
    unknown = field_issue(issues, "", "difficulty")
    assert "unknown field" in unknown.message
    by_location = {issue.location: issue.message for issue in issues if issue is not unknown}
    assert set(by_location) == {"function_prototype.parameters[1].type",
                                "correctness_test_suite[1].input"}
    assert "'TreeNode'" in by_location["function_prototype.parameters[1].type"]
    message = by_location["correctness_test_suite[1].input"]
    assert "'c'" in message and "'b'" in message
    # the printed form names the file and the location
    text = str(info.value)
    assert "%s: correctness_test_suite[1].input:" % path in text


def test_unknown_fields_anywhere_are_reported_with_the_rest():
    data = valid()
    data["prompts"][0]["notes"] = "x"
    data["correctness_test_suite"][1]["explanation"] = "x"
    data["function_prototype"]["parameters"][0]["doc"] = "x"
    data["function_prototype"]["parameters"][1]["type"] = "integer"
    data["prompts"][0]["style"] = "x"
    issues = issues_of(data)
    assert len(issues) == 4, [str(i) for i in issues]  # the two fields of prompts[0] grouped
    for parent, name in [("prompts[0]", "notes"), ("prompts[0]", "style"),
                         ("correctness_test_suite[1]", "explanation"),
                         ("function_prototype.parameters[0]", "doc")]:
        assert "unknown field" in field_issue(issues, parent, name).message
    (typo,) = [i for i in issues if i.location == "function_prototype.parameters[1].type"]
    assert "did you mean 'int'" in typo.message


# ---- JSON-level errors ------------------------------------------------------------------------

def test_malformed_json_gives_the_line_number():
    path = DATA / "malformed.json"
    with pytest.raises(InputError) as info:
        load_problem(path)
    (issue,) = info.value.issues
    assert issue.file == str(path)
    assert issue.line == 5
    assert "invalid JSON" in issue.message
    assert str(issue).startswith("%s:5: " % path)


def test_malformed_json_line_in_a_longer_file(tmp_path):
    text = json.dumps(valid(), indent=2).splitlines()
    text[10] = text[10] + " oops"
    path = write(tmp_path / "p.json", "\n".join(text))
    with pytest.raises(InputError) as info:
        load_problem(path)
    assert info.value.issues[0].line == 11


def test_non_utf8_bytes(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{\n  "identifier": "caf\xe9",\n  "description": "x"\n}\n')
    with pytest.raises(InputError) as info:
        load_problem(path)
    (issue,) = info.value.issues
    assert "UTF-8" in issue.message and "0xe9" in issue.message
    assert issue.line == 2


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(valid()).encode())
    assert load_problem(path).identifier == "core_divmod"


def test_duplicate_json_keys():
    with pytest.raises(InputError) as info:
        load_problem(DATA / "duplicate_keys.json")
    (issue,) = info.value.issues
    assert "duplicate key 'description'" in issue.message


def test_duplicate_keys_deep_inside(tmp_path):
    text = json.dumps(valid()).replace('"divisor": 2}', '"divisor": 2, "divisor": 3}', 1)
    path = write(tmp_path / "dup.json", text)
    with pytest.raises(InputError) as info:
        load_problem(path)
    assert "duplicate key 'divisor'" in info.value.issues[0].message


@pytest.mark.parametrize("data, kind", [([], "list"), ("x", "str"), (None, "NoneType"), (3, "int")])
def test_top_level_must_be_an_object(tmp_path, data, kind):
    path = write(tmp_path / "top.json", json.dumps(data))
    with pytest.raises(InputError) as info:
        load_problem(path)
    assert "JSON object" in info.value.issues[0].message and kind in info.value.issues[0].message


def test_missing_file():
    with pytest.raises(InputError) as info:
        load_problem(DATA / "does_not_exist.json")
    assert "cannot read" in info.value.issues[0].message


# ---- semantic checks ---------------------------------------------------------------------------

def test_duplicate_prompt_ids():
    data = valid()
    data["prompts"][1]["prompt_id"] = "plain"
    issues = issues_of(data)
    assert locations(issues) == ["prompts[1].prompt_id"]
    assert "duplicate prompt_id 'plain'" in issues[0].message


def test_expected_count_mismatch():
    data = valid()
    data["correctness_test_suite"][1]["expected_output"] = [3]
    issues = issues_of(data)
    assert locations(issues) == ["correctness_test_suite[1].expected_output"]
    assert "1 expected value for 2 declared return values" in issues[0].message


def test_expected_count_mismatch_object_form():
    data = valid()
    data["correctness_test_suite"][0]["expected_output"] = {"q": 3, "r": 1, "extra": 0}
    issues = issues_of(data)
    assert locations(issues) == ["correctness_test_suite[0].expected_output"]
    assert "3 expected values for 2" in issues[0].message


def test_values_not_fitting_types_name_the_nested_path():
    data = valid()
    data["function_prototype"]["parameters"][0]["type"] = "List[Dict[str, int]]"
    for case in data["correctness_test_suite"]:
        case["input"]["dividend"] = [{"x": 1}]
    for prompt in data["prompts"]:
        for case in prompt["sample_inputs_outputs"]:
            case["input"]["dividend"] = [{"x": 1}]
    data["correctness_test_suite"][2]["input"]["dividend"] = [{"x": 1}, {"y": "z"}]
    data["correctness_test_suite"][1]["expected_output"] = [3, 0.5]
    data["correctness_test_suite"][0]["expected_output"] = {"quotient": True, "remainder": 1}
    issues = issues_of(data)
    assert sorted(locations(issues)) == sorted([
        "correctness_test_suite[2].input.dividend[1].y",
        "correctness_test_suite[1].expected_output[1]",
        "correctness_test_suite[0].expected_output.quotient",
    ])
    message = {i.location: i.message for i in issues}
    assert "declared List[Dict[str, int]]" in message["correctness_test_suite[2].input.dividend[1].y"]
    assert "got 'z'" in message["correctness_test_suite[2].input.dividend[1].y"]


def test_sample_values_are_checked_too():
    data = valid()
    data["prompts"][1]["sample_inputs_outputs"][0]["input"]["divisor"] = "three"
    issues = issues_of(data)
    assert locations(issues) == ["prompts[1].sample_inputs_outputs[0].input.divisor"]


def test_sample_with_wrong_parameter_name():
    data = valid()
    data["prompts"][0]["sample_inputs_outputs"][0]["input"] = {"dividend": 1, "div": 2}
    issues = issues_of(data)
    assert locations(issues) == ["prompts[0].sample_inputs_outputs[0].input"]


def test_problem_without_tests_loads_and_says_no_tests_when_judged():
    # seed, problem-definition-spec.md: "correctness_test_suite (Array of TestCase JSON
    # Objects, Optional) ... If not provided, the default value is an empty array."
    from judge.problem.model import NoTests, require_tests

    data = valid()
    data.pop("correctness_test_suite")
    problem = function_from_data(data, "p.json")
    assert problem.correctness_test_suite == [] and problem.tests == [] and not problem.has_tests
    with pytest.raises(NoTests, match="no tests") as info:
        require_tests(problem)
    assert info.value.code == "no_tests"
    data["correctness_test_suite"] = []
    assert not function_from_data(data, "p.json").has_tests
    require_tests(load_problem(DATA / "valid.json"))  # a problem with tests: no error


def test_empty_return_values_means_the_function_returns_nothing():
    # the spec gives return_values as an array with no minimum: an empty one is accepted
    data = valid()
    data["function_prototype"]["return_values"] = []
    for case in data["correctness_test_suite"]:
        case["expected_output"] = []
    data["correctness_test_suite"][0]["expected_output"] = {}
    for prompt in data["prompts"]:
        for case in prompt["sample_inputs_outputs"]:
            case["expected_output"] = []
    problem = function_from_data(data, "p.json")
    assert problem.return_spec == TypeSpec("none")
    assert [t.expected for t in problem.tests] == [None, None, None]
    from judge.prompts.render import render_prompt

    text = render_prompt(problem, problem.prompts[0]).prompt
    assert "-> None:" in text and "Tuple[]" not in text and "returns `()`" not in text
    data["correctness_test_suite"][1]["expected_output"] = [3]
    assert locations(issues_of(data)) == ["correctness_test_suite[1].expected_output"]


@pytest.mark.parametrize("missing", [["genericize"], ["sample_inputs_outputs"],
                                     ["genericize", "sample_inputs_outputs"]])
def test_prompt_without_its_required_fields_is_a_located_error(missing):
    # the spec's Prompt has genericize and sample_inputs_outputs with no "(Optional)"
    data = valid()
    for name in missing:
        data["prompts"][-1].pop(name)
    issues = issues_of(data)
    where = "prompts[%d]" % (len(data["prompts"]) - 1)
    for name in missing:
        issue = field_issue(issues, where, name)
        assert "required" in issue.message and "missing" in issue.message
    data["prompts"][-1].pop("input_code", None)  # input_code stays optional
    data["prompts"][-1].update({"genericize": False, "sample_inputs_outputs": []})
    function_from_data(data, "p.json")


def test_every_shipped_and_example_problem_file_still_loads():
    files = [p for base in ("problems", "examples") for p in sorted((ROOT / base).rglob("*.json"))]
    loaded = 0
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if isinstance(data, dict) and "function_prototype" in data and "prompts" in data:
            load_problem(path)  # raises with the located issues if it does not load
            loaded += 1
    assert loaded >= 30


def test_zero_prompts_is_an_error():
    data = valid()
    data["prompts"] = []
    assert locations(issues_of(data)) == ["prompts"]


def test_check_and_expected_output_both_is_an_error():
    data = valid()
    data["correctness_test_suite"][1]["check"] = "output == (3, 0)"
    issues = issues_of(data)
    assert locations(issues) == ["correctness_test_suite[1]"]
    assert "not both" in issues[0].message


def test_check_and_expected_output_neither_is_an_error():
    data = valid()
    del data["correctness_test_suite"][2]["expected_output"]
    issues = issues_of(data)
    assert locations(issues) == ["correctness_test_suite[2]"]
    assert "expected_output" in issues[0].message


def test_check_must_be_an_expression():
    data = valid()
    data["correctness_test_suite"][2] = {"input": {"dividend": 1, "divisor": 1},
                                         "check": "x = = 1"}
    assert locations(issues_of(data)) == ["correctness_test_suite[2].check"]


def test_schema_errors():
    data = valid()
    del data["description"]
    data["identifier"] = 5
    issues = issues_of(data)
    missing = field_issue(issues, "", "description")
    assert "required field" in missing.message and "missing" in missing.message
    assert [i.location for i in issues if i is not missing] == ["identifier"]


def test_bad_names():
    data = valid()
    data["function_prototype"]["function_name"] = "class"
    data["function_prototype"]["parameters"][1]["name"] = "dividend"
    issues = issues_of(data)
    assert "function_prototype.function_name" in locations(issues)
    assert "function_prototype.parameters[1].name" in locations(issues)


def test_empty_optimal_solution_is_an_error():
    data = valid()
    data["optimal_solution"] = "   "
    assert locations(issues_of(data)) == ["optimal_solution"]


def test_no_return_values_against_tests_that_expect_values_is_an_error():
    data = valid()
    data["function_prototype"]["return_values"] = []  # allowed, but these tests expect two values
    issues = issues_of(data)
    assert "correctness_test_suite[0].expected_output" in locations(issues)
    assert "2 expected values for 0 declared return values" in issues[0].message


def test_negative_tolerance_is_an_error():
    data = valid()
    data["tolerance"] = {"rel": -1}
    assert locations(issues_of(data)) == ["tolerance.rel"]


def test_bare_list_type_does_not_crash_the_loader():
    data = valid()
    data["function_prototype"]["parameters"][0]["type"] = "List"
    for case in data["correctness_test_suite"]:
        case["input"]["dividend"] = [1, 2]
    for prompt in data["prompts"]:
        for case in prompt["sample_inputs_outputs"]:
            case["input"]["dividend"] = [1, 2]
    try:
        function_from_data(data, "bare.json")
    except InputError:
        pass  # a clear error is fine; a crash is not


# ---- suites --------------------------------------------------------------------------------------

def test_duplicate_identifiers_across_files_in_a_suite():
    folder = DATA / "dup_ids"
    with pytest.raises(InputError) as info:
        load_suite(folder)
    (issue,) = info.value.issues
    assert issue.file == str(folder / "b.json")
    assert issue.location == "identifier"
    assert "'shared_id'" in issue.message and str(folder / "a.json") in issue.message


def test_suite_collects_issues_from_every_file(tmp_path):
    write(tmp_path / "good.json", valid())
    bad = valid()
    bad["identifier"] = "other"
    bad["prompts"] = []
    write(tmp_path / "bad.json", bad)
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_suite(tmp_path)
    files = sorted(Path(i.file).name for i in info.value.issues)
    assert files == ["bad.json", "broken.json"]


def test_suite_of_one_file_and_hidden_files_are_skipped(tmp_path):
    write(tmp_path / "one.json", valid())
    hidden = tmp_path / ".cache"
    hidden.mkdir()
    (hidden / "junk.json").write_text("not json", encoding="utf-8")
    suite = load_suite(tmp_path)
    assert [p.identifier for p in suite.problems] == ["core_divmod"]
    assert suite.by_id["core_divmod"].function_name == "split_div"
    single = load_suite(tmp_path / "one.json")
    assert len(single) == 1 and single.name == "one"


def test_suite_errors_for_missing_or_empty_paths(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_suite(tmp_path / "missing")
    with pytest.raises(InputError, match="no problem files"):
        load_suite(tmp_path)


# ---- the shipped suites ------------------------------------------------------------------------

@pytest.fixture(scope="module", params=SHIPPED)
def shipped(request):
    return load_suite(ROOT / "problems" / request.param)


def test_shipped_suite_loads(shipped):
    assert len(shipped) >= 10


def test_shipped_problems_are_complete(shipped):
    for problem in shipped.problems:
        assert problem.optimal_solution and problem.optimal_solution.strip(), problem.identifier
        assert len(problem.tests) >= 5, problem.identifier
        assert len(problem.tests) == len(problem.correctness_test_suite), problem.identifier
        assert problem.prompts, problem.identifier
        for prompt in problem.prompts:
            assert prompt.sample_inputs_outputs, (problem.identifier, prompt.prompt_id)
        assert any(p.genericize for p in problem.prompts), problem.identifier
        compile(problem.optimal_solution, problem.source, "exec")


def test_shipped_identifiers_are_unique_across_suites():
    seen = {}
    for name in SHIPPED:
        for problem in load_suite(ROOT / "problems" / name).problems:
            assert problem.identifier not in seen, (problem.identifier, seen.get(problem.identifier))
            seen[problem.identifier] = problem.source
