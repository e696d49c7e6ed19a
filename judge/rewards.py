"""Reward functions for RL training loops: verl's ``compute_score`` and TRL's reward callable,
backed by one warm :class:`judge.Judge` in the process (or a remote ``judge serve``).

    from judge.rewards import compute_score            # verl: custom_reward_function.path
    from judge.rewards import TRLReward                # TRL: GRPOTrainer(reward_funcs=[...])
    reward = TRLReward(partial_credit=True, on_error="none")

A candidate is a model reply: ``<think>...</think>`` blocks are dropped and the code is the
last fenced block (verl's ``prime_code``: the last block opened with python fence, else the
last fenced block, else the whole reply). The ground truth is the dataset's own: verl's
``reward_model.ground_truth`` (a JSON string ``{"inputs", "outputs", "fn_name"?}``, or a list
of LiveCodeBench-style tests), or, for TRL, the dataset columns the trainer passes
(``input_output``, ``verification_info``, ``public_tests``/..., ``public_test_cases``/...,
``reward_model``): each row's problem is read by the format's reader
(:mod:`judge.importers.datasets`) once and cached.

The score is given by a **reward policy** (:mod:`judge.reward_policies`): ``fraction`` of
tests passed (the default; ``partial_credit=False`` means ``binary``), or any trainer's rule
by name -- ``first-n`` (verl's ``continuous``), ``longest-n`` (DeepCoder), ``tolerant``
(INTELLECT-3), ``codeforces`` (open-r1), ``ioi``, ``plus-minus`` (NousCoder) -- chosen for a
scorer (``Scorer(policy=...)``), per dataset (``Scorer(policies={"data_source": ...})``) or
per call (``compute_score(..., policy=...)``: verl's ``reward_kwargs``). **An infrastructure failure is never a score of 0**: a candidate
whose result is ``sandbox_error`` (after the judge's own retry), a sandbox that died, a
service that cannot be reached, raises :class:`NotJudged` (a ``RuntimeError``,
``code = "not_judged"``) -- or, for TRL with ``on_error="none"``, gives ``None`` for that
candidate (TRL's "no reward" value: it is ignored when the rewards are summed). A ground
truth that cannot be read is the dataset's error: :class:`~judge.errors.InputError`.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, Iterable, Sequence

from judge.api import Judge
from judge.errors import InputError, Issue, JudgeError, ServiceError
from judge.engine.verdicts import CandidateResult, Verdict
from judge.importers import IMPORTERS
from judge.importers.datasets import CALL_COMPARISON, RecordError
from judge.importers.rl_asserts import AssertCases, cached_assert_cases, expand, fold
from judge.reward_policies import RewardPolicy, policy as make_policy
from judge.sandbox import admission
from judge.integrations.common import NotJudged

#: the dataset readers TRL columns are matched against, in this order
FORMATS = ("verl", "open-r1", "livecodebench", "codecontests", "apps")
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```([^\n`]*)\n(.*?)```", re.S)
_CACHE_SIZE = 4096
#: record fields besides a format's test fields that change its problem (the cache key)
_LIMIT_FIELDS = ("time_limit", "memory_limit", "memory_limit_bytes", "metadata")


def extract_solution(reply: str) -> str:
    """The code of a model reply as verl's ``prime_code`` takes it: think blocks dropped,
    the text after the last python fence up to the next fence; else the last fenced
    block of any language; else the whole reply."""
    text = _THINK.sub("", reply)
    if "```python" in text:
        return text.split("```python")[-1].split("```")[0].lstrip("\n")
    blocks = _FENCE.findall(text)
    if blocks:
        return blocks[-1][1]
    return text


def completion_text(completion: Any) -> str:
    """A TRL completion: a string, or chat messages (the last message's content)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content") or "")
    if isinstance(completion, (list, tuple)) and completion:
        last = completion[-1]
        if isinstance(last, dict):
            content = last.get("content")
            if isinstance(content, list):  # multimodal parts: the text ones
                return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content or "")
        return str(last)
    raise TypeError("a completion is a string or a list of chat messages, got %s"
                    % type(completion).__name__)


