"""Languages own their facts (issue 32, item 5): every table of language names, extensions
and runtime texts is declared by the language modules (``Language.names_in``,
``source_extensions``, ``oom_markers``...) and looked up through :mod:`judge.languages`.
No module of ``judge/`` outside ``judge/languages/`` keeps one, and a language registered
at run time (as a plug-in's entry point does) is in every table without another file edited.
Pure: no sandbox, nothing run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from judge import languages
from judge.engine import classify
from judge.engine.verdicts import Verdict
from judge.errors import UnknownName
from judge.importers.kattis_files import judged, sources_language, submission_language
from judge.importers.kattis_submissions import include_files
from judge.languages import REGISTRY, Language
from judge.languages.programs import program_language, program_language_names
from judge.sandbox import records as R
from judge.sandbox.base import Job, Limits
from judge.sandbox.base import TestInput as Input
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

pytestmark = pytest.mark.pure

PACKAGE = ROOT / "judge"
MIB = 1 << 20

# ---- (a) no table of language names or extensions outside judge/languages/ -------------------

#: literals let through by file and line text, with why: a table that cannot be elsewhere
ALLOWED = {
    # one language's own fence tags (Python's), at layer 2 where Python's reply-to-code step
    # lives; judge.languages.python takes its fence_tags from it
    "judge/candidates/extract.py": "PYTHON_TAGS = frozenset(",
    # the judge's own source files (package and runners) hashed into the cache's version,
    # not a table of languages
    "judge/engine/cache.py": "if path.suffix in (",
}
#: literals let through while a rewrite is pending (none now: judge.service.fusion asks
#: named_in("sandboxfusion", name) and Language.build_flags_in["sandboxfusion"])
PENDING: dict[str, tuple[str, ...]] = {}


def _known_words() -> tuple[set[str], set[str]]:
    """Every registered language's names (aliases and the names other schemes give it) and
    its source extensions (bare and dotted)."""
    names = set(REGISTRY.names()) | set(REGISTRY.aliases())
    extensions = set()
    for lang in languages.loaded():
        for scheme in lang.names_in.values():
            names |= {n for n in scheme if isinstance(n, str)}
        extensions |= {form for e in lang.file_extensions() for form in (e, "." + e)}
    return names, extensions


def _strings(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Dict):
        items = [k for k in node.keys if k is not None] + list(node.values)
    else:
        items = list(node.elts)  # type: ignore[attr-defined]
    return {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}


def language_tables(source: str, names: set[str], extensions: set[str]) -> list[int]:
    """Lines of ``source`` holding a literal dict, list, tuple or set with two or more of
    ``names`` or two or more of ``extensions``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
            held = _strings(node)
            if len(held & names) >= 2 or len(held & extensions) >= 2:
                lines.append(node.lineno)
    return lines


def test_the_table_finder_finds_them():
    names, extensions = {"cpp", "java", "c++"}, {"cc", ".cc", "cpp", ".cpp"}
    source = ("a = {'cpp': 1, 'java': 2}\nb = ('cpp', 'x')\nc = ['.cc', '.cpp']\n"
              "d = {1: 'cpp', 2: 'c++'}\ne = {'cpp'}\nf = f('cpp', 'java')\n")
    assert language_tables(source, names, extensions) == [1, 3, 4]


def test_no_module_outside_the_languages_keeps_a_table_of_them():
    names, extensions = _known_words()
    assert {"python", "cpp", "c++", "nodejs", "CPP"} <= names and {"cc", ".C"} <= extensions
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).as_posix()
        if relative.startswith("judge/languages/") or "_resources" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        let_through = (ALLOWED.get(relative, ""),) + PENDING.get(relative, ())
        found += ["%s:%d: %s" % (relative, line, lines[line - 1].strip())
                  for line in language_tables(text, names, extensions)
                  if not any(known and known in lines[line - 1] for known in let_through)]
    assert not found, ("declare it on the Language (names_in, source_extensions, ...) and "
                       "look it up through judge.languages:\n" + "\n".join(found))


# ---- (b) the lookups: built-in languages -------------------------------------------------------

def test_a_language_by_extension():
    by = languages.for_extension
    assert by(".cc").name == by("cpp").name == by(".CPP").name == by(".C").name == "cpp"
    assert by(".c").name == "c"  # lower case: C; upper case: C++ (as Kattis has it)
    assert by(".py").name == "python"  # registered before pypy3, which reads the same files
    assert by(".mjs").name == "js" and by(".rs").name == "rust"
    assert by(".h") is None and languages.is_header(".h") and languages.is_header("hpp")
    assert by(".txt") is None and by("") is None and not languages.is_header(".py")


