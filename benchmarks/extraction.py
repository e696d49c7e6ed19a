"""Code extraction on long replies: linear now, quadratic before (issue 13, item 6).

Builds model-style replies of growing size (a sentence of prose, an unfenced function, then
paragraphs of prose after it: the case where prose must be stripped) and times
``judge.candidate.extract_code`` on each, median of a few rounds, beside the algorithm it
replaced (``_strip_prose`` re-parsed the reply once per trailing line). The old algorithm is
run in a child process with a time cap, since at 1 MB it takes minutes. Also times the wire
decoder on a forged set of 60,000 ints with equal hashes (refused now; the old decoder built
the set, quadratic) and extraction of a 4 MB bare module (not parsed by the judge now).

    .venv/bin/python benchmarks/extraction.py
    .venv/bin/python benchmarks/extraction.py --sizes 64 256 1024 --old-cap 120

Prints seconds and peak traced memory; the machines are shared and noisy, so read the
growth with size and the ratio old/new rather than absolute times.
"""

from __future__ import annotations

import argparse
import ast
import multiprocessing
import os
import platform
import re
import statistics
import time
import tracemalloc

from judge.sandbox import wire
from judge.candidates.extract import extract_code

FUNC = ("def f(values):\n    total = 0\n    for value in values:\n"
        "        total += value * value\n    return total\n")
PARAGRAPH = ("This paragraph explains the approach in plain words: it walks over the values "
             "once, squares each, and keeps a running total; it's linear in the input.\n")


def reply_of(kib: int) -> str:
    prose = []
    size = 0
    while size < kib * 1024:
        prose.append(PARAGRAPH)
        size += len(PARAGRAPH)
    return "Sure! Here is the solution.\n\n" + FUNC + "\n" + "".join(prose)


def old_strip_prose(text: str) -> str:
    """The algorithm before issue 13, verbatim in substance."""
    match = re.compile(r"^(def |async def |class |import |from |@)", re.M).search(text)
    if not match:
        return text
    lines = text[match.start():].splitlines()
    for end in range(len(lines), 0, -1):
        candidate = "\n".join(lines[:end])
        try:
            ast.parse(candidate)
            return candidate
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            pass
    return text[match.start():]


def _old_child(kib: int, queue) -> None:
    text = reply_of(kib)
    started = time.perf_counter()
    try:
        ast.parse(text)
    except SyntaxError:
        pass
    result = old_strip_prose(text)
    queue.put((time.perf_counter() - started, result.strip() == FUNC.strip()))


def time_old(kib: int, cap: float) -> tuple[float | None, bool | None]:
    queue: multiprocessing.Queue = multiprocessing.Queue()
    child = multiprocessing.Process(target=_old_child, args=(kib, queue))
    child.start()
    child.join(cap)
    if child.is_alive():
        child.kill()
        child.join()
        return None, None
    return queue.get()


def time_new(kib: int, rounds: int) -> tuple[float, int, bool]:
    text = reply_of(kib)
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        code, _note = extract_code(text, ["f"])
        times.append(time.perf_counter() - started)
    tracemalloc.start()
    extract_code(text, ["f"])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return statistics.median(times), peak, code.strip() == FUNC.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 64, 256, 1024],
                        help="reply sizes in KiB (default: 16 64 256 1024)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--old-cap", type=float, default=60.0,
                        help="seconds the old algorithm may take per size")
    args = parser.parse_args()
    print("machine: %s, %s, %d CPUs, Python %s" % (platform.machine(), platform.platform(),
                                                  os.cpu_count() or 0,
                                                  platform.python_version()))
    print("\nunfenced reply: a function, then prose (extract_code, median of %d)" % args.rounds)
    print("%9s  %10s  %12s  %12s  %8s" % ("size", "new (s)", "new peak", "old (s)", "old/new"))
    for kib in args.sizes:
        new_s, peak, ok = time_new(kib, args.rounds)
        old_s, old_ok = time_old(kib, args.old_cap)
        old_text = ">%.0f (stopped)" % args.old_cap if old_s is None else "%.3f" % old_s
        ratio = "-" if old_s is None else "%.0fx" % (old_s / max(new_s, 1e-9))
        print("%6d KiB  %10.4f  %9.1f MiB  %12s  %8s%s" % (
            kib, new_s, peak / 2 ** 20, old_text, ratio,
            "" if ok and old_ok in (True, None) else "  (code differs!)"))

    print("\nadversarial reply: 60 KB of code, then 30 lines that each end the code one line "
          "earlier (\"if x:\"), extract_code:")
    hostile = FUNC + "x = 1\n" * 10_000 + "if x:\n" * 30
    started = time.perf_counter()
    extract_code(hostile, ["f"])
    new_s = time.perf_counter() - started
    started = time.perf_counter()
    old_strip_prose(hostile)
    print("  new: %.3f s (parse budget), old: %.3f s" % (new_s, time.perf_counter() - started))

    print("\nbare module of 4 MB (\"y = [1,1,...]\"), extract_code:")
    module = FUNC + "y = [" + "1," * 2_000_000 + "]\n"
    tracemalloc.start()
    started = time.perf_counter()
    extract_code(module, ["f"])
    took = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print("  new: %.3f s, peak %.1f MiB (ast.parse of it: ~2 GB, measured apart)" % (
        took, peak / 2 ** 20))

    print("\nforged set of 60,000 ints with equal hashes, wire.decode:")
    flood = {"$set": [k * (2 ** 61 - 1) for k in range(1, 60001)]}
    started = time.process_time()
    try:
        wire.decode(flood)
        outcome = "decoded"
    except wire.WireError as exc:
        outcome = "refused: %s" % exc
    print("  new: %.3f s CPU, %s" % (time.process_time() - started, outcome))
    small = [k * (2 ** 61 - 1) for k in range(1, 6001)]
    started = time.process_time()
    set(small)
    print("  old way (building the set), 6,000 of them: %.3f s CPU; the cost grows with the "
          "square (60,000: ~100x that)" % (time.process_time() - started))


if __name__ == "__main__":
    main()