class Scorer:
    """Candidates and their ground truth -> scores, through one warm judge.

    ``judge``: a :class:`judge.Judge` to use (the caller keeps it); else one is opened on
    first use with ``sandbox``, ``jobs`` and ``judge_options`` (limits such as
    ``time_limit_s``) and reused for every call; or ``url`` (+ ``token``): a ``judge
    serve`` through :class:`judge.client.JudgeClient` (``client_options``: its retries,
    timeouts...; a 4xx answer is the caller's mistake and raises its ServiceError as is).
    ``policy``: the reward policy (a name of :mod:`judge.reward_policies`, default
    ``fraction``, or ``binary`` with ``partial_credit=False``); ``policies``: a policy per
    dataset (``data_source`` -> name), over ``policy``. ``language``: the candidates'
    language when the dataset does not say it (open-r1's ``verification_info.language``
    does). ``deadline_s``: the most one call may take; a candidate not judged by then is
    "not judged" (NotJudged, or ``None`` for TRL with ``on_error="none"``), never a number,
    and the call returns (what has not started is cancelled)."""

    def __init__(self, *, judge: Judge | None = None, url: str | None = None,
                 token: str | None = None, sandbox: str = "auto", jobs: int = 2,
                 partial_credit: bool = True, language: str | None = None,
                 policy: str | RewardPolicy | None = None,
                 policies: dict[str, str | RewardPolicy] | None = None,
                 deadline_s: float | None = None,
                 client_options: dict[str, Any] | None = None, **judge_options: Any) -> None:
        if judge is not None and url is not None:
            raise ValueError("give a judge or a url, not both")
        self.partial_credit = partial_credit
        self.policy = make_policy(policy if policy is not None else
                                  "fraction" if partial_credit else "binary")
        self.policies = {str(k): make_policy(v) for k, v in (policies or {}).items()}
        self._prepared: OrderedDict[tuple[int, str], tuple[Any, Any]] = OrderedDict()
        if deadline_s is not None and not (isinstance(deadline_s, (int, float))
                                           and 0 < deadline_s < float("inf")):
            raise ValueError("deadline_s must be a positive number of seconds")
        self.deadline_s = deadline_s
        #: what this scorer did: candidates judged, not judged (infrastructure) and not
        #: judged within the deadline (``late``); ``TRLReward`` logs them (``log_metric``)
        self.stats = {"judged": 0, "not_judged": 0, "late": 0}
        self._deadline_pool: ThreadPoolExecutor | None = None
        self.language = language
        self.url, self.token = url, token
        self.client_options = dict(client_options or {})
        self._judge = judge
        self._owns = judge is None and url is None
        self._client: Any = None
        self._options = dict(sandbox=sandbox, jobs=jobs, **judge_options)
        self._lock = threading.Lock()
        self._problems: OrderedDict[str, tuple[Any, str | None]] = OrderedDict()

    # ---- the backend ------------------------------------------------------------------------

    @property
    def judge(self) -> Judge:
        """The warm in-process Judge (opened on first use)."""
        with self._lock:
            if self._judge is None:
                if self.url is not None:
                    raise RuntimeError("this scorer judges through %s" % self.url)
                options = dict(self._options)
                self._judge = Judge(options.pop("sandbox"), options.pop("jobs"), **options)
            return self._judge

    def _remote(self) -> Any:
        with self._lock:
            if self._client is None:
                from judge.client import JudgeClient  # the service's client (httpx)

                self._client = JudgeClient(self.url, token=self.token, **self.client_options)
            return self._client

    def close(self) -> None:
        """Close the Judge this scorer opened (a given one stays open) or the client."""
        with self._lock:
            judge, self._judge = (self._judge, None) if self._owns else (None, self._judge)
            client, self._client = self._client, None
            pool, self._deadline_pool = self._deadline_pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        if judge is not None:
            judge.close()
        if client is not None and hasattr(client, "close"):
            client.close()

    def __enter__(self) -> "Scorer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- problems ---------------------------------------------------------------------------

    def problem(self, record: dict[str, Any], kind: str | None = None, index: int = 0
                ) -> tuple[Any, str | None]:
        """The problem of a dataset record (and the language it names), cached by the
        record's test fields; InputError when the record cannot be read."""
        kind = IMPORTERS.canonical(kind) if kind else detect_format(record)
        if kind == "verl":  # verl's assert_case ground truth (KodCode): one run per case
            truth = (record.get("reward_model") or {}).get("ground_truth") \
                if isinstance(record.get("reward_model"), dict) else None
            cases = self._assert_cases(truth, str(record.get("problem_id") or "verl"), index)
            if cases is not None:
                return cases, "python"
        importer = IMPORTERS.get(kind)
        fields = {k: record.get(k) for k in importer.marker_fields + _LIMIT_FIELDS
                  if k in record}
        key = kind + "\0" + json.dumps(fields, sort_keys=True, default=str)
        with self._lock:
            hit = self._problems.get(key)
            if hit is not None:
                self._problems.move_to_end(key)
                return hit
        token = CALL_COMPARISON.set("equality" if self.url is not None else "check")
        try:
            problem = importer.problem(record, index)
        except RecordError as exc:
            raise InputError([Issue("<%s record %d>" % (kind, index), str(exc), exc.field)]
                             ) from None
        finally:
            CALL_COMPARISON.reset(token)
        language = None
        info = record.get("verification_info")
        if kind == "open-r1":
            parsed = json.loads(info) if isinstance(info, str) else info
            language = parsed.get("language") if isinstance(parsed, dict) else None
        with self._lock:
            self._problems[key] = (problem, language)
            while len(self._problems) > _CACHE_SIZE:
                self._problems.popitem(last=False)
        return problem, language

    def _assert_cases(self, truth: Any, name: str, index: int) -> AssertCases | None:
        """An ``assert_case`` ground truth's cases (remembered), None for another shape."""
        try:
            return cached_assert_cases(truth, name)
        except RecordError as exc:
            raise InputError([Issue("<verl record %d>" % index, str(exc), exc.field)]
                             ) from None

    def ground_truth_problem(self, ground_truth: Any, name: str = "verl") -> Any:
        """The problem of verl's ``reward_model.ground_truth`` (cached)."""
        return self.problem({"reward_model": {"ground_truth": ground_truth},
                             "problem_id": name}, "verl")[0]

    # ---- scoring ----------------------------------------------------------------------------

    def policy_for(self, source: Any = None, override: str | RewardPolicy | None = None
                   ) -> RewardPolicy:
        """The policy of a call: ``override``, else the dataset's (``policies``), else the
        scorer's."""
        if override is not None:
            return make_policy(override)
        if source is not None and str(source) in self.policies:
            return self.policies[str(source)]
        return self.policy

    def prepared(self, problem: Any, policy: RewardPolicy) -> Any:
        """``problem`` as ``policy`` judges it (its tests chosen, its comparison set),
        made once per problem and policy."""
        key = (id(problem), policy.spec)
        with self._lock:
            hit = self._prepared.get(key)
            if hit is not None and hit[0] is problem:
                self._prepared.move_to_end(key)
                return hit[1]
        ready = policy.prepare(problem)
        with self._lock:
            self._prepared[key] = (problem, ready)  # holds problem: its id stays its own
            while len(self._prepared) > _CACHE_SIZE:
                self._prepared.popitem(last=False)
        return ready

    def score(self, result: CandidateResult, problem: Any = None, code: str = "",
              policy: RewardPolicy | None = None) -> float:
        """A judged candidate's score under ``policy`` (the scorer's by default);
        NotJudged for a sandbox_error, under every policy."""
        if result.verdict is Verdict.SANDBOX_ERROR:
            with self._lock:
                self.stats["not_judged"] += 1
            raise NotJudged("%s: the judge could not judge this candidate (sandbox_error: %s)"
                            % (result.problem_id, result.message or "no detail"))
        with self._lock:
            self.stats["judged"] += 1
        return float((policy or self.policy).score(result, problem, code))

    def _items(self, problems: Sequence[Any], replies: Sequence[str],
               languages: Sequence[str | None],
               policies: Sequence[RewardPolicy] | None = None
               ) -> list[tuple[Any, str, dict[str, Any]]]:
        chosen = policies or [self.policy] * len(problems)
        return [(self.prepared(problem, policy), extract_solution(reply),
                 {"language": language or self.language})
                for problem, reply, language, policy in zip(problems, replies, languages,
                                                            chosen)]

    def results(self, items: list[tuple[Any, str, dict[str, Any]]]) -> list[CandidateResult]:
        """Judge (problem, code, meta) items; an infrastructure failure is NotJudged. With a
        deadline, a candidate not judged in time gets a ``sandbox_error`` result saying so
        (so every policy calls it "not judged"). Assert cases are judged case by case and
        folded back (judge.importers.rl_asserts)."""
        if any(isinstance(p, AssertCases) for p, _, _ in items):
            flat, spans = expand(items)
            return fold(items, spans, self._results(flat))
        return self._results(items)

    def _results(self, items: list[tuple[Any, str, dict[str, Any]]]) -> list[CandidateResult]:
        try:
            if self.deadline_s is not None:
                return self._by_deadline(items)
            if self.url is not None:
                return list(self._remote().judge_many(items))
            return list(self.judge.judge_many(items))
        except (JudgeError, RuntimeError, OSError) as exc:
            if isinstance(exc, (NotJudged, InputError, ServiceError)):
                raise
            raise NotJudged("the judge failed (%s: %s): no score" % (type(exc).__name__, exc)
                            ) from exc

    def _by_deadline(self, items: list[tuple[Any, str, dict[str, Any]]]
                     ) -> list[CandidateResult]:
        """Each item judged on its own (``jobs`` at once, a slow one never holding the
        others back), for at most ``deadline_s``; an item not judged by then gets a "late"
        ``sandbox_error`` result, and what has not started is cancelled."""
        one = self._remote().judge if self.url is not None else self.judge.judge
        with self._lock:
            if self._deadline_pool is None:
                # the sandbox's slots: a sample that sleeps lends its core to the next
                # (judge.sandbox.admission), as the batch path's runner does
                jobs = max(1, int(self._options.get("jobs") or 2))
                self._deadline_pool = ThreadPoolExecutor(
                    max_workers=admission.OVERCOMMIT * jobs, thread_name_prefix="judge-reward")
            pool = self._deadline_pool
        futures = [pool.submit(one, problem, code, **meta) for problem, code, meta in items]
        wait(futures, timeout=self.deadline_s)
        out: list[CandidateResult] = []
        late = 0
        for (problem, _code, _meta), future in zip(items, futures):
            if future.done():
                out.append(future.result())  # an exception is handed on, as without one
                continue
            future.cancel()
            late += 1
            out.append(CandidateResult(
                getattr(problem, "identifier", "?"), Verdict.SANDBOX_ERROR, [], "none",
                float(self.deadline_s or 0),
                message="not judged within the caller's deadline of %g s" % self.deadline_s))
        with self._lock:
            self.stats["late"] += late
        return out

    async def aresults(self, items: list[tuple[Any, str, dict[str, Any]]]
                       ) -> list[CandidateResult]:
        """:meth:`results` for asyncio callers (the event loop never blocks on a run)."""
        if any(isinstance(p, AssertCases) for p, _, _ in items):
            flat, spans = expand(items)
            return fold(items, spans, await self._aresults(flat))
        return await self._aresults(items)

    async def _aresults(self, items: list[tuple[Any, str, dict[str, Any]]]
                        ) -> list[CandidateResult]:
        if self.deadline_s is not None:  # the same deadline rule, off the event loop
            return await asyncio.to_thread(self._results, items)
        try:
            if self.url is not None:
                client = self._remote()
                if hasattr(client, "ajudge_many"):
                    return list(await client.ajudge_many(items))
                return await asyncio.to_thread(lambda: list(client.judge_many(items)))
            judge = self.judge
            return list(await asyncio.gather(*(
                judge.ajudge(problem, code, **meta) for problem, code, meta in items)))
        except (JudgeError, RuntimeError, OSError) as exc:
            if isinstance(exc, (NotJudged, InputError, ServiceError)):
                raise
            raise NotJudged("the judge failed (%s: %s): no score" % (type(exc).__name__, exc)
                            ) from exc

    def scores(self, results: Iterable[CandidateResult], on_error: str = "raise",
               items: Sequence[tuple[Any, str, dict[str, Any]]] | None = None,
               policies: Sequence[RewardPolicy] | None = None) -> list[float | None]:
        """Each result's score (``items``: the judged (problem, code, meta), for the
        policies that look at them)."""
        out: list[float | None] = []
        for n, result in enumerate(results):
            problem, code = (items[n][0], items[n][1]) if items is not None else (None, "")
            policy = policies[n] if policies is not None else None
            try:
                out.append(self.score(result, problem, code, policy))
            except NotJudged:
                if on_error != "none":
                    raise
                out.append(None)
        return out


