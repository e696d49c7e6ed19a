"""A problem kind and an output checker added by an installed package, through entry points
(``judge.kinds``, ``judge.checkers``), judging real candidates in the process sandbox: no
file of the judge is touched.

The plug-in is a real (tiny) distribution: a ``.dist-info`` folder with ``entry_points.txt``
in a temporary folder on ``sys.path`` of a fresh interpreter, read by the real
``importlib.metadata``. Its kind, ``listing``, is a problem whose answer is a set of lines
printed in any order; its checker, ``any-order``, compares the lines as a multiset. The kind
judges on the engine by handing the program kind a program problem that names the checker.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from tests.paths import ROOT


PLUGIN = '''
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from judge import languages
from judge.candidates.submission import Submission, extract_fenced
from judge.engine.checkers.base import Checker
from judge.engine.output_check import Difference, read_all
from judge.errors import InputError, Issue
from judge.kinds.base import KINDS, KindJudge, ProblemKind
from judge.problem.program import program_from_data
from judge.prompts.render import RenderedPrompt


class Listing(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["listing"] = "listing"
    identifier: str
    statement: str
    items: list[str]
    tags: list[str] | None = None

    @property
    def source(self) -> str:
        return "<listing>"

    @property
    def tests(self) -> list[Any]:
        return [self.items]

    def test_count(self) -> int:
        return 1


class AnyOrder(Checker):
    name = "any-order"
    description = "the output's lines as a multiset: any order"

    def difference(self, answer, output, options):
        want = sorted(line.strip() for line in read_all(answer).splitlines() if line.strip())
        got = sorted(line.strip() for line in read_all(output).splitlines() if line.strip())
        if want == got:
            return None
        missing = [x.decode() for x in want if x not in got]
        extra = [x.decode() for x in got if x not in want]
        return Difference("wrong answer: missing %s, unexpected %s" % (missing, extra))


class ListingJudge(KindJudge):
    def __init__(self, engine):
        self.engine = engine
        program = KINDS.get("program")
        self.programs = engine.judge_for(program.name, program.open)

    def judge(self, problem, submission, **meta):
        data = {"kind": "program", "identifier": problem.identifier,
                "statement": problem.statement, "checker": {"type": "any-order"},
                "tests": [{"stdin": "", "expected": "\\n".join(problem.items) + "\\n"}]}
        as_program = program_from_data(data, "<listing>", Path("."))
        return self.programs.judge(as_program, submission, **meta)


class ListingKind(ProblemKind):
    name = "listing"
    description = "print a set of lines, in any order"

    def load(self, data, file, root=None):
        try:
            return Listing.model_validate(data)
        except ValidationError as exc:
            raise InputError([Issue(file, e["msg"], ".".join(map(str, e["loc"])))
                              for e in exc.errors()]) from None

    def submission(self, problem, candidate):
        lang = languages.get(candidate.language)
        code, note = extract_fenced(candidate.solution, lang.fence_tags, lambda block: True)
        return Submission(code, "", note, lang.name)

    def open(self, engine):
        return ListingJudge(engine)

    def prompts(self, problem, language=None, genericize=False):
        body = "%s\\nPrint one item per line, in any order." % problem.statement
        return [RenderedPrompt(problem.identifier, "listing", False, "", body)]
'''

ENTRY_POINTS = """\
[judge.kinds]
listing = judge_plugin_kinds:ListingKind

[judge.checkers]
any-order = judge_plugin_kinds:AnyOrder
"""

SCRIPT = r'''
import json, sys
import judge
from judge.kinds.base import KINDS
from judge.engine.checkers.base import CHECKERS

out = {"kinds": KINDS.names(), "checkers": CHECKERS.names()}
suite = judge.load_suite(sys.argv[1])
problem = suite["divisors_of_12"]
out["kind"] = problem.kind
reverse = "```python\nfor d in [12, 6, 4, 3, 2, 1]:\n    print(d)\n```"
short = "for d in [1, 2, 3, 4, 6]:\n    print(d)\n"
loops = "while True:\n    pass\n"
with judge.Judge("process", jobs=1, allow_unisolated=True) as j:
    for name, code in (("reverse", reverse), ("short", short), ("loops", loops)):
        result = j.judge(problem, code)
        out[name] = [result.verdict.value, result.message]
print(json.dumps(out))
'''


@pytest.fixture
def plugin(tmp_path):
    (tmp_path / "judge_plugin_kinds.py").write_text(textwrap.dedent(PLUGIN))
    info = tmp_path / "judge_plugin_kinds-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: judge-plugin-kinds\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "divisors.json").write_text(json.dumps({
        "kind": "listing", "identifier": "divisors_of_12",
        "statement": "Print the divisors of 12.", "items": ["1", "2", "3", "4", "6", "12"]}))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(tmp_path)])
    return tmp_path, suite, env


def test_a_plug_in_kind_and_checker_judge_candidates(plugin):
    _, suite, env = plugin
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(suite)], capture_output=True,
                          text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"function", "program", "listing"} <= set(out["kinds"])
    assert {"tokens", "exact", "lines", "validator", "any-order"} <= set(out["checkers"])
    assert out["kind"] == "listing"
    assert out["reverse"] == ["pass", None]  # any order: the plug-in's checker decided
    verdict, message = out["short"]
    assert verdict == "wrong_answer" and "missing ['12']" in message
    assert out["loops"][0] == "timeout"  # the sandbox's limits hold for a plug-in's kind


def test_the_command_line_loads_prompts_and_runs_a_plug_in_kind(plugin):
    tmp_path, suite, env = plugin
    prompts = subprocess.run([sys.executable, "-m", "judge", "prompts", str(suite)],
                             capture_output=True, text=True, env=env, timeout=300)
    assert prompts.returncode == 0, prompts.stderr[-2000:]
    assert "Print the divisors of 12." in prompts.stdout and "in any order" in prompts.stdout
    solutions = tmp_path / "solutions.jsonl"
    solutions.write_text(json.dumps({"problem_id": "divisors_of_12", "model": "m",
                                     "solution": "print('\\n'.join(['6', '1', '12', '2', '4', "
                                                 "'3']))"}) + "\n")
    run = subprocess.run([sys.executable, "-m", "judge", "run", str(suite), "--solutions",
                          str(solutions), "--sandbox", "process", "--allow-unisolated",
                          "--jobs", "1", "--no-output", "--format", "json"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    assert '"pass": 1' in run.stdout.replace("\n", "") or '"pass":1' in run.stdout


def test_a_misspelt_kind_is_a_located_error_with_a_suggestion(plugin):
    _, suite, env = plugin
    (suite / "typo.json").write_text(json.dumps({"kind": "listng", "identifier": "x"}))
    done = subprocess.run([sys.executable, "-m", "judge", "validate", str(suite)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    text = done.stdout + done.stderr
    assert "typo.json" in text and "kind" in text and "did you mean 'listing'" in text
