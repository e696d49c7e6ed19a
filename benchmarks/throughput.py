"""Throughput of the judge's sandboxes on one batch of candidates, in one run.

Builds a batch of at least 1,000 candidates from the shipped suites (each problem's reference
solution, plus wrong and crashing variants), judges the same batch with each sandbox, and
prints candidates/second for each and the ratios to the process sandbox. Ratios, not absolute
times, are the result: these machines are shared and noisy.

    .venv/bin/python benchmarks/throughput.py                       # process + docker (both modes)
    .venv/bin/python benchmarks/throughput.py --sandboxes process --candidates 2000
    # issue 25's docker target: 300 distinct candidates, 3 interleaved rounds, medians
    .venv/bin/python benchmarks/throughput.py --sandboxes process,docker --candidates 300 \
        --distinct --rounds 3

Timing covers opening the sandbox (starting workers or containers), the reference-solution
timing runs, judging every candidate, and closing the sandbox. Each sandbox is judged with
the judge's default flags in a process of its own (``--one``), the sandboxes alternating
within each round; with several rounds the figures are medians. ``--distinct`` makes every
candidate's code distinct (a numbered comment), so no identical candidate is judged once for
several. Every run's verdicts (per test) must equal the first run's: the script says whether
they do. Beside wall time it reports the CPU time the run cost per candidate, which a loaded
machine disturbs far less: the judge process and its workers, the containers (their
cgroups) and the Docker engine (dockerd, containerd and the shims; the engine's figure
includes whatever else it did meanwhile).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from judge.api import Judge
from judge.running.batch import with_problems
from judge.candidates.extract import Candidate
from judge.problem.model import Suite
from judge.kinds.loader import load_suite
from judge.resources import shipped_problems
from judge.sandbox import open_sandbox
from judge.sandbox.base import Limits

SUITES = ("basics", "debugging", "types")


def load_problems() -> Suite:
    problems = []
    for name in SUITES:
        problems.extend(load_suite(shipped_problems() / name).problems)
    return Suite("shipped", shipped_problems(), problems)


def variants(problem) -> list[str]:
    """Realistic candidates: right answers, wrong answers, crashes."""
    name = problem.function_name
    params = ", ".join(problem.parameter_names)
    return [
        problem.optimal_solution,
        "def %s(%s):\n    return None\n" % (name, params),
        "def %s(%s):\n    raise ValueError('not implemented')\n" % (name, params),
    ]


def batch(suite: Suite, count: int) -> list[Candidate]:
    candidates: list[Candidate] = []
    weights = (0.7, 0.15, 0.15)
    per_problem = max(1, -(-count // len(suite.problems)))
    for problem in suite.problems:
        codes = variants(problem)
        for sample in range(per_problem):
            kind = 0 if sample < per_problem * weights[0] else (
                1 if sample < per_problem * (weights[0] + weights[1]) else 2)
            candidates.append(Candidate(problem.identifier, codes[kind], model="bench",
                                        sample=sample))
    return candidates[: max(count, len(candidates))]


def distinct(candidates: list[Candidate]) -> list[Candidate]:
    """The same candidates, each one's code made distinct by a numbered comment."""
    return [Candidate(c.problem_id, "%s\n# candidate %d\n" % (c.solution.rstrip("\n"), i),
                      model=c.model, sample=i) for i, c in enumerate(candidates)]


def _tick_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / os.sysconf("SC_CLK_TCK")


def _engine_pids() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/comm" % entry) as handle:
                    name = handle.read().strip()
            except OSError:
                continue
            if name in ("dockerd", "containerd") or name.startswith("containerd-shim"):
                found.append(int(entry))
    return found


