"""The hands a player watched (`watched`, migration 0018: app/store/watching.py), on SQLite and
PostgreSQL: a table run on the SQL store keeps a spectator's visits as hands start, "My
hands" (app/store/review.py) lists the hands of those visits and no other, and the visits
are idempotent, only move on, and are bounded per player and table."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import event, text, update

from app.store import watching
from app.store.history import HistoryStore
from app.store.models import HandRow
from app.store.review import HandFilter, ReviewStore
from app.tables.config import TableConfig
from app.tables.table import Table
from tests.tables.harness import FAST, Recorder
from tests.tables.stores import running, sql_store
from tests.tables.test_watching import deal, finish
from tests.waits import within


async def test_a_spectator_s_hands_are_kept_and_listed_as_watched(database_url: str) -> None:
    async with sql_store(database_url) as store:
        host, a, b, sam = await store.make_players(4)
        table_id = await store.create_table(host, TableConfig(seats=3, decision_time=0), "w")
        await store.take_table(table_id)
        table = Table(await store.load_table(table_id), store, FAST)
        async with running(table):
            await table.request("pause", host)
            await table.request("sit", a, seat=0, buy_in=100, name="a")
            await table.request("sit", b, seat=1, buy_in=100, name="b")
            watcher = Recorder(sam)
            await table.request("attach", sam, viewer=watcher)
            numbers = []
            for _ in range(2):
                numbers.append(await deal(table, host))
                await finish(table)
            await table.request("detach", sam, viewer=watcher)
            away = await deal(table, host)  # nobody watched this one
            await finish(table)
            back = await deal(table, host)
            await table.request("attach", sam, viewer=Recorder(sam))  # during the hand
            await finish(table)
            await within(lambda: not table.in_flight, what="the notes stored")
        one, two = numbers
        assert await watching.visits_of(store.sessions, sam, table_id) == [(one, two), (back, back)]
        for dealt in (a, b, host):  # dealt in, or the host: never noted
            assert await watching.visits_of(store.sessions, dealt, table_id) == []

        # "My hands": the watched hands, newest first, and not the one they missed.
        review = ReviewStore(store.sessions)
        history = HistoryStore(store.sessions)
        serials = {}
        for n in (one, two, away, back):
            serial = await history.serial_at(table_id, n)
            assert serial is not None
            serials[n] = serial
        listed = await review.my_hands(sam, HandFilter(), None, 50)
        assert [r["serial"] for r in listed] == [serials[back], serials[two], serials[one]]
        assert all(r["watched"] and r["net"] is None and r["position"] is None for r in listed)
        # Paged by the cursor, and narrowed like any hand (by number at the table, by table).
        older = await review.my_hands(sam, HandFilter(), serials[back], 1)
        assert [r["serial"] for r in older] == [serials[two]]
        by_number = await review.my_hands(sam, HandFilter(number=two), None, 50)
        assert [r["serial"] for r in by_number] == [serials[two]]
        assert await review.my_hands(sam, HandFilter(table_id=str(uuid.uuid4())), None, 50) == []
        # A filter on what the viewer did matches no hand they only watched.
        assert await review.my_hands(sam, HandFilter(result="won"), None, 50) == []
        # A hand still in play is not listed (it is not over).
        async with store.sessions.begin() as s:
            await s.execute(
                update(HandRow).where(HandRow.serial == serials[back]).values(ended_at=None)
            )
        listed = await review.my_hands(sam, HandFilter(), None, 50)
        assert [r["serial"] for r in listed] == [serials[two], serials[one]]


async def test_visits_only_move_on_and_are_bounded(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with sql_store(database_url) as store:
        host, sam, other = await store.make_players(3)
        table_id = await store.create_table(host, TableConfig(seats=3), "v")
        second = await store.create_table(host, TableConfig(seats=3), "x")

        async def visits() -> list[tuple[int, int]]:
            return await watching.visits_of(store.sessions, sam, table_id)

        # The same note twice, and notes out of order: a visit's last hand never goes back.
        for last in (5, 5, 7, 6):
            await store.note_watching(table_id, [(sam, 5, last)])
        assert await visits() == [(5, 7)]
        await store.note_watching(table_id, [(sam, 9, 9), (other, 2, 3)])
        await store.note_watching(second, [(sam, 1, 1)])
        assert await visits() == [(5, 7), (9, 9)]
        assert await watching.visits_of(store.sessions, other, table_id) == [(2, 3)]
        assert await watching.visits_of(store.sessions, sam, second) == [(1, 1)]
        # At the bound, a new visit is not another row: the player's last visit takes it in.
        monkeypatch.setattr(watching, "VISITS", 3)
        await store.note_watching(table_id, [(sam, 12, 12)])
        await store.note_watching(table_id, [(sam, 15, 16)])
        assert await visits() == [(5, 7), (9, 9), (12, 16)]
        await store.note_watching(table_id, [(sam, 20, 20)])  # the last visit grows
        assert await visits() == [(5, 7), (9, 9), (12, 20)]
        # Others' visits are counted apart.
        await store.note_watching(table_id, [(other, 8, 8)])
        assert await watching.visits_of(store.sessions, other, table_id) == [(2, 3), (8, 8)]


async def test_a_note_on_postgresql_does_not_wait_for_its_flush(database_url: str) -> None:
    """Who watched is no part of a table's state: on PostgreSQL the note's own transaction
    commits without waiting for the disk (a write per hand on every table was as many fsyncs
    as the group writer's), and the setting ends with it: the next transaction of the same
    pooled connection waits for its flush again."""
    async with sql_store(database_url) as store:
        host, sam = await store.make_players(2)
        table_id = await store.create_table(host, TableConfig(seats=3), "n")
        said: list[str] = []
        engine = store.sessions.kw["bind"].sync_engine

        def heard(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
            said.append(statement)

        event.listen(engine, "before_cursor_execute", heard)
        try:
            await store.note_watching(table_id, [(sam, 1, 1)])
        finally:
            event.remove(engine, "before_cursor_execute", heard)
        postgres = engine.dialect.name == "postgresql"
        assert ("SET LOCAL synchronous_commit TO OFF" in said) == postgres
        assert await watching.visits_of(store.sessions, sam, table_id) == [(1, 1)]
        if postgres:
            async with store.sessions() as s:
                assert (await s.execute(text("SHOW synchronous_commit"))).scalar() == "on"