def detect_format(record: dict[str, Any]) -> str:
    """The dataset format of a record, by the fields it has (InputError when none fits)."""
    for kind in FORMATS:
        if any(record.get(name) is not None for name in IMPORTERS.get(kind).marker_fields):
            return kind
    raise InputError([Issue("<record>", "cannot tell the dataset format from the fields %s "
                                        "(expected one of %s)" % (
                                            ", ".join(sorted(record)) or "(none)",
                                            ", ".join(f for k in FORMATS for f in
                                                      IMPORTERS.get(k).marker_fields)))])


# ---- verl ------------------------------------------------------------------------------------

_DEFAULT: Scorer | None = None
_DEFAULT_LOCK = threading.Lock()


def default_scorer() -> Scorer:
    """The process's shared scorer (a warm Judge: sandbox auto, 2 jobs, partial credit),
    which verl's module-level ``compute_score`` uses; :func:`configure` replaces it."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = Scorer()
        return _DEFAULT


def configure(**options: Any) -> Scorer:
    """Replace the shared scorer (``Scorer`` options: ``url``, ``token``, ``sandbox``,
    ``jobs``, ``partial_credit``, limits...); the previous one is closed."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        previous, _DEFAULT = _DEFAULT, Scorer(**options)
    if previous is not None:
        previous.close()
    return _DEFAULT


