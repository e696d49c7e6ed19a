"""The static check behind letting a batch's wrong value stand (judge.languages.python_state):
it vouches for the plain functions model replies are made of, and for nothing that could keep
state from one call to the next, however it is hidden; it never raises on odd input."""

from __future__ import annotations

import gzip
import json
import textwrap

import pytest

from judge.languages.python_state import MAX_CHARS, carries_no_state, why_stateful
from tests.paths import ROOT

#: starts no sandbox, server, cluster or timer: the parallel 'pure' lane (tests/conftest.py)
pytestmark = pytest.mark.pure

SHARED = ROOT.parent / "shared" / "data"

STATELESS = {
    "plain": "def f(x):\n    return x + 1\n",
    "typing import": "from typing import List\n\ndef f(xs: List[int]) -> int:\n    return sum(xs)\n",
    "stateless modules": """
        import math, itertools, heapq, bisect, re, string, hashlib
        from collections import Counter, defaultdict, deque
        from functools import reduce, cmp_to_key
        def f(xs):
            h = []
            for x in xs:
                heapq.heappush(h, x)
            c = Counter(xs)
            d = defaultdict(list)
            d[1].append(2)
            return reduce(lambda a, b: a + b, h, 0) + len(c) + math.floor(1.5)
        """,
    "constants": """
        MOD = 10 ** 9 + 7
        VOWELS = "aeiou"
        PAIRS = ((1, 2), (3, -4))
        LIMIT: int = MOD * 2
        A, B = 1, 2
        def f(x):
            return (x * A + B) % MOD in PAIRS or x in VOWELS
        """,
    "nested and nonlocal": """
        def f(n):
            count = 0
            def walk(k):
                nonlocal count
                count += 1
                if k > 0:
                    walk(k - 1)
            walk(n)
            return count
        """,
    "local mutation and recursion": """
        def f(n, memo=None):
            memo = {} if memo is None else memo
            if n < 2:
                return n
            if n not in memo:
                memo[n] = f(n - 1, memo) + f(n - 2, memo)
            memo.pop(-1, None)
            return memo[n]
        """,
    "main guard and print": """
        def f(x):
            print("debug", x)
            return x

        if __name__ == "__main__":
            print(f(3))
        """,
    "narrow handler": """
        def f(s):
            try:
                return int(s)
            except (ValueError, TypeError):
                return 0
        """,
    "generators and lambdas": """
        def f(xs):
            key = lambda v, scale=2: v * scale
            return sorted((x for x in xs if x), key=key)
        """,
    "annotation only": "x: int\n\ndef f():\n    return 1\n",
    "docstring": '"""A module."""\n\ndef f():\n    """Doc."""\n    return 1\n',
}

