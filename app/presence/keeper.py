"""Keeping one connection online in presence while it lasts (its seat kept current)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from app.presence.base import Presence


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


async def keep_online(
    presence: Presence,
    table: Any,
    player_id: str,
    entry: str,
    stop: Flag | asyncio.Event,
    on_seat: Callable[[int | None], None] | None = None,
) -> None:
    """Keep this connection (`entry`) online in presence with its player's current seat at
    `table` (a running `Table`): refreshed every third of the TTL, and at once when a seat
    changes (approved, left, removed; `on_seat` hears of it too). Stops on `stop` (a
    cancellation can be swallowed inside the Redis client, so it is not relied on)."""
    loop = asyncio.get_running_loop()
    sent: object = ()  # nothing sent yet
    due = 0.0
    while not stop.is_set():
        changed = table.seat_changes
        seat = table.seat_of(player_id)
        number = seat.number if seat else None
        if number != sent and on_seat is not None:
            on_seat(number)
        if number != sent or loop.time() >= due:
            with contextlib.suppress(Exception):
                await presence.connect(table.id, entry, number)
            sent, due = number, loop.time() + max(0.5, presence.ttl / 3)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(0.0, due - loop.time())):  # no task per wait
                await changed.wait()
