"""Programs that read ``input.txt`` and write ``output.txt`` (Codeforces' and CodeContests'
file problems, open-r1's ``input_mode: file``): the test's input is put in the working
directory, the answer judged is the file the program leaves, in both sandboxes."""

from __future__ import annotations

import pytest

from judge.api import Judge
from judge.engine.verdicts import Verdict
from judge.importers.rl_contests import CodeContests
from judge.prompts.programs import render_program_prompt
from judge.problem.program import ProgramProblem, program_from_data

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]

PROBLEM = {
    "kind": "program", "identifier": "files_sum", "statement": "Add the two numbers.",
    "io": {"input_file": "input.txt", "output_file": "output.txt"},
    "limits": {"time_limit_s": 2},
    "tests": [{"name": "1", "stdin": "2 3\n", "expected": "5\n"},
              {"name": "2", "stdin": "40 2\n", "expected": "42\n"}]}

RIGHT_PY = ("a, b = map(int, open('input.txt').read().split())\n"
            "open('output.txt', 'w').write(str(a + b) + '\\n')\nprint('debug output is not judged')\n")
RIGHT_CPP = """#include <cstdio>
int main() {
    FILE* in = std::fopen("input.txt", "r"); FILE* out = std::fopen("output.txt", "w");
    long a, b; std::fscanf(in, "%ld %ld", &a, &b); std::fprintf(out, "%ld\\n", a + b);
    return 0;
}
"""
# reads standard input (it has the test too) but answers on standard output: not judged
STDOUT_ONLY = "a, b = map(int, input().split())\nprint(a + b)\n"
# output.txt a link to a file of the machine's: never followed
LINK = "import os\nos.symlink('/etc/hostname', 'output.txt')\n"
FLOOD = "f = open('output.txt', 'w')\nwhile True:\n    f.write('7' * 65536)\n"


@pytest.fixture(scope="module", params=SANDBOXES)
def judge(request):
    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    with Judge(sandbox=request.param, jobs=2) as j:
        yield j


def _problem() -> ProgramProblem:
    return ProgramProblem.model_validate(PROBLEM)


@pytest.mark.parametrize("code, language, verdict", [
    (RIGHT_PY, "python", Verdict.PASS),
    (RIGHT_CPP, "cpp", Verdict.PASS),
    (STDOUT_ONLY, "python", Verdict.WRONG_ANSWER),
    (LINK, "python", Verdict.WRONG_ANSWER),
    (FLOOD, "python", Verdict.OUTPUT_LIMIT),
])
def test_the_answer_is_the_file_the_program_leaves(judge, code, language, verdict):
    result = judge.judge(_problem(), code, language=language)
    assert result.verdict is verdict, (result.verdict, result.message)


@pytest.mark.pure
def test_open_r1_file_records_and_the_prompt_name_the_files():
    record = {"id": "1A", "description": "Add.", "time_limit": 1.0, "memory_limit": 256.0,
              "input_mode": "file", "interaction_format": None, "generated_checker": None,
              "official_tests": [{"input": "2 3\n", "output": "5\n"}]}
    problem = CodeContests().problem(record)
    assert problem.io is not None
    assert (problem.io.input_file, problem.io.output_file) == ("input.txt", "output.txt")
    body = render_program_prompt(problem, "python").prompt
    assert "`input.txt`" in body and "`output.txt`" in body
    assert "standard input" not in body
    bad = CodeContests().from_records([dict(record, input_file="../etc/passwd")])
    assert not bad.problems and bad.issues[0].location == "[0].input_file"


@pytest.mark.pure
def test_file_io_is_refused_for_interactive_problems():
    from judge.errors import InputError

    data = dict(PROBLEM, interactive=True, checker={"type": "validator",
                                                     "validator": "v.py"})
    with pytest.raises(InputError, match="file input/output"):
        program_from_data(data, "<test>")
