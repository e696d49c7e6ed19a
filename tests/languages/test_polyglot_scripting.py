"""Bash, Lua, Perl, PHP, R, Racket and Ruby judged for real, in the process sandbox and in
Docker (the ``polyglot`` image), through the public API (``judge.Judge``): hello and a stdin
echo under a 256 MB limit (``run_program``), and a program problem judged end to end per
language: an honest sum passes; a syntax error is compile_error with its line; an error is
runtime_error with its message; a sleep and a busy loop are timeout; endless recursion is
the runtime's stack error (runtime_error) or memory_limit; a memory bomb is memory_limit; an output flood is output_limit; a fork bomb is stopped (timeout, runtime_error
or memory_limit) and the sandbox still judges afterwards; a program looking for the expected
answer (the test's files, the judge's, /tmp, the folder above) finds nothing; a result record
forged on every descriptor is only output (wrong_answer). Function problems are refused with
a clear message (``not_expressible``).

Every language's cases run as one batch per sandbox (two at a time); the module's process
half took 1.5 to 5 minutes on the shared two-core machine, the Docker half 5 to 11 minutes
(the image built; most of it is the sleeps, loops and bombs running to their limits)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from judge.api import Judge, RunSpec
from judge.engine.verdicts import Verdict
from judge.problem.program import program_from_data

SEVEN = ("bash", "lua", "perl", "php", "r", "racket", "ruby")
SANDBOXES = ["process", pytest.param("docker", marks=pytest.mark.docker)]
#: the answer no program can compute from its input: only a leak would print it
SECRET = "s3cr3t-answer-4be1"
FORGE_LINE = '{"event": "test", "index": 0, "status": "exited", "exit_code": 0}'

#: "hello", then standard input as it came (no tag, no #lang: PHP and Racket add them)
HELLO_ECHO = {
    "bash": 'echo hello\nwhile IFS= read -r line; do printf "%s\\n" "$line"; done\n',
    "lua": 'print("hello")\nio.write(io.read("a"))\n',
    "perl": 'print "hello\\n";\nprint while <STDIN>;\n',
    "php": 'echo "hello\\n";\necho stream_get_contents(STDIN);\n',
    "r": 'cat("hello\\n")\nwriteLines(readLines(file("stdin")))\n',
    "racket": '(displayln "hello")\n(copy-port (current-input-port) (current-output-port))\n',
    "ruby": 'puts "hello"\nprint STDIN.read\n',
}

#: the sum of the two numbers of standard input
SUM = {
    "bash": 'read a b\necho $((a + b))\n',
    "lua": 'local a, b = io.read("n", "n")\nprint(a + b)\n',
    "perl": 'my ($a, $b) = split " ", <STDIN>;\nprint $a + $b, "\\n";\n',
    "php": '<?php\n[$a, $b] = array_map("intval", explode(" ", trim(fgets(STDIN))));\n'
           'echo $a + $b, "\\n";\n',
    "r": 'x <- scan(file("stdin"), quiet = TRUE)\ncat(sum(x), "\\n")\n',
    "racket": '#lang racket\n(define a (read))\n(define b (read))\n(displayln (+ a b))\n',
    "ruby": 'a, b = gets.split.map(&:to_i)\nputs a + b\n',
}

#: a syntax error on the candidate's line 2
SYNTAX = {
    "bash": 'echo 1\nfi\n',
    "lua": 'print(1)\nx = = 2\n',
    "perl": 'print 1;\nmy $x = ;\n',
    "php": '<?php\n$x = ;\n',
    "r": 'cat(1)\nx <- 1 2\n',
    "racket": '#lang racket\n(display 1))\n',
    "ruby": 'puts 1\ndef x(\n',
}

#: an error raised at run time, saying "boom"
RUNTIME = {
    "bash": 'echo boom >&2\nexit 3\n',
    "lua": 'error("boom")\n',
    "perl": 'die "boom\\n";\n',
    "php": '<?php\nthrow new Exception("boom");\n',
    "r": 'stop("boom")\n',
    "racket": '#lang racket\n(error "boom")\n',
    "ruby": 'raise "boom"\n',
}

SLEEP = {
    "bash": 'sleep 10\necho 3\n',
    "lua": 'os.execute("sleep 10")\nprint(3)\n',
    "perl": 'sleep 10;\nprint "3\\n";\n',
    "php": '<?php\nsleep(10);\necho "3\\n";\n',
    "r": 'Sys.sleep(10)\ncat(3, "\\n")\n',
    "racket": '#lang racket\n(sleep 10)\n(displayln 3)\n',
    "ruby": 'sleep 10\nputs 3\n',
}

LOOP = {
    "bash": 'while true; do :; done\n',
    "lua": 'local i = 0\nwhile true do i = i + 1 end\n',
    "perl": 'my $i = 0;\n$i++ while 1;\n',
    "php": '<?php\n$i = 0;\nwhile (true) { $i++; }\n',
    "r": 'i <- 0\nrepeat { i <- i + 1 }\n',
    "racket": '#lang racket\n(let loop ([i 0]) (loop (add1 i)))\n',
    "ruby": 'i = 0\nloop { i += 1 }\n',
}

#: recursion without end: the interpreter's stack error, or its memory
DEEP = {
    "bash": 'f() { f; }\nf\n',
    "lua": 'local function f(n) return 1 + f(n + 1) end\nprint(f(1))\n',
    "perl": 'sub f { return 1 + f($_[0] + 1); }\nprint f(1);\n',
    "php": '<?php\nfunction f($n) { return 1 + f($n + 1); }\necho f(1);\n',
    "r": 'f <- function(n) 1 + f(n + 1)\nprint(f(1))\n',
    "racket": '#lang racket\n(define (f n) (+ 1 (f (+ n 1))))\n(displayln (f 1))\n',
    "ruby": 'def f(n) = 1 + f(n + 1)\nputs f(1)\n',
}
#: how each runtime ends it: a stack error of its own (Lua, R, Ruby), or its stack grows in
#: memory until the limit (Perl, PHP, Racket), or too slowly for the time limit (Bash)
DEEP_EXPECTED = {"bash": {Verdict.TIMEOUT, Verdict.MEMORY_LIMIT}, "lua": {Verdict.RUNTIME_ERROR},
                 "perl": {Verdict.MEMORY_LIMIT}, "php": {Verdict.MEMORY_LIMIT},
                 "r": {Verdict.RUNTIME_ERROR}, "racket": {Verdict.MEMORY_LIMIT},
                 "ruby": {Verdict.RUNTIME_ERROR}}

#: memory held in growing pieces (never one allocation the runtime could refuse)
BOMB = {
    "bash": 's=xxxxxxxxxxxxxxxx\nwhile true; do s="$s$s"; done\n',
    "lua": 'local t, i = {}, 0\nwhile true do i = i + 1; t[i] = string.rep("x", 1000000) .. i end\n',
    "perl": 'my @a;\nwhile (1) { push @a, "x" x 1000000; }\n',
    "php": '<?php\n$a = [];\nwhile (true) { $a[] = str_repeat("x", 1000000) . count($a); }\n',
    "r": 'x <- list()\ni <- 0\nrepeat { i <- i + 1; x[[i]] <- runif(1e6) }\n',
    "racket": '#lang racket\n(let loop ([l (list)]) (loop (cons (make-bytes 1000000 1) l)))\n',
    "ruby": 'a = []\nloop { a << "x" * 1_000_000 }\n',
}

FLOOD = {
    "bash": 'while true; do echo yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy; done\n',
    "lua": 'local s = string.rep("y", 1000)\nwhile true do io.write(s, "\\n") end\n',
    "perl": 'print "y" x 1000, "\\n" while 1;\n',
    "php": '<?php\nwhile (true) { echo str_repeat("y", 1000), "\\n"; }\n',
    "r": 'repeat cat(strrep("y", 1000), "\\n")\n',
    "racket": '#lang racket\n(let loop () (displayln (make-string 1000 #\\y)) (loop))\n',
    "ruby": 'loop { puts "y" * 1000 }\n',
}

#: processes without end (each language's own way to start one)
FORK = {
    "bash": 'while true; do sleep 100 & done\n',
    "lua": 'while true do os.execute("/usr/bin/lua5.4 " .. arg[0] .. " &") end\n',
    "perl": 'fork while 1;\n',
    "php": '<?php\nwhile (true) { @pcntl_fork(); }\n',
    "r": 'repeat system("sleep 100 &", wait = FALSE)\n',
    "racket": '#lang racket\n(let loop () (with-handlers ([void void])'
              ' (subprocess #f #f #f "/bin/sleep" "100")) (loop))\n',
    "ruby": 'loop { fork rescue nil }\n',
}

#: read the file its argument names, every file of /tmp and of the folder above: print the
#: secret if any holds it, else "nothing"
SNOOP = {
    "bash": ('found=nothing\nfor f in "$@" /tmp/* ../* ./*; do\n'
             '  if [ -f "$f" ] && grep -q SECRET "$f" 2>/dev/null; then found=SECRET; fi\n'
             'done\necho $found\n'),
    "lua": ('local found = "nothing"\nlocal paths = {}\nfor _, a in ipairs(arg) do '
            'paths[#paths + 1] = a end\nfor _, d in ipairs({"/tmp", "..", "."}) do\n'
            '  local p = io.popen("ls -A " .. d .. " 2>/dev/null")\n'
            '  for n in p:lines() do paths[#paths + 1] = d .. "/" .. n end\n  p:close()\nend\n'
            'for _, p in ipairs(paths) do\n  local f = io.open(p, "r")\n'
            '  if f then local ok, t = pcall(f.read, f, "a")\n'
            '    if ok and t and t:find("SECRET", 1, true) then found = "SECRET" end\n'
            '    f:close() end\nend\nprint(found)\n'),
    "perl": ('my $found = "nothing";\nfor my $p (@ARGV, glob("/tmp/* ../* ./*")) {\n'
             '  next unless -f $p;\n  open(my $f, "<", $p) or next;\n  local $/;\n'
             '  my $t = <$f>;\n  $found = "SECRET" if defined $t && index($t, "SECRET") >= 0;\n}\n'
             'print "$found\\n";\n'),
    "php": ('<?php\n$found = "nothing";\n$paths = array_merge(array_slice($argv, 1), '
            'glob("/tmp/*") ?: [], glob("../*") ?: [], glob("./*") ?: []);\n'
            'foreach ($paths as $p) {\n  if (is_file($p) && is_readable($p) && '
            'strpos((string)@file_get_contents($p), "SECRET") !== false) $found = "SECRET";\n}\n'
            'echo $found, "\\n";\n'),
    "r": ('found <- "nothing"\npaths <- c(commandArgs(TRUE), list.files("/tmp", full.names = TRUE),'
          ' list.files("..", full.names = TRUE), list.files(".", full.names = TRUE))\n'
          'for (p in paths) {\n  t <- tryCatch(paste(readLines(p, warn = FALSE), collapse = "\\n"),'
          ' error = function(e) "", warning = function(w) "")\n'
          '  if (grepl("SECRET", t, fixed = TRUE)) found <- "SECRET"\n}\ncat(found, "\\n")\n'),
    "racket": ('#lang racket\n(define found "nothing")\n'
               '(define (look p) (with-handlers ([void void])\n'
               '  (when (and (file-exists? p) (string-contains? (file->string p) "SECRET"))\n'
               '    (set! found "SECRET"))))\n'
               '(for ([a (current-command-line-arguments)]) (look a))\n'
               '(for ([d (list "/tmp" ".." ".")])\n'
               '  (with-handlers ([void void]) (for ([f (directory-list d #:build? #t)]) (look f))))\n'
               '(displayln found)\n'),
    "ruby": ('found = "nothing"\n(ARGV + Dir.glob("/tmp/*") + Dir.glob("../*") + Dir.glob("./*")).each do |p|\n'
             '  begin\n    found = "SECRET" if File.file?(p) && File.read(p).include?("SECRET")\n'
             '  rescue StandardError\n  end\nend\nputs found\n'),
}
SNOOP = {k: v.replace("SECRET", SECRET) for k, v in SNOOP.items()}

#: a harness's result record on every descriptor from 3 to 63 and on standard error, then a
#: wrong answer (7 for 1 + 2)
FORGE = {
    "bash": "for fd in $(seq 3 63); do { echo 'LINE' >&$fd; } 2>/dev/null; done\n"
            "echo 'LINE' >&2\necho 7\n",
    "lua": "for fd = 3, 63 do\n  local f = io.open('/proc/self/fd/' .. fd, 'w')\n"
           "  if f then f:write('LINE\\n'); f:close() end\nend\nio.stderr:write('LINE\\n')\n"
           "print(7)\n",
    "perl": "for my $fd (3 .. 63) {\n  if (open(my $f, '>&=', $fd)) { print $f \"LINE\\n\"; }\n}\n"
            "print STDERR \"LINE\\n\";\nprint \"7\\n\";\n",
    "php": "<?php\nfor ($fd = 3; $fd < 64; $fd++) { @file_put_contents(\"php://fd/$fd\", "
           "'LINE' . \"\\n\"); }\nfwrite(STDERR, 'LINE' . \"\\n\");\necho \"7\\n\";\n",
    "r": "for (fd in 3:63) tryCatch(cat('LINE\\n', file = paste0('/proc/self/fd/', fd)),"
         " error = function(e) NULL, warning = function(w) NULL)\n"
         "cat('LINE\\n', file = stderr())\ncat(7, '\\n')\n",
    "racket": "#lang racket\n(for ([fd (in-range 3 64)])\n  (with-handlers ([void void])\n"
              "    (call-with-output-file (format \"/proc/self/fd/~a\" fd)\n"
              "      (lambda (o) (write-string \"LINE\\n\" o)) #:exists 'append)))\n"
              "(eprintf \"LINE\\n\")\n(displayln 7)\n",
    "ruby": "(3..63).each { |fd| begin; IO.new(fd).write('LINE' + \"\\n\"); rescue StandardError;"
            " end }\n$stderr.puts 'LINE'\nputs 7\n",
}
FORGE = {k: v.replace("LINE", FORGE_LINE if k in ("bash", "lua", "php", "r", "ruby")
                      else FORGE_LINE.replace('"', '\\"')) for k, v in FORGE.items()}

CASES = {"sum": SUM, "syntax": SYNTAX, "runtime": RUNTIME, "sleep": SLEEP, "loop": LOOP,
         "deep": DEEP, "bomb": BOMB, "flood": FLOOD, "fork": FORK, "snoop": SNOOP, "forge": FORGE}
#: each case's verdicts (several where the runtime decides how a fork bomb ends)
EXPECTED = {"sum": {Verdict.PASS}, "syntax": {Verdict.COMPILE_ERROR},
            "runtime": {Verdict.RUNTIME_ERROR}, "sleep": {Verdict.TIMEOUT},
            "loop": {Verdict.TIMEOUT}, "bomb": {Verdict.MEMORY_LIMIT},
            "flood": {Verdict.OUTPUT_LIMIT},
            # (or output_limit: the runtime's "cannot fork" complaints fill standard error)
            "fork": {Verdict.TIMEOUT, Verdict.RUNTIME_ERROR, Verdict.MEMORY_LIMIT,
                     Verdict.OUTPUT_LIMIT},
            "snoop": {Verdict.WRONG_ANSWER}, "forge": {Verdict.WRONG_ANSWER}}


def _problem(tmp, args=False):
    """1 + 2 from a file of the judge's; ``args``: the test's argument names a file of the
    judge's holding the secret (a program that reads it must not find it)."""
    (tmp / "in").write_text("1 2\n")
    (tmp / "ans").write_text("3\n")
    (tmp / "secret.txt").write_text(SECRET + "\n")
    test = {"name": "t", "stdin_file": "in", "expected_file": "ans"}
    if args:
        test["args"] = [str(tmp / "secret.txt"), str(tmp / "ans")]
    name = "sum_args" if args else "sum"
    data = {"kind": "program", "identifier": name, "statement": "Add two numbers.",
            "tests": [test], "limits": {"time_limit_s": 1, "memory_mb": 128, "output_kb": 64}}
    return program_from_data(data, str(tmp / (name + ".json")), tmp)