def test_a_program_of_several_languages():
    c, cpp, python = (languages.get(n) for n in ("c", "cpp", "python"))
    assert languages.one_language([c, cpp, c]) is cpp  # C beside C++ is C++
    assert languages.one_language([python]) is python
    assert languages.one_language([c, python]) is None and languages.one_language([]) is None


#: the languages of the polyglot pool (issue 34), checked apart: the tables below stay the
#: native languages' whatever is added beside them
POLYGLOT_COMPILED = {"csharp": ("csharp", "csharp"), "d": ("d", None),
                     "kotlin": ("kotlin", "kotlin_script"), "scala": ("scala", "scala"),
                     "typescript": ("typescript", "typescript")}


def _native(lang):
    return lang.pool != "polyglot"


def test_names_in_other_schemes():
    def named(scheme):
        return {k: v.name for k, v in languages.all_named_in(scheme).items() if _native(v)}

    for name, (kattis, fusion) in POLYGLOT_COMPILED.items():
        lang = languages.get(name)
        assert (lang.name_in("kattis"), lang.name_in("sandboxfusion")) == (kattis, fusion)
        if fusion:
            assert languages.named_in("sandboxfusion", fusion) is lang

    # SandboxFusion's names, as judge.service.fusion maps them today
    assert named("sandboxfusion") == {
        "python": "python", "python3": "python", "cpp": "cpp", "c": "c", "java": "java",
        "nodejs": "js", "javascript": "js", "js": "js", "go": "go", "rust": "rust",
        # a test framework of the native pool (judge/languages/frameworks.py)
        "go_test": "go_test"}
    assert named("codecontests") == {1: "python", 2: "cpp", 3: "python", 4: "java",
                                     "PYTHON": "python", "PYTHON3": "python", "CPP": "cpp",
                                     "JAVA": "java"}
    assert named("kattis") == {"python": "python", "python3": "python", "py3": "python",
                               "cpp": "cpp", "c++": "cpp", "c": "c", "java": "java",
                               "javascript": "js", "js": "js", "node": "js", "go": "go",
                               "golang": "go", "rust": "rust"}
    assert languages.named_in("sandboxfusion", "nodejs") is languages.get("js")
    assert languages.get("java").name_in("kattis") == "java"
    assert languages.get("pypy3").name_in("kattis") is None
    with pytest.raises(UnknownName) as caught:
        languages.named_in("sandboxfusion", "cobol")
    said = str(caught.value)
    assert said.startswith("unknown language 'cobol' (choose from ")
    assert all(" %s," % name in said for name in ("c", "csharp", "java", "kotlin_script", "scala"))
    with pytest.raises(UnknownName):
        languages.named_in("codecontests", ["unhashable"])
    assert languages.get("java").build_flags_in["sandboxfusion"] == {"assertions": True,
                                                                     "libraries": True}
    assert {name: languages.get(name).build_flags_in.get("sandboxfusion")
            for name in POLYGLOT_COMPILED} == {
        "csharp": {"debug": True}, "d": None, "kotlin": {"script": True}, "scala": None,
        "typescript": {"libraries": True}}
    assert languages.get("python").build_flags_in["sandboxfusion"] == {"syntax_check": False}


def test_runtime_texts_are_the_languages():
    native = [lang for lang in languages.loaded() if _native(lang)]
    assert {e for lang in native for e in lang.allocation_errors} == {
        "MemoryError", "OutOfMemoryError", "java.lang.OutOfMemoryError", "std::bad_alloc"}
    assert {"System.OutOfMemoryException", "core.exception.OutOfMemoryError",
            "java.lang.OutOfMemoryError"} <= languages.allocation_errors()
    assert {"System.OutOfMemoryException", "core.exception.OutOfMemoryError",
            "JavaScript heap out of memory"} <= set(languages.oom_markers())
    assert {m for lang in native for m in lang.oom_markers} == {
        "fatal error: runtime: out of memory", "JavaScript heap out of memory",
        "java.lang.OutOfMemoryError", "memory allocation of ", "std::bad_alloc"}
    assert languages.get("java").prompt_where == "a method of class Solution"
    assert languages.get("go").prompt_where == "in package main"
    assert languages.get("python").prompt_where == ""


