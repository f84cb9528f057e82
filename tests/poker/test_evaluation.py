"""Omaha hand evaluation: the rule documents' examples, the low ladder, a brute-force
property and a differential check against pokerkit.

pokerkit is a test-only reference. Its scale differs from ours, so it is compared by order:
across all deals of a run, our values and pokerkit's entries must sort the same way (a
strictly monotone map between the two scales); pokerkit's chosen five cards must also
re-evaluate to our value.

`make test` compares 2,000 seeded deals per hole count, high and low (every high category and
all 56 eight-or-better lows occur among them, and the test says so); OMAHA_FULL=1 compares
20,000. The recorded run (200,000 deals per hole count, high and low) is opt-in:
    OMAHA_RECORDED_RUN=1 [OMAHA_RECORDED_SEED=...] .venv/bin/pytest -s -k recorded \
        tests/poker/test_evaluation.py
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys
import time
from collections.abc import Sequence
from itertools import combinations, pairwise
from types import ModuleType

import phevaluator
import pokerkit
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phevaluator import evaluate_cards, evaluate_omaha_cards

import app.poker.evaluation as evaluation
from app.poker.cards import Card, card_str, make_card, parse_cards, rank_of
from app.poker.evaluation import (
    HIGH_WORST,
    LOW_BEST,
    LOW_WORST,
    describe_high,
    describe_low,
    high_category,
    high_value,
    low_ranks,
    low_value,
)
from tests.poker.test_differential import memoised_pokerkit_entries
from tests.sizes import sample

ACE, KING, QUEEN, JACK, TEN, NINE = 12, 11, 10, 9, 8, 7


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def ranks(cs: Sequence[Card]) -> list[str]:
    return [card_str(c)[0] for c in cs]


# ------------------------------------------------------------------------ reference code


def brute_high(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """Every two-from-the-hand, three-from-the-board hand through phevaluator's public API."""
    best: int = min(  # phevaluator is untyped
        evaluate_cards(*pair, *triple)
        for pair in combinations(hole, 2)
        for triple in combinations(board, 3)
    )
    return best


def five_card_low(five: Sequence[Card]) -> tuple[int, ...] | None:
    """A five-card ace-to-five eight-or-better low as ranks (ace = 1) highest first."""
    low = sorted((1 if rank_of(c) == ACE else rank_of(c) + 2 for c in five), reverse=True)
    if len(set(low)) != 5 or low[0] > 8:
        return None
    return tuple(low)


def brute_low(hole: Sequence[Card], board: Sequence[Card]) -> tuple[int, ...] | None:
    """The best low read as a tuple, compared from the highest card down (smaller wins)."""
    lows = [
        low
        for pair in combinations(hole, 2)
        for triple in combinations(board, 3)
        if (low := five_card_low((*pair, *triple))) is not None
    ]
    return min(lows, default=None)


# ------------------------------------------------------------------- rule document examples


def test_three_aces_in_the_hand_are_two_pair_aces_and_deuces() -> None:
    # 002: A♠A♥A♣7♠ on 9♦3♥2♣2♠J♥ is two pair, not a full house.
    hole, board = cards("As Ah Ac 7s"), cards("9d 3h 2c 2s Jh")
    d = describe_high(hole, board)
    assert d.name == "Two pair, aces and deuces"
    assert high_category(d.value) == "two pair"
    assert ranks(d.cards) == ["A", "A", "2", "2", "J"]
    assert ranks(d.hole_used) == ["A", "A"]
    assert d.value == high_value(hole, board) == brute_high(hole, board)


def test_board_kings_play_with_a_seven_kicker_not_a_full_house() -> None:
    # 002: 7♣3♦2♥4♥ on K♦3♠K♥Q♦K♣: three kings, seven kicker; the 3♦ can't fill up.
    hole, board = cards("7c 3d 2h 4h"), cards("Kd 3s Kh Qd Kc")
    d = describe_high(hole, board)
    assert d.name == "Three of a kind, kings"
    assert ranks(d.cards) == ["K", "K", "K", "7", "4"]
    assert d.hole_used == cards("7c 4h")
    assert d.value == high_value(hole, board)
    # the fourth king in the hand does make quads, with any other hole card
    assert high_category(high_value(cards("Ks 3d 2h 4h"), board)) == "four of a kind"


