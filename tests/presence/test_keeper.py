"""The keeper (app/presence/keeper.py): one refresh per period for all of a process's
connections, a connection's own writes (first, seat change, disconnect) at once.

The keeper's sleep is the test's (`Ticks`): a period passes when the test says so, and the
test goes on once the keeper is asleep again (its refresh done). Nothing here waits for time.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest
import redis.asyncio

from app.presence import InProcessPresence, RedisPresence
from app.presence.base import Presence
from app.presence.keeper import Flag, Keeper, keep_online
from tests.waits import until

#: a safety bound on a wait that the test's own steps end, never a measure
BOUND = 30.0


class Ticks:
    """The keeper's `sleep`, ended by `tick`."""

    def __init__(self) -> None:
        self._go: asyncio.Queue[None] = asyncio.Queue()
        self._slept: asyncio.Queue[float] = asyncio.Queue()

    async def sleep(self, seconds: float) -> None:
        self._slept.put_nowait(seconds)
        await self._go.get()

    async def asleep(self) -> float:
        """Wait until the keeper sleeps (started, or done with a refresh): how long it asks."""
        return await asyncio.wait_for(self._slept.get(), BOUND)

    async def tick(self) -> None:
        """A period passes: the keeper refreshes, and sleeps again."""
        self._go.put_nowait(None)
        await self.asleep()


class Counting:
    """An in-process presence that counts the calls made to it, and can fail or hold them."""

    def __init__(self, ttl: float = 30.0) -> None:
        self.inner = InProcessPresence(ttl=ttl)
        self.ttl = ttl
        self.calls: list[tuple[str, Any]] = []
        self.failing = False
        self.held: asyncio.Event | None = None  # set: connect_many answers

    def named(self, name: str) -> list[Any]:
        return [args for n, args in self.calls if n == name]

    async def connect(self, table_id: str, session_id: str, seat: int | None) -> None:
        self.calls.append(("connect", (table_id, session_id, seat)))
        await self.inner.connect(table_id, session_id, seat)

    async def connect_many(self, tables: Mapping[str, Mapping[str, int | None]]) -> None:
        self.calls.append(("connect_many", {t: dict(s) for t, s in tables.items()}))
        if self.held is not None:
            await self.held.wait()
        if self.failing:
            raise ConnectionError("redis is down")
        await self.inner.connect_many(tables)
        self.calls.append(("landed", None))

    async def heartbeat(self, table_id: str, session_id: str) -> bool:
        return await self.inner.heartbeat(table_id, session_id)

    async def disconnect(self, table_id: str, session_id: str) -> None:
        self.calls.append(("disconnect", (table_id, session_id)))
        await self.inner.disconnect(table_id, session_id)

    async def online(self, table_id: str) -> dict[str, int | None]:
        return await self.inner.online(table_id)

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        await self.inner.close()


@dataclass
class Seat:
    number: int


class FakeTable:
    """What `keep_online` reads of a running table: its id, seats, and `seat_changes`
    (set and replaced on a change, as `app.tables.broadcast` does)."""

    def __init__(self, table_id: str) -> None:
        self.id = table_id
        self.seats: dict[str, int] = {}
        self.seat_changes = asyncio.Event()

    def seat_of(self, player_id: str) -> Seat | None:
        number = self.seats.get(player_id)
        return None if number is None else Seat(number)

    def move(self, player_id: str, seat: int | None) -> None:
        if seat is None:
            self.seats.pop(player_id, None)
        else:
            self.seats[player_id] = seat
        changed, self.seat_changes = self.seat_changes, asyncio.Event()
        changed.set()


class Connection:
    """One connection's `keep_online`, run as the WebSocket endpoint runs it."""

    def __init__(self, keeper: Keeper, table: FakeTable, player: str, entry: str) -> None:
        self.keeper, self.table, self.entry = keeper, table, entry
        self.stop = Flag()
        self.seats: list[int | None] = []
        self.task = asyncio.create_task(
            keep_online(keeper, table, player, entry, self.stop, on_seat=self.seats.append)
        )

    async def end(self) -> None:
        """As `app.api.ws._serve` ends one: stopped, cancelled, then disconnected."""
        self.stop.set()
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        await self.keeper.disconnect(self.table.id, self.entry)


