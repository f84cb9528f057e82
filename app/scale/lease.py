"""Table ownership: a lease in Redis per table, `omaha:table:<id>:owner` = the owner's
incarnation (app/scale/identity.py), and per tournament director,
`omaha:tournament:<id>:owner` (`Leases.of`).

A process takes a free table with one script (`SET ... PX` when the key is absent, or already
this incarnation's), which for a table also adds the `Taken` marker to the table's in stream
in the same step: every relayed entry that names this owner comes after it (the relay reads
from there). It renews all of its tables with one compare-and-extend script every renewal
interval (taking back a lease that is absent: Redis restarted and lost it; if another
process took it meanwhile, the epoch and the marker say so), and releases one with
compare-and-set to '' (released: another process's sweep takes it at once). A lease that
lapses (its owner died or froze) is taken by another process's sweep, but not for a renewal
interval after Redis restarted (`generation`: its owner takes it back first). The lease only
says who should run a table; what keeps a stale owner from writing is the fencing
epoch in PostgreSQL (`SqlTableStore.take_table`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from typing import Any, Protocol, cast

import redis.asyncio as aioredis

from app.scale.keys import IN_MAX, STREAM_TTL_MS, Keys
from app.scale.wire import Taken, plain

# KEYS[2] (a table's in stream), when given, gets the `Taken` marker (ARGV[3..]: its fields);
# returns the marker's id ('' without one), or nil when another incarnation holds the lease.
_TAKE = """
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= '' and owner ~= ARGV[1] then
  return nil
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if KEYS[2] then
  local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', unpack(ARGV, 5))
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  return id
end
return ''
"""

_RENEW = """
local kept = {}
for i, key in ipairs(KEYS) do
  local owner = redis.call('GET', key)
  if owner == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    kept[#kept + 1] = i
  elseif not owner then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    kept[#kept + 1] = i
  end
end
return kept
"""

# Released: '' for a lease's time, so that others' sweeps take it at once (an absent lease
# may only be lost: Redis restarted, and its owner takes it back at its next renewal).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], '', 'PX', ARGV[2])
  return 1
end
return 0
"""


class Ownership(Protocol):
    """Who owns which table. `shared`: other processes may own tables (they are relayed)."""

    name: str
    shared: bool

    async def take(self, table_id: str) -> bool: ...

    async def renew(self, table_ids: list[str]) -> set[str]:
        """Extend the leases still this process's (and take back absent ones); returns
        those (the others are lost)."""
        ...

    async def release(self, table_id: str) -> None: ...

    async def owners(self, table_ids: list[str]) -> dict[str, str | None]:
        """Each one's owner (its incarnation), None when free."""
        ...

    async def holders(self, table_ids: list[str]) -> dict[str, str | None]:
        """As `owners`, telling a released lease ('') from an absent one (None)."""
        ...

    async def generation(self) -> str:
        """Which run of the leases' store this is: it changes when Redis restarted (and lost
        every lease)."""
        ...

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

    async def holders(self, table_ids: list[str]) -> dict[str, str | None]:
        return await self.owners(table_ids)

    async def generation(self) -> str:
        return ""

    async def close(self) -> None:
        return None

    def of(self, kind: str) -> SoleLeases:
        return self


class Leases:
    """The leases in Redis through `redis.asyncio`; `name` is this process's incarnation."""

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
        self.keys_of = Keys(prefix)
        #: per table, the id of the `Taken` marker its last take added (`pop`ped by the relay)
        self.marks: dict[str, str] = {}
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
        return self.keys_of.lease(self.kind, table_id)

    async def take(self, table_id: str) -> bool:
        keys = [self.key(table_id)]
        args: list[str | int] = [self.name, self.ms]
        if self.kind == "table":
            keys.append(self.keys_of.table_in(table_id))
            marker = plain(Taken(self.name))
            args += [IN_MAX, STREAM_TTL_MS, *(x for pair in marker.items() for x in pair)]
        taken = await self._take(keys=keys, args=args)
        if taken is None:
            return False
        if taken:
            self.marks[table_id] = str(taken)
        return True

    async def renew(self, table_ids: list[str]) -> set[str]:
        if not table_ids:
            return set()
        kept = cast(
            list[Any],
            await self._renew(keys=[self.key(t) for t in table_ids], args=[self.name, self.ms]),
        )
        return {table_ids[int(i) - 1] for i in kept}

    async def release(self, table_id: str) -> None:
        await self._release(keys=[self.key(table_id)], args=[self.name, self.ms])

    async def owners(self, table_ids: list[str]) -> dict[str, str | None]:
        return {t: v or None for t, v in (await self.holders(table_ids)).items()}

    async def holders(self, table_ids: list[str]) -> dict[str, str | None]:
        if not table_ids:
            return {}
        values = await cast(Awaitable[list[Any]], self.client.mget(self.keys(table_ids)))
        return {
            t: (str(v) if v is not None else None) for t, v in zip(table_ids, values, strict=True)
        }

    async def generation(self) -> str:
        info = await cast(Awaitable[dict[str, Any]], self.client.info("server"))
        return str(info.get("run_id", ""))

    async def release_held_by(self, incarnation: str) -> int:
        """Release every lease (tables' and tournaments') an ended incarnation held: its
        successor (a restart) takes them at once instead of after the lease. Returns how many."""
        released = 0
        async for key in self.client.scan_iter(match=f"{self.prefix}:*:owner", count=1000):
            released += int(await self._release(keys=[key], args=[incarnation, self.ms]))
        return released

    def keys(self, table_ids: Iterable[str]) -> list[str]:
        return [self.key(t) for t in table_ids]

    def of(self, kind: str) -> Leases:
        return Leases(self.client, self.name, self.ms / 1000, self.prefix, kind)

    async def close(self) -> None:
        await self.client.aclose()
