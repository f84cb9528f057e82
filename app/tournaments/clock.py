"""The tournament clock: the host pauses it (no deal until resumed, the level's time frozen)
and resumes it."""

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