def compute_score(data_source: Any, solution_str: str, ground_truth: Any,
                  extra_info: Any = None, *, scorer: Scorer | None = None,
                  policy: str | RewardPolicy | None = None, **_: Any) -> float:
    """verl's reward function signature (``custom_reward_function.path`` = this module,
    ``name`` = ``compute_score``): the score of one reply against verl's/PRIME's ground
    truth, under ``policy`` (verl's ``custom_reward_function.reward_kwargs``; else the
    dataset's or the scorer's). Raises NotJudged on an infrastructure failure (verl has no
    "no score" value). Other keyword arguments (what newer verl reward loops pass besides)
    are ignored."""
    scorer = scorer or default_scorer()
    chosen = scorer.policy_for(data_source, policy)
    problem = scorer.ground_truth_problem(ground_truth, _name(data_source, extra_info))
    items = scorer._items([problem], [solution_str], [None], [chosen])
    [result] = scorer.results(items)
    return scorer.score(result, items[0][0], items[0][1], chosen)


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str],
                        ground_truths: Sequence[Any], extra_infos: Sequence[Any] | None = None,
                        *, scorer: Scorer | None = None,
                        policy: str | RewardPolicy | None = None, **_: Any) -> list[float]:
    """verl's ``BatchRewardManager`` signature: every reply of the batch judged at once
    (``jobs`` at a time), each under its dataset's policy (or ``policy``). Raises NotJudged
    when any candidate could not be judged."""
    scorer = scorer or default_scorer()
    extra = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    problems = [scorer.ground_truth_problem(gt, _name(src, info))
                for src, gt, info in zip(data_sources, ground_truths, extra)]
    chosen = [scorer.policy_for(src, policy) for src in data_sources]
    items = scorer._items(problems, list(solution_strs), [None] * len(problems), chosen)
    results = scorer.results(items)
    return [float(s) for s in scorer.scores(results, items=items,  # type: ignore[arg-type]
                                            policies=chosen)]


