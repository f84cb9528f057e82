"""Cards as small integers.

A card is an ``int`` from 0 to 51: ``rank * 4 + suit``, rank 0 being the deuce and 12 the
ace, suits in the order clubs, diamonds, hearts, spades. This is phevaluator's encoding, so
cards go to the evaluator without conversion, and ints keep the hot paths (dealing, showdown)
cheap. Text form is the usual two characters, ``"Ah"``, ``"Td"``, ``"2c"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

Card = int

RANKS: Final = "23456789TJQKA"
SUITS: Final = "cdhs"
SUIT_SYMBOLS: Final = "♣♦♥♠"
RANK_NAMES: Final = (
    "deuce", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king", "ace",
)  # fmt: skip
RANK_PLURALS: Final = (
    "deuces", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
    "jacks", "queens", "kings", "aces",
)  # fmt: skip

FULL_DECK: Final[tuple[Card, ...]] = tuple(range(52))


class CardError(ValueError):
    """Text that does not name a card, or a card named twice."""


def rank_of(card: Card) -> int:
    return card >> 2


def suit_of(card: Card) -> int:
    return card & 3


def make_card(rank: int, suit: int) -> Card:
    return rank * 4 + suit


def parse_card(text: str) -> Card:
    """``"Ah"`` -> card. Accepts ``10`` for the ten and either case for the rank."""
    t = text.strip()
    if t[:2] == "10":
        t = "T" + t[2:]
    if len(t) != 2:
        raise CardError(f"{text!r} is not a card")
    rank = RANKS.find(t[0].upper())
    suit = SUITS.find(t[1].lower())
    if rank < 0 or suit < 0:
        raise CardError(f"{text!r} is not a card")
    return make_card(rank, suit)


def parse_cards(text: str) -> tuple[Card, ...]:
    """``"AhKs2c"`` or ``"Ah Ks 2c"`` -> cards; refuses a card named twice."""
    compact = "".join(text.split()).replace("10", "T")
    if len(compact) % 2:
        raise CardError(f"{text!r} is not a list of cards")
    cards = tuple(parse_card(compact[i : i + 2]) for i in range(0, len(compact), 2))
    if len(set(cards)) != len(cards):
        raise CardError(f"{text!r} names a card twice")
    return cards


def card_str(card: Card) -> str:
    if not 0 <= card < 52:
        raise CardError(f"{card} is not a card")
    return RANKS[card >> 2] + SUITS[card & 3]


def cards_str(cards: Iterable[Card], sep: str = "") -> str:
    return sep.join(card_str(c) for c in cards)


def pretty(cards: Sequence[Card]) -> str:
    """Cards with suit symbols, as a person reads them: ``A♠ 7♥``."""
    return " ".join(RANKS[c >> 2] + SUIT_SYMBOLS[c & 3] for c in cards)
