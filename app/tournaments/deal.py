"""A deal among the players left, as data: who may deal on which stacks, the votes standing
on the stacks of now, the deal talks' wait, the figures shown, and the deal applied (places
by stack, each player's figure as their prize). The asks are `chop.on_chop`."""

from __future__ import annotations

from typing import Any

from app.tables.errors import TableError
from app.tournaments.addon import prize_pool
from app.tournaments.figures import Deal, Stacks
from app.tournaments.icm import MAX_PLAYERS as MAX_ICM_PLAYERS
from app.tournaments.payouts import split
from app.tournaments.reading import payouts
from app.tournaments.state import Tournament

KINDS = ("icm", "chips")
#: the players left, their stacks and the prizes still to be paid
DealStacks = tuple[list[str], Stacks, Stacks]


def deal_stacks(t: Tournament) -> DealStacks | None:
    """The players left, their stacks and the prizes still to be paid, when a deal can
    be made (two to `MAX_ICM_PLAYERS` left, every one with chips at a table)."""
    stacks = {p: s for table in t.tables.values() for p, s in table.stacks.items() if s > 0}
    left = list(t.live)
    if not 2 <= len(left) <= MAX_ICM_PLAYERS or any(p not in stacks for p in left):
        return None
    prizes = split(prize_pool(t), payouts(t))[: len(left)]
    while prizes and prizes[-1] == 0:
        prizes.pop()  # places paid nothing change no figure
    return left, tuple(stacks[p] for p in left), tuple(prizes)


def votes(t: Tournament, kind: str | None) -> dict[str, Any]:
    standing = standing_votes(t)
    return {"votes": sum(1 for k in standing.values() if k == kind) if kind else 0,
            "of": len(t.live), "agreed": chop_agreed(t) is not None}  # fmt: skip


def standing_votes(t: Tournament) -> dict[str, str]:
    """The votes cast on the stacks of now (the others lapsed), by player."""
    deal = deal_stacks(t)
    if deal is None:
        return {}
    return {p: kind for p, (kind, on) in t.chop_votes.items()
            if on == deal[1] and p in t.live}  # fmt: skip


def chop_agreed(t: Tournament) -> str | None:
    """The kind of deal every player left asks for on the stacks of now, if they agree."""
    standing = standing_votes(t)
    kinds = set(standing.values())
    if len(kinds) == 1 and len(standing) == len(t.live) >= 2:
        return kinds.pop()
    return None


def deal_talks(t: Tournament) -> float:
    """Seconds the next deal waits for deal talks (0: deal now)."""
    if t.talks_pending:
        t.talks_pending = False
        t.talks_until = t.clock() + t.deal_hold
    if t.talks_until is None:
        return 0.0
    left = t.talks_until - t.clock()
    if left > 0:
        return left
    t.talks_until = None
    t.chop_votes.clear()  # the talks are over: asks made in them lapse too
    return 0.0


async def apply_deal(t: Tournament, kind: str) -> dict[str, int]:
    """Place the players left by their stacks (equal stacks share a place) and give each
    their figure of the deal: the prizes of the places left, shared by ICM or by chips
    (the figures shown for these stacks), by entry. Raises `TableError` (nothing changed)
    when the figures cannot be made."""
    deal = deal_stacks(t)
    if deal is None:
        raise TableError("bad_deal", "no deal can be made now")
    left, stacks, prizes = deal
    chop, model = await t.figures.of(stacks, prizes)
    figures = model if kind == "icm" else chop
    for p, s in zip(left, stacks, strict=True):  # places by stack; equal stacks share one
        place = 1 + sum(1 for other in stacks if other > s)
        t.standings.places[t.live[p]] = t.entries[t.live[p]].place = place
    return {t.live[p]: f for p, f in zip(left, figures, strict=True)}


async def deal_figures(t: Tournament) -> list[dict[str, Any]]:
    """For a deal among the players left: each one's stack, chip-chop and ICM share of
    the prizes still to be paid (whole units that add up exactly)."""
    deal = deal_stacks(t)
    if deal is None:
        return []
    return _figure_rows(t, deal, await t.figures.of(deal[1], deal[2]))


def deal_view(t: Tournament, viewer: str | None) -> dict[str, Any] | None:
    """The deal as the state shows it: the figures if known now (else being made), the
    votes on these stacks, the talks' time left and the viewer's own ask."""
    deal = deal_stacks(t)
    if deal is None or t.status not in ("running", "paused"):
        return None
    known = t.figures.ready(deal[1], deal[2])
    standing = standing_votes(t)
    talks = t.talks_until - t.clock() if t.talks_until is not None else None
    return {
        "players": _figure_rows(t, deal, known) if known is not None else None,
        "votes": {k: sum(1 for v in standing.values() if v == k) for k in KINDS},
        "of": len(t.live),
        "talks": max(0.0, talks) if talks is not None else None,
        "yours": standing.get(viewer) if viewer is not None else None,
    }


def _figure_rows(t: Tournament, deal: DealStacks, figures: Deal) -> list[dict[str, Any]]:
    left, stacks, _ = deal
    chop, model = figures
    rows = zip(left, stacks, chop, model, strict=True)
    return [{"player_id": p, "name": t.entry_of(p).name, "stack": s, "chip_chop": c,
             "icm": m} for p, s, c, m in rows]  # fmt: skip