async def acompute_score(data_source: Any, solution_str: str, ground_truth: Any,
                         extra_info: Any = None, *, scorer: Scorer | None = None,
                         policy: str | RewardPolicy | None = None, **_: Any) -> float:
    """:func:`compute_score` as a coroutine (verl's async reward loop)."""
    scorer = scorer or default_scorer()
    chosen = scorer.policy_for(data_source, policy)
    problem = scorer.ground_truth_problem(ground_truth, _name(data_source, extra_info))
    items = scorer._items([problem], [solution_str], [None], [chosen])
    [result] = await scorer.aresults(items)
    return scorer.score(result, items[0][0], items[0][1], chosen)


def _name(data_source: Any, extra_info: Any) -> str:
    index = extra_info.get("index") if isinstance(extra_info, dict) else None
    return "%s_%s" % (data_source or "verl", index) if index is not None else \
        str(data_source or "verl")


# ---- OpenRLHF --------------------------------------------------------------------------------

def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any],
                **_: Any) -> dict[str, Any]:
    """OpenRLHF's custom reward function (``--remote_rm_url <site-packages>/judge/rewards.py``
    with ``--label_key`` naming the ground-truth column): ``queries`` are prompt + response,
    ``labels`` the ground truths (verl's JSON, ScaleBox's, or a LiveCodeBench test list).
    Returns OpenRLHF's ``{"rewards", "scores", "extra_logs"}`` (torch tensors when torch is
    there, as OpenRLHF has it; lists otherwise). Raises NotJudged on an infrastructure
    failure: OpenRLHF has no "no score" value either."""
    scorer = default_scorer()
    replies = [query[len(prompt):] if query.startswith(prompt) else query
               for query, prompt in zip(queries, prompts)]
    chosen = [scorer.policy_for("openrlhf")] * len(replies)
    problems = [scorer.ground_truth_problem(label, "openrlhf_%d" % i)
                for i, label in enumerate(labels)]
    items = scorer._items(problems, replies, [None] * len(replies), chosen)
    scores = [float(v) for v in scorer.scores(scorer.results(items),  # type: ignore[arg-type]
                                              items=items, policies=chosen)]
    logs: dict[str, Any] = {"judge_pass_rate": [1.0 if v >= 1.0 else 0.0 for v in scores]}
    try:
        import torch
    except ImportError:
        return {"rewards": scores, "scores": scores, "extra_logs": logs}
    tensor = torch.tensor(scores, dtype=torch.float)
    return {"rewards": tensor, "scores": tensor,
            "extra_logs": {k: torch.tensor(v, dtype=torch.float) for k, v in logs.items()}}


