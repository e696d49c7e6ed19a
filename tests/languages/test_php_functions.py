"""PHP function problems (issue 34, item 1): the seed format's typed problems judged from the
same definition, in the process sandbox (host php) and in Docker (the ``polyglot`` image),
through runners/php/harness.php.j2. Correct PHP solutions of shipped problems pass (ints,
strings, nested lists, int-keyed and string-keyed dicts, optionals, float tuples, sets);
values round-trip (NaN and infinities, unicode, nested tuples, numeric-string keys); wrong
answers, crashes (with the candidate's line), syntax errors, loops, sleeps, memory bombs and
floods get their verdicts; hostile candidates (a forged record on stdout or on fd 3, exit
before returning, a shutdown function forging a record, snooping) never pass by it. What PHP
cannot hold is refused: integers beyond 64 bits, dicts keyed by tuples."""

from __future__ import annotations


import pytest

from judge.kinds.loader import load_suite  # noqa: I001 (before execution: import order)
from judge.api import Judge
from judge.languages import get
from judge.languages.base import NotExpressible
from judge.problem.model import function_from_data
from judge.problem.types import parse_type, to_json
from judge.prompts.languages import render_language_prompt
from tests.languages.test_bigints import add_problem

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]

CORRECT = {
    "basics_pascal_row": (
        "<?php\nfunction pascal_row($row_index) {\n  $r = [1];\n"
        "  for ($k = 0; $k < $row_index; $k++) $r[] = intdiv(end($r) * ($row_index - $k), $k + 1);\n"
        "  return $r;\n}\n"),
    "basics_top_words": (
        "function top_words($passage, $top_count) {\n"
        "  preg_match_all('/[a-z]+/', strtolower($passage), $m);\n"
        "  $c = array_count_values($m[0]);\n  $w = array_map('strval', array_keys($c));\n"
        "  usort($w, fn($a, $b) => $c[$b] <=> $c[$a] ?: strcmp($a, $b));\n"
        "  return array_slice($w, 0, $top_count);\n}\n"),
    # a closure in a global variable
    "types_label_lookup": (
        "<?php\n$label_lookup = function ($label_map, $codes) {\n"
        "  return array_map(fn($c) => $label_map[$c] ?? null, $codes);\n};\n"),
    "types_invert_mapping": (
        "function invert_mapping(array $name_to_id): array {\n  $out = [];\n"
        "  foreach ($name_to_id as $k => $v) { $k = (string) $k;\n"
        "    if (!isset($out[$v]) || strcmp($k, $out[$v]) < 0) $out[$v] = $k; }\n"
        "  return $out;\n}\n"),
    "types_median": (
        "function median_or_none(array $values): ?float {\n"
        "  if (!$values) return null;\n  sort($values);\n  $m = intdiv(count($values), 2);\n"
        "  return count($values) % 2 ? $values[$m] : ($values[$m - 1] + $values[$m]) / 2;\n}\n"),
    "types_min_max_mean": (
        "function min_max_mean($values) {\n"
        "  return [min($values), max($values), array_sum($values) / count($values)];\n}\n"),
    "types_common_elements": (
        "function common_elements($first_nums, $second_nums) {\n"
        "  return array_values(array_unique(array_intersect($first_nums, $second_nums)));\n}\n"),
    # LeetCode's form: a method of class Solution
    "types_group_by_length": (
        "class Solution {\n  function group_by_length($word_list) {\n    $g = [];\n"
        "    foreach ($word_list as $w) $g[preg_match_all('/./us', $w)][] = $w;\n    return $g;\n  }\n}\n"),
}

ROW = "<?php\nfunction pascal_row($row_index) {\n%s\n}\n"
RIGHT = ("  $r = [1];\n  for ($k = 0; $k < $row_index; $k++) $r[] = intdiv(end($r) * ($row_index - $k), $k + 1);\n"
         "  return $r;")
