"""Verifiable deals (docs/fairness.md): the session's server seed made and stored before its
hash is published, the players' client seeds (`seed`), the deck of each hand, and the reveal
when a session ends (closing the table, `rotate_seed`). The data and what each viewer gets
of it are in `app.tables.fairness`; the scheme itself in `app.poker.fairness`.

A new seed is drawn here (`secrets`, in `ServerSeed.new`): the one thing the machine makes
up itself. Nothing here is logged: seeds, salts and decks stay out of every log line.
"""

from __future__ import annotations

from app.poker.cards import Card
from app.poker.fairness import SCHEME, FairnessError, check_client_seed
from app.tables.commands import RotateSeed, Seed
from app.tables.core import Flow, Reply, TableCore
from app.tables.effects import Write
from app.tables.errors import TableError
from app.tables.fairness import HandDeal, ServerSeed, make_deal
from app.tables.ops import EndDealSeed, SetClientSeed, StartDealSeed
from app.tables.views import Record


def seed_record(seed: ServerSeed, reveal: bool) -> Record:
    return Record({"type": "deal_seed", "scheme": SCHEME, "seed_hash": seed.hash, "reveal": reveal})


def ensure_seed(t: TableCore) -> Flow[ServerSeed]:
    """The session's server seed, made and stored (then published) if it has none yet.
    Raises `TableError("unavailable")` when it cannot be stored: no hand is dealt
    without."""
    seed = t.kept.server_seed
    if seed is not None:
        return seed
    seed = ServerSeed.new()
    yield Write(StartDealSeed(seed.id, seed.seed, seed.hash))
    t.kept = t.kept._replace(server_seed=seed)
    t.emit(seed_record(seed, t.config.reveal_seed))
    return seed


def deal_deck(t: TableCore, number: int) -> Flow[tuple[list[Card], HandDeal]]:
    """The deck of the next hand from the session's seed and every seated player's latest
    client seed, in seat order (or the table's `deck_source`, a test's stacked deck,
    committed to all the same)."""
    seed = yield from ensure_seed(t)
    client = tuple(s.client_seed for s in t.seats.taken())
    stacked = t.deck_source() if t.deck_source is not None else None
    return make_deal(seed, t.id, number, client, stacked)


def seed(t: TableCore, c: Seed) -> Flow[Reply]:
    """A seated player's client seed, used from the next deal on (stored before the ok)."""
    seat = t.seat_of(c.sender) if c.sender is not None else None
    if seat is None:
        raise TableError("not_seated", "only a seated player sends a client seed")
    try:
        check_client_seed(c.seed)
    except FairnessError as error:
        raise TableError("bad_seed", str(error)) from None
    if c.seed != seat.client_seed:
        yield Write(SetClientSeed(seat.number, c.seed))
        t.put(seat._replace(client_seed=c.seed))
    return {"seed": c.seed}


def reveal_seed(t: TableCore, *, then_new: bool) -> Flow[None]:
    """End the session's seed: revealed to the table unless the setting is off;
    `then_new` starts the next session's seed in the same write (a rotation)."""
    old = t.kept.server_seed
    new = ServerSeed.new() if then_new else None
    show = t.config.reveal_seed
    if old is None and new is None:
        return
    yield Write(EndDealSeed(old.id if old is not None else None, show,
                            (new.id, new.seed, new.hash) if new is not None else None))  # fmt: skip
    t.kept = t.kept._replace(server_seed=new)
    records = []
    if old is not None and show:
        records.append(Record({"type": "seed_revealed", "scheme": SCHEME,
                               "seed_hash": old.hash, "seed": old.seed.hex()}))  # fmt: skip
    if new is not None:
        records.append(seed_record(new, show))
    t.emit(*records)


def rotate_seed(t: TableCore, c: RotateSeed) -> Flow[Reply]:
    """End this session's seed (revealed, unless the table keeps seeds secret) and start a
    new one. Between hands only: revealing the seed reveals the deck in play."""
    if t.hand_running():
        raise TableError("hand_running", "rotate the seed between hands (pause first)")
    yield from reveal_seed(t, then_new=True)
    seed = t.kept.server_seed
    assert seed is not None
    return {"seed_hash": seed.hash, "revealed": t.config.reveal_seed}
