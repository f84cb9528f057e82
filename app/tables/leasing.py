"""A registry's leases, with several processes (`Ownership.shared`): renewed every `renew`
seconds (a table whose lease is another's now is dropped), and swept for open tables nobody
holds: a released lease is taken at once, and so is a lapsed one (its owner died or froze),
but for a renewal interval after Redis restarted (every lease is absent then: their owners
take them back first) or this process started.

While Redis does not answer, the tables keep running: another process that took one meanwhile
bumped its fencing epoch, so this one's next write of it is refused and it drops the table
(`OwnershipLost`), and its relay applies nothing from Redis until a renewal succeeds again
(`fresh`). Dropping every table once the leases could not be renewed for a lease made a
Redis freeze of a few seconds reload every table of every process."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any, Protocol

from app.scale.lease import Ownership
from app.tables.errors import TableError
from app.tables.runtime import Runtime
from app.tables.store_protocol import TableStore

log = logging.getLogger("omaha.tables")


class Leased(Protocol):
    """What the keeper reads and calls of its registry (`app.tables.registry.TableRegistry`;
    a protocol, so that the registry imports the keeper and not the other way round)."""

    ownership: Ownership
    lease: float
    renew: float
    closing: bool
    draining: bool
    runtime: Runtime
    store: TableStore

    @property
    def tables(self) -> Mapping[str, Any]: ...
    @property
    def loading(self) -> Collection[str]: ...
    def drop(self, table_id: str) -> None: ...
    async def load(self, table_id: str) -> Any: ...
    async def own_kind(self, table_ids: list[str]) -> list[str]: ...


class LeaseKeeper:
    def __init__(self, registry: Leased) -> None:
        self.registry = registry
        #: when the leases were last renewed (loop time): past the lease, they may be others'
        self.renewed: float | None = None
        #: Redis's run as last seen (`Ownership.generation`), and since when (loop time)
        self.generation: str | None = None
        self.settled = 0.0

    def fresh(self) -> bool:
        """Are this process's leases known to be its own (renewed within a lease)? A process
        that was frozen past its lease applies nothing of its tables until it knows."""
        registry = self.registry
        if not registry.ownership.shared or self.renewed is None:
            return True
        return asyncio.get_running_loop().time() - self.renewed <= registry.lease

    async def look(self) -> None:
        """Note which run of Redis holds the leases: a new one (it restarted and lost them
        all) leaves their owners a renewal interval to take them back."""
        generation = await self.registry.ownership.generation()
        if generation != self.generation:
            self.generation, self.settled = generation, asyncio.get_running_loop().time()

    def vacant(self, holder: str | None) -> bool:
        """May this process take a table whose lease holder is `holder`? Released (''), or
        absent (None) while Redis has run on for a renewal interval since `look` saw it."""
        if holder is None:
            return asyncio.get_running_loop().time() - self.settled >= self.registry.renew
        return holder == ""

    async def run(self) -> None:
        """Every `renew` seconds: renew this process's leases; and, apart (a sweep that loads
        tables from a slow database must not hold the renewals back past the lease), take
        the tables nobody holds."""
        self.renewed = asyncio.get_running_loop().time()
        await asyncio.gather(self._every(self.renew), self._every(self.sweep))

    async def _every(self, step: Callable[[], Awaitable[None]]) -> None:
        registry = self.registry
        while not registry.closing:
            await asyncio.sleep(registry.renew)
            try:
                await step()
            except Exception as error:  # Redis or the database is down: the next round
                log.warning("lease keeping failed (%s)", type(error).__name__)

    async def renew(self) -> None:
        registry, loop = self.registry, asyncio.get_running_loop()
        owned = list(registry.tables)
        kept = await registry.ownership.renew(owned)
        self.renewed = loop.time()
        for table_id in owned:
            if table_id not in kept and table_id in registry.tables:
                log.warning("table %s: its lease is another process's; dropped here", table_id)
                registry.drop(table_id)

    async def sweep(self) -> None:
        """Take the open tables nobody holds a lease on (`vacant`)."""
        registry = self.registry
        if registry.draining:
            return
        async with asyncio.timeout(registry.runtime.store_timeout):
            open_ids = await registry.own_kind(await registry.store.open_tables())
        others = [t for t in open_ids if t not in registry.tables and t not in registry.loading]
        await self.look()
        holders = await registry.ownership.holders(others)
        for table_id, holder in holders.items():
            if registry.closing or registry.draining:
                return
            if self.vacant(holder):
                try:
                    await registry.load(table_id)
                except TableError:
                    continue
                log.info("table %s: nobody held its lease; taken by this process", table_id)
