"""Importers, scoring primitives and grading workflows are found by name: lookup, aliases,
unknown names (a did-you-mean) and names whose module cannot be imported. In process, no
sandbox and no server (the 'pure' lane); tests/house/test_registries_cli.py adds one of each
through a real installed package and uses them from the command line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from judge.errors import UnknownName
from judge.grading.proofs.api import check_workflows
from judge.grading.proofs.workflows import WORKFLOWS, Workflow, WorkflowSpec
from judge.importers import IMPORTERS, HumanEval, Importer, Mbpp, RecordImporter, file_name, import_suite
from judge.scoring.dimensions import PRIMITIVES, Dimension, ExactMatchDimension
from judge.scoring.primitives import ScoringError
from judge.scoring.specs import parse_spec, score_submission
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

MBPP_SAMPLE = ROOT / "tests" / "data" / "mbpp_sample.jsonl"


# ---- importers ---------------------------------------------------------------------------------

def test_importers_by_name_and_alias():
    assert IMPORTERS.names()[:2] == ["humaneval", "mbpp"]
    assert isinstance(IMPORTERS.get("humaneval"), HumanEval)
    assert IMPORTERS.get("evalplus") is IMPORTERS.get("MBPP+") is IMPORTERS.get("mbppplus")
    assert isinstance(IMPORTERS.get("mbpp"), Mbpp) and isinstance(IMPORTERS.get("mbpp"), RecordImporter)
    assert issubclass(RecordImporter, Importer)
    assert IMPORTERS.canonical("human-eval") == "humaneval"
    assert file_name("11", "mbpp") == "mbpp_11.json" and file_name("HumanEval/0", "humaneval") == \
        "HumanEval_0.json"


def test_unknown_importer_suggests_the_closest(tmp_path):
    with pytest.raises(UnknownName, match=r"unknown importer 'humaneva' \(did you mean 'humaneval'\?\)"):
        import_suite("humaneva", MBPP_SAMPLE, tmp_path)
    with pytest.raises(ValueError):  # callers that caught ValueError still do
        import_suite("nope", MBPP_SAMPLE, tmp_path)
    assert not any(tmp_path.iterdir())


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


def test_a_primitive_registered_at_run_time_and_its_alias():
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
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first == "LengthMatch length_match 500.0"
    assert second == "spec: at dimensions[0].extra: Extra inputs are not permitted"


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


# ---- a name whose module cannot be imported ------------------------------------------------------


def test_a_name_whose_module_is_missing_is_a_load_error():
    from judge.errors import RegistryLoadError
    from judge.registry import Registry

    things: Registry[object] = Registry("thing")
    things.add("ghost", "judge_no_such_module_xyz:Ghost")
    things.add("attr", "judge.errors:NoSuchAttribute")
    with pytest.raises(RegistryLoadError, match=r"cannot load thing 'ghost' from "
                                                r"'judge_no_such_module_xyz:Ghost': No module") as info:
        things.get("ghost")
    assert isinstance(info.value, ImportError) and info.value.name == "judge_no_such_module_xyz"
    assert info.value.code == "registry_load_failed"
    with pytest.raises(RegistryLoadError, match="NoSuchAttribute"):
        things.get("attr")


