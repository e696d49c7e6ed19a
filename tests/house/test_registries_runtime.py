"""Languages, sandbox back ends and executors found by name, each in a registry, each with
its prerequisites; an installed package adds one through an entry point.

The entry-point tests install a real (tiny) distribution: a ``.dist-info`` folder with
``entry_points.txt`` in a temporary folder on ``sys.path`` of a fresh interpreter, read by
the real ``importlib.metadata``; the plug-in back end then judges a real candidate.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from judge import languages
from judge.candidates.extract import Candidate
from judge.errors import UnknownName
from judge.running.batch import candidate_key, optimal_candidates, submission_for
from judge.kinds.loader import load_suite
from judge.sandbox import BACKENDS, SandboxUnavailable, open_sandbox
from judge.sandbox.prerequisites import Prerequisite, all_met, tool_version
from tests.paths import ROOT

BASICS = load_suite(ROOT / "problems" / "basics")
PROBLEM = BASICS.problems[0]


# ---- languages -------------------------------------------------------------------------------

def test_python_is_a_language_among_the_others():
    assert languages.names()[:6] == ["python", "js", "cpp", "go", "rust", "java"]
    python = languages.get("python")
    assert python.default and not python.worker_native and python.pool == "python"
    for name in languages.NATIVE:
        lang = languages.get(name)
        assert not lang.default and lang.worker_native and lang.pool == "native", name
    assert languages.get(None) is python and languages.get("") is python
    assert languages.get("python3") is python


@pytest.mark.parametrize("alias, name", [("javascript", "js"), ("node", "js"), ("c++", "cpp"),
                                         ("cxx", "cpp"), ("golang", "go"), ("rs", "rust"),
                                         ("py", "python"), ("python3", "python"),
                                         ("  C++ ", "cpp"), ("JAVA", "java")])
def test_aliases_are_kept(alias, name):
    assert languages.normalize(alias) == name
    assert languages.get(alias) is languages.get(name)


def test_an_unknown_language_suggests_the_closest():
    with pytest.raises(UnknownName) as caught:
        languages.get("pyhton")
    assert str(caught.value) == "unknown language 'pyhton' (did you mean 'python'?)"
    assert caught.value.code == "unknown_name"
    with pytest.raises(ValueError, match="unknown language 'cobol' \\(choose from python, js"):
        languages.normalize("cobol")
    assert not languages.is_default("pyhton") and languages.is_default(None)


def test_the_reply_to_code_step_is_one_call_for_every_language():
    reply = ("Here is my answer.\n\n```python\ndef helper():\n    return 1\n```\n\nand\n\n"
             "```python\ndef %s(*args):\n    return helper()\n```\nHope it helps!"
             % PROBLEM.function_name)
    candidate = Candidate(PROBLEM.identifier, reply)
    python = languages.get("python").submission(PROBLEM, candidate)
    assert python.language == "python" and python.function == PROBLEM.function_name
    assert python.code.startswith("def %s" % PROBLEM.function_name)
    assert python.note == "took code block 2 of 2 (it defines %s)" % PROBLEM.function_name
    assert submission_for(PROBLEM, candidate) == python

    cpp_reply = "Sure:\n```cpp\nlong long %s(long long n) { return n; }\n```\n" % "digitalRoot"
    cpp = Candidate(PROBLEM.identifier, cpp_reply, language="cpp")
    got = languages.get("cpp").submission(PROBLEM, cpp)
    assert got.language == "cpp" and got.code.startswith("long long")
    assert submission_for(PROBLEM, cpp) == got
    # a reply with no fence in that language is its code as it is (the compiler judges it)
    bare = Candidate(PROBLEM.identifier, "fn main() {}", language="rust")
    assert languages.get("rust").submission(PROBLEM, bare).code == "fn main() {}"


def test_keys_of_default_language_candidates_are_unchanged():
    """A results line written before languages were registries keeps its key (resume)."""
    named = Candidate("p", "code", language="python")
    unnamed = Candidate("p", "code")
    assert candidate_key(named, "code") == candidate_key(unnamed, "code")
    assert candidate_key(Candidate("p", "code", language="js"), "code") != \
        candidate_key(unnamed, "code")


def test_reference_solutions_by_language():
    python = list(optimal_candidates(BASICS))
    assert len(python) == len(BASICS.problems)
    assert all(c is not None and c.solution == p.optimal_solution
               for (c, _), p in zip(python, BASICS.problems))
    cpp = [c for c, _ in optimal_candidates(BASICS, "cpp")]
    assert cpp and all(c.language == "cpp" for c in cpp)
    assert cpp[0].solution == (ROOT / "problems" / "basics" / "cpp" /
                               ("%s.cpp" % cpp[0].problem_id)).read_text(encoding="utf-8")


def test_language_prerequisites_name_their_toolchain():
    for name in languages.names():
        needs = languages.get(name).prerequisites()
        assert needs and all(isinstance(p, Prerequisite) for p in needs), name
    assert [p.name for p in languages.get("java").prerequisites()] == ["javac", "java"]
    python = languages.get("python").prerequisites()[0]
    assert python.met and python.found.startswith("Python 3.")


def test_a_missing_or_failing_tool_is_a_prerequisite_not_met(tmp_path):
    missing = tool_version("nothing", [str(tmp_path / "no-such-compiler"), "--version"], "x")
    assert not missing.met and "not found" in missing.found
    failing = tmp_path / "failing"
    failing.write_text("#!/bin/sh\necho broken >&2\nexit 7\n")
    failing.chmod(0o755)
    broke = tool_version("failing", [str(failing)], "x")
    assert not broke.met and "exited 7: broken" in broke.found
    assert not all_met([broke]) and all_met([Prerequisite("a", "b", False, required=False)])


# ---- sandbox back ends and executors ---------------------------------------------------------

def test_back_ends_by_name_with_a_did_you_mean():
    assert BACKENDS.names()[:2] == ["process", "docker"]
    with pytest.raises(SandboxUnavailable, match="unknown sandbox 'dokcer' \\(did you mean "
                                                 "'docker'\\?\\)"):
        open_sandbox("dokcer", 1)


def test_the_process_back_end_opens_by_name_and_checks_itself():
    needs = BACKENDS.get("process").prerequisites()
    names = [p.name for p in needs]
    assert names[:2] == ["linux", "python"]
    if os.geteuid() == 0:
        assert "isolation" in names
    with open_sandbox("process", 1, allow_unisolated=True) as sandbox:
        assert sandbox.name == "process"


def test_executors_by_name():
    import judge

    with pytest.raises(UnknownName, match="unknown executor 'rey' \\(did you mean 'ray'\\?\\)"):
        judge.Judge("process", executor="rey")
    from judge.distribution.executors import EXECUTORS

    assert EXECUTORS.names()[:2] == ["local", "ray"]
    assert EXECUTORS.get("ray").remote and not EXECUTORS.get("local").remote


def test_doctor_report_lists_every_back_end_executor_and_language():
    from judge.cli.doctor import doctor_report, render

    report = doctor_report()
    assert [e["name"] for e in report["sandboxes"]][:2] == ["process", "docker"]
    assert [e["name"] for e in report["executors"]][:2] == ["local", "ray"]
    assert [e["name"] for e in report["languages"]][:6] == list(languages.LANGUAGES)
    for entry in report["languages"]:
        assert entry["prerequisites"] and entry["ready"] == all_met(entry["prerequisites"])
    text = render(report)
    assert "g++" in text and "javac" in text and "rustc" in text and "node" in text


# ---- an installed package adds a language and a back end ---------------------------------------

PLUGIN = '''
from judge.languages.base import Language
from judge.sandbox.backends.process.backend import ProcessBackend
from judge.sandbox.prerequisites import Prerequisite


class Brainfork(Language):
    name = "brainfork"
    title = "Brainfork 1.0"
    extension = "bf"
    fence_tags = ("bf", "brainfork")
    tools = (("sh", ("/bin/sh", "-c", "echo brainfork-toolchain 1.0")),)

    def defines(self, code, name):
        return ("def " + name) in code


class SecondProcess(ProcessBackend):
    """The process sandbox again, under another name: a real back end from a package."""

    name = "second-process"
    description = "a plug-in back end"

    def prerequisites(self):
        return [Prerequisite("plug-in marker", "nothing", True, "installed")]


class Broken(ProcessBackend):
    name = "broken-check"

    def prerequisites(self):
        raise RuntimeError("the plug-in's check itself crashed")
'''

ENTRY_POINTS = """[judge.languages]
brainfork = judge_plugin_demo:Brainfork

