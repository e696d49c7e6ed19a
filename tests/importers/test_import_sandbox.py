"""`judge import` runs the dataset's code in a sandbox (issue 22, item 7).

A HumanEval-format file whose tasks' code writes files, loops forever (swallowing every
exception), eats memory, signals the judge and forks: each such task is reported with a
clear error, nothing is written outside the sandbox, the judge's process is unharmed and
the honest tasks around them are imported. Real `judge import`, real processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from tests.paths import ROOT

MARKER = "judge-import-leak-%d-%d" % (os.getpid(), time.monotonic_ns())
IS_ROOT = os.geteuid() == 0


def task(task_id: str, body: str, test_prelude: str = "", check_prelude: str = "") -> dict:
    entry = "add_one"
    return {
        "task_id": task_id,
        "prompt": 'def add_one(x: int) -> int:\n    """Return x + 1."""\n',
        "canonical_solution": body,
        "test": "METADATA = {}\n%s\n\ndef check(candidate):\n%s"
                "    assert candidate(1) == 2\n    assert candidate(41) == 42\n"
                % (test_prelude, check_prelude),
        "entry_point": entry,
    }


def writer(places: list[str], indent: int = 4) -> str:
    """Code that writes a file in each of ``places`` (and its working folder)."""
    lines = ["import os", "for place in %r:" % (places + ["."]),
             "    try:",
             "        with open(os.path.join(place, %r), 'w') as handle:" % MARKER,
             "            handle.write('pwned')",
             "    except OSError:", "        pass"]
    return "".join(" " * indent + line + "\n" for line in lines)


FOREVER = "    while True:\n        try:\n            pass\n        except BaseException:\n            pass\n"


@pytest.fixture
def planted(tmp_path):
    """Folders of the host a dataset might aim at: one of root's (not world-writable), and
    the output folder of the import itself."""
    host_dir = Path("/var/lib/judge-import-test-%d" % os.getpid())
    host_dir.mkdir(mode=0o755, exist_ok=True)
    yield host_dir
    for path in host_dir.iterdir():
        path.unlink()
    host_dir.rmdir()


def _leftovers(places: list[str]) -> list[str]:
    found = []
    for place in places:
        try:
            found += [os.path.join(place, n) for n in os.listdir(place) if MARKER in n]
        except OSError:
            pass
    for path in found:
        os.unlink(path)
    return found


def test_judge_import_sandboxes_the_datasets_code(tmp_path, planted):
    output = tmp_path / "suite"
    places = ["/tmp", "/var/tmp", "/dev/shm", "/run/lock", str(planted), str(output),
              str(tmp_path), str(ROOT)]
    judge_pid = "JUDGE_PID"
    tasks = [
        task("Demo/0", "    return x + 1\n"),
        # writes everywhere, then loops forever swallowing every exception
        task("Demo/1", "    return x + 1\n", check_prelude=writer(places) + FOREVER),
        # the reference solution, at import time: writes and signals the judge
        task("Demo/2", "    return x + 1\n\nimport os, signal\n"
             "try:\n    os.kill(int(os.environ.get('JUDGE_PID', %s)), signal.SIGKILL)\n"
             "except OSError:\n    pass\n" % judge_pid + writer(places, 0)),
        # the test module eats memory
        task("Demo/3", "    return x + 1\n", test_prelude="hoard = bytearray(8 * 1024 ** 3)"),
        # forks a process that outlives the task and keeps writing
        task("Demo/4", "    return x + 1\n", check_prelude=(
            "    import os, time\n    if os.fork() == 0:\n        while True:\n"
            "            time.sleep(0.05)\n" + writer(places, 12))),
        task("Demo/5", "    return x + 2 - 1\n"),
    ]
    source = tmp_path / "hostile.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "judge", "import", "humaneval", str(source), "--output",
         str(output), "--report", str(tmp_path / "report.json")],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "JUDGE_IMPORT_TIME_S": "3"})
    # the judge's own pid is known only now: the dataset aims at it
    text = "\n".join(json.dumps(t) for t in tasks).replace(judge_pid, str(process.pid))
    source.write_text(text + "\n")
    out, err = process.communicate(timeout=600)
    assert "Traceback" not in err, err
    assert process.returncode in (0, 1), (process.returncode, err)  # completed, not killed
    report = json.loads((tmp_path / "report.json").read_text())
    by_id = {p["task_id"]: p for p in report["problems"]}
    # the honest tasks around the hostile ones are imported
    assert sorted(p.name for p in output.glob("*.json")) == ["Demo_0.json", "Demo_2.json",
                                                             "Demo_4.json", "Demo_5.json"]
    # the loop is reported clearly, by what stopped it
    assert "did not finish" in by_id["Demo/1"]["error"], by_id["Demo/1"]
    assert "Demo/1" in err and "did not finish" in err
    # the memory hog: the test module did not run
    assert "MemoryError" in by_id["Demo/3"]["error"], by_id["Demo/3"]
    assert by_id["Demo/4"]["expected"] == 2  # its fork is killed with the task
    # nothing written outside the sandbox, anywhere it aimed
    time.sleep(0.5)  # what a surviving fork would write, it would have written by now
    assert _leftovers(places + [str(Path.cwd())]) == []
    if IS_ROOT:  # nothing of the dataset's code still runs
        from judge.sandbox.backends.process.sandbox import UID_BASE

        uids = set(range(UID_BASE, UID_BASE + 64))
        alive = [p.pid for p in psutil.process_iter(["uids"])
                 if p.info["uids"] and p.info["uids"].real in uids
                 and MARKER in " ".join(_cmdline(p))]
        assert alive == []


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def test_the_importing_process_is_unharmed(tmp_path):
    """In-process use of the importer (the library API): the dataset's code signals this
    very process and changes its state; the process goes on, its state untouched."""
    from judge.importers import import_suite

    tasks = [task("Self/0", "    return x + 1\n\nimport os, signal, sys\n"
                  "import math\nmath.pi = 3\nos.environ['HIJACKED'] = '1'\n"
                  "try:\n    os.kill(%d, signal.SIGKILL)\nexcept OSError:\n    pass\n"
                  % os.getpid())]
    source = tmp_path / "self.jsonl"
    source.write_text("\n".join(json.dumps(t) for t in tasks) + "\n")
    report = import_suite("humaneval", source, tmp_path / "out")
    assert [p.error for p in report.problems] == [None]
    import math

    assert math.pi > 3.14 and "HIJACKED" not in os.environ
    assert (tmp_path / "out" / "Self_0.json").is_file()
