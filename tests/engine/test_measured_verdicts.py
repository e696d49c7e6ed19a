"""Verdicts that say what happened, decided from what the sandbox measured (issue 22, items
5, 6 and 9), against the real sandboxes (process and docker) and real toolchains:

- printing a runtime's out-of-memory words and exiting is not memory_limit (C++
  ``std::bad_alloc``), and neither is a Java thread bomb stopped by the process limit
  (runtime_error, saying so); real memory bombs still are (measured);
- a SIGXCPU a candidate sends itself at ~0 s of CPU is runtime_error, not timeout (Python and
  C++); a CPU burner is still timeout; so is a self-sent SIGXFSZ (not output_limit), while a
  file written to the size limit still is output_limit;
- a Python candidate whose source holds a lone surrogate in a string (its exception's
  message) compiled and ran: runtime_error, not compile_error.
"""

from __future__ import annotations

import shutil
import textwrap

import pytest

from judge.problem.model import function_from_data  # noqa: I001 (before execution: import order)
from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.engine.verdicts import Verdict
from judge.sandbox.base import Limits
from tests.problems import next_number_data

LIMITS = Limits(time_limit_s=1.0, memory_mb=256, output_kb=64)
PROBLEM = function_from_data(next_number_data([(1, 2), (41, 42)]), "<next_number>")

FUNCTION = {"python": "next_number", "cpp": "next_number", "java": "nextNumber"}

#: (language, case) -> (code, verdict, words the message must hold)
CASES = {
    ("python", "self_sigxcpu"): ("""
        import os, signal
        def next_number(n):
            os.kill(os.getpid(), signal.SIGXCPU)
        """, Verdict.RUNTIME_ERROR, ["SIGXCPU", "under the"]),
    ("python", "self_sigxfsz"): ("""
        import os, signal
        def next_number(n):
            os.kill(os.getpid(), signal.SIGXFSZ)
        """, Verdict.RUNTIME_ERROR, ["SIGXFSZ"]),
    ("python", "file_flood"): ("""
        def next_number(n):
            with open("big.bin", "wb") as handle:
                while True:
                    handle.write(b"x" * 10000)
        """, Verdict.OUTPUT_LIMIT, []),
    ("python", "tmp_file_flood"): ("""
        def next_number(n):
            with open("/tmp/judge-measured-flood", "wb") as handle:
                while True:
                    handle.write(b"x" * 10000)
        """, Verdict.OUTPUT_LIMIT, []),
    ("cpp", "file_flood"): ("""
        #include <cstdio>
        long long next_number(long long n) {
            std::FILE* f = std::fopen("big.bin", "wb");
            static char block[10000];
            while (true) std::fwrite(block, 1, sizeof block, f);
        }
        """, Verdict.OUTPUT_LIMIT, []),
    ("cpp", "self_sigxfsz"): ("""
        #include <csignal>
        long long next_number(long long n) { std::raise(SIGXFSZ); return n + 1; }
        """, Verdict.RUNTIME_ERROR, ["SIGXFSZ"]),
    ("python", "cpu_burner"): ("""
        def next_number(n):
            while True:
                n += 1
        """, Verdict.TIMEOUT, []),  # CPU, or wall-clock on a loaded machine
    ("python", "lone_surrogate"): ('''
        def next_number(n):
            raise ValueError("bad \ud800 value")
        ''', Verdict.RUNTIME_ERROR, ["ValueError", "\\ud800"]),
    ("python", "lone_surrogate_returned"): ('''
        def next_number(n):
            return "\udfff"
        ''', Verdict.WRONG_ANSWER, []),
    ("python", "memory_bomb"): ("""
        def next_number(n):
            keep = []
            while True:
                keep.append(bytearray(16 << 20))
        """, Verdict.MEMORY_LIMIT, []),
    ("cpp", "prints_bad_alloc"): ("""
        #include <cstdio>
        #include <cstdlib>
        long long next_number(long long n) {
            std::fputs("terminate called after throwing an instance of 'std::bad_alloc'\\n"
                       "  what():  std::bad_alloc\\n", stderr);
            std::exit(1);
        }
        """, Verdict.RUNTIME_ERROR, ["std::bad_alloc"]),
    ("cpp", "self_sigxcpu"): ("""
        #include <csignal>
        long long next_number(long long n) { std::raise(SIGXCPU); return n + 1; }
        """, Verdict.RUNTIME_ERROR, ["SIGXCPU"]),
    ("cpp", "memory_bomb"): ("""
        #include <vector>
        #include <cstring>
        long long next_number(long long n) {
            std::vector<char*> keep;
            while (true) { char* p = new char[1 << 20]; std::memset(p, 1, 1 << 20); keep.push_back(p); }
        }
        """, Verdict.MEMORY_LIMIT, []),
    ("java", "thread_bomb"): ("""
        class Solution {
            static long nextNumber(long n) {
                while (true) {
                    Thread t = new Thread(() -> {
                        try { Thread.sleep(100000); } catch (InterruptedException e) { }
                    });
                    t.setDaemon(true);
                    t.start();
                }
            }
        }
        """, Verdict.RUNTIME_ERROR, ["limit of processes"]),
    ("java", "heap_bomb"): ("""
        import java.util.*;
        class Solution {
            static long nextNumber(long n) {
                List<long[]> keep = new ArrayList<>();
                while (true) keep.add(new long[1 << 17]);
            }
        }
        """, Verdict.MEMORY_LIMIT, []),
}
TOOLCHAIN = {"cpp": "g++", "java": "javac"}


def _sandbox(kind: str):
    if kind == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
        from judge.languages.sandbox import for_languages
        from judge.sandbox.backends.docker import build, image
        from judge.sandbox.backends.docker.sandbox import DockerSandbox

        if image.image_ready("native") is None:
            build.build_image("native", progress=lambda message: None)
        return for_languages(DockerSandbox(size=2), size=2)
    from judge.sandbox.backends.process.sandbox import ProcessSandbox

    return ProcessSandbox(size=2)


@pytest.fixture(scope="module", params=["process", pytest.param("docker",
                                                                 marks=pytest.mark.docker)])
def results(request):
    """Every case judged once in the sandbox, two at a time (both workers busy)."""
    from concurrent.futures import ThreadPoolExecutor

    kind = request.param
    items = [(key, case) for key, case in CASES.items()
             if kind == "docker" or key[0] == "python" or shutil.which(TOOLCHAIN[key[0]])]
    with _sandbox(kind) as sandbox:
        executor = Executor(sandbox, LIMITS, reference_timing=False)

        def judge(item):
            (language, name), (code, _, _) = item
            submission = Submission(textwrap.dedent(code), FUNCTION[language], language=language)
            return (language, name), executor.judge(PROBLEM, submission)

        with ThreadPoolExecutor(2) as pool:
            return dict(pool.map(judge, items))


@pytest.mark.parametrize("key", list(CASES), ids=["-".join(key) for key in CASES])
def test_measured_verdict(results, key):
    if key not in results:
        pytest.skip("no %s toolchain here" % TOOLCHAIN[key[0]])
    _, verdict, words = CASES[key]
    result = results[key]
    assert result.verdict is verdict, [(t.verdict, t.message) for t in result.tests]
    for word in words:
        assert word in (result.message or ""), (word, result.message)
