"""Who watches: a connection (or a bot) attaching, with a catch-up or a snapshot, and
detaching; a seated player's being away, and the away grace that follows."""

from __future__ import annotations

from app.tables.clock import Timer
from app.tables.commands import Attach, Detach
from app.tables.core import Flow, Reply, TableCore
from app.tables.effects import Welcome


def attach(t: TableCore, c: Attach) -> Flow[Reply]:
    """The viewer gets what it missed (or a snapshot) before anything else; a seated player
    is back; an idle table deals again. (The actor answers with `seq` and `stream`.)"""
    t.watchers[c.viewer] = c.sender
    yield Welcome(c.viewer, c.stream, c.since)
    pid = c.sender
    if pid is None:
        return None
    t.disarm(Timer.grace(pid))
    seat = t.seat_of(pid)
    if seat is not None and seat.away:
        seat = seat._replace(away=False)
        t.put(seat)
        t.emit(t.seat_record(seat))
        seat = yield from t.note_away(seat, False)
    if seat is not None and t.idle:
        t.idle = False
        t.emit(t.table_record())
        t.schedule_next_hand(0.0)
    if t.bots and pid not in t.bots:
        t.schedule_next_hand(0.0)  # bots alone wait for someone to watch them
    return None


def detach(t: TableCore, c: Detach) -> Flow[Reply]:
    t.watchers.pop(c.viewer, None)
    pid = c.sender
    if pid is None or pid in t.watchers.values():
        return None
    seat = t.seat_of(pid)
    if seat is None or seat.away:
        return None
    seat = seat._replace(away=True)
    t.put(seat)
    t.emit(t.seat_record(seat))
    yield from t.note_away(seat, True)
    t.start_grace(pid, t.runtime.away_grace)
    return None
