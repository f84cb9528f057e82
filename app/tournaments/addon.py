"""The add-on: chips a player still in buys once, in its level or the break after it; its
price goes into the prize pool."""

from __future__ import annotations

import contextlib
from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tournaments.state import Tournament
from app.tournaments.writes import write


def addon_open(t: Tournament) -> bool:
    """The add-on can be bought while its level (`Settings.addon_at`), or the break after
    it, is on the clock."""
    if not t.settings.addon_chips or t.status not in ("running", "paused"):
        return False
    return t.settings.schedule.at(t.elapsed()).level == t.settings.addon_at() - 1


async def on_addon(t: Tournament, c: Command) -> dict[str, Any]:
    """A player still in buys the add-on, once: stored, then the chips go on their stack
    at their table (at once between hands, else when the hand ends: `t_addon`)."""
    pid = str(c.player_id)
    if not t.settings.addon_chips:
        raise TableError("no_addon", "this tournament has no add-on")
    if pid not in t.live:
        raise TableError("not_playing", "only players still in can take the add-on")
    if not addon_open(t):
        raise TableError("addon_closed", f"the add-on is taken during level "
                         f"{t.settings.addon_at()} or the break after it")  # fmt: skip
    entry = t.entry_of(pid)
    if entry.addon:
        raise TableError("addon_taken", "you have taken the add-on already")
    if entry.table is None:
        raise TableError("hand_running", "you are moving between tables; try again")
    chips = t.settings.addon_chips
    entry.addon = True
    try:
        await write(t, t.store.save_addon(t.id, entry))
        result = await t.registry.get(entry.table).request(
            "t_addon", None, player_id=pid, amount=chips
        )
    except TableError:
        entry.addon = False
        with contextlib.suppress(Exception):
            await t.store.save_addon(t.id, entry)
        raise
    state = t.tables[entry.table]
    if result.get("status") == "done":  # else the hand's end tells the director
        state.stacks[pid] = int(result["stack"])
    return {"chips": chips, "status": result.get("status")}


def chips_in(t: Tournament) -> int:
    """Every chip that entered: the starting stacks of all entries and the add-ons."""
    addons = sum(1 for e in t.entries.values() if e.addon)
    return len(t.entries) * t.settings.starting_stack + addons * t.settings.addon_chips


def prize_pool(t: Tournament) -> int:
    """The nominal prize pool: the host's, and the add-ons' price."""
    addons = sum(1 for e in t.entries.values() if e.addon)
    return t.settings.prize_pool + addons * t.settings.addon_price