@pytest.fixture
async def kept() -> AsyncIterator[tuple[Counting, Keeper, Ticks]]:
    presence, ticks = Counting(), Ticks()
    keeper = Keeper(presence, sleep=ticks.sleep, write_timeout=BOUND)
    yield presence, keeper, ticks
    await keeper.close()


async def connected(
    presence: Counting, keeper: Keeper, tables: dict[str, FakeTable], how_many: dict[str, int]
) -> list[Connection]:
    """`how_many` connections at each table (player `<table>-p<i>`, seated at i), each
    written once."""
    connections = []
    for table_id, n in how_many.items():
        table = tables.setdefault(table_id, FakeTable(table_id))
        for i in range(n):
            table.seats[f"{table_id}-p{i}"] = i
            connections.append(Connection(keeper, table, f"{table_id}-p{i}", f"{table_id}/{i}"))
    total = sum(how_many.values())
    await until(lambda: len(presence.named("connect")) >= total, what="each connection written")
    return connections


async def test_one_refresh_per_period_for_every_connection_of_the_process(
    kept: tuple[Counting, Keeper, Ticks],
) -> None:
    presence, keeper, ticks = kept
    tables: dict[str, FakeTable] = {}
    connections = await connected(presence, keeper, tables, {"a": 5, "b": 3})
    assert await ticks.asleep() == pytest.approx(keeper.period)  # one task, asleep
    assert keeper.period == 10.0  # a third of the TTL
    for _ in range(3):
        await ticks.tick()
    refreshes = presence.named("connect_many")
    assert len(refreshes) == 3  # not 3 x 8
    assert refreshes[-1] == {
        "a": {f"a/{i}": i for i in range(5)},
        "b": {f"b/{i}": i for i in range(3)},
    }
    assert len(presence.named("connect")) == 8  # each connection's first write, once
    assert set(await presence.online("a")) == {f"a/{i}" for i in range(5)}
    for connection in connections:
        await connection.end()


async def test_a_seat_change_is_written_at_once_and_refreshed_after(
    kept: tuple[Counting, Keeper, Ticks],
) -> None:
    presence, keeper, ticks = kept
    tables: dict[str, FakeTable] = {}
    connections = await connected(presence, keeper, tables, {"a": 3})
    assert connections[1].seats == [1]  # `on_seat` heard the first seat
    tables["a"].move("a-p1", None)  # stood up
    await until(lambda: ("a", "a/1", None) in presence.named("connect"), what="the change")
    assert len(presence.named("connect")) == 4  # that connection's alone, no tick needed
    assert connections[1].seats == [1, None] and connections[0].seats == [0]
    assert await presence.online("a") == {"a/0": 0, "a/1": None, "a/2": 2}
    await ticks.asleep()
    await ticks.tick()
    assert presence.named("connect_many")[-1] == {"a": {"a/0": 0, "a/1": None, "a/2": 2}}


async def test_an_ended_connection_is_no_longer_refreshed(
    kept: tuple[Counting, Keeper, Ticks],
) -> None:
    presence, keeper, ticks = kept
    tables: dict[str, FakeTable] = {}
    connections = await connected(presence, keeper, tables, {"a": 2, "b": 1})
    await ticks.asleep()
    await connections[0].end()
    await connections[2].end()  # table b's only connection
    assert presence.named("disconnect") == [("a", "a/0"), ("b", "b/0")]
    assert keeper.entries == {"a": {"a/1": 1}}  # nothing kept for the ended
    await ticks.tick()
    assert presence.named("connect_many")[-1] == {"a": {"a/1": 1}}
    assert await presence.online("a") == {"a/1": 1} and await presence.online("b") == {}
    await connections[1].end()
    assert keeper.entries == {}
    ticks._go.put_nowait(None)  # the keeper wakes to nothing to refresh: its task ends
    await until(lambda: not keeper.running, what="the refresher's end")
    assert len(presence.named("connect_many")) == 1
    again = Connection(keeper, tables["a"], "a-p1", "a/9")  # a new one starts it again
    await until(lambda: keeper.running and len(presence.named("connect")) == 4)
    await again.end()


