"""The relay: a WebSocket on a process that does not own its table talks to the owner
through Redis Streams. The protocol is unchanged for the client: the owner's table renders
every message for the connection as for a local one (sequence, resume, redaction), and the
gateway writes those texts to the socket as they come. The entries are app/scale/wire.py's.

- In, per table: `omaha:table:<id>:in`: `Taken` (the lease taken, by whom), `Attach`,
  `Command`, `Detach` of a connection, and `Read` (of the HTTP API, `READS`), answered to its
  gateway. The owner reads it from its `Taken` marker on (app/scale/owner.py says who applies
  what), and trims what it applied.
- Out, per incarnation: `omaha:gateway:<incarnation>:out`: each relayed connection's
  numbered entries (`Message`, `Attached`, `Seated`, `Closed`), the answers to this process's
  calls, and other processes' calls to it. A gateway reads only its own stream, and trims it
  as it reads: it never holds a message, nor a card, meant for a connection elsewhere, and
  what is delivered does not stay in Redis.
- A process is its incarnation (app/scale/identity.py): every process marks itself alive
  (`omaha:process:<incarnation>`, renewed with its leases, with its claim on its name). An
  owner detaches the connections of a gateway whose mark is gone (missed twice: a Redis
  restart loses every mark for a moment) and tells it so. A gateway watches the owners of the
  tables it relays: when one changes (moved, or restarted: a new incarnation), its
  connections there are closed with 1012 and resume (by the client) where the table runs now;
  when Redis restarts (entries may be lost), all of them are.

`Relay` composes its two sides, each an object with its own state and a module:
`Gateway` (app/scale/gateway.py) and `Owner` (app/scale/owner.py), both over one `Streams`
(app/scale/streams.py: the Redis client, keys, codec and incarnation; every entry either side
adds goes through its one `Writer`, app/scale/writer.py: what a turn of the event loop adds
is one MULTI/EXEC, pipelined on one connection); this module adds the process's own part:
its name, its mark of life, the watch, start and close.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, cast

import redis.asyncio as aioredis

from app.presence import Presence
from app.presence.keeper import Keeper
from app.scale.gateway import Gateway, RemoteTable
from app.scale.identity import Holder, NameClaim, NameTaken, name_of
from app.scale.keys import OUT_MAX, Keys
from app.scale.lease import Leases
from app.scale.owner import Owner, facts
from app.scale.streams import Absence, Streams
from app.scale.wire import Entry, Hello, Wire
from app.tables.registry import Elsewhere, TableRegistry
from app.tables.table import Table
from app.tables.viewer import CLOSE_RESTART

__all__ = ["Relay", "RemoteTable", "facts", "find_or_relay"]

log = logging.getLogger("omaha.relay")

# The mark of life: extended (which adds no data: it still runs at Redis's memory cap, where
# a SET is refused), or made.
_MARK = """
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 1
"""

#: seconds a starting process tries to reach Redis to claim its name before it gives up
CLAIM_SECONDS = 60.0
REDIS_RESTARTED = "the relay restarted: reconnect"


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
        if owner is None or owner == relay.name:  # changing hands: come back in a moment
            raise
        return RemoteTable(relay.gateway, table_id, owner, code)


class Relay:
    """One process's relay: the gateway of its connections to other processes' tables and
    the owner of its own tables' remote connections, each its own object."""

    def __init__(
        self,
        client: aioredis.Redis,
        leases: Leases,
        tables: TableRegistry,
        presence: Presence,
        *,
        wire: Wire,
        outbox_limit: int,
        reply_timeout: float = 15.0,
        keys: Keys | None = None,
        keeper: Keeper | None = None,
    ) -> None:
        self.client = client
        self.leases = leases
        self.name = leases.name
        self.keys = keys or Keys()
        self.tables = tables
        self.streams = Streams(client, self.name, self.keys, wire)
        self.owner = Owner(self.streams, tables, presence, outbox_limit=outbox_limit,
                           reply_timeout=reply_timeout, keeper=keeper)  # fmt: skip
        self.gateway = Gateway(self.streams, reply_timeout=reply_timeout,
                               on_call=self.owner.called)  # fmt: skip
        self.claim = NameClaim(client, name_of(self.name), Holder.here(self.name), leases.ms,
                               self.keys)  # fmt: skip
        #: called when another incarnation holds this one's name (it was frozen past its
        #: lease and another process took the name): the process stops (`app.main`)
        self.on_name_lost: Callable[[], None] = lambda: None
        self._tasks: list[asyncio.Task[None]] = []
        self._run_id: str | None = None
        self._mark = client.register_script(_MARK)
        self._owners_absent, self._gateways_absent = Absence(), Absence()

    async def start(self) -> None:
        """Claim the process's name (`NameTaken` if a live process has it), then read."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CLAIM_SECONDS
        while True:
            try:
                predecessor = await self.claim.take()
                break
            except NameTaken:
                raise
            except Exception as error:
                if loop.time() > deadline:
                    raise
                self.streams.quiet.warn("relay: Redis does not answer yet (%s)",
                                        type(error).__name__)  # fmt: skip
                await asyncio.sleep(1.0)
        if predecessor is not None:  # it ended (a restart): nobody waits for its lease
            released = await self.leases.release_held_by(predecessor)
            log.warning("this process restarted: %s is gone (%d leases released)",
                        predecessor, released)  # fmt: skip
            await self._declare_gone(predecessor)
        await self.gateway.begin()
        self._run_id = await self._redis_run_id()
        await self._alive()
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self.gateway.read_out()),
            loop.create_task(self.owner.read_in()),
            loop.create_task(self._watch()),
        ]

    async def _declare_gone(self, incarnation: str) -> None:
        """An ended incarnation: its mark goes at once, so owners drop its connections."""
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.delete(self.keys.alive(incarnation), self.keys.out(incarnation))
            pipe.zrem(self.keys.processes, incarnation)
            pipe.hdel(self.keys.load, incarnation)
            await pipe.execute()

    async def close(self) -> None:
        self.streams.closing = True
        for task in self._tasks:
            task.cancel()
        remote = self.owner.stop_all()
        self.gateway.close_all(CLOSE_RESTART, "server stopping")
        pending: list[asyncio.Future[Any]] = [*self._tasks, *self.streams.pending, *remote]
        if pending:  # bounded: a cancellation can be swallowed inside the Redis client
            await asyncio.wait(pending, timeout=5)
        with contextlib.suppress(Exception):
            await self._declare_gone(self.name)
            await self.claim.release()
        await self.client.aclose()

    async def taken(self, table_id: str) -> None:
        """A hook of the registry, after the take (before the epoch bump): entries from the
        take's marker on are this owner's to apply."""
        mark = self.leases.marks.pop(table_id, None)
        if mark is None:  # (not taken through these leases' script: from now on)
            mark = await self.streams.add(self.keys.table_in(table_id), Hello(), OUT_MAX)
        self.owner.read_from(table_id, mark)

    async def _alive(self) -> None:
        """The mark of life, the claim on the name, the load; the marks that lapsed go."""
        now = await cast(Awaitable[tuple[int, int]], self.client.time())
        ms = now[0] * 1000 + now[1] // 1000
        async with self.client.pipeline(transaction=False) as pipe:
            await self._mark(keys=[self.keys.alive(self.name)], args=[self.leases.ms], client=pipe)
            pipe.zadd(self.keys.processes, {self.name: ms + self.leases.ms})
            if (placement := self.owner.placement) is not None:
                pipe.hset(self.keys.load, self.name, str(placement.load()))
            pipe.zrangebyscore(self.keys.processes, "-inf", ms)
            lapsed = (await pipe.execute())[-1]
        if lapsed:
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.zrem(self.keys.processes, *lapsed)
                pipe.hdel(self.keys.load, *lapsed)
                await pipe.execute()
        if not await self.claim.keep():
            log.error("another process holds the name %r now: stopping", self.claim.name)
            self.on_name_lost()

    async def _redis_run_id(self) -> str:
        return await self.leases.generation()

    async def _watch(self) -> None:
        """Twice every renewal interval (a relayed connection whose owner died waits for
        this to move): mark this process alive; after a Redis restart, close every relayed
        connection (entries may be lost: they resume); close those of a table whose owner
        changed; detach the remote connections of gateways that are gone."""
        while not self.streams.closing:
            await asyncio.sleep(self.tables.renew / 2)
            try:
                await self._alive()
                run_id = await self._redis_run_id()
                if run_id != self._run_id:
                    log.warning("relay: Redis restarted: relayed connections resume")
                    self._run_id = run_id
                    self.gateway.restart_all(REDIS_RESTARTED)
                owners = await self.leases.owners(self.gateway.tables())
                vanished = {t for t, o in owners.items() if o is None}
                self.gateway.owners_seen(owners, self._owners_absent.twice(vanished))
                gateways = self.owner.gateways()
                alive = await cast(
                    Awaitable[list[Any]],
                    self.client.mget([self.keys.alive(g) for g in gateways]),
                ) if gateways else []  # fmt: skip
                missing = {g for g, a in zip(gateways, alive, strict=True) if a is None}
                self.owner.gateways_seen(self._gateways_absent.twice(missing))
            except Exception as error:
                self.streams.quiet.warn("relay: watch failed (%s)", type(error).__name__)

    async def others_alive(self) -> bool:
        """Is another server process alive (to hand this one's tables over to)?"""
        try:
            now = await cast(Awaitable[tuple[int, int]], self.client.time())
            ms = now[0] * 1000 + now[1] // 1000
            names = await cast(
                Awaitable[list[str]], self.client.zrangebyscore(self.keys.processes, ms, "+inf")
            )
        except Exception:
            return False
        return any(name != self.name for name in names)

    async def call(
        self, key: str, make: Callable[[str], Entry], timeout: float, maxlen: int = OUT_MAX
    ) -> dict[str, Any]:
        """A request to another process, answered on this one's stream (`Gateway.call`)."""
        return await self.gateway.call(key, make, timeout, maxlen)

    async def ask_director(
        self, owner: str, code: str, what: str, player_id: str | None, name: str
    ) -> dict[str, Any]:
        """A tournament another process directs, asked (`Gateway.ask_director`)."""
        return await self.gateway.ask_director(owner, code, what, player_id, name)

    def positions(self) -> list[tuple[str, str]]:
        """The streams this process reads, each with the id of the last entry read from it
        (its tables' in streams, its own out stream): the relay's lag (`app.metrics`)."""
        streams = [(self.keys.table_in(t), c) for t, c in list(self.owner.cursors.items())]
        streams.append((self.keys.out(self.name), self.gateway.out_cursor))
        return streams

    def relayed(self) -> int:
        """How many connections of other processes are relayed to this process's tables."""
        return len(self.owner.remote)
