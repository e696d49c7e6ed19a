"""The judge's sandbox worker.

A long-lived process inside a sandbox (a process sandbox or a warm container). It reads jobs
as JSON lines on its stdin and writes records as JSON lines on its stdout; nothing else
reaches the judge. It never runs candidate code itself: every test runs in its own forked
child, which loads the candidate (Python) or execs its program (the other languages), calls
the function once, encodes the return value as wire data and writes it to a private pipe.
The worker measures time and memory, enforces limits, kills whatever the child left behind,
and reports what happened. Expected outputs are never sent here, so nothing in this process
(or a child's copy of it) can leak them.

Standard library only: it runs with nothing but a Python interpreter. Its modules:
``main`` (command line, channel, job loop), ``worker`` (Python jobs, budget), ``native``
(the other languages' jobs), ``program`` (whole programs: standard input in, standard
output back), ``child`` (the forked test child), ``supervise`` (limits and reading what a
child wrote), ``system`` (/proc, namespaces, leftovers), ``files`` (work
directories, removal). ``wire`` (the value codec) and ``records`` (the protocol's statuses)
are the judge's own ``judge/sandbox/wire.py`` and ``judge/sandbox/records.py``: one source,
linked here and copied with the worker wherever it runs.

Only what the worker needs is imported (argparse, tempfile, traceback, zipfile are not): the
worker forks once per candidate and once per isolated test, and a fork copies the page
tables of all its memory, which every child then unmaps at exit. Started as an imported
module (``judge.sandbox.harness.worker_command``), so its bytecode is loaded, not compiled.
"""
