"""Table chat: who may chat, its rate, and the messages kept for the snapshot; and the
reactions players show on their seats."""

from __future__ import annotations

from app.tables.commands import Chat, React
from app.tables.config import CHAT_MAX, REACTIONS
from app.tables.core import Flow, Reply, TableCore
from app.tables.effects import Write
from app.tables.errors import TableError
from app.tables.ops import AddChat
from app.tables.store_protocol import CHAT_KEPT
from app.tables.views import Record


def chat(t: TableCore, c: Chat) -> Flow[Reply]:
    pid = c.sender
    if pid is None:
        raise TableError("no_session", "join the server with a name first")
    seat = t.seat_of(pid)
    if seat is None and pid not in t.watchers.values():
        raise TableError("not_watching", "only players at the table and its watchers chat")
    if seat is None and pid != t.kept.host_id and not t.config.spectator_chat:
        raise TableError("chat_off", "the host has turned spectators' chat off")
    text = c.text
    if not text or len(text) > CHAT_MAX or not text.isprintable():
        raise TableError("bad_chat", f"a chat message is one line of 1 to {CHAT_MAX} characters")
    now = t.now
    if t.chat_rate.full(pid, now):
        raise TableError("rate_limited", "too many chat messages: wait a few seconds")
    name = seat.name if seat is not None else c.name
    number = seat.number if seat is not None else None
    yield Write(AddChat(pid, name, number, text))
    t.chat_rate.count(pid, now)  # a message not stored is not counted
    entry = {"player_id": pid, "name": name, "seat": number, "text": text}
    t.kept = t.kept._replace(chat=(*t.kept.chat, entry)[-CHAT_KEPT:])
    t.emit(Record({"type": "chat", **entry}))
    return {"sent": True}


def react(t: TableCore, c: React) -> Reply:
    """A seated player's reaction, shown on their seat for a moment to everyone there. Kept
    nowhere (not stored, not in the snapshot): one seen late would be a moment missed, not a
    message. Counted by the chat's limiter under a key of its own, so a burst of reactions
    never silences the player's chat, nor the other way round."""
    pid = c.sender
    if pid is None:
        raise TableError("no_session", "join the server with a name first")
    seat = t.seat_of(pid)
    if seat is None:
        raise TableError("not_seated", "only a seated player reacts")
    if c.text not in REACTIONS:
        raise TableError("bad_reaction", f"a reaction is one of {', '.join(REACTIONS)}")
    if not t.chat_rate.allow(f"reaction:{pid}", t.now):
        raise TableError("rate_limited", "too many reactions: wait a few seconds")
    t.emit(Record({"type": "reaction", "seat": seat.number, "player_id": pid,
                   "reaction": c.text}))  # fmt: skip
    return {"reaction": c.text}
