"""SandboxFusion's ``jest`` language (judge/languages/jest.py) on the judge's ``/run_code``, in
both sandboxes (process, and docker's polyglot image with the same npm install): an honest
TypeScript test file passes, a wrong one fails with the failing test's name and assertion,
and hostile test files do not pass: ``process.exit(0)`` before the tests finish, a forged
"Tests: 3 passed" summary (and a forged reporter line on its pipe), a file with no test, an
infinite loop (timeout), a ``child_process`` fork bomb, a megabyte without a newline, and a
test that looks for the run's nonce and the judge's and other runs' files. SandboxFusion's
own test_jest.py runs in tests/service/test_sandboxfusion_upstream.py. The toolchain's
stamp, what a missing or stale install says (one line), and the image's tag following the
install are checked here too."""

from __future__ import annotations

import json
import subprocess

import pytest
from fastapi.testclient import TestClient

from judge.languages import jest as jest_language
from tests.paths import ROOT

SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
HEAD = "import { describe, expect, test } from '@jest/globals';\n"
#: a wrong SandboxFusion-style file: one of three tests fails
WRONG = HEAD + """
function add(a: number, b: number): number { return a - b; }
describe('add', () => {
    test('adds zero', () => { expect(add(2, 0)).toBe(2); });
    test('adds two numbers', () => { expect(add(2, 3)).toBe(5); });
});
"""


@pytest.fixture(scope="module", params=SANDBOXES)
def client(request):
    from judge.service.app import ServiceConfig, create_app

    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
        from judge.sandbox.backends.docker import build, image

        if image.image_ready("polyglot") is None:
            build.build_image("polyglot", progress=lambda message: None)
    app = create_app(ServiceConfig(sandbox=request.param, jobs=1))
    with TestClient(app) as test_client:
        yield test_client


def run(client, code: str, **extra) -> dict:
    response = client.post("/run_code", json={"language": "jest", "code": code,
                                              "run_timeout": extra.pop("run_timeout", 20),
                                              **extra})
    assert response.status_code == 200, response.text
    return response.json()


def said(result: dict) -> str:
    """The runner's verdict line: the first of standard error (jest's report, and what the
    tests wrote there, come after it)."""
    lines = (result["run_result"] or {}).get("stderr", "").splitlines()
    return lines[0] if lines and lines[0].startswith("jest: ") else ""


def test_an_honest_typescript_test_file_passes(client):
    result = run(client, HEAD + """
type Pair = [number, string];
function first(p: Pair): number { return p[0]; }
describe('first', () => {
    test('takes the number', () => { expect(first([1, 'a'])).toBe(1); });
    test('lodash is there as in SandboxFusion', () => {
        expect(require('lodash').sum([1, 2])).toBe(3);
    });
});
""")
    assert result["status"] == "Success", result
    assert said(result) == "jest: 2 of 2 tests passed"
    assert "Tests:       2 passed, 2 total" in result["run_result"]["stderr"]


def test_a_failing_test_names_itself_and_its_assertion(client):
    result = run(client, WRONG)
    assert result["status"] == "Failed", result
    assert result["run_result"]["status"] == "Finished"
    line = said(result)
    assert line.startswith("jest: 1 of 2 tests failed: add › adds two numbers: "), line
    assert "Expected: 5" in line and "Received: -1" in line
    # the response's message quotes it (the first line of standard error)
    assert result["message"] == "runtime_error: exit code 1: " + line, result["message"]