def test_one_heart_on_a_four_heart_board_is_no_flush() -> None:
    # 003: board K♥9♥7♥4♥J♣, the ace of hearts with three black cards.
    board = cards("Kh 9h 7h 4h Jc")
    hole = cards("Ah Qc 8s 3c")
    assert high_category(high_value(hole, board)) == "high card"
    assert describe_high(hole, board).name == "High card, ace"


def test_two_small_hearts_make_a_king_high_flush() -> None:
    # 003: the six and two of hearts: K, 9 and 7 from the board with their six and two.
    board = cards("Kh 9h 7h 4h Jc")
    hole = cards("6h 2h 5c 5d")
    d = describe_high(hole, board)
    assert d.name == "Flush, king high"
    assert d.cards == cards("Kh 9h 7h 6h 2h")
    assert d.hole_used == cards("6h 2h")
    assert d.value == high_value(hole, board)


@pytest.mark.parametrize(
    ("hole", "expected"),
    [
        ("9c 2d 2h Qs", None),  # one nine does nothing
        ("4c Jd Jh 2s", None),  # nor one four
        ("9c Td 2h 3s", ("Straight, ten high", "Td 9c 8s 7h 6d")),
        ("4c 3d Jh Qs", ("Straight, seven high", "7h 6d 5c 4c 3d")),
    ],
)
def test_straights_need_two_fitting_hole_cards(hole: str, expected: tuple[str, str] | None) -> None:
    # 003: board 5-6-7-8-K.
    board = cards("5c 6d 7h 8s Kc")
    d = describe_high(cards(hole), board)
    if expected is None:
        assert high_category(d.value) != "straight"
    else:
        assert (d.name, d.cards) == (expected[0], cards(expected[1]))


def test_broadway_board_gives_a_straight_only_to_two_fitting_cards() -> None:
    # 003: a board of A-K-Q-J-10 does not give everybody a straight.
    board = cards("As Kd Qh Jc Ts")
    for hole in ("2c 3d 4h 5s", "Td 7c 6h 2d", "Ad Ac 3h 2s"):
        assert high_category(high_value(cards(hole), board)) != "straight", hole
    d = describe_high(cards("9d 8c 3h 2s"), board)
    assert d.name == "Straight, queen high"
    assert ranks(d.cards) == ["Q", "J", "T", "9", "8"]


@pytest.mark.parametrize(
    ("hole", "board", "name", "reading"),
    [
        ("As Ks 2c 3d", "Qs Js Ts 4h 5h", "Royal flush", "As Ks Qs Js Ts"),
        ("Ah 2h Kc Kd", "3h 4h 5h Qs Jc", "Straight flush, five high", "5h 4h 3h 2h Ah"),
        ("9d 8d 2c 3c", "7d 6d 5d Ks Kh", "Straight flush, nine high", "9d 8d 7d 6d 5d"),
        ("Qc Qd 2c 3c", "Qs Qh 5d Ks Kh", "Four of a kind, queens", "Qs Qh Qd Qc Ks"),
        ("Kc 3d 2c 4c", "Ks Kh 3s 8h Jh", "Full house, kings full of threes", "Ks Kh Kc 3s 3d"),
        ("3c 3d 2c 4c", "Ks Kh 3s 8h Jh", "Full house, threes full of kings", "3s 3d 3c Ks Kh"),
        ("Ac Ad 2c 4c", "Ks Kh 3s 8h Jh", "Two pair, aces and kings", "Ad Ac Ks Kh Jh"),
        ("Jc Td 2c 4c", "Js 9h 3s 8h 5d", "Pair of jacks", "Js Jc Td 9h 8h"),
        ("Ac Td 2c 4c", "Js 9h 3s 7h 5d", "High card, ace", "Ac Js Td 9h 7h"),
        ("5c 4d Kc Kd", "As 2h 3s 8h Jd", "Straight, five high", "5c 4d 3s 2h As"),
    ],
)
def test_high_names_and_reading_order(hole: str, board: str, name: str, reading: str) -> None:
    d = describe_high(cards(hole), cards(board))
    assert (d.name, d.cards) == (name, cards(reading))
    assert set(d.hole_used) <= set(cards(hole)) and len(set(d.hole_used)) == 2
    assert [c for c in d.cards if c in d.hole_used] == list(d.hole_used)


# --------------------------------------------------------------------------------- lows

