"""Deals among the players left: each asks for (or agrees to) a chip chop or an ICM deal of the
figures shown, or withdraws; when all ask for the same on the same stacks, it ends the
tournament with those figures as prizes.

A vote is cast on the stacks of the moment (those between hands, which the figures show) and
lapses when they change: a deal is never applied to stacks nobody saw. So that the others can
answer on the same stacks, a player's first ask in a level opens deal talks: the next deal
waits `deal_hold` seconds (from the end of the hand being played), unless everyone withdraws.
The figures are computed once per change of stacks, off the event loop (`figures`); the deal
as data (stacks, votes, talks, figures) is `deal`."""

from __future__ import annotations

from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tournaments.deal import KINDS, chop_agreed, deal_stacks, standing_votes, votes
from app.tournaments.finish import finish
from app.tournaments.icm import MAX_PLAYERS as MAX_ICM_PLAYERS
from app.tournaments.state import Tournament


async def on_chop(t: Tournament, c: Command) -> dict[str, Any]:
    """A player left asks for (or agrees to) a deal: `kind` `icm` or `chips` (the figures
    of `deal.deal_figures`), or `withdraw`s their ask. When every player left asks for the
    same kind on the same stacks, it is applied (once the hands being played end, if the
    stacks are still those)."""
    pid = str(c.player_id)
    kind = c.data.get("kind")
    if kind not in (*KINDS, "withdraw"):
        raise TableError("bad_deal", "a deal is icm or chips")
    if pid not in t.live or t.status not in ("running", "paused"):
        raise TableError("not_playing", "only players still in can ask for a deal")
    deal = deal_stacks(t)
    if kind == "withdraw":
        t.chop_votes.pop(pid, None)
        if t.talks_until is not None and not standing_votes(t):
            t.talks_until = None  # nobody asks any more: deal on at once
            t.deal_all()
        return votes(t, None)
    if deal is None:
        raise TableError("bad_deal", f"a deal is made by 2 to {MAX_ICM_PLAYERS} players "
                         "left, between moves")  # fmt: skip
    t.chop_votes[pid] = (str(kind), deal[1])
    level = t.settings.schedule.at(t.elapsed()).level
    if (pid, level) not in t.talks_called and t.talks_until is None:
        t.talks_called.add((pid, level))
        t.talks_pending = True  # from the end of the hand being played, or now
    agreed = chop_agreed(t)
    if agreed is not None and not any(s.playing for s in t.tables.values()):
        await finish(t, agreed)
    return votes(t, str(kind))
