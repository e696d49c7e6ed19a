"""judge.rewards called as verl and TRL call them, judged for real in the process sandbox
(and Docker for a smaller set): a few hundred generated candidates per dataset format
(correct, partly right, wrong, crashing, prose around the code, think blocks, chat
messages), partial credit and binary; and a sandbox whose workers are killed during the
call makes the reward raise NotJudged (or give TRL's None), never a 0."""

from __future__ import annotations

import ast
import json
import os
import threading
import time

import psutil
import pytest

from judge.errors import InputError
from judge.importers import IMPORTERS
from judge.rewards import (AsyncTRLReward, NotJudged, Scorer, TRLReward, acompute_score,
                           compute_score, compute_score_batch, extract_solution)
from tests.paths import DATA, ROOT

DATA = DATA / "rl"

#: a correct solution per fixture problem (by identifier)
CORRECT = {
    "sum": "a, b = map(int, input().split())\nprint(a + b)",
    "average": "n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs) / n)",
    "sort_desc": "def sort_desc(xs):\n    return sorted(xs, reverse=True)",
    "add": "def add(a, b):\n    return a + b",
    "double_stdin": "print(int(input()) * 2)",
    "max": "print(max(map(int, input().split())))",
    "double": "class Solution:\n    def double(self, x):\n        return 2 * x",
    "reverse": "print(input()[::-1])",
    "is_even": "def is_even(n):\n    return n % 2 == 0",
}


def _solution_key(problem) -> str:
    if getattr(problem, "kind", None) != "program":
        return problem.function_name
    first = problem.tests[0]
    return {"1 2\n": "sum", "3\n1 2 4\n": "average", "2\n": "double_stdin", "3 5\n": "max",
            "abc\n": "reverse"}[first.stdin]


def _constant(problem) -> str:
    """A candidate that always answers the first test's expected output: 1/n of the tests
    (every fixture's tests have distinct answers)."""
    if getattr(problem, "kind", None) == "program":
        return "import sys\nsys.stdout.write(%r)" % problem.tests[0].expected
    call = ast.parse(problem.tests[0].check, mode="eval").body  # benchmark_equal(output, x)
    return "def %s(*args):\n    return %r" % (problem.function_name,
                                              ast.literal_eval(call.args[1]))


def candidates(problem, copies: int):
    """(reply, expected partial score, expected binary score) per generated candidate; each
    copy differs (a comment), so none is judged as a duplicate of another."""
    right = CORRECT[_solution_key(problem)]
    program = getattr(problem, "kind", None) == "program"
    n = len(problem.tests)
    crash = "raise RuntimeError('boom')" if program else \
        "def %s(*args):\n    raise RuntimeError('boom')" % problem.function_name
    wrong = "print('WRONG')" if program else \
        "def %s(*args):\n    return 'WRONG'" % problem.function_name
    out = []
    for i in range(copies):
        tag = "\n# candidate %d\n" % i
        kind = i % 5
        if kind == 0:
            out.append(("```python\n%s%s```" % (right, tag), 1.0, 1.0))
        elif kind == 1:
            out.append(("<think>First try:\n```python\n%s\n```\nno...</think>\nHere is my "
                        "solution:\n\n```python\n%s%s```\nIt works." % (wrong, right, tag),
                        1.0, 1.0))
        elif kind == 2:
            out.append(("```python\n%s%s```" % (_constant(problem), tag), 1 / n, 0.0))
        elif kind == 3:
            out.append(("```python\n%s%s```" % (wrong, tag), 0.0, 0.0))
        else:
            out.append((crash + tag, 0.0, 0.0))  # no fence: the whole reply is the code
    return out


@pytest.fixture(scope="module")
def scorer():
    with Scorer(sandbox="process", jobs=2) as s:
        yield s


def test_extract_solution_like_prime_code():
    reply = "<think>```python\nx = 1\n```</think>text\n```python\nprint(2)\n```\nmore ```x```"
    assert extract_solution(reply) == "print(2)\n"
    assert extract_solution("```cpp\nint main(){}\n```") == "int main(){}\n"
    assert extract_solution("print(3)") == "print(3)"