# 004: ten sample lows from the weakest (#1) to the best (#10), exactly as listed.
LADDER = [
    "8 7 6 5 4",
    "8 7 6 5 3",
    "8 6 4 2 A",
    "8 4 3 2 A",
    "7 6 5 4 2",
    "7 6 5 2 A",
    "7 5 4 3 2",
    "6 5 4 3 2",
    "6 4 3 2 A",
    "5 4 3 2 A",
]
LADDER_NAMES = [
    "Eight-seven low",
    "Eight-seven low",
    "Eight-six low",
    "Eight-four low",
    "Seven-six low",
    "Seven-six low",
    "Seven-five low",
    "Six-five low",
    "Six-four low",
    "Wheel (five-four low)",
]


def deal_low(low: str) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """A four-card hand and a board whose best low is ``low``: its two highest cards in
    the hand with two kings, the rest on the board with a queen and a jack."""
    rs = ["A23456789TJQK".index(r) for r in low.split()]
    rank = [12 if r == 0 else r - 1 for r in rs]  # ace-low index -> card rank
    hole = (make_card(rank[0], 0), make_card(rank[1], 1), make_card(KING, 2), make_card(KING, 3))
    board = (*(make_card(r, 2) for r in rank[2:]), make_card(QUEEN, 0), make_card(JACK, 1))
    return hole, board


def test_low_ladder_orders_exactly_as_listed() -> None:
    values = []
    for low, name in zip(LADDER, LADDER_NAMES, strict=True):
        hole, board = deal_low(low)
        d = describe_low(hole, board)
        assert d is not None, low
        assert d.name == name
        assert " ".join(ranks(d.cards)) == low
        assert d.value == low_value(hole, board)
        assert low_ranks(d.value) == tuple(1 if r == "A" else int(r) for r in low.split())
        values.append(d.value)
    assert all(weaker > stronger for weaker, stronger in pairwise(values))
    assert values[0] == LOW_WORST and values[-1] == LOW_BEST


def test_a_pair_does_not_count_for_low() -> None:
    # the only low cards in the hand are a pair of aces
    assert low_value(cards("Ac Ad Kc Kd"), cards("2c 3d 4h 9s Ts")) is None
    assert describe_low(cards("Ac Ad Kc Kd"), cards("2c 3d 4h 9s Ts")) is None
    # a paired board leaves only two distinct low ranks to use
    assert low_value(cards("Ah 5d Kc Kd"), cards("2c 2d 3h 9s Tc")) is None
    # ...but a pair on a board with three other low ranks doesn't hurt
    assert low_value(cards("Ah 5d Kc Kd"), cards("2c 2d 3h 4s Tc")) == LOW_BEST


def test_a_nine_disqualifies() -> None:
    board = cards("2c 3d 4h Ks Qc")
    assert low_value(cards("Ac 9d Kh Kd"), board) is None
    assert low_value(cards("Ac 8d Kh Kd"), board) is not None
    d = describe_low(cards("Ac 8d Kh Kd"), board)
    assert d is not None and d.name == "Eight-four low"
    assert low_value(cards("Ac 2d Kh Kd"), cards("9c 3d 4h Ks Qc")) is None


def test_one_low_card_in_the_hand_makes_no_low() -> None:
    # Read the hold'em way this would be a wheel; in Omaha two hole cards must play.
    assert low_value(cards("Ac Kd Kh Qs"), cards("2c 3d 4h 5s 9c")) is None


def test_high_and_low_may_use_different_hole_cards() -> None:
    hole, board = cards("Ac 2d Kh Kd"), cards("Ks 3c 4d 7h Qs")
    high = describe_high(hole, board)
    low = describe_low(hole, board)
    assert high.name == "Three of a kind, kings"
    assert high.hole_used == cards("Kh Kd")
    assert low is not None
    assert low.name == "Seven-four low"
    assert low.cards == cards("7h 4d 3c 2d Ac")
    assert low.hole_used == cards("2d Ac")


def test_wheel_is_both_a_straight_and_the_best_low() -> None:
    hole, board = cards("Ah 2d Kc Qs"), cards("3c 4d 5s Jh 9c")
    high = describe_high(hole, board)
    low = describe_low(hole, board)
    assert high.name == "Straight, five high"
    assert ranks(high.cards) == ["5", "4", "3", "2", "A"]
    assert low is not None and low.value == LOW_BEST
    assert low.name == "Wheel (five-four low)"
    assert low.cards == high.cards  # the same five cards win both ways


