"""The hot path's rows (app/store/rows.py), declared once, are written the same by both back
ends (app/store/group_sql.py): what a group commits reads back as the rows it was given, on
SQLite (Core statements) and on PostgreSQL (one statement, a JSON parameter per kind of
row); and every column of a seat is written by one of the store's writes."""

from __future__ import annotations

import uuid
from dataclasses import fields
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import select, text

from app.store.decks import seal, unseal
from app.store.group_sql import TABLES, CoreGroup, PgGroup, columns
from app.store.models import HandActionRow, HandPlayerRow, HandRow, LedgerEntry, SeatRow, TableRow
from app.store.rows import (
    ROW_SETS,
    SEAT_COLUMNS,
    SEAT_FLAGS,
    ActionInsert,
    ButtonUpdate,
    HandEnd,
    HandInsert,
    HandPlayerInsert,
    LedgerInsert,
    SeatUpdate,
    TableWrite,
)
from app.tables.config import TableConfig
from app.tables.seat import Seat
from tests.tables.stores import TestStore as SqlStore
from tests.tables.stores import sql_store

#: the seat columns written by writes of their own, not with the hot path's `SeatUpdate`
SEAT_COLUMNS_ELSEWHERE = {"pending_adjust_reason", "sit_out_next", "sit_out_next_bb",
                          "client_seed", "away_since", "auto_muck", "always_show"}  # fmt: skip


def test_every_row_field_is_a_column_of_its_table() -> None:
    for _, row in ROW_SETS:
        names = columns(row)  # (raises on a field its table does not have)
        assert set(names) | set(row.FENCED_BY) == {f.name for f in fields(row)}
        assert set(row.KEY) <= set(names)


def test_every_seat_column_is_written_and_read_back() -> None:
    written = set(columns(SeatUpdate)) | SEAT_COLUMNS_ELSEWHERE
    assert written == set(TABLES["seats"].c.keys())
    # read back by name: the flags as the seat's one state, the rest as its fields
    readable = set(Seat._fields) | {n for n in SEAT_FLAGS if isinstance(getattr(Seat, n), property)}
    assert set(SEAT_COLUMNS) <= readable


def _back_end(store: SqlStore) -> CoreGroup | PgGroup:
    if store.engine.dialect.driver == "asyncpg":
        url = store.engine.url.set(drivername="postgresql")
        return PgGroup(url.render_as_string(hide_password=False))
    return CoreGroup(store.engine)


async def _table(store: SqlStore, players: list[str]) -> uuid.UUID:
    table_id = await store.create_table(players[0], TableConfig(seats=3), uuid.uuid4().hex[:8])
    for n, player in enumerate(players):
        await store.seat_player(table_id, Seat(n, player, f"p{n}", 100), 100)
    return uuid.UUID(table_id)


def _seats(table: uuid.UUID, players: list[str], stack: int) -> list[SeatUpdate]:
    return [
        SeatUpdate(table, n, uuid.UUID(p), f"p{n}", stack + n, n == 1, False, n == 2, 12.5,
                   False, n == 0, False, 3, -2, n)
        for n, p in enumerate(players)
    ]  # fmt: skip


