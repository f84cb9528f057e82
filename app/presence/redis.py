"""Presence in Redis, shared by every server process that uses the same Redis.

Per table, a sorted set `omaha:presence:<table>:expiry` scores each session with the moment
it expires (Redis server time, ms) and a hash `omaha:presence:<table>:seat` holds its seat
("" for a spectator). Each operation is one Lua script, so it is atomic and uses one clock.
Both keys expire `ttl` after the last write, so an abandoned table leaves nothing behind.
`connect_many` (the periodic refresh) is one script per table, every table's in one pipeline.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any, cast

import redis.asyncio as aioredis
from redis.exceptions import NoScriptError

_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

_CONNECT = (
    _NOW
    + """
local ttl = tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
"""
)

# `connect` for each (session, seat) pair of ARGV after the TTL: one table's sessions at once
_CONNECT_MANY = (
    _NOW
    + """
local ttl = tonumber(ARGV[1])
for i = 2, #ARGV, 2 do
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
"""
)

_HEARTBEAT = (
    _NOW
    + """
local ttl = tonumber(ARGV[2])
local expires = redis.call('ZSCORE', KEYS[1], ARGV[1])
if (not expires) or tonumber(expires) <= now then
  return 0
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
"""
)

_DISCONNECT = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""

_ONLINE = (
    _NOW
    + """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
if #gone > 0 then
  redis.call('ZREM', KEYS[1], unpack(gone))
  redis.call('HDEL', KEYS[2], unpack(gone))
end
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
local out = {}
for _, session in ipairs(live) do
  table.insert(out, session)
  table.insert(out, redis.call('HGET', KEYS[2], session) or '')
end
return out
"""
)


#: Redis connections one server process opens at most (each command takes well under 1 ms)
MAX_CONNECTIONS = 16
#: tables refreshed in one pipeline (one round trip) at most: bounds one request's size
PIPELINE_TABLES = 1000


class RedisPresence:
    """Presence in Redis through `redis.asyncio`."""

    def __init__(self, client: aioredis.Redis, ttl: float = 30.0, prefix: str = "omaha") -> None:
        if ttl <= 0:
            raise ValueError("ttl must be positive")
        self.ttl = ttl
        self._client = client
        self._prefix = prefix
        self._connect = client.register_script(_CONNECT)
        self._connect_many = client.register_script(_CONNECT_MANY)
        self._heartbeat = client.register_script(_HEARTBEAT)
        self._disconnect = client.register_script(_DISCONNECT)
        self._online = client.register_script(_ONLINE)

    @classmethod
    def from_url(
        cls,
        url: str,
        ttl: float = 30.0,
        max_connections: int = MAX_CONNECTIONS,
        timeout: float = 2.0,
    ) -> RedisPresence:
        # A bounded pool whose callers wait for a free connection: the default pool opens a
        # new connection whenever all are busy, and with every WebSocket refreshing its
        # presence on a busy loop it grew to ~500 Redis connections for 600 WebSockets
        # (tracemalloc, bench/load.py flat out), without limit.
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=timeout,
            decode_responses=True,
            socket_connect_timeout=timeout,
            socket_timeout=timeout,
        )
        return cls(aioredis.Redis.from_pool(pool), ttl=ttl)

    def _keys(self, table_id: str) -> list[str]:
        base = f"{self._prefix}:presence:{table_id}"
        return [f"{base}:expiry", f"{base}:seat"]

    @property
    def _ttl_ms(self) -> int:
        return max(1, round(self.ttl * 1000))

    async def connect(self, table_id: str, session_id: str, seat: int | None) -> None:
        seat_text = "" if seat is None else str(seat)
        await self._connect(keys=self._keys(table_id), args=[session_id, seat_text, self._ttl_ms])

    async def connect_many(self, tables: Mapping[str, Mapping[str, int | None]]) -> None:
        batch = [(t, sessions) for t, sessions in tables.items() if sessions]
        for start in range(0, len(batch), PIPELINE_TABLES):
            chunk = batch[start : start + PIPELINE_TABLES]
            try:
                await self._pipelined(chunk)
            except NoScriptError:  # Redis restarted (or its scripts were flushed): load, redo
                await self._client.script_load(_CONNECT_MANY)
                await self._pipelined(chunk)  # idempotent: what ran already runs again

    async def _pipelined(self, chunk: list[tuple[str, Mapping[str, int | None]]]) -> None:
        # EVALSHA by hand: a `Script` in a pipeline costs a SCRIPT EXISTS round trip per run
        sha, ttl = self._connect_many.sha, self._ttl_ms
        async with self._client.pipeline(transaction=False) as pipe:
            for table_id, sessions in chunk:
                args: list[str | int] = [ttl]
                for session_id, seat in sessions.items():
                    args += (session_id, "" if seat is None else str(seat))
                pipe.evalsha(sha, 2, *self._keys(table_id), *args)
            await pipe.execute()

    async def heartbeat(self, table_id: str, session_id: str) -> bool:
        result = await self._heartbeat(keys=self._keys(table_id), args=[session_id, self._ttl_ms])
        return bool(int(result))

    async def disconnect(self, table_id: str, session_id: str) -> None:
        await self._disconnect(keys=self._keys(table_id), args=[session_id])

    async def online(self, table_id: str) -> dict[str, int | None]:
        flat = cast(list[Any], await self._online(keys=self._keys(table_id)))
        pairs = zip(flat[0::2], flat[1::2], strict=True)
        return {str(s): (None if seat in ("", b"") else int(seat)) for s, seat in pairs}

    async def ping(self) -> None:
        await cast(Awaitable[bool], self._client.ping())

    async def close(self) -> None:
        await self._client.aclose()
