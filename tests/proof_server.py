"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for proof-grading tests.

Real HTTP, real JSON; the "model" is a Python function.  The step of each request is read
from its ``response_format`` name (or, without one, from the prompt), the student's solution
from between the ``<student_solution>`` tags.  ``script[step]`` may hold a list of actions
consumed one per request of that step: a reply string, or one of ``"500"``, ``"429"``,
``"hang"`` (sleep past the client's timeout), ``"garbage"`` (a non-JSON body),
``"refusal"`` (content null with a refusal).  Without a scripted action, ``model(step, body)``
answers.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

SOL = re.compile(r"<student_solution>\n(.*)\n</student_solution>", re.S)
REF = re.compile(r'<reference id="([^"]+)">\n(.*?)\n</reference>', re.S)


def step_of(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    name = (fmt.get("json_schema") or {}).get("name")
    if name:
        return name
    system = body["messages"][0]["content"]
    user = body["messages"][1]["content"]
    if "organise known solutions" in system:
        return "cluster"
    if "compare a solution attempt" in system:
        return "match"
    if "coach" in system:
        return "analysis"
    if "marking schemes" in system:
        return "rubric"
    if "official marking scheme" in system:
        return "grade_rubric"
    if "against a known correct solution" in system:
        return "grade_ref"
    return "grade_single" if "Grade the proof" in user else "unknown"


def solution_of(body: dict[str, Any]) -> str:
    m = SOL.search(body["messages"][1]["content"])
    return m.group(1) if m else ""


def grade_reply(score: Any, errors: list | None = None) -> str:
    return json.dumps({
        "overall_assessment": {"score": score, "rationale": f"scripted score {score}"},
        "step_by_step_analysis": ["step 1 checked"],
        "identified_errors": errors if errors is not None else [
            {"type": "calculation-mistakes", "description": "scripted", "location": "line 2"}],
        "clarity_structure_notation": "clear", "constructive_feedback": "scripted feedback",
    })


def default_model(step: str, body: dict[str, Any]) -> str:
    """Deterministic answers: one cluster per reference; match by shared words; two main
    steps; a 3+4 rubric; the grade is the ``#grade=N`` marker in the solution."""
    user = body["messages"][1]["content"]
    if step == "cluster":
        refs = REF.findall(user)
        return json.dumps({"clusters": [
            {"class_id": f"C{i + 1}", "main_steps": [text.split(".")[0], "finish"], "representative_solution": text}
            for i, (_, text) in enumerate(refs)]})
    if step == "match":
        sol = set(solution_of(body).lower().split())
        best = max(REF.findall(user), key=lambda r: len(sol & set(r[1].lower().split())))
        return json.dumps({"closest_rep_id": best[0], "justification": "most shared words", "extra": 1})
    if step == "analysis":
        steps = [{"title": t, "unlock": "u", "importance": "i", "principle": "p", "substeps": ["a", "b"],
                  "approachability": a, "approachability_rationale": "r"} for t, a in (("first", 2), ("second", 5))]
        return "Here is the analysis:\n```json\n" + json.dumps({"main_steps": steps}) + "\n```"
    if step == "rubric":
        kind = "milestones" if '"kind": "milestones"' in user else "steps"
        items = [{"id": "R1", "title": "first", "points": 3, "requirements": "x", "partial_credit": "y"},
                 {"id": "R2", "title": "second", "points": 4, "requirements": "x", "partial_credit": "y"}]
        return json.dumps({"kind": kind, "items": items, "benchmarks": ["7: all"], "zero_credit": "nothing"})
    if step.startswith("grade"):
        m = re.search(r"#grade=(\d+)", solution_of(body))
        return grade_reply(int(m.group(1)) if m else 0)
    return "?"


class ScriptedServer:
    def __init__(self, model: Callable[[str, dict], str] = default_model, delay_s: float = 0.0) -> None:
        self.model = model
        self.delay_s = delay_s
        self.hang_s = 3.0
        self.script: dict[str, list[str]] = {}
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                step = step_of(body)
                with outer._lock:
                    outer.requests.append({"step": step, "body": body, "path": self.path})
                    queue = outer.script.get(step)
                    action = queue.pop(0) if queue else None
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                self.counted = True
                try:
                    if outer.delay_s:
                        time.sleep(outer.delay_s)
                    self._answer(step, body, action)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    self._leave()

            def _leave(self) -> None:
                # before the reply goes out: once the client has it, it may send the next
                # request, which must not find this one still counted in flight
                if getattr(self, "counted", False):
                    self.counted = False
                    with outer._lock:
                        outer.in_flight -= 1

            def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
                self._leave()
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _answer(self, step: str, body: dict, action: str | None) -> None:
                if action in ("500", "429"):
                    self._send(int(action), b'{"error": {"message": "scripted failure"}}',
                               {"Retry-After": "0"} if action == "429" else None)
                    return
                if action == "hang":
                    time.sleep(outer.hang_s)
                if action == "garbage":
                    self._send(200, b"<html>upstream proxy error</html>")
                    return
                message: dict[str, Any] = {"role": "assistant"}
                if action == "refusal":
                    message.update(content=None, refusal="I can't help with grading this.")
                    text = ""
                else:
                    text = action if action not in (None, "hang") else outer.model(step, body)
                    message["content"] = text
                prompt = sum(len(m["content"]) for m in body["messages"])
                payload = json.dumps({"id": "x", "object": "chat.completion", "model": body.get("model"),
                                      "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                                      "usage": {"prompt_tokens": prompt // 4, "completion_tokens": len(text) // 4}})
                self._send(200, payload.encode(), {"Content-Type": "application/json"})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def steps(self) -> list[str]:
        return [r["step"] for r in self.requests]

    def count(self, step: str | None = None) -> int:
        return sum(1 for r in self.requests if step is None or r["step"] == step)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.max_in_flight = 0

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
