"""Broadcasting: each record is serialised once and put in every viewer's outbox; viewers
attach (with a catch-up or a snapshot) and detach.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import orjson

from app.tables.labels import table_labels
from app.tables.seat import Seat
from app.tables.viewer import Viewer
from app.tables.views import Record, render, seat_json, table_view

if TYPE_CHECKING:
    pass


from app.tables.command import Command
from app.tables.state import TableState


def _dumps(message: dict[str, Any]) -> str:
    """Compact JSON text; orjson: the actor serialises every record it broadcasts."""
    return orjson.dumps(message).decode()


class Broadcast(TableState):
    def _emit(self, *records: Record) -> None:
        # Each record is serialised once for everyone who sees only its public part, and once
        # more for each player with a private part (own hole cards, own legal actions): not
        # once per viewer. The text is what goes on the wire.
        sent = []
        for record in records:
            self.seq += 1
            record.public["seq"] = self.seq
            public = _dumps(record.public)
            private = {
                pid: _dumps(render(record, pid))  # views.render: the one redaction rule
                for pid, extra in record.private.items()
                if extra
            } or None
            entry = (self.seq, public, private)
            self.records.append(entry)
            sent.append(entry)
        publics = [public for _, public, _ in sent]
        personal = any(private for _, _, private in sent)
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

    def _seats_changed(self) -> None:
        changed, self.seat_changes = self.seat_changes, asyncio.Event()
        changed.set()

    def _seat_record(self, seat: Seat) -> Record:
        self._seats_changed()
        return Record({"type": "seat", **seat_json(seat)})

    def _table_record(self) -> Record:
        return Record(
            {
                "type": "table",
                "host": self.host_id,
                "paused": self.paused or self.idle,
                "idle": self.idle,
                "bomb_pot_next": self.bomb_pot_next,
                "config": self.config.model_dump(mode="json"),
                "labels": table_labels(self.config),
                "next_config": self.next_config.model_dump(mode="json")
                if self.next_config
                else None,
            }
        )

    async def _on_attach(self, c: Command) -> dict[str, Any]:
        viewer: Viewer = c.data["viewer"]
        stream, since = c.data.get("stream"), c.data.get("since")
        self.viewers[viewer.id] = viewer
        first = self.records[0][0] if self.records else self.seq + 1
        if (
            stream == self.stream
            and isinstance(since, int)
            and first - 1 <= since <= self.seq
            and self.seq - since < viewer.limit  # more would overflow its outbox
        ):
            pid = viewer.player_id
            for seq, public, private in self.records:
                if seq > since:
                    viewer.send(private.get(pid, public) if private and pid is not None else public)
        else:
            viewer.send(table_view(self, viewer.player_id))
        if viewer.player_id is not None:
            handle = self._grace.pop(viewer.player_id, None)
            if handle is not None:
                handle.cancel()
            seat = self.seat_of(viewer.player_id)
            if seat is not None and seat.away:
                seat.away = False
                self._emit(self._seat_record(seat))
                await self._note_away(seat, False)
            if seat is not None and self.idle:
                self.idle = False
                self._emit(self._table_record())
                self._schedule_next_hand(0.0)
            if self._bots and viewer.player_id not in self._bots:
                self._schedule_next_hand(0.0)  # bots alone wait for someone to watch them
        return {"seq": self.seq, "stream": self.stream}

    async def _on_view(self, c: Command) -> dict[str, Any]:
        """The snapshot `c.player_id` would get on connecting, serialised in the actor (one
        moment of the table), without attaching: the table page embeds it."""
        return {"snapshot": orjson.dumps(table_view(self, c.player_id))}

    async def _on_detach(self, c: Command) -> None:
        viewer: Viewer = c.data["viewer"]
        self.viewers.pop(viewer.id, None)
        pid = viewer.player_id
        if pid is None or any(v.player_id == pid for v in self.viewers.values()):
            return
        seat = self.seat_of(pid)
        if seat is None or seat.away:
            return
        seat.away = True
        self._emit(self._seat_record(seat))
        await self._note_away(seat, True)
        self._start_grace(pid, self.runtime.away_grace)
