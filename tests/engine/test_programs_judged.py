"""Program problems judged for real, in the process sandbox and in Docker: the hand-written
Kattis packages of tests/data/kattis through ``judge verify`` (custom validators in C++ and
Python, float tolerance, the flags, nested groups, no time limit; the interactive one
refused), the seven languages, and hostile programs in every language (fork and thread
bombs, output floods, looking for the expected answers, forging a harness's result record on
every descriptor, reading past the end of standard input) and hostile output against an
output validator (crash, hang, flood: wrong_answer with "output validator failed", reported
apart as a problem error)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from judge.cli.programs import verify_package
from judge.running.executor import Executor
from judge.candidates.submission import Submission
from judge.engine.verdicts import Verdict
from judge.importers.kattis import read_packages
from judge.problem.program import program_from_data
from judge.sandbox.base import Limits
from tests.paths import DATA

KATTIS = DATA / "kattis"
SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
#: the answer no program can compute from its input: only a leak would print it
SECRET = "s3cr3t-answer-7f1c"


@pytest.fixture(scope="module", params=SANDBOXES)
def sandbox(request):
    from judge.sandbox import open_sandbox

    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
    from judge.languages.sandbox import for_languages

    box = for_languages(open_sandbox(request.param, 2), 2)
    yield box
    box.close()


@pytest.fixture(scope="module")
def executor(sandbox):
    ex = Executor(sandbox, Limits(time_limit_s=1.0))
    yield ex
    ex.close()


def _problem(tmp: Path, **extra):
    data = {"kind": "program", "identifier": "echo", "statement": "x",
            "tests": [{"name": "one", "stdin": "1 2\n", "expected": "3\n"}],
            "limits": {"time_limit_s": 1, "output_kb": 64}}
    data.update(extra)
    return program_from_data(data, str(tmp / "echo.json"), tmp)


# ---- the hand-written packages ----------------------------------------------------------------

def test_every_package_submission_gets_its_folders_verdict(executor):
    found = read_packages(KATTIS)
    assert not found.issues
    judge = executor.kind_judge("program")
    outcomes = {p.identifier: verify_package(judge, p, 2, "pypy3") for p in found.packages}
    # the interactive package is judged too (its guessers talk with its interactor)
    assert not any("interactive" in why for why in outcomes["guess"].get("not_verified", []))
    assert {s["folder"] for s in outcomes["guess"]["submissions"]} >= {"accepted"}
    judged = {s["file"]: s for o in outcomes.values() for s in o["submissions"]}
    wrong = [s for s in judged.values() if s["agrees"] is not True]
    assert not wrong, wrong
    folders = {s["folder"] for s in judged.values()}
    assert {"accepted", "wrong_answer", "time_limit_exceeded"} <= folders
    languages = {s["language"] for s in judged.values()}
    # Python 3 submissions run on PyPy 3, as Kattis and problemtools run them
    assert {"pypy3", "c", "cpp", "java", "javascript", "go", "rust"} <= languages
    assert "python" not in languages
    # a package without a time limit gets one by its format's rule, and says why
    assert any("time limit" in line and "slowest accepted" in line
               for line in outcomes["notimelimit"]["log"])
    # the C++ validator (different) and the Python one (pyvalidator) judged their outputs
    assert any(s["folder"] == "wrong_answer" and "different" in s["file"] for s in judged.values())
    assert any("pyvalidator" in s["file"] for s in judged.values())


# ---- the seven languages, and hostile programs in each ------------------------------------

SUM = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "c": "#include <stdio.h>\nint main(void){long a,b;scanf(\"%ld %ld\",&a,&b);"
         "while(getchar()!=EOF);getchar();printf(\"%ld\\n\",a+b);return 0;}\n",
    "cpp": "#include <bits/stdc++.h>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<'\\n';}\n",
    "java": "import java.util.*;\npublic class Sum { public static void main(String[] x) {"
            " Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong());"
            " } }\n",
    "js": "const v = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
          "console.log(v[0] + v[1]);\n",
    "go": "package main\nimport \"fmt\"\nfunc main() { var a, b int64; fmt.Scan(&a, &b);"
          " fmt.Println(a + b) }\n",
    "rust": "use std::io::Read;\nfn main() { let mut s = String::new();"
            " std::io::stdin().read_to_string(&mut s).unwrap();"
            " let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();"
            " println!(\"{}\", v[0] + v[1]); }\n",
}

BOMB = {
    "python": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    "c": "#include <unistd.h>\nint main(void){for(;;)fork();}\n",
    "cpp": "#include <unistd.h>\n#include <thread>\n#include <vector>\nint main(){"
           "std::vector<std::thread> t; for(;;){ try { t.emplace_back([]{for(;;);}); }"
           " catch(...) { fork(); } } }\n",
    "java": "public class Bomb { public static void main(String[] a) { while (true) {"
            " try { new Thread(() -> { while (true) {} }).start(); } catch (Throwable e) {} } } }\n",
    "js": "const cp = require('child_process');\nfor (;;) { try { cp.spawn(process.execPath,"
          " [__filename]); } catch (e) {} }\n",
    "go": "package main\nimport (\"os\"; \"os/exec\")\nfunc main() { for {"
          " exec.Command(os.Args[0]).Start() } }\n",
    "rust": "fn main() { let me = std::env::args().next().unwrap(); loop {"
            " let _ = std::process::Command::new(&me).spawn(); } }\n",
}

FLOOD = {
    "python": "while True:\n    print('y' * 100)\n",
    "c": "#include <stdio.h>\nint main(void){for(;;)puts(\"yyyyyyyyyyyyyyyyyyyy\");}\n",
    "cpp": "#include <cstdio>\nint main(){for(;;)std::puts(\"yyyyyyyyyyyyyyyyyyyy\");}\n",
    "java": "public class Flood { public static void main(String[] a) {"
            " while (true) System.out.println(\"yyyyyyyyyyyyyyyyyyyy\"); } }\n",
    "js": "const s = 'y'.repeat(1000) + '\\n';\nfor (;;) process.stdout.write(s);\n",
    "go": "package main\nimport \"os\"\nfunc main() { b := []byte(\"yyyyyyyyyyyyyyyy\\n\");"
          " for { os.Stdout.Write(b) } }\n",
    "rust": "use std::io::Write;\nfn main() { let mut o = std::io::stdout(); loop {"
            " o.write_all(b\"yyyyyyyyyyyyyyyy\\n\").unwrap(); } }\n",
}

#: look for the answer: every file of the work directory and /tmp, every descriptor, the
#: environment; print what holds the secret, else a guess
SNOOP = {
    "python": (
        "import os, sys\nfound = 'nothing'\n"
        "paths = [os.path.join(r, f) for top in ['.'] + sys.argv[1:]\n"
        "         for r, _, fs in os.walk(top) for f in fs]\n"
        "for top in ['/tmp', '/proc/self/fd', '..']:\n"
        "    try:\n"
        "        paths += [os.path.join(top, f) for f in os.listdir(top)]\n"
        "    except OSError:\n"
        "        pass\n"
        "for path in paths:\n"
        "    try:\n"
        "        t = open(path, errors='replace').read(1 << 16)\n"
        "    except Exception:\n"
        "        continue\n"
        "    if 'SECRET' in t:\n"
        "        found = 'SECRET'\n"
        "if 'SECRET' in str(os.environ):\n    found = 'SECRET'\n"
        "print(found)\n").replace("SECRET", SECRET),
    "c": ("#include <stdio.h>\n#include <string.h>\n#include <dirent.h>\n"
          "static int look(const char *dir){DIR *d=opendir(dir);struct dirent *e;char p[4096],b[65536];"
          "int hit=0;if(!d)return 0;while((e=readdir(d))){snprintf(p,sizeof p,\"%s/%s\",dir,e->d_name);"
          "FILE *f=fopen(p,\"r\");if(!f)continue;size_t n=fread(b,1,sizeof b-1,f);b[n]=0;fclose(f);"
          "if(strstr(b,\"SECRET\"))hit=1;}closedir(d);return hit;}\n"
          "int main(void){int hit=look(\".\")||look(\"/tmp\")||look(\"/proc/self/fd\");"
          "puts(hit?\"SECRET\":\"nothing\");return 0;}\n").replace("SECRET", SECRET),
    "js": ("const fs = require('fs'), path = require('path');\nlet found = 'nothing';\n"
           "function walk(d, deep) { let es; try { es = fs.readdirSync(d); } catch (e) { return; }\n"
           "  for (const e of es) { const p = path.join(d, e); let st;\n"
           "    try { st = fs.statSync(p); } catch (e) { continue; }\n"
           "    if (st.isDirectory()) { if (deep) walk(p, deep); }\n"
           "    else if (st.isFile()) { try { if (fs.readFileSync(p, 'utf8').includes('SECRET'))"
           " found = 'SECRET'; } catch (e) {} } } }\n"
           "walk('.', true); for (const a of process.argv.slice(2)) walk(a, true);\n"
           "for (const d of ['/tmp', '/proc/self/fd', '..']) walk(d, false);\n"
           "if (JSON.stringify(process.env).includes('SECRET')) found = 'SECRET';\n"
           "console.log(found);\n").replace("SECRET", SECRET),
    "go": ("package main\nimport (\"fmt\"; \"os\"; \"path/filepath\"; \"strings\")\n"
           "func main() { found := \"nothing\"\n"
           " check := func(p string) { if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {"
           " if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), \"SECRET\") {"
           " found = \"SECRET\" } } }\n"
           " for _, r := range append([]string{\".\"}, os.Args[1:]...) {"
           " filepath.Walk(r, func(p string, i os.FileInfo, e error) error {"
           " if e == nil && !i.IsDir() { check(p) }; return nil }) }\n"
           " for _, d := range []string{\"/tmp\", \"/proc/self/fd\", \"..\"} {"
           " es, _ := os.ReadDir(d); for _, e := range es { check(filepath.Join(d, e.Name())) } }\n"
           " fmt.Println(found) }\n").replace("SECRET", SECRET),
    "rust": ("use std::fs;\nuse std::path::Path;\n"
             "fn check(p: &Path, f: &mut bool) { if let Ok(m) = fs::metadata(p) { if m.is_file() {"
             " if let Ok(b) = fs::read(p) { if String::from_utf8_lossy(&b).contains(\"SECRET\") {"
             " *f = true } } } } }\n"
             "fn walk(d: &Path, deep: bool, f: &mut bool) { if let Ok(es) = fs::read_dir(d) {"
             " for e in es.flatten() { let p = e.path(); if p.is_dir() { if deep { walk(&p, deep, f) } }"
             " else { check(&p, f) } } } }\n"
             "fn main() { let mut f = false; walk(Path::new(\".\"), true, &mut f);"
             " for a in std::env::args().skip(1) { walk(Path::new(&a), true, &mut f) }"
             " for d in [\"/tmp\", \"/proc/self/fd\", \"..\"] { walk(Path::new(d), false, &mut f) }"
             " println!(\"{}\", if f { \"SECRET\" } else { \"nothing\" }); }\n").replace(
                 "SECRET", SECRET),
    "java": ("import java.nio.file.*;\nimport java.util.*;\nimport java.util.stream.*;\n"
             "public class Snoop { static String found = \"nothing\";\n"
             " static void check(Path p) { try { if (Files.isRegularFile(p) && Files.size(p) < (1 << 20)"
             " && new String(Files.readAllBytes(p)).contains(\"SECRET\")) found = \"SECRET\"; }"
             " catch (Exception e) {} }\n"
             " public static void main(String[] a) { List<String> roots = new ArrayList<>(List.of(\".\"));"
             " roots.addAll(Arrays.asList(a));\n"
             "  for (String r : roots) { try (Stream<Path> s = Files.walk(Paths.get(r))) {"
             " s.forEach(Snoop::check); } catch (Exception e) {} }\n"
             "  for (String d : new String[]{\"/tmp\", \"..\"}) { try (Stream<Path> s ="
             " Files.list(Paths.get(d))) { s.forEach(Snoop::check); } catch (Exception e) {} }\n"
             "  System.out.println(found); } }\n").replace("SECRET", SECRET),
}
SNOOP["cpp"] = SNOOP["c"]
# Python 3 on PyPy (as Kattis runs it): the same programs under another runtime
for _table in (SUM, BOMB, FLOOD, SNOOP):
    _table["pypy3"] = _table["python"]


def _judge_all(executor, problem, codes):
    def one(item):
        language, code = item
        return language, executor.judge(problem, Submission(code, "", None, language))

    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(one, codes.items()))


def test_seven_languages_pass_and_hostile_programs_fail_honestly(executor, tmp_path):
    problem = _problem(tmp_path)
    honest = _judge_all(executor, problem, SUM)
    assert {k: r.verdict for k, r in honest.items()} == {k: Verdict.PASS for k in SUM}, \
        {k: r.message for k, r in honest.items()}
    bombs = _judge_all(executor, problem, BOMB)
    for language, result in bombs.items():
        assert result.verdict in (Verdict.TIMEOUT, Verdict.RUNTIME_ERROR,
                                  Verdict.MEMORY_LIMIT), (language, result.verdict, result.message)
    floods = _judge_all(executor, problem, FLOOD)
    for language, result in floods.items():
        assert result.verdict is Verdict.OUTPUT_LIMIT, (language, result.verdict, result.message)
    again = executor.judge(problem, Submission(SUM["c"], "", None, "c"))
    assert again.verdict is Verdict.PASS  # the sandbox survived them all


def test_pypy_runs_python_programs_as_kattis_does(executor, tmp_path):
    """A loop CPython needs seconds for is a fraction of a second on PyPy (the speed a Kattis
    jury's time limit was set with); PyPy's own parser (Python 3.9) does the syntax check;
    a crash is the program's runtime_error with its exit code."""
    n = 30_000_000
    problem = _problem(tmp_path, tests=[{"name": "loop", "stdin": "%d\n" % n,
                                         "expected": "%d\n" % (n * (n - 1) // 2)}])
    code = "n = int(input())\ns = 0\nfor i in range(n):\n    s += i\nprint(s)\n"
    on_pypy = executor.judge(problem, Submission(code, "", None, "pypy3"))
    assert on_pypy.verdict is Verdict.PASS, on_pypy.message
    on_cpython = executor.judge(problem, Submission(code, "", None, "python"))
    assert on_cpython.verdict is Verdict.TIMEOUT, on_cpython.message
    match = "x = int(input())\nmatch x:\n    case 1:\n        print(3)\n"
    newer = executor.judge(problem, Submission(match, "", None, "pypy3"))
    assert newer.verdict is Verdict.COMPILE_ERROR and "(line 2)" in newer.message, newer.message
    crash = executor.judge(problem, Submission("import sys\nsys.exit(3)\n", "", None, "pypy3"))
    assert crash.verdict is Verdict.RUNTIME_ERROR and "exit code 3" in crash.message, \
        crash.message
    raised = executor.judge(problem, Submission("raise ValueError('no')\n", "", None, "pypy3"))
    assert raised.verdict is Verdict.RUNTIME_ERROR and "ValueError" in raised.message, \
        raised.message


def test_the_expected_answer_is_nowhere_the_program_can_look(executor, tmp_path, sandbox):
    (tmp_path / "in").write_text("1 2\n")
    (tmp_path / "ans").write_text(SECRET + "\n")
    problem = _problem(tmp_path, tests=[{"name": "t", "stdin_file": "in", "expected_file": "ans",
                                         "args": [str(tmp_path)] if sandbox.name == "docker"
                                         else []}], limits={"time_limit_s": 5})
    for language, result in _judge_all(executor, problem, SNOOP).items():
        assert result.verdict is Verdict.WRONG_ANSWER, (language, result.message)
        assert "'nothing'" in (result.message or ""), (language, result.message)


def test_compile_errors_exit_codes_and_signals(executor, tmp_path):
    problem = _problem(tmp_path)
    broken = executor.judge(problem, Submission("int main( {", "", None, "c"))
    assert broken.verdict is Verdict.COMPILE_ERROR
    assert "expected" in broken.message and "(line 1)" in broken.message
    syntax = executor.judge(problem, Submission("x = 1\nprint(1\n", "", None, "python"))
    assert syntax.verdict is Verdict.COMPILE_ERROR and "(line 2)" in syntax.message, \
        syntax.message
    # the syntax check runs in the worker's forked compile child (no interpreter started per
    # candidate): hostile sources are the candidate's compile_error, never the judge's error
    for source, told in (("x = " + "(" * 300 + "1" + ")" * 300 + "\n", "parenthes"),
                         ("print(1)\x00\n", "null"),
                         ("def f(:\n", "(line 1)")):
        hostile = executor.judge(problem, Submission(source, "", None, "python"))
        assert hostile.verdict is Verdict.COMPILE_ERROR, (source[:20], hostile.message)
        assert told in (hostile.message or ""), hostile.message
    code = executor.judge(problem, Submission("import sys\nsys.exit(3)\n", "", None, "python"))
    assert code.verdict is Verdict.RUNTIME_ERROR and "exit code 3" in code.message
    segv = executor.judge(problem, Submission("int main(void){return *(volatile int*)0;}", "",
                                              None, "c"))
    assert segv.verdict is Verdict.RUNTIME_ERROR and "SIGSEGV" in segv.message
    loop = executor.judge(problem, Submission("while True:\n    pass\n", "", None, "python"))
    assert loop.verdict is Verdict.TIMEOUT



def test_a_program_that_sends_itself_a_limit_signal_is_no_timeout_nor_output_limit(
        executor, tmp_path):
    """SIGXCPU at ~0 s of CPU and SIGXFSZ with nothing written are the program's own doing:
    runtime_error, by the rule function tests follow (judge.engine.classify.signal_verdict);
    the real limits still give timeout and output_limit."""
    problem = _problem(tmp_path)
    for language, code in (
            ("python", "import os, signal\nos.kill(os.getpid(), signal.SIGXCPU)\n"),
            ("c", "#include <signal.h>\nint main(void){raise(SIGXCPU);return 0;}"),
            ("python", "import os, signal\nos.kill(os.getpid(), signal.SIGXFSZ)\n"),
            ("c", "#include <signal.h>\nint main(void){raise(SIGXFSZ);return 0;}")):
        result = executor.judge(problem, Submission(code, "", None, language))
        assert result.verdict is Verdict.RUNTIME_ERROR, (language, code, result.message)
        assert "the program sent it" in result.message, result.message
    big_file = ("import os\nwith open('big', 'wb') as f:\n"
                "    while True:\n        f.write(b'x' * 65536)\n")
    written = executor.judge(problem, Submission(big_file, "", None, "python"))
    assert written.verdict is Verdict.OUTPUT_LIMIT, written.message

# ---- output validators under attack ---------------------------------------------------------

VALIDATOR = """import sys, time
out = sys.stdin.read().split()
answer = open(sys.argv[2]).read().split()
if out and out[0] == "crash":
    raise SystemExit(int("not a number"))
if out and out[0] == "hang":
    while True:
        time.sleep(1)
if out and out[0] == "flood":
    while True:
        sys.stdout.write("x" * 65536)
if out and out[0] == "exit42later":
    sys.exit(7)
with open(sys.argv[3] + "/judgemessage.txt", "w") as f:
    f.write("expected %s got %s" % (answer, out))
sys.exit(42 if out == answer else 43)
"""


@pytest.mark.parametrize("said, fails", [("3", None), ("4", "wrong answer (output validator)"),
                                         ("crash", "output validator failed"),
                                         ("hang", "output validator failed: timed out"),
                                         ("flood", "output validator failed"),
                                         ("exit42later", "output validator failed: exit code 7")])
def test_output_crafted_against_the_validator_is_wrong_answer(executor, tmp_path, said, fails):
    (tmp_path / "v.py").write_text(VALIDATOR)
    problem = _problem(tmp_path, checker={"type": "validator", "validator": "v.py"},
                       validator_limits={"time_limit_s": 1, "output_kb": 64})
    result = executor.judge(problem, Submission("print(%r)\n" % said, "", None, "python"))
    if fails is None:
        assert result.verdict is Verdict.PASS, result.message
        return
    assert result.verdict is Verdict.WRONG_ANSWER, result.message
    assert fails in result.message
    if "failed" in fails:
        assert result.problem_errors
    else:
        assert "expected ['3'] got ['4']" in result.message  # the feedback file is the message


# ---- the command line: import, run (contest rule, --all-tests), verify -----------------------

def test_import_run_and_verify_from_the_command_line(tmp_path, capsys):
    import json

    from judge.cli.main import main

    suite = tmp_path / "suite"
    assert main(["import", "kattis", str(KATTIS / "hello"), str(KATTIS / "different"),
                 "--output", str(suite), "--sandbox", "process"]) == 0
    assert sorted(p.name for p in suite.glob("*.json")) == ["different.json", "hello.json"]
    # different publishes no time limit: its accepted submissions were measured, the rule
    # applied (legacy: x5, rounded to a whole second, at least 1 s) and the log says so
    limits = json.loads((suite / "different.json").read_text())["limits"]
    assert limits["time_limit_s"] == 1.0
    # the package's Python runs on PyPy, as Kattis runs it (its time limit was set so)
    assert json.loads((suite / "hello.json").read_text())["runtimes"] == {"python": "pypy3"}
    assert "different: time limit 1 s: slowest accepted run" in capsys.readouterr().err
    solutions = tmp_path / "solutions.jsonl"
    accepted = (KATTIS / "different" / "submissions" / "accepted" / "different.py").read_text()
    solutions.write_text("\n".join(json.dumps(row) for row in [
        {"problem_id": "hello", "model": "m", "solution": "```python\nprint('Hello World!')\n```"},
        {"problem_id": "hello", "model": "m", "solution": "print('hello')"},
        {"problem_id": "hello", "model": "m", "language": "c",
         "solution": "#include <stdio.h>\nint main(void){puts(\"Hello World!\");}"},
        {"problem_id": "different", "model": "m", "solution": accepted}]) + "\n")
    rows = {}
    for flag in ([], ["--all-tests"]):
        out = tmp_path / ("results%s.jsonl" % len(flag))
        main(["run", str(suite), "--solutions", str(solutions), "--sandbox", "process",
              "--jobs", "2", "--output", str(out), "--format", "json", *flag])
        rows[bool(flag)] = [json.loads(line) for line in out.read_text().splitlines()]
    contest, every = rows[False], rows[True]
    assert [r["verdict"] for r in contest] == ["pass", "wrong_answer", "pass", "pass"], contest
    assert contest[1]["contest_rule"] is True and every[1]["contest_rule"] is False
    assert "not run: test 1 failed" in contest[1]["tests"][1]["message"]
    assert "wrong answer" in every[1]["tests"][1]["message"]
    assert contest[2]["language"] == "c"
    assert "python runs as pypy3 on this problem" in contest[0]["note"]
    on_cpython = tmp_path / "cpython"
    assert main(["import", "kattis", str(KATTIS / "hello"), "--output", str(on_cpython),
                 "--python", "cpython", "--sandbox", "process"]) == 0
    assert "runtimes" not in json.loads((on_cpython / "hello.json").read_text())
    capsys.readouterr()
    status = main(["verify", str(KATTIS / "hello"), "--sandbox", "process", "--jobs", "2"])
    out = capsys.readouterr().out
    assert status == 0 and "hello: 7 of 7 submissions get their folder's verdict" in out, out


def test_verify_lists_a_submission_in_the_wrong_folder(tmp_path, capsys):
    import shutil

    from judge.cli.main import main

    package = tmp_path / "hello"
    shutil.copytree(KATTIS / "hello", package)
    (package / "submissions" / "wrong_answer" / "goodbye.js").rename(
        package / "submissions" / "accepted" / "goodbye.js")
    assert main(["verify", str(package), "--sandbox", "process", "--jobs", "2"]) == 1
    out = capsys.readouterr().out
    assert "hello: 6 of 7 submissions get their folder's verdict" in out
    assert "WRONG" in out and "goodbye.js: expected pass, got wrong_answer on test 1" in out


def test_verify_judges_submission_folders_single_and_multi_file(tmp_path, capsys):
    """Real packages (DOMjudge's and BAPCtools' example problems) hold submission folders: a
    source with notes or data beside it is judged by its one code file (the other files are
    not sources); a folder of several code files is a multi-file program, compiled together
    under the files' own names (a Python module beside the main file, a C++ header, Java
    classes in their own files)."""
    import shutil

    from judge.cli.main import main

    package = tmp_path / "hello"
    shutil.copytree(KATTIS / "hello", package)
    accepted = package / "submissions" / "accepted"
    single = accepted / "with-notes.c"
    single.mkdir()
    (single / "hello.c").write_text(
        '#include <stdio.h>\nint main(void){puts("Hello World!");return 0;}\n')
    (single / "NOTES.txt").write_text("not a source: int main(void){ this would not compile\n")
    wrong = package / "submissions" / "wrong_answer" / "in-a-folder.py"
    wrong.mkdir()
    (wrong / "main.py").write_text("print('Goodbye')\n")
    multi = accepted / "two-files.py"
    multi.mkdir()
    (multi / "main.py").write_text("from helper import text\nprint(text)\n")
    (multi / "helper.py").write_text("text = 'Hello World!'\n")
    header = accepted / "with-header"
    header.mkdir()
    (header / "text.h").write_text('#define TEXT "Hello World!"\n')
    (header / "greet.cpp").write_text('#include "text.h"\nconst char *text() { return TEXT; }\n')
    (header / "main.cpp").write_text('#include <cstdio>\nconst char *text();\n'
                                     'int main() { std::puts(text()); }\n')
    classes = package / "submissions" / "wrong_answer" / "java-classes"
    classes.mkdir()
    (classes / "Hello.java").write_text(
        "public class Hello { public static void main(String[] a) {"
        " System.out.println(Greeting.TEXT); } }\n")
    (classes / "Greeting.java").write_text('class Greeting { static String TEXT = "Goodbye"; }\n')
    assert main(["verify", str(package), "--sandbox", "process", "--jobs", "2", "--json"]) == 0
    import json

    outcome = json.loads(capsys.readouterr().out)["packages"][0]
    verdicts = {Path(s["file"]).name: (s["verdict"], s["agrees"])
                for s in outcome["submissions"]}
    assert verdicts["with-notes.c"] == ("pass", True)
    assert verdicts["in-a-folder.py"] == ("wrong_answer", True)
    assert verdicts["two-files.py"] == ("pass", True)
    assert verdicts["with-header"] == ("pass", True)
    assert verdicts["java-classes"] == ("wrong_answer", True)


def test_memory_bombs_and_forged_records(executor, tmp_path):
    problem = _problem(tmp_path, limits={"time_limit_s": 2, "memory_mb": 128, "output_kb": 64})
    hog = executor.judge(problem, Submission(
        "#include <stdlib.h>\n#include <string.h>\nint main(void){for(;;){char *p=malloc(1<<20);"
        "if(!p)return 1;memset(p,1,1<<20);}}", "", None, "c"))
    assert hog.verdict is Verdict.MEMORY_LIMIT, hog.message
    py = executor.judge(problem, Submission("x = bytearray(1 << 30)\nprint(3)\n", "", None,
                                            "python"))
    assert py.verdict in (Verdict.MEMORY_LIMIT, Verdict.RUNTIME_ERROR), py.message  # MemoryError: exit 1
    # a program has no result channel: a record written where a harness's would go, or
    # printed, is only output
    forged = executor.judge(problem, Submission(
        "import os, sys\nfor fd in (3, 4, 5):\n    try:\n"
        "        os.write(fd, b'{\"status\": \"returned\", \"value\": 3}\\n')\n"
        "    except OSError:\n        pass\n"
        "print('{\"event\": \"test\", \"index\": 0, \"status\": \"exited\", \"exit_code\": 0}')\n",
        "", None, "python"))
    assert forged.verdict is Verdict.WRONG_ANSWER, forged.message


DEEP = {
    "c": "#include <stdio.h>\nlong f(long n){volatile char pad[64];pad[0]=(char)n;"
         "return n?f(n-1)+pad[0]-pad[0]+1:0;}\nint main(void){printf(\"%ld\\n\",f(1000000)-999997);}\n",
    "python": "import sys\nsys.setrecursionlimit(10**6)\n"
              "def f(n):\n    return f(n - 1) + 1 if n else 0\nprint(f(200000) - 199997)\n",
}


def test_deep_recursion_has_the_stack_contest_judges_give(executor, tmp_path):
    problem = _problem(tmp_path, limits={"time_limit_s": 2, "memory_mb": 512, "output_kb": 64})
    for language, code in DEEP.items():
        result = executor.judge(problem, Submission(code, "", None, language))
        assert result.verdict is Verdict.PASS, (language, result.message)


def test_an_imported_suite_validates_runs_its_references_and_has_prompts(tmp_path,
                                                                                capsys):
    import json

    from judge.cli.main import main

    suite = tmp_path / "suite"
    assert main(["import", "kattis", str(KATTIS / "hello"), "--output", str(suite)]) == 0
    assert main(["validate", str(suite), "--run", "--sandbox", "process"]) == 0
    assert "1 problem valid (reference solutions pass)" in capsys.readouterr().out
    out = tmp_path / "optimal.jsonl"
    for language in ("python", "cpp", "java"):
        main(["run", str(suite), "--solutions", "optimal", "--language", language,
              "--sandbox", "process", "--jobs", "2", "--output", str(out)])
        row = json.loads(out.read_text().splitlines()[0])
        assert row["verdict"] == "pass" and row["language"] == language, row
        out.unlink()
    capsys.readouterr()
    assert main(["prompts", str(suite), "--language", "rust", "--format", "jsonl"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["problem_id"] == "hello" and row["prompt_id"] == "program"
    assert "Write a complete Rust program" in row["prompt"] and "```rust" in row["prompt"]
    assert "## Sample 1" in row["prompt"] and "Limits: 1 s per test" in row["prompt"]


class _Counting:
    """A real sandbox that remembers how many tests each job it ran had."""

    def __init__(self, box):
        self.box, self.name, self.jobs = box, box.name, []

    def __getattr__(self, name):  # everything else: the real sandbox's
        return getattr(self.box, name)

    def run(self, job):
        self.jobs.append(len(job.tests))
        return self.box.run(job)


def test_the_contest_rule_stops_after_the_job_of_the_first_wrong_answer(sandbox, tmp_path):
    from judge.engine.program_inputs import chunks
    from judge.engine.engine import Engine
    from judge.kinds.program.judge import ProgramJudge
    tests = [{"name": str(i), "stdin": "%d\n" % i, "expected": "%d\n" % (2 * i)}
             for i in range(20)]
    problem = _problem(tmp_path, tests=tests, contest={"stop_at_first_failure": True})
    assert [len(c) for c in chunks(problem.tests, 1 << 20, 8)] == [8, 8, 4]
    assert [len(c) for c in chunks(problem.tests, 9)] == [4, 4, 3, 3, 3, 3]  # 2 or 3 bytes each
    doubling = "n = int(input())\nprint(2 * n if n != 2 else 5)\n"
    counting = _Counting(sandbox)
    judge = ProgramJudge(Engine(counting, Limits(time_limit_s=1.0)))
    wrong = judge.judge(problem, Submission(doubling, "", None, "python"))
    # a Python program runs in series (64 tests a job), its failing test again alone
    assert wrong.verdict is Verdict.WRONG_ANSWER and counting.jobs == [20, 1]
    assert wrong.tests[2].verdict is Verdict.WRONG_ANSWER and wrong.passed == 2
    assert wrong.tests[19].message == "not run: test 3 failed (wrong_answer)"
    counting.jobs.clear()
    right = judge.judge(problem, Submission(doubling.replace("5", "4"), "", None, "python"))
    assert right.verdict is Verdict.PASS and counting.jobs == [20]
    counting.jobs.clear()
    judge.all_tests = True
    every = judge.judge(problem, Submission(doubling, "", None, "python"))
    assert counting.jobs == [20, 1] and every.passed == 19


#: read until the end of standard input (the way contest solutions do), then once more
UNTIL_EOF = {
    "python": "import sys\nnums = [int(x) for line in sys.stdin for x in line.split()]\n"
              "try:\n    input()\nexcept EOFError:\n    pass\nprint(sum(nums))\n",
    "js": "const rl = require('readline').createInterface({input: process.stdin});\n"
          "let s = 0;\nrl.on('line', (l) => { for (const x of l.split(' ')) s += Number(x); });\n"
          "rl.on('close', () => console.log(s));\n",
    "go": "package main\nimport (\"bufio\"; \"fmt\"; \"os\")\nfunc main() { r := bufio.NewReader(os.Stdin);"
          " s := 0; for { var x int; if _, err := fmt.Fscan(r, &x); err != nil { break }; s += x };"
          " fmt.Println(s) }\n",
    "c": "#include <stdio.h>\nint main(void){long x,s=0;while(scanf(\"%ld\",&x)==1)s+=x;"
         "getchar();getchar();printf(\"%ld\\n\",s);return 0;}\n",
    "cpp": "#include <iostream>\nint main(){long x,s=0;while(std::cin>>x)s+=x;std::cin.clear();"
           "std::cin.get();std::cin.get();std::cout<<s<<std::endl;}\n",
    "java": "import java.util.*;\npublic class Sum { public static void main(String[] a)"
            " throws Exception { Scanner in = new Scanner(System.in); long s = 0;"
            " while (in.hasNextLong()) s += in.nextLong(); System.in.read(); System.in.read();"
            " System.out.println(s); } }\n",
    "rust": "use std::io::Read;\nfn main() { let mut t = String::new();"
            " std::io::stdin().read_to_string(&mut t).unwrap(); let mut more = String::new();"
            " std::io::stdin().read_to_string(&mut more).unwrap();"
            " let s: i64 = t.split_whitespace().map(|x| x.parse::<i64>().unwrap()).sum();"
            " println!(\"{}\", s); }\n",
}

#: a harness's result record forged on every descriptor a program can find (3-63) and on
#: standard error, then a wrong answer: the record is nobody's, the answer is wrong
FORGE_LINE = '{"event": "test", "index": 0, "status": "exited", "exit_code": 0}'
FORGE = {
    "python": "import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b'%s\\n0\\n')\n"
              "    except OSError:\n        pass\nprint(7)\n",
    "c": "#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\nint main(void){"
         "const char *r=\"%s\\n0\\n\";for(int fd=2;fd<64;fd++)write(fd,r,strlen(r));"
         "puts(\"7\");return 0;}\n",
    "cpp": "#include <cstdio>\n#include <cstring>\n#include <unistd.h>\nint main(){"
           "const char *r=\"%s\\n0\\n\";for(int fd=2;fd<64;fd++)write(fd,r,strlen(r));"
           "std::puts(\"7\");}\n",
    "java": "import java.io.*;\npublic class Forge { public static void main(String[] a) {"
            " for (int fd = 3; fd < 64; fd++) { try (FileOutputStream o ="
            " new FileOutputStream(\"/proc/self/fd/\" + fd)) { o.write(\"%s\\n0\\n\".getBytes());"
            " } catch (Exception e) {} } System.err.println(\"%s\"); System.out.println(7); } }\n",
    "js": "const fs = require('fs');\nfor (let fd = 3; fd < 64; fd++) { try {"
          " fs.writeSync(fd, '%s\\n0\\n'); } catch (e) {} }\nconsole.log(7);\n",
    "go": "package main\nimport (\"fmt\"; \"syscall\")\nfunc main() { for fd := 2; fd < 64; fd++ {"
          " syscall.Write(fd, []byte(`%s` + \"\\n0\\n\")) }; fmt.Println(7) }\n",
    "rust": "use std::io::Write;\nuse std::os::unix::io::FromRawFd;\nfn main() { for fd in 3..64 {"
            " let mut f = unsafe { std::fs::File::from_raw_fd(fd) };"
            " let _ = f.write_all(b\"%s\\n0\\n\"); std::mem::forget(f); }"
            " println!(\"7\"); }\n",
}


def test_forged_result_records_in_every_language_are_only_output(executor, tmp_path):
    problem = _problem(tmp_path)
    # the record as each language's string literal holds it (double quotes escaped in a
    # "..." literal; Python, JavaScript and Go quote it otherwise)
    quoted = FORGE_LINE.replace('"', '\\"')
    codes = {k: v.replace("%s", FORGE_LINE if k in ("python", "js", "go") else quoted)
             for k, v in FORGE.items()}
    results = _judge_all(executor, problem, codes)
    # never a pass, never an excluded verdict; Node may crash on a write into one of its own
    # descriptors (its event loop's): that is the program's runtime_error
    assert {k: r.verdict for k, r in results.items() if k != "js"} == \
        {k: Verdict.WRONG_ANSWER for k in FORGE if k != "js"}, \
        {k: r.message for k, r in results.items()}
    assert results["js"].verdict in (Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR), \
        results["js"].message


def test_reading_past_the_end_of_input_never_hangs(executor, tmp_path):
    problem = _problem(tmp_path)
    results = _judge_all(executor, problem, UNTIL_EOF)
    assert {k: r.verdict for k, r in results.items()} == {k: Verdict.PASS for k in UNTIL_EOF}, \
        {k: r.message for k, r in results.items()}
    tty = executor.judge(problem, Submission("print(open('/dev/tty').read())\n", "", None,
                                             "python"))
    assert tty.verdict is Verdict.RUNTIME_ERROR, tty.message  # no terminal to wait on


class _Reports(_Counting):
    def run(self, job):
        report = super().run(job)
        self.reports.append((job.id, report.recycle))
        return report


def test_a_validator_job_retires_its_worker_and_python_runs_as_python3_would(sandbox, tmp_path):
    """The worker that ran an output validator held the answers: it is replaced, so no later
    candidate forked from it finds them in memory. Python programs run in the worker's own
    interpreter (no start-up per test) exactly as ``python3 main.py args``."""
    from judge.engine.engine import Engine
    from judge.kinds.program.judge import ProgramJudge

    (tmp_path / "v.py").write_text(VALIDATOR)
    problem = _problem(tmp_path, checker={"type": "validator", "validator": "v.py"},
                       tests=[{"name": "t", "stdin": "1 2\n", "expected": "3\n", "args": ["1", "2"]}])
    box = _Reports(sandbox)
    box.reports = []
    judge = ProgramJudge(Engine(box, Limits(time_limit_s=1.0)))
    main = ("import sys, threading\n"
            "def late():\n    print(sum(map(int, sys.argv[1:])), end='')\n"
            "if __name__ == '__main__':\n    threading.Thread(target=late).start()\n")
    result = judge.judge(problem, Submission(main, "", None, "python"))
    assert result.verdict is Verdict.PASS, result.message
    assert [(job.startswith("validator-"), recycle) for job, recycle in box.reports] == \
        [(False, False), (True, True)]
    raised = judge.judge(problem, Submission("raise ValueError('boom')\n", "", None, "python"))
    assert raised.verdict is Verdict.RUNTIME_ERROR and "exit code 1" in raised.message
    assert "ValueError: boom" in raised.message
    said = judge.judge(problem, Submission("import sys\nsys.exit('bye')\n", "", None, "python"))
    assert said.verdict is Verdict.RUNTIME_ERROR and "exit code 1: bye" in said.message


def test_under_the_contest_rule_a_hanging_validator_costs_one_test(executor, tmp_path):
    (tmp_path / "v.py").write_text(VALIDATOR)
    tests = [{"name": str(i), "stdin": "1 2\n", "expected": "3\n"} for i in range(5)]
    problem = _problem(tmp_path, checker={"type": "validator", "validator": "v.py"},
                       validator_limits={"time_limit_s": 1, "output_kb": 64}, tests=tests,
                       contest={"stop_at_first_failure": True})
    result = executor.judge(problem, Submission("print('hang')\n", "", None, "python"))
    assert result.verdict is Verdict.WRONG_ANSWER
    assert "output validator failed: timed out" in result.tests[0].message
    assert len(result.problem_errors) == 1  # the others were never validated
    assert all(t.message.startswith("not run: test 1 failed") for t in result.tests[1:])
