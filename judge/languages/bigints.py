"""Integers beyond 64 bits, per language (issue 22, item 4).

Python's ``int`` has no bound, and a problem's tests may hold values such as ``10**20``. Each
language carries them as data, never wrapped:

- **Java** (``java.math.BigInteger``), **Go** (``*big.Int``) and **JavaScript** (``BigInt``)
  have a standard big integer. Their harnesses read every integer exactly; a candidate that
  declares the big type (Java, Go) gets it, in JavaScript an integer beyond
  ``Number.MAX_SAFE_INTEGER`` arrives as a ``BigInt`` (honest code writes
  ``BigInt(a) + BigInt(b)``); a big integer returned is written exactly. A value that does not
  fit the type the candidate declared (``long``, ``int64``, ``int``...) is a runtime error
  naming the value and the type, never a silently wrapped number.
- **Rust**'s standard library stops at 128 bits: the harness reads integers as ``i128`` and
  converts them to the declared type with a clear error when they do not fit (``i64``
  candidates are told the value does not fit; ``i128`` candidates pass); a problem whose tests
  hold an integer beyond 128 bits is refused for Rust at load (:func:`check_int_range`).
- **C++** has no standard integer beyond 64 bits: the harness reads values up to
  ``unsigned long long`` and names any other (``std::out_of_range``); a problem whose tests
  hold an integer outside ``[-2**63, 2**64)`` is refused for C++ at load, with the test and
  the value in the message.
"""

from __future__ import annotations

from typing import Any, Iterator

from judge.languages.base import NotExpressible


def _ints(value: Any) -> Iterator[int]:
    """Every int (not bool) inside a test value (lists, tuples, sets, dicts: iteratively)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)


def _short(number: int) -> str:
    text = str(number)
    return text if len(text) <= 40 else "%s...%s (%d digits)" % (text[:12], text[-6:], len(text))


def check_int_range(problem: Any, low: int, high: int, language: str, reason: str) -> None:
    """NotExpressible naming the first test value outside ``[low, high)``."""
    names = list(getattr(problem, "parameter_names", []) or [])
    for test in problem.tests:
        for position, arg in enumerate(test.args):
            for number in _ints(arg):
                if not low <= number < high:
                    name = names[position] if position < len(names) else "#%d" % position
                    raise NotExpressible(
                        "test %d: input %s holds %s, beyond %s's integers (%s)"
                        % (test.index, name, _short(number), language, reason))
        for number in _ints(test.expected):
            if not low <= number < high:
                raise NotExpressible("test %d: the expected output holds %s, beyond %s's "
                                     "integers (%s)" % (test.index, _short(number), language,
                                                        reason))