def test_verl_compute_score_as_verl_calls_it(scorer):
    """verl's NaiveRewardManager: one call per reply with the row's ground truth string;
    BatchRewardManager: compute_score_batch with the plural names."""
    rows = [json.loads(line) for line in
            __import__("gzip").open(DATA / "verl.jsonl.gz", "rt").read().splitlines()][:2]
    problems = IMPORTERS.get("verl").from_records(rows).problems
    batch_sources, batch_replies, batch_truths, batch_extra, expected = [], [], [], [], []
    for row, problem in zip(rows, problems):
        for reply, partial, _ in candidates(problem, 100):
            batch_sources.append(row["data_source"])
            batch_replies.append(reply)
            batch_truths.append(row["reward_model"]["ground_truth"])
            batch_extra.append(row["extra_info"])
            expected.append(partial)
    assert len(expected) == 200
    scores = compute_score_batch(data_sources=batch_sources, solution_strs=batch_replies,
                                 ground_truths=batch_truths, extra_infos=batch_extra,
                                 scorer=scorer)
    assert scores == pytest.approx(expected)
    # one at a time, as the naive manager does (a sample of them)
    for i in range(0, 200, 17):
        assert compute_score(batch_sources[i], batch_replies[i], batch_truths[i],
                             batch_extra[i], scorer=scorer) == pytest.approx(expected[i])