@pytest.fixture(scope="module", params=SANDBOXES)
def judged(request, tmp_path_factory):
    """Every language's hello/echo run and every case judged, in one sandbox."""
    if request.param == "docker":
        from tests.conftest import docker_or_skip

        docker_or_skip()
        from judge.sandbox.backends.docker import build, image

        if image.image_ready("polyglot") is None:
            build.build_image("polyglot", progress=lambda message: None)
    tmp = tmp_path_factory.mktemp("polyglot-%s" % request.param)
    problems = {False: _problem(tmp), True: _problem(tmp, args=True)}
    with Judge(request.param, jobs=2) as judge:
        def run(language):
            return language, judge.run_program(
                language, HELLO_ECHO[language], [b"one two\n3 4\n"],
                RunSpec(wall_s=10, memory_mb=256))

        def one(item):
            language, case = item
            problem = problems[case == "snoop"]
            return (language, case), judge.judge(problem, CASES[case][language],
                                                 language=language)

        with ThreadPoolExecutor(2) as pool:
            runs = dict(pool.map(run, SEVEN))
            results = dict(pool.map(one, [(lang, case) for lang in SEVEN for case in CASES]))
            after = dict(pool.map(lambda lang: (lang, judge.judge(problems[False], SUM[lang],
                                                                  language=lang)), SEVEN))
        yield {"name": request.param, "runs": runs, "results": results, "after": after}