async def test_a_failing_refresh_is_survived_and_warned_of_once(
    kept: tuple[Counting, Keeper, Ticks], caplog: pytest.LogCaptureFixture
) -> None:
    presence, keeper, ticks = kept
    connections = await connected(presence, keeper, {}, {"a": 2})  # held: a task is weak
    await ticks.asleep()
    presence.failing = True
    with caplog.at_level(logging.WARNING, logger="omaha.presence"):
        for _ in range(3):
            await ticks.tick()
    assert len(presence.named("connect_many")) == 3 and not presence.named("landed")
    warnings = [r for r in caplog.records if "refresh failed" in r.getMessage()]
    assert len(warnings) == 1, caplog.records  # one a 10 s, not one a period
    presence.failing = False
    await ticks.tick()
    assert len(presence.named("landed")) == 1
    assert keeper.running and len(connections) == 2


async def test_a_write_waits_for_the_refresh_in_flight(
    kept: tuple[Counting, Keeper, Ticks],
) -> None:
    """The refresh may carry a seat older than a change made while it flies: the change is
    written after it lands, so it is the one that stays (a disconnect too)."""
    presence, keeper, ticks = kept
    tables: dict[str, FakeTable] = {}
    connections = await connected(presence, keeper, tables, {"a": 2})
    await ticks.asleep()
    presence.held = asyncio.Event()
    ticks._go.put_nowait(None)  # a refresh starts and is held in flight
    await until(lambda: len(presence.named("connect_many")) == 1, what="the refresh sent")
    tables["a"].move("a-p0", 4)
    ending = asyncio.create_task(connections[1].end())
    await until(lambda: connections[0].seats == [0, 4], what="the change seen")
    for _ in range(20):
        await asyncio.sleep(0)
    after = [n for n, _ in presence.calls][-1]
    assert after == "connect_many"  # neither the change nor the disconnect written yet
    presence.held.set()
    await ending
    await until(lambda: ("a", "a/0", 4) in presence.named("connect"), what="the change")
    names = [n for n, _ in presence.calls]
    assert names.index("landed") < names.index("disconnect")
    assert await presence.online("a") == {"a/0": 4}
    await ticks.asleep()


async def test_close_stops_the_refresher_and_it_does_not_start_again(
    kept: tuple[Counting, Keeper, Ticks],
) -> None:
    presence, keeper, ticks = kept
    connections = await connected(presence, keeper, {}, {"a": 1})
    await ticks.asleep()
    await keeper.close()
    assert not keeper.running
    await keeper.connect("a", "late", None)  # written, but nothing refreshes it any more
    assert not keeper.running and ("a", "late", None) in presence.named("connect")
    await connections[0].end()


async def test_redis_refresh_is_one_script_per_table(redis_url: str) -> None:
    """With a real Redis: 12 connections over 3 tables refresh with 3 EVALSHAs a period."""
    presence: Presence = RedisPresence.from_url(redis_url, ttl=30)
    watcher = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    ticks = Ticks()
    keeper = Keeper(presence, sleep=ticks.sleep, write_timeout=BOUND)
    tables = {t: FakeTable(t) for t in "abc"}
    connections = []
    try:
        for t, table in tables.items():
            for i in range(4):
                table.seats[f"{t}{i}"] = i
                connections.append(Connection(keeper, table, f"{t}{i}", f"{t}{i}/x"))
        await ticks.asleep()
        for t in tables:  # every first write landed (each is its own script call)
            await asyncio.wait_for(_online(presence, t, 4), BOUND)
        await ticks.tick()  # the first loads the script
        await watcher.config_resetstat()
        await ticks.tick()
        await ticks.tick()
        stats = await watcher.info("commandstats")
        assert stats["cmdstat_evalsha"]["calls"] == 2 * 3  # two periods, three tables
        assert await presence.online("b") == {f"b{i}/x": i for i in range(4)}
    finally:
        for connection in connections:
            await connection.end()
        await keeper.close()
        await presence.close()
        await watcher.aclose()


async def _online(presence: Presence, table_id: str, count: int) -> None:
    while len(await presence.online(table_id)) < count:
        await asyncio.sleep(0.01)