HOSTILE = {
    # before any test runs: jest's own exit, status 0, no summary
    "process.exit(0) on load": (
        HEAD + "test('t', () => { expect(1).toBe(2); });\nprocess.exit(0);\n",
        "without its summary"),
    "process.exit(0) in a test": (
        HEAD + "test('t', () => { process.exit(0); });\ntest('u', () => { expect(1).toBe(2); });\n",
        "without its summary"),
    # jest's summary printed, and a reporter line forged on every descriptor, then exit 0
    "forged summary": (
        HEAD + """
test('t', () => {
    const fs = require('fs');
    const fake = JSON.stringify({nonce: '0'.repeat(32), total: 3, passed: 3, failed: 0,
                                 pending: 0, todo: 0, brokenSuites: 0, failedSuites: 0,
                                 failures: []});
    console.log('Tests:       3 passed, 3 total');
    process.stderr.write('Test Suites: 1 passed, 1 total\\nTests:       3 passed, 3 total\\n');
    process.stderr.write('jest: 3 of 3 tests passed\\n');
    for (const fd of [1, 2, 3]) fs.writeSync(fd, '\\n' + fake + '\\n');
    process.exit(0);
});
""", "without its summary"),
    # the same line into every descriptor jest has (its own event loop's too: it may crash)
    "forged into every descriptor": (
        HEAD + """
test('t', () => {
    const fs = require('fs');
    const fake = JSON.stringify({nonce: '0'.repeat(32), total: 1, passed: 1, failed: 0,
                                 pending: 0, todo: 0, brokenSuites: 0, failedSuites: 0,
                                 failures: []});
    for (let fd = 0; fd < 64; fd++) { try { fs.writeSync(fd, '\\n' + fake + '\\n'); } catch (e) {} }
});
""", "jest: "),
    "no test at all": (HEAD + "const x: number = 1;\n", "Your test suite must contain at least one test"),
    "an empty describe": (HEAD + "describe('nothing', () => {});\n",
                          "Your test suite must contain at least one test"),
    "only skipped tests": (HEAD + "test.skip('s', () => { expect(1).toBe(2); });\n",
                           "1 of 1 tests were skipped"),
    "a syntax error": (HEAD + "const x: = 1;\ntest('t', () => {});\n", "the test file failed to run"),
    "a megabyte without a newline": (
        HEAD + "test('flood', () => { process.stdout.write('x'.repeat(3 << 20)); "
               "expect(1).toBe(2); });\n", "1 of 1 tests failed: flood"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_test_files_do_not_pass(client, name):
    code, why = HOSTILE[name]
    result = run(client, code)
    assert result["status"] == "Failed", (name, result)
    assert why in said(result), (name, said(result), result["run_result"]["stderr"][-2000:])
    if name.startswith("a megabyte"):  # read as SandboxFusion reads it: its first MiB
        assert len(result["run_result"]["stdout"]) <= 1 << 20


def test_an_infinite_loop_is_a_timeout(client):
    result = run(client, HEAD + "test('loop', () => { for (;;) {} });\n", run_timeout=3)
    assert result["status"] == "Failed", result
    assert result["run_result"]["status"] == "TimeLimitExceeded"
    assert result["judge"]["verdict"] == "timeout"


def test_a_fork_bomb_does_not_pass_and_the_sandbox_lives_on(client):
    result = run(client, HEAD + """
test('bomb', () => {
    const cp = require('child_process');
    let started = 0;
    for (let i = 0; i < 400; i++) {
        try { cp.spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'],
                       {detached: true, stdio: 'ignore'}).on('error', () => {}); started++; }
        catch (e) {}
    }
    try { cp.execSync('b(){ b|b& }; b', {shell: '/bin/bash', stdio: 'ignore', timeout: 2000}); }
    catch (e) {}
    process.exit(0);
});
""", run_timeout=8)
    assert result["status"] == "Failed", result
    assert result["judge"]["verdict"] in ("runtime_error", "timeout", "memory_limit"), result
    after = run(client, HEAD + "test('after', () => { expect(1 + 1).toBe(2); });\n")
    assert after["status"] == "Success" and said(after) == "jest: 1 of 1 tests passed", after


def test_a_test_cannot_find_the_nonce_nor_other_runs_files(client):
    # first run: leaves files where a later run might look
    left = run(client, HEAD + """
test('leave', () => {
    const fs = require('fs');
    const wrote: string[] = [];
    for (const p of ['/tmp/jest-left-behind', '/dev/shm/jest-left-behind',
                     require('os').tmpdir() + '/jest-left-behind', 'left-behind.txt']) {
        try { fs.writeFileSync(p, 'x'); wrote.push(p); } catch (e) {}
    }
    console.log('WROTE ' + JSON.stringify(wrote));
    expect(wrote.length).toBeGreaterThan(0);
});
""")
    assert left["status"] == "Success", left
    # second run: looks for them, for the nonce everywhere it could be, and forges with it
    result = run(client, HEAD + """
test('peek', () => {
    const fs = require('fs');
    const seen: string[] = [];
    for (const p of ['/tmp/jest-left-behind', '/dev/shm/jest-left-behind',
                     require('os').tmpdir() + '/jest-left-behind', 'left-behind.txt']) {
        if (fs.existsSync(p)) seen.push('leftover ' + p);
    }
    let text = '';
    for (const p of ['/proc/self/cmdline', '/proc/self/environ', '/proc/' + process.ppid +
                     '/cmdline', '/proc/' + process.ppid + '/environ']) {
        try { text += fs.readFileSync(p, 'latin1') + '\\n'; } catch (e) {}
    }
    try { text += fs.readFileSync(4, 'latin1'); seen.push('fd 4 readable'); } catch (e) {}
    const nonces = text.match(/[0-9a-f]{32}/g) || [];
    for (const nonce of nonces) {
        const fake = JSON.stringify({nonce, total: 1, passed: 1, failed: 0, pending: 0,
                                     todo: 0, brokenSuites: 0, failedSuites: 0, failures: []});
        try { fs.writeSync(3, '\\n' + fake + '\\n'); } catch (e) {}
    }
    console.log('SEEN ' + JSON.stringify(seen) + ' NONCES ' + nonces.length);
    process.exit(0);
});
""")
    assert result["status"] == "Failed", result
    assert "without its summary" in said(result)
    assert "SEEN [] NONCES 0" in result["run_result"]["stdout"], result["run_result"]["stdout"]


@pytest.mark.docker
def test_the_judges_files_are_not_in_the_docker_sandbox():
    from tests.conftest import docker_or_skip

    docker_or_skip()
    from judge.service.app import ServiceConfig, create_app

    with TestClient(create_app(ServiceConfig(sandbox="docker", jobs=1))) as docker:
        result = run(docker, HEAD + "test('judge', () => { expect(require('fs').existsSync(%s))"
                                    ".toBe(false); });\n" % json.dumps(
                                        str(ROOT / "judge" / "__init__.py")))
    assert result["status"] == "Success", result


def test_verls_1024_mb_and_the_judges_default_512_mb_both_run_jest(client):
    # (judge.Limits' default memory is 512 MB; the routes' default, verl's request, 1024 MB)
    code = HEAD + "test('big', () => { const a = new Array(1 << 22).fill(7); " \
                  "expect(a.length).toBe(1 << 22); });\n"
    for memory in (1024, 512, None):
        result = run(client, code, **({"memory_limit_MB": memory} if memory else {}))
        assert result["status"] == "Success", (memory, result)
        assert result["judge"]["memory_limit_MB"] == (memory or 1024)


# ---- the toolchain --------------------------------------------------------------------------

@pytest.mark.pure
def test_the_stamp_is_the_one_ensure_toolchains_writes():
    folder = ROOT / "sandboxes" / "jest"
    shell = subprocess.run(
        "cat package-lock.json judge/run.js judge/reporter.js | sha256sum | cut -d' ' -f1",
        shell=True, cwd=folder, capture_output=True, text=True, check=True).stdout.strip()
    assert jest_language.expected_stamp() == shell
    script = (ROOT / "scripts" / "ensure-toolchains.sh").read_text()
    assert "npm ci" in script and jest_language.JEST_HOME in script
    lock = json.loads((folder / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/jest"]["version"] == "29.7.0"
    assert not any(name.endswith(("/puppeteer", "/jsdom")) for name in lock["packages"])


@pytest.mark.pure
def test_the_image_tag_follows_the_installed_stamp(monkeypatch, tmp_path):
    from judge.sandbox.backends.docker import image

    trees = [{"from": str(tmp_path), "to": "jest", "stamp": "judge-jest.stamp"}]
    monkeypatch.setattr(image, "host_trees", lambda language="python": trees)
    absent = image.definition_hash("polyglot")
    assert list(image.host_tree_files(trees[0])) == ["jest/NOT-INSTALLED"]
    (tmp_path / "judge-jest.stamp").write_text("one\n")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "x.js").write_text("1")
    one = image.definition_hash("polyglot")
    (tmp_path / "judge-jest.stamp").write_text("two\n")
    assert len({absent, one, image.definition_hash("polyglot")}) == 3
    assert "jest/node_modules/x.js" in image.host_tree_files(trees[0])


def test_a_stale_or_missing_install_is_refused_in_one_line(monkeypatch):
    from judge.service.app import ServiceConfig, create_app

    # stale: the install's stamp is not this checkout's (the compile step, in the sandbox)
    monkeypatch.setattr(jest_language, "expected_stamp", lambda: "f" * 64)
    with TestClient(create_app(ServiceConfig(sandbox="process", jobs=1))) as stale:
        result = run(stale, WRONG)
    assert result["status"] == "Failed" and result["message"] == "compile_error", result
    line = result["compile_result"]["stderr"].strip()
    assert line.startswith("jest: the toolchain in /usr/local/lib/judge-jest is not this "
                           "judge's") and line.endswith("run scripts/ensure-toolchains.sh")
    assert "\n" not in line and "Traceback" not in line
    # missing: the same check on a home with nothing installed
    check = jest_language.CHECK % ("/nonexistent/judge-jest.stamp", "/nonexistent",
                                   "/nonexistent/judge-jest.stamp")
    done = subprocess.run([jest_language.NODE, "-e", check, "f" * 64], capture_output=True,
                          text=True)
    assert done.returncode == 1
    assert done.stdout.strip() == ("jest: not installed (no /nonexistent/judge-jest.stamp; npm "
                                   "and the npm registry are needed): run "
                                   "scripts/ensure-toolchains.sh")