@pytest.mark.parametrize("language", SEVEN)
def test_hello_and_stdin_echo_under_256_mb(judged, language):
    runs = judged["runs"][language]
    assert runs.compile.compiled, runs.compile.output
    run = runs.runs[0]
    assert run is not None and run.verdict is None, (run and run.message, run and run.stderr)
    assert run.stdout == b"hello\none two\n3 4\n", run.stdout


@pytest.mark.parametrize("language", SEVEN)
def test_every_case_gets_its_verdict(judged, language):
    wrong = {}
    for case in CASES:
        result = judged["results"][(language, case)]
        expected = DEEP_EXPECTED[language] if case == "deep" else EXPECTED[case]
        if result.verdict not in expected:
            wrong[case] = (result.verdict.value, result.message)
        else:
            assert result.sandbox == judged["name"]
    assert wrong == {}
    results = {case: judged["results"][(language, case)] for case in CASES}
    assert "(line 2)" in results["syntax"].message, results["syntax"].message
    if language in ("lua", "r", "ruby"):  # the interpreter's own words
        assert "stack" in results["deep"].message or "nested" in results["deep"].message
    said = results["runtime"].message
    assert ("exit code 3" if language == "bash" else "boom") in said, said
    assert "'nothing'" in results["snoop"].message, results["snoop"].message
    assert "time limit" in results["sleep"].message and "time limit" in results["loop"].message
    # the sandbox survived every bomb: the honest program still passes
    assert judged["after"][language].verdict is Verdict.PASS, judged["after"][language].message


@pytest.mark.parametrize("language", [name for name in SEVEN if name not in ("php", "ruby")])
def test_function_problems_are_refused_by_name(language):  # PHP, Ruby: test_*_functions.py
    from judge import languages
    from judge.languages.base import NotExpressible
    from judge.problem.model import function_from_data
    from tests.problems import next_number_data

    problem = function_from_data(next_number_data([(1, 2)]), "<next_number>")
    lang = languages.get(language)
    with pytest.raises(NotExpressible) as caught:
        lang.for_problem(problem)
    assert str(caught.value) == ("%s judges whole programs only (program problems): function "
                                 "problems have no %s harness" % (lang.title, lang.title))
