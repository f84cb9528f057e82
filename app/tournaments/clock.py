"""The tournament clock: the host pauses it (no deal until resumed, the level's time frozen)
and resumes it."""

from __future__ import annotations

from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tournaments.state import DirectorState


class Clock(DirectorState):
    async def _on_pause(self, c: Command) -> dict[str, Any]:
        if c.player_id != self.host_id:
            raise TableError("not_host", "only the host can do that")
        if self.status != "running":
            raise TableError("not_running", "the tournament is not running")
        self._elapsed, self._since = self.elapsed(), None
        self.status = "paused"
        try:
            await self._save_state()
        except TableError:
            self.status, self._since = "running", self.clock()
            raise
        return {"elapsed": self._elapsed}

    async def _on_resume(self, c: Command) -> dict[str, Any]:
        if c.player_id != self.host_id:
            raise TableError("not_host", "only the host can do that")
        if self.status != "paused":
            raise TableError("not_paused", "the tournament is not paused")
        self.status = "running"
        self._since = self.clock()
        try:
            await self._save_state()
        except TableError:
            self.status, self._since = "paused", None
            raise
        self._deal_all()
        return {"elapsed": self._elapsed}
