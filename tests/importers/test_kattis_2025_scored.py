"""A hand-written 2025-09 scoring package (``test_group.yaml`` with ``max_score``,
``score_aggregation``, ``require_pass`` and ``output_validator_args``, ``type`` as a list,
``time_multipliers``, a per-test ``.yaml`` with ``args``, a Python output validator writing
``score_multiplier.txt`` and ``score.txt``, ``partially_accepted`` and ``submissions.yaml``
scores), read and verified with default flags in both sandboxes; and a samples-only package
read (pure part)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.cli.main import main
from judge.importers.kattis import read_package
from tests.conftest import docker_or_skip

# the validator: the answer is a number; output within 1 of it is worth score_multiplier
# 0.5 (group "near" passes "half" as an argument), exact is full; group "points" writes
# score.txt = the answer itself (an unbounded-style absolute score, here at most 10)
VALIDATOR = """import sys
inp, ans, feedback = sys.argv[1:4]
flags = sys.argv[4:]
want = int(open(ans).read())
try:
    got = int(sys.stdin.read().split()[0])
except Exception:
    sys.exit(43)
if got == want:
    if "points" in flags:
        open(feedback + "/score.txt", "w").write(str(min(10, want)))
    sys.exit(42)
if abs(got - want) == 1 and "half" in flags:
    open(feedback + "/score_multiplier.txt", "w").write("0.5")
    sys.exit(42)
sys.exit(43)
"""


def _package(root: Path) -> Path:
    files = {
        "problem.yaml": "problem_format_version: 2025-09\ntype: [scoring]\nname: Double\n"
                        "limits:\n  time_multipliers:\n    ac_to_time_limit: 3\n",
        "output_validator/validate.py": VALIDATOR,
        "data/sample/1.in": "1\n", "data/sample/1.ans": "2\n",
        "data/secret/test_group.yaml": "max_score: 100\nscore_aggregation: sum\n",
        "data/secret/a_exact/test_group.yaml": "max_score: 40\nscore_aggregation: min\n"
                                               "require_pass: sample\n",
        "data/secret/a_exact/1.in": "2\n", "data/secret/a_exact/1.ans": "4\n",
        "data/secret/a_exact/2.in": "3\n", "data/secret/a_exact/2.ans": "6\n",
        "data/secret/b_near/test_group.yaml": "max_score: 40\nscore_aggregation: sum\n"
                                              "output_validator_args: [half]\n",
        "data/secret/b_near/1.in": "50\n", "data/secret/b_near/1.ans": "100\n",
        "data/secret/b_near/2.in": "60\n", "data/secret/b_near/2.ans": "120\n",
        "data/secret/c_points/test_group.yaml": "max_score: 20\nscore_aggregation: sum\n"
                                                "output_validator_args: [points]\n",
        "data/secret/c_points/1.in": "4\n", "data/secret/c_points/1.ans": "8\n",
        "data/secret/c_points/1.yaml": "args: [--unused]\n",
        "data/secret/c_points/2.in": "5\n", "data/secret/c_points/2.ans": "10\n",
        "submissions/accepted/double.py": "import sys\nprint(2 * int(input()))\n",
        # exact: 40 + 40 + (8 + 10: score.txt); off by one on big inputs: a_exact 40,
        # b_near 2 x 20 x 0.5 = 20, c_points 8 + 10
        "submissions/partially_accepted/near.py":
            "n = int(input())\nprint(2 * n + (1 if n >= 50 else 0))\n",
        # wrong on the sample: a_exact requires it (0), b_near 20, c_points 18 -> 38
        "submissions/partially_accepted/no_sample.py":
            "n = int(input())\nprint(0 if n == 1 else 2 * n + (1 if n >= 50 else 0))\n",
        "submissions/wrong_answer/zero.py": "print(0)\n",
        "submissions/submissions.yaml": "partially_accepted/near.py:\n  score: 78\n"
                                        "partially_accepted/no_sample.py:\n  score: [30, 40]\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.pure
def test_the_2025_09_package_is_read_with_its_groups(tmp_path):
    package = read_package(_package(tmp_path / "double"))
    assert package.version == "2025-09" and package.types == ["scoring"]
    scoring = package.problem.scoring
    assert [(g.name, g.max_score, g.aggregation) for g in scoring.walk()] == [
        ("secret", 100.0, "sum"), ("secret/a_exact", 40.0, "min"),
        ("secret/b_near", 40.0, "sum"), ("secret/c_points", 20.0, "sum")]
    assert scoring.groups[0].require_pass == ["sample"]
    flags = {t.name: package.problem.checker_for(t).validator_flags
             for t in package.problem.tests}
    assert flags["secret/b_near/1"] == ["half"] and flags["secret/c_points/2"] == ["points"]
    assert [t.args for t in package.problem.tests if t.name == "secret/c_points/1"] == \
        [["--unused"]]
    assert {s.path.name: s.expected_score for s in package.submissions
            if s.expected_score} == {"near.py": (78.0, 78.0), "no_sample.py": (30.0, 40.0)}


@pytest.mark.pure
def test_a_samples_only_package_is_read_and_said(tmp_path):
    root = tmp_path / "hello"
    (root / "data" / "sample").mkdir(parents=True)
    (root / "data" / "sample" / "1.in").write_text("")
    (root / "data" / "sample" / "1.ans").write_text("Hello\n")
    package = read_package(root)
    assert [t.name for t in package.problem.tests] == ["sample/1"] and package.supported
    assert "no secret test cases (no data/secret folder): judged on its 1 sample" in \
        package.notes


@pytest.mark.parametrize("sandbox", ["process", pytest.param("docker",
                                                              marks=pytest.mark.docker)])
def test_verify_checks_scores_from_the_validator_and_submissions_yaml(tmp_path, sandbox,
                                                                       capsys):
    if sandbox == "docker":
        docker_or_skip()
    root = _package(tmp_path / "double")
    code = main(["verify", str(root), "--sandbox", sandbox, "--jobs", "2", "--json"])
    outcome = json.loads(capsys.readouterr().out)["packages"][0]
    got = {Path(s["file"]).name: (s["verdict"], s["agrees"], s["score"])
           for s in outcome["submissions"]}
    assert got == {"double.py": ("pass", True, 98.0), "near.py": ("pass", True, 78.0),
                   "no_sample.py": ("wrong_answer", True, 38.0),
                   "zero.py": ("wrong_answer", True, 0.0)}, outcome
    assert code == 0
    near = next(s for s in outcome["submissions"] if s["file"].endswith("near.py"))
    assert {g["group"]: g["score"] for g in near["groups"]} == {
        "secret": 78.0, "secret/a_exact": 40.0, "secret/b_near": 20.0,
        "secret/c_points": 18.0}
    # a submission that misses its submissions.yaml score is named
    (root / "submissions/submissions.yaml").write_text("partially_accepted/near.py:\n"
                                                       "  score: 80\n")
    assert main(["verify", str(root), "--sandbox", sandbox, "--json"]) == 1
    outcome = json.loads(capsys.readouterr().out)["packages"][0]
    near = next(s for s in outcome["submissions"] if s["file"].endswith("near.py"))
    assert near["agrees"] is False and "expected a score of 80, scored 78 of 100" in \
        near["message"]
