"""Table ownership: a lease in Redis per table, `omaha:table:<id>:owner` = the process name
(and per tournament director, `omaha:tournament:<id>:owner`: `Leases.of`).

A process takes a free table with one script (`SET ... PX` when the key is absent, or
already its own: a restarted process under the same name takes its tables back at once),
renews all of its tables with one compare-and-extend script every renewal interval, and
releases one with compare-and-delete. A lease that lapses (its owner died or froze) is taken
by another process's sweep. The lease only says who should run a table; what keeps a stale
owner from writing is the fencing epoch in PostgreSQL (`SqlTableStore.take_table`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from typing import Any, Protocol, cast

import redis.asyncio as aioredis

_TAKE = """
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

_RENEW = """
local kept = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    kept[#kept + 1] = i
  end
end
return kept
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class Ownership(Protocol):
    """Who owns which table. `shared`: other processes may own tables (they are relayed)."""

    name: str
    shared: bool

    async def take(self, table_id: str) -> bool: ...

    async def renew(self, table_ids: list[str]) -> set[str]:
        """Extend the leases still this process's; returns those (the others are lost)."""
        ...

    async def release(self, table_id: str) -> None: ...

    async def owners(self, table_ids: list[str]) -> dict[str, str | None]: ...

    async def close(self) -> None: ...

    def of(self, kind: str) -> Ownership:
        """The same process's leases on another kind of thing (`tournament`), same client."""
        ...


class SoleLeases:
    """A server that runs alone (no Redis, or SQLite): every table is its own."""

    shared = False

    def __init__(self, name: str = "solo") -> None:
        self.name = name

    async def take(self, table_id: str) -> bool:
        return True

    async def renew(self, table_ids: list[str]) -> set[str]:
        return set(table_ids)

    async def release(self, table_id: str) -> None:
        return None

    async def owners(self, table_ids: list[str]) -> dict[str, str | None]:
        return {t: self.name for t in table_ids}

    async def close(self) -> None:
        return None

    def of(self, kind: str) -> SoleLeases:
        return self


class Leases:
    """The leases in Redis through `redis.asyncio`."""

    shared = True

    def __init__(
        self,
        client: aioredis.Redis,
        name: str,
        seconds: float,
        prefix: str = "omaha",
        kind: str = "table",
    ) -> None:
        self.client = client
        self.kind = kind
        self.name = name
        self.ms = max(1, round(seconds * 1000))
        self.prefix = prefix
        self._take = client.register_script(_TAKE)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

    @classmethod
    def from_url(cls, url: str, name: str, seconds: float) -> Leases:
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=16,
            timeout=2,
            decode_responses=True,
            socket_connect_timeout=2,
            socket_timeout=2,
        )
        return cls(aioredis.Redis.from_pool(pool), name, seconds)

    def key(self, table_id: str) -> str:
        return f"{self.prefix}:{self.kind}:{table_id}:owner"

    async def take(self, table_id: str) -> bool:
        return bool(await self._take(keys=[self.key(table_id)], args=[self.name, self.ms]))

    async def renew(self, table_ids: list[str]) -> set[str]:
        if not table_ids:
            return set()
        kept = cast(
            list[Any],
            await self._renew(keys=[self.key(t) for t in table_ids], args=[self.name, self.ms]),
        )
        return {table_ids[int(i) - 1] for i in kept}

    async def release(self, table_id: str) -> None:
        await self._release(keys=[self.key(table_id)], args=[self.name])

    async def owners(self, table_ids: list[str]) -> dict[str, str | None]:
        if not table_ids:
            return {}
        values = await cast(Awaitable[list[Any]], self.client.mget(self.keys(table_ids)))
        return {
            t: (str(v) if v is not None else None) for t, v in zip(table_ids, values, strict=True)
        }

    def keys(self, table_ids: Iterable[str]) -> list[str]:
        return [self.key(t) for t in table_ids]

    def of(self, kind: str) -> Leases:
        return Leases(self.client, self.name, self.ms / 1000, self.prefix, kind)

    async def close(self) -> None:
        await self.client.aclose()
