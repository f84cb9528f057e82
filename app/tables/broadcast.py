"""Broadcasting, the actor's side of `effects.Emit` and `effects.Welcome`: each record is
numbered, serialised once and put in every viewer's outbox; what was sent since the previous
hand began is kept, so a viewer that reconnects within it catches up message by message.

The previous hand's texts are kept compressed: only a viewer that reconnects reads them, and
as texts they were most of what a table held (~45 KB a six-seat hand at a human pace,
~6 KB compressed; docs/performance.md, Connections: memory).
"""

from __future__ import annotations

import asyncio
import secrets
import zlib
from collections import deque
from collections.abc import Callable
from typing import Any, TypeAlias

import orjson

from app.tables.viewer import Viewer
from app.tables.views import Record, render

#: (seq, public text, {player: text with their private part} or None), as sent
Entry: TypeAlias = tuple[int, str, dict[str, str] | None]


def dumps(message: dict[str, Any]) -> str:
    """Compact JSON text; orjson: the actor serialises every record it broadcasts."""
    return orjson.dumps(message).decode()


class Broadcast:
    def __init__(self, replay_buffer: int) -> None:
        self.viewers: dict[int, Viewer] = {}
        #: this incarnation of the table: a resume point is only good within one
        self.stream = secrets.token_hex(8)
        self.seq = 0
        # What was broadcast since the start of the previous hand, at most `replay_buffer`
        # messages: a client that reconnects within it catches up from here, an older one
        # gets a snapshot. Texts and this bound, not the records themselves for 1,024
        # messages: those were ~1 MiB per table flat out (docs/performance.md, Load). The
        # hand in play's (or, before the first hand, all) as sent; the previous hand's
        # compressed (`_sealed`: its first seq and its entries as zlib'd JSON).
        self.limit = replay_buffer
        self.current: deque[Entry] = deque(maxlen=replay_buffer)
        self._sealed: tuple[int, bytes] | None = None
        self._hand_starts: deque[int] = deque(maxlen=2)
        #: set (and replaced) whenever a seat changes: connections refresh their presence
        self.seat_changes = asyncio.Event()

    def emit(self, records: tuple[Record, ...], hand_start: bool = False) -> list[int]:
        """Send; returns the viewers closed for falling behind."""
        if hand_start:
            self._hand_starts.append(self.seq + 1)
            # the hand that ended is now the previous one; anything older is dropped (a
            # snapshot serves better); before the first hand, nothing is kept
            self._sealed = None
            if len(self._hand_starts) == 2 and self.current:
                self._sealed = (
                    self.current[0][0],
                    zlib.compress(orjson.dumps(list(self.current)), 1),
                )
            self.current.clear()
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
            self.current.append(entry)
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
        first = self._first()
        if (
            stream == self.stream
            and since is not None
            and first - 1 <= since <= self.seq
            and self.seq - since < viewer.limit  # more would overflow its outbox
        ):
            pid = viewer.player_id
            for _, public, private in self.kept(since):
                viewer.send(private.get(pid, public) if private and pid is not None else public)
        else:
            viewer.send(snapshot(viewer.player_id))

    def _first(self) -> int:
        """The first seq kept (`seq + 1`: none)."""
        if self._sealed is not None:
            first = self._sealed[0]
        else:
            first = self.current[0][0] if self.current else self.seq + 1
        return max(first, self.seq - self.limit + 1)

    def kept(self, since: int = 0) -> list[Entry]:
        """The entries kept, those after `since` (a reconnecting viewer's; the tests')."""
        since = max(since, self._first() - 1)
        out: list[Entry] = []
        current = self.current[0][0] if self.current else self.seq + 1
        if self._sealed is not None and since + 1 < current:  # some of the previous hand
            for seq, public, private in orjson.loads(zlib.decompress(self._sealed[1])):
                if seq > since:
                    out.append((seq, public, private))
        out.extend(e for e in self.current if e[0] > since)
        return out
