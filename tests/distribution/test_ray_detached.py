"""The judge's actors kept warm on a cluster across driver processes (detached, named,
leased to one run at a time; judge.distribution.ray_actor and ray_session), on a real 2-node
local cluster, with real driver processes: a small script, or ``judge run --executor ray``.

Each driver process prints the actors it judged on (Ray actor id and process id): a later
driver is shown to reuse an earlier one's actors by those ids, never by time.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import pytest
from tests.paths import ROOT

#: this folder, where test_ray.py is (the driver scripts import it)
HERE = Path(__file__).resolve().parent

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only

ray = pytest.importorskip("ray", reason="the 'ray' extra is part of the test extra")

from judge.api import Judge  # noqa: E402
from judge.distribution import ray_actor, ray_session  # noqa: E402
from judge.running.batch import with_problems  # noqa: E402

from test_ray import (ACTOR_UIDS, distinct_candidates, signature, start_cluster,  # noqa: E402
                      stop_cluster, uid_processes, wait_until)


#: a driver process: judges distinct candidates of problems/basics over Ray and prints what
#: it judged on. argv: address, first sample, count, [ready file, other's ready file | hang]
DRIVER = textwrap.dedent("""
    import json, os, sys, time
    sys.path.insert(0, %(tests)r)
    from judge.api import Judge
    from judge.running.batch import with_problems
    from test_ray import distinct_candidates, signature

    address, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    suite, candidates = distinct_candidates(first + count)
    notes = []
    with Judge("process", 1, executor="ray", ray_address=address,
               notice=notes.append) as judge:
        info = judge.describe()
        import ray
        mine = {"job": ray.get_runtime_context().get_job_id(), "pid": os.getpid(),
                "actors": sorted((n["actor_id"], n["pid"]) for n in info["node_sandboxes"])}
        if len(sys.argv) > 4:  # both drivers open at once before either judges
            with open(sys.argv[4] + ".tmp", "w") as handle:
                json.dump(mine, handle)
            os.rename(sys.argv[4] + ".tmp", sys.argv[4])
            if sys.argv[5] == "hang":
                time.sleep(3600)
            while not os.path.exists(sys.argv[5]):
                time.sleep(0.05)
        rows = judge.run(with_problems(suite, ((c, None) for c in candidates[first:]))).results
    print(json.dumps(dict(mine, reused=info["reused_actors"], started=info["started_actors"],
                          kept=info["kept"], nodes=info["nodes"], notes=notes,
                          signature=signature(rows))))
