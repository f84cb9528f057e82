"""Table chat, and the host's switch for spectators' chat."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.tables.config import CHAT_MAX
from app.tables.errors import TableError
from app.tables.views import Record

if TYPE_CHECKING:
    pass


from app.tables.command import Command
from app.tables.state import TableState


class Chat(TableState):
    async def _on_chat(self, c: Command) -> dict[str, Any]:
        pid = c.player_id
        if pid is None:
            raise TableError("no_session", "join the server with a name first")
        seat = self.seat_of(pid)
        if seat is None and not any(v.player_id == pid for v in self.viewers.values()):
            raise TableError("not_watching", "only players at the table and its watchers chat")
        if seat is None and pid != self.host_id and not self.config.spectator_chat:
            raise TableError("chat_off", "the host has turned spectators' chat off")
        text = str(c.data.get("text", "")).strip()
        if not text or len(text) > CHAT_MAX or not text.isprintable():
            raise TableError(
                "bad_chat", f"a chat message is one line of 1 to {CHAT_MAX} characters"
            )
        now = self.now()
        if self._chat_rate.full(pid, now):
            raise TableError("rate_limited", "too many chat messages: wait a few seconds")
        name = seat.name if seat is not None else str(c.data.get("name") or "spectator")[:32]
        number = seat.number if seat is not None else None
        await self._store(self.store.add_chat(self.id, pid, name, number, text))
        self._chat_rate.count(pid, now)  # a message not stored is not counted
        entry = {"player_id": pid, "name": name, "seat": number, "text": text}
        self.chat.append(entry)
        self._emit(Record({"type": "chat", **entry}))
        return {"sent": True}

    async def _on_spectator_chat(self, c: Command) -> dict[str, Any]:
        on = bool(c.data.get("on", True))
        self.config = self.config.model_copy(update={"spectator_chat": on})
        if self.next_config is not None:
            self.next_config = self.next_config.model_copy(update={"spectator_chat": on})
        await self._save_table()
        self._emit(self._table_record())
        return {"spectator_chat": on}
