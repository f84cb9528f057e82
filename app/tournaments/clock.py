"""The tournament clock: the host pauses it (no deal until resumed, the level's time frozen)
and resumes it, and may end the level (or the break) in force at once: the next level's
blinds come with the next deal (a home game's "let's raise the blinds now")."""

from __future__ import annotations

from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tournaments.state import Tournament
from app.tournaments.writes import save_state


async def on_pause(t: Tournament, c: Command) -> dict[str, Any]:
    if c.player_id != t.host_id:
        raise TableError("not_host", "only the host can do that")
    if t.status != "running":
        raise TableError("not_running", "the tournament is not running")
    t.elapsed_before, t.since = t.elapsed(), None
    t.status = "paused"
    try:
        await save_state(t)
    except TableError:
        t.status, t.since = "running", t.clock()
        raise
    return {"elapsed": t.elapsed_before}


async def on_resume(t: Tournament, c: Command) -> dict[str, Any]:
    if c.player_id != t.host_id:
        raise TableError("not_host", "only the host can do that")
    if t.status != "paused":
        raise TableError("not_paused", "the tournament is not paused")
    t.status = "running"
    t.since = t.clock()
    try:
        await save_state(t)
    except TableError:
        t.status, t.since = "paused", None
        raise
    t.deal_all()
    return {"elapsed": t.elapsed_before}


async def on_next_level(t: Tournament, c: Command) -> dict[str, Any]:
    """The clock moves to the start of the next level (past the break after this one, if
    any; from a break, to the level after it), paused or running. Hands being played finish
    at their blinds; the next round deals the new level. From a break, play resumes at once
    (between hands). Refused at the last level."""
    if c.player_id != t.host_id:
        raise TableError("not_host", "only the host can do that")
    if t.status not in ("running", "paused"):
        raise TableError("not_running", "the tournament is not running")
    schedule = t.settings.schedule
    moment = schedule.at(t.elapsed())
    starts = schedule.starts()
    if moment.level + 1 >= len(starts):
        raise TableError("last_level", "this is the last level")
    before = t.elapsed_before, t.since
    t.elapsed_before = starts[moment.level + 1]
    t.since = t.clock() if t.status == "running" else None
    try:
        await save_state(t)
    except TableError:
        t.elapsed_before, t.since = before
        raise
    if moment.on_break and t.status == "running" and not any(s.playing for s in t.tables.values()):
        t.deal_all(t.between_hands)  # the break's deal timer waited for its end: not now
    return {"elapsed": t.elapsed_before, "level": moment.level + 2}
