"""Importers, scoring primitives and grading workflows are found by name.

Each registry: lookup, aliases, an unknown name (a did-you-mean), and an entry added by
another package: a real ``*.dist-info`` folder with ``entry_points.txt`` in a temporary
directory put on ``sys.path`` of a fresh interpreter, used through the command line as a
user would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from judge.errors import UnknownName
from judge.grading.proofs.api import check_workflows
from judge.grading.proofs.workflows import WORKFLOWS, Workflow, WorkflowSpec
from judge.importers import IMPORTERS, HumanEval, Importer, Mbpp, RecordImporter, file_name, import_suite
from judge.scoring.dimensions import PRIMITIVES, Dimension, ExactMatchDimension
from judge.scoring.primitives import ScoringError
from judge.scoring.specs import parse_spec, score_submission

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
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

def test_importers_by_name_and_alias():
    assert IMPORTERS.names()[:2] == ["humaneval", "mbpp"]
    assert isinstance(IMPORTERS.get("humaneval"), HumanEval)
    assert IMPORTERS.get("mbpp") is IMPORTERS.get("MBPP+") is IMPORTERS.get("mbppplus")
    assert isinstance(IMPORTERS.get("mbpp"), Mbpp) and isinstance(IMPORTERS.get("mbpp"), RecordImporter)
    assert issubclass(RecordImporter, Importer)
    assert IMPORTERS.canonical("human-eval") == "humaneval"
    assert file_name("11", "mbpp") == "mbpp_11.json" and file_name("HumanEval/0", "humaneval") == \
        "HumanEval_0.json"


def test_import_through_an_alias_writes_the_same_suite(tmp_path):
    by_name = import_suite("mbpp", MBPP_SAMPLE, tmp_path / "a")
    by_alias = import_suite("mbpp+", MBPP_SAMPLE, tmp_path / "b")
    assert by_alias.kind == "mbpp"
    names = sorted(p.name for p in (tmp_path / "a").glob("*.json"))
    assert names and names == sorted(p.name for p in (tmp_path / "b").glob("*.json"))
    assert by_name.totals() == by_alias.totals()


def test_unknown_importer_suggests_the_closest(tmp_path):
    with pytest.raises(UnknownName, match=r"unknown importer 'humaneva' \(did you mean 'humaneval'\?\)"):
        import_suite("humaneva", MBPP_SAMPLE, tmp_path)
    with pytest.raises(ValueError):  # callers that caught ValueError still do
        import_suite("nope", MBPP_SAMPLE, tmp_path)
    assert not any(tmp_path.iterdir())


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
    assert listed.stdout.strip() == "['humaneval', 'mbpp', 'tinyeval']"
    typo = run(site, "-m", "judge", "import", "tinyevl", str(data), "-o", str(tmp_path / "x"))
    assert typo.returncode == 2 and "did you mean 'tinyeval'?" in typo.stderr


# ---- scoring primitives -------------------------------------------------------------------------

def _spec(*dims: dict) -> dict:
    return {"type": "deterministic", "dimensions": list(dims)}


EXACT = {"name": "answer", "weight": 1.0, "primitive": "exact_match", "field": "a",
         "ground_truth_field": "a"}


def test_primitives_registered_once_in_spec_order():
    assert PRIMITIVES.names()[:7] == ["exact_match", "exact_match_ratio", "numeric_tolerance",
                                      "fuzzy_string", "time_decay", "coverage_ratio",
                                      "set_overlap"]
    assert PRIMITIVES.get("exact_match") is ExactMatchDimension
    assert all(issubclass(PRIMITIVES.get(n), Dimension) for n in PRIMITIVES.names())
    spec = parse_spec(_spec(EXACT))
    assert isinstance(spec.dimensions[0], ExactMatchDimension)
    assert score_submission(spec, {"a": "x"}, {"a": "x"}).total == 1000.0


def test_unknown_primitive_suggests_the_closest():
    with pytest.raises(ScoringError, match=r"at dimensions\[0\]\.primitive: unknown primitive "
                                           r"'exact_mach' \(did you mean 'exact_match'\?\)"):
        parse_spec(_spec({**EXACT, "primitive": "exact_mach"}))
    # a near miss is never silently fixed (a spec says exactly what it means)
    with pytest.raises(ScoringError, match=r"unknown primitive 'Exact_Match' \(did you mean 'exact_match'"):
        parse_spec(_spec({**EXACT, "primitive": "Exact_Match"}))
    with pytest.raises(ScoringError, match=r"unknown primitive 7 \(choose from exact_match, "):
        parse_spec(_spec({**EXACT, "primitive": 7}))


def test_a_primitive_registered_at_run_time_and_its_alias(site):
    """In a fresh interpreter (the registry is process-wide): a primitive registered after the
    spec module was imported is validated and scored, also through its alias."""
    code = textwrap.dedent('''
        from typing import Literal
        from judge.scoring.specs import parse_spec, score_submission
        from judge.scoring.dimensions import PRIMITIVES, FieldDimension
        from judge.scoring.primitives import PrimitiveScore

        @PRIMITIVES.register("length_match", aliases=("same_length",))
        class LengthMatch(FieldDimension):
            primitive: Literal["length_match"]
            def compare(self, value, expected):
                return PrimitiveScore(1000.0 if len(value) == len(expected) else 0.0, "len")

        dims = [{"name": "n", "weight": 0.5, "primitive": "same_length", "field": "a",
                 "ground_truth_field": "a"},
                {"name": "e", "weight": 0.5, "primitive": "exact_match", "field": "a",
                 "ground_truth_field": "a"}]
        spec = parse_spec({"type": "deterministic", "dimensions": dims})
        print(type(spec.dimensions[0]).__name__, spec.dimensions[0].primitive,
              score_submission(spec, {"a": "abc"}, {"a": "xyz"}).total)
        try:
            parse_spec({"type": "deterministic", "dimensions": [dict(dims[0], extra=1)]})
        except ValueError as exc:
            print(exc)
    ''')
    done = run(site, "-c", code)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first == "LengthMatch length_match 500.0"
    assert second == "spec: at dimensions[0].extra: Extra inputs are not permitted"


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

def test_workflows_by_name_and_alias():
    assert WORKFLOWS.names()[:6] == ["single", "ref3", "ref5-plain", "ref5-approachability",
                                     "ref5-milestones", "ref5-hybrid"]
    spec = WORKFLOWS.get("ref5-milestones")
    assert isinstance(spec, WorkflowSpec) and isinstance(spec, Workflow)
    assert (spec.analysis, spec.rubric, spec.reference) == ("plain", "milestones", True)
    assert WORKFLOWS.get("ref5") is WORKFLOWS.get("ref5-plain")
    assert check_workflows(["ref5", " ref5-plain", "no-reference"]) == ["ref5-plain", "single"]


def test_unknown_workflow_suggests_the_closest():
    with pytest.raises(UnknownName, match=r"unknown workflow 'ref5-milestone' \(did you mean "
                                          r"'ref5-milestones'\?\)"):
        check_workflows(["ref5-milestone"])


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