CASES = {
    "wrong": (ROW % "  return [1, $row_index];", "wrong_answer", []),
    "crash": (ROW % "  $o = null;\n  return $o->value();", "runtime_error", ["Error", "line 4"]),
    "throw": (ROW % "  if ($row_index > 0) throw new RangeException('boom');\n  return [1];",
              "runtime_error", ["RangeException", "boom"]),
    "no_tag_crash": ("function pascal_row($row_index) {\n  throw new Exception('here');\n}\n",
                     "runtime_error", ["here", "line 2"]),
    "syntax": (ROW % "  $x = ;\n  return [$x];", "compile_error", ["line 3"]),
    "missing": ("<?php\nfunction helper($x) { return $x; }\nfunction pascal($n) { return [1]; }\n",
                "compile_error", ["not defined", "helper"]),
    "loop": (ROW % "  while (true) {}", "timeout", []),
    "sleep": (ROW % "  sleep(100);\n  return [1];", "timeout", []),
    "memory": (ROW % "  $a = [];\n  while (true) $a[] = array_fill(0, 100000, $row_index);",
               "memory_limit", []),
    "gigabyte": (ROW % "  $s = str_repeat('x', 1 << 30);\n  return [strlen($s)];", "memory_limit", []),
    "flood": (ROW % "  $s = str_repeat('flood ', 1000) . \"\\n\";\n  while (true) echo $s;",
              "output_limit", []),
    "forge_stdout": (ROW % "  echo '{\"status\":\"returned\",\"value\":[1]}';\n  return [0];",
                     "wrong_answer", []),
    # a record of its own on fd 3, then exit(): the harness's shutdown function adds its own
    # ("exit() called"), so the two spoil each other
    "forge_pipe": (ROW % "  $f = fopen('php://fd/3', 'w');\n  fwrite($f, '{\"status\":\"returned\",\"value\":[1]}');\n  exit(0);",
                   "runtime_error", ["not a result record"]),
    "junk_pipe": (ROW % ("  fwrite(fopen('php://fd/3', 'w'), '{\"ok\":true}');\n" + RIGHT),
                  "runtime_error", ["not a result record"]),
    "exit_early": (ROW % "  exit(0);", "runtime_error", ["exit"]),
    # a shutdown function that would spoil the record: never runs after the harness's own
    "shutdown_spoil": ("<?php\nregister_shutdown_function(function () { fwrite(fopen('php://fd/3', 'w'), 'garbage'); });\n"
                       "function pascal_row($row_index) {\n" + RIGHT + "\n}\n", "pass", []),
    "shutdown_forge": ("<?php\nregister_shutdown_function(function () { fwrite(fopen('php://fd/3', 'w'), '{\"status\":\"returned\",\"value\":[1, 1]}'); });\n"
                       + "function pascal_row($row_index) {\n  return [0];\n}\n", "wrong_answer", []),
    "snoop": ("<?php\nfunction pascal_row($row_index) {\n"
              "  foreach ([__DIR__, getcwd(), dirname($GLOBALS['argv'][1] ?? '.'), '/tmp'] as $d) {\n"
              "    foreach (@scandir($d) ?: [] as $f) { $j = @json_decode(@file_get_contents(\"$d/$f\"), true);\n"
              "      if (is_array($j) && isset($j['expected_output'])) return $j['expected_output'][0]; } }\n"
              "  return [0];\n}\n", "wrong_answer", []),
}

ROUND_TRIPS = {
    "int": [0, -1, 2 ** 62, -(2 ** 63)],
    "float": [0.5, -2.25, 1e300, 3.0, float("nan"), float("inf"), float("-inf")],
    "str": ["", "héllo 日本語 🌍", "q\"uote\\back\nnl\x00"],
    "Optional[int]": [None, 5],
    "List[Tuple[int, Tuple[str, float]]]": [[(1, ("a", 0.5)), (-7, ("é", -1.5))]],
    "Set[str]": [{"a", "b"}, set()],
    "Dict[str, List[int]]": [{"5": [1], "x": []}, {}],
    "Dict[int, str]": [{1: "a", -2: "b"}],
}
ECHO = "function echo_value($value) {\n  return $value;\n}\n"


