"""Broadcasting, the actor's side of `effects.Emit` and `effects.Welcome`: each record is
numbered, serialised once and put in every viewer's outbox; what was sent since the previous
hand began is kept, so a viewer that reconnects within it catches up message by message.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson

from app.tables.viewer import Viewer
from app.tables.views import Record, render


def dumps(message: dict[str, Any]) -> str:
    """Compact JSON text; orjson: the actor serialises every record it broadcasts."""
    return orjson.dumps(message).decode()


class Broadcast:
    def __init__(self, replay_buffer: int) -> None:
        self.viewers: dict[int, Viewer] = {}
        #: this incarnation of the table: a resume point is only good within one
        self.stream = secrets.token_hex(8)
        self.seq = 0
        # What was broadcast, as sent (seq, public text, {player: text with their private
        # part}), since the start of the previous hand: a client that reconnects within it
        # catches up from here, an older one gets a snapshot. Texts and this bound, not the
        # records themselves for 1,024 messages: those were ~1 MiB per table flat out, most
        # of the server's memory per connection (docs/performance.md, Load).
        self.records: deque[tuple[int, str, dict[str, str] | None]] = deque(maxlen=replay_buffer)
        self._hand_starts: deque[int] = deque(maxlen=2)
        #: set (and replaced) whenever a seat changes: connections refresh their presence
        self.seat_changes = asyncio.Event()

    def emit(self, records: tuple[Record, ...], hand_start: bool = False) -> list[int]:
        """Send; returns the viewers closed for falling behind."""
        if hand_start:
            self._hand_starts.append(self.seq + 1)
            while self.records and self.records[0][0] < self._hand_starts[0]:
                self.records.popleft()  # older than the previous hand: a snapshot serves better
        # Each record is serialised once for everyone who sees only its public part, and once
        # more for each player with a private part (own hole cards, own legal actions): not
        # once per viewer. The text is what goes on the wire.
        sent = []
        seats = False
        for record in records:
            self.seq += 1
            record.public["seq"] = self.seq
            seats = seats or record.public["type"] == "seat"
            public = dumps(record.public)
            private = {
                pid: dumps(render(record, pid))  # views.render: the one redaction rule
                for pid, extra in record.private.items()
                if extra
            } or None
            entry = (self.seq, public, private)
            self.records.append(entry)
            sent.append(entry)
        if seats:
            changed, self.seat_changes = self.seat_changes, asyncio.Event()
            changed.set()
        publics = [public for _, public, _ in sent]
        personal = any(private for _, _, private in sent)
        closed = []
        for viewer in list(self.viewers.values()):
            pid = viewer.player_id
            if personal and pid is not None:
                viewer.send_many([
                    private.get(pid, public) if private else public
                    for _, public, private in sent
                ])  # fmt: skip
            else:
                viewer.send_many(publics)
            if viewer.closed is not None:
                self.viewers.pop(viewer.id, None)
                closed.append(viewer.id)
        return closed

    def welcome(
        self,
        viewer: Viewer,
        stream: str | None,
        since: int | None,
        snapshot: Callable[[str | None], dict[str, Any]],
    ) -> None:
        """What `viewer` missed since `since` of `stream`, or (too far behind, another
        stream, or more than its outbox holds) a snapshot."""
        first = self.records[0][0] if self.records else self.seq + 1
        if (
            stream == self.stream
            and since is not None
            and first - 1 <= since <= self.seq
            and self.seq - since < viewer.limit  # more would overflow its outbox
        ):
            pid = viewer.player_id
            for seq, public, private in self.records:
                if seq > since:
                    viewer.send(private.get(pid, public) if private and pid is not None else public)
        else:
            viewer.send(snapshot(viewer.player_id))
