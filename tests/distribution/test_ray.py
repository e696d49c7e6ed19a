"""The Ray executor on a real multi-node Ray cluster on this machine (no mocks of Ray).

``ray.cluster_utils.Cluster`` starts a head node and a worker node, each with its own raylet,
object store and worker processes, on 127.0.0.1. The executor places one actor per node, each
with its own warm process sandbox; the driver (this test) writes results in order.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only

ray = pytest.importorskip("ray", reason="the 'ray' extra is part of the test extra")
from ray.cluster_utils import Cluster  # noqa: E402

from judge.problem.model import function_from_data  # noqa: E402
from judge.kinds.loader import load_suite
from judge.api import Judge  # noqa: E402
from judge.candidates.extract import Candidate  # noqa: E402
from judge.running.batch import with_problems  # noqa: E402
from judge.running.resume import compact, load_previous  # noqa: E402
from judge import jsonl  # noqa: E402
import judge.settings  # noqa: E402


@pytest.fixture(autouse=True)
def _settings_read_again():
    """The judge reads its settings once (judge.settings): a test that sets a variable reads
    them again, and after it (once monkeypatch has put the environment back) so do we."""
    yield
    judge.settings.reload()


#: the repository (this module is also imported by test_ray_detached's driver scripts, in
#: processes where tests/conftest.py has not made ``tests`` importable: no tests.paths here)
ROOT = Path(__file__).resolve().parents[2]
#: the actors' process sandboxes lease candidate uids upwards from this base, under one
#: host-wide lock (judge.sandbox.backends.process.sandbox.UidLease): every candidate process of these tests
#: runs under a uid in ACTOR_UIDS
UID_BASE = int(os.environ.get("JUDGE_SANDBOX_UID_BASE", "61000"))
ACTOR_UIDS = (UID_BASE, UID_BASE + 512)


#: each node's object store (problems only travel through it): small, on a shared machine
OBJECT_STORE = 100 * 2**20


def start_cluster() -> Cluster:
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 1, "include_dashboard": False, "object_store_memory": OBJECT_STORE})
    cluster.add_node(num_cpus=1, object_store_memory=OBJECT_STORE)
    cluster.wait_for_nodes()
    return cluster


def stop_cluster(cluster: Cluster) -> None:
    ray.shutdown()
    cluster.shutdown()


@pytest.fixture(scope="module")
def cluster():
    cluster = start_cluster()
    yield cluster
    stop_cluster(cluster)


def shipped_candidates(count: int) -> tuple[object, list[Candidate]]:
    """Right answers, wrong answers, crashes and compile errors over problems/basics."""
    suite = load_suite(ROOT / "problems" / "basics")
    problems = [p for p in suite.problems if p.optimal_solution]
    out = []
    for index in range(count):
        p = problems[index % len(problems)]
        name, params = p.function_name, ", ".join(p.parameter_names)
        code = [p.optimal_solution, "def %s(%s):\n    return None\n" % (name, params),
                "def %s(%s):\n    raise KeyError(1)\n" % (name, params),
                "def %s(%s)\n" % (name, params)][index % 4 if index % 3 else 0]
        out.append(Candidate(p.identifier, code, model="t", sample=index))
    return suite, out


def signature(rows):
    return [(r["problem_id"], r["sample"], r["verdict"], [t["verdict"] for t in r["tests"]])
            for r in rows]


def uid_processes(low: int, high: int) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["uids"]):
        try:
            if proc.info["uids"] and low <= proc.info["uids"].real < high:
                found.append(proc)
        except psutil.Error:
            pass
    return found


def test_two_nodes_same_verdicts_as_local_in_order(cluster):
    suite, candidates = shipped_candidates(120)
    with Judge("process", 2) as local:
        expected = local.run(with_problems(suite, ((c, None) for c in candidates))).results
    with Judge("process", 1, executor="ray", ray_address=cluster.address) as remote:
        info = remote.describe()
        assert info["kind"] == "ray" and info["nodes"] == 2 and info["jobs"] == 2
        assert info["sandboxes"] == ["process"]
        got = remote.run(with_problems(suite, ((c, None) for c in candidates))).results
        # the single-candidate API goes the same way
        one = remote.judge(suite.by_id[candidates[0].problem_id], candidates[0].solution)
        assert one.verdict.value == "pass"
        assert len({n["NodeID"] for n in ray.nodes() if n["Alive"]}) == 2
    assert [r["sample"] for r in got] == list(range(120))
    assert signature(got) == signature(expected)
    assert {r["key"] for r in got} == {r["key"] for r in expected}
    # no candidate process is left on either node
    assert uid_processes(*ACTOR_UIDS) == [], "candidate processes left"


def test_resume_over_ray_judges_only_what_is_missing(cluster, tmp_path):
    suite, candidates = shipped_candidates(40)
    output = tmp_path / "results.jsonl"
    with Judge("process", 1, executor="ray", ray_address=cluster.address) as remote:
        with jsonl.open_write(output) as writer:
            first = remote.run(with_problems(suite, ((c, None) for c in candidates[:25])),
                               output=writer)
        with output.open("a") as handle:  # a run killed mid-write leaves half a line
            handle.write('{"problem_id": "basics_')
        previous = load_previous(output)
        with jsonl.open_write(output, append=True) as writer:
            second = remote.run(with_problems(suite, ((c, None) for c in candidates)),
                                output=writer, previous=previous)
    assert len(first.results) == 25 and second.skipped == 25 and len(second.results) == 15
    rows = compact(output)
    assert sorted(r["sample"] for r in rows) == list(range(40))
    assert len({r["key"] for r in rows}) == 40


def slow_problem(identifier: str = "ray_slow_add", tests: int = 2, b: int = 1,
                 sign: str = "+"):
    """``add(a, b)`` over ``tests`` tests, whose expected value is a + b (``sign`` "+") or
    a - b (``sign`` "-")."""
    return function_from_data({
        "identifier": identifier, "description": "add slowly",
        "prompts": [{"prompt_id": "p", "prompt": "add", "genericize": False,
                     "sample_inputs_outputs": []}],
        "function_prototype": {"function_name": "add",
                               "parameters": [{"name": "a", "type": "int"},
                                              {"name": "b", "type": "int"}],
                               "return_values": [{"type": "int"}]},
        "correctness_test_suite": [{"input": {"a": i, "b": b},
                                    "expected_output": [i + b if sign == "+" else i - b]}
                                   for i in range(tests)],
        "limits": {"time_limit_s": 2.0},
    }, "<ray-test>")


def test_node_killed_mid_run_every_candidate_written_once(tmp_path):
    """Kill the worker node while candidates are in flight on it: they are judged again on
    the head node, each written exactly once, none blamed on the candidate."""
    cluster = start_cluster()
    try:
        problem = slow_problem()
        from judge.problem.model import Suite

        suite = Suite("slow", tmp_path, [problem])
        code_ok = "import time\ndef add(a, b):\n    time.sleep(0.15)\n    return a + b\n"
        code_bad = "import time\ndef add(a, b):\n    time.sleep(0.15)\n    return a - b\n"
        # distinct code each (a comment), so that none is a duplicate judged once
        candidates = [Candidate(problem.identifier, (code_bad if i % 5 == 4 else code_ok)
                                + "# %d\n" % i, model="k", sample=i) for i in range(80)]
        output = tmp_path / "killed.jsonl"
        worker = next(n for n in cluster.worker_nodes)
        notes: list[str] = []
        killed = threading.Event()

        def kill_when_running() -> None:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if output.exists() and len(output.read_text().splitlines()) >= 15:
                    cluster.remove_node(worker, allow_graceful=False)
                    killed.set()
                    return
                time.sleep(0.05)
        killer = threading.Thread(target=kill_when_running)
        with Judge("process", 1, executor="ray", ray_address=cluster.address,
                   notice=notes.append, reference_timing=False) as remote:
            assert remote.describe()["nodes"] == 2
            killer.start()
            with jsonl.open_write(output) as writer:
                outcome = remote.run(with_problems(suite, ((c, None) for c in candidates)),
                                     output=writer)
            info = remote.describe()
        killer.join()
        assert killed.is_set(), "the run ended before the node could be killed"
        rows = [json.loads(line) for line in output.read_text().splitlines()]
        assert [r["sample"] for r in rows] == list(range(80)), "each candidate once, in order"
        assert len({r["key"] for r in rows}) == 80
        assert [r["verdict"] for r in rows] == [
            "wrong_answer" if i % 5 == 4 else "pass" for i in range(80)]
        # the file's lines carry the run's metadata ("run"); the results in memory do not
        assert outcome.results == [{k: v for k, v in r.items() if k != "run"} for r in rows]
        assert info["lost_actors"] == 1 and info["nodes"] == 1 and info["retried"] >= 1
        assert any("lost the actor" in n for n in notes)
        deadline = time.monotonic() + 15
        while uid_processes(*ACTOR_UIDS) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert uid_processes(*ACTOR_UIDS) == [], "candidate processes left"
    finally:
        stop_cluster(cluster)


def test_cli_executor_ray_matches_local(cluster, tmp_path):
    suite, candidates = shipped_candidates(30)
    solutions = tmp_path / "solutions.jsonl"
    solutions.write_text("".join(json.dumps({"problem_id": c.problem_id, "solution": c.solution,
                                             "model": c.model, "sample": c.sample}) + "\n"
                                 for c in candidates))
    outputs = {}
    for name, extra in (("local", ["--jobs", "2"]),
                        ("ray", ["--executor", "ray", "--ray-address", cluster.address,
                                 "--jobs", "1"])):
        outputs[name] = tmp_path / ("%s.jsonl" % name)
        run = subprocess.run([sys.executable, "-m", "judge", "run", str(ROOT / "problems" /
                                                                       "basics"),
                              "--solutions", str(solutions), "--output", str(outputs[name]),
                              "--sandbox", "process", *extra], capture_output=True, text=True,
                             timeout=600, cwd=ROOT)
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr
        if name == "ray":
            assert "with the ray (process) sandbox (1 job per node)" in run.stderr
    rows = {n: [json.loads(x) for x in p.read_text().splitlines()] for n, p in outputs.items()}
    assert signature(rows["ray"]) == signature(rows["local"])


def test_no_ray_cluster_is_a_clear_error(tmp_path):
    """A wrong address: exit 3 (sandbox unavailable) with a message, no traceback."""
    solutions = tmp_path / "s.jsonl"
    solutions.write_text(json.dumps({"problem_id": "basics_digital_root",
                                     "solution": "def digital_root(n): return n"}) + "\n")
    run = subprocess.run([sys.executable, "-m", "judge", "run",
                          str(ROOT / "problems" / "basics"), "--solutions", str(solutions),
                          "--executor", "ray", "--ray-address", "127.0.0.1:1"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT,
                         env={**os.environ, "RAY_gcs_rpc_server_connect_timeout_s": "5"})
    assert run.returncode == 3, run.stderr
    assert "Traceback" not in run.stderr and "ray" in run.stderr.lower()


@pytest.mark.docker
def test_hostile_candidates_in_docker_on_two_nodes_same_as_local(cluster):
    """Each node's actor opens its own Docker sandbox: the holdout-style hostile candidates get
    the verdicts a local Docker run gives, and no container of either node survives."""
    from tests.conftest import docker_or_skip

    docker_or_skip()
    import docker

    from tests.service.test_service import HOSTILE, hostile_problem

    problem = function_from_data(hostile_problem("ray_hostile_add"), "<ray-hostile>")
    items = [(problem, code, {"model": name, "sample": 0}) for name, code in HOSTILE.items()]
    with Judge("docker", 1) as local:
        expected = [(r.verdict.value, [t.verdict.value for t in r.tests])
                    for r in local.judge_many(items)]
    with Judge("docker", 1, executor="ray", ray_address=cluster.address) as remote:
        info = remote.describe()
        got = [(r.verdict.value, [t.verdict.value for t in r.tests])
               for r in remote.judge_many(items)]
    assert info["nodes"] == 2 and info["sandboxes"] == ["docker"]
    assert dict(zip(HOSTILE, got)) == dict(zip(HOSTILE, expected))
    assert "sandbox_error" not in {verdict for verdict, _ in got}
    runs = {s["run_id"] for s in info["node_sandboxes"]}
    assert len(runs) == 2, "one Docker sandbox per node"
    client = docker.from_env()
    left = [c.name for run in runs for c in client.containers.list(
        all=True, filters={"label": "org.judge.run=%s" % run})]
    assert left == [], "containers left: %s" % left


def test_program_problems_with_all_tests_on_two_nodes_same_as_local(cluster, tmp_path):
    """A program problem (stdin/stdout, contest rule) over Ray with --all-tests: every test
    runs on the actor's node (partial credit), with the local run's verdicts test by test."""
    from judge.problem.program import program_from_data

    tests = [{"name": str(i), "stdin": "%d %d\n" % (i, 2 * i), "expected": "%d\n" % (3 * i)}
             for i in range(6)]
    problem = program_from_data(
        {"kind": "program", "identifier": "add", "statement": "Add.", "tests": tests,
         "limits": {"time_limit_s": 2}, "contest": {"stop_at_first_failure": True}},
        str(tmp_path / "add.json"), tmp_path)
    read = "a, b = map(int, input().split())\n"
    codes = [read + "print(a + b)\n", read + "print(a + b if a != 3 else 0)\n",
             read + "print([a + b][a // 4])\n", "int main( {\n"]
    languages = ["python", "python", "python", "c"]

    def run(judge):
        return [judge.judge(problem, code, language=language)
                for code, language in zip(codes, languages)]

    with Judge("process", 2, all_tests=True) as local:
        expected = run(local)
    with Judge("process", 1, executor="ray", ray_address=cluster.address,
               all_tests=True) as remote:
        got = run(remote)
    shape = [(r.verdict.value, [t.verdict.value for t in r.tests]) for r in got]
    assert shape == [(r.verdict.value, [t.verdict.value for t in r.tests]) for r in expected]
    assert [r.verdict.value for r in got] == ["pass", "wrong_answer", "runtime_error",
                                              "compile_error"]
    assert got[1].passed == 5 and got[2].passed == 4  # every test ran, past the first failure
    assert uid_processes(*ACTOR_UIDS) == [], "candidate processes left"


def distinct_candidates(count: int) -> tuple[object, list[Candidate]]:
    """Distinct code every one (a numbered comment): none is judged as a duplicate, so every
    candidate travels to an actor."""
    suite, candidates = shipped_candidates(count)
    return suite, [Candidate(c.problem_id, c.solution + "\n# %d\n" % c.sample, model=c.model,
                             sample=c.sample) for c in candidates]


def test_chunks_uneven_count_every_candidate_once_in_order_same_as_local(cluster):
    """157 distinct candidates (no multiple of a chunk): they travel in chunks (fewer actor
    calls than candidates), both nodes judge, and the results are the local run's, in
    input order, each once."""
    suite, candidates = distinct_candidates(157)
    with Judge("process", 2) as local:
        expected = local.run(with_problems(suite, ((c, None) for c in candidates))).results
    with Judge("process", 1, executor="ray", ray_address=cluster.address) as remote:
        got = remote.run(with_problems(suite, ((c, None) for c in candidates))).results
        info = remote.describe()
        executor = remote.executor
        per_node = [m.sent for m in executor._members]
    assert [r["sample"] for r in got] == list(range(157))
    assert signature(got) == signature(expected)
    assert 0 < info["chunks"] < 157, info
    assert all(sent > 0 for sent in per_node), "both nodes judged"
    assert info["retried"] == 0 and info["lost_actors"] == 0


def test_a_failing_candidate_mid_chunk_and_an_actor_killed_mid_chunk(cluster, tmp_path):
    """Candidates judged together: one whose judging raises on the actor (a problem
    without tests) is tried on the other actor, then answered sandbox_error; the others of
    its chunk stand. Then one actor is killed while its chunks are in flight: its
    candidates are judged by the other, each once."""
    from concurrent.futures import ThreadPoolExecutor

    from judge.candidates.submission import Submission
    from judge.problem.model import Suite

    problem = slow_problem()
    broken = slow_problem("ray_no_tests", tests=0)  # judging it raises NoTests
    code = "import time\ndef add(a, b):\n    time.sleep(0.2)\n    return a + b\n"
    with Judge("process", 1, executor="ray", ray_address=cluster.address,
               reference_timing=False) as remote:
        executor = remote.executor
        items = [(problem, code + "# %d\n" % i) for i in range(6)] + [(broken, code)]
        with ThreadPoolExecutor(max_workers=len(items)) as pool:
            results = list(pool.map(lambda item: executor.judge(
                item[0], Submission(item[1], "add"), sample=0), items))
        assert [r.verdict.value for r in results[:6]] == ["pass"] * 6
        assert results[6].verdict.value == "sandbox_error"
        assert "not judged after 4 attempts" in results[6].message
        assert "NoTests" in results[6].message
        assert executor.describe()["lost_actors"] == 0
        suite = Suite("slow", tmp_path, [problem])
        candidates = [Candidate(problem.identifier, code + "# %d\n" % i, model="k", sample=i)
                      for i in range(60)]
        victim = executor._members[1]

        def kill_when_busy() -> None:
            deadline = time.monotonic() + 60
            while victim.in_flight == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.2)
            ray.kill(victim.handle)
        killer = threading.Thread(target=kill_when_busy)
        killer.start()
        rows = remote.run(with_problems(suite, ((c, None) for c in candidates))).results
        killer.join()
        info = remote.describe()
    assert [r["sample"] for r in rows] == list(range(60))
    assert [r["verdict"] for r in rows] == ["pass"] * 60
    assert info["lost_actors"] == 1 and info["nodes"] == 1


# ---- actors kept between runs of one driver (judge.distribution.ray_session) -----------------

def add_problem(sign: str):
    """``add`` whose tests expect a + b (sign "+") or a - b (sign "-"): the same identifier,
    other tests."""
    return slow_problem("ray_kept_add", tests=3, b=2, sign=sign)


def actor_pids(judge: Judge) -> list[int]:
    return sorted(n["pid"] for n in judge.describe()["node_sandboxes"])


def wait_until(check, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_a_later_run_takes_the_kept_actors_with_a_fresh_sandbox_and_its_own_limits(
        cluster, tmp_path):
    """A run's actors are kept (their sandboxes closed, no candidate process left) and the
    driver's next run takes them: same processes, none started; that run's limits apply,
    not the first run's, and its problems are its own even under the same identifier."""
    from judge.distribution import ray_session

    ray_session.release_all()
    hungry = ("def add(a, b):\n    block = bytearray(200 * 2**20)\n"
              "    block[::4096] = b'x' * len(block[::4096])\n    return a + b\n")
    plus, minus = add_problem("+"), add_problem("-")
    adder = "def add(a, b):\n    return a + b\n"
    with Judge("process", 1, executor="ray", ray_address=cluster.address,
               reference_timing=False) as first:
        first_pids = actor_pids(first)
        assert first.describe()["started_actors"] == 2
        assert first.judge(plus, hungry).verdict.value == "pass"  # 512 MB by default
        assert first.judge(plus, adder).verdict.value == "pass"
    assert uid_processes(*ACTOR_UIDS) == [], "candidate processes left"
    assert ray_session.idle_count() == 2
    assert all(psutil.pid_exists(pid) for pid in first_pids)
    with Judge("process", 1, executor="ray", ray_address=cluster.address,
               reference_timing=False, memory_mb=128) as second:
        info = second.describe()
        assert info["reused_actors"] == 2 and info["started_actors"] == 0
        assert actor_pids(second) == first_pids
        assert ray_session.idle_count() == 0
        assert second.judge(plus, hungry).verdict.value == "memory_limit"
        # the same identifier, other tests: judged against this run's problem
        assert second.judge(minus, adder).verdict.value == "wrong_answer"
        suite, candidates = shipped_candidates(24)
        got = second.run(with_problems(suite, ((c, None) for c in candidates))).results
    with Judge("process", 2, memory_mb=128) as local:
        expected = local.run(with_problems(suite, ((c, None) for c in candidates))).results
        assert local.judge(plus, hungry).verdict.value == "memory_limit"
    assert signature(got) == signature(expected)
    assert uid_processes(*ACTOR_UIDS) == [], "candidate processes left"
    ray_session.release_all()
    assert wait_until(lambda: not any(psutil.pid_exists(p) for p in first_pids))


