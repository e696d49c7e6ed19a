"""Ruby function problems (issue 34, item 1): the seed format's typed problems judged from the
same definition as Python's and JavaScript's, in the process sandbox (host ruby) and in Docker
(the ``polyglot`` image), through runners/ruby/harness.rb.j2. Correct Ruby solutions of
shipped problems of many types pass (ints, strings, nested lists, int-keyed and string-keyed
dicts, optionals, float tuples, sets, Any); values round-trip exactly (ints past 64 bits and
past the wire's hex threshold, NaN and infinities, unicode, nested tuples, sets and dicts
keyed by tuples) and arrive as the Ruby classes the docs name; wrong answers, crashes (with
the candidate's line), syntax errors (compile_error with the line), loops, sleeps, memory
bombs, a fork bomb and floods get their verdicts; hostile candidates (a forged record on
stdout or on fd 3, ``exit``/``exit!`` before returning, an ``at_exit`` forging a record,
JSON.generate, Kernel#exit, IO#write, $stdout and core methods replaced, snooping for the
expected values) never pass by it. Prompts show ``def name(args)`` with YARD types."""

from __future__ import annotations

import math

import pytest

from judge.kinds.loader import load_suite  # noqa: I001 (before execution: import order)
from judge.api import Judge
from judge.languages import get
from judge.problem.model import function_from_data
from judge.problem.types import parse_type
from judge.prompts.languages import render_language_prompt
from tests.languages.test_bigints import add_problem

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]

#: correct Ruby solutions of shipped problems, by problem id
CORRECT = {
    "basics_pascal_row": (
        "def pascal_row(row_index)\n"
        "  r = [1]\n"
        "  row_index.times { |k| r << r[-1] * (row_index - k) / (k + 1) }\n"
        "  r\nend\n"),
    "basics_top_words": (
        "def top_words(passage, top_count)\n"
        "  counts = Hash.new(0)\n"
        "  passage.downcase.scan(/[a-z]+/) { |w| counts[w] += 1 }\n"
        "  counts.sort_by { |w, c| [-c, w] }.first(top_count).map(&:first)\nend\n"),
    # a lambda in a constant
    "basics_merge_intervals": (
        "MERGE_INTERVALS = lambda do |intervals|\n"
        "  out = []\n"
        "  intervals.sort_by(&:first).each do |a, b|\n"
        "    if !out.empty? && a <= out[-1][1] then out[-1][1] = [out[-1][1], b].max\n"
        "    else out << [a, b] end\n"
        "  end\n"
        "  out\nend\n"),
    # a lambda in a global
    "types_label_lookup": (
        "$label_lookup = ->(label_map, codes) { codes.map { |c| label_map[c] } }\n"),
    "types_invert_mapping": (
        "def invert_mapping(name_to_id)\n"
        "  out = {}\n"
        "  name_to_id.each { |k, v| out[v] = k if !out.key?(v) || k < out[v] }\n"
        "  out\nend\n"),
    "types_median": (
        "def median_or_none(values)\n"
        "  return nil if values.empty?\n"
        "  s = values.sort\n"
        "  m = s.size / 2\n"
        "  s.size.odd? ? s[m] : (s[m - 1] + s[m]) / 2.0\nend\n"),
    "types_min_max_mean": (
        "def min_max_mean(values)\n"
        "  [values.min, values.max, values.sum / values.size]\nend\n"),
    "types_common_elements": (
        "require 'set'\n\n"
        "def common_elements(first_nums, second_nums)\n"
        "  first_nums.to_set & second_nums.to_set\nend\n"),
    "types_group_by_length": (
        "def group_by_length(word_list)\n  word_list.group_by(&:length)\nend\n"),
    "types_bounding_box": (
        "def bounding_box(points)\n"
        "  return nil if points.empty?\n"
        "  xs = points.map(&:first)\n  ys = points.map(&:last)\n"
        "  [xs.min, ys.min, xs.max, ys.max]\nend\n"),
    "types_flatten_settings": (
        "def flatten_settings(settings_tree, prefix = '', flat = {})\n"
        "  settings_tree.each do |key, value|\n"
        "    if value.is_a?(Hash) && !value.empty? then flatten_settings(value, prefix + key + '.', flat)\n"
        "    else flat[prefix + key] = value end\n"
        "  end\n"
        "  flat\nend\n"),
    "types_trunc_divmod": (
        "def trunc_divmod(dividend, divisor)\n"
        "  q = dividend.abs / divisor.abs\n"
        "  q = -q if (dividend < 0) != (divisor < 0)\n"
        "  [q, dividend - q * divisor]\nend\n"),
    # LeetCode's form: a method of class Solution
    "types_word_positions": (
        "class Solution\n"
        "  def word_positions(input_text)\n"
        "    out = {}\n"
        "    input_text.split.each_with_index { |w, i| (out[w.downcase] ||= []) << i }\n"
        "    out\n  end\nend\n"),
}