def _container_cpu(container_id: str) -> float | None:
    """CPU seconds a container used so far, from its cgroup (v1 or v2), None if unreadable."""
    parent = os.environ.get("JUDGE_DOCKER_CGROUP_PARENT", "/docker").rstrip("/")
    for path, scale in (("/sys/fs/cgroup/cpuacct" + parent + "/%s/cpuacct.usage", 1e9),
                        ("/sys/fs/cgroup" + parent + "/%s/cpu.stat", 1e6),
                        ("/sys/fs/cgroup/system.slice/docker-%s.scope/cpu.stat", 1e6)):
        try:
            with open(path % container_id) as handle:
                text = handle.read()
        except OSError:
            continue
        if scale == 1e9:
            return int(text) / scale
        for line in text.splitlines():
            if line.startswith("usage_usec "):
                return int(line.split()[1]) / scale
    return None


class ContainerCpu:
    """Samples the CPU of this process's containers (label ``org.judge.pid``) while a run
    goes on; a container's last sample is what it used (a few ms may be missed at the end)."""

    def __init__(self) -> None:
        self.used: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        try:
            from judge.sandbox.backends.docker import image as images

            self._client = images.get_client(timeout=10)
        except Exception:  # no engine: nothing to sample
            return
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        from judge.sandbox.backends.docker import image as images

        label = "%s=%d" % (images.LABEL_PID, os.getpid())
        while not self._stop.is_set():
            try:
                ids = [c["Id"] for c in self._client.api.containers(filters={"label": label})]
            except Exception:
                ids = []
            for cid in ids:
                cpu = _container_cpu(cid)
                if cpu is not None:
                    self.used[cid] = max(cpu, self.used.get(cid, 0.0))
            self._stop.wait(0.2)

    def stop(self) -> float:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._client.close()
        return sum(self.used.values())


def measure(kind: str, suite: Suite, candidates: list[Candidate], jobs: int) -> dict:
    """One run; ``docker@/PARENT``: the docker sandbox with its containers' cgroups under
    PARENT (``JUDGE_DOCKER_CGROUP_PARENT``)."""
    name, _, parent = kind.partition("@")
    if parent:
        os.environ["JUDGE_DOCKER_CGROUP_PARENT"] = parent
    sandbox_kind, isolation = (name.split("-") + ["warm"])[:2]
    engine = _engine_pids() if sandbox_kind == "docker" else []
    engine_before = _tick_seconds(engine)
    sampler = ContainerCpu()
    if sandbox_kind == "docker":
        sampler.start()
    before = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    limits = Limits()
    with open_sandbox(sandbox_kind, jobs, isolation,
                      notice=lambda m: print("  " + m, file=sys.stderr), limits=limits) as sandbox:
        with Judge(sandbox, jobs, limits=limits) as judge:
            outcome = judge.run(with_problems(suite, ((c, None) for c in candidates)), source="bench")
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    judge_cpu = sum(a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime for a, b in zip(after, before))
    containers = sampler.stop()
    engine_cpu = 0.0
    if sandbox_kind == "docker":  # the shims of this run's containers were born since
        born = [p for p in _engine_pids() if p not in engine]
        engine_cpu = max(0.0, _tick_seconds(engine + born) - engine_before)
    verdicts: dict[str, int] = {}
    for row in outcome.results:
        verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
    count = len(outcome.results)
    cpu = judge_cpu + containers + engine_cpu
    return {"sandbox": kind, "candidates": count, "seconds": round(seconds, 3),
            "per_second": round(count / seconds, 2), "verdicts": verdicts,
            "cpu_ms": {"judge_and_workers": round(1e3 * judge_cpu / count, 2),
                       "containers": round(1e3 * containers / count, 2),
                       "engine": round(1e3 * engine_cpu / count, 2),
                       "total": round(1e3 * cpu / count, 2)},
            "signature": [[r["problem_id"], r["sample"], r["verdict"],
                           [t["verdict"] for t in r["tests"]]] for r in outcome.results]}