def test_flushes_and_straights_do_not_hurt_a_low() -> None:
    hole, board = cards("Ah 2h Kc Qs"), cards("3h 4h 6h Jd 9c")
    assert high_category(high_value(hole, board)) == "flush"
    d = describe_low(hole, board)
    assert d is not None and d.name == "Six-four low"


def rank_set_lows(board: int) -> dict[int, int]:
    """For one board's low ranks (bit i: rank i + 1, ace = bit 0), the best low that every
    pair of distinct hand ranks makes with three of the board's: every two-from-the-hand,
    three-from-the-board split at the rank level, as a mask (fewer high ranks wins: for five
    ranks each, comparing masks is comparing from the highest card down)."""
    triples = [t for t in range(256) if t.bit_count() == 3 and t & ~board == 0]
    best: dict[int, int] = {}
    for pair in (p for p in range(256) if p.bit_count() == 2):
        made = [pair | t for t in triples if pair & t == 0]
        if made:
            best[pair] = min(made)
    return best


def test_low_table_is_exact_for_every_board_and_hand_rank_set() -> None:
    """Every reachable pair (low ranks on the board, low ranks in the hand) against a
    brute-force reader of rank sets, through real cards padded with nines to kings (a pad is
    never in a low, so the cards' best low is the rank sets'). The reader takes the board's
    splits once per board rather than once per hand: the same splits, 30 times faster."""
    pads = [make_card(r, s) for r in (NINE, TEN, JACK, QUEEN, KING) for s in range(4)]
    low_card_rank = [12, 0, 1, 2, 3, 4, 5, 6]  # ace-low index 0..7 -> card rank
    checked = 0
    for b in range(256):
        if b.bit_count() > 5:
            continue
        board = [make_card(low_card_rank[i], 0) for i in range(8) if b >> i & 1]
        board += pads[0 : 2 * (5 - len(board)) : 2]  # suits clubs and hearts
        lows = rank_set_lows(b)
        for h in range(256):
            if h.bit_count() > 6:
                continue
            hole = [make_card(low_card_rank[i], 1) for i in range(8) if h >> i & 1]
            hole += pads[1 : 2 * (4 - len(hole)) : 2] if len(hole) < 4 else []
            value = low_value(hole, board)
            made = [lows[p] for p in lows if p & ~h == 0]
            expected = None
            if made:
                expected = tuple(i + 1 for i in reversed(range(8)) if min(made) >> i & 1)
            assert (None if value is None else low_ranks(value)) == expected, (b, h)
            checked += 1
    assert checked == 219 * 247


def test_the_rank_set_reader_agrees_with_the_card_reader() -> None:
    """The exhaustive test's reader of rank sets, against the five-card brute force on real
    cards, for a seeded sample of rank sets (so a slip in the faster reader cannot hide)."""
    rng = random.Random(5)
    low_card_rank = [12, 0, 1, 2, 3, 4, 5, 6]
    pads = [make_card(r, s) for r in (NINE, TEN, JACK, QUEEN, KING) for s in range(4)]
    for _ in range(2_000):
        b = rng.choice([m for m in range(256) if m.bit_count() <= 5])
        h = rng.choice([m for m in range(256) if m.bit_count() <= 6])
        board = [make_card(low_card_rank[i], 0) for i in range(8) if b >> i & 1]
        board += pads[0 : 2 * (5 - len(board)) : 2]
        hole = [make_card(low_card_rank[i], 1) for i in range(8) if h >> i & 1]
        hole += pads[1 : 2 * (4 - len(hole)) : 2] if len(hole) < 4 else []
        made = [m for p, m in rank_set_lows(b).items() if p & ~h == 0]
        expected = brute_low(hole, board)
        assert (None if not made else min(made)) == (
            None if expected is None else sum(1 << (r - 1) for r in expected)
        ), (b, h)


# ---------------------------------------------------------------------- counts and checks


def test_wrong_card_counts_are_refused() -> None:
    board = cards("2c 3d 4h 5s 6c")
    for f in (high_value, low_value, describe_high, describe_low):
        with pytest.raises(ValueError):
            f(cards("Ac Kd Qh"), board)
        with pytest.raises(ValueError):
            f(cards("Ac Kd Qh Js Tc 9d 8h"), board)
        with pytest.raises(ValueError):
            f(cards("Ac Kd Qh Js"), board[:2])
        with pytest.raises(ValueError):
            f(cards("Ac Kd Qh Js"), (*board, make_card(KING, 0)))