ROW = "def pascal_row(row_index)\n%s\nend\n"
RIGHT = ("  r = [1]\n  row_index.times { |k| r << r[-1] * (row_index - k) / (k + 1) }\n  r")
#: candidates for basics_pascal_row: (code, verdict, words the message holds)
CASES = {
    "wrong": (ROW % "  [1, row_index]", "wrong_answer", []),
    "crash": ("X = 1\n\ndef pascal_row(row_index)\n  o = nil\n  o.value\nend\n",
              "runtime_error", ["NoMethodError", "line 5"]),
    "raise": (ROW % "  raise RangeError, 'boom' if row_index > 0\n  [1]",
              "runtime_error", ["RangeError", "boom"]),
    "deep": ("def pascal_row(row_index)\n  pascal_row(row_index + 1)\nend\n",
             "runtime_error", ["SystemStackError"]),
    "syntax": (ROW % "  x = (1 +\n  [x", "compile_error", ["syntax error", "line 4"]),
    "missing": ("def helper(x)\n  x\nend\n\ndef pascal(row_index)\n  [helper(1)]\nend\n",
                "compile_error", ["not defined", "helper", "pascal"]),
    "load_error": ("raise 'at load'\n" + ROW % RIGHT, "runtime_error", ["at load"]),
    "loop": (ROW % "  loop {}", "timeout", []),
    "sleep": (ROW % "  sleep 100\n  [1]", "timeout", []),
    "memory": (ROW % "  a = []\n  loop { a << Array.new(100_000, row_index) }",
               "memory_limit", []),
    "gigabyte": (ROW % "  s = 'x' * (1 << 30)\n  [s.size]", "memory_limit", []),
    # stopped at the process limit, its children spinning: out of time, or out of memory
    # where the children's memory counts together (Docker's container)
    "fork_bomb": (ROW % "  loop { fork { loop {} } rescue nil }", ("timeout", "memory_limit"),
                  []),
    "flood": (ROW % "  s = 'flood ' * 1000 + \"\\n\"\n  loop { $stdout.write(s) }",
              "output_limit", []),
    # a record printed on stdout is output, not a result
    "forge_stdout": (ROW % "  puts '{\"status\":\"returned\",\"value\":[1]}'\n  [0]",
                     "wrong_answer", []),
    # a result record of its own on the result descriptor, then an exit that skips the harness
    "forge_pipe": (ROW % "  IO.new(3).syswrite('{\"status\":\"returned\",\"value\":[1]}')\n  exit!(0)",
                   "wrong_answer", []),
    # junk on fd 3, then the right value: the record is spoiled, never a pass
    "junk_pipe": (ROW % ("  IO.new(3).syswrite('{\"ok\":true}')\n" + RIGHT), "runtime_error",
                  ["not a result record"]),
    # the same through a buffered IO of its own, flushed (and closed when collected)
    "junk_pipe_buffered": (ROW % ("  io = IO.new(3)\n  io.write('{\"ok\":true}')\n  io.flush\n"
                                  + RIGHT), "runtime_error", []),
    # a record claiming the judge failed: the candidate's error, never the judge's
    "forge_setup": (ROW % "  IO.for_fd(3).syswrite('{\"status\":\"setup_error\",\"message\":\"the judge broke\"}')\n"
                          "  exit!(0)", "runtime_error", []),
    "exit_early": (ROW % "  exit 0", "runtime_error", ["SystemExit"]),
    "exit_bang": (ROW % "  exit!(0)", "runtime_error", []),
    "exit_at_load": ("exit 0\n" + ROW % RIGHT, "runtime_error", ["SystemExit"]),
    # an at_exit handler that would spoil the record: it never runs (the harness leaves by
    # Process.exit!), so the right value passes
    "at_exit_spoil": ("at_exit { IO.for_fd(3).write('garbage') }\n" + ROW % RIGHT, "pass", []),
    # an at_exit handler forging a right record after a wrong value: never runs
    "at_exit_forge": ("at_exit { IO.for_fd(3).write('{\"status\":\"returned\",\"value\":[1, 1]}') }\n"
                      + ROW % "  [0]", "wrong_answer", []),
    # JSON.generate, Kernel#exit, IO#write/syswrite, $stdout, Integer#to_s, Array#each,
    # String#<< and #to_json replaced at load: the harness writes the right value as it is
    "override_load": (
        "require 'json'\nrequire 'stringio'\n"
        "module JSON\n  def self.generate(*) = '{\"status\":\"returned\",\"value\":[9]}'\nend\n"
        "module Kernel\n  def exit(*) = nil\nend\n"
        "class IO\n  def write(*) = 0\n  def syswrite(*) = 0\nend\n"
        "$stdout = StringIO.new\n"
        "class String\n  def to_json(*) = '\"x\"'\nend\n" + ROW % RIGHT, "pass", []),
    "override_call": (ROW % (
        "  r = [1]\n  row_index.times { |k| r << r[-1] * (row_index - k) / (k + 1) }\n"
        "  Integer.class_eval { def to_s(*) = '9' }\n"
        "  Array.class_eval { def each(*) = self }\n"
        "  String.class_eval { def <<(*) = self }\n"
        "  Float.class_eval { def to_s(*) = '9.0' }\n"
        "  r"), "pass", []),
    # the same replacements with a wrong value: still the wrong value
    "override_wrong": (
        "module JSON\n  def self.generate(*) = '{\"status\":\"returned\",\"value\":[1]}'\nend\n"
        "class IO\n  def write(*) = 0\nend\n" + ROW % "  Integer.class_eval { def to_s(*) = '1' }\n  [7]",
        "wrong_answer", []),
    "override_throw": ("module JSON\n  def self.generate(*) = '{\"status\":\"returned\",\"value\":[1]}'\nend\n"
                       + ROW % "  raise 'after override'", "runtime_error", ["after override"]),
    # every file it can reach near itself, searched for the tests' expected values
    "snoop": (
        "require 'json'\n"
        "def pascal_row(row_index)\n"
        "  seen = []\n"
        "  [__dir__, Dir.pwd, File.dirname(ARGV[0] || '.'), '/tmp', '..'].each do |dir|\n"
        "    (Dir.children(dir) rescue []).each { |f| seen << (File.read(File.join(dir, f)) rescue '') }\n"
        "  end\n"
        "  seen.each do |t|\n"
        "    v = (JSON.parse(t)['expected_output'] rescue nil)\n"
        "    return v[0] if v\n"
        "  end\n"
        "  [0]\nend\n", "wrong_answer", []),
}