async def test_a_group_reads_back_as_its_rows(database_url: str) -> None:
    async with sql_store(database_url) as store:
        players = await store.make_players(3)
        tables = [await _table(store, players) for _ in range(2)]
        deck = list(range(52))
        record = {"setup": {"stacks": [100, 100, 100]}, "blind_seats": [1, 2], "names": ["é"]}
        hands = {t: uuid.uuid4() for t in tables}
        dealt = [
            TableWrite(
                t,
                None,
                hand=HandInsert(
                    hands[t], t, 1, record, seal(deck), None, None, "big-o", None, None
                ),
                players=[
                    HandPlayerInsert(hands[t], k, uuid.UUID(p)) for k, p in enumerate(players)
                ],
                button=ButtonUpdate(t, 2, 1),
                seats=_seats(t, players, 90),
            )
            for t in tables
        ]
        back_end = _back_end(store)
        try:
            assert await back_end.commit(dealt) == set()
            ended = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
            result = {"stacks": {"0": 150, "1": 60, "2": 90, "10": 0}}
            first, second = tables
            acted = [
                TableWrite(first, None, action=ActionInsert(hands[first], 0, 1, "raise", 7, None,
                                                            first),
                           end=HandEnd(hands[first], result, ended, 300, first),
                           seats=_seats(first, players, 40)),
                TableWrite(second, None, action=ActionInsert(hands[second], 0, 2, "fold", None,
                                                             True, second),
                           ledger=LedgerInsert(second, uuid.UUID(players[2]), "top_up", 25)),
            ]  # fmt: skip
            assert await back_end.commit(acted) == set()
        finally:
            back_end.close()
        async with store.sessions() as s:
            for t in tables:
                hand = await s.get_one(HandRow, hands[t])
                assert (hand.table_id, hand.number, hand.game) == (t, 1, "big-o")
                assert hand.record == record
                assert unseal(await _raw_deck(store, hands[t])) == deck == hand.deck
                table = await s.get_one(TableRow, t)
                assert (table.button, table.hand_number) == (2, 1)
                dealt_in = await s.scalars(select(HandPlayerRow).where(HandPlayerRow.hand_id ==
                                                                       hands[t]))  # fmt: skip
                rows = sorted((r.position, str(r.player_id), r.serial) for r in dealt_in)
                assert rows == [(k, p, hand.serial) for k, p in enumerate(players)]
            over = await s.get_one(HandRow, hands[first])
            assert over.result == result and over.pot == 300
            assert over.ended_at is not None and over.ended_at.replace(tzinfo=UTC) == ended
            assert (await s.get_one(HandRow, hands[second])).ended_at is None
            actions = {
                (a.hand_id, a.counter): (a.player, a.kind, a.amount, a.agree)
                for a in await s.scalars(select(HandActionRow))
            }
            assert actions == {(hands[first], 0): (1, "raise", 7, None),
                               (hands[second], 0): (2, "fold", None, True)}  # fmt: skip
            seats = {(r.table_id, r.number): r for r in await s.scalars(select(SeatRow))}
            for table_id, stack in ((first, 40), (second, 90)):
                for written in _seats(table_id, players, stack):
                    row = seats[table_id, written.number]
                    assert {n: getattr(row, n) for n in columns(SeatUpdate)} == vars(written)
            top_ups = await s.scalars(select(LedgerEntry).where(LedgerEntry.kind == "top_up"))
            assert [(e.table_id, e.amount) for e in top_ups] == [(second, 25)]


async def _raw_deck(store: SqlStore, hand_id: uuid.UUID) -> Any:
    """The deck column as stored (sealed once: the rows hold it sealed already)."""
    key = hand_id.hex if store.engine.dialect.name == "sqlite" else hand_id
    async with store.engine.connect() as c:
        raw = await c.scalar(text("SELECT deck FROM hands WHERE id = :id"), {"id": key})
    return orjson.loads(raw) if isinstance(raw, str | bytes) else raw


async def test_a_fenced_table_of_a_group_writes_nothing(database_url: str) -> None:
    """Each table of a group passes its own fence: the stale one is refused, the others
    are written."""
    async with sql_store(database_url) as store:
        players = await store.make_players(3)
        stale, fresh = [await _table(store, players) for _ in range(2)]
        epochs = {t: await store.take_table(str(t)) for t in (stale, fresh)}
        await store.take_table(str(stale))  # another process took it
        back_end = _back_end(store)
        try:
            writes = [
                TableWrite(t, epochs[t], ledger=LedgerInsert(t, uuid.UUID(players[0]), "top_up", 5),
                           seats=_seats(t, players, 77))
                for t in (stale, fresh)
            ]  # fmt: skip
            assert await back_end.commit(writes) == {stale}
        finally:
            back_end.close()
        assert await store.ledger_balance(str(stale)) == 300
        assert await store.ledger_balance(str(fresh)) == 305
        assert await store.stacks_total(str(stale)) == 300
        assert await store.stacks_total(str(fresh)) == 77 * 3 + 3
