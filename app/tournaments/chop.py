"""Deals among the players left: each asks for (or agrees to) a chip chop or an ICM deal;
when all ask for the same, it ends the tournament with their figures as prizes."""

from __future__ import annotations

from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tournaments.icm import MAX_PLAYERS as MAX_ICM_PLAYERS
from app.tournaments.icm import chip_chop, icm, whole
from app.tournaments.payouts import split
from app.tournaments.state import DirectorState


class Chop(DirectorState):
    async def _on_chop(self, c: Command) -> dict[str, Any]:
        """A player left asks for (or agrees to) a deal: `kind` `icm` or `chips` (the figures
        of `deal_figures`). When every player left has asked for the same kind, it is applied
        once the hands being played end."""
        pid = str(c.player_id)
        kind = c.data.get("kind")
        if kind not in ("icm", "chips"):
            raise TableError("bad_deal", "a deal is icm or chips")
        if pid not in self.live or self.status not in ("running", "paused"):
            raise TableError("not_playing", "only players still in can ask for a deal")
        if len(self.live) > MAX_ICM_PLAYERS:
            raise TableError("bad_deal", f"a deal is made by {MAX_ICM_PLAYERS} players at most")
        self.chop_votes[pid] = str(kind)
        agreed = self._chop_agreed()
        if agreed is not None and not any(t.playing for t in self.tables.values()):
            await self._finish(agreed)
        return {"votes": sum(1 for p in self.live if self.chop_votes.get(p) == kind),
                "of": len(self.live), "agreed": agreed is not None}  # fmt: skip

    def _chop_agreed(self) -> str | None:
        kinds = {self.chop_votes.get(p) for p in self.live}
        if len(kinds) == 1 and (kind := kinds.pop()) is not None and len(self.live) >= 2:
            return kind
        return None

    def _chop(self, kind: str, amounts: list[int]) -> dict[str, int]:
        """Place the players left by their stacks (equal stacks share a place) and give each
        their figure of the deal: the prizes of the places left, shared by ICM or by chips."""
        stacks = {p: s for t in self.tables.values() for p, s in t.stacks.items()}
        left = list(self.live)
        chips = [stacks[p] for p in left]
        paid = (amounts + [0] * len(left))[: len(left)]
        figures = whole(icm(chips, paid) if kind == "icm" else chip_chop(chips, paid))
        for p in left:  # places by stack; equal stacks share a place
            place = 1 + sum(1 for q in left if stacks[q] > stacks[p])
            self.standings.places[self.live[p]] = self.entries[self.live[p]].place = place
        return {self.live[p]: f for p, f in zip(left, figures, strict=True)}

    def deal_figures(self) -> list[dict[str, Any]]:
        """For a deal among the players left: each one's stack, chip-chop and ICM share of
        the prizes still to be paid (whole units that add up exactly)."""
        stacks = {p: s for t in self.tables.values() for p, s in t.stacks.items() if s > 0}
        left = [p for p in self.live if p in stacks]
        if len(left) < 2 or len(left) > MAX_ICM_PLAYERS:
            return []
        amounts = split(self.prize_pool(), self.payouts())[: len(left)]
        chips = [stacks[p] for p in left]
        chop = whole(chip_chop(chips, amounts))
        model = whole(icm(chips, amounts))
        return [{"player_id": p, "name": self.entry_of(p).name, "stack": stacks[p],
                 "chip_chop": c, "icm": m}
                for p, c, m in zip(left, chop, model, strict=True)]  # fmt: skip
