"""ASGI middleware of the HTTP service: the body-size cap (413) and the bearer token (401).
Pure ASGI so a body is never buffered past the cap."""

from __future__ import annotations

import hmac
from typing import Any, Awaitable, Callable

from fastapi import Request
from fastapi.responses import JSONResponse

from judge.errors import JudgeError


def client_key(request: Request) -> str:
    """Who a request is from, for fairness and per-client caps: its ``X-Judge-Client``
    header (clients that share an address or a token can tell themselves apart), else its
    address."""
    named = request.headers.get("x-judge-client")
    if named:
        return "id:" + named[:200]
    return "addr:" + (request.client.host if request.client else "?")


def error_body(status: int, message: str, field: str | None = None, **extra: Any
               ) -> dict[str, Any]:
    body: dict[str, Any] = {"status": status, "message": message}
    if field is not None:
        body["field"] = field
    body.update({k: v for k, v in extra.items() if v is not None})
    return {"error": body}


def _bearer_ok(header: str | None, token: str) -> bool:
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(),
                                                              token.encode())


class BodyLimit:
    """ASGI middleware: answers 413 for a body over ``max_bytes`` (by Content-Length before
    reading it, and by counting for a chunked body), and 401 without the bearer token when
    one is configured. Pure ASGI so the body is never buffered past the cap."""

    def __init__(self, app: Any, max_bytes: int, token: str | None) -> None:
        self.app, self.max_bytes, self.token = app, max_bytes, token

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Awaitable[Any]],
                       send: Callable[[Any], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        if self.token is not None and not _bearer_ok(headers.get("authorization"), self.token):
            await _send_json(send, 401, error_body(401, "missing or wrong bearer token "
                                                   "(Authorization: Bearer <JUDGE_API_TOKEN>)",
                                                   "Authorization"),
                             {"WWW-Authenticate": 'Bearer realm="judge"'})
            return
        if scope.get("method") == "POST" and "json" not in headers.get("content-type", ""):
            # a JSON API: a body is JSON whatever the client labelled it (curl -d says form)
            scope = dict(scope)
            scope["headers"] = [(k, v) for k, v in scope.get("headers", [])
                                if k.lower() != b"content-type"]
            scope["headers"].append((b"content-type", b"application/json"))
        length = headers.get("content-length")
        if length is not None:
            try:
                too_big = int(length) > self.max_bytes
            except ValueError:
                await _send_json(send, 400, error_body(400, "bad Content-Length header",
                                                       "Content-Length"))
                return
            if too_big:
                await _send_json(send, 413, self._too_large())
                return
        received = 0
        sent_response = False
        too_large = False

        async def counting_receive() -> Any:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    too_large = True
                    raise _BodyTooLarge()
            return message

        async def tracking_send(message: Any) -> None:
            nonlocal sent_response
            if too_large:  # whatever the app made of the aborted read, the answer is 413
                if message["type"] == "http.response.start" and not sent_response:
                    sent_response = True
                    await _send_json(send, 413, self._too_large())
                return
            if message["type"] == "http.response.start":
                sent_response = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _BodyTooLarge:
            if not sent_response:
                await _send_json(send, 413, self._too_large())

    def _too_large(self) -> dict[str, Any]:
        return error_body(413, "request body larger than %d bytes (judge serve --max-body-mb)"
                          % self.max_bytes, "body")


class _BodyTooLarge(JudgeError):
    code = "body_too_large"


async def _send_json(send: Callable[[Any], Awaitable[None]], status: int, body: Any,
                     headers: dict[str, str] | None = None) -> None:
    response = JSONResponse(body, status_code=status, headers=headers)
    await send({"type": "http.response.start", "status": status,
                "headers": response.raw_headers})
    await send({"type": "http.response.body", "body": response.body})
