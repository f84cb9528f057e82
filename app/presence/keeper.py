"""Keeping this process's connections online in presence while they last.

Each connection runs `keep_online`, which writes its entry at once and again at once whenever
its player's seat changes: it waits on the table's `seat_changes` alone, with no timer. What
keeps the entries from expiring is the process's one `Keeper`: every third of the TTL, one
`connect_many` of every entry of every table (in Redis one script per table, all in one round
trip). Each connection used to refresh itself (an EVALSHA, a timer and a timeout every ~10 s
each: ~5 % of the CPU of a server with 3,000 connections, and much of its young garbage).

The keeper's task runs while the process has an entry to refresh, so a relay built without the
app (tests, tools) needs no start; the app closes it at shutdown. One task for the process
rather than one per table: one timer and one round trip per period, whatever the tables.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from app.logging import Quiet
from app.presence.base import Presence

log = logging.getLogger("omaha.presence")

#: seconds a connection's own write (its first, a seat change, its disconnect) may take
WRITE_TIMEOUT = 2.0


class Flag:
    """A stop signal that is read, never awaited: an asyncio.Event without the deque of
    waiters (~760 bytes) it would hold for each of thousands of connections."""

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set


class Keeper:
    """This process's entries in presence (table -> entry -> seat as last written), written
    again together every `period`. `sleep` can be replaced in tests (a tick they drive), and
    `write_timeout` (a bound a loaded test machine may reach while a test holds a refresh)."""

    def __init__(
        self,
        presence: Presence,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        write_timeout: float = WRITE_TIMEOUT,
    ) -> None:
        self.presence = presence
        self.write_timeout = write_timeout
        self.period = max(0.5, presence.ttl / 3)
        #: what the next refresh writes: one entry per live connection, no more
        self.entries: dict[str, dict[str, int | None]] = {}
        self._sleep = sleep
        self._task: asyncio.Task[None] | None = None
        self._landed: asyncio.Event | None = None  # set once the refresh in flight ends
        self._closed = False
        self._quiet = Quiet(log)

    @property
    def running(self) -> bool:
        """Whether the refresher's task is alive (it ends once there is nothing to refresh)."""
        return self._task is not None

    async def connect(self, table_id: str, entry: str, seat: int | None) -> None:
        """Online now in `seat` (a new connection, a seat change), and refreshed from now on
        until `forget`. A failure is logged (rarely), not raised: play goes on without it."""
        self.entries.setdefault(table_id, {})[entry] = seat
        if self._task is None and not self._closed:
            # An empty context: not the first connection's (its request's log fields).
            self._task = asyncio.get_running_loop().create_task(
                self._refresh(), context=contextvars.Context()
            )
        await self._write(partial(self.presence.connect, table_id, entry, seat))

    def forget(self, table_id: str, entry: str) -> None:
        """No longer refreshed (its connection ended); it expires within the TTL."""
        entries = self.entries.get(table_id)
        if entries is not None:
            entries.pop(entry, None)
            if not entries:
                del self.entries[table_id]

    async def disconnect(self, table_id: str, entry: str) -> None:
        """Forgotten and offline at once."""
        self.forget(table_id, entry)
        await self._write(partial(self.presence.disconnect, table_id, entry))

    async def close(self) -> None:
        """Stop refreshing (the app stops); an entry left expires within the TTL."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _write(self, write: Callable[[], Awaitable[Any]]) -> None:
        # `timeout`, not `wait_for`: wait_for's task keeps the exception it ended with (the
        # client already gone), whose traceback holds the caller's frame (a connection's).
        try:
            async with asyncio.timeout(self.write_timeout):
                # After the refresh in flight, which may hold this entry's previous seat (or the
                # entry itself, disconnected now): the newer write must land last.
                if (landed := self._landed) is not None:
                    await landed.wait()
                await write()
        except Exception as error:
            self._quiet.warn("presence: a connection's write failed (%s)", type(error).__name__)

    async def _refresh(self) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + self.period
        try:
            while True:
                await self._sleep(max(0.0, due - loop.time()))
                if not self.entries or self._closed:
                    return  # started again by the next connection
                due = loop.time() + self.period
                batch = {table_id: dict(e) for table_id, e in self.entries.items()}
                self._landed = landed = asyncio.Event()
                try:
                    async with asyncio.timeout(max(self.period, self.write_timeout)):
                        await self.presence.connect_many(batch)
                except Exception as error:  # Redis down: tried again next period
                    self._quiet.warn("presence: the refresh failed (%s)", type(error).__name__)
                finally:
                    self._landed = None
                    landed.set()
        finally:
            if self._task is asyncio.current_task():
                self._task = None


async def keep_online(
    keeper: Keeper,
    table: Any,
    player_id: str,
    entry: str,
    stop: Flag | asyncio.Event,
    on_seat: Callable[[int | None], None] | None = None,
) -> None:
    """Keep this connection (`entry`) online with its player's current seat at `table` (a
    running `Table`): written at once, then at once whenever the seat changes (approved,
    left, removed; `on_seat` hears of it too); the keeper refreshes it in between. Ends on a
    cancellation (its only wait is for a seat change), or on `stop` after a write (a
    cancellation can be swallowed inside the Redis client); the entry is then no longer
    refreshed, and the caller disconnects it (`Keeper.disconnect`)."""
    sent: object = ()  # nothing sent yet
    try:
        while not stop.is_set():
            changed = table.seat_changes  # before the seat is read: no change is missed
            seat = table.seat_of(player_id)
            number = seat.number if seat else None
            if number != sent:
                if on_seat is not None:
                    on_seat(number)
                sent = number
                await keeper.connect(table.id, entry, number)
                continue  # `stop` may have been set during the write
            await changed.wait()
    finally:
        keeper.forget(table.id, entry)
