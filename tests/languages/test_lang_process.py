"""JavaScript, C++, Go, Rust and Java candidates in the process sandbox, against the real
toolchains: honest candidates pass (with the candidate's own types), wrong ones are
wrong_answer, a syntax error is compile_error with its line, a crash is runtime_error naming
the signal, panic or exception, a loop is timeout, a memory bomb memory_limit, a flood
output_limit, forged stdout changes nothing, and nothing is left running.

The candidates are in tests/data/langs/hostile.json (one set per language)."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor

import psutil
import pytest

from judge.problem.model import function_from_data  # noqa: I001 (before execution: import order)
from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.languages import NATIVE, get
from judge.sandbox.base import Limits
from tests.problems import next_number_data
from tests.paths import DATA

HOSTILE = json.loads((DATA / "langs" / "hostile.json").read_text())
PROBLEM = next_number_data([(1, 2), (41, 42)])
LIMITS = Limits(time_limit_s=1.0, memory_mb=256, output_kb=64)

#: (verdict, words the message must contain) per case; the syntax errors' lines per language
EXPECTED = {
    "ok": ("pass", []), "ok_int": ("pass", []), "wrong": ("wrong_answer", ["expected 2, got 3"]),
    "loop": ("timeout", []), "memory": ("memory_limit", []), "flood": ("output_limit", []),
    "forge": ("wrong_answer", ["expected 2, got 0"]), "readfile": ("pass", []),
    # a forged record on the result pipe claiming the judge failed: the candidate's error
    "forge_pipe": ("runtime_error", ["malformed"]),
}
SYNTAX_LINE = {"cpp": 3, "js": 2, "go": 5, "rust": 2, "java": 3}
CRASH = {"cpp": "SIGSEGV", "js": "TypeError", "go": "index out of range", "rust": "panic",
         "java": "ArrayIndexOutOfBoundsException"}
THROW = {"cpp": "std::runtime_error: boom", "js": "RangeError", "go": "panic", "rust": "boom",
         "java": "IllegalStateException"}


def _sandbox_uids() -> set[int]:
    from judge.sandbox.backends.process.sandbox import UID_BASE

    return set(range(UID_BASE, UID_BASE + 8))


def _left_running() -> list[str]:
    uids = _sandbox_uids() if os.geteuid() == 0 else set()
    found = []
    for proc in psutil.process_iter(["uids", "name", "cmdline"]):
        try:
            if proc.info["uids"] and proc.info["uids"].real in uids:
                found.append("%s %s" % (proc.pid, proc.info["name"]))
            elif "sleep" == proc.info["name"] and (proc.info["cmdline"] or [])[-1:] == ["100"]:
                found.append("%s sleep 100" % proc.pid)
        except psutil.Error:
            pass
    return found


@pytest.fixture(scope="module")
def results():
    """Every hostile case of every language, judged once (two at a time)."""
    from judge.sandbox.backends.process.sandbox import ProcessSandbox

    problem = function_from_data(PROBLEM, "<next_number>")
    out = {}
    with ProcessSandbox(size=2) as sandbox:
        executor = Executor(sandbox, LIMITS)

        def judge(item):
            language, case, code = item
            lang = get(language)
            function = lang.find_function(code, ["next_number"]) or "next_number"
            return (language, case), executor.judge(problem, Submission(code, function,
                                                                        language=language))

        items = [(language, case, code) for language in NATIVE
                 for case, code in HOSTILE[language].items()]
        with ThreadPoolExecutor(2) as pool:
            out.update(pool.map(judge, items))
        # the same code again: the compile cache serves it
        again = judge(("cpp", "ok", HOSTILE["cpp"]["ok"]))[1]
        out["again"] = again
        out["stats"] = executor.compile_cache.stats
        out["network_isolated"] = sandbox.describe()["network_isolated"]
    out["left"] = _left_running()
    return out


@pytest.mark.parametrize("language", NATIVE)
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_verdicts(results, language, case):
    verdict, words = EXPECTED[case]
    result = results[(language, case)]
    assert result.verdict.value == verdict, (language, case, result.message)
    for word in words:
        assert word in (result.message or "")
    assert result.language == language


@pytest.mark.parametrize("language", NATIVE)
def test_compile_error_has_the_candidates_line(results, language):
    result = results[(language, "syntax")]
    assert result.verdict.value == "compile_error"
    assert result.message.endswith("(line %d)" % SYNTAX_LINE[language]), result.message


@pytest.mark.parametrize("language", NATIVE)
def test_crash_names_signal_panic_or_exception(results, language):
    for case, expected in (("crash", CRASH), ("throw", THROW)):
        result = results[(language, case)]
        assert result.verdict.value == "runtime_error", (case, result.message)
        assert expected[language] in result.message, (case, result.message)


@pytest.mark.parametrize("language", NATIVE)
def test_fork_and_network(results, language):
    """Processes a candidate starts do not outlive its test; without a network (root: an
    empty network namespace) a connection fails and the honest branch is taken."""
    fork = results[(language, "fork")]
    assert fork.verdict.value in ("pass", "runtime_error", "timeout"), fork.message
    network = results[(language, "network")]
    if results["network_isolated"]:
        assert network.verdict.value == "pass", network.message
    else:  # documented: the process sandbox isolates the network only as root
        assert network.verdict.value in ("pass", "wrong_answer")


def test_nothing_left_running(results):
    assert results["left"] == []


def test_compile_cache(results):
    again = results["again"]
    assert again.verdict.value == "pass"
    assert again.compile_cached is True
    stats = results["stats"].to_json()
    assert stats["hits"] >= 1 and stats["compiles"] >= len(NATIVE) * 10