#: one problem per type, each test's value given and expected back unchanged
ROUND_TRIPS = {
    "int": [0, -1, 2 ** 63, -(2 ** 64) - 1, 3 ** 300, -(7 ** 1200)],
    "float": [0.5, -2.25, 1e300, -1e-300, 3.0],
    "str": ["", "héllo wörld", "日本語 🌍🎉", "q\"uote\\back\nnl\ttab\x00\x1f", "#{x} #@y #$z"],
    "Optional[int]": [None, 5],
    "List[Tuple[int, Tuple[str, float]]]": [[[1, ["a", 0.5]], [-(2 ** 70), ["é", -1.5]]]],
    "Set[Tuple[int, int]]": [{(1, 2), (3, 4)}, set()],
    "Dict[Tuple[int, int], Set[str]]": [{(0, 1): {"a", "b"}, (2, 3): set()}],
    "Dict[int, List[float]]": [{1: [1.5], -2: []}],
    "Tuple[bool, None, str]": [(True, None, "x")],
    "Any": [[1, "a", 2.5, None, {"k": [1, 2]}, True], {"nested": {"deep": [[]]}}],
}
#: non-finite floats: NaN and the infinities arrive as Float::NAN and Float::INFINITY
SPECIAL_FLOATS = [float("nan"), float("inf"), float("-inf")]


