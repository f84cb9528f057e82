"""Omaha hand evaluation: the best high hand and the best eight-or-better low.

The Omaha rule: a hand is exactly two hole cards and exactly three board cards, chosen
separately for the high and for the low (the two may use different hole cards). Hands have
4, 5 or 6 hole cards; the board has 5 cards at showdown, and 3 or 4 are accepted too so
that a player's current hand can be shown after the flop or the turn.

Values: smaller is stronger, both for high and for low.

* High: phevaluator's scale, 1 (royal flush) .. 7462 (seven-high). Four hole cards with a
  five-card board is one call of phevaluator's native Omaha evaluator. Five and six hole
  cards use a covering of every hole pair by three 4-card subsets of the hand:
  {0123, 0124, 0134} for five cards, {0123, 0145, 2345} for six, so the minimum of three
  native calls is exact. Three- and four-card boards go through every 2+3 combination.
* Low: the ranks of the five low cards as a bit mask, bit ``r - 1`` for rank ``r`` (ace = 1
  .. eight = 8). For sets of five ranks, integer order of these masks is exactly the
  ace-to-five order read from the highest card down, so smaller is stronger:
  5-4-3-2-A = 0b00011111 = 31 is the best, 8-7-6-5-4 = 0b11111000 = 248 the worst.
  ``None`` means no eight-or-better low. The best low depends only on the set of distinct
  low ranks on the board and in the hand, so it is one lookup in a 256 x 256 table that is
  computed at import time.

The value functions check the card counts but not the cards themselves (they are on the
showdown and equity hot paths); ``describe_high``/``describe_low`` check everything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement
from typing import Final

from app.poker.cards import RANK_NAMES, RANK_PLURALS, Card, card_str

# phevaluator 0.6 is a C extension, ``_pheval``; its public functions are Python wrappers that
# convert every card through ``Card.to_id`` and cost ~5x the native call. Older releases have
# no extension: then the public functions are used (same values, tested).
try:
    from phevaluator import _pheval

    _eval5: Callable[[int, int, int, int, int], int] = _pheval.evaluate_5cards
    _omaha: Callable[[int, int, int, int, int, int, int, int, int], int] = (
        _pheval.evaluate_omaha_cards
    )
    NATIVE = True
except ImportError:  # pragma: no cover - exercised by a test that hides the extension
    from phevaluator import evaluate_cards as _evaluate_cards
    from phevaluator import evaluate_omaha_cards as _evaluate_omaha_cards

    _eval5 = _evaluate_cards
    _omaha = _evaluate_omaha_cards
    NATIVE = False

__all__ = [
    "HIGH_WORST",
    "LOW_BEST",
    "LOW_WORST",
    "HandDescription",
    "describe_checked_high",
    "describe_checked_low",
    "describe_high",
    "describe_low",
    "high_category",
    "high_value",
    "low_ranks",
    "low_value",
]

HIGH_WORST: Final = 7462
"""The weakest high value (seven-five-four-three-deuce); 1 is a royal flush."""
LOW_BEST: Final = 0b00011111
"""The wheel, 5-4-3-2-A."""
LOW_WORST: Final = 0b11111000
"""8-7-6-5-4, the weakest qualifying low."""

HOLE_COUNTS: Final = (4, 5, 6)
BOARD_COUNTS: Final = (3, 4, 5)

# phevaluator's categories: the weakest (largest) value of each, strongest category first.
_CATEGORY_LIMITS: Final = (
    (10, "straight flush"),
    (166, "four of a kind"),
    (322, "full house"),
    (1599, "flush"),
    (1609, "straight"),
    (2467, "three of a kind"),
    (3325, "two pair"),
    (6185, "pair"),
    (HIGH_WORST, "high card"),
)


# --------------------------------------------------------------------------------- high


def _counts_error(hole: Sequence[Card], board: Sequence[Card]) -> ValueError:
    return ValueError(
        f"Omaha needs {'/'.join(map(str, HOLE_COUNTS))} hole cards and "
        f"{'/'.join(map(str, BOARD_COUNTS))} board cards, got {len(hole)} and {len(board)}"
    )


def high_value(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """Best Omaha high hand: exactly two hole cards and three board cards.

    SMALLER IS STRONGER: phevaluator's scale, 1 = royal flush .. 7462 = worst high card.
    """
    n = len(hole)
    if len(board) == 5:
        b0, b1, b2, b3, b4 = board
        if n == 4:
            return _omaha(b0, b1, b2, b3, b4, *hole)
        if n == 5:
            h0, h1, h2, h3, h4 = hole
            v = _omaha(b0, b1, b2, b3, b4, h0, h1, h2, h3)
            w = _omaha(b0, b1, b2, b3, b4, h0, h1, h2, h4)
            if w < v:
                v = w
            w = _omaha(b0, b1, b2, b3, b4, h0, h1, h3, h4)
            return w if w < v else v
        if n == 6:
            h0, h1, h2, h3, h4, h5 = hole
            v = _omaha(b0, b1, b2, b3, b4, h0, h1, h2, h3)
            w = _omaha(b0, b1, b2, b3, b4, h0, h1, h4, h5)
            if w < v:
                v = w
            w = _omaha(b0, b1, b2, b3, b4, h2, h3, h4, h5)
            return w if w < v else v
        raise _counts_error(hole, board)
    if n not in HOLE_COUNTS or len(board) not in BOARD_COUNTS:
        raise _counts_error(hole, board)
    return min(
        _eval5(a, b, c, d, e)
        for a, b in combinations(hole, 2)
        for c, d, e in combinations(board, 3)
    )


def high_category(value: int) -> str:
    """The category of a high value: "straight flush", "four of a kind", .. "high card"."""
    if not 1 <= value <= HIGH_WORST:
        raise ValueError(f"{value} is not a high hand value")
    for limit, name in _CATEGORY_LIMITS:
        if value <= limit:
            return name
    raise AssertionError("unreachable")  # pragma: no cover


# ---------------------------------------------------------------------------------- low

# Low-rank bit of each card: ace -> bit 0, deuce -> bit 1, .. eight -> bit 7; 0 above eight.
_LOW_BIT: Final[tuple[int, ...]] = tuple(
    (1 if c >> 2 == 12 else (1 << ((c >> 2) + 1) if c >> 2 <= 6 else 0)) for c in range(52)
)
# The same, shifted to the board's half of the table index.
_LOW_BIT_BOARD: Final[tuple[int, ...]] = tuple(b << 8 for b in _LOW_BIT)


def _build_low_table() -> list[int | None]:
    """Best low for every (board low-rank set, hole low-rank set): index ``board << 8 | hole``.

    With the pair of hole ranks fixed, the best three board ranks are the three lowest ones
    not in the pair; the best low of a hole rank set is the best over its pairs, found by
    removing the lowest rank: best(H) = min(best(H minus lowest), pairs with the lowest).
    """
    none = 1 << 8  # worse than any low while building
    pairs = [(1 << i) | (1 << j) for i in range(8) for j in range(i + 1, 8)]
    table: list[int | None] = [None] * (1 << 16)
    for board in range(256):
        if board.bit_count() < 3:
            continue
        with_pair = [none] * 256
        for pair in pairs:
            rest = board & ~pair
            if rest.bit_count() >= 3:
                low = pair
                for _ in range(3):
                    bit = rest & -rest
                    low |= bit
                    rest ^= bit
                with_pair[pair] = low
        best = [none] * 256
        for hole in range(1, 256):
            lowest = hole & -hole
            value = best[hole ^ lowest]
            others = hole ^ lowest
            while others:
                bit = others & -others
                others ^= bit
                candidate = with_pair[lowest | bit]
                if candidate < value:
                    value = candidate
            best[hole] = value
            if value != none:
                table[board << 8 | hole] = value
    return table


_LOW_TABLE: Final = _build_low_table()


def low_value(hole: Sequence[Card], board: Sequence[Card]) -> int | None:
    """Best eight-or-better ace-to-five low, or ``None`` when none qualifies.

    Five distinct ranks, all eight or lower, ace low, straights and flushes ignored; exactly
    two hole cards and three board cards. SMALLER IS STRONGER: the value is the rank mask
    (see the module doc), whose integer order compares lows from the highest card down.
    """
    lb = _LOW_BIT_BOARD
    lh = _LOW_BIT
    n = len(hole)
    if len(board) == 5:
        b0, b1, b2, b3, b4 = board
        key = lb[b0] | lb[b1] | lb[b2] | lb[b3] | lb[b4]
    elif len(board) in BOARD_COUNTS:
        key = 0
        for c in board:
            key |= lb[c]
    else:
        raise _counts_error(hole, board)
    if n == 4:
        h0, h1, h2, h3 = hole
        return _LOW_TABLE[key | lh[h0] | lh[h1] | lh[h2] | lh[h3]]
    if n == 5:
        h0, h1, h2, h3, h4 = hole
        return _LOW_TABLE[key | lh[h0] | lh[h1] | lh[h2] | lh[h3] | lh[h4]]
    if n == 6:
        h0, h1, h2, h3, h4, h5 = hole
        return _LOW_TABLE[key | lh[h0] | lh[h1] | lh[h2] | lh[h3] | lh[h4] | lh[h5]]
    raise _counts_error(hole, board)


def low_ranks(value: int) -> tuple[int, ...]:
    """The five ranks of a low value, highest first, ace = 1: 0b10010111 -> (8, 5, 3, 2, 1)."""
    if not (LOW_BEST <= value <= LOW_WORST and value.bit_count() == 5):
        raise ValueError(f"{value} is not a low hand value")
    return tuple(r + 1 for r in range(7, -1, -1) if value >> r & 1)


# ----------------------------------------------------------------------------- describe


@dataclass(frozen=True, slots=True)
class HandDescription:
    """A hand as shown at showdown: its value, its name and the five cards it uses."""

    value: int
    """As returned by ``high_value`` / ``low_value``."""
    name: str
    """As a card room reads it: "Full house, kings full of threes", "Eight-six low"."""
    cards: tuple[Card, ...]
    """The five cards used, in reading order: for high by importance (trips, then the
    kickers; straights from the top, a wheel ending with its ace), for low highest first."""
    hole_used: tuple[Card, Card]
    """The two hole cards among ``cards``, in the same order."""


def _check_cards(hole: Sequence[Card], board: Sequence[Card]) -> None:
    if len(hole) not in HOLE_COUNTS or len(board) not in BOARD_COUNTS:
        raise _counts_error(hole, board)
    for c in (*hole, *board):
        card_str(c)  # raises CardError (a ValueError) for anything but 0..51
    if len({*hole, *board}) != len(hole) + len(board):
        raise ValueError("a card appears twice among the hole and board cards")


# A card's rank as a count, four bits a rank: summed over five cards, which ranks they hold
# and how many of each (at most four: no count carries into the next rank's bits).
_RANK_COUNT: Final[tuple[int, ...]] = tuple(1 << 4 * (c >> 2) for c in range(52))


def _build_high_ranks() -> list[int]:
    """The five ranks of each high value as ``_RANK_COUNT`` summed over its cards, index the
    value: one hand of every rank pattern evaluated (five ranks both suited and off-suit)."""
    ranks_of = [0] * (HIGH_WORST + 1)
    for hand in combinations_with_replacement(range(0, 52, 4), 5):  # suit 0 cards, sorted
        a, b, c, d, e = hand
        if a == e:
            continue  # five of a kind
        ranks = sum(map(_RANK_COUNT.__getitem__, hand))
        if a < b < c < d < e:  # five ranks: all of suit 0 is the flush, then one off-suit
            ranks_of[_eval5(a, b, c, d, e)] = ranks_of[_eval5(a + 1, b, c, d, e)] = ranks
        else:  # the copies of a rank (in a row) in suits 0, 1, ..
            ranks_of[_eval5(*(card + hand[:i].count(card) for i, card in enumerate(hand)))] = ranks
    assert ranks_of.count(0) == 1  # every value but the unused 0
    return ranks_of


_HIGH_RANKS: Final = _build_high_ranks()


def _high_cards(hole: Sequence[Card], board: Sequence[Card], value: int) -> tuple[Card, ...]:
    """The first two hole cards and three board cards, in hole-pair then board-triple order,
    that make the best high ``value``: the first holding its ranks, all of one suit for a
    flush. Found without evaluating: those ranks off-suit are a worse hand than a flush, and
    suited they would make a flush, better than a best hand of no flush."""
    count = _RANK_COUNT
    target = _HIGH_RANKS[value]
    suited = value <= 10 or 323 <= value <= 1599  # a straight flush or a flush
    triples = list(combinations(board, 3))
    keys = list(map(sum, combinations(map(count.__getitem__, board), 3)))  # as ``triples``
    for a, b in combinations(hole, 2):
        need = target - count[a] - count[b]
        if need not in keys:  # the usual miss, found in C
            continue
        if not suited:
            return (a, b, *triples[keys.index(need)])
        for (c, d, e), key in zip(triples, keys, strict=True):
            if key == need and a & 3 == b & 3 == c & 3 == d & 3 == e & 3:
                return a, b, c, d, e
    raise AssertionError("no cards make the high value")  # pragma: no cover


def _high_order(cards: Sequence[Card], value: int) -> tuple[Card, ...]:
    """The five cards of the high ``value`` as a person reads them."""
    if value == 10 or value == 1609:  # the wheel: the weakest straight flush, or straight
        # It reads five-high, its ace last: the ace's rank counted as -1.
        return tuple(sorted(cards, key=lambda c: -(((c >> 2) + 1) % 13)))
    counts = _HIGH_RANKS[value]  # how many of each rank, four bits a rank
    # Bigger groups first, then higher ranks; within a rank spades, hearts, diamonds,
    # clubs: rank then suit is the card's own number, so the card orders both.
    return tuple(sorted(cards, key=lambda c: (counts >> 4 * (c >> 2) & 15, c), reverse=True))


def _high_name(value: int, ordered: tuple[Card, ...]) -> str:
    category = high_category(value)
    r = [c >> 2 for c in ordered]
    if category == "straight flush":
        return "Royal flush" if value == 1 else f"Straight flush, {RANK_NAMES[r[0]]} high"
    if category == "four of a kind":
        return f"Four of a kind, {RANK_PLURALS[r[0]]}"
    if category == "full house":
        return f"Full house, {RANK_PLURALS[r[0]]} full of {RANK_PLURALS[r[3]]}"
    if category == "flush":
        return f"Flush, {RANK_NAMES[r[0]]} high"
    if category == "straight":
        return f"Straight, {RANK_NAMES[r[0]]} high"
    if category == "three of a kind":
        return f"Three of a kind, {RANK_PLURALS[r[0]]}"
    if category == "two pair":
        return f"Two pair, {RANK_PLURALS[r[0]]} and {RANK_PLURALS[r[2]]}"
    if category == "pair":
        return f"Pair of {RANK_PLURALS[r[0]]}"
    return f"High card, {RANK_NAMES[r[0]]}"


def describe_high(
    hole: Sequence[Card], board: Sequence[Card], value: int | None = None
) -> HandDescription:
    """The best high hand with its name and the five cards it uses.

    Its value is ``high_value(hole, board)``; pass it as ``value`` when it is known. When
    several combinations make that value, the first in hole-pair, then board-triple order
    is shown.
    """
    _check_cards(hole, board)
    return describe_checked_high(hole, board, value)


def describe_checked_high(
    hole: Sequence[Card], board: Sequence[Card], value: int | None = None
) -> HandDescription:
    """``describe_high`` of cards already checked (the engine's own, dealt from a checked
    deck): the award names every winning high hand."""
    best = high_value(hole, board) if value is None else value
    used = _high_cards(hole, board, best)
    ordered = _high_order(used, best)
    a, b = filter(used[:2].__contains__, ordered)  # the hole cards, in reading order
    name = _HIGH_NAMES.get(best) or _HIGH_NAMES.setdefault(best, _high_name(best, ordered))
    return HandDescription(best, name, ordered, (a, b))


# Each high value's name, as read once (a value's name depends on it alone).
_HIGH_NAMES: dict[int, str] = {}


def _low_rank(card: Card) -> int:
    """Rank for the low, ace = 1 .. king = 13."""
    r = card >> 2
    return 1 if r == 12 else r + 2


_LOW_WORDS: Final = ("", "ace", "two", "three", "four", "five", "six", "seven", "eight")


def _low_name(value: int) -> str:
    top, second, *_ = low_ranks(value)
    if value == LOW_BEST:
        return "Wheel (five-four low)"
    return f"{_LOW_WORDS[top].capitalize()}-{_LOW_WORDS[second]} low"


def describe_low(hole: Sequence[Card], board: Sequence[Card]) -> HandDescription | None:
    """The best eight-or-better low with its name and cards, or ``None`` if none qualifies.

    Its value is ``low_value(hole, board)``; cards read from the highest down, ace last.
    """
    _check_cards(hole, board)
    return describe_checked_low(hole, board)


def describe_checked_low(hole: Sequence[Card], board: Sequence[Card]) -> HandDescription | None:
    """``describe_low`` of cards already checked. The value is known (``low_value``), so
    its cards are found, not searched for: the first hole pair, in pair order, of two of
    its ranks whose other three ranks are on the board, with the first board card of each
    of them: the combination a search in hole-pair, then board-triple order finds first.
    """
    value = low_value(hole, board)
    if value is None:
        return None
    first: dict[int, Card] = {}  # each low rank's bit -> its first card on the board
    for c in board:
        first.setdefault(_LOW_BIT[c], c)
    for a, b in combinations(hole, 2):
        pair_bits = _LOW_BIT[a] | _LOW_BIT[b]
        if pair_bits.bit_count() != 2 or pair_bits & value != pair_bits:
            continue  # not two distinct ranks of this low
        rest, triple = value ^ pair_bits, []
        while rest:
            bit = rest & -rest
            rest ^= bit
            if bit not in first:
                break
            triple.append(first[bit])
        else:
            pair = (a, b)
            used = (a, b, *triple)
            break
    else:  # pragma: no cover - a low value always has its cards
        raise AssertionError("no cards make the low value")
    best = value
    ordered = tuple(sorted(used, key=_low_rank, reverse=True))
    hole_used = tuple(c for c in ordered if c in pair)
    return HandDescription(best, _low_name(best), ordered, (hole_used[0], hole_used[1]))