def test_describe_refuses_repeated_or_unknown_cards() -> None:
    with pytest.raises(ValueError):
        describe_high(cards("Ac Kd Qh Js"), cards("Ac 3d 4h 5s 6c"))
    with pytest.raises(ValueError):
        describe_low(cards("Ac Kd Qh Js"), (52, 1, 2, 3, 4))


def test_low_ranks_refuses_non_values() -> None:
    for bad in (0, 30, LOW_WORST + 1, 0b1111, 0b111111):
        with pytest.raises(ValueError):
            low_ranks(bad)
    assert low_ranks(0b10010111) == (8, 5, 3, 2, 1)


def test_high_category_bounds() -> None:
    assert high_category(1) == "straight flush"
    assert high_category(HIGH_WORST) == "high card"
    for bad in (0, HIGH_WORST + 1):
        with pytest.raises(ValueError):
            high_category(bad)


# --------------------------------------------------------------------- brute-force property


@st.composite
def deals(draw: st.DrawFn) -> tuple[list[Card], list[Card]]:
    n_hole = draw(st.sampled_from((4, 5, 6)))
    n_board = draw(st.sampled_from((3, 4, 5, 5, 5)))
    deck = draw(st.permutations(range(52)))
    return deck[:n_hole], deck[n_hole : n_hole + n_board]


@settings(max_examples=sample(500, 1500), deadline=None)
@given(deals())
def test_values_equal_brute_force_over_every_two_plus_three(
    deal: tuple[list[Card], list[Card]],
) -> None:
    hole, board = deal
    high = high_value(hole, board)
    assert high == brute_high(hole, board)
    d = describe_high(hole, board)
    assert d.value == high
    assert evaluate_cards(*d.cards) == high
    assert len(set(d.hole_used)) == 2 and set(d.hole_used) <= set(hole)
    assert set(d.cards) - set(d.hole_used) <= set(board)
    assert len([c for c in d.cards if c in board]) == 3

    low = low_value(hole, board)
    expected = brute_low(hole, board)
    assert (None if low is None else low_ranks(low)) == expected
    dl = describe_low(hole, board)
    if expected is None:
        assert dl is None
    else:
        assert dl is not None and dl.value == low
        assert five_card_low(dl.cards) == expected
        assert tuple(1 if rank_of(c) == ACE else rank_of(c) + 2 for c in dl.cards) == expected
        assert len(set(dl.hole_used) & set(hole)) == 2
        assert len([c for c in dl.cards if c in board]) == 3


