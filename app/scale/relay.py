"""The relay: a WebSocket on a process that does not own its table talks to the owner
through Redis Streams. The protocol is unchanged for the client: the owner's table renders
every message for the connection as for a local one (sequence, resume, redaction), and the
gateway writes those texts to the socket as they come.

- In, per table: `omaha:table:<id>:in`, entries `attach` (the connection's id, its gateway,
  player, name, stream and since), `cmd` (the connection's id, the message's type, `id` and
  data), `detach`, and `req`: a read of the HTTP API (`READS`), answered to its gateway.
  The owner reads the streams of its tables from the moment it took each (a marker it adds
  at the take), so an entry is applied once, by one owner, or never (it
  came before the take: the gateway then learns the owner changed and its client resumes).
- Out, per gateway: `omaha:gateway:<name>:out`, entries `m` (one message's text), `x` (close
  code and reason), `q` or `e` (a read's result or error), each addressed to one connection
  (or read). A gateway reads only its own stream:
  it never holds a message, nor a card, meant for a connection elsewhere.
- Every process marks itself alive (`omaha:process:<name>`, renewed with its leases); an owner
  detaches the connections of a gateway that is gone. A gateway watches the owners of the
  tables it relays: when one changes, its connections there are closed with 1012 and resume
  (by the client) where the table runs now.

`Relay` is assembled here from its two sides, each a module: `Gateway` (app/scale/gateway.py)
and `Owner` (app/scale/owner.py), over what they share (app/scale/streams.py); this module
adds the process's own part: its mark of life, start and close.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable, Callable
from typing import Any, cast

import redis.asyncio as aioredis

from app.presence import Presence
from app.scale.gateway import Gateway, RemoteTable
from app.scale.lease import Leases
from app.scale.owner import Owner, _Remote, facts
from app.scale.placement import Placement
from app.tables.registry import Elsewhere, TableRegistry
from app.tables.table import Table
from app.tables.viewer import CLOSE_RESTART, Viewer

__all__ = ["Relay", "RemoteTable", "facts", "find_or_relay"]


async def find_or_relay(
    relay: Relay | None, registry: TableRegistry, table_id: str, code: str = ""
) -> Table | RemoteTable:
    """The table if it runs here (or can: its lease is free), else a relay to its owner."""
    try:
        return await registry.find(table_id)
    except Elsewhere:
        if relay is None:
            raise
        owner = (await relay.leases.owners([table_id])).get(table_id)
        return RemoteTable(relay, table_id, owner, code)


class Relay(Gateway, Owner):
    """One process's relay: the gateway of its connections to other processes' tables and
    the owner of its own tables' remote connections."""

    def __init__(
        self,
        client: aioredis.Redis,
        leases: Leases,
        tables: TableRegistry,
        presence: Presence,
        *,
        outbox_limit: int,
        reply_timeout: float = 15.0,
        prefix: str = "omaha",
    ) -> None:
        self.client = client
        self.leases = leases
        self.name = leases.name
        self.tables = tables
        self.presence = presence
        self.outbox_limit = outbox_limit
        self.reply_timeout = reply_timeout
        self.prefix = prefix
        self._ids = itertools.count(1)
        #: gateway side: this process's relayed connections, by connection id
        self.local: dict[str, tuple[RemoteTable, Viewer]] = {}
        self._conn_of: dict[int, str] = {}  # viewer.id -> connection id
        #: owner side: the connections of other gateways on this process's tables
        self.remote: dict[str, _Remote] = {}
        #: owner side: per table, the id of the last entry read from its in stream
        self.cursors: dict[str, str] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._pending: set[asyncio.Task[Any]] = set()
        self._out_cursor = "0-0"
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._closing = False
        #: where new tables go (`app.scale.placement`): its load is published with the mark
        self.placement: Placement | None = None
        #: a tournament's read or action asked by another process (`app.api.tournaments`)
        self.on_tournament: Callable[[dict[str, str]], Awaitable[dict[str, Any]]] | None = None
        #: every live process, scored with the time its mark lapses (Redis time, ms)
        self.alive_set = f"{prefix}:processes"

    async def start(self) -> None:
        self._out_cursor = await self._add(self.out_key(self.name), {"hello": "1"})
        await self._alive()
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._read_out()),
            loop.create_task(self._read_in()),
            loop.create_task(self._watch()),
        ]

    async def close(self) -> None:
        self._closing = True
        for task in self._tasks:
            task.cancel()
        for remote in list(self.remote.values()):
            remote.stop.set()
            for task in remote.tasks:
                task.cancel()
        for _, viewer in list(self.local.values()):
            viewer.close(CLOSE_RESTART, "server stopping")
        pending = [*self._tasks, *self._pending]
        pending += [t for r in self.remote.values() for t in r.tasks]
        if pending:  # bounded: a cancellation can be swallowed inside the Redis client
            await asyncio.wait(pending, timeout=5)
        with contextlib.suppress(Exception):
            await cast(Awaitable[int], self.client.delete(self.alive_key(self.name)))
            await cast(Awaitable[int], self.client.zrem(self.alive_set, self.name))
            if self.placement is not None:
                await self.placement.forget()
        await self.client.aclose()

    async def taken(self, table_id: str) -> None:
        """A hook of the registry, at the take (before the epoch bump): entries from here on
        are this owner's to apply."""
        self.cursors[table_id] = await self._add(self.in_key(table_id), {"k": "taken"})

    async def _alive(self) -> None:
        now = await cast(Awaitable[tuple[int, int]], self.client.time())
        lapse = now[0] * 1000 + now[1] // 1000 + self.leases.ms
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.set(self.alive_key(self.name), "1", px=self.leases.ms)
            pipe.zadd(self.alive_set, {self.name: lapse})
            if self.placement is not None:
                pipe.hset(self.placement.key, self.name, str(self.placement.load()))
            await pipe.execute()

    async def others_alive(self) -> bool:
        """Is another server process alive (to hand this one's tables over to)?"""
        try:
            now = await cast(Awaitable[tuple[int, int]], self.client.time())
            ms = now[0] * 1000 + now[1] // 1000
            names = await cast(
                Awaitable[list[str]], self.client.zrangebyscore(self.alive_set, ms, "+inf")
            )
        except Exception:
            return False
        return any(name != self.name for name in names)
