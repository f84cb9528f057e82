"""Who watches: a connection (or a bot) attaching, with a catch-up or a snapshot, and
detaching; a seated player's being away, and the away grace that follows; and the hands
each player watched without being dealt in, kept for their "My hands" (`note_watched`)."""

from __future__ import annotations

from collections.abc import Iterable

from app.tables.clock import Timer
from app.tables.commands import Attach, Detach
from app.tables.core import Flow, Reply, TableCore
from app.tables.effects import Note, Welcome
from app.tables.ops import NoteWatching


def attach(t: TableCore, c: Attach) -> Flow[Reply]:
    """The viewer gets what it missed (or a snapshot) before anything else; a seated player
    is back; an idle table deals again. (The actor answers with `seq` and `stream`.)"""
    t.watchers[c.viewer] = c.sender
    yield Welcome(c.viewer, c.stream, c.since)
    pid = c.sender
    if pid is None:
        return None
    if t.hand_running():  # they see the hand in play: watched, unless dealt in
        note_watched(t, (pid,))
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


def note_watched(t: TableCore, players: Iterable[str | None], *, started: bool = False) -> None:
    """The hand in play is watched by `players`: each one not dealt in (nor the host, who
    reviews all of the table's hands anyway, nor a bot) is noted as watching it, not waited
    for (a `Note`). A visit goes on while its player watches each hand (or comes back
    within the next): its last hand moves on; else a new visit begins. One write per hand
    at most, and none for a spectator coming back during a hand already noted.

    `started`: the hand has just been dealt (`players` are all who watch): the visits of
    players who watched neither it nor the hand before are forgotten (bounded by who
    watches)."""
    hand = t.hand
    if hand is None:
        return
    n = hand.number
    if started:
        t.watching = {p: v for p, v in t.watching.items() if v[1] >= n - 1}
    visits = []
    for pid in dict.fromkeys(players):
        if (
            pid is None
            or pid == t.kept.host_id
            or pid in t.bots
            or hand.position_of_player(pid) is not None
        ):
            continue
        first, last = t.watching.get(pid, (n, n - 2))
        if last == n:
            continue
        if last < n - 1:
            first = n
        t.watching[pid] = (first, n)
        visits.append((pid, first, n))
    if visits:
        t.effects.append(Note(NoteWatching(tuple(visits))))