""") % {"tests": str(HERE)}


@pytest.fixture(scope="module")
def cluster():
    cluster = start_cluster()
    ray.init(address=cluster.address, log_to_driver=False)  # to look at the actors
    yield cluster
    stop_cluster(cluster)


@pytest.fixture
def fresh(cluster):
    """No kept actor at the start (nor at the end) of a test."""
    ray_session.release_all(force=True)
    assert wait_until(lambda: not ray_session.kept_actors())
    yield cluster
    ray_session.release_all(force=True)


def driver(tmp_path: Path, address: str, first: int = 0, count: int = 12,
           *extra: str, env: dict[str, str] | None = None, wait: bool = True):
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    command = [sys.executable, str(script), address, str(first), str(count), *extra]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=ROOT, env={**os.environ, **(env or {})})
    return finish(process) if wait else process


def finish(process: subprocess.Popen) -> dict:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def expected(first: int = 0, count: int = 12) -> list:
    suite, candidates = distinct_candidates(first + count)
    with Judge("process", 2) as local:
        rows = local.run(with_problems(suite, ((c, None) for c in candidates[first:])))
    return json.loads(json.dumps(signature(rows.results)))


def kept_by_pid() -> dict[int, dict]:
    return {actor["pid"]: actor for actor in ray_session.kept_actors()}


def same_code(answer: dict) -> None:
    """A driver that found other judge code on the nodes (someone edited a module the
    actors had loaded) replaced them, rightly: what the test asserts then does not hold."""
    assert not any("other judge code" in note for note in answer["notes"]), answer["notes"]


def test_a_second_driver_process_reuses_the_actors_the_first_left(fresh, tmp_path):
    first = driver(tmp_path, fresh.address)
    assert first["kept"] and first["nodes"] == 2
    assert first["started"] == 2 and first["reused"] == 0
    assert first["signature"] == expected()
    # the driver has exited; its actors have not, idle, their sandboxes closed
    kept = kept_by_pid()
    assert set(kept) == {pid for _, pid in first["actors"]}
    assert all(not actor["leased"] and actor["runs"] == 1 for actor in kept.values())
    assert uid_processes(*ACTOR_UIDS) == [], "candidate processes left"

    second = driver(tmp_path, fresh.address, 12, 12)
    same_code(second)
    assert second["actors"] == first["actors"], "the same actors (ids and processes)"
    assert second["reused"] == 2 and second["started"] == 0
    assert second["job"] != first["job"] and second["pid"] != first["pid"]
    assert second["signature"] == expected(12, 12)

    # `judge run --executor ray`, a new process as a CLI user runs it, takes them too
    suite, candidates = distinct_candidates(6)
    solutions = tmp_path / "solutions.jsonl"
    solutions.write_text("".join(json.dumps({"problem_id": c.problem_id, "solution": c.solution,
                                             "sample": c.sample}) + "\n" for c in candidates))
    run = subprocess.run([sys.executable, "-m", "judge", "run", str(ROOT / "problems" / "basics"),
                          "--solutions", str(solutions), "--output", str(tmp_path / "cli.jsonl"),
                          "--sandbox", "process", "--jobs", "1", "--executor", "ray",
                          "--ray-address", fresh.address], capture_output=True, text=True,
                         timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "other judge code" not in run.stderr, run.stderr
    kept = kept_by_pid()
    assert set(kept) == {pid for _, pid in first["actors"]}
    assert sorted(actor["runs"] for actor in kept.values()) == [3, 3]
    rows = [json.loads(line) for line in (tmp_path / "cli.jsonl").read_text().splitlines()]
    assert [r["verdict"] for r in rows] == [r[2] for r in expected(0, 6)]


def test_kept_actors_end_after_their_time_to_live(fresh, tmp_path):
    """A run's JUDGE_RAY_KEEP_S is its actors' time to live once it ends: the second driver
    reuses the first's actors (kept 600 s) and leaves them 1 s, after which they end by
    themselves, their names with them."""
    first = driver(tmp_path, fresh.address, env={"JUDGE_RAY_KEEP_S": "600"})
    assert sorted(actor["keep_s"] for actor in kept_by_pid().values()) == [600, 600]
    second = driver(tmp_path, fresh.address, 12, 12, env={"JUDGE_RAY_KEEP_S": "1"})
    same_code(second)
    assert second["actors"] == first["actors"] and second["reused"] == 2
    pids = [pid for _, pid in second["actors"]]
    assert wait_until(lambda: not any(psutil.pid_exists(pid) for pid in pids), 120)
    assert wait_until(lambda: not ray_session.kept_actors(), 60)
    assert uid_processes(*ACTOR_UIDS) == [], "candidate processes left"


def test_an_actor_running_other_judge_code_is_replaced(fresh, tmp_path, monkeypatch):
    """A driver whose judge code differs from what the kept actors loaded (a module's
    source changed) does not use them: each idle stale actor ends itself and a new one is
    started on its node, under the next name."""
    first = driver(tmp_path, fresh.address)
    old = {pid for _, pid in first["actors"]}
    assert set(kept_by_pid()) == old
    changed = dict(ray_actor.source_hashes(), **{"running/executor.py": "0" * 16})
    monkeypatch.setattr(ray_actor, "_SOURCES", changed)
    notes: list[str] = []
    suite, candidates = distinct_candidates(12)
    with Judge("process", 1, executor="ray", ray_address=fresh.address,
               notice=notes.append) as remote:
        info = remote.describe()
        rows = remote.run(with_problems(suite, ((c, None) for c in candidates))).results
    new = {n["pid"] for n in info["node_sandboxes"]}
    assert info["started_actors"] == 2 and info["reused_actors"] == 0
    assert not new & old
    # the new actors run the node's code, which is not the (pretended) driver's: said so
    assert sum("running/executor.py" in note for note in notes) == 2, notes
    assert json.loads(json.dumps(signature(rows))) == expected()
    assert wait_until(lambda: not any(psutil.pid_exists(pid) for pid in old))
    assert set(kept_by_pid()) == new


def test_two_drivers_at_once_lease_separate_actors_and_both_judge_right(fresh, tmp_path):
    """Two driver processes open at the same time (each waits for the other to be open
    before judging): each leases actors of its own (one takes the kept ones, the other
    finds them busy and starts new ones under the next names); both are judged right."""
    driver(tmp_path, fresh.address, 0, 4)  # actors kept for the two
    ready = [str(tmp_path / "ready-a"), str(tmp_path / "ready-b")]
    one = driver(tmp_path, fresh.address, 0, 24, ready[0], ready[1], wait=False)
    two = driver(tmp_path, fresh.address, 24, 24, ready[1], ready[0], wait=False)
    one, two = finish(one), finish(two)
    same_code(one)
    same_code(two)
    assert not {a for a, _ in one["actors"]} & {a for a, _ in two["actors"]}
    assert not {p for _, p in one["actors"]} & {p for _, p in two["actors"]}
    assert one["nodes"] == two["nodes"] == 2
    # the two kept actors went to one driver or were split; two more were started
    assert one["reused"] + two["reused"] == 2 and one["started"] + two["started"] == 2
    assert one["signature"] == expected(0, 24)
    assert two["signature"] == expected(24, 24)
    # afterwards all four are idle; the next driver takes two of them
    assert len([a for a in ray_session.kept_actors() if not a["leased"]]) == 4
    third = driver(tmp_path, fresh.address, 48, 8)
    same_code(third)
    assert third["reused"] == 2 and third["started"] == 0
    assert uid_processes(*ACTOR_UIDS) == [], "candidate processes left"


def test_a_killed_actor_is_replaced_and_a_killed_drivers_lease_taken_back(fresh, tmp_path):
    first = driver(tmp_path, fresh.address)
    (dead_id, dead_pid), (live_id, live_pid) = first["actors"]
    psutil.Process(dead_pid).kill()
    assert wait_until(lambda: not psutil.pid_exists(dead_pid))
    second = driver(tmp_path, fresh.address, 12, 12)
    same_code(second)
    assert second["reused"] == 1 and second["started"] == 1 and second["nodes"] == 2
    assert [live_id, live_pid] in second["actors"]
    assert dead_id not in {a for a, _ in second["actors"]}
    assert second["signature"] == expected(12, 12)

    # a driver killed while it holds its actors: once Ray knows its job ended, the next
    # driver takes them (the actor checks its lease holder's job)
    hung = driver(tmp_path, fresh.address, 0, 4, str(tmp_path / "hung"), "hang", wait=False)
    assert wait_until(lambda: (tmp_path / "hung").exists(), 300)
    held = json.loads((tmp_path / "hung").read_text())
    assert held["actors"] == second["actors"]
    os.kill(held["pid"], signal.SIGKILL)
    hung.communicate(timeout=60)
    assert wait_until(lambda: _job_dead(held["job"]), 120)
    third = driver(tmp_path, fresh.address, 24, 12)
    same_code(third)
    assert third["actors"] == held["actors"] and third["reused"] == 2
    assert third["signature"] == expected(24, 12)
    assert uid_processes(*ACTOR_UIDS) == [], "candidate processes left"


def _job_dead(job: str) -> bool:
    return any(entry["JobID"] == job and entry["IsDead"]
               for entry in ray._private.state.jobs())


def test_stop_ends_idle_actors_at_once_and_the_cli_says_how_many(fresh, tmp_path):
    first = driver(tmp_path, fresh.address, env={"JUDGE_RAY_KEEP_S": "600"})
    pids = [pid for _, pid in first["actors"]]
    stop = subprocess.run([sys.executable, "-m", "judge", "ray", "stop", "--ray-address",
                           fresh.address], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    assert stop.returncode == 0, stop.stderr
    assert "stopped 2" in stop.stdout, stop.stdout
    assert wait_until(lambda: not any(psutil.pid_exists(pid) for pid in pids))
    assert ray_session.kept_actors() == []


def test_a_private_ray_keeps_nothing_and_stops_with_its_run(tmp_path):
    """No address (and no RAY_ADDRESS): Ray is started for the run and stopped with it;
    its actors are ordinary ones, nothing detached outlives it."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    script = tmp_path / "private.py"
    script.write_text(textwrap.dedent("""
        import json, sys
        import psutil
        sys.path.insert(0, %r)
        from judge.api import Judge
        from judge.running.batch import with_problems
        from test_ray import distinct_candidates, signature
        suite, candidates = distinct_candidates(6)
        import ray
        with Judge("process", 1, executor="ray") as judge:
            info = judge.describe()
            session = ray._private.worker._global_node.session_name
            pids = [p.pid for p in psutil.process_iter(["cmdline"])
                    if session in " ".join(p.info["cmdline"] or [])]
            rows = judge.run(with_problems(suite, ((c, None) for c in candidates))).results
        print(json.dumps({"kept": info["kept"], "connected": ray.is_initialized(),
                          "pids": pids, "signature": signature(rows)}))
    """) % str(HERE))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=600, cwd=ROOT, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    answer = json.loads(run.stdout.strip().splitlines()[-1])
    pids = answer.pop("pids")
    assert answer == {"kept": False, "connected": False, "signature": expected(0, 6)}
    assert len(pids) >= 2  # Ray's own processes of that private instance (gcs, raylet...)
    assert wait_until(lambda: not any(psutil.pid_exists(pid) for pid in pids), 60)
