"""What a restart of the table keeps (the real store, SQLite and PostgreSQL): time bank spent
in the middle of a hand, the away grace already run, and the dead button's blind seats."""

from __future__ import annotations

import asyncio
from typing import Any

from app.tables.config import TableConfig
from app.tables.table import Runtime, Table
from tests.tables.stores import dealt, running, sql_store

CLOCK = Runtime(between_hands=3600, clock_enabled=True, away_grace=3600, deal_unwatched=True)


async def until(predicate: Any, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_time_bank_spent_mid_hand_stays_spent_after_a_restart(database_url: str) -> None:
    """The bank was stored only with the hand's result: a restart in the middle of the hand
    gave back what the player had spent of it."""
    async with sql_store(database_url) as store:
        host, a, b = await store.make_players(3)
        config = TableConfig(seats=3, decision_time=30, time_bank=5)
        table_id = await store.create_table(host, config, "c")
        async with running(Table(await store.load_table(table_id), store, CLOCK)) as table:
            await table.request("pause", host)
            for i, pid in enumerate((host, a, b)):
                await table.request("sit", pid, seat=i, buy_in=100, name=f"p{i}")
            await table.request("resume", host)
            hand = await dealt(table)
            assert hand is not None and hand.state.actor is not None
            actor = hand.players[hand.state.actor]
            await table.request("more_time", actor)
            await asyncio.sleep(0.5)
            await table.request("act", actor, hand=hand.id, counter=0, action="call")
            assert not hand.state.complete  # three players: the hand goes on
            seat = table.seat_of(actor)
            assert seat is not None and seat.time_bank <= 4.5
        stored = await store.load_table(table_id)
        assert stored.hand is not None  # the table stopped in the middle of the hand
        kept = next(s for s in stored.seats if s.player_id == actor)
        assert kept.time_bank <= 4.5, kept.time_bank
        others = [s.time_bank for s in stored.seats if s.player_id != actor]
        assert others == [5.0, 5.0]
