"""Requests per second of the shared chat client (httpx, pooled) against the stdlib urllib
client it replaced (a new connection per request), on a local server that answers at once.

Why: proof grading makes tens of calls per solution and fuzzy-select |S| x |R| per entry;
the client's own overhead (connection set-up, threads, parsing) is what this measures, with
the model's latency taken out. Both clients send the same body and parse the same reply;
the cache is off. Wall time, best of N: the work is I/O and thread hand-offs.

    .venv/bin/python benchmarks/llm_client.py                 # 300 requests, concurrency 1 and 4
    .venv/bin/python benchmarks/llm_client.py --requests 1000 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import platform
import socket
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from judge.grading.client import ChatClient, LLMConfig, parse_completion  # noqa: E402

REPLY = json.dumps({"id": "x", "object": "chat.completion", "choices": [
    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "1"}}]}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()  # as real servers do: http.server writes headers and body apart, and
        # with Nagle on, each keep-alive reply would wait ~40 ms for the client's delayed ACK
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(REPLY)))
        self.end_headers()
        self.wfile.write(REPLY)


def urllib_post(url: str, payload: dict[str, Any]) -> str:
    """The replaced client's request: urllib, one connection per request."""
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return parse_completion(resp.read(), url)[0]


def run(send: Callable[[int], Any], requests: int, concurrency: int) -> float:
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(send, range(requests)))
    return requests / (time.perf_counter() - start)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    print(f"# chat requests per second (best of {args.repeat}, {args.requests} requests); "
          f"Python {platform.python_version()}, {platform.machine()}")
    print(f"{'concurrency':>11}  {'httpx client':>12}  {'urllib':>8}  {'ratio':>6}")
    for concurrency in (1, 4):
        client = ChatClient(LLMConfig(base_url=base, model="m", concurrency=concurrency))

        def ours(i: int) -> str:
            return client.complete([{"role": "user", "content": f"q{i}"}]).text

        def peer(i: int) -> str:
            return urllib_post(base + "/chat/completions",
                               {"model": "m", "messages": [{"role": "user", "content": f"q{i}"}], "temperature": 0})

        a = max(run(ours, args.requests, concurrency) for _ in range(args.repeat))
        b = max(run(peer, args.requests, concurrency) for _ in range(args.repeat))
        client.close()
        print(f"{concurrency:>11}  {a:>12.0f}  {b:>8.0f}  {a / b:>6.2f}")
    httpd.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
