"""Verifiable deals, the table's concern (`Seeds`, a mixin of `Table` like `dealer.Dealer`;
docs/fairness.md): the session's server seed made and stored before its hash is published,
the players' client seeds (`seed`), the deck of each hand, and the reveal when a session ends
(closing the table, `rotate_seed`). The data and what each viewer gets of it are in
`app.tables.fairness`; the scheme itself in `app.poker.fairness`.

Nothing here is logged: seeds, salts and decks stay out of every log line.
"""

from __future__ import annotations

from typing import Any

from app.poker.cards import Card
from app.poker.fairness import SCHEME, FairnessError, check_client_seed
from app.tables.command import Command
from app.tables.errors import TableError
from app.tables.fairness import HandDeal, ServerSeed, make_deal
from app.tables.state import TableState
from app.tables.views import Record


def seed_record(seed: ServerSeed, reveal: bool) -> Record:
    return Record({"type": "deal_seed", "scheme": SCHEME, "seed_hash": seed.hash, "reveal": reveal})


class Seeds(TableState):
    async def _ensure_seed(self) -> ServerSeed:
        """The session's server seed, made and stored (then published) if it has none yet.
        Raises `TableError("unavailable")` when it cannot be stored: no hand is dealt
        without."""
        seed = self.server_seed
        if seed is not None:
            return seed
        seed = ServerSeed.new()
        await self._store(self.store.start_deal_seed(self.id, seed.id, seed.seed, seed.hash))
        self.server_seed = seed
        self._emit(seed_record(seed, self.config.reveal_seed))
        return seed

    async def _deal_deck(self, number: int) -> tuple[list[Card], HandDeal]:
        """The deck of the next hand from the session's seed and every seated player's latest
        client seed, in seat order (or the table's `deck_source`, a test's stacked deck,
        committed to all the same)."""
        seed = await self._ensure_seed()
        client = [s.client_seed for s in self.seats if s is not None]
        stacked = self._deck_source() if self._deck_source is not None else None
        return make_deal(seed, self.id, number, tuple(client), stacked)

    async def _on_seed(self, c: Command) -> dict[str, Any]:
        """A seated player's client seed, used from the next deal on (stored before the ok)."""
        seat = self.seat_of(c.player_id) if c.player_id is not None else None
        if seat is None:
            raise TableError("not_seated", "only a seated player sends a client seed")
        value = c.data.get("seed")
        try:
            check_client_seed(value if isinstance(value, str) else "")
        except FairnessError as error:
            raise TableError("bad_seed", str(error)) from None
        assert isinstance(value, str)
        if value != seat.client_seed:
            await self._store(self.store.set_client_seed(self.id, seat.number, value))
            seat.client_seed = value
        return {"seed": value}

    async def _reveal_seed(self, *, then_new: bool) -> None:
        """End the session's seed: revealed to the table unless the setting is off;
        `then_new` starts the next session's seed in the same write (a rotation)."""
        old = self.server_seed
        new = ServerSeed.new() if then_new else None
        show = self.config.reveal_seed
        if old is None and new is None:
            return
        await self._store(
            self.store.end_deal_seed(
                self.id,
                old.id if old is not None else None,
                show,
                (new.id, new.seed, new.hash) if new is not None else None,
            )
        )
        self.server_seed = new
        records = []
        if old is not None and show:
            records.append(
                Record(
                    {
                        "type": "seed_revealed",
                        "scheme": SCHEME,
                        "seed_hash": old.hash,
                        "seed": old.seed.hex(),
                    }
                )
            )
        if new is not None:
            records.append(seed_record(new, show))
        self._emit(*records)

    async def _on_rotate_seed(self, c: Command) -> dict[str, Any]:
        """Host: end this session's seed (revealed, unless the table keeps seeds secret) and
        start a new one. Between hands only: revealing the seed reveals the deck in play."""
        if self._hand_running():
            raise TableError("hand_running", "rotate the seed between hands (pause first)")
        await self._reveal_seed(then_new=True)
        seed = self.server_seed
        assert seed is not None
        return {"seed_hash": seed.hash, "revealed": self.config.reveal_seed}
