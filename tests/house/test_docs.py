"""The documentation: the README is a front door (small, linking every page), the site in
docs/ builds with ``mkdocs build --strict`` (no broken link, anchor or page), and the JSON
Schemas in docs/schema/ are those the models generate today."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

README = ROOT / "README.md"
DOCS = ROOT / "docs"
MKDOCS_YML = ROOT / "mkdocs.yml"

#: the README is a front door, not a manual
README_MAX_BYTES = 15 * 1024

_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _pages() -> set[Path]:
    return {path.resolve() for path in DOCS.rglob("*.md")}


def _local_links(markdown: Path) -> list[tuple[str, Path]]:
    """(link as written, resolved file) for every relative link of a markdown file, code
    blocks left out."""
    text = re.sub(r"^```.*?^```", "", markdown.read_text(encoding="utf-8"), flags=re.S | re.M)
    found = []
    for target in _LINK.findall(text):
        parts = urlsplit(target)
        if parts.scheme or parts.netloc or not parts.path:
            continue  # a web address, or an anchor on the same page
        found.append((target, (markdown.parent / unquote(parts.path)).resolve()))
    return found


def test_readme_is_a_front_door():
    size = README.stat().st_size
    assert size <= README_MAX_BYTES, (
        "README.md is %d bytes, over %d: move detail to docs/" % (size, README_MAX_BYTES))


def test_readme_links_resolve():
    broken = [target for target, path in _local_links(README) if not path.exists()]
    assert not broken, "README links to missing files: %s" % broken


def test_every_docs_page_is_linked_from_the_readme():
    linked = {path for _, path in _local_links(README)}
    pages = _pages()
    assert pages, "no docs pages found"
    missing = sorted(str(page.relative_to(ROOT)) for page in pages - linked)
    assert not missing, "docs pages the README does not link to: %s" % missing


def test_every_docs_page_is_in_the_nav():
    nav = {match.strip() for match in re.findall(r":\s*([\w./-]+\.md)\s*$",
                                                  MKDOCS_YML.read_text(encoding="utf-8"),
                                                  flags=re.M)}
    pages = {str(page.relative_to(DOCS.resolve())) for page in _pages()}
    assert pages == nav, "docs pages and mkdocs.yml nav differ: only pages %s, only nav %s" % (
        sorted(pages - nav), sorted(nav - pages))


def test_mkdocs_build_strict(tmp_path):
    """The site builds with every warning an error: a broken link, a missing anchor, a page
    outside the nav, a snippet that cannot be included."""
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(MKDOCS_YML),
         "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={"PATH": "/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    site = tmp_path / "site"
    for page in _pages():
        relative = page.relative_to(DOCS.resolve())
        html = site / relative.with_suffix("") / "index.html"
        if relative.name == "index.md":
            html = site / relative.parent / "index.html"
        assert html.exists(), "%s was not built" % relative
    assert "vs_human_eval.py" in (site / "benchmarks" / "index.html").read_text(encoding="utf-8")
    # the changelog page is CHANGELOG.md itself, included, not a copy
    dates = re.findall(r"^## (\d{4}-\d\d-\d\d)", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"),
                       flags=re.M)
    changelog = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    assert dates and all(date in changelog for date in dates)


def test_json_schemas_are_up_to_date():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_schema.py"), "--check"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_problem_schema_accepts_the_shipped_problems_shape():
    """The generated schema says what the model reads: every shipped problem file has only
    the schema's top-level fields and all its required ones."""
    schema = json.loads((DOCS / "schema" / "problem.schema.json").read_text(encoding="utf-8"))
    allowed, required = set(schema["properties"]), set(schema["required"])
    assert schema.get("additionalProperties") is False
    files = sorted((ROOT / "problems").rglob("*.json"))
    assert files
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert required <= set(data) <= allowed, path


@pytest.mark.parametrize("page", ["formats.md", "scoring.md", "proof-grading.md"])
def test_seed_formats_are_described_in_docs(page):
    """The formats the project was seeded with are documented in docs/ itself; the docs do
    not send readers to files outside the repository."""
    text = (DOCS / page).read_text(encoding="utf-8")
    assert "shared/seeds" not in text
    assert len(text) > 2000


def _json_problem_examples() -> list[tuple[str, str]]:
    """(where, text) of every ```json block in the README and docs/ that is a function problem
    definition (it has ``function_prototype``) written out whole."""
    found = []
    for page in [README, *sorted(DOCS.rglob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"^```json\n(.*?)^```", text, flags=re.S | re.M):
            block = match.group(1)
            if '"function_prototype"' in block and '"identifier"' in block and "..." not in block:
                line = text.count("\n", 0, match.start()) + 1
                found.append(("%s:%d" % (page.relative_to(ROOT), line), block))
    return found


def test_problem_examples_in_the_docs_are_valid_problems():
    """A problem shown to users as an example must load as written (the README's 'Write a
    problem' once lacked fields the problem spec requires)."""
    from judge.problem.model import function_from_data

    examples = _json_problem_examples()
    assert any(where.startswith("README.md") for where, _ in examples), examples
    for where, block in examples:
        problem = function_from_data(json.loads(block), where)
        assert problem.identifier, where