def _echo_problem(type_text, values, identifier):
    return function_from_data({
        "identifier": identifier, "description": "echo",
        "prompts": [{"prompt_id": "p", "prompt": "Return the value.", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "echo_value",
                               "parameters": [{"name": "value", "type": type_text}],
                               "return_values": [{"type": type_text}]},
        "correctness_test_suite": [{"input": {"value": _json(v)}, "expected_output": [_json(v)]}
                                   for v in values]}, "<%s>" % identifier)


def _json(value):
    """A value as a problem file writes it (tuples and sets as lists, dicts with non-string
    keys as [key, value] pairs)."""
    from judge.problem.types import to_json

    return to_json(value)


def _classes_problem():
    """Which Ruby class each argument arrives as (a float given as 3 arrives as 3.0)."""
    params = [("a", "int"), ("f", "float"), ("s", "Set[int]"), ("t", "Tuple[int, str]"),
              ("d", "Dict[Tuple[int, int], str]"), ("o", "Optional[int]"), ("l", "List[int]"),
              ("b", "bool")]
    inputs = {"a": 2 ** 80, "f": 3, "s": [1, 2], "t": [1, "x"], "d": [[[1, 2], "v"]], "o": None,
              "l": [1], "b": False}
    return function_from_data({
        "identifier": "ruby_classes", "description": "classes",
        "prompts": [{"prompt_id": "p", "prompt": "Name the classes.", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "classes",
                               "parameters": [{"name": n, "type": t} for n, t in params],
                               "return_values": [{"type": "str"}]},
        "correctness_test_suite": [{"input": inputs, "expected_output": [
            "Integer Float Set Array Hash NilClass Array FalseClass 3.0 v 1.5"]}]},
        "<ruby_classes>")


CLASSES = ("def classes(a, f, s, t, d, o, l, b)\n"
           "  [a, f, s, t, d, o, l, b].map { |x| x.class.name }.join(' ') +\n"
           "    \" #{f} #{d[[1, 2]]} #{f / 2}\"\nend\n")
ECHO = "def echo_value(value)\n  value\nend\n"
#: Ruby values no problem type carries: the candidate's error, said so
UNENCODABLE = ("def echo_value(value)\n  :a_symbol\nend\n")


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
    items.append(("big_add", add_problem(), "def add(a, b)\n  a + b\nend\n"))
    items.append(("classes", _classes_problem(), CLASSES))
    for index, (type_text, values) in enumerate(ROUND_TRIPS.items()):
        items.append(("echo " + type_text, _echo_problem(type_text, values, "echo%d" % index),
                      ECHO))
    items.append(("echo special floats",
                  _echo_problem("float", SPECIAL_FLOATS, "echo_special"), ECHO))
    items.append(("unencodable", _echo_problem("str", ["a"], "echo_symbol"), UNENCODABLE))
    with Judge(request.param, jobs=2, reference_timing=False) as judge:  # both workers busy
        results = dict(zip([name for name, _, _ in items], judge.judge_many(
            [(problem, code, {"language": "ruby"}) for _, problem, code in items])))
    return request.param, results


def _why(result):
    return result.message, [(t.verdict.value, t.message) for t in result.tests][:3]


@pytest.mark.parametrize("problem", sorted(CORRECT))
def test_correct_solutions_pass(judged, problem):
    sandbox, results = judged
    result = results[problem]
    assert result.verdict.value == "pass", (sandbox, problem, _why(result))
    assert result.language == "ruby"
    assert result.sandbox == sandbox


def test_integers_beyond_64_bits_are_exact(judged):
    sandbox, results = judged
    assert results["big_add"].verdict.value == "pass", _why(results["big_add"])


@pytest.mark.parametrize("type_text", sorted(ROUND_TRIPS))
def test_values_round_trip(judged, type_text):
    sandbox, results = judged
    result = results["echo " + type_text]
    assert result.verdict.value == "pass", (sandbox, type_text, _why(result))
    assert len(result.tests) == len(ROUND_TRIPS[type_text])


def test_nan_and_infinities_round_trip(judged):
    sandbox, results = judged
    result = results["echo special floats"]
    assert result.verdict.value == "pass", (sandbox, _why(result))
    assert len(result.tests) == 3


def test_arguments_arrive_as_ruby_classes(judged):
    sandbox, results = judged
    assert results["classes"].verdict.value == "pass", (sandbox, _why(results["classes"]))


def test_a_value_no_type_carries_is_said(judged):
    sandbox, results = judged
    result = results["unencodable"]
    assert result.verdict.value == "wrong_answer", (sandbox, _why(result))
    assert "Symbol" in result.message, result.message


@pytest.mark.parametrize("case", sorted(CASES))
def test_verdicts(judged, case):
    sandbox, results = judged
    _, verdict, words = CASES[case]
    result = results[case]
    verdicts = verdict if isinstance(verdict, tuple) else (verdict,)
    assert result.verdict.value in verdicts, (sandbox, case, _why(result))
    for word in words:
        assert word in (result.message or ""), (sandbox, case, result.message)


def test_prompt_shows_the_ruby_signature():
    suite = load_suite("problems")
    problems = {p.identifier: p for p in suite.problems}
    for name, expected in [
            ("basics_pascal_row", ["# @param row_index [Integer]\n# @return [Array<Integer>]\n"
                                   "def pascal_row(row_index)"]),
            ("types_label_lookup", ["# @param label_map [Hash{Integer => String}]\n"
                                    "# @param codes [Array<Integer>]\n"
                                    "# @return [Array<String, nil>]\n"
                                    "def label_lookup(label_map, codes)"]),
            ("types_min_max_mean", ["# @return [Array(Float, Float, Float)]\n"
                                    "def min_max_mean(values)"]),
            ("types_common_elements", ["# @return [Set<Integer>]"])]:
        problem = problems[name]
        body = render_language_prompt(problem, problem.prompts[0], "ruby").prompt
        for text in expected:
            assert text in body, (name, body)
        assert "```ruby" in body


def test_stub_has_yard_types():
    rb = get("ruby")
    stub = rb.stub("two_sum", ["nums", "target"], [parse_type("List[int]"), parse_type("int")],
                   [parse_type("Tuple[int, int]")], "Find the pair.\nReturn indices.")
    assert stub == ("# Find the pair.\n# Return indices.\n#\n"
                    "# @param nums [Array<Integer>]\n# @param target [Integer]\n"
                    "# @return [Array(Integer, Integer)]\ndef two_sum(nums, target)\n")


def test_types_literals_and_names():
    rb = get("ruby")
    assert rb.type_name(parse_type("Optional[List[Tuple[int, str]]]")) == \
        "Array<Array(Integer, String)>, nil"
    assert rb.type_name(parse_type("Dict[str, Set[float]]")) == "Hash{String => Set<Float>}"
    assert rb.type_name(parse_type("Union[int, str]")) == "Integer, String"
    assert rb.literal({(1, 2): {"a"}}, parse_type("Dict[Tuple[int, int], Set[str]]")) == \
        '{[1, 2] => Set["a"]}'
    assert rb.literal("#{x}", parse_type("str")) == '"\\#{x}"'
    assert rb.literal(float("nan"), parse_type("float")) == "Float::NAN"
    assert rb.literal(-math.inf, parse_type("float")) == "-Float::INFINITY"
    assert rb.literal(None, parse_type("Optional[int]")) == "nil"
    assert rb.literal(2 ** 70, parse_type("int")) == str(2 ** 70)
    assert rb.conventional_name("pascalRow") == "pascal_row"
    assert rb.conventional_name("pascal_row") == "pascal_row"
    for code in ("def pascal_row(n)\nend", "PASCAL_ROW = ->(n) { n }", "PascalRow = lambda { |n| n }",
                 "$pascal_row = proc { |n| n }", "class Solution\n  def pascal_row(n)\n  end\nend"):
        assert rb.defines(code, "pascal_row"), code
    assert not rb.defines("def pascal_row?(n)\nend", "pascal_row")
