"""Tournaments on the real databases: a sit-and-go played through the SQL stores, and what
the tournament store keeps of it."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from app.store.tournaments import SqlTournamentStore
from app.tables.registry import TableRegistry
from app.tables.store_protocol import OwnershipLost
from app.tables.table import Runtime
from app.tournaments.director import Director
from app.tournaments.entry import Entry
from app.tournaments.settings import Settings
from app.tournaments.store import StoredTournament
from app.tournaments.structure import Level, Schedule
from tests.tables.stores import sql_store


async def test_a_sit_and_go_is_stored_with_its_places_and_prizes(database_url: str) -> None:
    async with sql_store(database_url) as tables_store:
        [host] = await tables_store.make_players(1)
        store = SqlTournamentStore(tables_store.sessions)
        registry = TableRegistry(tables_store, Runtime(between_hands=0, bot_think=0,
                                                       deal_unwatched=True))  # fmt: skip
        schedule = Schedule(tuple(Level(sb, 2 * sb, minutes=0.2 / 60)
                                  for sb in (10, 50, 200, 800, 3200)))  # fmt: skip
        settings = Settings(name="db", schedule=schedule, starting_stack=1000, seats=6,
                            payouts=(7_000, 3_000), prize_pool=101)  # fmt: skip
        director = Director(settings, host, registry, between_hands=0.0, store=store)
        task = asyncio.create_task(director.run())
        bots = [f"00000000-0000-4000-8000-00000000000{k}" for k in range(4)]
        for k, pid in enumerate(bots):
            await director.request("register", pid, name=f"Bot {k}", bot=True)
        assert (await store.load(director.id)).entries[0].name == "Bot 0"
        [table_id] = (await director.request("start", host))["tables"]
        assert await store.find(director.code) == director.id
        assert director.id in await store.unfinished()
        await asyncio.wait_for(task, 120)
        await registry.close()
        stored = await store.load(director.id)
        assert stored.status == "finished" and stored.tables == [table_id]
        assert director.id not in await store.unfinished()
        places = {e.player_id: (e.place, e.prize) for e in stored.entries}
        assert places == {p: (e.place, e.prize) for p, e in director.entries.items()}
        assert sorted(p for p, _ in places.values() if p is not None)[0] == 1
        assert sum(prize for _, prize in places.values()) == 101
        assert await tables_store.balance(table_id) == 0  # every chip went back out


async def test_a_stale_director_writes_nothing(database_url: str) -> None:
    """Two processes' stores of one tournament: once the second took it (its epoch), every
    write of the first is refused (`OwnershipLost`) and nothing of it is stored."""
    async with sql_store(database_url) as tables_store:
        [host] = await tables_store.make_players(1)
        old = SqlTournamentStore(tables_store.sessions, fenced=True)
        new = SqlTournamentStore(tables_store.sessions, fenced=True)
        tid = str(uuid.uuid4())
        await old.create(StoredTournament(tid, "code-fence", host, {}))
        with pytest.raises(OwnershipLost):  # not taken: a fenced store writes nothing
            await old.save_state(tid, "running", 1.0, [])
        assert await old.take(tid) == 1
        await old.add_entry(tid, Entry(host, "first"))
        assert await new.take(tid) == 2
        with pytest.raises(OwnershipLost):
            await old.save_state(tid, "running", 5.0, ["t"])
        with pytest.raises(OwnershipLost):
            await old.add_entry(tid, Entry(str(uuid.uuid4()), "late"))
        with pytest.raises(OwnershipLost):
            await old.save_places(tid, [Entry(host, "first", place=1)])
        await new.save_state(tid, "running", 2.0, [])
        stored = await new.load(tid)
        assert (stored.status, stored.elapsed, stored.tables) == ("running", 2.0, [])
        assert [(e.name, e.place) for e in stored.entries] == [("first", None)]
