"""Real Polygon "standard" packages no one here wrote (github.com/cloud1204/
Lexicographical-Maximal-Subsequence: a subtask problem with complete-group groups and
dependencies; github.com/Marlinpa/tree-of-segments): their generated tests are not in the
package, so the import refuses each with one line naming the missing files. Their
repositories carry no licence, so they are not copied here: the test reads them from the
search mirror (``fetch github:owner/name``) and is skipped where the mirror is absent."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest

from judge.importers.polygon import read_packages

pytestmark = pytest.mark.pure

MIRROR = Path("/work/.mirror")
REPOS = {"cloud1204+Lexicographical-Maximal-Subsequence": (40, "tests/01.a, tests/02.a, "
                                                                "tests/03, tests/03.a"),
         "Marlinpa+tree-of-segments": (68, "tests/01.a, tests/02, tests/02.a, tests/03")}


def _checkout(repo: str, dest: Path) -> Path:
    git_dir = MIRROR / repo / "repo"
    if not git_dir.is_dir():
        pytest.skip("the mirror of %s is not here (fetch github:%s)" % (repo,
                                                                         repo.replace("+", "/")))
    data = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "HEAD"],
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest


@pytest.mark.parametrize("repo", sorted(REPOS))
def test_a_real_standard_package_is_refused_naming_its_missing_tests(tmp_path, repo):
    root = _checkout(repo, tmp_path / repo.split("+")[1])
    found = read_packages(root)
    assert not found.packages
    [issue] = [str(i) for i in found.issues]
    count, first = REPOS[repo]
    assert issue.startswith("%s: judging/testset: %d test files not in the package: %s (+"
                            % (root / "problem.xml", count, first)), issue
    assert "the judge never runs a package's generators" in issue
