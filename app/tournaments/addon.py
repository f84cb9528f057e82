"""The add-on: chips a player still in buys once, in its level or the break after it; its
price goes into the prize pool."""

from __future__ import annotations

import contextlib
from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tournaments.state import DirectorState


class Addon(DirectorState):
    def addon_open(self) -> bool:
        """The add-on can be bought while its level (`Settings.addon_at`), or the break after
        it, is on the clock."""
        if not self.settings.addon_chips or self.status not in ("running", "paused"):
            return False
        return self.settings.schedule.at(self.elapsed()).level == self.settings.addon_at() - 1

    async def _on_addon(self, c: Command) -> dict[str, Any]:
        """A player still in buys the add-on, once: stored, then the chips go on their stack
        at their table (at once between hands, else when the hand ends: `t_addon`)."""
        pid = str(c.player_id)
        if not self.settings.addon_chips:
            raise TableError("no_addon", "this tournament has no add-on")
        if pid not in self.live:
            raise TableError("not_playing", "only players still in can take the add-on")
        if not self.addon_open():
            raise TableError("addon_closed", f"the add-on is taken during level "
                             f"{self.settings.addon_at()} or the break after it")  # fmt: skip
        entry = self.entry_of(pid)
        if entry.addon:
            raise TableError("addon_taken", "you have taken the add-on already")
        if entry.table is None:
            raise TableError("hand_running", "you are moving between tables; try again")
        chips = self.settings.addon_chips
        entry.addon = True
        try:
            await self._write(self.store.save_addon(self.id, entry))
            result = await self.registry.get(entry.table).request(
                "t_addon", None, player_id=pid, amount=chips
            )
        except TableError:
            entry.addon = False
            with contextlib.suppress(Exception):
                await self.store.save_addon(self.id, entry)
            raise
        state = self.tables[entry.table]
        if result.get("status") == "done":  # else the hand's end tells the director
            state.stacks[pid] = int(result["stack"])
        return {"chips": chips, "status": result.get("status")}

    def chips_in(self) -> int:
        """Every chip that entered: the starting stacks of all entries and the add-ons."""
        addons = sum(1 for e in self.entries.values() if e.addon)
        return len(self.entries) * self.settings.starting_stack + addons * self.settings.addon_chips

    def prize_pool(self) -> int:
        """The nominal prize pool: the host's, and the add-ons' price."""
        addons = sum(1 for e in self.entries.values() if e.addon)
        return self.settings.prize_pool + addons * self.settings.addon_price
