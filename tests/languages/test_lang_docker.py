"""The same candidates as tests/languages/test_lang_process.py, in the Docker sandbox: the ``native``
image (sandboxes/native/: one image with the five toolchains, built offline from Debian
packages) run by a real Docker engine. Honest pass, wrong is wrong_answer, a syntax error is
compile_error with its line, crashes name their signal/panic/exception, loop is timeout,
memory bomb memory_limit, flood output_limit, and no container is left behind."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from judge.problem.model import function_from_data  # noqa: I001 (before execution: import order)
from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.languages import NATIVE, get
from tests.languages.test_lang_process import CRASH, EXPECTED, LIMITS, PROBLEM, SYNTAX_LINE, THROW
from tests.paths import DATA

pytestmark = pytest.mark.docker

HOSTILE = json.loads((DATA / "langs" / "hostile.json").read_text())
#: cases about the harness alone (the candidate's own int type, reading its files): the same
#: harness in both sandboxes, so the process tests cover them; the rest run here too
PROCESS_ONLY = {"ok_int", "readfile"}


@pytest.fixture(scope="module")
def results():
    from tests.conftest import docker_or_skip

    docker_or_skip()
    from judge.languages.sandbox import for_languages
    from judge.sandbox.backends.docker import build, image
    from judge.sandbox.backends.docker.sandbox import DockerSandbox

    if image.image_ready("native") is None:
        build.build_image("native", progress=lambda message: None)
    problem = function_from_data(PROBLEM, "<next_number>")
    out = {}
    sandbox = for_languages(DockerSandbox(size=2), size=2)
    with sandbox:
        executor = Executor(sandbox, LIMITS)

        def judge(item):
            language, case, code = item
            function = get(language).find_function(code, ["next_number"]) or "next_number"
            return (language, case), executor.judge(problem, Submission(code, function,
                                                                        language=language))

        items = [(language, case, code) for language in NATIVE
                 for case, code in HOSTILE[language].items() if case not in PROCESS_ONLY]
        with ThreadPoolExecutor(2) as pool:
            out.update(pool.map(judge, items))
        run_id = sandbox.pools()[-1].run_id  # the native pool (opened last)
    client = image.get_client()
    try:
        out["left"] = [c.name for c in client.containers.list(
            all=True, filters={"label": "%s=%s" % (image.LABEL_RUN, run_id)})]
    finally:
        client.close()
    return out


@pytest.mark.parametrize("language", NATIVE)
@pytest.mark.parametrize("case", sorted(set(EXPECTED) - PROCESS_ONLY))
def test_verdicts_in_docker(results, language, case):
    verdict, words = EXPECTED[case]
    result = results[(language, case)]
    assert result.verdict.value == verdict, (language, case, result.message)
    assert result.sandbox == "docker"
    for word in words:
        assert word in (result.message or "")


@pytest.mark.parametrize("language", NATIVE)
def test_compile_errors_and_crashes_in_docker(results, language):
    syntax = results[(language, "syntax")]
    assert syntax.verdict.value == "compile_error"
    assert syntax.message.endswith("(line %d)" % SYNTAX_LINE[language]), syntax.message
    for case, expected in (("crash", CRASH), ("throw", THROW)):
        result = results[(language, case)]
        assert result.verdict.value == "runtime_error", (case, result.message)
        assert expected[language] in result.message, (case, result.message)
    # no network in the container: the honest branch; forks die with their test, stopped by
    # the container's pids limit, the test's limits, or the memory of all its processes
    assert results[(language, "network")].verdict.value == "pass"
    assert results[(language, "fork")].verdict.value in (
        "pass", "runtime_error", "timeout", "memory_limit")


def test_no_container_left(results):
    assert results["left"] == []
