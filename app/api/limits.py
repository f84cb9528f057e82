"""Bounds on what a stranger can make the server hold: creations per client address a minute,
connections per player and per table, and the size of a request body.

Every refusal is a typed error `{code, message}`; see docs/security.md for each limit and its
setting.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import Counter, deque
from typing import Any, Protocol

import orjson
import redis.asyncio as aioredis
from fastapi import HTTPException, Request
from redis.exceptions import RedisError
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def client_address(connection: Request | Scope) -> str:
    """The client's address as uvicorn saw it (behind a trusted proxy: X-Forwarded-For)."""
    scope = connection.scope if isinstance(connection, Request) else connection
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class PerMinute:
    """At most `limit` events per key in any 60 seconds (a sliding window of timestamps).

    Keys whose window is empty are dropped, so memory is bounded by the addresses active in
    the last minute times `limit`."""

    def __init__(self, limit: int, window: float = 60.0) -> None:
        self.limit, self.window = limit, window
        self.events: dict[str, deque[float]] = {}
        self._swept = time.monotonic()

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        if now - self._swept > self.window:
            self._sweep(now)
        stamps = self.events.setdefault(key, deque())
        while stamps and now - stamps[0] >= self.window:
            stamps.popleft()
        if len(stamps) >= self.limit:
            return False
        stamps.append(now)
        return True

    def _sweep(self, now: float) -> None:
        self._swept = now
        for key in [k for k, s in self.events.items() if not s or now - s[-1] >= self.window]:
            del self.events[key]

    async def admit(self, key: str) -> bool:
        return self.allow(key)


log = logging.getLogger("omaha.limits")

# A sliding window in one sorted set per key, on Redis's own clock (processes' clocks may
# differ): drop the stamps older than the window, refuse at the limit, else stamp and keep
# the key no longer than the window.
_SLIDE = """
local now = redis.call('TIME')
local t = tonumber(now[1]) * 1000000 + tonumber(now[2])
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], t, ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
return 1
"""


class SharedPerMinute:
    """`PerMinute` counted in Redis, so that several server processes (scale-out) allow an
    address `limit` events a minute in all, not `limit` each. While Redis does not answer,
    this process counts alone (bounded still, per process) rather than refuse everyone."""

    def __init__(
        self,
        client: aioredis.Redis,
        limit: int,
        what: str,
        window: float = 60.0,
        prefix: str = "omaha",
        timeout: float = 1.0,
    ) -> None:
        self.limit, self.window, self.timeout = limit, window, timeout
        self.key = f"{prefix}:rate:{what}:"
        self.alone = PerMinute(limit, window)
        self._slide = client.register_script(_SLIDE)
        self._failing = False

    async def admit(self, key: str) -> bool:
        try:
            async with asyncio.timeout(self.timeout):
                args: list[int | str] = [
                    int(self.window * 1_000_000),
                    self.limit,
                    secrets.token_hex(8),
                ]
                allowed = await self._slide(keys=[self.key + key], args=args)
        except (RedisError, OSError, TimeoutError) as error:
            if not self._failing:
                log.warning("rate limits counted in this process alone: Redis %s",
                            type(error).__name__)  # fmt: skip
                self._failing = True
            return self.alone.allow(key)
        self._failing = False
        return bool(allowed)


class Limiter(Protocol):
    limit: int

    async def admit(self, key: str) -> bool: ...


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
