"""The table's commands for verifiable deals (docs/fairness.md): the session's server seed
made and stored before its hash is published, the players' client seeds, the deck of each
hand, and the reveal when a session ends. The data and what each viewer gets of it are in
`app.tables.fairness`; the scheme itself in `app.poker.fairness`.

Nothing here is logged: seeds, salts and decks stay out of every log line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.poker.cards import Card
from app.poker.fairness import SCHEME, FairnessError, check_client_seed
from app.tables.errors import TableError
from app.tables.fairness import HandDeal, ServerSeed, make_deal
from app.tables.views import Record

if TYPE_CHECKING:
    from app.tables.table import Command, Table


def seed_record(seed: ServerSeed, reveal: bool) -> Record:
    return Record({"type": "deal_seed", "scheme": SCHEME, "seed_hash": seed.hash, "reveal": reveal})


async def ensure_seed(table: Table) -> ServerSeed:
    """The session's server seed, made and stored (then published) if it has none yet.
    Raises `TableError("unavailable")` when it cannot be stored: no hand is dealt without."""
    seed = table.server_seed
    if seed is not None:
        return seed
    seed = ServerSeed.new()
    await table._store(table.store.start_deal_seed(table.id, seed.id, seed.seed, seed.hash))
    table.server_seed = seed
    table._emit(seed_record(seed, table.config.reveal_seed))
    return seed


async def deal(table: Table, number: int) -> tuple[list[Card], HandDeal]:
    """The deck of the next hand from the session's seed and every seated player's latest
    client seed, in seat order (or the table's `deck_source`, a test's stacked deck, committed
    to all the same)."""
    seed = await ensure_seed(table)
    client = [s.client_seed for s in table.seats if s is not None]
    stacked = table._deck_source() if table._deck_source is not None else None
    return make_deal(seed, table.id, number, tuple(client), stacked)


async def on_seed(table: Table, c: Command) -> dict[str, Any]:
    """A seated player's client seed, used from the next deal on (stored before the ok)."""
    seat = table.seat_of(c.player_id) if c.player_id is not None else None
    if seat is None:
        raise TableError("not_seated", "only a seated player sends a client seed")
    value = c.data.get("seed")
    try:
        check_client_seed(value if isinstance(value, str) else "")
    except FairnessError as error:
        raise TableError("bad_seed", str(error)) from None
    assert isinstance(value, str)
    if value != seat.client_seed:
        await table._store(table.store.set_client_seed(table.id, seat.number, value))
        seat.client_seed = value
    return {"seed": value}


async def reveal(table: Table, *, then_new: bool) -> None:
    """End the session's seed: revealed to the table unless the setting is off; `then_new`
    starts the next session's seed in the same write (a rotation)."""
    old = table.server_seed
    new = ServerSeed.new() if then_new else None
    show = table.config.reveal_seed
    if old is None and new is None:
        return
    await table._store(
        table.store.end_deal_seed(
            table.id,
            old.id if old is not None else None,
            show,
            (new.id, new.seed, new.hash) if new is not None else None,
        )
    )
    table.server_seed = new
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
    table._emit(*records)


async def on_rotate_seed(table: Table, c: Command) -> dict[str, Any]:
    """Host: end this session's seed (revealed, unless the table keeps seeds secret) and start
    a new one. Between hands only: revealing the seed reveals the deck being played."""
    if table._hand_running():
        raise TableError("hand_running", "rotate the seed between hands (pause first)")
    await reveal(table, then_new=True)
    seed = table.server_seed
    assert seed is not None
    return {"seed_hash": seed.hash, "revealed": table.config.reveal_seed}
