"""Importers, scoring primitives and grading workflows added by another package: a real
``*.dist-info`` folder with ``entry_points.txt`` in a temporary directory put on
``sys.path`` of a fresh interpreter, used through the command line as a user would (the
converted suite judged in the process sandbox, proofs graded against a local chat server);
and a broken package, which fails only its own names. The in-process registry tests are in
tests/house/test_registries.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from judge.importers import import_suite
from tests.paths import ROOT, TESTS

sys.path.insert(0, str(TESTS))
from proof_server import ScriptedServer  # noqa: E402

MBPP_SAMPLE = ROOT / "tests" / "data" / "mbpp_sample.jsonl"


# ---- a package that adds one of each, installed the way pip would ---------------------------

EXTENSION = {
    "judge_ext_demo/__init__.py": "",
    "judge_ext_demo/importer.py": '''
        from judge.importers.base import IMPORTERS, RecordImporter
        from judge.importers.humaneval import humaneval_source


        @IMPORTERS.register("tinyeval", aliases=("tiny-eval",))
        class TinyEval(RecordImporter):
            """Records {id, signature, body, asserts}: a made-up benchmark format."""

            label = "TinyEval"
            file_prefix = "tiny_"

            def source(self, record):
                name = record["signature"].split("(")[0].removeprefix("def ").strip()
                return humaneval_source({
                    "task_id": str(record["id"]),
                    "prompt": record["signature"] + '\\n    """Tiny task."""\\n',
                    "canonical_solution": record["body"],
                    "entry_point": name,
                    "test": "def check(candidate):\\n" + "".join(
                        "    assert %s\\n" % a for a in record["asserts"]),
                })
    ''',
    "judge_ext_demo/scoring.py": '''
        from typing import Literal

        from judge.scoring.dimensions import PRIMITIVES, FieldDimension
        from judge.scoring.primitives import PrimitiveScore


        @PRIMITIVES.register("prefix_match")
        class PrefixMatchDimension(FieldDimension):
            primitive: Literal["prefix_match"]

            def compare(self, value, expected):
                ok = isinstance(value, str) and value.startswith(expected)
                return PrimitiveScore(1000.0 if ok else 0.0, "prefix" if ok else "no prefix")
    ''',
    "judge_ext_demo/workflows.py": '''
        from judge.grading.proofs.workflows import WORKFLOWS, Workflow


        @WORKFLOWS.register("blind")
        class Blind(Workflow):
            """Grade without references, under another name (and code of its own)."""

            def prepare(self, grader, problem, solution, out):
                return "single.j2", {}
    ''',
    "judge_ext_demo-0.1.dist-info/METADATA": '''
        Metadata-Version: 2.1
        Name: judge-ext-demo
        Version: 0.1
    ''',
    "judge_ext_demo-0.1.dist-info/entry_points.txt": '''
        [judge.importers]
        tinyeval = judge_ext_demo.importer:TinyEval

        [judge.scoring]
        prefix_match = judge_ext_demo.scoring:PrefixMatchDimension

        [judge.workflows]
        blind = judge_ext_demo.workflows:Blind
    ''',
}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("site")
    for name, text in EXTENSION.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def run(site: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter with ``site`` on its path (where a package would be installed)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


# ---- importers ---------------------------------------------------------------------------------


def test_import_through_an_alias_writes_the_same_suite(tmp_path):
    by_name = import_suite("mbpp", MBPP_SAMPLE, tmp_path / "a")
    by_alias = import_suite("MBPP", MBPP_SAMPLE, tmp_path / "b")
    assert by_alias.kind == "mbpp"
    names = sorted(p.name for p in (tmp_path / "a").glob("*.json"))
    assert names and names == sorted(p.name for p in (tmp_path / "b").glob("*.json"))
    assert by_name.totals() == by_alias.totals()


def test_cli_unknown_importer_is_a_usage_error(site, tmp_path):
    done = run(site, "-m", "judge", "import", "mbp", str(MBPP_SAMPLE), "-o", str(tmp_path / "o"))
    assert done.returncode == 2
    assert "unknown importer 'mbp' (did you mean 'mbpp'?)" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "o").exists()


def test_an_installed_package_adds_an_importer(site, tmp_path):
    data = tmp_path / "tiny.jsonl"
    data.write_text(json.dumps({"id": 7, "signature": "def twice(x: int) -> int:",
                                "body": "    return 2 * x\n",
                                "asserts": ["candidate(2) == 4", "candidate(-1) == -2"]}) + "\n")
    done = run(site, "-m", "judge", "import", "tinyeval", str(data), "-o", str(tmp_path / "suite"))
    assert done.returncode == 0, done.stderr
    problem = json.loads((tmp_path / "suite" / "tiny_7.json").read_text())
    assert problem["function_prototype"]["function_name"] == "twice"
    assert [t["expected_output"] for t in problem["correctness_test_suite"]] == [[4], [-2]]
    # the converted suite is judged like any other
    results = tmp_path / "results.jsonl"
    done = run(site, "-m", "judge", "run", str(tmp_path / "suite"), "--solutions", "optimal",
               "--sandbox", "process", "--jobs", "1", "--output", str(results))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert [(r["problem_id"], r["verdict"], r["passed"]) for r in rows] == [("7", "pass", 2)]
    listed = run(site, "-c", "from judge.importers import IMPORTERS; print(IMPORTERS.names())")
    assert listed.stdout.strip() == ("['humaneval', 'mbpp', 'evalplus', 'kattis', 'polygon', "
                                     "'multipl-e', 'humaneval-x', 'mxeval', 'apps', 'verl', "
                                     "'codecontests', 'livecodebench', 'open-r1', 'tinyeval']")
    typo = run(site, "-m", "judge", "import", "tinyevl", str(data), "-o", str(tmp_path / "x"))
    assert typo.returncode == 2 and "did you mean 'tinyeval'?" in typo.stderr
    # an alias the package's module declares (its entry point names only "tinyeval")
    done = run(site, "-m", "judge", "import", "tiny-eval", str(data), "-o", str(tmp_path / "alias"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "alias" / "tiny_7.json").read_text() == \
        (tmp_path / "suite" / "tiny_7.json").read_text()


# ---- scoring primitives -------------------------------------------------------------------------

def _spec(*dims: dict) -> dict:
    return {"type": "deterministic", "dimensions": list(dims)}


EXACT = {"name": "answer", "weight": 1.0, "primitive": "exact_match", "field": "a",
         "ground_truth_field": "a"}


def test_an_installed_package_adds_a_primitive(site, tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(_spec(
        {"name": "greeting", "weight": 0.75, "primitive": "prefix_match", "field": "text",
         "ground_truth_field": "starts"},
        {**EXACT, "weight": 0.25})))
    sub, gt = tmp_path / "sub.json", tmp_path / "gt.json"
    sub.write_text(json.dumps({"text": "hello world", "a": 1}))
    gt.write_text(json.dumps({"starts": "hello", "a": 2}))
    done = run(site, "-m", "judge", "score", str(spec), str(sub), "--ground-truth", str(gt),
               "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["total"] == 750.0
    assert [(d["primitive"], d["score"]) for d in report["dimensions"]] == [
        ("prefix_match", 1000.0), ("exact_match", 0.0)]
    spec.write_text(json.dumps(_spec({**EXACT, "primitive": "prefix_mach"})))
    done = run(site, "-m", "judge", "score", str(spec), str(sub), "--ground-truth", str(gt))
    assert done.returncode == 1
    assert "unknown primitive 'prefix_mach' (did you mean 'prefix_match'?)" in done.stderr


# ---- grading workflows --------------------------------------------------------------------------


PROBLEMS = [{"problem_id": "P1", "statement": "Show that n^2 + n is even for every integer n.",
             "references": ["Factor n^2+n as n(n+1). One of two consecutive integers is even."]}]
SOLUTIONS = [{"problem_id": "P1", "solution_id": "s1", "solution": "n(n+1) is even. #grade=7"},
             {"problem_id": "P1", "solution_id": "s2", "solution": "It is even. #grade=3"}]


def test_an_installed_package_adds_a_workflow(site, tmp_path):
    problems, solutions = tmp_path / "p.jsonl", tmp_path / "s.jsonl"
    problems.write_text("".join(json.dumps(r) + "\n" for r in PROBLEMS))
    solutions.write_text("".join(json.dumps(r) + "\n" for r in SOLUTIONS))
    server = ScriptedServer()
    try:
        def grade(*workflow: str) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
            out = tmp_path / "out.jsonl"
            done = run(site, "-m", "judge", "grade", str(problems), str(solutions), *workflow,
                       "--model", "scripted", "--base-url", server.base_url, "--cache",
                       str(tmp_path / "cache"), "--output", str(out), "--retries", "1",
                       "--timeout", "5", "--format", "json")
            rows = [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else []
            return done, rows

        done, rows = grade("--workflow", "blind,ref5")
        assert done.returncode == 0, done.stderr
        assert [(r["solution_id"], r["workflow"], r["grade"]) for r in rows] == [
            ("s1", "blind", 7.0), ("s1", "ref5-plain", 7.0),
            ("s2", "blind", 3.0), ("s2", "ref5-plain", 3.0)]
        done, _ = grade("--workflow", "blnd")
        assert done.returncode == 2 and "unknown workflow 'blnd' (did you mean 'blind'?)" in done.stderr
    finally:
        server.close()


# ---- a broken package: its names fail with a message, everything else still works ---------------

@pytest.fixture(scope="module")
def broken_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("broken_site")
    dist = root / "judge_broken-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: judge-broken\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[judge.importers]\nbrokenbench = judge_broken_missing.importer:Nope\n\n"
        "[judge.scoring]\nbroken_primitive = judge_broken_missing.scoring:Nope\n\n"
        "[judge.workflows]\nbroken-flow = judge_broken_missing.flows:Nope\n")
    return root


def test_a_broken_package_fails_only_its_own_names(broken_site, tmp_path):
    done = run(broken_site, "-m", "judge", "import", "brokenbench", str(MBPP_SAMPLE), "-o",
               str(tmp_path / "o"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "cannot load importer 'brokenbench' from 'judge_broken_missing.importer:Nope'" in done.stderr
    assert run(broken_site, "-m", "judge", "import", "mbpp", str(MBPP_SAMPLE), "-o",
               str(tmp_path / "ok")).returncode == 0

    spec, sub = tmp_path / "spec.json", tmp_path / "sub.json"
    sub.write_text(json.dumps({"a": 1}))
    spec.write_text(json.dumps(_spec(EXACT)))
    done = run(broken_site, "-m", "judge", "score", str(spec), str(sub), "--ground-truth", str(sub),
               "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total"] == 1000.0
    spec.write_text(json.dumps(_spec({**EXACT, "primitive": "broken_primitive"})))
    done = run(broken_site, "-m", "judge", "score", str(spec), str(sub), "--ground-truth", str(sub))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "at dimensions[0].primitive: cannot load primitive 'broken_primitive'" in done.stderr

    problems, solutions = tmp_path / "p.jsonl", tmp_path / "s.jsonl"
    problems.write_text("".join(json.dumps(r) + "\n" for r in PROBLEMS))
    solutions.write_text("".join(json.dumps(r) + "\n" for r in SOLUTIONS))
    done = run(broken_site, "-m", "judge", "grade", str(problems), str(solutions), "--workflow",
               "broken-flow", "--model", "m", "--base-url", "http://127.0.0.1:9", "--offline")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "cannot load workflow 'broken-flow'" in done.stderr
