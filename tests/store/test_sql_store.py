"""The SQL table store on both databases (SQLite through SQLAlchemy, PostgreSQL through
asyncpg's own `executemany`): what a played hand leaves in the rows is the same, and it is
what the table actor holds."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select, text

from app.poker import HandState, Phase
from app.store import group
from app.store.models import HandActionRow, HandRow, SeatRow, TableRow
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.hand import action_from_json, setup_from_json
from app.tables.seat import MISSED_BIG, MISSED_SMALL, Seat, SeatState
from app.tables.table import Table
from tests.tables.stores import FAST, dealt, running, sql_store


async def test_a_played_hand_is_stored_as_the_table_holds_it(database_url: str) -> None:
    async with sql_store(database_url) as store:
        host, a, b = await store.make_players(3)
        table_id = await store.create_table(host, TableConfig(seats=3, decision_time=0), "c")
        async with running(Table(await store.load_table(table_id), store, FAST)) as table:
            await table.request("pause", host)
            for number, (pid, buy_in) in enumerate(((host, 100), (a, 80), (b, 60))):
                await table.request("sit", pid, seat=number, buy_in=buy_in, name=f"p{number}")
            await table.request("resume", host)
            hand = await dealt(table)
            assert hand is not None
            # mid-hand: the hand row is open and the button moved with it
            stored = await store.load_table(table_id)
            assert stored.hand is not None and stored.hand.id == hand.id
            assert stored.button == table.button and stored.hand_number == 1
            # everyone calls or checks: the hand goes to showdown, where the server shows
            # the hands that must be shown and mucks the beaten ones (auto-muck)
            while hand.state.phase is Phase.BETTING:
                legal = hand.state.legal_actions()
                assert legal is not None
                action = "check" if legal.check else "call"
                await table.request(
                    "act", hand.players[legal.player], hand=hand.id, counter=hand.counter,
                    action=action,
                )  # fmt: skip
            await table.quiet()
            assert hand.state.complete
            async with store.sessions() as s:
                row = await s.get_one(HandRow, uuid.UUID(hand.id))
                actions = list(await s.scalars(
                    select(HandActionRow).where(HandActionRow.hand_id == row.id)
                    .order_by(HandActionRow.counter)
                ))  # fmt: skip
                seats = {r.number: r.stack for r in await s.scalars(
                    select(SeatRow).where(SeatRow.table_id == uuid.UUID(table_id))
                )}  # fmt: skip
                table_row = await s.get_one(TableRow, uuid.UUID(table_id))
            assert row.ended_at is not None and row.number == 1
            assert row.deck == list(hand.state.deck)
            assert row.record == hand.record()
            replay = HandState.replay(
                setup_from_json(row.record["setup"]), row.deck,
                [action_from_json({"player": x.player, "kind": x.kind, "amount": x.amount,
                                   "agree": x.agree}) for x in actions],
            )  # fmt: skip
            assert replay.fingerprint() == hand.state.fingerprint()
            assert [x.counter for x in actions] == list(range(hand.counter))
            on_table = {s.number: s.stack for s in table.seats if s is not None}
            assert seats == on_table
            assert row.result == {"stacks": {str(n): v for n, v in on_table.items()}}
            assert sum(seats.values()) == 240 == await store.balance(table_id)
            assert table_row.button == table.button and table_row.hand_number == 1
            assert (await store.load_table(table_id)).hand is None  # no hand left open


async def test_a_writer_whose_connection_dies_reconnects(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL drops the group writer's connection (a restart, a failover): the action
    in flight is refused and not applied, and the next attempt is stored on a new one."""
    monkeypatch.setattr(group, "WRITERS", 1)
    async with sql_store(postgres_url) as store:
        host, a = await store.make_players(2)
        table_id = await store.create_table(host, TableConfig(seats=2, decision_time=0), "c")
        async with running(Table(await store.load_table(table_id), store, FAST)) as table:
            await table.request("sit", host, seat=0, buy_in=100, name="h")
            await table.request("sit", a, seat=1, buy_in=100, name="a")
            hand = await dealt(table)
            assert hand is not None
            async with store.engine.connect() as c:
                killed = await c.scalar(text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                ))  # fmt: skip
            assert killed and killed >= 1  # the writer that stored the deal
            before = hand.state.fingerprint()
            legal = hand.state.legal_actions()
            assert legal is not None
            act = {"hand": hand.id, "action": "call"}
            # The writer learns of the dead connection either on its next use (the action is
            # refused and nothing changes; the retry goes through a new one) or, when the
            # server's goodbye was read first (a busy machine), before it: then it reconnects
            # at once. Either way the action is stored exactly once.
            try:
                await table.request("act", hand.players[legal.player], counter=0, **act)
            except TableError as refused:
                assert refused.code == "unavailable"
                assert hand.state.fingerprint() == before  # refused: nothing changed
                await table.request("act", hand.players[legal.player], counter=0, **act)
            assert hand.counter == 1
            async with store.sessions() as s:
                stored = list(await s.scalars(
                    select(HandActionRow.kind).where(HandActionRow.hand_id == uuid.UUID(hand.id))
                ))  # fmt: skip
            assert stored == ["call"]


async def test_missed_blinds_are_stored_with_the_seat(database_url: str) -> None:
    """A debt of missed blinds survives a restart: written with the seat, directly and
    through the group writer (a top-up), and read back with the table."""
    async with sql_store(database_url) as store:
        (host,) = await store.make_players(1)
        table_id = await store.create_table(host, TableConfig(seats=3), "c")
        seat = Seat(number=1, player_id=host, name="h", stack=100, state=SeatState.SITTING_OUT)
        await store.seat_player(table_id, seat, 100)
        seat = seat._replace(missed_blinds=MISSED_BIG)
        await store.update_seats(table_id, [seat])
        (loaded,) = (await store.load_table(table_id)).seats
        assert loaded.missed_blinds == MISSED_BIG and loaded.sitting_out
        seat = seat._replace(missed_blinds=MISSED_SMALL | MISSED_BIG, stack=110)
        await store.add_chips(table_id, seat, 10, "top_up")
        (loaded,) = (await store.load_table(table_id)).seats
        assert loaded.missed_blinds == MISSED_SMALL | MISSED_BIG and loaded.stack == 110
