"""The end of a tournament: one player holds every chip (or those left agreed a deal):
places, prizes, the results stored, the tables closed, the broken tables' seeds revealed."""

from __future__ import annotations

import asyncio
import logging

from app.tables.errors import TableError
from app.tournaments.addon import prize_pool
from app.tournaments.deal import apply_deal
from app.tournaments.payouts import prizes, split
from app.tournaments.reading import payouts
from app.tournaments.state import Tournament
from app.tournaments.writes import save_state, write

log = logging.getLogger("omaha.tournaments")


async def finish(t: Tournament, chop: str | None = None) -> None:
    """One player holds every chip (or those left agreed a `chop`): places, prizes, the
    results stored, the tables closed."""
    amounts = split(prize_pool(t), payouts(t))
    chopped: dict[str, int] = {}
    if chop is not None:
        try:
            chopped = await apply_deal(t, chop)
        except TableError as error:  # no figures (the worker failed): no deal, play on
            log.warning("tournament %s: the deal failed (%s)", t.id, error.code)
            t.chop_votes.clear()
            t.deal_all(t.between_hands)
            return
    else:
        winner = next(k for k, e in t.entries.items() if e.place is None)
        t.standings.win(winner)
        t.entries[winner].place = 1
    # Shared places' odd units go to the earliest entries (`prizes`): registration order.
    places = {k: t.standings.places[k] for k in t.entries if k in t.standings.places}
    for key, prize in prizes(places, amounts).items():
        t.entries[key].prize = chopped.get(key, prize)
    t.elapsed_before, t.since = t.elapsed(), None
    t.status = "finished"
    t.stop()
    for _ in range(3):  # the results must be stored: try a few times
        try:
            await write(t, t.store.save_places(t.id, list(t.entries.values())))
            await save_state(t)
            break
        except TableError:
            await asyncio.sleep(1.0)
    for state in t.tables.values():
        table = t.registry.get(state.id)
        for pid in list(state.seats.values()):
            await table.request("t_unseat", None, player_id=pid)
        await table.request("t_close")
        t.registry.directors.pop(state.id, None)
    try:  # the broken tables' seeds, sealed while their players played on
        await t.registry.store.reveal_seeds(t.broken)
    except Exception as error:
        log.error("tournament %s: broken tables' seeds not revealed (%s)", t.id,
                  type(error).__name__)  # fmt: skip
