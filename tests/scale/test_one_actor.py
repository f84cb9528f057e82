"""One actor per table, by construction (app/tables/registry.py), in one event loop with
leases whose answers the test holds back, so each interleaving is chosen, not hoped for:

- a sweep whose look at the leases was answered before a WebSocket's `find` loaded the table
  (after a Redis restart every lease lapses at once) does not launch it a second time;
- concurrent finds share one load; a second actor beside a running one is refused;
- for a renewal interval after Redis restarted, an absent lease is not taken, by a sweep or
  a find (its owner takes it back first); then it is; a released one is taken at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Table
from tests.tables.harness import FAST
from tests.tables.stores import MemoryTableStore


class HeldLeases:
    """Shared leases in memory. With `hold` set, the next look at the holders answers what it
    saw when asked, but only once the test lets it (`gate`), as Redis's answer can arrive
    after the world moved on."""

    shared = True
    name = "me@1"

    def __init__(self) -> None:
        self.held: dict[str, str] = {}
        self.run = "first"  # Redis's run: another after a restart
        self.hold = False
        self.gate = asyncio.Event()
        self.asked = asyncio.Event()

    async def take(self, table_id: str) -> bool:
        if self.held.get(table_id) not in (None, "", self.name):
            return False
        self.held[table_id] = self.name
        return True

    async def renew(self, table_ids: list[str]) -> set[str]:
        return {t for t in table_ids if self.held.get(t) in (None, self.name)}

    async def release(self, table_id: str) -> None:
        if self.held.get(table_id) == self.name:
            self.held[table_id] = ""

    async def owners(self, table_ids: list[str]) -> dict[str, str | None]:
        return {t: v or None for t, v in (await self.holders(table_ids)).items()}

    async def holders(self, table_ids: list[str]) -> dict[str, str | None]:
        seen = {t: self.held.get(t) for t in table_ids}
        if self.hold:
            self.hold = False
            self.asked.set()
            async with asyncio.timeout(5):  # never a hang: the test fails instead
                await self.gate.wait()
        return seen

    async def generation(self) -> str:
        return self.run

    async def close(self) -> None:
        return None

    def of(self, kind: str) -> HeldLeases:
        return self


class CountingStore(MemoryTableStore):
    def __init__(self) -> None:
        super().__init__()
        self.loads = 0

    async def load_table(self, table_id: str):  # type: ignore[no-untyped-def]
        self.loads += 1
        await asyncio.sleep(0)  # a load takes a moment: others may ask meanwhile
        return await super().load_table(table_id)


@asynccontextmanager
async def registry() -> AsyncIterator[tuple[TableRegistry, HeldLeases, CountingStore, str]]:
    """A registry, its leases and store, and a stored open table it does not run yet."""
    store, leases = CountingStore(), HeldLeases()
    await store.create_table("host", TableConfig(seats=2), "code", "t1")
    tables = TableRegistry(store, FAST, ownership=leases, lease=10, renew=2)
    try:
        yield tables, leases, store, "t1"
    finally:
        await tables.close()


async def test_a_sweep_answered_before_a_find_loaded_the_table_does_not_launch_it_again() -> None:
    async with registry() as (tables, leases, store, table_id):
        await settled(tables)  # Redis has run on for a while: an absent lease has lapsed
        leases.hold = True
        sweep = asyncio.create_task(tables.keeper.sweep())
        async with asyncio.timeout(5):
            await leases.asked.wait()  # the sweep saw the lease absent; its answer is coming
        found = await tables.find(table_id)  # a WebSocket's find loads the table meanwhile
        leases.gate.set()
        await sweep
        assert tables.tables[table_id] is found and store.loads == 1
        assert list(tables.tasks) == [table_id] and not tables.tasks[table_id].done()


async def test_concurrent_finds_share_one_load_and_a_second_actor_is_refused() -> None:
    async with registry() as (tables, leases, store, table_id):
        leases.held[table_id] = ""  # released by the process that ran it
        first, second = await asyncio.gather(tables.find(table_id), tables.find(table_id))
        assert first is second and store.loads == 1
        assert await tables.adopt(table_id) is first  # a director's adoption too
        with pytest.raises(RuntimeError):
            tables._start(table_id, await store.load_table(table_id))
        assert tables.tables[table_id] is first


async def settled(tables: TableRegistry) -> None:
    """As if Redis had run on for a renewal interval since the keeper first saw it."""
    await tables.keeper.look()
    tables.keeper.settled -= tables.renew


async def test_after_a_redis_restart_an_absent_lease_waits_a_renewal_a_released_one_not() -> None:
    async with registry() as (tables, leases, _, table_id):
        await settled(tables)
        leases.run = "second"  # Redis restarted: every lease is absent, their owners alive
        await tables.keeper.sweep()
        assert table_id not in tables.tables  # its owner takes it back first
        with pytest.raises(TableError):  # nor does a WebSocket's find take it yet
            await tables.find(table_id)
        tables.keeper.settled -= tables.renew  # a renewal interval later: it has lapsed
        await tables.keeper.sweep()
        assert isinstance(tables.tables.get(table_id), Table)
        await tables.store.create_table("host", TableConfig(seats=2), "code2", "t2")
        leases.held["t2"] = ""  # released by a process handing it over
        await tables.keeper.sweep()
        assert isinstance(tables.tables.get("t2"), Table)
