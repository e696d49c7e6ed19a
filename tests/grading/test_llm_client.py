"""The shared chat client (judge/grading/client.py) against a real local HTTP server that
misbehaves on purpose: 500s, 429 with Retry-After (seconds and dates), malformed JSON,
truncated bodies, dropped connections, a hung server, a server that trickles its body, huge
bodies. Nothing of the client is mocked; only its ``sleep`` is recorded, to read the waits
it chose instead of timing them."""

from __future__ import annotations

import email.utils
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from judge.grading.client import (
    MAX_RESPONSE_BYTES, ChatClient, LLMConfig, LLMConfigError, LLMResponseError,
    LLMUnavailableError, cache_key, retry_after_s)
from judge.grading.llm import LLMJudge
from judge.scoring.reference_match import JudgeQuestion
import judge.settings
from tests.paths import TESTS


@pytest.fixture(autouse=True)
def _settings_read_again():
    """The judge reads its settings once (judge.settings): a test that sets a variable reads
    them again, and after it (once monkeypatch has put the environment back) so do we."""
    yield
    judge.settings.reload()


MSG = [{"role": "user", "content": "Is 2 equal to 2?"}]


def completion(text: str) -> bytes:
    return json.dumps({"id": "x", "object": "chat.completion", "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 1}}).encode()


class BrokenServer:
    """Answers each request with the next scripted action (then ``"ok"``):
    ``ok``, ``500``, ``503``, ``401``, ``429:<Retry-After>``, ``garbage``, ``truncated``
    (Content-Length larger than the body, then close), ``drop`` (close without a reply),
    ``hang`` (hold the request until released), ``trickle`` (a byte every 50 ms), ``huge``
    (a Content-Length over the cap), ``hold`` (wait for the gate, counting requests in flight)."""

    def __init__(self) -> None:
        self.script: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.connections: set[tuple[str, int]] = set()
        self.in_flight = 0
        self.max_in_flight = 0
        self.gate = threading.Event()
        self.gate.set()
        self.release = threading.Event()
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers do

            def log_message(self, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()  # replies in one go, as real servers do (no Nagle wait per keep-alive reply)
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with outer._lock:
                    outer.requests.append({"body": body, "headers": dict(self.headers), "path": self.path})
                    outer.connections.add(self.client_address)
                    action = outer.script.pop(0) if outer.script else "ok"
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    outer.gate.wait(10)
                finally:
                    with outer._lock:  # before any reply goes out: once the client has it, it may
                        outer.in_flight -= 1  # send the next request, which must not find this one counted
                try:
                    self.act(action)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def send(self, status: int, payload: bytes, headers: dict[str, str] | None = None,
                     length: int | None = None) -> None:
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload) if length is None else length))
                self.end_headers()
                self.wfile.write(payload)
                self.wfile.flush()

            def act(self, action: str) -> None:
                if action == "ok":
                    self.send(200, completion("1"), {"Content-Type": "application/json"})
                elif action in ("500", "503", "401", "400"):
                    self.send(int(action), b'{"error": {"message": "scripted ' + action.encode() + b'"}}')
                elif action.startswith("429:"):
                    self.send(429, b'{"error": {"message": "slow down"}}', {"Retry-After": action[4:]})
                elif action == "garbage":
                    self.send(200, b"<html>upstream proxy error</html>")
                elif action == "truncated":
                    self.send(200, completion("1")[:20], length=200)
                    self.close_connection = True
                elif action == "drop":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                elif action == "hang":
                    outer.release.wait(10)
                    self.close_connection = True
                elif action == "trickle":
                    payload = completion("1")
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    for i in range(len(payload)):
                        if outer.release.is_set():
                            break
                        self.wfile.write(payload[i:i + 1])
                        self.wfile.flush()
                        time.sleep(0.05)
                    self.close_connection = True
                elif action == "badgzip":
                    self.send(200, b"\x1f\x8b not really gzip", {"Content-Encoding": "gzip"})
                elif action == "huge":
                    self.send(200, b"{", length=MAX_RESPONSE_BYTES + 10)
                    self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.release.set()
        self.gate.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = BrokenServer()
    yield s
    s.close()


