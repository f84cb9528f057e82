"""Deals among the players left: each asks for (or agrees to) a chip chop or an ICM deal of the
figures shown, or withdraws; when all ask for the same on the same stacks, it ends the
tournament with those figures as prizes.

A vote is cast on the stacks of the moment (those between hands, which the figures show) and
lapses when they change: a deal is never applied to stacks nobody saw. So that the others can
answer on the same stacks, a player's first ask in a level opens deal talks: the next deal
waits `deal_hold` seconds (from the end of the hand being played), unless everyone withdraws.
The figures are computed once per change of stacks, off the event loop (`figures`)."""

from __future__ import annotations

import logging
from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tournaments.figures import Deal, Stacks
from app.tournaments.icm import MAX_PLAYERS as MAX_ICM_PLAYERS
from app.tournaments.payouts import split
from app.tournaments.state import DirectorState

log = logging.getLogger("omaha.tournaments")
KINDS = ("icm", "chips")


class Chop(DirectorState):
    def deal_stacks(self) -> tuple[list[str], Stacks, Stacks] | None:
        """The players left, their stacks and the prizes still to be paid, when a deal can
        be made (two to `MAX_ICM_PLAYERS` left, every one with chips at a table)."""
        stacks = {p: s for t in self.tables.values() for p, s in t.stacks.items() if s > 0}
        left = list(self.live)
        if not 2 <= len(left) <= MAX_ICM_PLAYERS or any(p not in stacks for p in left):
            return None
        prizes = split(self.prize_pool(), self.payouts())[: len(left)]
        while prizes and prizes[-1] == 0:
            prizes.pop()  # places paid nothing change no figure
        return left, tuple(stacks[p] for p in left), tuple(prizes)

    async def _on_chop(self, c: Command) -> dict[str, Any]:
        """A player left asks for (or agrees to) a deal: `kind` `icm` or `chips` (the figures
        of `deal_figures`), or `withdraw`s their ask. When every player left asks for the same
        kind on the same stacks, it is applied (once the hands being played end, if the stacks
        are still those)."""
        pid = str(c.player_id)
        kind = c.data.get("kind")
        if kind not in (*KINDS, "withdraw"):
            raise TableError("bad_deal", "a deal is icm or chips")
        if pid not in self.live or self.status not in ("running", "paused"):
            raise TableError("not_playing", "only players still in can ask for a deal")
        deal = self.deal_stacks()
        if kind == "withdraw":
            self.chop_votes.pop(pid, None)
            if self._talks_until is not None and not self._standing_votes():
                self._talks_until = None  # nobody asks any more: deal on at once
                self._deal_all()
            return self._votes(None)
        if deal is None:
            raise TableError("bad_deal", f"a deal is made by 2 to {MAX_ICM_PLAYERS} players "
                             "left, between moves")  # fmt: skip
        self.chop_votes[pid] = (str(kind), deal[1])
        level = self.settings.schedule.at(self.elapsed()).level
        if (pid, level) not in self._talks_called and self._talks_until is None:
            self._talks_called.add((pid, level))
            self._talks_pending = True  # from the end of the hand being played, or now
        agreed = self._chop_agreed()
        if agreed is not None and not any(t.playing for t in self.tables.values()):
            await self._finish(agreed)
        return self._votes(str(kind))

    def _votes(self, kind: str | None) -> dict[str, Any]:
        standing = self._standing_votes()
        return {"votes": sum(1 for k in standing.values() if k == kind) if kind else 0,
                "of": len(self.live), "agreed": self._chop_agreed() is not None}  # fmt: skip

    def _standing_votes(self) -> dict[str, str]:
        """The votes cast on the stacks of now (the others lapsed), by player."""
        deal = self.deal_stacks()
        if deal is None:
            return {}
        return {p: kind for p, (kind, on) in self.chop_votes.items()
                if on == deal[1] and p in self.live}  # fmt: skip

    def _chop_agreed(self) -> str | None:
        standing = self._standing_votes()
        kinds = set(standing.values())
        if len(kinds) == 1 and len(standing) == len(self.live) >= 2:
            return kinds.pop()
        return None

    def _deal_talks(self) -> float:
        """Seconds the next deal waits for deal talks (0: deal now)."""
        if self._talks_pending:
            self._talks_pending = False
            self._talks_until = self.clock() + self.deal_hold
        if self._talks_until is None:
            return 0.0
        left = self._talks_until - self.clock()
        if left > 0:
            return left
        self._talks_until = None
        self.chop_votes.clear()  # the talks are over: asks made in them lapse too
        return 0.0

    async def _chop(self, kind: str) -> dict[str, int]:
        """Place the players left by their stacks (equal stacks share a place) and give each
        their figure of the deal: the prizes of the places left, shared by ICM or by chips
        (the figures shown for these stacks). Raises `TableError` (nothing changed) when the
        figures cannot be made."""
        deal = self.deal_stacks()
        if deal is None:
            raise TableError("bad_deal", "no deal can be made now")
        left, stacks, prizes = deal
        chop, model = await self.figures.of(stacks, prizes)
        figures = model if kind == "icm" else chop
        for p, s in zip(left, stacks, strict=True):  # places by stack; equal stacks share one
            place = 1 + sum(1 for other in stacks if other > s)
            self.standings.places[self.live[p]] = self.entries[self.live[p]].place = place
        return {self.live[p]: f for p, f in zip(left, figures, strict=True)}

    async def deal_figures(self) -> list[dict[str, Any]]:
        """For a deal among the players left: each one's stack, chip-chop and ICM share of
        the prizes still to be paid (whole units that add up exactly)."""
        deal = self.deal_stacks()
        if deal is None:
            return []
        return self._figure_rows(deal, await self.figures.of(deal[1], deal[2]))

    def deal_view(self, viewer: str | None) -> dict[str, Any] | None:
        """The deal as the state shows it: the figures if known now (else being made), the
        votes on these stacks, the talks' time left and the viewer's own ask."""
        deal = self.deal_stacks()
        if deal is None or self.status not in ("running", "paused"):
            return None
        known = self.figures.ready(deal[1], deal[2])
        standing = self._standing_votes()
        talks = self._talks_until - self.clock() if self._talks_until is not None else None
        return {
            "players": self._figure_rows(deal, known) if known is not None else None,
            "votes": {k: sum(1 for v in standing.values() if v == k) for k in KINDS},
            "of": len(self.live),
            "talks": max(0.0, talks) if talks is not None else None,
            "yours": standing.get(viewer) if viewer is not None else None,
        }

    def _figure_rows(
        self, deal: tuple[list[str], Stacks, Stacks], figures: Deal
    ) -> list[dict[str, Any]]:
        left, stacks, _ = deal
        chop, model = figures
        rows = zip(left, stacks, chop, model, strict=True)
        return [{"player_id": p, "name": self.entry_of(p).name, "stack": s, "chip_chop": c,
                 "icm": m} for p, s, c, m in rows]  # fmt: skip