def _load_without_native_extension(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """A second copy of the module, imported as if phevaluator had no C extension."""
    monkeypatch.setitem(sys.modules, "phevaluator._pheval", None)
    monkeypatch.delattr(phevaluator, "_pheval", raising=False)
    assert evaluation.__file__ is not None
    spec = importlib.util.spec_from_file_location("evaluation_fallback", evaluation.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look themselves up
    spec.loader.exec_module(module)
    return module


def test_public_phevaluator_fallback_gives_the_same_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fallback = _load_without_native_extension(monkeypatch)
    assert evaluation.NATIVE and not fallback.NATIVE
    rng = random.Random(7)
    for _ in range(300):
        n_hole = rng.choice((4, 5, 6))
        deal = rng.sample(range(52), n_hole + 5)
        hole, board = deal[:n_hole], deal[n_hole:]
        assert fallback.high_value(hole[:4], board) == evaluate_omaha_cards(*board, *hole[:4])
        for n_board in (3, 4, 5):
            assert fallback.high_value(hole, board[:n_board]) == high_value(hole, board[:n_board])


# ------------------------------------------------------------------ differential: pokerkit

PK_CARDS = tuple(next(iter(pokerkit.Card.parse(card_str(c)))) for c in range(52))
FROM_PK = {pk: c for c, pk in enumerate(PK_CARDS)}


def random_deals(
    rng: random.Random, n_hole: int, count: int, per_board: int = 10
) -> list[tuple[list[Card], list[Card]]]:
    """``count`` deals, ``per_board`` of them sharing each board (hands drawn from the
    rest of the deck independently of each other, as for showdown comparisons)."""
    out: list[tuple[list[Card], list[Card]]] = []
    deck = list(range(52))
    while len(out) < count:
        rng.shuffle(deck)
        board, rest = deck[:5], deck[5:]
        for _ in range(min(per_board, count - len(out))):
            out.append((rng.sample(rest, n_hole), board))
    return out


def assert_same_order(pairs: list[tuple[int, int]], *, increasing: bool) -> None:
    """``pairs`` of (our value, pokerkit's entry index): equal values must have equal
    entries and sorting by our value must sort pokerkit's entries strictly (in the given
    direction), i.e. every pair of deals compares the same way in both."""
    mapping: dict[int, int] = {}
    for ours, theirs in pairs:
        assert mapping.setdefault(ours, theirs) == theirs, (ours, theirs, mapping[ours])
    entries = [mapping[v] for v in sorted(mapping)]
    if not increasing:
        entries.reverse()
    assert all(a < b for a, b in pairwise(entries)), "order differs from pokerkit's"


def check_against_pokerkit(n_hole: int, count: int, seed: int, *, low: bool) -> dict[str, int]:
    rng = random.Random(seed)
    pk_class = pokerkit.OmahaEightOrBetterLowHand if low else pokerkit.OmahaHoldemHand
    pairs: list[tuple[int, int]] = []
    lows = 0
    deals_ = random_deals(rng, n_hole, count)
    # pokerkit's hand ranks memoised once for the whole sample (a pure cache: a quarter of
    # pokerkit's time), not swapped in and out at every deal
    with memoised_pokerkit_entries():
        for i, (hole, board) in enumerate(deals_):
            pk_hand = pk_class.from_game_or_none(
                [PK_CARDS[c] for c in hole], [PK_CARDS[c] for c in board]
            )
            five = [FROM_PK[c] for c in pk_hand.cards] if pk_hand is not None else None
            if low:
                ours = low_value(hole, board)
                assert (ours is None) == (pk_hand is None), (i, hole, board)
                if ours is None or pk_hand is None or five is None:
                    continue
                lows += 1
                assert low_ranks(ours) == five_card_low(five), (i, hole, board)
            else:
                ours = high_value(hole, board)
                assert pk_hand is not None and five is not None
                assert evaluate_cards(*five) == ours, (i, hole, board)
            # pokerkit's hand really is two from the hole and three from the board
            assert sum(c in hole for c in five) == 2 and sum(c in board for c in five) == 3
            pairs.append((ours, pk_hand.entry.index))
    # high: pokerkit's index grows with strength, ours shrinks; low: both shrink
    assert_same_order(pairs, increasing=low)
    return {
        "deals": len(deals_),
        "lows": lows,
        "distinct_values": len({v for v, _ in pairs}),
        "categories": len({high_category(v) for v, _ in pairs}) if not low else 0,
    }


PK_DEALS = sample(2_000, 20_000)


@pytest.mark.parametrize("low", [False, True], ids=["high", "low"])
@pytest.mark.parametrize("n_hole", [4, 5, 6])
def test_agrees_with_pokerkit_on_random_deals(n_hole: int, low: bool) -> None:
    stats = check_against_pokerkit(n_hole, PK_DEALS, seed=1000 + n_hole, low=low)
    # The check must have had something to compare: every category of high hand (straight
    # flushes included), and every one of the 56 possible lows.
    if low:
        assert stats["distinct_values"] == 56
        assert PK_DEALS * 0.15 < stats["lows"] < PK_DEALS * 0.9
    else:
        assert stats["categories"] == 9
        assert stats["distinct_values"] > PK_DEALS // 4


RECORDED_SEED = int(os.environ.get("OMAHA_RECORDED_SEED", "20250611"))
RECORDED_DEALS = int(os.environ.get("OMAHA_RECORDED_DEALS", "200000"))


@pytest.mark.long("OMAHA_RECORDED_RUN")
@pytest.mark.parametrize("low", [False, True], ids=["high", "low"])
@pytest.mark.parametrize("n_hole", [4, 5, 6])
def test_recorded_run_agrees_with_pokerkit(n_hole: int, low: bool) -> None:
    start = time.perf_counter()
    seed = RECORDED_SEED + n_hole
    stats = check_against_pokerkit(n_hole, RECORDED_DEALS, seed=seed, low=low)
    print(
        f"\nrecorded run: {'low' if low else 'high'} {n_hole} hole cards, seed {seed}: "
        f"{stats['deals']} deals agree with pokerkit ({stats['lows']} lows, "
        f"{stats['distinct_values']} distinct values) in {time.perf_counter() - start:.0f} s"
    )
