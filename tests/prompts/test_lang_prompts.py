"""Type mapping, prompts and name conventions per language, from the shipped problem
definitions (no toolchain needed here: this is the judge's side)."""

from __future__ import annotations

import json

import pytest

from judge.kinds.loader import load_suite  # noqa: I001 (before execution: import order)
from judge.cli.main import main
from judge.languages import NATIVE, get, normalize
from judge.languages.base import NotExpressible
from judge.problem.types import parse_type

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

TYPES = {
    "cpp": {"int": "long long", "List[Dict[str, Tuple[int, float]]]":
            "std::vector<std::map<std::string, std::tuple<long long, double>>>",
            "Optional[Set[str]]": "std::optional<std::set<std::string>>"},
    "js": {"int": "number", "List[Dict[str, Tuple[int, float]]]":
           "Array<Object<string, [number, number]>>", "Dict[int, str]": "Map<number, string>",
           "Optional[Set[str]]": "Set<string>|null"},
    "go": {"int": "int", "List[Dict[str, List[float]]]": "[]map[string][]float64",
           "Set[str]": "map[string]bool", "Optional[int]": "*int"},
    "rust": {"int": "i64", "List[Dict[str, Tuple[int, float]]]":
             "Vec<HashMap<String, (i64, f64)>>", "Optional[Set[str]]": "Option<HashSet<String>>"},
    "java": {"int": "long", "List[Dict[str, Tuple[int, int]]]": "List<Map<String, List<Long>>>",
             "Optional[Set[str]]": "Optional<Set<String>>"},
}


@pytest.mark.parametrize("language", NATIVE)
def test_type_mapping(language):
    lang = get(language)
    for text, expected in TYPES[language].items():
        assert lang.type_name(parse_type(text)) == expected


ANY_LISTS = {"js": "Array<*>", "cpp": "std::vector<std::any>", "go": "[]interface{}",
             "rust": "Vec<Box<dyn Any>>", "java": "List<Object>"}


@pytest.mark.parametrize("language", NATIVE)
def test_any_is_each_languages_dynamic_type(language):
    """Any and mixed lists are a tagged value every language carries (issue 23 item 10)."""
    assert get(language).type_name(parse_type("List[Any]")) == ANY_LISTS[language]


def test_mixed_tuples_inside_go_values_are_not_expressible():
    with pytest.raises(NotExpressible):
        get("go").type_name(parse_type("List[Tuple[str, float]]"))
    # as a result, a tuple is Go's several return values
    assert get("go").return_type_name([parse_type("Tuple[int, str]")]) == "(int, string)"


def test_names_follow_each_languages_case():
    assert get("js").function_names("has_close_elements") == ["has_close_elements",
                                                               "hasCloseElements"]
    assert get("java").conventional_name("has_close_elements") == "hasCloseElements"
    assert get("go").function_names("has_close_elements") == [
        "has_close_elements", "HasCloseElements", "hasCloseElements"]
    assert get("rust").conventional_name("has_close_elements") == "has_close_elements"
    assert normalize("JavaScript") == "js" and normalize("c++") == "cpp"
    with pytest.raises(ValueError):
        normalize("cobol")


def test_function_detection_the_way_people_write_it():
    js = get("js")
    assert js.find_function("const hasCloseElements = (numbers, t) => {}", ["has_close_elements"]) \
        == "hasCloseElements"
    assert js.find_function("function has_close_elements(a) {}", ["has_close_elements"]) \
        == "has_close_elements"
    assert get("go").find_function("package main\nfunc HasCloseElements(n []float64) bool {}",
                                   ["has_close_elements"]) == "HasCloseElements"
    assert get("java").find_function("class Solution { public boolean hasCloseElements("
                                     "List<Double> n) {} }", ["has_close_elements"]) \
        == "hasCloseElements"
    assert get("cpp").find_function("bool has_close_elements(vector<float> n){}",
                                    ["has_close_elements"]) == "has_close_elements"
    assert get("rust").find_function("fn has_close_elements(n: Vec<f32>) -> bool {}",
                                     ["has_close_elements"]) == "has_close_elements"


@pytest.mark.parametrize("language", NATIVE)
def test_prompts_per_language_and_genericized(language, capsys):
    assert main(["prompts", "problems/types/types_min_max_mean.json", "--language", language,
                 "--genericize"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and all(r["genericized"] for r in rows)
    lang = get(language)
    for row in rows:
        text = row["prompt"]
        assert "```%s" % lang.fence_tags[0] in text
        assert "min_max_mean" not in text and "values" not in text.split("signature")[1]
        assert row["function_name"] in ("func", "Func")
    signature = {"cpp": "std::tuple<double, double, double> func(const std::vector<double>& arg1)",
                 "js": "function func(arg1)", "go": "func Func(arg1 []float64) (float64, float64, float64)",
                 "rust": "fn func(arg1: Vec<f64>) -> (f64, f64, f64)",
                 "java": "public static List<Double> func(List<Double> arg1)"}[language]
    assert signature in rows[0]["prompt"]


@pytest.mark.parametrize("language", NATIVE)
def test_samples_in_the_languages_syntax(language, capsys):
    assert main(["prompts", "problems/basics/basics_merge_intervals.json", "--language",
                 language, "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    expected = {"cpp": "merge_intervals({{1, 3}, {2, 6}, {8, 10}, {15, 18}})",
                "js": "mergeIntervals([[1, 3], [2, 6], [8, 10], [15, 18]])",
                "go": "MergeIntervals([][]int{[]int{1, 3}, []int{2, 6}, []int{8, 10}, []int{15, 18}})",
                "rust": "merge_intervals(vec![vec![1, 3], vec![2, 6], vec![8, 10], vec![15, 18]])",
                "java": "Solution.mergeIntervals(List.of(List.of(1L, 3L), List.of(2L, 6L)"}[language]
    assert expected in text


def test_not_expressible_is_reported_once_per_problem(capsys):
    assert main(["prompts", "problems/types", "--language", "go"]) == 0
    err = capsys.readouterr().err
    assert err.count("types_flatten_settings: not expressible in go") == 1
    assert err.count("types_average_by_key: not expressible in go") == 1


def test_humaneval_style_stub_carries_the_docstring():
    from judge.prompts.languages import render_language_prompt

    suite = load_suite("problems/basics/basics_merge_intervals.json")
    problem = suite.problems[0]
    prompt = problem.prompts[0].model_copy(update={"input_code": (
        "def merge_intervals(intervals):\n    \"\"\"Merge the overlapping intervals.\"\"\"\n")})
    rendered = render_language_prompt(problem, prompt, "rust")
    assert "/// Merge the overlapping intervals." in rendered.prompt
    assert "fn merge_intervals(intervals: Vec<Vec<i64>>) -> Vec<Vec<i64>> {" in rendered.prompt
