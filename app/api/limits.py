"""Bounds on what a stranger can make the server hold: creations per client address a minute
(counted by a limiter of `app.rate`), connections per player and per table, and the size of
a request body.

Every refusal is a typed error `{code, message}`; see docs/security.md for each limit and its
setting.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson
from fastapi import HTTPException, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.rate import Limiter


def client_address(connection: Request | Scope) -> str:
    """The client's address as uvicorn saw it (behind a trusted proxy: X-Forwarded-For)."""
    scope = connection.scope if isinstance(connection, Request) else connection
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


async def check_rate(limiter: Limiter, request: Request, what: str) -> None:
    """Raise a 429 `rate_limited` error when this client address made too many `what`."""
    if not await limiter.admit(client_address(request)):
        raise HTTPException(
            429,
            detail={
                "code": "rate_limited",
                "message": f"too many {what} from your address: at most {limiter.limit} a minute",
            },
        )


class Connections:
    """Open WebSocket connections, counted per player and per table."""

    def __init__(self, per_player: int, per_table: int) -> None:
        self.per_player, self.per_table = per_player, per_table
        self.players: Counter[str] = Counter()
        self.tables: Counter[str] = Counter()

    def acquire(self, player_id: str, table_id: str) -> str | None:
        """Count a new connection, or say why it is refused (then nothing is counted)."""
        if self.players[player_id] >= self.per_player:
            return f"you have {self.per_player} connections open already: close one"
        if self.tables[table_id] >= self.per_table:
            return f"this table has {self.per_table} connections already"
        self.players[player_id] += 1
        self.tables[table_id] += 1
        return None

    def release(self, player_id: str, table_id: str) -> None:
        for counter, key in ((self.players, player_id), (self.tables, table_id)):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]


def _too_large(limit: int) -> dict[str, str]:
    return {"code": "too_large", "message": f"request bodies are at most {limit} bytes"}


class BodyLimit:
    """ASGI middleware: an HTTP request body over `limit` bytes gets 413 `too_large`, whether it
    announces its length or streams (chunked) past it. Nothing over the limit is read."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = self.limit + 1
                if declared > self.limit:
                    await self._refuse(send)
                    return
        received = 0

        async def counted() -> Message:
            # Raised into the route reading the body: FastAPI passes an HTTPException on, and
            # its handler answers it (the body read so far is dropped).
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise HTTPException(413, detail=_too_large(self.limit))
            return message

        await self.app(scope, counted, send)

    async def _refuse(self, send: Send) -> None:
        body = orjson.dumps({"detail": _too_large(self.limit)})
        headers: list[Any] = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})