[judge.sandboxes]
second-process = judge_plugin_demo:SecondProcess
broken-check = judge_plugin_demo:Broken
missing-module = judge_plugin_nowhere:Thing
"""

SCRIPT = '''
import json, sys
import judge
from judge import languages
from judge.candidates.extract import Candidate
from judge.kinds.loader import load_suite
from judge.sandbox import BACKENDS, kinds

out = {"languages": languages.names(), "sandboxes": kinds()}
lang = languages.get("BrainFork")
reply = "text\\n```bf\\ndef %s\\n```\\n" % "digital_root"
out["submission"] = lang.submission(load_suite(sys.argv[1]).problems[0],
                                    Candidate("p", reply, language="brainfork")).code
out["default"] = lang.default
suite = load_suite(sys.argv[1])
problem = suite.problems[0]
with judge.Judge("second-process", jobs=1, allow_unisolated=True) as j:
    result = j.judge(problem, problem.optimal_solution)
    out["verdict"] = result.verdict.value
    out["sandbox"] = j.sandbox.name
print(json.dumps(out))
'''


@pytest.fixture
def plugin_path(tmp_path):
    (tmp_path / "judge_plugin_demo.py").write_text(textwrap.dedent(PLUGIN))
    info = tmp_path / "judge_plugin_demo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: judge-plugin-demo\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return tmp_path


def _env(plugin: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(plugin)])
    return env


def test_an_entry_point_adds_a_language_and_a_back_end_that_judges(plugin_path):
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT / "problems" / "basics")],
                          capture_output=True, text=True, env=_env(plugin_path), timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["languages"][:6] == list(languages.LANGUAGES)
    assert "brainfork" in out["languages"]
    assert out["sandboxes"][:3] == ["auto", "process", "docker"]
    assert "second-process" in out["sandboxes"]
    assert out["submission"] == "def digital_root\n" and out["default"] is False
    assert out["sandbox"] == "process" and out["verdict"] == "pass"


def test_doctor_lists_plug_ins_and_survives_broken_ones(plugin_path):
    done = subprocess.run([sys.executable, "-m", "judge", "sandbox", "doctor",
                           "--language", "python"],
                          capture_output=True, text=True, env=_env(plugin_path), timeout=300)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    text = done.stdout
    assert "second-process" in text and "plug-in marker" in text
    assert "brainfork" in text and "brainfork-toolchain 1.0" in text
    broken = text[text.index("broken-check"):].splitlines()
    assert "NOT READY" in broken[0] and "the plug-in's check itself crashed" in broken[1]
    missing = text[text.index("missing-module"):].splitlines()
    assert "NOT READY" in missing[0] and "judge_plugin_nowhere" in missing[1]


def test_the_command_line_takes_a_plug_ins_back_end_and_registered_names(plugin_path, tmp_path):
    """--sandbox, --language and --executor take what the registries hold (a plug-in's back
    end included) and suggest the closest name for a typo: no list of names in the CLI."""
    suite = str(ROOT / "problems" / "basics" / "basics_pascal_row.json")
    done = subprocess.run([sys.executable, "-m", "judge", "run", suite, "--solutions", "optimal",
                           "--sandbox", "second-process", "--allow-unisolated", "--jobs", "1",
                           "--no-output", "--format", "json"],
                          capture_output=True, text=True, env=_env(plugin_path), timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert '"pass": 1' in done.stdout.replace("\n", "") or '"pass":1' in done.stdout
    helptext = subprocess.run([sys.executable, "-m", "judge", "run", "--help"],
                              capture_output=True, text=True, env=_env(plugin_path), timeout=300)
    assert "second-process" in helptext.stdout and "brainfork" in helptext.stdout
    for flag, typo, suggestion in (("--sandbox", "dokcer", "docker"),
                                   ("--language", "pyhton", "python"),
                                   ("--executor", "lcoal", "local")):
        bad = subprocess.run([sys.executable, "-m", "judge", "run", suite, "--solutions",
                              "optimal", flag, typo], capture_output=True, text=True,
                             env=_env(plugin_path), timeout=300)
        assert bad.returncode == 2, bad.stderr
        assert "did you mean %r?" % suggestion in bad.stderr and "Traceback" not in bad.stderr
