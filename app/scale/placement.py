"""Placement: a new cash-game table goes to the live process running the fewest tables.

Every process publishes its load (the tables it runs) in the hash `omaha:load`, when it
marks itself alive and after each table it creates. A create on a process that is not the
least loaded asks the chosen one to create the table: a `Place` entry on the chosen one's
own stream (`omaha:gateway:<incarnation>:out`, which only it reads), answered on the asker's
with the table's id and code. The chosen process runs the ordinary create (its lease, then its
row, then its actor), so the lease is taken by the process that runs the table, as for any
other table. If it does not answer in time or refuses (it is stopping), the table is made
where it was asked for. A tournament's tables are never placed: they run with their
director (`app.tournaments.hall`)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

import redis.asyncio as aioredis

from app.scale.keys import Keys
from app.scale.wire import Entry, Place
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.registry import TableRegistry

log = logging.getLogger("omaha.placement")


@dataclass(frozen=True)
class Placed:
    """A new table, wherever it runs."""

    id: str
    code: str


class Caller(Protocol):
    """What placement asks of the relay (`app.scale.relay.Relay`): its Redis client, keys
    and name, and a call to another process answered on this one's stream."""

    client: aioredis.Redis
    keys: Keys
    name: str

    async def call(
        self, key: str, make: Callable[[str], Entry], timeout: float, maxlen: int = ...
    ) -> dict[str, Any]: ...


class Placement:
    def __init__(self, relay: Caller, tables: TableRegistry, *, timeout: float = 5.0) -> None:
        self.relay = relay
        self.tables = tables
        self.timeout = timeout
        self.key = relay.keys.load

    def load(self) -> int:
        return len(self.tables.tables) + len(self.tables.launching)

    async def publish(self) -> None:
        load = str(self.load())
        await cast(Awaitable[int], self.relay.client.hset(self.key, self.relay.name, load))

    async def forget(self) -> None:
        await cast(Awaitable[int], self.relay.client.hdel(self.key, self.relay.name))

    async def loads(self) -> dict[str, int]:
        """The live processes' loads (this one's counted here, not read back)."""
        client = self.relay.client
        now = await cast(Awaitable[tuple[int, int]], client.time())
        ms = now[0] * 1000 + now[1] // 1000
        alive = await cast(
            Awaitable[list[str]], client.zrangebyscore(self.relay.keys.processes, ms, "+inf")
        )
        others = [name for name in alive if name != self.relay.name]
        values = await cast(Awaitable[list[Any]], client.hmget(self.key, others)) if others else []
        loads = {n: int(v) for n, v in zip(others, values, strict=True) if v is not None}
        loads[self.relay.name] = self.load()
        return loads

    async def choose(self) -> str:
        """The least loaded live process; this one on a tie (nothing to relay)."""
        loads = await self.loads()
        return min(loads, key=lambda n: (loads[n], n != self.relay.name, n))

    async def create(self, host_id: str, config: TableConfig) -> Placed:
        target = self.relay.name
        if not config.tournament and not self.tables.draining:
            try:
                target = await self.choose()
            except Exception as error:  # Redis does not answer: made here
                log.warning("placement: loads unknown (%s)", type(error).__name__)
        if target != self.relay.name:
            asked = config.model_dump(mode="json")
            try:
                placed = await self.relay.call(
                    self.relay.keys.out(target),
                    lambda reply: Place(reply, self.relay.name, host_id, asked),
                    self.timeout,
                )
                return Placed(str(placed["id"]), str(placed["code"]))
            except Exception as error:  # refused, no answer, Redis down: made here
                log.warning("placement: %s did not create the table (%s); made here",
                            target, type(error).__name__)  # fmt: skip
        table = await self.tables.create(host_id, config)
        await self._publish_quietly()
        return Placed(table.id, table.code)

    async def place(self, asked: Place) -> dict[str, Any]:
        """Asked by another process: create a table here."""
        if self.tables.draining:
            raise TableError("unavailable", "this process is stopping")
        config = TableConfig.model_validate(asked.config)
        table = await self.tables.create(asked.host, config)
        await self._publish_quietly()
        return {"id": table.id, "code": table.code}

    async def _publish_quietly(self) -> None:
        try:
            await self.publish()
        except Exception as error:
            log.warning("placement: load not published (%s)", type(error).__name__)
