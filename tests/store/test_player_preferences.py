"""A player's showdown preferences are the player's (migration 0017, app/store/preferences.py):
kept by player id, copied onto every seat they take at any table, and still theirs after a
restart (a second store on the database). SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from sqlalchemy import func, select

from app.store import preferences
from app.store.models import PlayerPreferencesRow
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.preferences import Preferences
from app.tables.table import Table
from tests.tables.harness import FAST
from tests.tables.stores import TestStore as SqlStore
from tests.tables.stores import sql_store


@asynccontextmanager
async def running(store: SqlStore, table_id: str) -> AsyncIterator[Table]:
    await store.take_table(table_id)
    table = Table(await store.load_table(table_id), store, FAST)
    task = asyncio.create_task(table.run())
    try:
        yield table
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_the_defaults_until_set_and_one_row_however_often_set(database_url: str) -> None:
    async with sql_store(database_url) as store:
        (player,) = await store.make_players(1)
        assert await preferences.preferences_of(store.sessions, player) == Preferences(True, False)
        await preferences.save(store.sessions, player, Preferences(False, False))
        await preferences.save(store.sessions, player, Preferences(False, True))  # an upsert
        assert await preferences.preferences_of(store.sessions, player) == Preferences(False, True)
        async with store.sessions() as s:
            rows = await s.scalar(select(func.count()).select_from(PlayerPreferencesRow))
        assert rows == 1


async def test_set_at_one_table_they_follow_the_player_to_another_and_a_restart(
    database_url: str,
) -> None:
    async with sql_store(database_url) as store:
        host, other = await store.make_players(2)
        first = await store.create_table(host, TableConfig(seats=2, decision_time=0), "a")
        second = await store.create_table(host, TableConfig(seats=2, decision_time=0), "b")
        async with running(store, first) as table:
            await table.request("sit", host, seat=0, buy_in=100, name="host")
            answer = await table.request("set_preference", host, auto_muck=False)
            assert answer == {"auto_muck": False, "always_show": False}
            assert (await table.request("leave", host))["status"] == "left"
        async with running(store, second) as table:
            await table.request("sit", host, seat=1, buy_in=100, name="host")
            await table.request("sit", other, seat=0, buy_in=100, name="other")
            mine, theirs = table.seat_of(host), table.seat_of(other)
            assert mine is not None and not mine.auto_muck  # the player's, not the seat's
            assert theirs is not None and theirs.auto_muck  # another player's defaults
    async with sql_store(database_url) as restarted:  # another process: only the database
        assert await restarted.preferences_of(host) == Preferences(False, False)
        seats = {s.player_id: s for s in (await restarted.load_table(second)).seats}
        assert not seats[host].auto_muck and seats[other].auto_muck


async def test_a_refused_write_changes_nothing(database_url: str) -> None:
    async with sql_store(database_url) as store:
        (host,) = await store.make_players(1)
        table_id = await store.create_table(host, TableConfig(seats=2, decision_time=0), "c")
        async with running(store, table_id) as table:
            await table.request("sit", host, seat=0, buy_in=100, name="host")
            # (a value not a boolean never reaches the table: app/api/messages.py refuses it)
            stranger = str(uuid.uuid4())
            with pytest.raises(TableError):  # not seated here: nothing stored for anyone
                await table.request("set_preference", stranger, auto_muck=False)
            seat = table.seat_of(host)
            assert seat is not None and seat.auto_muck
        assert await store.preferences_of(host) == Preferences()
        assert await store.preferences_of(stranger) == Preferences()