# ---- TRL -------------------------------------------------------------------------------------

class TRLReward:
    """A TRL reward function: ``reward(completions, **columns) -> list[float | None]``.

    TRL calls it with the batch's ``completions`` (strings, or chat message lists) and every
    dataset column as a keyword (a list per column, aligned with ``completions``). Each row's
    ground truth is read from its columns by ``format`` (a reader name such as ``apps`` or
    ``open-r1``; default: detected per row from the columns present). ``on_error``:
    ``"raise"`` (NotJudged, the default) or ``"none"`` (``None`` for a candidate that could
    not be judged: TRL ignores it when summing rewards). ``policy``: the reward policy (else
    a row's ``data_source`` column's, else the scorer's)."""

    def __init__(self, scorer: Scorer | None = None, *, format: str | None = None,
                 on_error: str = "raise", name: str = "judge_reward",
                 policy: str | RewardPolicy | None = None, **options: Any) -> None:
        if on_error not in ("raise", "none"):
            raise ValueError("on_error must be 'raise' or 'none'")
        if scorer is not None and options:
            raise ValueError("give a scorer or its options, not both")
        self.scorer = scorer or Scorer(**options)
        self.policy = make_policy(policy) if policy is not None else None
        self.format = IMPORTERS.canonical(format) if format else None
        self.on_error = on_error
        self.__name__ = name  # TRL logs rewards under the function's name

    def _rows(self, completions: Sequence[Any], columns: dict[str, Any]
              ) -> tuple[list[Any], list[str], list[str | None], list[RewardPolicy]]:
        count = len(completions)
        aligned = {k: v for k, v in columns.items()
                   if isinstance(v, (list, tuple)) and len(v) == count}
        problems, replies, languages, policies = [], [], [], []
        for i, completion in enumerate(completions):
            record = {k: v[i] for k, v in aligned.items()}
            problem, language = self.scorer.problem(record, self.format, i)
            problems.append(problem)
            replies.append(completion_text(completion))
            languages.append(language)
            policies.append(self.scorer.policy_for(record.get("data_source"), self.policy))
        return problems, replies, languages, policies

    def __call__(self, completions: Sequence[Any], **columns: Any) -> list[float | None]:
        log_metric = columns.pop("log_metric", None)
        columns.pop("trainer_state", None)
        rows = self._rows(completions, columns)
        items = self.scorer._items(*rows)
        try:
            results = self.scorer.results(items)
        except NotJudged:
            if self.on_error == "raise":
                raise
            return self._logged([None] * len(items), log_metric)
        return self._logged(self.scorer.scores(results, self.on_error, items, rows[3]),
                            log_metric)

    def _logged(self, scores: list[float | None], log_metric: Any) -> list[float | None]:
        """TRL's ``log_metric(name, value)`` (when the trainer passes one) hears how many
        of the batch were not judged, and the scorer's totals."""
        if callable(log_metric):
            log_metric("judge/not_judged", float(sum(s is None for s in scores)))
            for name, value in self.scorer.stats.items():
                log_metric("judge/%s_total" % name, float(value))
        return scores

    def close(self) -> None:
        self.scorer.close()


class AsyncTRLReward(TRLReward):
    """:class:`TRLReward` as a coroutine function (TRL awaits async reward functions
    concurrently with the others)."""

    async def __call__(self, completions: Sequence[Any],  # type: ignore[override]
                       **columns: Any) -> list[float | None]:
        log_metric = columns.pop("log_metric", None)
        columns.pop("trainer_state", None)
        rows = self._rows(completions, columns)
        items = self.scorer._items(*rows)
        try:
            results = await self.scorer.aresults(items)
        except NotJudged:
            if self.on_error == "raise":
                raise
            return self._logged([None] * len(items), log_metric)
        return self._logged(self.scorer.scores(results, self.on_error, items, rows[3]),
                            log_metric)


__all__ = ["AsyncTRLReward", "FORMATS", "NotJudged", "Scorer", "TRLReward", "acompute_score",
           "completion_text", "compute_score", "compute_score_batch", "configure",
           "default_scorer", "detect_format", "extract_solution", "reward_func"]
