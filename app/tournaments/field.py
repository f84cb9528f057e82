"""The field: registering and unregistering (late too, and re-entries), and the start's
random draw of seats."""

from __future__ import annotations

import asyncio
import contextlib
import math
import uuid
from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tables.names import skeleton
from app.tournaments.entry import Entry
from app.tournaments.places import Standings
from app.tournaments.seating import open_table, seat, table_config, table_room
from app.tournaments.state import Tournament, draw
from app.tournaments.writes import save_state, write


async def on_register(t: Tournament, c: Command) -> dict[str, Any]:
    pid = c.player_id
    if pid is None:
        raise TableError("no_session", "join the server with a name first")
    late = t.status in ("running", "paused")
    if not (t.status == "registering" or (late and late_registration_open(t))):
        raise TableError("registration_closed", "registration is closed")
    if pid in t.live:
        raise TableError("already_registered", "you are registered already")
    number = 1 + sum(1 for e in t.entries.values() if e.player_id == pid)
    if number - 1 > t.settings.reentries:
        raise TableError("no_reentry", "no more re-entries for you in this tournament")
    if len(t.entries) >= t.settings.max_players:
        raise TableError("full", "the tournament is full")
    name = str(c.data.get("name") or "player")[:32]
    _check_name(t, pid, name)
    entry = Entry(pid, name, bot=bool(c.data.get("bot", False)), number=number)
    await write(t, t.store.add_entry(t.id, entry))
    t.entries[entry.key] = entry
    t.live[pid] = entry.key
    if late:  # seated at once where there is room (a new table if there is none)
        t.standings.entries += 1
        await _seat_late(t, pid)
    elif t.settings.start_when_full and len(t.entries) == t.settings.max_players:
        with contextlib.suppress(TableError):  # registered either way
            await on_start(t, Command("start", t.host_id))
    return {"registered": len(t.entries), "entry": number}


def _check_name(t: Tournament, player_id: str, name: str) -> None:
    """No two players in a tournament whose names look the same (`names.skeleton`), as
    at a table: its standings and its tables show them side by side."""
    mine = skeleton(name)
    if any(e.player_id != player_id and skeleton(e.name) == mine
           for e in t.entries.values()):  # fmt: skip
        raise TableError("name_taken", f"someone in this tournament is already called "
                         f"{name!r}: rename first")  # fmt: skip


async def on_add_bot(t: Tournament, c: Command) -> dict[str, Any]:
    """Host: a practice bot joins the field (registered like anyone; its player fixed by
    the tournament and its number, so its seat is a bot's at every table)."""
    if c.player_id != t.host_id:
        raise TableError("not_host", "only the host can do that")
    number = sum(1 for e in t.entries.values() if e.bot and e.number == 1)
    taken = {skeleton(e.name) for e in t.entries.values()}
    while True:  # the next number whose name nobody has (a person may be "Bot 2")
        number += 1
        pid = str(uuid.uuid5(uuid.UUID(t.id), f"bot-{number}"))
        if pid not in t.live and skeleton(f"Bot {number}") not in taken:
            break
    result = await on_register(t, Command("register", pid, {"name": f"Bot {number}", "bot": True}))
    return {**result, "player_id": pid}


def late_registration_open(t: Tournament) -> bool:
    """Late registration (and re-entry) is open until the end of level
    `late_registration_level` (1 is the first level; 0: none)."""
    moment = t.settings.schedule.at(t.elapsed())
    return moment.level < t.settings.late_registration_level


async def _seat_late(t: Tournament, pid: str) -> None:
    open_seats = [s for s in t.tables.values() if len(s.seats) < t.settings.seats]
    if open_seats:  # a table drawn among the shortest, then a seat (TDA 8-A)
        fewest = min(len(s.seats) for s in open_seats)
        target = draw.choice([s.id for s in open_seats if len(s.seats) == fewest])
    else:
        await table_room(t, 1)
        level = t.settings.schedule.levels[t.settings.schedule.at(t.elapsed()).level]
        target = await open_table(t, table_config(t, level, len(t.tables)))
        await save_state(t)
    await seat(t, pid, target, None, t.settings.starting_stack)
    if not any(s.playing for s in t.tables.values()) and t.status == "running":
        t.deal_all(t.between_hands)


async def on_unregister(t: Tournament, c: Command) -> dict[str, Any]:
    pid = str(c.player_id)
    if t.status != "registering" or pid not in t.entries:
        raise TableError("not_registered", "you are not registered (or it has started)")
    await write(t, t.store.remove_entry(t.id, pid))
    del t.entries[pid]
    del t.live[pid]
    return {"registered": len(t.entries)}


def arm_start(t: Tournament) -> None:
    """A set start time (`Settings.start_at`): the host's start is posted then (refused,
    and registration goes on, if fewer than two have registered)."""
    at = t.settings.start_at
    if at is None or t.status != "registering":
        return
    delay = max(0.0, at - t.wall())
    loop = asyncio.get_running_loop()
    t.start_timer = loop.call_later(delay, t.post, Command("start", t.host_id))


async def on_start(t: Tournament, c: Command) -> dict[str, Any]:
    """Draw the seats at random, seat everyone with the starting stack, start the clock
    and deal."""
    if c.player_id != t.host_id:
        raise TableError("not_host", "only the host can do that")
    if t.status != "registering":
        raise TableError("started", "the tournament has started")
    if len(t.entries) < 2:
        raise TableError("too_few", "a tournament needs two players at least")
    players = list(t.live)
    t.shuffle(players)
    count = math.ceil(len(players) / t.settings.seats)
    await table_room(t, count)
    level = t.settings.schedule.levels[0]
    for k in range(count):
        await open_table(t, table_config(t, level, k))
    ids = list(t.tables)
    for k, pid in enumerate(players):  # round robin: table sizes within one
        await seat(t, pid, ids[k % count], None, t.settings.starting_stack)
    t.standings = Standings(len(players))
    t.status = "running"
    t.since = t.clock()
    await save_state(t)
    t.deal_all()
    return {"tables": ids}
