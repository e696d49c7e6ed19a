"""Multi-pass problems beyond the basic case, judged for real in the process sandbox and in
Docker: a validator that rejects (43) while it writes ``nextpass.in`` (the rejection
stands, no next pass is run), and an interactive multi-pass problem (the Kattis format
allows ``type: [interactive, multi-pass]``): the interactor's ``nextpass.in`` is the next
pass's input file, its feedback folder (its state) is kept from one pass to the next, a
guesser right on the first pass only is rejected on the second, and an interactor that
still asks for a pass after the last one is a problem error."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.candidates.submission import Submission
from judge.engine.verdicts import Verdict
from judge.problem.program import program_from_data
from judge.running.executor import Executor
from judge.sandbox.base import Limits
from tests.paths import DATA

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
GUESS = DATA / "interactive" / "guess" / "submissions"

#: the guessing game over passes: the input is the secret and what the pass does
#: (``first``: on a right guess, ask for a ``last`` pass with another secret, keeping the
#: number of guesses in state.txt; ``last``: needs that state; ``reject``: write nextpass.in
#: for a pass that would accept anything, and reject; ``again``: always ask for another
#: pass; ``anything``: accept at once)
INTERACTOR = r'''import os
import sys

given, answer, feedback = sys.argv[1], sys.argv[2], sys.argv[3]
secret, mode = open(given).read().split()
secret = int(secret)
state = os.path.join(feedback, "state.txt")
used = int(open(state).read()) if os.path.exists(state) else 0
where = "pass 2" if os.path.exists(state) else "pass 1"


def wa(why):
    with open(os.path.join(feedback, "judgemessage.txt"), "w") as handle:
        handle.write("%s: %s" % (where, why))
    sys.exit(43)


def next_pass(secret, mode):
    with open(os.path.join(feedback, "nextpass.in"), "w") as handle:
        handle.write("%d %s\n" % (secret, mode))
    with open(state, "w") as handle:
        handle.write(str(used))


if mode == "anything":
    sys.exit(42)
if mode == "last" and not os.path.exists(state):
    wa("no state from the first pass")
for _ in range(12):
    line = sys.stdin.readline(64)
    if not line:
        wa("the guesser stopped before guessing it")
    try:
        guess = int(line)
    except ValueError:
        wa("not a number: %r" % line[:20])
    used += 1
    if guess == secret:
        print("correct", flush=True)
        if mode == "first":
            next_pass(1001 - secret, "last")
        elif mode == "again":
            next_pass(secret, "again")
        elif mode == "reject":
            next_pass(secret, "anything")
            wa("rejected, although a next pass was asked for")
        sys.exit(42)
    print("lower" if guess > secret else "higher", flush=True)
wa("twelve guesses, no luck")
'''

#: a plain multi-pass validator that rejects the first pass while asking for a second one
#: that would accept anything
REJECTING_VALIDATOR = r'''import os
import sys

feedback = sys.argv[3]
if open(sys.argv[1]).read().strip() == "second":
    sys.exit(42)
with open(os.path.join(feedback, "nextpass.in"), "w") as handle:
    handle.write("second\n")
with open(os.path.join(feedback, "judgemessage.txt"), "w") as handle:
    handle.write("rejected on the first pass")
sys.exit(43)
'''


@pytest.fixture(scope="module", params=SANDBOXES)
def executor(request):
    from judge.languages.sandbox import for_languages
    from judge.sandbox import open_sandbox

    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    box = for_languages(open_sandbox(request.param, 2), 2)
    ex = Executor(box, Limits(time_limit_s=1.0))
    yield ex
    ex.close()
    box.close()


def _problem(tmp: Path, validator: str, tests: list[str], interactive: bool,
             passes: int = 2):
    (tmp / "validator.py").write_text(validator)
    data = {"kind": "program", "identifier": "mp", "statement": "x",
            "interactive": interactive, "multi_pass": True, "validation_passes": passes,
            "checker": {"type": "validator", "validator": "validator.py"},
            "limits": {"time_limit_s": 1}, "validator_limits": {"time_limit_s": 10},
            "tests": [{"name": "t%d" % (i + 1), "stdin": given, "expected": "\n"}
                      for i, given in enumerate(tests)]}
    return program_from_data(data, str(tmp / "mp.json"), tmp)


def _run(executor, problem, code: str, language: str):
    return executor.judge(problem, Submission(code, "", None, language))


def _guesser(name: str) -> str:
    return next(GUESS.rglob(name)).read_text()


def test_an_interactive_multi_pass_problem(executor, tmp_path):
    problem = _problem(tmp_path, INTERACTOR, ["437 first\n", "1 first\n", "1000 first\n"],
                       interactive=True)
    assert problem.interactive and problem.multi_pass
    # binary search finds both secrets; the second pass needs the first's state
    for code, language in ((_guesser("guess.py"), "python"), (_guesser("guess.cpp"), "cpp")):
        result = _run(executor, problem, code, language)
        assert result.verdict is Verdict.PASS, (language, result.message)
        assert result.passed == 3 and not result.problem_errors
    # right on the first pass only (it knows 437): the second pass's secret is 564
    once = _run(executor, problem, "print(437, flush=True)\ninput()\n", "python")
    assert once.verdict is Verdict.WRONG_ANSWER
    assert "pass 2: the guesser stopped before guessing it" in once.message, once.message
    assert not once.problem_errors
    # a candidate's own end on any pass is its verdict
    spin = _run(executor, problem, "while True:\n    pass\n", "python")
    assert spin.verdict is Verdict.TIMEOUT and not spin.problem_errors


def test_an_interactor_that_rejects_while_asking_for_a_pass(executor, tmp_path):
    """The rejection stands: the next pass (whose interactor would accept anything) is
    never run."""
    problem = _problem(tmp_path, INTERACTOR, ["437 reject\n"], interactive=True)
    result = _run(executor, problem, _guesser("guess.py"), "python")
    assert result.verdict is Verdict.WRONG_ANSWER
    assert "pass 1: rejected, although a next pass was asked for" in result.message
    assert not result.problem_errors


def test_a_validator_that_rejects_while_asking_for_a_pass(executor, tmp_path):
    problem = _problem(tmp_path, REJECTING_VALIDATOR, ["5\n"], interactive=False)
    result = _run(executor, problem, "print(int(input()) * 2)\n", "python")
    assert result.verdict is Verdict.WRONG_ANSWER
    assert "rejected on the first pass" in result.message, result.message
    assert not result.problem_errors


def test_an_interactor_that_always_asks_for_another_pass_is_a_problem_error(executor,
                                                                            tmp_path):
    problem = _problem(tmp_path, INTERACTOR, ["437 again\n"], interactive=True, passes=3)
    result = _run(executor, problem, _guesser("guess.py"), "python")
    assert result.verdict is Verdict.WRONG_ANSWER
    assert "no verdict within 3 passes" in result.message, result.message
    assert result.problem_errors and "nextpass.in" in result.problem_errors[0]
