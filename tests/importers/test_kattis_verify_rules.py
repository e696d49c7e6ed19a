"""``judge verify`` on packages as real contests write them (process sandbox): the format's
safety margin for a submission that times out against its folder (problemtools' "OK with
extra time"), DOMjudge's ``@EXPECTED_RESULTS@`` comments, 2023-07's ``rejected`` folder and
``include/<language>/`` files, Java classes in a package, and Python 2 / Kotlin submissions
listed as not judged instead of getting a misleading verdict."""

from __future__ import annotations

import json
from pathlib import Path

from judge.cli.main import main

BUSY = ("import time\nwhile time.process_time() < %s:\n    pass\n"
        "print(sum(map(int, input().split())))\n")


def _package(root: Path) -> Path:
    (root / "data" / "secret").mkdir(parents=True)
    (root / "data" / "secret" / "1.in").write_text("1 2\n")
    (root / "data" / "secret" / "1.ans").write_text("3\n")
    (root / "problem.yaml").write_text("name: Sum\nlimits:\n  time_safety_margin: 3\n")
    (root / ".timelimit").write_text("1\n")
    (root / "include" / "cpp").mkdir(parents=True)
    (root / "include" / "cpp" / "sum.h").write_text("inline long sum(long a, long b) "
                                                     "{ return a + b; }\n")
    files = {
        # 1.4 s of CPU: over the 1 s limit, inside 1 s x 3 (the safety margin)
        "accepted/slow.py": BUSY % 1.4,
        "accepted/Sum.java": "package se.kth.sum;\nimport java.util.Scanner;\n"
                             "public class Sum { public static void main(String[] a) {\n"
                             "  Scanner s = new Scanner(System.in);\n"
                             "  System.out.println(s.nextLong() + s.nextLong()); } }\n",
        "accepted/with-include.cpp": '#include <cstdio>\n#include "sum.h"\nint main() { long a, '
                                     'b; std::scanf("%ld %ld", &a, &b); '
                                     'std::printf("%ld\\n", sum(a, b)); }\n',
        "accepted/old.py": "a, b = map(int, raw_input().split())\nprint a + b\n",
        "accepted/sum.hs": "main = interact $ show . sum . map read . words\n",
        "time_limit_exceeded/forever.py": "while True:\n    pass\n",
        "mixed/marked.c": "/* @EXPECTED_RESULTS@: WRONG-ANSWER, TIMELIMIT */\n"
                          "#include <stdio.h>\nint main(void) { puts(\"4\"); return 0; }\n",
        "rejected/crash.py": "raise SystemExit(3)\n",
    }
    for name, code in files.items():
        (root / "submissions" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "submissions" / name).write_text(code)
    return root


def test_verify_applies_the_safety_margin_comments_folders_and_includes(tmp_path, capsys):
    package = _package(tmp_path / "sum")
    assert main(["verify", str(package), "--sandbox", "process", "--jobs", "2",
                 "--json"]) == 0
    outcome = json.loads(capsys.readouterr().out)["packages"][0]
    got = {Path(s["file"]).name: s for s in outcome["submissions"]}
    assert {k: (v["verdict"], v["agrees"]) for k, v in got.items()} == {
        "slow.py": ("pass", True), "Sum.java": ("pass", True),
        "with-include.cpp": ("pass", True), "forever.py": ("timeout", True),
        "marked.c": ("wrong_answer", True), "crash.py": ("runtime_error", True)}
    assert "safety margin (1 s x 3 = 3 s" in got["slow.py"]["message"]
    log = "\n".join(outcome["log"])
    assert "old.py: not judged (Python 2: no Python 2 runtime here)" in log
    assert "sum.hs: not judged (haskell: a language the judge does not run)" in log
    assert "rerun at 3 s" in log


def test_a_time_limit_submission_must_time_out_at_the_limit_itself(tmp_path, capsys):
    """The margin is for submissions that should not time out: one in
    time_limit_exceeded that finishes inside the margin is still a miss."""
    package = _package(tmp_path / "sum")
    (package / "submissions" / "time_limit_exceeded" / "not-slow-enough.py").write_text(
        BUSY % 0.3)
    assert main(["verify", str(package), "--sandbox", "process", "--jobs", "2",
                 "--json"]) == 1
    outcome = json.loads(capsys.readouterr().out)["packages"][0]
    got = {Path(s["file"]).name: (s["verdict"], s["agrees"]) for s in outcome["submissions"]}
    assert got["not-slow-enough.py"] == ("pass", False)


def test_an_accepted_submission_that_fails_while_measuring_is_named(tmp_path, capsys):
    """No published time limit: the format's rule measures the accepted submissions; one
    that does not pass then is named in the log (the limit comes from the others)."""
    root = tmp_path / "sum"
    (root / "data" / "secret").mkdir(parents=True)
    (root / "data" / "secret" / "1.in").write_text("1 2\n")
    (root / "data" / "secret" / "1.ans").write_text("3\n")
    (root / "problem.yaml").write_text("name: Sum\n")
    (root / "submissions" / "accepted").mkdir(parents=True)
    (root / "submissions" / "accepted" / "good.py").write_text(
        "print(sum(map(int, input().split())))\n")
    (root / "submissions" / "accepted" / "bad.py").write_text("print(4)\n")
    assert main(["verify", str(root), "--sandbox", "process", "--json"]) == 1
    outcome = json.loads(capsys.readouterr().out)["packages"][0]
    log = "\n".join(outcome["log"])
    assert "the accepted bad.py got wrong_answer while measuring" in log
    assert "time limit 1 s: slowest accepted run" in log


def test_java_gets_the_memory_limit_as_its_heap_as_kattis_gives_it(tmp_path, capsys):
    """Kattis runs Java with -Xmx<limit>: a jury's Java program whose arrays fill most of
    a 256 MiB limit is accepted; the JVM's own memory is headroom beside it, and a program
    that wants more than the limit still fails (the heap was the limit - 96 MiB: this
    program ran out of it)."""
    root = tmp_path / "sum"
    (root / "data" / "secret").mkdir(parents=True)
    (root / "data" / "secret" / "1.in").write_text("1 2\n")
    (root / "data" / "secret" / "1.ans").write_text("3\n")
    (root / "problem.yaml").write_text("name: Sum\nlimits:\n  memory: 256\n")
    (root / ".timelimit").write_text("2\n")
    program = ("import java.util.*;\npublic class %s { public static void main(String[] a) {\n"
               "  Scanner s = new Scanner(System.in); long x = s.nextLong(), y = s.nextLong();\n"
               "  int[] big = new int[%d]; for (int i = 0; i < big.length; i += 1024) big[i] = 1;"
               "\n  System.out.println(x + y + big[1]); } }\n")
    for folder, name, ints in (("accepted", "Fits", 35_000_000),  # 140 MB of 256
                               ("run_time_error", "TooBig", 100_000_000)):  # 400 MB
        (root / "submissions" / folder).mkdir(parents=True)
        (root / "submissions" / folder / ("%s.java" % name)).write_text(program % (name, ints))
    assert main(["verify", str(root), "--sandbox", "process", "--json"]) == 0
    outcome = json.loads(capsys.readouterr().out)["packages"][0]
    got = {Path(s["file"]).name: (s["verdict"], s["agrees"]) for s in outcome["submissions"]}
    assert got["Fits.java"] == ("pass", True)
    assert got["TooBig.java"][1] is True, got
