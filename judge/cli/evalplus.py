"""``judge run --output-format evalplus``: EvalPlus's ``eval_results.json`` and its summary.

Written where EvalPlus writes it (``evalplus.evaluate``): ``<samples folder>/eval_results.json``
for a samples folder (``HumanEval_0/0.py``...), else the samples file's name with ``.jsonl``
replaced by ``_eval_results.json``. The layout is EvalPlus's::

    {"date": "YYYY-MM-DD HH:MM", "hash": ..., "eval": {task_id: [{"task_id", "solution",
     "base_status", "plus_status", "base_fail_tests", "plus_fail_tests"}, ...]},
     "pass_at_k": {"base": {"pass@1": ...}, "plus": {"pass@1": ...}}}

A status is ``"pass"``, ``"fail"`` or ``"timeout"`` (every failing test of the set timed out).
Base is the problem's first tests (the tag ``evalplus-base:N`` of an EvalPlus import; every
test for another suite, whose ``plus_status`` is then null and whose pass@k has no ``plus``).
A sample passes base+plus when it passes both sets, as in EvalPlus. ``*_fail_tests`` holds
the first failing input of the set (EvalPlus without ``--test-details``). pass@k is for
k in 1, 10, 100 when every task has at least k samples; samples the judge could not judge
(``sandbox_error``, our failure) are left out and said."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

from judge.cli.common import err
from judge.scoring.passk import mean_pass_at_k

KS = (1, 10, 100)


def evalplus_results_path(samples: Path) -> Path:
    if samples.is_dir():
        return samples / "eval_results.json"
    name = str(samples)
    return Path(name.replace(".jsonl", "_eval_results.json") if ".jsonl" in name
                else name + "_eval_results.json")


def _samples(samples: Path, suite: Any) -> list[tuple[Any, str]]:
    """(key, solution as EvalPlus records it) per sample, in the order of the input: the key
    is the line (a file) or (task, sample number) (a folder). A file's ``completion`` is
    recorded after its prompt, a ``solution`` as it is (``evalplus.evaluate``)."""
    from judge import jsonl
    from judge.candidates.extract import read_sample_dir, read_solutions

    if samples.is_dir():
        return [((c.problem_id, c.sample), c.solution) for c, _ in read_sample_dir(samples)
                if c is not None]
    records = dict(jsonl.read_objects(samples))
    out: list[tuple[Any, str]] = []
    for candidate, _ in read_solutions(samples):
        if candidate is None:
            continue
        solution = candidate.solution
        problem = suite.by_id.get(candidate.problem_id)
        if "solution" not in records.get(candidate.line, {}) and problem is not None and \
                problem.prompts and "completion" in (problem.tags or []):
            solution = (problem.prompts[0].input_code or "") + solution
        out.append((candidate.line, solution))
    return out


def _status(tests: list[dict[str, Any]], wanted: range, problem: Any) -> tuple[str, list[Any]]:
    by_index = {t.get("index"): t for t in tests}
    failing = [i for i in wanted if (by_index.get(i) or {}).get("verdict") != "pass"]
    if not failing:
        return "pass", []
    verdicts = {(by_index.get(i) or {}).get("verdict") for i in failing}
    first = problem.correctness_test_suite[failing[0]].input if \
        failing[0] < len(problem.correctness_test_suite) else {}
    inputs = [first.get(p) for p in problem.parameter_names]
    return ("timeout" if verdicts == {"timeout"} else "fail"), [inputs]


def evalplus_results(samples: Path, rows: list[dict[str, Any]], suite: Any
                     ) -> tuple[dict[str, Any], list[str]]:
    """EvalPlus's results object for the judged ``rows``, and remarks (samples left out)."""
    from judge.importers.evalplus import base_count

    by_key: dict[Any, dict[str, Any]] = {}
    for row in rows:
        key = (row.get("problem_id"), row.get("sample")) if samples.is_dir() else row.get("line")
        by_key[key] = row
    evaluated: dict[str, list[dict[str, Any]]] = defaultdict(list)
    remarks: list[str] = []
    for key, solution in _samples(samples, suite):
        row = by_key.get(key)
        if row is None or row.get("verdict") == "sandbox_error":
            remarks.append("%s: not judged%s" % (
                key if not isinstance(key, tuple) else "%s/%s" % key,
                " (sandbox_error)" if row is not None else ""))
            continue
        problem = suite.by_id[row["problem_id"]]
        total = len(problem.correctness_test_suite)
        base = base_count(problem)
        tests = row.get("tests") or []
        base_status, base_fail = _status(tests, range(total if base is None else base), problem)
        plus_status, plus_fail = (None, []) if base is None else _status(
            tests, range(base, total), problem)
        evaluated[row["problem_id"]].append({
            "task_id": row["problem_id"], "solution": solution, "base_status": base_status,
            "plus_status": plus_status, "base_fail_tests": base_fail,
            "plus_fail_tests": plus_fail})
    pass_at_k: dict[str, dict[str, float]] = {}
    counts = {task: len(entries) for task, entries in evaluated.items()}
    for name, passed in (("base", lambda e: e["base_status"] == "pass"),
                         ("plus", lambda e: e["base_status"] == e["plus_status"] == "pass")):
        if name == "plus" and not any(e["plus_status"] is not None
                                      for entries in evaluated.values() for e in entries):
            continue
        pairs = [(counts[task], sum(1 for e in entries if passed(e)))
                 for task, entries in evaluated.items()]
        pass_at_k[name] = {"pass@%d" % k: mean_pass_at_k(pairs, k) for k in KS
                           if pairs and min(n for n, _ in pairs) >= k}
    digest = hashlib.md5(usedforsecurity=False)
    for problem in suite.problems:
        digest.update(problem.model_dump_json().encode())
    return {"date": _dt.datetime.now().strftime("%Y-%m-%d %H:%M"), "hash": digest.hexdigest(),
            "eval": dict(evaluated), "pass_at_k": pass_at_k}, remarks


def evalplus_output(samples: Path, rows: list[dict[str, Any]], suite: Any,
                    notice: Callable[[str], None] = err) -> dict[str, Any]:
    """Write ``eval_results.json`` and print the summary as EvalPlus prints it."""
    results, remarks = evalplus_results(samples, rows, suite)
    for remark in remarks:
        notice("note: %s (left out of pass@k)" % remark)
    path = evalplus_results_path(samples)
    path.write_text(json.dumps(results) + "\n", encoding="utf-8")
    notice("wrote %s" % path)
    tags = {tag for p in suite.problems for tag in (p.tags or [])}
    dataset = "mbpp" if "mbpp" in tags else ("humaneval" if "humaneval" in tags else "suite")
    for name, title in (("base", "%s (base tests)" % dataset),
                        ("plus", "%s+ (base + extra tests)" % dataset)):
        if name in results["pass_at_k"]:
            print(title)
            for k, value in results["pass_at_k"][name].items():
                print("%s:\t%.3f" % (k, value))
    return results
