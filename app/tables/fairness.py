"""Verifiable deals at a table (docs/fairness.md): the session's server seed, the players'
client seeds, each hand's commitments, and who gets which opening.

The pure scheme is `app.poker.fairness` (`deal-v1`); this module supplies its seeds:

- a table session has one server seed (32 bytes from `secrets`), stored sealed before its
  SHA-256 is published (`deal_seed` record, the snapshot, every `hand_started`);
- a seated player may send a client seed (`seed`), stored before the `ok`; the deck of hand N
  is `deal_deck(server seed, table id, N, the seated players' latest client seeds in seat
  order)`;
- every hand carries a `HandDeal` (its client seeds, salts and commitments), stored sealed
  with the hand, so a restarted table re-sends the same commitments and openings;
- the seed is revealed when the session ends (the host closes the table or rotates the seed),
  unless the table's `reveal_seed` setting is off.

Nothing here is logged: seeds, salts and decks stay out of every log line.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from typing import Any, Protocol

from app.poker.cards import Card
from app.poker.fairness import (
    SCHEME,
    SEED_BYTES,
    DealCommitment,
    Opening,
    commit_deal,
    deal_deck,
    salts,
    seed_commitment,
)


class _Deck(Protocol):
    @property
    def deck(self) -> tuple[Card, ...]: ...


class Dealt(Protocol):
    """What the openings read of a hand (`app.tables.hand.Hand`, which imports this module)."""

    @property
    def deal(self) -> HandDeal | None: ...
    @property
    def state(self) -> _Deck: ...


@dataclass(frozen=True)
class ServerSeed:
    """One table session's server seed (secret until revealed) and its stored id."""

    id: str
    seed: bytes

    @property
    def hash(self) -> str:
        return seed_commitment(self.seed)

    @classmethod
    def new(cls) -> ServerSeed:
        return cls(str(uuid.uuid4()), secrets.token_bytes(SEED_BYTES))

    def __repr__(self) -> str:  # never the seed itself, should it reach a log line
        return f"ServerSeed({self.id!r}, sha256={self.hash[:12]}...)"


@dataclass(frozen=True)
class HandDeal:
    """What a hand's deck was committed with: stored sealed with the hand."""

    seed_id: str
    seed_hash: str
    client_seeds: tuple[str, ...]
    salts: tuple[bytes, ...]
    committed: DealCommitment

    def __repr__(self) -> str:
        return f"HandDeal(root={self.committed.root.hex()[:12]}...)"

    def stored(self) -> dict[str, Any]:
        return {
            "scheme": SCHEME,
            "seed": self.seed_id,
            "seed_hash": self.seed_hash,
            "client_seeds": list(self.client_seeds),
            "salts": [s.hex() for s in self.salts],
        }

    @classmethod
    def from_stored(cls, data: dict[str, Any] | None, deck: list[Card]) -> HandDeal | None:
        """The stored deal of a hand with this deck (None: a hand dealt before deal-v1)."""
        if not data:
            return None
        hand_salts = tuple(bytes.fromhex(s) for s in data["salts"])
        return cls(
            str(data["seed"]),
            str(data["seed_hash"]),
            tuple(str(c) for c in data["client_seeds"]),
            hand_salts,
            commit_deal(deck, hand_salts),
        )

    def public(self) -> dict[str, Any]:
        """What everyone at the table gets before the first action (`hand_started`)."""
        return {**self.committed.to_json(), "seed_hash": self.seed_hash}


def make_deal(
    seed: ServerSeed,
    table_id: str,
    number: int,
    client_seeds: tuple[str, ...],
    deck: list[Card] | None = None,
) -> tuple[list[Card], HandDeal]:
    """The deck of hand `number` and its commitments. `deck`: a deck chosen elsewhere (tests
    that stack it); it is committed to the same way, but cannot be recomputed from seeds."""
    if deck is None:
        deck = deal_deck(seed.seed, table_id, number, client_seeds)
    hand_salts = tuple(salts(seed.seed, table_id, number))
    return deck, HandDeal(
        seed.id, seed.hash, client_seeds, hand_salts, commit_deal(deck, hand_salts)
    )


def openings(hand: Dealt, cards: tuple[Card, ...] | list[Card]) -> list[dict[str, Any]]:
    """The openings of these cards of the hand (to whoever may see them): [] without a deal."""
    deal = hand.deal
    if deal is None:
        return []
    deck = hand.state.deck
    out = []
    for card in cards:
        position = deck.index(card)
        out.append(Opening(position, card, deal.salts[position]).to_json())
    return out


def opened(hand: Dealt, cards: tuple[Card, ...] | list[Card]) -> dict[str, Any]:
    """`{"openings": [...]}` to merge into a message that shows these cards ({} without)."""
    return {"openings": openings(hand, cards)} if hand.deal is not None else {}


def hand_fields(hand: Dealt) -> dict[str, Any]:
    """The hand's commitments, for `hand_started` and the snapshot's hand."""
    return {"deal": hand.deal.public()} if hand.deal is not None else {}


def table_fields(seed: ServerSeed | None, reveal: bool) -> dict[str, Any]:
    """The snapshot's `deal_seed`: the session's seed commitment (null before it has one)."""
    if seed is None:
        return {"deal_seed": None}
    return {"deal_seed": {"scheme": SCHEME, "seed_hash": seed.hash, "reveal": reveal}}
