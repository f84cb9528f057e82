"""Verifiable deals, scheme ``deal-v1``: a deck from committed seeds, and per-card commitments.

Pure functions, no I/O and no clock: the table supplies the seeds, and anyone holding the same
seeds gets the same deck (docs/fairness.md specifies every byte so another implementation can
check ours; tests/poker/test_fairness.py pins known answers).

- The deck of a hand is a Fisher–Yates shuffle of ``FULL_DECK`` (cards 0..51, as in
  ``cards.py``) driven by HMAC-SHA256 in counter mode, keyed by the table session's server
  seed, over the table id, the hand number and the seated players' client seeds in seat order.
  Each index is drawn by rejection sampling from 32-bit words, so no index is favoured.
- Each deck position ``p`` holding card ``c`` is committed to as
  ``SHA-256("deal-v1/commit" ‖ p ‖ c ‖ salt_p)``; the salts are derived from the server seed
  (HMAC, unpredictable without it), so revealing the seed at the end of a session lets anyone
  recompute every deck *and* every commitment. The commitments' Merkle root (RFC 6962 tree
  hash) names the whole deck in 32 bytes.
- Whoever sees a card gets its opening ``(position, card, salt)``; ``verify_opening`` checks
  it against the commitment published before the first action.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from .cards import FULL_DECK, Card, card_str

SCHEME: Final = "deal-v1"
SEED_BYTES: Final = 32
SALT_BYTES: Final = 16
MAX_CLIENT_SEED: Final = 64
"""Longest client seed in bytes; a client seed is 1..64 bytes of printable ASCII."""

_DECK_LABEL: Final = b"deal-v1/deck"
_SALT_LABEL: Final = b"deal-v1/salt"
_COMMIT_LABEL: Final = b"deal-v1/commit"


class FairnessError(ValueError):
    """A seed, position or opening that the scheme does not accept."""


def seed_commitment(server_seed: bytes) -> str:
    """What is published before the first hand: the SHA-256 of the server seed, in hex."""
    _check_seed(server_seed)
    return hashlib.sha256(server_seed).hexdigest()


def check_client_seed(seed: str) -> bytes:
    """A client seed as bytes: 1..64 printable ASCII characters (space to tilde)."""
    if not 1 <= len(seed) <= MAX_CLIENT_SEED or not all(" " <= ch <= "~" for ch in seed):
        raise FairnessError("a client seed is 1 to 64 printable ASCII characters")
    return seed.encode("ascii")


def _check_seed(server_seed: bytes) -> None:
    if len(server_seed) != SEED_BYTES:
        raise FairnessError(f"a server seed is {SEED_BYTES} bytes")


def _field(data: bytes) -> bytes:
    """A length-prefixed field (2 bytes, big-endian), so no two inputs encode the same."""
    return len(data).to_bytes(2, "big") + data


def deal_message(table_id: str, hand_number: int, client_seeds: Sequence[str]) -> bytes:
    """The HMAC message before the counter: label, table id, hand number, client seeds.

    ``client_seeds`` are the seated players' latest seeds in seat order ("" for a seat that
    sent none: it contributes an empty field).
    """
    if not 0 <= hand_number < 2**63:
        raise FairnessError("a hand number is between 0 and 2**63 - 1")
    parts = [_field(_DECK_LABEL), _field(table_id.encode("utf-8")), hand_number.to_bytes(8, "big")]
    parts.append(len(client_seeds).to_bytes(2, "big"))
    for seed in client_seeds:
        parts.append(_field(check_client_seed(seed) if seed else b""))
    return b"".join(parts)


def _words(server_seed: bytes, message: bytes) -> Iterator[int]:
    """32-bit big-endian words of HMAC-SHA256(seed, message ‖ counter) for counter 0, 1, ..."""
    counter = 0
    while True:
        block = hmac.new(server_seed, message + counter.to_bytes(4, "big"), "sha256").digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        counter += 1


def _below(words: Iterator[int], n: int) -> int:
    """A uniform integer in [0, n): rejection sampling, then the remainder (no modulo bias)."""
    limit = 2**32 - (2**32 % n)
    while True:
        w = next(words)
        if w < limit:
            return w % n


def deal_deck(
    server_seed: bytes, table_id: str, hand_number: int, client_seeds: Sequence[str]
) -> list[Card]:
    """The deck of one hand: deck[0] is dealt first, exactly as the engine reads a deck."""
    _check_seed(server_seed)
    words = _words(server_seed, deal_message(table_id, hand_number, client_seeds))
    deck = list(FULL_DECK)
    for i in range(len(deck) - 1, 0, -1):
        j = _below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def salts(server_seed: bytes, table_id: str, hand_number: int) -> list[bytes]:
    """The 52 salts of a hand, one per deck position."""
    _check_seed(server_seed)
    head = _field(_SALT_LABEL) + _field(table_id.encode("utf-8")) + hand_number.to_bytes(8, "big")
    return [
        hmac.new(server_seed, head + p.to_bytes(1, "big"), "sha256").digest()[:SALT_BYTES]
        for p in range(len(FULL_DECK))
    ]


def commitment(position: int, card: Card, salt: bytes) -> bytes:
    """SHA-256(label ‖ position ‖ card as two ASCII characters ‖ salt)."""
    if not 0 <= position < len(FULL_DECK):
        raise FairnessError("a deck position is 0 to 51")
    if len(salt) != SALT_BYTES:
        raise FairnessError(f"a salt is {SALT_BYTES} bytes")
    data = _COMMIT_LABEL + position.to_bytes(1, "big") + card_str(card).encode("ascii") + salt
    return hashlib.sha256(data).digest()


def commitments(deck: Sequence[Card], deck_salts: Sequence[bytes]) -> list[bytes]:
    if len(deck) != len(FULL_DECK) or sorted(deck) != list(FULL_DECK):
        raise FairnessError("a deck is the 52 cards, each once")
    if len(deck_salts) != len(deck):
        raise FairnessError("one salt per deck position")
    return [commitment(p, c, s) for p, (c, s) in enumerate(zip(deck, deck_salts, strict=True))]


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """RFC 6962's Merkle tree hash: leaf = H(0x00 ‖ d), node = H(0x01 ‖ left ‖ right),
    split at the largest power of two below the count."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + merkle_root(leaves[:k]) + merkle_root(leaves[k:])).digest()


