"""Reward policies (issue 35): each trainer's rule, against scores computed by hand, on a few
hundred real candidates judged in the sandbox.

The expected numbers are computed here from which tests each candidate was written to pass,
with the trainers' own formulas spelled out (verl's ``res_list[:10]``, DeepCoder's sort by
input length, open-r1's ``pass_fail + 0.1 * partial``...), never by the policy code."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from judge.errors import UnknownName
from judge.integrations.common import NotJudged
from judge.problem.program import program_from_data
from judge.reward_policies import POLICIES, RewardPolicy, policy
from judge.rewards import Scorer, TRLReward, compute_score, compute_score_batch

TESTS = 20
#: the padding of test i's input: lengths in a scrambled order, so "longest" is not "last"
PAD = [(i * 7) % TESTS for i in range(TESTS)]
#: IOI subtasks: tests 0-4, 5-11, 12-19
GROUPS = ["s1"] * 5 + ["s2"] * 7 + ["s3"] * 8


def _problem(tmp: Path):
    tests = [{"name": "t%d" % i, "group": GROUPS[i],
              "stdin": "%d\n%s" % (i, "x\n" * PAD[i]), "expected": "%d\n" % (2 * i)}
             for i in range(TESTS)]
    return program_from_data({"kind": "program", "identifier": "double", "statement": "x",
                              "tests": tests, "limits": {"time_limit_s": 2}},
                             str(tmp / "double.json"), tmp)


def _candidate(exact: set[int], near: set[int]) -> str:
    """A program that answers test i right when i is in ``exact``, 0.0005 off when in
    ``near`` (right only within a 1e-3 tolerance), and wrong otherwise."""
    return ("import sys\nn = int(sys.stdin.readline())\nexact, near = %r, %r\n"
            "print(2 * n if n in exact else (2 * n + 0.0005 if n in near else -1))\n"
            % (sorted(exact), sorted(near)))


# ---- the trainers' rules, by hand ---------------------------------------------------------

def _binary(ok: list[bool]) -> float:
    return 1.0 if all(ok) else 0.0


def expected(name: str, exact: set[int], near: set[int], code: str = "x",
             compiles: bool = True) -> float:
    ok = [i in exact for i in range(TESTS)]
    if name == "binary":
        return _binary(ok)
    if name == "fraction":
        return sum(ok) / TESTS
    if name == "first-n":  # verl: num_to_consider = min(len(res_list), 10)
        return sum(ok[:10]) / 10
    if name == "longest-n":  # DeepCoder: tests sorted by input length, the 15 largest
        longest = sorted(range(TESTS), key=lambda i: len("%d\n" % i) + 2 * PAD[i],
                         reverse=True)[:15]
        return _binary([ok[i] for i in longest])
    if name == "tolerant":  # INTELLECT-3: 15 tests, numbers within 1e-3
        return _binary([i in exact or i in near for i in range(15)])
    if name == "codeforces":  # open-r1 weighted_sum
        if not code.strip():
            return -1.0
        if not compiles:
            return -0.1
        return _binary(ok) + 0.1 * sum(ok) / TESTS
    if name == "ioi":  # min over each subtask, subtasks worth the same
        groups = {g: [i for i in range(TESTS) if GROUPS[i] == g] for g in ("s1", "s2", "s3")}
        return sum(min(1.0 if ok[i] else 0.0 for i in tests) for tests in groups.values()) / 3
    if name == "plus-minus":
        return 1.0 if all(ok) else -1.0
    raise AssertionError(name)


NAMES = ["binary", "fraction", "first-n", "longest-n", "tolerant", "codeforces", "ioi",
         "plus-minus"]


def _subsets(seed: int, count: int) -> list[tuple[set[int], set[int]]]:
    """Candidates that pass all, none, one group, a prefix, all but one test, and at random."""
    rng = random.Random(seed)
    every = set(range(TESTS))
    fixed = [(every, set()), (set(), set()), (set(range(10)), set()), (set(range(5)), set()),
             (every - {19}, set()), (every - {0}, set()), (set(range(12, 20)), set()),
             (set(range(14)), {14}), (set(range(15)), set()), (set(), every),
             (set(range(10)), set(range(10, 20)))]
    while len(fixed) < count:
        exact = {i for i in range(TESTS) if rng.random() < rng.choice((0.5, 0.9, 0.97))}
        near = {i for i in every - exact if rng.random() < 0.5}
        fixed.append((exact, near))
    return fixed[:count]


@pytest.fixture(scope="module")
def scorer():
    with Scorer(sandbox="process", jobs=2) as s:
        yield s


@pytest.mark.parametrize("name", NAMES)
def test_each_policy_matches_the_trainers_rule_by_hand(scorer, tmp_path_factory, name):
    """40 candidates a policy (320 in all), each judged for real, each score equal to the
    one computed by hand from the tests it was written to pass."""
    problem = _problem(tmp_path_factory.mktemp(name))
    chosen = policy(name)
    candidates = _subsets(NAMES.index(name), 40)
    items = scorer._items([problem] * len(candidates),
                          [_candidate(e, n) for e, n in candidates], [None] * len(candidates),
                          [chosen] * len(candidates))
    prepared = items[0][0]
    if name in ("first-n",):
        assert len(prepared.tests) == 10  # only the tests the rule looks at are judged
    if name in ("longest-n", "tolerant"):
        assert len(prepared.tests) == 15
    results = scorer.results(items)
    got = scorer.scores(results, items=items, policies=[chosen] * len(items))
    want = [expected(name, e, n) for e, n in candidates]
    assert got == pytest.approx(want), [(sorted(e), sorted(n), g, w) for (e, n), g, w in
                                        zip(candidates, got, want) if abs(g - w) > 1e-9]


def test_open_r1_codeforces_compile_errors_and_empty_replies(scorer, tmp_path):
    problem = _problem(tmp_path)
    chosen = policy("open-r1-codeforces")
    replies = ["```python\ndef broken(:\n```", "", "```cpp\nint main( {\n```",
               "```python\n" + _candidate(set(range(TESTS)), set()) + "```"]
    languages = [None, None, "cpp", None]
    items = scorer._items([problem] * 4, replies, languages, [chosen] * 4)
    scores = scorer.scores(scorer.results(items), items=items, policies=[chosen] * 4)
    assert scores == pytest.approx([-0.1, -1.0, -0.1, 1.1])


def test_policies_by_name_alias_and_count():
    assert set(NAMES) <= set(POLICIES.names())
    assert policy("verl").spec == "first-n:10" and policy("first-n:3").count == 3
    assert policy("deepcoder").spec == "longest-n:15" and policy("nouscoder").name == "plus-minus"
    with pytest.raises(UnknownName, match="did you mean"):
        policy("fractoin")
    for bad in ("first-n:0", "first-n:x", "longest-n:-2"):
        with pytest.raises(ValueError):
            policy(bad)
    for name in NAMES:
        assert POLICIES.get(name).reproduces  # each cites the trainer it follows


def test_policy_chosen_per_call_per_dataset_and_per_scorer(tmp_path):
    """verl passes reward_kwargs to compute_score; a scorer maps data sources to policies."""
    truth = json.dumps({"inputs": ["%d\n" % i for i in range(12)],
                        "outputs": ["%d\n" % (2 * i) for i in range(12)]})
    half = "import sys\nn = int(input())\nprint(2 * n if n < 10 else 0)\n"
    with Scorer(sandbox="process", jobs=2, policies={"deepcoder_data": "binary"}) as s:
        assert compute_score("apps", half, truth, scorer=s) == pytest.approx(10 / 12)
        assert compute_score("apps", half, truth, scorer=s, policy="first-n") == 1.0
        assert compute_score("deepcoder_data", half, truth, scorer=s) == 0.0
        assert compute_score_batch(["apps", "deepcoder_data", "x"], [half] * 3, [truth] * 3,
                                   scorer=s, policy=None) == pytest.approx([10 / 12, 0.0,
                                                                            10 / 12])
        reward = TRLReward(s, format="apps", policy="plus-minus")
        assert reward(completions=[half], input_output=[truth]) == [-1.0]
    with Scorer(sandbox="process", jobs=1, partial_credit=False) as s:
        assert s.policy.name == "binary"


def test_an_infrastructure_failure_is_never_a_number_under_any_policy():
    from judge.engine.verdicts import CandidateResult, TestResult, Verdict

    broken = CandidateResult("p", Verdict.SANDBOX_ERROR,
                             [TestResult(0, Verdict.SANDBOX_ERROR)], "process", 0.0)
    scorer = Scorer(sandbox="process")
    for name in NAMES:
        with pytest.raises(NotJudged):
            scorer.score(broken, None, "code", policy(name))
        assert scorer.scores([broken], "none", policies=[policy(name)]) == [None]


def test_scalebox_and_verl_ground_truth_examples(scorer):
    """ScaleBox's verl ground truth ("input"/"output"/"type") and verl's own, scored right."""
    stdin = json.dumps({"input": ["1 2\n", "5 6\n"], "output": ["3\n", "11\n"],
                        "fn_name": "", "type": "stdin_stdout"})
    call = json.dumps({"input": [[1, 2], [5, 6]], "output": [3, 11], "fn_name": "add",
                       "type": "function_call"})
    verl = json.dumps({"inputs": ["1 2\n", "5 6\n"], "outputs": ["3\n", "11\n"]})
    program = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
    function = "```python\ndef add(a, b):\n    return a + b\n```"
    assert compute_score("scalebox", program, stdin, scorer=scorer) == 1.0
    assert compute_score("scalebox", function, call, scorer=scorer) == 1.0
    assert compute_score("scalebox", "def add(a, b):\n    return a - b\n", call,
                         scorer=scorer) == 0.0
    assert compute_score("verl", program, verl, scorer=scorer) == 1.0
    from judge.errors import InputError

    with pytest.raises(InputError, match="type must be"):
        compute_score("x", program, json.dumps({"input": [], "output": [], "type": "odd"}),
                      scorer=scorer)


def test_a_plug_in_policy_is_one_class():
    class Half(RewardPolicy):
        name = "half"
        reproduces = "a test"

        def score(self, result, problem=None, code=""):
            return 0.5

    POLICIES.add("half-test", Half)
    assert policy("half-test").score(None) == 0.5  # type: ignore[arg-type]


# ---- a reward call never hangs a trainer (issue 35, item 5) -------------------------------

def test_a_deadline_makes_a_slow_sample_not_judged_and_never_holds_the_batch(tmp_path):
    """A batch with a program that sleeps 30 s (within limits the operator made generous):
    with deadline_s=3 the call returns in time, the sleeper is "not judged" (None for TRL,
    NotJudged for verl), the fast samples after it are scored, and TRL's log_metric hears
    the counts."""
    truth = json.dumps({"inputs": ["1\n", "2\n"], "outputs": ["2\n", "4\n"]})
    good = "```python\nprint(2 * int(input()))\n```"
    sleeper = "```python\nimport time\ntime.sleep(30)\nprint(2 * int(input()))\n```"
    logged: dict[str, float] = {}
    with Scorer(sandbox="process", jobs=2, deadline_s=3, time_limit_s=20,
                budget_cap_s=60) as s:
        reward = TRLReward(s, format="apps", on_error="none")
        scores = reward(completions=[good, sleeper, good, good],
                        input_output=[truth] * 4,
                        log_metric=lambda name, value: logged.__setitem__(name, value),
                        trainer_state=object())
        # None: not judged in time (a sleeper left to finish would have passed: 30 s is
        # within its limits, so the call did not wait for it)
        assert scores == [1.0, None, 1.0, 1.0]
        assert logged["judge/not_judged"] == 1.0 and logged["judge/late_total"] == 1.0
        with pytest.raises(NotJudged, match="deadline"):
            compute_score("apps", sleeper, truth, scorer=s)
        assert s.stats["late"] == 2


def test_openrlhf_reward_func_as_openrlhf_calls_it():
    """OpenRLHF: reward_func(queries, prompts, labels) with queries = prompt + response and
    labels from --label_key; the policy is the scorer's (configure(policy=...))."""
    from judge import rewards

    rewards.configure(sandbox="process", jobs=2, policy="plus-minus")
    try:
        truth = json.dumps({"inputs": ["3\n"], "outputs": ["6\n"]})
        prompts = ["Double a number.\n", "Double it.\n"]
        responses = ["```python\nprint(2 * int(input()))\n```", "```python\nprint(0)\n```"]
        out = rewards.reward_func([p + r for p, r in zip(prompts, responses)], prompts,
                                  [truth, truth])
        assert list(out["rewards"]) == [1.0, -1.0] and list(out["scores"]) == [1.0, -1.0]
        assert list(out["extra_logs"]["judge_pass_rate"]) == [1.0, 0.0]
    finally:
        rewards.configure().close()


