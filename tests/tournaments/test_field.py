"""The field: look-alike names refused in one tournament as at one table (issue 27, item 8),
practice bots the host adds, a tournament's tables counted against the host's open tables
(item 7), and a start at a set time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Runtime
from app.tournaments.director import Director
from app.tournaments.settings import Settings
from app.tournaments.structure import Level, Schedule
from tests.tables.stores import MemoryTableStore

SETTINGS = Settings(name="field", schedule=Schedule((Level(1, 2, minutes=5),)),
                    starting_stack=1000, seats=2, decision_time=0.02, time_bank=0)  # fmt: skip


@pytest.fixture
async def registry() -> AsyncIterator[TableRegistry]:
    tables = TableRegistry(MemoryTableStore(), Runtime(between_hands=0, deal_unwatched=True))
    yield tables
    await tables.close()


async def running(director: Director) -> asyncio.Task[None]:
    return asyncio.create_task(director.run())


async def stop(director: Director, task: asyncio.Task[None]) -> None:
    director.stop()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_look_alike_names_are_refused_in_one_tournament(registry: TableRegistry) -> None:
    director = Director(SETTINGS, "host", registry)
    task = await running(director)
    await director.request("register", "alice", name="alice")
    for k, look_alike in enumerate(["Alice", "аlice", "al1ce", "ALİCE ", "a l i c e"]):
        with pytest.raises(TableError) as taken:
            await director.request("register", f"other{k}", name=look_alike)
        assert taken.value.code == "name_taken", look_alike
    assert [e.name for e in director.entries.values()] == ["alice"]
    await director.request("register", "alison", name="Alison")  # another name is fine
    await director.request("unregister", "alice")
    await director.request("register", "other0", name="Alice")  # the name is free again
    await stop(director, task)


async def test_the_host_adds_practice_bots(registry: TableRegistry) -> None:
    director = Director(SETTINGS, "host", registry)
    task = await running(director)
    await director.request("register", "bot2", name="Bot 2")  # a person may be called so
    with pytest.raises(TableError) as not_host:
        await director.request("add_bot", "bot2")
    assert not_host.value.code == "not_host"
    first = await director.request("add_bot", "host")
    second = await director.request("add_bot", "host")
    bots = [e for e in director.entries.values() if e.bot]
    assert [b.name for b in bots] == ["Bot 1", "Bot 3"]
    assert [b.player_id for b in bots] == [first["player_id"], second["player_id"]]
    await director.request("start", "host")
    seated = [registry.get(t).seat_of(b.player_id) for b in bots for t in director.tables]
    assert sum(1 for s in seated if s is not None and s.bot) == 2  # they play as bots
    await stop(director, task)


async def test_tournament_tables_count_against_the_hosts_open_tables(
    registry: TableRegistry,
) -> None:
    director = Director(SETTINGS, "host", registry, tables_per_host=3)
    task = await running(director)
    for k in range(7):  # four tables of two
        await director.request("register", f"p{k}", name=f"Player {k}")
    with pytest.raises(TableError) as refused:
        await director.request("start", "host")
    assert refused.value.code == "too_many_tables"
    assert director.status == "registering" and not director.tables
    await director.request("unregister", "p6")  # three tables: within the limit
    await director.request("start", "host")
    assert len(director.tables) == 3
    await stop(director, task)


async def test_a_start_at_a_set_time(registry: TableRegistry) -> None:
    now = [1000.0]
    settings = Settings(**{**vars(SETTINGS), "start_at": 1000.05})
    director = Director(settings, "host", registry, wall=lambda: now[0])
    task = await running(director)
    await director.request("register", "a", name="A")
    await director.request("register", "b", name="B")
    async with asyncio.timeout(10):
        while director.status != "running":
            await asyncio.sleep(0.01)
    assert len(director.tables) == 1
    await stop(director, task)
