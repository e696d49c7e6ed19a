"""Hardening round four (issue 36), program judging in both sandboxes:

- 36.5: one output-limit rule everywhere. A Python program judged in series (one forked child
  runs the tests one after another) and the same program judged one process per test get the
  same verdict, test by test, when it floods standard error (each test its own standard
  error under the output limit, never the tests before it);
- 36.4: a lone surrogate in a program's source is the candidate's text, in all 8 languages:
  written as its bytes and judged by the compiler (a pass or a compile error), never
  sandbox_error; the in-process reward gives a number for it;
- 36.11: a ``files`` path 1,200 folders deep is written (the worker makes folders one level
  at a time) and one too long for the kernel is the sandbox's error, never the candidate's.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from judge.engine.engine import Engine, Options
from judge.kinds.program.judge import ProgramJudge
from judge.engine.verdicts import Verdict
from judge.problem.program import program_from_data
from judge.sandbox.base import Limits

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(scope="module", params=SANDBOXES)
def sandbox(request):
    from judge.languages.sandbox import for_languages
    from judge.sandbox import open_sandbox

    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    box = for_languages(open_sandbox(request.param, 1), 1)
    yield box
    box.close()


class _Recording:
    """A real sandbox that remembers whether each job it ran asked for a series."""

    def __init__(self, box):
        self.box, self.name, self.series = box, box.name, []

    def __getattr__(self, name):  # everything else: the real sandbox's
        return getattr(self.box, name)

    def run(self, job):
        self.series.append(bool((job.build or {}).get("series")))
        return self.box.run(job)


def _problem(tmp_path: Path, alone: bool, count: int = 6):
    # arguments on a test keep it out of a series: one process per test
    tests = [{"name": str(i), "stdin": "%d %d\n" % (i, 2 * i), "expected": "%d\n" % (3 * i),
              **({"args": ["x"]} if alone else {})} for i in range(count)]
    return program_from_data(
        {"kind": "program", "identifier": "add", "statement": "Add.", "tests": tests,
         "limits": {"time_limit_s": 2, "memory_mb": 256}}, str(tmp_path / "add.json"), tmp_path)


def _judge(sandbox, problem, code, language="python", all_tests=True):
    from judge.candidates.submission import Submission

    recording = _Recording(sandbox)
    judge = ProgramJudge(Engine(recording, Limits(time_limit_s=2.0), Options(all_tests=all_tests)))
    return judge.judge(problem, Submission(code, "", None, language)), recording.series


READ = "import sys\na, b = map(int, input().split())\nprint(a + b)\nsys.stdout.flush()\n"


@pytest.mark.parametrize("flood", [
    # 9 MiB of standard error after a right answer, exit 0: over the 8 MiB output limit
    "sys.stderr.write('x' * (9 << 20))\n",
    # the same with SIGXFSZ ignored (the write fails quietly at the limit)
    "import signal\nsignal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
    "try:\n    sys.stderr.write('x' * (9 << 20))\nexcept OSError:\n    pass\n",
])
@pytest.mark.parametrize("all_tests", [True, False])
def test_an_stderr_flood_is_output_limit_in_series_as_in_a_process_per_test(
        sandbox, tmp_path, flood, all_tests):
    code = READ + flood
    series, asked = _judge(sandbox, _problem(tmp_path, alone=False), code, all_tests=all_tests)
    alone, asked_alone = _judge(sandbox, _problem(tmp_path, alone=True), code,
                                all_tests=all_tests)
    assert asked[0] is True and not any(asked_alone)  # both ways were taken
    assert alone.verdict is Verdict.OUTPUT_LIMIT and alone.passed == 0, alone.message
    assert [t.verdict for t in series.tests] == [t.verdict for t in alone.tests]
    assert series.verdict is Verdict.OUTPUT_LIMIT and series.passed == 0, [
        (t.verdict.value, t.message) for t in series.tests]


def test_stderr_under_the_limit_in_every_test_passes_both_ways(sandbox, tmp_path):
    # 5 MiB a test: 30 MiB over the series, each test under the limit on its own
    code = READ + "sys.stderr.write('y' * (5 << 20))\n"
    series, asked = _judge(sandbox, _problem(tmp_path, alone=False), code)
    alone, _ = _judge(sandbox, _problem(tmp_path, alone=True), code)
    assert asked == [True]  # one series job: nothing was rerun alone
    assert series.verdict is Verdict.PASS and alone.verdict is Verdict.PASS, (
        series.message, alone.message)


SURROGATE_SOURCES = {
    "python": "a, b = map(int, input().split())\nprint(a + b)  # \ud800\n",
    "pypy3": "a, b = map(int, input().split())\nprint(a + b)  # \ud800\n",
    "c": '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);'
         'printf("%d\\n",a+b);return 0;} // \ud800\n',
    "cpp": '#include <cstdio>\nint main(){int a,b;scanf("%d %d",&a,&b);'
           'printf("%d\\n",a+b);} // \ud800\n',
    "js": 'const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(" ")'
          '.map(Number);\nconsole.log(a + b); // \ud800\n',
    "go": 'package main\nimport "fmt"\nfunc main() { var a, b int; fmt.Scan(&a, &b);'
          ' fmt.Println(a + b) } // \ud800\n',
    "rust": 'use std::io::Read;\nfn main() { let mut s = String::new();'
            ' std::io::stdin().read_to_string(&mut s).unwrap();'
            ' let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();'
            ' println!("{}", v[0] + v[1]); } // \ud800\n',
    "java": 'import java.util.*;\npublic class Main { public static void main(String[] x) {'
            ' Scanner s = new Scanner(System.in);'
            ' System.out.println(s.nextInt() + s.nextInt()); } } // \ud800\n',
}


@pytest.mark.parametrize("language", sorted(SURROGATE_SOURCES))
def test_a_lone_surrogate_in_a_program_is_the_candidates_text(sandbox, tmp_path, language):
    """Written as its bytes (surrogatepass: ED A0 80, invalid UTF-8): the compiler or the
    interpreter judges them (C, C++, JavaScript and CPython's compile() skip a comment; PyPy,
    Go, Rust and javac refuse the file), as it would the same file anywhere."""
    result, _ = _judge(sandbox, _problem(tmp_path, alone=False, count=2),
                       SURROGATE_SOURCES[language], language=language)
    assert result.verdict in (Verdict.PASS, Verdict.COMPILE_ERROR), (result.verdict,
                                                                       result.message)
    if language in ("go", "rust", "java", "pypy3"):
        assert result.verdict is Verdict.COMPILE_ERROR, result.message
    else:
        assert result.verdict is Verdict.PASS, result.message


def test_the_in_process_reward_scores_a_surrogate_program(sandbox):
    from judge import Judge
    from judge.rewards import Scorer, compute_score

    truth = {"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}
    reply = "Here:\n```python\n" + SURROGATE_SOURCES["python"] + "```\n"
    crash = "```python\nprint(1)  # \ud800\nraise SystemExit(\"\ud800\")\n```"
    with Judge(sandbox=sandbox) as judge:
        scorer = Scorer(judge=judge)
        assert compute_score("codecontests", reply, truth, scorer=scorer) == 1.0
        assert compute_score("codecontests", crash, truth, scorer=scorer) == 0.0


def _fusion_run(sandbox, files):
    from judge import Judge
    from judge.service.fusion import FusionRunner, applied_limits
    from judge.service.fusion_models import JudgeFacts
    from judge import languages

    server = Limits(time_limit_s=1.0, memory_mb=256)
    runner = FusionRunner(Judge(sandbox, limits=server))  # the API on the test's sandbox
    lang = languages.get("python")
    applied = applied_limits(server, 1, 256, 10)
    # past the route's own bounds (it refuses such paths with a 422): the worker's side
    report, limits, time_s = runner._job(lang, "print(open(%r).read(), end='')" % next(iter(files)),
                                         [b""], files, applied, False)
    return runner._responses(lang, report, 1, limits, time_s, JudgeFacts())[0]


def test_a_files_path_1200_deep_is_written_and_a_longer_one_is_ours(sandbox):
    data = base64.b64encode(b"deep\n").decode()
    deep = _fusion_run(sandbox, {"/".join(["d"] * 1200) + "/f.txt": data})
    assert deep.status.value == "Success" and deep.run_result.stdout == "deep\n", deep
    # 4,000 levels: longer than a path may be; the test cannot be set up: the sandbox's
    # failure (SandboxError: retry), never the candidate's Failed / runtime_error
    too_long = _fusion_run(sandbox, {"/".join(["d"] * 4000) + "/f.txt": data})
    assert too_long.status.value == "SandboxError", too_long
    assert "could not be set up" in too_long.message
    after = _fusion_run(sandbox, {"f.txt": data})  # the worker still serves
    assert after.status.value == "Success" and after.run_result.stdout == "deep\n"
