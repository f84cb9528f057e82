"""A deterministic simulation of one process's registry (app/tables/registry.py and its
`LeaseKeeper`): one event loop, leases and a store in memory whose every call yields a
seeded number of times (so the seed alone decides how finds, sweeps, renewals, drops and the
other processes' moves interleave), and a world that changes leases under it: another
process takes a table, releases it, or Redis loses it. After every step of every seed, no
table has two actors running here."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.store_protocol import StoredTable
from tests.tables.harness import FAST
from tests.tables.stores import MemoryTableStore

SEEDS = 60
TABLES = ("t1", "t2", "t3")
ME = "me@1"


async def pause(rng: random.Random) -> None:
    for _ in range(rng.randrange(4)):
        await asyncio.sleep(0)


class World:
    """The leases as Redis holds them, changed by this process and by the others."""

    shared = True
    name = ME

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.held: dict[str, str] = {}
        self.restarts = 0

    async def take(self, table_id: str) -> bool:
        await pause(self.rng)
        if self.held.get(table_id) not in (None, "", ME):
            return False
        self.held[table_id] = ME
        return True

    async def renew(self, table_ids: list[str]) -> set[str]:
        await pause(self.rng)
        kept = set()
        for t in table_ids:
            if self.held.get(t) in (None, ME):
                self.held[t] = ME
                kept.add(t)
        return kept

    async def release(self, table_id: str) -> None:
        await pause(self.rng)
        if self.held.get(table_id) == ME:
            self.held[table_id] = ""

    async def owners(self, table_ids: list[str]) -> dict[str, str | None]:
        return {t: v or None for t, v in (await self.holders(table_ids)).items()}

    async def holders(self, table_ids: list[str]) -> dict[str, str | None]:
        seen = {t: self.held.get(t) for t in table_ids}
        for _ in range(self.rng.choice([0, 1, 20])):  # the answer may come much later,
            await asyncio.sleep(0)  # after the world moved on
        return seen

    async def generation(self) -> str:
        return str(self.restarts)

    async def close(self) -> None:
        return None

    def of(self, kind: str) -> World:
        return self

    def move(self) -> None:
        """Another process takes a table, releases it, or its lease lapses; or Redis
        restarts and every lease is gone."""
        if self.rng.random() < 0.1:
            self.held.clear()
            self.restarts += 1
            return
        table_id = self.rng.choice(TABLES)
        self.held[table_id] = self.rng.choice(["other@2", "", None])  # type: ignore[assignment]
        if self.held[table_id] is None:
            del self.held[table_id]


class SlowStore(MemoryTableStore):
    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    async def take_table(self, table_id: str) -> int:
        await pause(self.rng)
        return await super().take_table(table_id)

    async def load_table(self, table_id: str) -> StoredTable:
        await pause(self.rng)
        return await super().load_table(table_id)


def actors() -> Counter[str]:
    """Running actors per table: tasks named for it, not done and not asked to stop."""
    running: Counter[str] = Counter()
    for task in asyncio.all_tasks():
        name = task.get_name()
        if name.startswith("table-") and not task.done() and not task.cancelling():
            running[name] += 1
    return running


async def simulate(seed: int) -> int:
    rng = random.Random(seed)
    store, world = SlowStore(rng), World(rng)
    for table_id in TABLES:
        await store.create_table("host", TableConfig(seats=2), f"code-{table_id}", table_id)
    tables = TableRegistry(store, FAST, ownership=world, lease=10, renew=2)
    worst = 0

    async def step() -> None:
        what = rng.randrange(6)
        table_id = rng.choice(TABLES)
        try:
            if what == 0:
                await tables.find(table_id)
            elif what == 1:
                tables.keeper.settled -= rng.choice([0, 5])  # time passes, or does not
                await tables.keeper.sweep()
            elif what == 2:
                await tables.keeper.renew()
            elif what == 3:
                tables.lost(table_id)
            elif what == 4:
                world.move()
            else:
                await tables.adopt(table_id)
        except TableError:
            pass

    try:
        for _ in range(12):
            steps = [asyncio.create_task(step()) for _ in range(rng.randrange(1, 5))]
            while not all(s.done() for s in steps):
                worst = max(worst, max(actors().values(), default=0))
                await asyncio.sleep(0)
            for s in steps:
                s.result()
            worst = max(worst, max(actors().values(), default=0))
    finally:
        await tables.close()
    return worst


async def test_no_seed_ever_runs_two_actors_for_one_table() -> None:
    worst = {seed: await simulate(seed) for seed in range(SEEDS)}
    assert max(worst.values()) == 1, {s: w for s, w in worst.items() if w > 1}
