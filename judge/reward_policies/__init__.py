"""Reward policies: how a trainer turns a judged candidate into a number, one module each,
found by name (``policy("first-n:10")``).

======================  ==================================================================
name (aliases)          rule
======================  ==================================================================
``binary``              1 if every test passes, else 0
``fraction``            share of tests passed (verl ``sandbox_fusion``)
``first-n`` (``verl``)  share of the first N = 10 tests passed (verl ``continuous=True``)
``longest-n``           all or nothing on the N = 15 longest inputs (DeepCoder / rLLM)
``tolerant``            all or nothing on 15 tests, numbers within 1e-3 (INTELLECT-3)
``codeforces``          pass + 0.1 × share; -0.1 no compile; -1 no code (open-r1)
``ioi``                 sum over subtasks of min(test scores) × points, as a share (IOI/CMS)
``plus-minus``          +1 if every test passes, else -1 (NousCoder)
======================  ==================================================================

A name may carry the number of tests its rule looks at: ``first-n:5``, ``longest-n:20``.
Plug-ins add policies through the ``judge.reward_policies`` entry point group. An
infrastructure failure is never a number under any policy (see ``base``).
"""

from __future__ import annotations

from typing import Any

from judge.registry import Registry
from judge.reward_policies.base import RewardPolicy

#: policy name -> its class (``RewardPolicy`` subclasses)
POLICIES: Registry[Any] = Registry("reward policy", "judge.reward_policies")
POLICIES.add("binary", "judge.reward_policies.binary:Binary", ("pass-fail", "all-or-nothing"))
POLICIES.add("fraction", "judge.reward_policies.fraction:Fraction", ("partial",))
POLICIES.add("first-n", "judge.reward_policies.first_n:FirstN", ("verl", "prime"))
POLICIES.add("longest-n", "judge.reward_policies.longest_n:LongestN", ("deepcoder", "rllm"))
POLICIES.add("tolerant", "judge.reward_policies.tolerant:Tolerant", ("intellect-3",))
POLICIES.add("codeforces", "judge.reward_policies.codeforces:Codeforces",
             ("open-r1-codeforces",))
POLICIES.add("ioi", "judge.reward_policies.ioi:Ioi", ("subtasks",))
POLICIES.add("plus-minus", "judge.reward_policies.plus_minus:PlusMinus", ("nouscoder",))


def policy(spec: "str | RewardPolicy") -> RewardPolicy:
    """The policy a spec names: ``"fraction"``, ``"first-n:5"``, an alias, or a policy
    itself. An unknown name is a ``judge.errors.UnknownName`` naming the closest; a bad
    number a ``ValueError``."""
    if isinstance(spec, RewardPolicy):
        return spec
    if not isinstance(spec, str):
        raise TypeError("a reward policy is a name or a RewardPolicy, got %s"
                        % type(spec).__name__)
    name, _, count = spec.partition(":")
    cls = POLICIES.get(name.strip())
    if not count:
        return cls()
    try:
        number = int(count)
    except ValueError:
        raise ValueError("reward policy %r: %r is not a number of tests" % (spec, count)) \
            from None
    return cls(number)


def names() -> list[str]:
    return POLICIES.names()


__all__ = ["POLICIES", "RewardPolicy", "names", "policy"]