STATEFUL = {
    "module list": ("seen = []\ndef f(x):\n    seen.append(x)\n    return len(seen)\n",
                    "not constant"),
    "module set from call": ("V = set('aeiou')\ndef f(x):\n    return x in V\n", "not constant"),
    "module-level call result": ("def _m():\n    return lambda x: x\nf = _m()\n", "not constant"),
    "global": ("n = 0\ndef f():\n    global n\n    n += 1\n    return n\n", "Global"),
    "mutable default": ("def f(x, acc=[]):\n    acc.append(x)\n    return acc\n", "default"),
    "mutable default of a lambda": ("g = 1\ndef f(x):\n    h = lambda y, a={}: a\n    return h(x)\n",
                                    "default"),
    "decorator": ("import functools\n@functools.lru_cache(None)\ndef f(x):\n    return [x]\n",
                  "decorator"),
    "class": ("class C:\n    n = 0\ndef f():\n    C.n += 1\n    return C.n\n", "ClassDef"),
    "attribute store": ("def f():\n    f.n = getattr(f, 'n', 0) + 1\n    return f.n\n",
                        "attribute store"),
    "setattr": ("def f():\n    setattr(f, 'n', 1)\n    return 1\n", "setattr"),
    "globals()": ("def f():\n    globals()['n'] = 1\n    return 1\n", "globals"),
    "vars": ("def f():\n    vars()\n    return 1\n", "vars"),
    "eval": ("def f():\n    return eval('1')\n", "eval"),
    "exec": ("def f():\n    exec('x = 1')\n    return 1\n", "exec"),
    "open": ("def f():\n    open('x', 'w').write('1')\n    return 1\n", "open"),
    "input": ("def f():\n    return input()\n", "input"),
    "id": ("def f(x):\n    return id(x) % 2\n", "id"),
    "random": ("import random\ndef f():\n    return random.random()\n", "random"),
    "sys": ("import sys\ndef f():\n    sys.setrecursionlimit(50)\n    return 1\n", "sys"),
    "os": ("from os import environ\ndef f():\n    return 1\n", "os"),
    "time": ("import time\ndef f():\n    return time.time()\n", "time"),
    "decimal": ("import decimal\ndef f():\n    return 1\n", "decimal"),
    "relative import": ("from . import x\ndef f():\n    return 1\n", "import"),
    "import inside": ("def f():\n    import random\n    return random.random()\n", "random"),
    "builtins name": ("def f():\n    b = __builtins__\n    return b\n", "__builtins__"),
    "dunder attribute": ("def f(x=1):\n    f.__defaults__[0]\n    return 1\n", "__defaults__"),
    "frame through a generator": ("def g():\n    yield 1\ndef f():\n    return g().gi_frame.f_globals\n",
                                  "the attribute"),
    "frame through a traceback": (
        "def f():\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n"
        "        return e.__traceback__.tb_frame\n", "the attribute"),
    "abc registry": ("from collections.abc import Sequence\ndef f(x):\n    Sequence.register(type(x))\n"
                     "    return 1\n", "register"),
    "bare except": ("def f():\n    try:\n        return [0] * 10\n    except:\n        return -1\n",
                    "bare except"),
    "broad except": ("def f():\n    try:\n        return 1\n    except Exception:\n        return -1\n",
                     "Exception"),
    "memory error in a tuple": ("def f():\n    try:\n        return 1\n"
                                "    except (ValueError, MemoryError):\n        return -1\n",
                                "MemoryError"),
    "handler through an attribute": ("import json\ndef f(s):\n    try:\n        return json.loads(s)\n"
                                     "    except json.JSONDecodeError:\n        return None\n",
                                     "json.JSONDecodeError"),
    "walrus at the top": ("(cache := [])\ndef f(x):\n    return 1\n", "walrus"),
    "walrus in a top-level comprehension": ("[(c := x) for x in (1, 2)]\ndef f():\n    return 1\n",
                                            "walrus"),
    "top-level loop": ("for i in (1, 2):\n    pass\ndef f():\n    return 1\n", "For"),
    "top-level try": ("try:\n    import numpy\nexcept ImportError:\n    pass\ndef f():\n    return 1\n",
                      "Try"),
    "top-level del": ("x = 1\ndel x\ndef f():\n    return 1\n", "Delete"),
    "async": ("async def f():\n    return 1\n", "AsyncFunctionDef"),
    "attribute delete": ("import math\ndef f():\n    del math.pi\n    return 1\n", "attribute"),
    "mutable state under a guard": ("if True:\n    seen = []\ndef f(x):\n    seen.append(x)\n"
                                    "    return len(seen)\n", "not constant"),
    "syntax error": ("def f(:\n    return 1\n", "does not parse"),
}


@pytest.mark.parametrize("code", list(STATELESS.values()), ids=list(STATELESS))
def test_plain_functions_are_vouched_for(code):
    assert why_stateful(textwrap.dedent(code)) is None


@pytest.mark.parametrize("case", list(STATEFUL.values()), ids=list(STATEFUL))
def test_anything_that_could_keep_state_is_not(case):
    code, reason = case
    found = why_stateful(code)
    assert found is not None and reason in found, found
    assert not carries_no_state(code)


@pytest.mark.parametrize("code", ["", "\x00", "def f():\n    return (" + "(" * 5000 + ")" * 5000 + ")\n",
                                  "x" * (MAX_CHARS + 1), "def f():\n    return 1\n" + "#" * MAX_CHARS,
                                  "\ufeffdef f():\n    return 1\n"])
def test_odd_input_gives_an_answer_never_an_error(code):
    assert isinstance(carries_no_state(code), bool)
    if len(code) > MAX_CHARS:
        assert not carries_no_state(code)


def test_most_real_replies_and_references_are_vouched_for():
    """On real model output (the shipped gpt-3.5 HumanEval samples), most distinct replies
    are plain functions; and nothing with a module-level list, dict or set is vouched for."""
    path = SHARED / "humaneval-gpt-3.5-turbo-samples.jsonl.gz"
    if not path.exists():
        pytest.skip("the shared data folder is not beside the checkout")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        codes = {json.loads(line)["code"] for line in handle}
    vouched = [c for c in codes if carries_no_state(c)]
    assert len(vouched) > len(codes) // 2, (len(vouched), len(codes))
    for code in vouched:
        assert "global " not in code and "random" not in code


def test_parses_from_many_threads_run_one_at_a_time(monkeypatch):
    """CPython 3.11 (to 3.11.7) keeps the AST converter's depth counter per interpreter
    (gh-106905): two threads parsing at once can fail one with ``SystemError: AST
    constructor recursion depth mismatch`` (seen in CI, a run's pool threads checking
    candidates). Every parse of candidate code goes through judge.pyparse, one at a time."""
    import ast
    import threading
    import time

    from judge import pyparse

    inside, most, lock = [0], [0], threading.Lock()
    real = ast.parse

    def watched(*args, **kwargs):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.002)
        try:
            return real(*args, **kwargs)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(ast, "parse", watched)
    code = "def f(x):\n    return [i for i in range(x)]\n"
    threads = [threading.Thread(target=lambda: [carries_no_state(code) for _ in range(20)])
               for _ in range(6)]
    threads += [threading.Thread(target=lambda: [pyparse.parse(code) for _ in range(20)])
                for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1