@dataclass(frozen=True, slots=True)
class Opening:
    """What a viewer gets with each card it may see: enough to check one commitment."""

    position: int
    card: Card
    salt: bytes

    def to_json(self) -> dict[str, object]:
        return {"position": self.position, "card": card_str(self.card), "salt": self.salt.hex()}


@dataclass(frozen=True, slots=True)
class DealCommitment:
    """A hand's deck, committed: published in ``hand_started`` before the first action."""

    scheme: str
    commitments: tuple[bytes, ...]
    root: bytes

    def to_json(self) -> dict[str, object]:
        return {
            "scheme": self.scheme,
            "commitments": [c.hex() for c in self.commitments],
            "root": self.root.hex(),
        }


def commit_deal(deck: Sequence[Card], deck_salts: Sequence[bytes]) -> DealCommitment:
    leaves = commitments(deck, deck_salts)
    return DealCommitment(SCHEME, tuple(leaves), merkle_root(leaves))


def opening(deck: Sequence[Card], deck_salts: Sequence[bytes], position: int) -> Opening:
    return Opening(position, deck[position], deck_salts[position])


def verify_opening(committed: Sequence[bytes], op: Opening) -> bool:
    """Does the opening match the commitment published for its position?"""
    if not 0 <= op.position < len(committed):
        return False
    try:
        expected = commitment(op.position, op.card, op.salt)
    except (FairnessError, ValueError):
        return False
    return hmac.compare_digest(expected, committed[op.position])
