"""The fencing epoch (migration 0009): every write of a table carries the epoch its process
took the table with, and the database refuses it once another process took the table. Two
stores on one database stand for two processes (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest
from sqlalchemy import func, select

from app.store.models import HandActionRow, LedgerEntry
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.store_protocol import OwnershipLost
from app.tables.table import Table
from tests.tables.harness import FAST
from tests.tables.stores import TestStore as SqlStore
from tests.tables.stores import sql_store
from tests.waits import within


@asynccontextmanager
async def two_processes(url: str) -> AsyncIterator[tuple[SqlStore, SqlStore]]:
    async with sql_store(url) as first, sql_store(url) as second:
        first.fenced = second.fenced = True
        yield first, second


async def actions_stored(store: SqlStore, hand_id: str) -> int:
    async with store.sessions() as s:
        count = await s.scalar(
            select(func.count())
            .select_from(HandActionRow)
            .where(HandActionRow.hand_id == uuid.UUID(hand_id))
        )
    return int(count or 0)


async def ledger_kinds(store: SqlStore, table_id: str) -> list[str]:
    async with store.sessions() as s:
        rows = await s.scalars(
            select(LedgerEntry.kind).where(LedgerEntry.table_id == uuid.UUID(table_id))
        )
        return sorted(rows)


async def blocked_by(connection: asyncpg.Connection) -> set[int]:
    """The backends waiting, directly or in a queue behind one that is, on `connection`'s.
    (From `pg_locks`, read anew each time: `pg_stat_activity` is read once per transaction,
    and the asking connection is in one.)"""
    rows = await connection.fetch(
        "SELECT DISTINCT pid, pg_blocking_pids(pid) AS by FROM pg_locks WHERE NOT granted"
    )
    waiting: set[int] = set()
    holders = {connection.get_server_pid()}
    while True:
        more = {r["pid"] for r in rows if holders & set(r["by"])} - waiting
        if not more:
            return waiting
        waiting |= more
        holders |= more


async def test_a_stale_owner_is_refused_and_its_table_stops(database_url: str) -> None:
    async with two_processes(database_url) as (first, second):
        host, guest = await first.make_players(2)
        table_id = await first.create_table(host, TableConfig(seats=2, decision_time=0), "c")
        # Created is taken: the creator writes with epoch 1 without a take of its own.
        assert first.epochs[table_id] == 1
        table = Table(await first.load_table(table_id), first, FAST)
        task = asyncio.create_task(table.run())
        await table.request("sit", host, seat=0, buy_in=100, name="host")
        await table.request("sit", guest, seat=1, buy_in=100, name="guest")
        await within(lambda: table.hand is not None and table.hand.state.actor is not None)
        hand = table.hand
        assert hand is not None
        pid = hand.players[hand.state.actor or 0]
        await table.request("act", pid, hand=hand.id, counter=0, action="call")
        assert await actions_stored(first, hand.id) == 1

        # Another process takes the table (it froze, its lease lapsed): the epoch moves on.
        assert await second.take_table(table_id) == 2
        actor = hand.players[hand.state.actor or 0]
        with pytest.raises(TableError) as refused:
            await table.request("act", actor, hand=hand.id, counter=1, action="check")
        assert refused.value.code == "unavailable"  # never `ok`
        with pytest.raises(OwnershipLost):  # the table stopped itself
            await asyncio.wait_for(task, 5)
        assert await actions_stored(first, hand.id) == 1  # nothing of the stale owner's

        # Every other kind of write of the stale owner is refused too, and changes nothing.
        seat = table.seats[0]
        assert seat is not None
        for write in (
            first.add_chips(table_id, seat, 10, "top_up"),  # the group writer
            first.update_seats(table_id, [seat]),
            first.save_switches(table_id, seat),
            first.add_chat(table_id, host, "host", 0, "hello"),
            first.set_bomb_pot_next(table_id, True),
            first.set_away(table_id, 0, 1.0),
            first.cash_out(table_id, seat),
        ):
            with pytest.raises(OwnershipLost):
                await write
        assert await ledger_kinds(first, table_id) == ["buy_in", "buy_in"]

        # The new owner continues the hand at the same counter.
        again = Table(await second.load_table(table_id), second, FAST)
        assert again.hand is not None and again.hand.counter == 1
        task = asyncio.create_task(again.run())
        await again.request("act", actor, hand=hand.id, counter=1, action="check")
        assert await actions_stored(second, hand.id) == 2
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_a_refused_table_does_not_refuse_the_others_in_its_group(database_url: str) -> None:
    async with two_processes(database_url) as (first, second):
        host, _guest = await first.make_players(2)
        config = TableConfig(seats=2, decision_time=0)
        stale = await first.create_table(host, config, "a")
        kept = await first.create_table(host, config, "b")
        for table_id in (stale, kept):
            await first.take_table(table_id)
            table = Table(await first.load_table(table_id), first, FAST)
            task = asyncio.create_task(table.run())
            await table.request("pause", host)
            await table.request("sit", host, seat=0, buy_in=100, name="host")
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        seats = {t: (await first.load_table(t)).seats[0] for t in (stale, kept)}
        await second.take_table(stale)
        results = await asyncio.gather(
            *(first.add_chips(t, seats[t], 10, "top_up") for t in (stale, kept)),
            return_exceptions=True,
        )
        assert isinstance(results[0], OwnershipLost) and results[1] is None
        assert await ledger_kinds(first, stale) == ["buy_in"]
        assert await ledger_kinds(first, kept) == ["buy_in", "top_up"]


async def test_a_write_under_way_when_the_table_is_taken_is_refused_or_first(
    postgres_url: str,
) -> None:
    """The race itself, on PostgreSQL: a taker's bump waits for a write that locked the row
    first; a write that comes while the bump is uncommitted waits for it, then is refused."""
    async with two_processes(postgres_url) as (first, _):
        host, _guest = await first.make_players(2)
        table_id = await first.create_table(host, TableConfig(seats=2), "c")
        await first.take_table(table_id)
        table = Table(await first.load_table(table_id), first, FAST)
        task = asyncio.create_task(table.run())
        await table.request("pause", host)
        await table.request("sit", host, seat=0, buy_in=100, name="host")
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        seat = (await first.load_table(table_id)).seats[0]

        taker = await asyncpg.connect("postgresql://" + postgres_url.split("://", 1)[1])
        try:
            transaction = taker.transaction()
            await transaction.start()
            await taker.execute(
                "UPDATE tables SET owner_epoch = owner_epoch + 1 WHERE id = $1",
                uuid.UUID(table_id),
            )
            writes = [
                asyncio.ensure_future(first.add_chips(table_id, seat, 10, "top_up")),
                asyncio.ensure_future(first.update_seats(table_id, [seat])),
            ]

            async def both_wait() -> bool:  # (or one is over already: the test fails below)
                return any(w.done() for w in writes) or len(await blocked_by(taker)) == 2

            await within(both_wait, what="both writes waiting in PostgreSQL on the taker")
            assert not any(w.done() for w in writes)  # both wait for the taker's row lock
            await transaction.commit()
            for write in writes:
                with pytest.raises(OwnershipLost):
                    await asyncio.wait_for(write, 5)
        finally:
            await taker.close()
        assert await ledger_kinds(first, table_id) == ["buy_in"]