def measure_apart(kind: str, args: argparse.Namespace, count: int) -> dict:
    """``measure`` in a process of its own (a fresh interpreter, as a user's run)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--one", kind,
               "--candidates", str(args.candidates), "--take", str(count),
               "--jobs", str(args.jobs)]
    if args.distinct:
        command.append("--distinct")
    done = subprocess.run(command, capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError((done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1])
    return json.loads(lines[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sandboxes", default="process,docker,docker-fresh",
                        help="comma list of process, docker, docker-fresh, docker@/PARENT "
                             "(containers' cgroups under PARENT, e.g. docker@/)")
    parser.add_argument("--candidates", type=int, default=1044)
    parser.add_argument("--fresh-candidates", type=int, default=None,
                        help="batch size for docker-fresh (default: the same batch)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--distinct", action="store_true",
                        help="make every candidate's code distinct (none is judged once for "
                             "several)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="rounds of all sandboxes, alternating their order (medians)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # one measurement, as JSON
    parser.add_argument("--take", type=int, help=argparse.SUPPRESS)  # of the batch, with --one
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()

    suite = load_problems()
    candidates = batch(suite, args.candidates)
    if args.distinct:
        candidates = candidates[: args.candidates]
    if args.one:
        chosen = candidates[: args.take or len(candidates)]
        print(json.dumps(measure(args.one, suite, distinct(chosen) if args.distinct else chosen,
                                 args.jobs)))
        return 0
    print("machine: %s, %d CPUs, Python %s; batch: %d %scandidates over %d problems; jobs %d; "
          "load %s" % (platform.machine(), os.cpu_count() or 0, platform.python_version(),
                       len(candidates), "distinct " if args.distinct else "",
                       len(suite.problems), args.jobs, _load()))
    kinds = args.sandboxes.split(",")
    runs: dict[str, list[dict]] = {kind: [] for kind in kinds}
    reference, same = None, True
    for round_ in range(args.rounds):
        order = kinds if round_ % 2 == 0 else kinds[::-1]
        for kind in order:
            count = len(candidates)
            if kind == "docker-fresh" and args.fresh_candidates:
                count = min(count, args.fresh_candidates)
            try:
                row = measure_apart(kind, args, count)
            except Exception as exc:  # an unavailable engine is reported, not fatal
                print("%-14s unavailable: %s" % (kind, exc))
                continue
            signature = row.pop("signature")
            if count == len(candidates):
                reference = reference or signature
                same = same and signature == reference
            runs[kind].append(row)
            cpu = row["cpu_ms"]
            print("round %d %-14s %5d candidates in %7.2fs  %8.1f candidates/s  cpu %.2f ms/"
                  "candidate (judge+workers %.2f, containers %.2f, engine %.2f)  %s  load %s" % (
                      round_ + 1, kind, row["candidates"], row["seconds"], row["per_second"],
                      cpu["total"], cpu["judge_and_workers"], cpu["containers"],
                      cpu["engine"], row["verdicts"], _load()), flush=True)
    rows = []
    for kind in kinds:
        if not runs[kind]:
            continue
        rows.append({"sandbox": kind, "rounds": runs[kind],
                     "per_second": statistics.median(r["per_second"] for r in runs[kind]),
                     "cpu_ms": statistics.median(r["cpu_ms"]["total"] for r in runs[kind])})
        print("median %-14s %8.1f candidates/s  %.2f ms CPU/candidate" % (
            kind, rows[-1]["per_second"], rows[-1]["cpu_ms"]))
    base = next((r for r in rows if r["sandbox"] == "process"), None)
    if base:
        for row in rows:
            row["ratio_to_process"] = round(row["per_second"] / base["per_second"], 3)
            row["cpu_ratio_to_process"] = round(base["cpu_ms"] / row["cpu_ms"], 3)
            print("ratio %-14s / process = %.3f (by CPU per candidate: %.3f)%s" % (
                row["sandbox"], row["ratio_to_process"], row["cpu_ratio_to_process"],
                "  target >= 0.9: %s" % ("met" if row["ratio_to_process"] >= 0.9 else "MISSED")
                if row["sandbox"] == "docker" else ""))
    print("verdicts equal in every run: %s" % same)
    if args.json_out:
        args.json_out.write_text(json.dumps({"cpus": os.cpu_count(), "rows": rows,
                                             "verdicts_equal": same}, indent=2))
    return 0 if same else 1


def _load() -> str:
    try:
        return "%.2f" % os.getloadavg()[0]
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
