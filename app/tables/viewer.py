"""A connection as the table actor sees it: a bounded outbox the actor fills without waiting.

The actor calls `send`, which never blocks: it appends to the outbox and wakes the writer.
When the outbox is full the viewer is closed (the client fell behind; it reconnects and gets a
fresh snapshot). The API layer's writer task waits in `wait`, drains `take` to the socket and
reacts to `on_close` by tearing the socket down.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

_ids = itertools.count(1)

#: close codes a viewer can be closed with
CLOSE_TOO_SLOW = 4008  # the outbox overflowed: reconnect for a snapshot
CLOSE_RESTART = 1012  # the table restarted from durable state: reconnect
CLOSE_GOING_AWAY = 1001
CLOSE_TABLE_CLOSED = 4410  # the host closed the table: nothing to reconnect to


class Viewer:
    # Thousands are alive at once (one per connection): slots, a list for the outbox (an
    # empty deque allocates a 64-slot block, ~760 bytes) and a future made only while the
    # writer waits (an asyncio.Event holds a deque of its own).
    __slots__ = ("_flushing", "_waiter", "closed", "id", "limit", "on_close", "outbox",
                 "player_id")  # fmt: skip

    def __init__(self, player_id: str | None, limit: int = 256) -> None:
        self.id = next(_ids)
        self.player_id = player_id
        self.limit = limit
        # a message is a dict, or text already serialised (what the table actor broadcasts)
        self.outbox: list[dict[str, Any] | str] = []
        self.closed: tuple[int, str] | None = None
        self.on_close: Callable[[int, str], None] | None = None
        self._flushing = False
        self._waiter: asyncio.Future[None] | None = None

    async def wait(self) -> None:
        """Until something is queued, the viewer is closed or `nudge` is called (the caller
        checks its conditions first: a wake-up while nobody waits is not remembered)."""
        waiter = asyncio.get_running_loop().create_future()
        self._waiter = waiter
        try:
            await waiter
        finally:
            if self._waiter is waiter:
                self._waiter = None

    def nudge(self) -> None:
        """Wake the writer waiting in `wait`, if any."""
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed is not None:
            return
        if len(self.outbox) >= self.limit:
            self.close(CLOSE_TOO_SLOW, "too slow: reconnect for a snapshot")
            return
        self.outbox.append(message)
        self.nudge()

    def send_many(self, messages: list[str]) -> None:
        """`send` for several at once (one broadcast's records): one check, one wake-up."""
        if self.closed is not None:
            return
        if len(self.outbox) + len(messages) > self.limit:
            self.close(CLOSE_TOO_SLOW, "too slow: reconnect for a snapshot")
            return
        self.outbox.extend(messages)
        self.nudge()

    def close(self, code: int, reason: str, *, flush: bool = False) -> None:
        """Close: nothing more is queued. `flush`: what is queued is still sent first (the
        writer drains it, then ends), so a last answer and event reach the client; otherwise
        the outbox is dropped and the writer stopped at once (a client that fell behind)."""
        if self.closed is not None:
            return
        self.closed = (code, reason)
        self.nudge()
        if flush:
            self._flushing = True
            return
        self.outbox.clear()
        if self.on_close is not None:
            self.on_close(code, reason)

    def take(self) -> list[dict[str, Any] | str]:
        """Everything queued, emptying the outbox; an empty list once the viewer is closed.
        The writer waits in `wait` while the outbox is empty, then takes."""
        if self.closed is not None and not self._flushing:
            return []
        batch, self.outbox = self.outbox, []
        return batch
