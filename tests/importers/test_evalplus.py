"""Issue 23 item 3: EvalPlus's HumanEval+ / MBPP+ release files with their extra tests and
tolerances, its samples folder, its ``eval_results.json``, and base / base+plus pass@k that
match EvalPlus's own evaluator on the same data.

tests/data/evalplus/ holds release-format records written for these tests (the fields of
EvalPlus's release files: task_id, prompt, entry_point, canonical_solution, base_input,
plus_input, atol, contract, test; MBPP+ has no ``code``): HumanEval/0, /2 (atol 1e-6), /32
(find_zero's special oracle); Mbpp/2 (set equality, tuple inputs), Mbpp/3, Mbpp/17 (floats in
the extra inputs of an integer task). The ``evalplus`` package ships no data; its evaluator's
functions (``untrusted_check``, ``trusted_exec``, ``estimate_pass_at_k``, ``load_solutions``,
``mbpp_deserialize_inputs``) are run here on the same records and samples. (``evalplus.evaluate``
itself cannot be imported offline without its model back ends: it imports tree-sitter and the
code generators at module level.)"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from judge.cli.main import main
from judge.importers import import_suite
from judge.importers.evalplus import base_count, evalplus_source
from judge.kinds.loader import load_suite
import judge.settings
from tests.paths import DATA


@pytest.fixture(autouse=True)
def _settings_read_again():
    """The judge reads its settings once (judge.settings): a test that sets a variable reads
    them again, and after it (once monkeypatch has put the environment back) so do we."""
    yield
    judge.settings.reload()


DATA = DATA / "evalplus"
HE_PLUS = DATA / "HumanEvalPlus-sample.jsonl"
MBPP_PLUS = DATA / "MbppPlus-sample.jsonl"


def records(path: Path) -> dict[str, dict]:
    return {r["task_id"]: r for r in map(json.loads, path.read_text().splitlines())}


HE_SAMPLES = [
    # right (a completion)
    {"task_id": "HumanEval/0", "completion": "    for i, a in enumerate(numbers):\n"
     "        for b in numbers[i + 1:]:\n            if abs(a - b) < threshold:\n"
     "                return True\n    return False\n"},
    # passes the base tests, crashes on the extra ones (an empty list)
    {"task_id": "HumanEval/0", "solution": "def has_close_elements(numbers, threshold):\n"
     "    m = min(abs(a - b) for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"
     "    return m < threshold\n"},
    {"task_id": "HumanEval/0", "completion": "    return False\n"},
    # within atol 1e-6: passes
    {"task_id": "HumanEval/2", "completion": "    return round(number % 1.0, 7)\n"},
    # outside the tolerance
    {"task_id": "HumanEval/2", "completion": "    return round(number % 1.0, 2)\n"},
    {"task_id": "HumanEval/2", "completion": "    return int(number)\n"},
    # find_zero: any root passes (|poly(xs, x)| <= atol), not only the reference's
    {"task_id": "HumanEval/32", "completion": "    lo, hi = -1.0, 1.0\n"
     "    while poly(xs, lo) * poly(xs, hi) > 0:\n        lo, hi = lo * 2, hi * 2\n"
     "    for _ in range(200):\n        mid = (lo + hi) / 2\n"
     "        if poly(xs, mid) * poly(xs, lo) > 0:\n            lo = mid\n"
     "        else:\n            hi = mid\n    return lo\n"},
    {"task_id": "HumanEval/32", "completion": "    return 0.0\n"},
]

MBPP_SAMPLES = {  # EvalPlus's folder layout: Mbpp_2/0.py ...
    "Mbpp_2": ["def similar_elements(a, b):\n    return tuple(sorted(set(a) & set(b)))\n",
               "def similar_elements(a, b):\n    return [x for x in a if x in b]\n",
               "def similar_elements(a, b):\n    return tuple(a)\n"],
    "Mbpp_3": ["import math\ndef is_not_prime(n):\n    if n == 1:\n        return True\n"
               "    return any(n % i == 0 for i in range(2, int(math.sqrt(n)) + 1))\n",
               # misses 1 (only the extra inputs have it)
               "def is_not_prime(n):\n    return any(n % i == 0 for i in range(2, n))\n"],
    "Mbpp_17": ["def square_perimeter(a):\n    return 4 * a\n",
                "def square_perimeter(a):\n    return int(4 * a)\n"],
}


@pytest.fixture(scope="module")
def suites(tmp_path_factory):
    root = tmp_path_factory.mktemp("evalplus")
    he = import_suite("evalplus", HE_PLUS, root / "humanevalplus")
    # a release MBPP+ file given to the mbpp importer (no `code`): read with its extra tests
    mbpp = import_suite("mbpp", MBPP_PLUS, root / "mbppplus")
    return root, he, mbpp


def test_release_records_import_with_their_extra_tests(suites):
    root, he, mbpp = suites
    assert not he.issues and not mbpp.issues
    for folder, path in (("humanevalplus", HE_PLUS), ("mbppplus", MBPP_PLUS)):
        suite = load_suite(root / folder)
        for task_id, record in records(path).items():
            problem = suite.by_id[task_id]
            assert base_count(problem) == len(record["base_input"]), task_id
            assert len(problem.tests) == len(record["base_input"]) + len(record["plus_input"])
            assert "evalplus" in problem.tags
    problem = load_suite(root / "humanevalplus").by_id["HumanEval/2"]
    assert all("1e-06" in t.check for t in problem.tests)  # the record's atol
    mbpp2 = load_suite(root / "mbppplus").by_id["Mbpp/2"]
    assert mbpp2.tests[0].args == ((3, 4, 5, 6), (5, 7, 4, 10))  # deserialized as tuples
    assert "'set'" in mbpp2.tests[0].check


def test_humaneval_importer_keeps_the_extra_tests(tmp_path):
    """A HumanEval+ release file given to the humaneval importer: extras kept, not dropped."""
    report = import_suite("humaneval", HE_PLUS, tmp_path / "he")
    assert not report.issues
    problem = load_suite(tmp_path / "he").by_id["HumanEval/0"]
    record = records(HE_PLUS)["HumanEval/0"]
    assert len(problem.tests) == len(record["base_input"]) + len(record["plus_input"])


def test_bad_release_records_are_named(tmp_path, capsys):
    record = dict(records(HE_PLUS)["HumanEval/0"])
    with pytest.raises(ValueError, match="atol"):
        evalplus_source({**record, "atol": "x"})
    with pytest.raises(ValueError, match="base_input"):
        evalplus_source({**record, "base_input": 3})
    bad = tmp_path / "bad.jsonl"
    broken = {**record, "task_id": "HumanEval/999", "canonical_solution": "    return 1 / 0\n"}
    bad.write_text(json.dumps(record) + "\n" + json.dumps(broken) + "\n")
    code = main(["import", "evalplus", str(bad), "-o", str(tmp_path / "o")])
    _, err = capsys.readouterr()
    assert code == 1
    assert "bad.jsonl:2: task HumanEval/999: the canonical solution fails" in err
    assert "ZeroDivisionError" in err and "Traceback" not in err


def _judge(capsys, suite: Path, samples: Path) -> tuple[dict, str]:
    code = main(["run", str(suite), "--solutions", str(samples), "--sandbox", "process",
                 "--output-format", "evalplus", "--no-output", "--no-reference-timing"])
    out, err = capsys.readouterr()
    assert code == 0, err
    path = samples / "eval_results.json" if samples.is_dir() else \
        Path(str(samples).replace(".jsonl", "_eval_results.json"))
    return json.loads(path.read_text()), out


def _evalplus_reference(dataset: str, release: dict[str, dict], samples: Path) -> dict:
    """EvalPlus's own evaluator functions on the same records and samples: the statuses per
    task (in sample order) and pass@k of base and base+plus."""
    import numpy as np

    eval_ = pytest.importorskip("evalplus.eval", reason="evalplus is not installed")
    from evalplus.data.mbpp import mbpp_deserialize_inputs
    from evalplus.data.utils import load_solutions
    from evalplus.eval._special_oracle import MBPP_OUTPUT_NOT_NONE_TASKS
    from evalplus.gen.util import trusted_exec

    problems = {}
    for task_id, record in release.items():
        record = dict(record)
        if dataset == "mbpp":
            for key in ("base_input", "plus_input"):
                record[key] = mbpp_deserialize_inputs(task_id, record[key])
        code = record["prompt"] + record["canonical_solution"]
        not_none = record["entry_point"] in MBPP_OUTPUT_NOT_NONE_TASKS
        record["expected"] = {key: trusted_exec(code, record[key + "_input"],
                                                record["entry_point"], record_time=True,
                                                output_not_none=not_none)
                              for key in ("base", "plus")}
        problems[task_id] = record
    statuses: dict[str, list[tuple[str, str]]] = {}
    for sample in load_solutions(str(samples)):
        problem = problems[sample["task_id"]]
        solution = sample["solution"] if "solution" in sample else \
            problem["prompt"] + sample["completion"]
        pair = []
        for key in ("base", "plus"):
            expected, ref_time = problem["expected"][key]
            status, _ = eval_.untrusted_check(dataset, solution, problem[key + "_input"],
                                              problem["entry_point"], expected,
                                              problem["atol"], ref_time, fast_check=True)
            pair.append(status)
        statuses.setdefault(sample["task_id"], []).append((solution, *pair))
    total = np.array([len(v) for v in statuses.values()])
    base = np.array([sum(b == "pass" for _, b, _ in v) for v in statuses.values()])
    plus = np.array([sum(b == p == "pass" for _, b, p in v) for v in statuses.values()])
    pass_at_k = {name: {"pass@%d" % k: float(eval_.estimate_pass_at_k(total, c, k).mean())
                        for k in (1, 10, 100) if total.min() >= k}
                 for name, c in (("base", base), ("plus", plus))}
    # a samples folder is read in os.listdir order: compare by solution, not position
    return {"statuses": {task: sorted(v) for task, v in statuses.items()},
            "pass_at_k": pass_at_k}


def _ours(results: dict) -> dict[str, list[tuple[str, str]]]:
    return {task: [(e["base_status"], e["plus_status"]) for e in entries]
            for task, entries in results["eval"].items()}


def _by_solution(results: dict) -> dict[str, list[tuple[str, str, str]]]:
    return {task: sorted((e["solution"], e["base_status"], e["plus_status"]) for e in entries)
            for task, entries in results["eval"].items()}


def test_humaneval_plus_results_match_evalplus(suites, tmp_path, capsys):
    root, _, _ = suites
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in HE_SAMPLES))
    results, out = _judge(capsys, root / "humanevalplus", samples)
    # EvalPlus's layout
    assert set(results) == {"date", "hash", "eval", "pass_at_k"}
    entry = results["eval"]["HumanEval/0"][1]
    assert set(entry) == {"task_id", "solution", "base_status", "plus_status",
                          "base_fail_tests", "plus_fail_tests"}
    assert (entry["base_status"], entry["plus_status"]) == ("pass", "fail")
    assert entry["plus_fail_tests"] == [[[], 1.0]]  # the first failing extra input
    assert entry["solution"] == HE_SAMPLES[1]["solution"]
    first = results["eval"]["HumanEval/0"][0]["solution"]
    assert first == records(HE_PLUS)["HumanEval/0"]["prompt"] + HE_SAMPLES[0]["completion"]
    assert "humaneval (base tests)" in out and "humaneval+ (base + extra tests)" in out
    ours = _ours(results)
    assert ours["HumanEval/32"] == [("pass", "pass"), ("fail", "fail")]
    # EvalPlus 0.3.1 (PyPI) fails every find_zero sample: its special oracle `continue`s
    # before recording the test as passed (`details[i] = True; progress.value += 1`, added
    # upstream later). The judge follows the fixed oracle, so HumanEval/32 is compared
    # without the package's bug: on the other tasks, statuses and pass@k must be equal.
    release = {k: v for k, v in records(HE_PLUS).items() if k != "HumanEval/32"}
    others = tmp_path / "others.jsonl"
    others.write_text("".join(json.dumps(s) + "\n" for s in HE_SAMPLES
                              if s["task_id"] != "HumanEval/32"))
    reference = _evalplus_reference("humaneval", release, others)
    results, _ = _judge(capsys, root / "humanevalplus", others)
    assert _by_solution(results) == reference["statuses"]
    for name in ("base", "plus"):
        assert results["pass_at_k"][name] == pytest.approx(reference["pass_at_k"][name])
    assert results["pass_at_k"]["base"]["pass@1"] > results["pass_at_k"]["plus"]["pass@1"]


def test_mbpp_plus_sample_folder_matches_evalplus(suites, tmp_path, capsys):
    root, _, _ = suites
    folder = tmp_path / "mbpp_samples"
    for task, solutions in MBPP_SAMPLES.items():
        (folder / task).mkdir(parents=True)
        for number, code in enumerate(solutions):
            (folder / task / ("%d.py" % number)).write_text(code)
    results, out = _judge(capsys, root / "mbppplus", folder)
    assert (folder / "eval_results.json").is_file()
    assert "mbpp+ (base + extra tests)" in out
    ours = _ours(results)
    assert ours["Mbpp/2"] == [("pass", "pass"), ("pass", "pass"), ("fail", "fail")]
    assert ours["Mbpp/3"] == [("pass", "pass"), ("pass", "fail")]
    reference = _evalplus_reference("mbpp", records(MBPP_PLUS), folder)
    assert _by_solution(results) == reference["statuses"]
    for name in ("base", "plus"):
        assert results["pass_at_k"][name] == pytest.approx(reference["pass_at_k"][name])


def test_hostile_canonical_solutions_are_contained(tmp_path, capsys, monkeypatch):
    """A release file is input like any other: its canonical solution runs in the import
    sandbox. One that hangs, one that floods stdout and one that writes outside its folder
    are each reported (or harmless), and the rest of the file is imported."""
    from judge.importers import sandboxed

    monkeypatch.setenv("JUDGE_IMPORT_TIME_S", "4")
    judge.settings.reload()
    sandboxed._close_shared()  # a converter with the short limit
    record = records(HE_PLUS)["HumanEval/0"]
    target = tmp_path / "pwned"
    hostile = [
        {**record, "task_id": "HumanEval/900", "canonical_solution": "    while True:\n"
         "        pass\n"},
        {**record, "task_id": "HumanEval/901", "canonical_solution": "    print('x' * 10**7)\n"
         "    return False\n"},
        {**record, "task_id": "HumanEval/902", "canonical_solution":
         "    open(%r, 'w').write('x')\n    return False\n" % str(target)},
        record,
    ]
    source = tmp_path / "hostile.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in hostile))
    try:
        code = main(["import", "evalplus", str(source), "-o", str(tmp_path / "o")])
    finally:
        sandboxed._close_shared()
    _, err = capsys.readouterr()
    assert code == 1
    assert "hostile.jsonl:1: task HumanEval/900" in err and "Traceback" not in err
    if os.geteuid() == 0:  # isolated: the conversion's files stay in its own private /tmp
        assert not target.exists()
    suite = load_suite(tmp_path / "o")
    assert "HumanEval/0" in suite.by_id and "HumanEval/900" not in suite.by_id


def test_without_a_path_the_cache_is_read_or_the_error_says_what_to_give(tmp_path, capsys,
                                                                         monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code = main(["import", "evalplus", "-o", str(tmp_path / "o")])
    _, err = capsys.readouterr()
    assert code == 1 and "no HumanEvalPlus release file" in err and "Traceback" not in err
    (tmp_path / "cache" / "evalplus").mkdir(parents=True)
    (tmp_path / "cache" / "evalplus" / "HumanEvalPlus-v0.1.10.jsonl").write_text(
        HE_PLUS.read_text().splitlines()[0] + "\n")
    assert main(["import", "evalplus", "-o", str(tmp_path / "o")]) == 0
    assert (tmp_path / "o" / "HumanEval_0.json").is_file()