def test_kattis_names_of_submissions_and_validators(tmp_path):
    assert sources_language({"a.c": "", "b.cpp": "", "x.h": ""}) == "cpp"
    assert sources_language({"a.js": ""}) == "javascript"
    assert sources_language({"a.hs": ""}) == "haskell" and not judged("haskell")
    assert sources_language({"a.py": "#!/usr/bin/python2\n"}) == "python2"
    assert sources_language({"a.py": "", "b.hs": ""}) is None
    assert judged("javascript") and judged("cpp") and not judged(None)
    (tmp_path / "v.cc").write_text("")
    assert program_language(tmp_path / "v.cc") == "cpp"
    assert {"c", "cpp", "go", "java", "javascript", "python", "rust", "script", "csharp", "d",
            "kotlin", "scala", "typescript"} <= set(program_language_names())
    assert sources_language({"a.kt": ""}) == "kotlin" and judged("kotlin")
    assert sources_language({"a.cs": "", "b.cs": ""}) == "csharp" and judged("csharp")


# ---- (b) a language registered at run time is in every table -----------------------------------

class Zig(Language):
    """A language as a plug-in declares it: its facts only (one no module of the judge adds)."""

    name = "zig"
    title = "Zig"
    extension = "zig"
    source_extensions = ("zig", "zon")
    names_in = {"kattis": ("zig",), "sandboxfusion": ("zig_script",)}
    allocation_errors = ("zig.OutOfMemoryHere",)
    oom_markers = ("Zig ran out of its heap",)
    prompt_where = "a top-level function"


@pytest.fixture
def zig():
    """Zig in the language registry for one test, then the registry as it was (the
    registry is process-wide and has no public removal: its tables are restored)."""
    saved = [dict(table) for table in (REGISTRY._targets, REGISTRY._aliases, REGISTRY._loaded)]
    REGISTRY.add("zig", Zig, aliases=("zig-lang",))
    try:
        yield REGISTRY.get("zig")
    finally:
        for table, before in zip((REGISTRY._targets, REGISTRY._aliases, REGISTRY._loaded), saved):
            table.clear()
            table.update(before)


def test_a_language_registered_at_run_time_is_found_everywhere(zig, tmp_path):
    assert isinstance(zig, Zig) and zig in languages.loaded()
    assert languages.for_extension(".zig") is zig and languages.for_extension("ZON") is zig
    assert languages.named_in("kattis", "zig") is zig
    assert languages.named_in("sandboxfusion", "zig_script") is zig
    # the Kattis importer: its files are judged Zig submissions, with their include folder
    assert submission_language(_write(tmp_path / "main.zig", "pub fn main() void {}")) == "zig"
    assert judged("zig")
    _write(tmp_path / "include" / "zig" / "lib.zig", "pub const x = 1;")
    assert include_files(tmp_path, "zig") == {"lib.zig": "pub const x = 1;"}
    # a validator in it
    assert program_language(tmp_path / "main.zig") == "zig"
    assert "zig" in program_language_names()
    # its runtime's words, read beside a measurement
    assert "zig.OutOfMemoryHere" in languages.allocation_errors()
    job = Job(id="j", code="", function="solve",
              tests=[Input(args=[], time_limit_s=1.0, wall_limit_s=3.0)],
              limits=Limits(time_limit_s=1.0, memory_mb=256, output_kb=64))
    died = {"status": R.EXITED, "exit_code": 1, "maxrss_bytes": 250 * MIB,
            "stderr_head": "Zig ran out of its heap"}
    assert classify.classify(died, 0, job)[0] is Verdict.MEMORY_LIMIT
    raised = {"status": R.RAISED, "exc_type": "zig.OutOfMemoryHere"}
    assert classify.classify(raised, 0, job)[0] is Verdict.MEMORY_LIMIT
    # the command line's choices
    from judge.cli.main import build_parser

    args = build_parser().parse_args(["sandbox", "doctor", "--language", "zig"])
    assert args.language == "zig"


def test_the_registry_is_as_it_was_after_a_run_time_language():
    assert "zig" not in REGISTRY.names()
    assert languages.for_extension(".zig") is None
    assert sources_language({"a.zig": ""}) is None and not judged("zig")
    with pytest.raises(UnknownName):
        languages.named_in("kattis", "zig")


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
