"""TypeScript function problems (issue 34, item 1): the seed format's typed problems judged
from the same definition as JavaScript's, in the process sandbox (host node + tsc) and in
Docker (the ``polyglot`` image). Correct TS solutions of shipped problems of different types
pass (ints, strings, nested lists, int-keyed and string-keyed dicts, optionals, float tuples,
integers beyond 2**53); wrong answers, crashes (with the candidate's .ts line), syntax errors
(compile_error with the line), loops, sleeps, memory bombs and floods get their verdicts;
hostile candidates (a forged record on stdout or on the result descriptor, snooping for
expected values, exiting early, replacing JSON.stringify and console.log) never pass. Type
errors are not checked (transpile only, as tsx and SandboxFusion run TypeScript): the values
decide. Prompts show the TS signature; what TypeScript cannot carry is refused with its type."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from judge.kinds.loader import load_suite  # noqa: I001 (before execution: import order)
from judge.api import Judge
from judge.languages import get
from judge.languages.base import NotExpressible
from judge.problem.model import function_from_data
from judge.problem.types import parse_type
from judge.prompts.languages import render_language_prompt
from tests.languages.test_bigints import add_problem

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]

#: correct TypeScript solutions of shipped problems, by problem id
CORRECT = {
    "basics_pascal_row": (
        "function pascalRow(rowIndex: number): number[] {\n"
        "  const r: number[] = [1];\n"
        "  for (let k = 0; k < rowIndex; k++) r.push(r[r.length - 1] * (rowIndex - k) / (k + 1));\n"
        "  return r;\n}\n"),
    "basics_top_words": (
        "function topWords(passage: string, topCount: number): string[] {\n"
        "  const counts = new Map<string, number>();\n"
        "  for (const w of passage.toLowerCase().match(/[a-z]+/g) ?? [])\n"
        "    counts.set(w, (counts.get(w) ?? 0) + 1);\n"
        "  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))\n"
        "    .slice(0, topCount).map(([w]) => w);\n}\n"),
    "basics_merge_intervals": (
        "export function mergeIntervals(intervals: number[][]): number[][] {\n"
        "  const s = [...intervals].sort((a, b) => a[0] - b[0]);\n"
        "  const out: number[][] = [];\n"
        "  for (const [a, b] of s) {\n"
        "    if (out.length && a <= out[out.length - 1][1]) out[out.length - 1][1] = Math.max(out[out.length - 1][1], b);\n"
        "    else out.push([a, b]);\n  }\n  return out;\n}\n"),
    "types_label_lookup": (
        "const labelLookup = (labelMap: Map<number, string>, codes: number[]): (string | null)[] =>\n"
        "  codes.map((c) => labelMap.has(c) ? labelMap.get(c)! : null);\n"),
    "types_invert_mapping": (
        "function invertMapping(nameToId: Record<string, number>): Map<number, string> {\n"
        "  const out = new Map<number, string>();\n"
        "  for (const [k, v] of Object.entries(nameToId))\n"
        "    if (!out.has(v) || k < out.get(v)!) out.set(v, k);\n"
        "  return out;\n}\n"),
    "types_median": (
        "type F = number;\n\ninterface Unused { a: F }\n\n"
        "function medianOrNone(values: F[]): F | null {\n"
        "  if (values.length === 0) return null;\n"
        "  const s = [...values].sort((a, b) => a - b);\n"
        "  const m = s.length >> 1;\n"
        "  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;\n}\n"),
    "types_min_max_mean": (
        "function minMaxMean(values: number[]): [number, number, number] {\n"
        "  return [Math.min(...values), Math.max(...values),\n"
        "          values.reduce((a, b) => a + b, 0) / values.length];\n}\n"),
}

ROW = "function pascalRow(rowIndex: number): number[] {\n%s\n}\n"
#: candidates for basics_pascal_row: (code, verdict, words the message holds)
CASES = {
    "wrong": (ROW % "  return [1, rowIndex];", "wrong_answer", []),
    "crash": ("interface Q { a: number }\ntype P = number;\n\n"
              "function pascalRow(rowIndex: P): number[] {\n  const o: any = null;\n"
              "  return o.value;\n}\n", "runtime_error", ["TypeError", "line 6"]),
    "throw": (ROW % "  if (rowIndex > 0) throw new RangeError('boom');\n  return [1];",
              "runtime_error", ["RangeError", "boom"]),
    "syntax": (ROW % "  const x: number = ;\n  return [x];", "compile_error", ["TS1109", "(line 2)"]),
    "loop": (ROW % "  while (true) {}", "timeout", []),
    "sleep": (ROW % "  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100000);\n"
                    "  return [1];", "timeout", []),
    "memory": (ROW % "  const a: number[][] = [];\n"
                     "  while (true) a.push(new Array(100000).fill(rowIndex));", "memory_limit", []),
    "flood": (ROW % "  const s = 'flood '.repeat(1000) + '\\n';\n"
                    "  while (true) process.stdout.write(s);", "output_limit", []),
    # a record printed on stdout is output, not a result
    "forge_stdout": (ROW % "  console.log(JSON.stringify({status: 'returned', value: [1]}));\n"
                           "  return [0];", "wrong_answer", []),
    # a result record of its own on the result descriptor, then an early exit
    "forge_pipe": (ROW % "  require('fs').writeSync(3, JSON.stringify({status: 'returned', value: [1]}));\n"
                         "  process.exit(0);", "wrong_answer", []),
    # a record claiming the judge failed: the candidate's error, never the judge's
    "forge_setup": (ROW % "  require('fs').writeSync(3, '{\"status\":\"setup_error\",\"message\":\"the judge broke\"}');\n"
                          "  process.exit(0);", "runtime_error", []),
    "exit_early": (ROW % "  process.exit(0);", "runtime_error", []),
    # JSON.stringify, console.log, Buffer.from and Object.prototype.toJSON replaced before
    # returning a wrong value
    "override": (ROW % "  const fake = () => '{\"status\":\"returned\",\"value\":[1]}';\n"
                       "  (JSON as any).stringify = fake;\n  console.log = () => {};\n"
                       "  (Buffer as any).from = (s: string) => Buffer.alloc(0);\n"
                       "  (Object.prototype as any).toJSON = () => ({status: 'returned', value: [1]});\n"
                       "  return [7];", "wrong_answer", []),
    # JSON.stringify and Object.prototype.toJSON replaced, then a throw: the error record is
    # still the candidate's error
    "override_throw": (ROW % "  (JSON as any).stringify = () => '{\"status\":\"returned\",\"value\":[1]}';\n"
                             "  (Object.prototype as any).toJSON = () => ({status: 'returned', value: [1]});\n"
                             "  throw new Error('after override');", "runtime_error", []),
    # every file it can reach near itself, searched for the tests' expected values
    "snoop": ("import * as fs from 'fs';\nimport * as path from 'path';\n"
              "function pascalRow(rowIndex: number): number[] {\n"
              "  const seen: string[] = [];\n"
              "  for (const dir of [path.dirname(process.argv[1]), process.cwd(), path.dirname(process.argv[2] || '.'), '/tmp']) {\n"
              "    try { for (const f of fs.readdirSync(dir)) { try { seen.push(fs.readFileSync(path.join(dir, f), 'utf8')); } catch (e) {} } } catch (e) {}\n"
              "  }\n"
              "  for (const t of seen) { try { const v = JSON.parse(t).expected_output; if (v) return v[0]; } catch (e) {} }\n"
              "  return [0];\n}\n",
              "wrong_answer", []),
    # a type error (string assigned a number) with the right values: types are not checked
    "type_error": (ROW % "  const unused: string = 5;\n"
                         "  const r: number[] = [1];\n"
                         "  for (let k = 0; k < rowIndex; k++) r.push(r[r.length - 1] * (rowIndex - k) / (k + 1));\n"
                         "  return r;", "pass", []),
}
BIG = "function add(a: bigint, b: bigint): bigint {\n  return BigInt(a) + BigInt(b);\n}\n"


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
    items.append(("big_add", add_problem(), BIG))
    with Judge(request.param, jobs=2, reference_timing=False) as judge:
        with ThreadPoolExecutor(2) as pool:
            results = dict(pool.map(lambda item: (item[0], judge.judge(
                item[1], item[2], language="typescript")), items))
    return request.param, results


def _why(result):
    return result.message, [(t.verdict.value, t.message) for t in result.tests][:3]


@pytest.mark.parametrize("problem", sorted(CORRECT))
def test_correct_solutions_pass(judged, problem):
    sandbox, results = judged
    result = results[problem]
    assert result.verdict.value == "pass", (sandbox, problem, _why(result))
    assert result.language == "typescript"
    assert result.sandbox == sandbox


def test_integers_beyond_2_53_arrive_as_bigints(judged):
    sandbox, results = judged
    assert results["big_add"].verdict.value == "pass", _why(results["big_add"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_verdicts(judged, case):
    sandbox, results = judged
    _, verdict, words = CASES[case]
    result = results[case]
    assert result.verdict.value == verdict, (sandbox, case, _why(result))
    for word in words:
        assert word in (result.message or ""), (sandbox, case, result.message)


def test_prompt_shows_the_typescript_signature():
    suite = load_suite("problems")
    problems = {p.identifier: p for p in suite.problems}
    for name, signature in [
            ("basics_pascal_row", "function pascalRow(row_index: number): number[]"),
            ("types_label_lookup",
             "function labelLookup(label_map: Map<number, string>, codes: number[]): "
             "(string | null)[]"),
            ("types_invert_mapping",
             "function invertMapping(name_to_id: Record<string, number>): Map<number, string>"),
            ("types_min_max_mean",
             "function minMaxMean(values: number[]): [number, number, number]")]:
        problem = problems[name]
        body = render_language_prompt(problem, problem.prompts[0], "typescript").prompt
        assert signature in body, (name, body)
        assert "```typescript" in body


def test_types_and_refusals():
    ts = get("typescript")
    assert ts.type_name(parse_type("Optional[List[Tuple[int, str]]]")) == \
        "[number, string][] | null"
    assert ts.type_name(parse_type("Set[str]")) == "Set<string>"
    assert ts.type_name(parse_type("Dict[str, List[float]]")) == "Record<string, number[]>"
    assert ts.type_name(parse_type("Union[int, str]")) == "number | string"
    for text in ("Set[Tuple[int, int]]", "Dict[Tuple[int, int], str]", "Set[List[int]]"):
        with pytest.raises(NotExpressible, match="compares .* keys by identity"):
            ts.type_name(parse_type(text))
    problem = function_from_data({
        "identifier": "pairs", "description": "pairs",
        "prompts": [{"prompt_id": "p", "prompt": "Return the pairs.", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "pairs",
                               "parameters": [{"name": "n", "type": "int"}],
                               "return_values": [{"type": "Set[Tuple[int, int]]"}]},
        "correctness_test_suite": [{"input": {"n": 1}, "expected_output": [[[0, 1]]]}]},
        "<pairs>")
    with pytest.raises(NotExpressible) as caught:
        ts.for_problem(problem)
    message = str(caught.value)
    assert "\n" not in message and "Set[Tuple[int, int]]" in message
