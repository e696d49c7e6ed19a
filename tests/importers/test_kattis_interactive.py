"""The Kattis importer reads interactive and multi-pass packages (legacy ``validation: custom
interactive`` / ``custom multi-pass``, 2023-07 ``type: [interactive, multi-pass]``) as
problems the judge runs, and still refuses what it cannot judge, naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.importers.kattis import read_package

pytestmark = pytest.mark.pure


def _package(root: Path, yaml: str) -> Path:
    (root / "data/secret").mkdir(parents=True)
    (root / "data/secret/1.in").write_text("1\n")
    (root / "data/secret/1.ans").write_text("1\n")
    (root / "output_validator").mkdir()
    (root / "output_validator/validate.py").write_text("import sys\nsys.exit(42)\n")
    (root / "problem.yaml").write_text(yaml)
    return root


@pytest.mark.parametrize("yaml, interactive, multi_pass, passes", [
    ("validation: custom interactive\n", True, False, 2),
    ("validation: custom multi-pass\n", False, True, 2),
    ("validation: custom interactive multi-pass\nlimits:\n  validation_passes: 5\n",
     True, True, 5),
    ("problem_format_version: 2023-07-draft\ntype: [interactive, multi-pass]\n", True, True, 2),
    ("problem_format_version: 2023-07-draft\ntype: multi-pass\n", False, True, 2),
])
def test_interactive_and_multi_pass_packages_are_imported(tmp_path, yaml, interactive,
                                                          multi_pass, passes):
    package = read_package(_package(tmp_path / "p", "name: P\n" + yaml))
    assert package.supported, package.unsupported
    problem = package.problem
    assert problem.interactive is interactive
    assert problem.multi_pass is multi_pass
    assert problem.validation_passes == passes
    assert problem.checker.type == "validator"


def test_what_still_cannot_be_judged_is_refused_by_name(tmp_path):
    package = read_package(_package(tmp_path / "p", "name: P\nproblem_format_version: "
                                    "2023-07-draft\ntype: submit-answer\n"))
    assert not package.supported
    assert any("submit-answer" in why for why in package.unsupported)


def test_a_bad_number_of_passes_is_located(tmp_path):
    from judge.errors import InputError

    with pytest.raises(InputError) as caught:
        read_package(_package(tmp_path / "p", "name: P\nvalidation: custom multi-pass\n"
                              "limits:\n  validation_passes: 1\n"))
    assert "validation_passes" in str(caught.value)