def test_kept_actors_end_after_their_time_and_a_dead_one_is_replaced(cluster, monkeypatch):
    """JUDGE_RAY_KEEP_S bounds how long an idle actor is kept; a kept actor that died
    meanwhile is replaced by a new one on its node, and the run is judged as usual;
    JUDGE_RAY_KEEP_S=0 keeps none."""
    from judge.distribution import ray_session

    ray_session.release_all()
    suite, candidates = shipped_candidates(16)
    monkeypatch.setenv("JUDGE_RAY_KEEP_S", "1.5")
    judge.settings.reload()
    with Judge("process", 1, executor="ray", ray_address=cluster.address) as first:
        pids = actor_pids(first)
        expected = signature(first.run(with_problems(
            suite, ((c, None) for c in candidates))).results)
    assert ray_session.idle_count() == 2
    assert wait_until(lambda: ray_session.idle_count() == 0)
    assert wait_until(lambda: not any(psutil.pid_exists(p) for p in pids))

    monkeypatch.setenv("JUDGE_RAY_KEEP_S", "600")
    judge.settings.reload()
    with Judge("process", 1, executor="ray", ray_address=cluster.address) as first:
        pids = actor_pids(first)
    assert ray_session.idle_count() == 2
    psutil.Process(pids[0]).kill()
    assert wait_until(lambda: not psutil.pid_exists(pids[0]))
    notes: list[str] = []
    with Judge("process", 1, executor="ray", ray_address=cluster.address,
               notice=notes.append) as second:
        info = second.describe()
        assert info["nodes"] == 2, notes
        assert info["reused_actors"] == 1 and info["started_actors"] == 1
        assert pids[1] in actor_pids(second) and pids[0] not in actor_pids(second)
        got = signature(second.run(with_problems(
            suite, ((c, None) for c in candidates))).results)
    assert got == expected

    monkeypatch.setenv("JUDGE_RAY_KEEP_S", "0")
    judge.settings.reload()
    ray_session.release_all()
    with Judge("process", 1, executor="ray", ray_address=cluster.address) as third:
        pids = actor_pids(third)
    assert ray_session.idle_count() == 0
    assert wait_until(lambda: not any(psutil.pid_exists(p) for p in pids))
    assert uid_processes(*ACTOR_UIDS) == [], "candidate processes left"


