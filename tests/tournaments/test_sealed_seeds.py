"""A tournament table's deal seed stays sealed until the tournament ends (issue 27, item 10):
the host cannot rotate (reveal) it, and a table broken mid-tournament closes with its seed
sealed: revealed, every deal checkable, only once the tournament is over."""

from __future__ import annotations

import asyncio

import pytest

from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Runtime
from app.tournaments import rounds as play
from app.tournaments.director import Director
from app.tournaments.settings import Settings
from app.tournaments.state import Tournament
from app.tournaments.structure import Level, Schedule
from tests.tables.stores import MemoryTableStore

SCHEDULE = Schedule(tuple(Level(sb, 2 * sb, minutes=0.3 / 60) for sb in (20, 50, 100, 200, 400)))


def seeds_of(store: MemoryTableStore, table_id: str) -> list[dict[str, object]]:
    return [s for s in store.seeds.values() if s["table"] == table_id]


async def test_a_broken_tables_seed_is_revealed_only_at_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryTableStore()
    registry = TableRegistry(store, Runtime(between_hands=0, bot_think=0, deal_unwatched=True))
    settings = Settings(name="sealed", schedule=SCHEDULE, starting_stack=500, seats=3,
                        time_bank=0)  # fmt: skip
    director = Director(settings, "host", registry, between_hands=0.0)
    task = asyncio.create_task(director.run())
    for k in range(5):
        await director.request("register", f"p{k}", name=f"Bot {k}", bot=True)
    tables = (await director.request("start", "host"))["tables"]
    assert len(tables) == 2
    # The host may not end (reveal) a tournament table's seed, between hands or not.
    with pytest.raises(TableError) as refused:
        await registry.get(tables[0]).request("rotate_seed", "host")
    assert refused.value.code == "tournament"
    sealed_at_break: list[bool] = []
    original = play.balance

    async def balance_and_check(t: Tournament) -> None:
        await original(t)
        for gone in director.broken:  # closed, its players playing on elsewhere
            seeds = seeds_of(store, gone)
            sealed_at_break.append(bool(seeds) and all(s["ended"] and not s["revealed"]
                                                       for s in seeds))  # fmt: skip

    monkeypatch.setattr(play, "balance", balance_and_check)
    await asyncio.wait_for(task, 120)
    await registry.close()
    assert director.status == "finished" and len(director.broken) == 1
    assert sealed_at_break and all(sealed_at_break)
    for table_id in tables:  # the end: every seed revealed
        seeds = seeds_of(store, table_id)
        assert seeds and all(s["ended"] and s["revealed"] for s in seeds), seeds