@pytest.mark.pure
def test_ioi_takes_a_scored_problems_own_points_and_a_checkers_partial_scores():
    """A scored problem's result carries its score (its subtasks' points, partial test scores
    included): ``ioi`` is that share. Another problem's subtasks are its test groups, worth
    the same each, a test scoring its checker's partial score when it gave one."""
    from judge.engine.verdicts import CandidateResult, TestResult, Verdict as V
    from judge.reward_policies import policy

    ioi = policy("ioi")
    tests = [TestResult(0, V.PASS), TestResult(1, V.WRONG_ANSWER, score=0.5),
             TestResult(2, V.PASS), TestResult(3, V.WRONG_ANSWER)]
    scored = CandidateResult("p", V.WRONG_ANSWER, tests, "process", 0.0)
    scored.score, scored.max_score = 17.5, 40.0
    assert ioi.score(scored) == pytest.approx(17.5 / 40)

    class Grouped:
        def test_groups(self):
            return {"s1": [0, 1], "s2": [2], "s3": [3]}

    plain = CandidateResult("p", V.WRONG_ANSWER, tests, "process", 0.0)
    # s1: min(1, 0.5); s2: 1; s3: 0
    assert ioi.score(plain, Grouped()) == pytest.approx((0.5 + 1 + 0) / 3)
    unbounded = CandidateResult("p", V.PASS, tests[:1], "process", 0.0)
    unbounded.score, unbounded.max_score = 12.0, None  # no maximum: the groups decide
    assert ioi.score(unbounded) == 1.0