def _echo_problem(type_text, values, identifier):
    return function_from_data({
        "identifier": identifier, "description": "echo",
        "prompts": [{"prompt_id": "p", "prompt": "Return the value.", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "echo_value",
                               "parameters": [{"name": "value", "type": type_text}],
                               "return_values": [{"type": type_text}]},
        "correctness_test_suite": [{"input": {"value": to_json(v)}, "expected_output": [to_json(v)]}
                                   for v in values]}, "<%s>" % identifier)


@pytest.fixture(scope="module", params=SANDBOXES)
def judged(request):
    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
        from judge.sandbox.backends.docker import build, image

        if image.image_ready("polyglot") is None:
            build.build_image("polyglot", progress=lambda message: None)
    suite = load_suite("problems")
    problems = {p.identifier: p for p in suite.problems}
    items = [(name, problems[name], code) for name, code in CORRECT.items()]
    items += [(name, problems["basics_pascal_row"], code) for name, (code, _, _) in CASES.items()]
    for index, (type_text, values) in enumerate(ROUND_TRIPS.items()):
        items.append(("echo " + type_text, _echo_problem(type_text, values, "echo%d" % index),
                      ECHO))
    with Judge(request.param, jobs=2, reference_timing=False) as judge:  # both workers busy
        results = dict(zip([name for name, _, _ in items], judge.judge_many(
            [(problem, code, {"language": "php"}) for _, problem, code in items])))
    return request.param, results


def _why(result):
    return result.message, [(t.verdict.value, t.message) for t in result.tests][:3]


@pytest.mark.parametrize("problem", sorted(CORRECT))
def test_correct_solutions_pass(judged, problem):
    sandbox, results = judged
    result = results[problem]
    assert result.verdict.value == "pass", (sandbox, problem, _why(result))
    assert result.language == "php"


@pytest.mark.parametrize("type_text", sorted(ROUND_TRIPS))
def test_values_round_trip(judged, type_text):
    sandbox, results = judged
    result = results["echo " + type_text]
    assert result.verdict.value == "pass", (sandbox, type_text, _why(result))
    assert len(result.tests) == len(ROUND_TRIPS[type_text])


@pytest.mark.parametrize("case", sorted(CASES))
def test_verdicts(judged, case):
    sandbox, results = judged
    _, verdict, words = CASES[case]
    result = results[case]
    assert result.verdict.value == verdict, (sandbox, case, _why(result))
    for word in words:
        assert word in (result.message or ""), (sandbox, case, result.message)


def test_prompt_shows_the_php_signature():
    suite = load_suite("problems")
    problem = {p.identifier: p for p in suite.problems}["types_label_lookup"]
    body = render_language_prompt(problem, problem.prompts[0], "php").prompt
    assert "function label_lookup($label_map, $codes)" in body, body
    assert "```php" in body


def test_types_literals_and_refusals():
    php = get("php")
    assert php.type_name(parse_type("Optional[List[Tuple[int, str]]]")) == \
        "array<array{int, string}>|null"
    assert php.type_name(parse_type("Dict[str, Set[float]]")) == "array<string, float[]>"
    assert php.literal({"a'b": [1.5]}, parse_type("Dict[str, List[float]]")) == "['a\\'b' => [1.5]]"
    assert php.literal(float("nan"), parse_type("float")) == "NAN"
    assert php.stub("two_sum", ["nums"], [parse_type("List[int]")], [parse_type("int")],
                    "Sum.") == "/**\n * Sum.\n * @param int[] $nums\n * @return int\n */\nfunction two_sum($nums) {\n"
    with pytest.raises(NotExpressible, match="PHP array keys are ints and strings"):
        php.type_name(parse_type("Dict[Tuple[int, int], str]"))
    with pytest.raises(NotExpressible, match="beyond PHP's integers"):
        php.for_problem(add_problem())