def test_a_connection_the_caller_made_is_never_closed_by_the_judge(cluster):
    """``ray.init`` before the judge: the judge runs on it, keeps its actors on it, and
    neither closing the run nor ending the kept actors disconnects the caller."""
    from judge.distribution import ray_session

    ray_session.release_all()
    ray.shutdown()
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        suite, candidates = shipped_candidates(8)
        with Judge("process", 1, executor="ray") as remote:  # no address: the caller's
            assert remote.describe()["nodes"] == 2
            rows = remote.run(with_problems(suite, ((c, None) for c in candidates))).results
        assert len(rows) == 8
        assert ray.is_initialized() and ray_session.idle_count() == 2
        ray_session.release_all()
        assert ray.is_initialized() and ray_session.idle_count() == 0
        assert ray.get(ray.put(41)) + 1 == 42
    finally:
        ray.shutdown()


def test_a_run_closed_with_candidates_in_flight_keeps_none_of_their_actors(cluster):
    """Closing a run while a candidate is still being judged on an actor (a run given up
    mid-way): that actor is ended, not kept (its call may still be judging); the caller
    gets an answer, never a hang."""
    from concurrent.futures import ThreadPoolExecutor

    from judge.distribution import ray_session

    ray_session.release_all()
    problem = slow_problem("ray_closed_mid_run", tests=1)
    code = "import time\ndef add(a, b):\n    time.sleep(3)\n    return a + b\n"
    remote = Judge("process", 1, executor="ray", ray_address=cluster.address,
                   reference_timing=False)
    pids = actor_pids(remote.open())
    executor = remote.executor
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(remote.judge, problem, code)
        assert wait_until(lambda: any(m.in_flight for m in executor._members), 30)
        busy = [m.pid for m in executor._members if m.in_flight]
        remote.close()
        result = pending.result(timeout=120)
    assert len(busy) == 1 and len(pids) == 2
    assert result.verdict.value in ("pass", "sandbox_error")
    assert ray_session.idle_count() == 1  # the other actor, which had nothing in flight
    assert wait_until(lambda: not psutil.pid_exists(busy[0]))
    ray_session.release_all()
    assert wait_until(lambda: not any(psutil.pid_exists(p) for p in pids))
    assert uid_processes(*ACTOR_UIDS) == [], "candidate processes left"