class Sleeps(list):
    """Records the waits the client asks for instead of sleeping them."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client(server: BrokenServer, sleeps: Sleeps | None = None, **kw: Any) -> ChatClient:
    cfg: dict[str, Any] = dict(base_url=server.base_url, model="m", api_key="sk-test", timeout_s=5.0,
                               max_retries=3, backoff_s=1.0, max_backoff_s=8.0, jitter=0.0)
    cfg.update(kw)
    return ChatClient(LLMConfig(**cfg), sleep=sleeps if sleeps is not None else Sleeps())


# ---------------------------------------------------------------- retries and backoff

def test_500s_are_retried_with_exponential_backoff(server):
    server.script = ["500", "503", "500"]
    sleeps = Sleeps()
    result = client(server, sleeps).complete(MSG)
    assert result.text == "1" and result.usage == {"prompt_tokens": 7, "completion_tokens": 1}
    assert len(server.requests) == 4 and sleeps == [1.0, 2.0, 4.0]


def test_backoff_is_capped_and_jitter_only_shortens_it(server):
    server.script = ["500"] * 5
    sleeps = Sleeps()
    client(server, sleeps, max_retries=5, max_backoff_s=3.0, jitter=0.5).complete(MSG)
    caps = [1.0, 2.0, 3.0, 3.0, 3.0]
    assert all(cap * 0.5 <= s <= cap for s, cap in zip(sleeps, caps)), sleeps


def test_giving_up_names_the_url_and_the_last_reason(server):
    server.script = ["500"] * 10
    with pytest.raises(LLMUnavailableError) as exc:
        client(server, max_retries=2).complete(MSG)
    assert server.base_url in str(exc.value) and "3 attempt(s)" in str(exc.value)
    assert "HTTP 500" in str(exc.value) and "scripted 500" in str(exc.value)


@pytest.mark.parametrize("status", ["400", "401"])
def test_client_errors_fail_at_once(server, status):
    server.script = [status]
    with pytest.raises(LLMResponseError, match=f"HTTP {status}"):
        client(server).complete(MSG)
    assert len(server.requests) == 1


def test_retry_after_seconds_is_the_least_wait(server):
    server.script = ["429:7", "429:0"]
    sleeps = Sleeps()
    assert client(server, sleeps).complete(MSG).text == "1"
    assert sleeps == [7.0, 2.0]  # 7 s asked > 1 s backoff; 0 s asked < 2 s backoff


def test_retry_after_http_date_is_honoured(server):
    server.script = ["429:" + email.utils.formatdate(time.time() + 20, usegmt=True)]
    sleeps = Sleeps()
    client(server, sleeps).complete(MSG)
    assert 15 <= sleeps[0] <= 21


def test_retry_after_past_the_cap_gives_up_with_the_servers_figure(server):
    server.script = ["429:3600"]
    with pytest.raises(LLMUnavailableError, match="retry after 3600 s"):
        client(server, max_retry_after_s=60).complete(MSG)
    assert len(server.requests) == 1


@pytest.mark.parametrize("value,expected", [
    ("3", 3.0), ("0.5", 0.5), (" 2 ", 2.0), ("-4", 0.0), (None, None), ("", None),
    ("soon", None), ("nan", None), ("inf", None)])
def test_retry_after_forms(value, expected):
    assert retry_after_s(value) == expected


# ---------------------------------------------------------------- broken replies

def test_malformed_json_is_a_response_error_with_the_body(server):
    server.script = ["garbage"]
    with pytest.raises(LLMResponseError, match="upstream proxy error"):
        client(server).complete(MSG)
    assert len(server.requests) == 1


def test_truncated_body_is_retried(server):
    server.script = ["truncated"]
    sleeps = Sleeps()
    assert client(server, sleeps).complete(MSG).text == "1"
    assert len(server.requests) == 2 and len(sleeps) == 1


def test_dropped_connection_is_retried_then_reported(server):
    server.script = ["drop"] * 3
    with pytest.raises(LLMUnavailableError, match="3 attempt"):
        client(server, max_retries=2).complete(MSG)
    assert len(server.requests) == 3


def test_hung_server_times_out_and_is_retried(server):
    server.script = ["hang"]
    sleeps = Sleeps()
    c = client(server, sleeps, timeout_s=0.3)
    assert c.complete(MSG).text == "1"  # the second attempt is answered
    assert len(server.requests) == 2 and c.requests_sent == 2


def test_hung_server_every_time_is_reported_as_a_timeout(server):
    server.script = ["hang"] * 2
    with pytest.raises(LLMUnavailableError, match="timed out after 0.3 s"):
        client(server, timeout_s=0.3, max_retries=1).complete(MSG)


def test_a_trickling_body_is_cut_at_the_whole_body_deadline(server):
    # a byte every 50 ms never trips a 0.3 s read timeout; the body deadline does
    server.script = ["trickle", "trickle"]
    with pytest.raises(LLMUnavailableError, match="timed out"):
        client(server, timeout_s=0.3, max_retries=1).complete(MSG)


def test_a_corrupt_compressed_body_is_retried(server):
    server.script = ["badgzip"]
    sleeps = Sleeps()
    assert client(server, sleeps).complete(MSG).text == "1"
    assert len(server.requests) == 2 and len(sleeps) == 1


def test_a_malformed_endpoint_is_a_config_error():
    c = ChatClient(LLMConfig(base_url="http://[::1/v1", model="m", max_retries=0))
    with pytest.raises(LLMConfigError, match="bad LLM endpoint"):
        c.complete(MSG)


def test_an_oversized_body_is_refused_unread(server):
    server.script = ["huge"]
    with pytest.raises(LLMResponseError, match="more than"):
        client(server).complete(MSG)


def test_unreachable_endpoint_is_retried_then_named():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sleeps = Sleeps()
    c = ChatClient(LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=2), sleep=sleeps)
    with pytest.raises(LLMUnavailableError, match=f"127.0.0.1:{port}.*ConnectError"):
        c.complete(MSG)
    assert len(sleeps) == 2


# ---------------------------------------------------------------- concurrency and pooling

def test_requests_in_flight_are_bounded_across_threads(server):
    server.gate.clear()
    c = client(server, concurrency=2)
    threads = [threading.Thread(target=c.complete, args=([{"role": "user", "content": str(i)}],))
               for i in range(6)]
    for t in threads:
        t.start()
    while server.in_flight < 2:
        time.sleep(0.01)
    time.sleep(0.2)  # give a third request the chance to get through, if the bound leaked
    assert server.in_flight == 2
    server.gate.set()
    for t in threads:
        t.join()
    assert len(server.requests) == 6 and server.max_in_flight == 2


def test_connections_are_kept_alive_and_reused(server):
    c = client(server, concurrency=1)
    for i in range(5):
        c.complete([{"role": "user", "content": str(i)}])
    assert len(server.requests) == 5 and len(server.connections) == 1


def test_requests_carry_the_key_and_the_parameters(server):
    client(server, temperature=0.2, max_tokens=9).complete(MSG, seed=3, response_format={"type": "json_object"})
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["Authorization"] == "Bearer sk-test"
    assert req["body"] == {"model": "m", "messages": MSG, "temperature": 0.2, "max_tokens": 9, "seed": 3,
                           "response_format": {"type": "json_object"}}


def test_cache_hit_opens_no_connection(server, tmp_path):
    first = client(server, cache_dir=tmp_path).complete(MSG)
    again = client(server, cache_dir=tmp_path)
    assert again.complete(MSG).cached and again.requests_sent == 0 and again._pool is None
    assert first.key == cache_key(server.base_url + "/", {"model": "m", "messages": MSG, "temperature": 0.0})


def test_the_equivalence_judge_goes_through_the_shared_client(server):
    c = client(server, concurrency=2)
    judge = LLMJudge(c, concurrency=8)  # the client's bound wins over the judge's threads
    server.gate.clear()
    questions = [JudgeQuestion("equivalence", "42", f"answer {i}") for i in range(6)]
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.extend(judge.judge_many(questions)))
    t.start()
    while server.in_flight < 2:
        time.sleep(0.01)
    server.gate.set()
    t.join()
    assert [v.ok for v in out] == [True] * 6 and server.max_in_flight == 2


# ---------------------------------------------------------------- configuration

@pytest.mark.parametrize("field,value", [
    ("timeout_s", -1), ("timeout_s", 0), ("timeout_s", float("inf")), ("timeout_s", float("nan")),
    ("max_retries", -1), ("max_retries", 1.5), ("concurrency", 0), ("jitter", 2.0),
    ("temperature", -0.1), ("max_tokens", 0), ("max_retry_after_s", True)])
def test_bad_settings_are_config_errors_naming_the_setting(field, value):
    with pytest.raises(LLMConfigError, match=field):
        LLMConfig(base_url="http://x", model="m", **{field: value})


@pytest.mark.parametrize("base_url", ["ftp://host/v1", "localhost:8000/v1", "http:///v1", ""])
def test_a_base_url_that_is_not_http_is_a_config_error(base_url):
    with pytest.raises(LLMConfigError, match="base URL"):
        LLMConfig(base_url=base_url, model="m")


def test_close_then_reuse_opens_a_new_pool(server):
    c = client(server)
    c.complete(MSG)
    c.close()
    assert c.complete([{"role": "user", "content": "again"}]).text == "1"
    c.close()


def test_cache_entries_name_their_endpoint(server, tmp_path):
    key = client(server, cache_dir=tmp_path).complete(MSG).key
    entry = json.loads(Path(tmp_path, key[:2], key + ".json").read_text())
    assert entry["base_url"] == server.base_url and entry["text"] == "1"


def test_one_client_shared_by_proof_grading_and_the_equivalence_judge(tmp_path):
    """The proof engine and the equivalence judge on one client: one bound on requests in
    flight for both, each keeping its own cache keyed by the client's endpoint."""
    import sys
    sys.path.insert(0, str(TESTS))
    from proof_server import ScriptedServer, default_model

    from judge.grading.proofs import Engine, EngineSettings, grade_proof

    srv = ScriptedServer(model=lambda step, body: "1" if step == "unknown" else default_model(step, body),
                         delay_s=0.05)
    try:
        cfg = LLMConfig(base_url=srv.base_url, model="m", concurrency=1, jitter=0.0)
        shared = ChatClient(cfg)
        engine = Engine(EngineSettings(cfg, cache_dir=tmp_path / "proofs"), client=shared)
        judge = LLMJudge(shared, concurrency=4)
        problem = {"problem_id": "P", "statement": "Show 1 = 1.", "references": ["Trivially 1 = 1."]}
        out: dict[str, Any] = {}
        threads = [
            threading.Thread(target=lambda: out.update(grade=grade_proof(
                problem, {"solution_id": "s", "solution": "1 = 1. #grade=6"}, workflow="single", engine=engine))),
            threading.Thread(target=lambda: out.update(verdicts=judge.judge_many(
                [JudgeQuestion("equivalence", "7", f"seven {i}") for i in range(4)])))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert out["grade"].grade == 6 and [v.ok for v in out["verdicts"]] == [True] * 4
        assert srv.count() == 5 and srv.max_in_flight == 1 and shared.requests_sent == 5
        cached = list((tmp_path / "proofs").rglob("*.json"))
        assert len(cached) == 1 and json.loads(cached[0].read_text())["base_url"] == srv.base_url
    finally:
        srv.close()


def test_a_lone_surrogate_in_the_request_is_sent_and_cached_as_an_escape(server, tmp_path):
    text = "the answer is \ud800 42"
    c = client(server, cache_dir=tmp_path)
    first = c.complete([{"role": "user", "content": text}])
    assert server.requests[0]["body"]["messages"][0]["content"] == text  # the server decoded the escape
    again = client(server, cache_dir=tmp_path).complete([{"role": "user", "content": text}])
    assert again.cached and again.key == first.key and len(server.requests) == 1


def test_an_unwritable_cache_is_an_error_not_a_traceback(server, tmp_path, capsys, monkeypatch):
    from judge.cli.main import main
    from judge.grading.client import LLMCacheError

    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    with pytest.raises(LLMCacheError, match="cannot write the LLM cache"):
        client(server, cache_dir=blocker).complete(MSG)
    monkeypatch.setenv("JUDGE_LLM_CACHE", str(blocker))
    judge.settings.reload()
    ref, sol = tmp_path / "ref.json", tmp_path / "sol.json"
    ref.write_text(json.dumps({"id": "1", "answer": {"a": "<fuzzy>the big dog"}}))
    sol.write_text(json.dumps({"id": "1", "answer": {"a": "a large dog"}}))
    code = main(["match", str(ref), str(sol), "--judge", "llm", "--llm-model", "m",
                 "--llm-base-url", server.base_url])
    err = capsys.readouterr().err
    assert code == 3 and "Traceback" not in err and "cannot write the LLM cache" in err


@pytest.mark.parametrize("action,kind", [("truncated", "unavailable"), ("drop", "unavailable"),
                                         ("garbage", "bad_response"), ("500", "unavailable")])
def test_judge_grade_against_a_broken_server_reports_and_counts_each_solution(server, tmp_path, capsys, action, kind):
    """End to end through `judge grade`: every reply broken the same way; each solution's
    result is a grading error of the right kind, counted in the summary, no traceback."""
    from judge.cli.main import main

    server.script = [action] * 100
    problems = tmp_path / "p.jsonl"
    problems.write_text(json.dumps({"problem_id": "P", "statement": "Show 1 = 1.", "references": ["Trivial."]}) + "\n")
    solutions = tmp_path / "s.jsonl"
    solutions.write_text("".join(json.dumps({"problem_id": "P", "solution_id": f"s{i}", "solution": "1 = 1"}) + "\n"
                                 for i in range(2)))
    out = tmp_path / "o.jsonl"
    code = main(["grade", str(problems), str(solutions), "--model", "m", "--base-url", server.base_url,
                 "--cache", str(tmp_path / "c"), "--workflow", "single", "--retries", "1", "--output", str(out),
                 "--format", "json"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and code == 4
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(x["solution_id"], x["status"], x["error_kind"]) for x in lines] == [("s0", "error", kind), ("s1", "error", kind)]
    summary = json.loads(captured.out)
    assert summary["steps"]["grade-single"]["errors"] == 2
