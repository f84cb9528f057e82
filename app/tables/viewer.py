"""A connection as the table actor sees it: a bounded outbox the actor fills without waiting.

The actor calls `send`, which never blocks: it appends to the outbox and wakes the writer.
When the outbox is full the viewer is closed (the client fell behind; it reconnects and gets a
fresh snapshot). The API layer's writer task waits on `wake`, drains `take` to the socket and
reacts to `on_close` by tearing the socket down.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Callable
from typing import Any

_ids = itertools.count(1)

#: close codes a viewer can be closed with
CLOSE_TOO_SLOW = 4008  # the outbox overflowed: reconnect for a snapshot
CLOSE_RESTART = 1012  # the table restarted from durable state: reconnect
CLOSE_GOING_AWAY = 1001
CLOSE_TABLE_CLOSED = 4410  # the host closed the table: nothing to reconnect to


class Viewer:
    def __init__(self, player_id: str | None, limit: int = 256) -> None:
        self.id = next(_ids)
        self.player_id = player_id
        self.limit = limit
        # a message is a dict, or text already serialised (what the table actor broadcasts)
        self.outbox: deque[dict[str, Any] | str] = deque()
        self.wake = asyncio.Event()
        self.closed: tuple[int, str] | None = None
        self.on_close: Callable[[int, str], None] | None = None
        self._flushing = False

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed is not None:
            return
        if len(self.outbox) >= self.limit:
            self.close(CLOSE_TOO_SLOW, "too slow: reconnect for a snapshot")
            return
        self.outbox.append(message)
        self.wake.set()

    def send_many(self, messages: list[str]) -> None:
        """`send` for several at once (one broadcast's records): one check, one wake-up."""
        if self.closed is not None:
            return
        if len(self.outbox) + len(messages) > self.limit:
            self.close(CLOSE_TOO_SLOW, "too slow: reconnect for a snapshot")
            return
        self.outbox.extend(messages)
        self.wake.set()

    def close(self, code: int, reason: str, *, flush: bool = False) -> None:
        """Close: nothing more is queued. `flush`: what is queued is still sent first (the
        writer drains it, then ends), so a last answer and event reach the client; otherwise
        the outbox is dropped and the writer stopped at once (a client that fell behind)."""
        if self.closed is not None:
            return
        self.closed = (code, reason)
        self.wake.set()
        if flush:
            self._flushing = True
            return
        self.outbox.clear()
        if self.on_close is not None:
            self.on_close(code, reason)

    def take(self) -> list[dict[str, Any] | str]:
        """Everything queued, emptying the outbox; an empty list once the viewer is closed.
        The writer waits on `wake` while the outbox is empty, then takes."""
        if self.closed is not None and not self._flushing:
            return []
        batch = list(self.outbox)
        self.outbox.clear()
        return batch