@pytest.mark.parametrize("kind,name,column_names", [
    ("apps", "apps.jsonl", ["input_output"]),
    ("codecontests", "codecontests.json", ["public_tests", "private_tests", "generated_tests",
                                           "time_limit", "memory_limit_bytes"]),
    ("livecodebench", "livecodebench.jsonl", ["public_test_cases", "private_test_cases",
                                              "metadata"]),
    ("open-r1", "open_r1.jsonl", ["verification_info"]),
])
def test_trl_reward_as_grpo_calls_it(scorer, kind, name, column_names):
    """GRPOTrainer: reward(prompts=..., completions=..., completion_ids=..., **columns) with
    every dataset column as a list aligned with the completions; conversational
    completions are message lists."""
    from judge.importers.datasets import read_dataset

    records = [r.value for r in read_dataset(DATA / name) if r.value is not None]
    read = IMPORTERS.get(kind).from_records(records)
    copies = max(40, -(-200 // len(read.problems)))
    completions, columns, partial, binary = [], {c: [] for c in column_names}, [], []
    for index, problem in zip(read.records, read.problems):
        for n, (reply, p, b) in enumerate(candidates(problem, copies)):
            completions.append(reply if n % 2 else [{"role": "assistant", "content": reply}])
            for column in column_names:
                columns[column].append(records[index].get(column))
            partial.append(p)
            binary.append(b)
    assert len(completions) >= 200
    reward = TRLReward(scorer)
    assert reward.__name__ == "judge_reward"
    got = []
    for start in range(0, len(completions), 64):  # TRL's batches
        end = start + 64
        # what GRPOTrainer (TRL 1.x) passes besides the columns: callables and the state
        got += reward(prompts=["p"] * len(completions[start:end]),
                      completions=completions[start:end],
                      completion_ids=[[1]] * len(completions[start:end]),
                      trainer_state=object(), log_extra=lambda *a, **k: None,
                      log_metric=lambda *a, **k: None,
                      **{k: v[start:end] for k, v in columns.items()})
    assert got == pytest.approx(partial)
    strict = TRLReward(Scorer(judge=scorer.judge, partial_credit=False), format=kind)
    assert strict(completions=completions[:40], **{k: v[:40] for k, v in columns.items()}) == \
        pytest.approx(binary[:40])


def test_module_level_compute_score_exactly_as_verl_calls_it():
    """verl imports the module's ``compute_score`` and calls it with keywords only, no
    scorer: the shared warm Judge (configure()) is created once and reused."""
    from judge import rewards

    shared = rewards.configure(sandbox="process", jobs=1)
    try:
        truth = json.dumps({"inputs": ["2\n"], "outputs": ["4\n"]})
        assert rewards.compute_score(data_source="codecontests", solution_str=(
            "```python\nprint(int(input()) * 2)\n```"), ground_truth=truth,
            extra_info={"index": 3, "split": "train"}) == 1.0
        judge = shared.judge
        assert rewards.compute_score(data_source="codecontests", solution_str="print(0)",
                                     ground_truth=truth, extra_info=None,
                                     reward_router_address=None) == 0.0
        assert rewards.default_scorer() is shared and shared.judge is judge  # reused, warm
    finally:
        rewards.configure().close()  # leave no Judge open (the new default opens lazily)


def test_async_variants(scorer):
    import asyncio

    truth = json.dumps({"fn_name": "add", "inputs": [[1, 2], [3, 4]], "outputs": [[3], [7]]})
    replies = ["def add(a, b):\n    return a + b  # %d" % i for i in range(6)] + \
        ["def add(a, b):\n    return 3  # %d" % i for i in range(6)]

    async def main():
        one = await acompute_score("apps", replies[0], truth, scorer=scorer)
        reward = AsyncTRLReward(scorer)
        many = await reward(completions=replies, input_output=[truth] * len(replies))
        return one, many

    one, many = asyncio.run(main())
    assert one == 1.0 and many == [1.0] * 6 + [0.5] * 6
    # how TRL tells an async reward callable (trl.trainer.utils.is_async_callable) and names it
    import inspect

    assert inspect.iscoroutinefunction(AsyncTRLReward(scorer).__call__)
    assert not inspect.iscoroutinefunction(TRLReward(scorer).__call__)
    assert getattr(AsyncTRLReward(scorer, name="code"), "__name__") == "code"


def test_apps_call_rule_judged_for_real(scorer):
    """APPS' own comparison through the sandbox: a returned tuple is the expected list, the
    wrapped value itself is accepted, a wrong one is not; LiveCodeBench's has no wrapping."""
    truth = json.dumps({"fn_name": "pair", "inputs": [[1], [2]], "outputs": [[[1, 1]], [[2, 2]]]})
    replies = ["def pair(x):\n    return (x, x)", "def pair(x):\n    return [[x, x]]",
               "def pair(x):\n    return [x, 0]", "def pair(x):\n    return [x, x]"]
    assert compute_score_batch(["apps"] * 4, replies, [truth] * 4, scorer=scorer) == \
        [1.0, 1.0, 0.0, 1.0]


HOSTILE = {
    "kill the worker": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
    "kill everything": "import os, signal\nos.kill(-1, signal.SIGKILL)\n",
    "kill the group": "import os, signal\nos.killpg(0, signal.SIGKILL)\n",
    "hang": "while True:\n    pass\n",
    "flood": "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
    "fork bomb": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n"
                 "        pass\n",
    "look for answers": "import glob\nprint(open(glob.glob('/**/*.ans', recursive=True)[0]).read())\n",
    "forge a verdict": "print('{\"status\": \"returned\", \"verdict\": \"pass\"}')\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_candidates_get_zero_never_no_score(scorer, name):
    """Candidates that attack the sandbox, hang or flood are the candidate's failure: a 0,
    never None (TRL's "no score") and never NotJudged (a candidate must not be able to steer
    itself out of its reward)."""
    truth = json.dumps({"inputs": ["1 2\n", "5 5\n"], "outputs": ["3\n", "10\n"]})
    call = json.dumps({"fn_name": "add", "inputs": [[1, 2], [5, 5]], "outputs": [[3], [10]]})
    reward = TRLReward(scorer, on_error="none")
    got = reward(completions=[HOSTILE[name] + "print(3)",
                              HOSTILE[name] + "def add(a, b):\n    return a + b"],
                 input_output=[truth, call])
    assert got in ([0.0, 0.0], [0.5, 0.0], [0.0, 1.0], [0.5, 1.0])  # print(3) passes test 1
    assert None not in got


def test_unreadable_ground_truth_is_an_input_error_not_a_zero(scorer):
    with pytest.raises(InputError, match="inputs and outputs must be lists"):
        compute_score("apps", "print(1)", json.dumps({"inputs": 3}), scorer=scorer)
    with pytest.raises(InputError, match="cannot tell the dataset format"):
        TRLReward(scorer)(completions=["x"], prompt=["p"])


# ---- an infrastructure failure is never a 0 -------------------------------------------------------

def _workers() -> list[psutil.Process]:
    found = []
    for child in psutil.Process(os.getpid()).children(recursive=False):
        try:
            if "--workroot" in child.cmdline():
                found.append(child)
        except psutil.Error:
            pass
    return found


class WorkerKiller:
    """Kills every sandbox worker of this process (SIGKILL), again and again, while the
    reward call runs: the sandbox is dead for the whole call, its retries too."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.killed = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stop.is_set():
            for worker in _workers():
                try:
                    worker.kill()
                    self.killed += 1
                except psutil.Error:
                    pass
            time.sleep(0.02)

    def __enter__(self) -> "WorkerKiller":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


SLOW = "import time\ntime.sleep(0.5)\na, b = map(int, input().split())\nprint(a + b)  # %d"
TRUTH = json.dumps({"inputs": ["1 2\n", "5 5\n"], "outputs": ["3\n", "10\n"]})


def test_killed_sandbox_makes_verl_reward_raise():
    with Scorer(sandbox="process", jobs=2) as scorer:
        assert compute_score("x", SLOW % 0, TRUTH, scorer=scorer) == 1.0  # warm, working
        assert _workers()
        with WorkerKiller() as killer:
            with pytest.raises(NotJudged):
                compute_score_batch(["x"] * 4, [SLOW % i for i in range(1, 5)], [TRUTH] * 4,
                                    scorer=scorer)
            with pytest.raises(NotJudged):
                compute_score("x", SLOW % 9, TRUTH, scorer=scorer)
        assert killer.killed > 0


def test_a_worker_killed_once_mid_test_is_rerun_not_scored_zero():
    """One kill of the worker while a program's test runs (ours, not the candidate's: a
    candidate cannot signal its worker) re-runs the candidate: its true score, not a 0."""
    with Scorer(sandbox="process", jobs=1) as scorer:
        assert compute_score("x", SLOW % 0, TRUTH, scorer=scorer) == 1.0

        def kill_once():
            time.sleep(0.3)
            for worker in _workers():
                worker.kill()

        killer = threading.Thread(target=kill_once)
        killer.start()
        problem = scorer.ground_truth_problem(TRUTH)
        result = scorer.judge.judge(problem, SLOW % 1)
        killer.join()
        assert (result.verdict.value, result.retried) == ("pass", True)


def test_killed_sandbox_gives_trl_none_or_raises():
    with Scorer(sandbox="process", jobs=2) as scorer:
        replies = [SLOW % i for i in range(4)]
        reward = TRLReward(scorer, on_error="none")
        assert reward(completions=replies[:1], input_output=[TRUTH]) == [1.0]
        with WorkerKiller():
            got = reward(completions=replies[1:], input_output=[TRUTH] * 3)
            assert None in got and 0.0 not in got
            with pytest.raises(NotJudged):
                TRLReward(scorer)(completions=[SLOW % 7], input_output=[TRUTH])


@pytest.mark.docker
def test_docker_rewards_and_a_stopped_container():
    import sys

    # the conftest module pytest loaded (``tests.conftest`` may be shadowed by an installed
    # ``tests`` package)
    conftest = next(m for name, m in sys.modules.items()
                    if name.endswith("conftest") and hasattr(m, "docker_or_skip"))
    conftest.docker_or_skip()
    import docker

    with Scorer(sandbox="docker", jobs=1) as scorer:
        read = IMPORTERS.get("apps").read(DATA / "apps.jsonl")
        replies, expected, truths = [], [], []
        for index, problem in zip(read.records, read.problems):
            for reply, partial, _ in candidates(problem, 10):
                replies.append(reply)
                expected.append(partial)
                truths.append(json.loads((DATA / "apps.jsonl").read_text().splitlines()[
                    index])["input_output"])
        scores = TRLReward(scorer)(completions=replies, input_output=truths)
        assert scores == pytest.approx(expected)
        client = docker.from_env()
        # only the containers this test process started (its pid label): programs run in
        # the native image's sandbox, functions in the Python image's
        mine = {"label": "org.judge.pid=%d" % os.getpid()}
        assert client.containers.list(filters=mine)
        stop = threading.Event()

        def stopper():
            while not stop.is_set():
                for container in client.containers.list(filters=mine):
                    try:
                        container.kill()
                    except docker.errors.APIError:
                        pass
                time.sleep(0.05)

        thread = threading.Thread(target=stopper, daemon=True)
        thread.start()
        try:
            try:  # slow enough for the engine's list and kill
                score = compute_score("x", SLOW.replace("0.5", "2.5") % 1, TRUTH, scorer=scorer)
            except NotJudged:
                pass
            else:
                pytest.fail("scored %r while its containers were being killed" % score)
        finally:
            stop.set()
            thread.join()


# ---- a remote judge serve ----------------------------------------------------------------------

def _server():
    # benchmarks/service_load.py's Server, loaded by path as tests/api/test_client.py does (a
    # ``tests`` package installed in site-packages can shadow ``tests.test_client``)
    import importlib.util
    import sys

    if "service_load" not in sys.modules:
        spec = importlib.util.spec_from_file_location("service_load", ROOT / "benchmarks" /
                                                      "service_load.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["service_load"] = module
        spec.loader.exec_module(module)
    server = sys.modules["service_load"].Server
    return server.start([str(ROOT / "problems" / "basics"), "--sandbox", "process", "--jobs",
                         "2", "--queue", "32"], env={"JUDGE_API_TOKEN": "rewards-token-0123456789"})


def test_remote_judge_serve_scores_like_the_local_judge_and_a_dead_server_raises(scorer):
    server = _server()
    try:
        remote = Scorer(url=server.url, token="rewards-token-0123456789",
                        client_options={"retries": 2, "max_wait_s": 1, "backoff_s": 0.1})
        rows = [json.loads(line) for line in
                __import__("gzip").open(DATA / "verl.jsonl.gz", "rt").read().splitlines()][:2]
        problems = IMPORTERS.get("verl").from_records(rows).problems
        replies, truths, expected = [], [], []
        for row, problem in zip(rows, problems):
            for reply, partial, _ in candidates(problem, 20):
                replies.append(reply)
                truths.append(row["reward_model"]["ground_truth"])
                expected.append(partial)
        got = compute_score_batch(["x"] * len(replies), replies, truths, scorer=remote)
        assert got == pytest.approx(expected)
        assert got == compute_score_batch(["x"] * len(replies), replies, truths, scorer=scorer)
        reward = TRLReward(remote, on_error="none")
        assert reward(completions=replies[:5], reward_model=[
            {"ground_truth": t} for t in truths[:5]]) == pytest.approx(expected[:5])
    finally:
        server.stop()
    # the service is gone: no score, never 0
    with pytest.raises(NotJudged):
        compute_score("x", replies[0], truths[0], scorer=remote)
    assert reward(completions=replies[:3], reward_model=[
        {"ground_truth": t} for t in truths[:3]]) == [None, None, None]
    remote.close()


def test_an_imported_suite_is_judged_from_its_files(scorer, tmp_path):
    """judge import writes files that judge the same as the in-memory problems: a program
    problem and a check-based function problem (Solution method, tuple return)."""
    from judge.importers import import_suite
    from judge.kinds.loader import load_suite

    import_suite("livecodebench", DATA / "livecodebench.jsonl", tmp_path)
    suite = load_suite(tmp_path)
    items = [(suite["abc001_a"], "print(max(map(int, input().split())))"),
             (suite["abc001_a"], "print(5)"),
             (suite["lc_two"], "class Solution:\n    def double(self, x):\n        return 2 * x"),
             (suite["lc_two"], "def double(x):\n    return x")]
    got = [(r.verdict.value, r.passed, r.total) for r in scorer.judge.judge_many(items)]
    assert got == [("pass", 3, 3), ("wrong_answer", 1, 3), ("pass", 3, 3),
                   ("wrong_answer", 1, 3)]
