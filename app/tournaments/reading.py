"""What the director answers of its tournament: the clock, the field, the standings."""

from __future__ import annotations

from typing import Any

from app.tables.command import Command
from app.tournaments.payouts import preset, split
from app.tournaments.state import DirectorState


class Reading(DirectorState):
    async def _on_status(self, c: Command) -> dict[str, Any]:
        return self.status_view()

    def status_view(self) -> dict[str, Any]:
        schedule = self.settings.schedule
        moment = schedule.at(self.elapsed())
        level = schedule.levels[moment.level]
        left = [e for e in self.entries.values() if e.place is None]
        chips = sum(sum(t.stacks.values()) for t in self.tables.values())
        return {
            "id": self.id,
            "name": self.settings.name,
            "status": self.status,
            "level": moment.level + 1,
            "on_break": moment.on_break,
            "remaining": moment.remaining,
            "blinds": level.to_json(),
            "next": schedule.levels[moment.next_level].to_json()
            if moment.next_level is not None
            else None,
            "players_left": len(left) if self.status != "registering" else len(self.entries),
            "entries": len(self.entries),
            "average_stack": chips // len(left) if left and chips else 0,
            "payouts": split(self.prize_pool(), self.payouts()),
            "prize_pool": self.prize_pool(),
            "addon": {
                "chips": self.settings.addon_chips,
                "price": self.settings.addon_price,
                "level": self.settings.addon_at(),
                "open": self.addon_open(),
                "taken": sum(1 for e in self.entries.values() if e.addon),
            }
            if self.settings.addon_chips
            else None,
            "standings": self.results(),
            "hand_for_hand": self.hand_for_hand(),
            "seats": self.settings.seats,
            "start_at": self.settings.start_at,
        }

    def hand_for_hand(self) -> bool:
        """Near the money at more than one table: the next round can burst the bubble. The
        tables always play a round a hand each and wait for each other (`_on_hand_ended`),
        so every round is played hand for hand; this says the bubble is near (TDA RP-8)."""
        if self.status not in ("running", "paused") or len(self.tables) < 2:
            return False
        paid = sum(1 for amount in split(self.prize_pool(), self.payouts()) if amount > 0)
        return 0 < paid < self.standings.left <= paid + len(self.tables)

    def results(self) -> list[dict[str, Any]]:
        """The places given so far, best first: place, player, prize."""
        placed = [e for e in self.entries.values() if e.place is not None]
        placed.sort(key=lambda e: (e.place or 0, e.name))
        return [{"place": e.place, "player_id": e.player_id, "name": e.name, "prize": e.prize,
                 "addon": e.addon} for e in placed]  # fmt: skip

    def payouts(self) -> tuple[int, ...]:
        """The basis points paid per place (the preset for the field when none was set)."""
        if self.settings.payouts is not None:
            return self.settings.payouts
        return preset(max(2, len(self.entries)))
