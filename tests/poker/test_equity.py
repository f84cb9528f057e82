"""All-in equity: known spots against an exact enumeration written here, plainly."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from app.poker import GAMES, Action, ActionKind, Betting, HandConfig, HandSetup, HandState
from app.poker.cards import FULL_DECK, Card, parse_cards
from app.poker.equity import (
    AllInSpot,
    all_in_spot,
    equities,
    runout_count,
    street_equity,
    street_spots,
)
from app.poker.evaluation import high_value, low_value
from tests.poker.deal import stacked_deck


def brute_force(spot: AllInSpot) -> dict[int, float]:
    """Every run-out of every board jointly, each pot divided on each board."""
    known = {c for h in spot.holes.values() for c in h} | {c for b in spot.boards for c in b}
    unseen = [c for c in FULL_DECK if c not in known]
    need = 5 - len(spot.boards[0])
    won = dict.fromkeys(spot.holes, 0.0)
    count = 0

    def deals(cards: list[Card], boards: int) -> list[list[tuple[Card, ...]]]:
        if boards == 0:
            return [[]]
        out: list[list[tuple[Card, ...]]] = []
        for first in combinations(cards, need):
            rest = [c for c in cards if c not in first]
            out.extend([first, *more] for more in deals(rest, boards - 1))
        return out

    for deal in deals(unseen, len(spot.boards)):
        count += 1
        for b, extra in enumerate(deal):
            board = spot.boards[b] + extra
            for amount, eligible in spot.pots:
                share = amount / len(spot.boards)
                highs = {p: high_value(spot.holes[p], board) for p in eligible}
                lows = {p: low_value(spot.holes[p], board) for p in eligible} if spot.hi_lo else {}
                qualified = {p: v for p, v in lows.items() if v is not None}
                halves = [(highs, share)]
                if qualified:
                    halves = [(highs, share / 2), (qualified, share / 2)]
                for values, part in halves:
                    best = min(values.values())
                    winners = [p for p, v in values.items() if v == best]
                    for p in winners:
                        won[p] += part / len(winners)
    return {p: v / count for p, v in won.items()}


def spot(
    hi_lo: bool, holes: list[str], boards: list[str], pots: list[tuple[int, tuple[int, ...]]]
) -> AllInSpot:
    return AllInSpot(
        hi_lo,
        {p: parse_cards(h) for p, h in enumerate(holes)},
        tuple(parse_cards(b) for b in boards),
        tuple(pots),
    )


KNOWN = [
    # two-way on the flop: a set against a wrap
    spot(False, ["KsKd7c2h", "QhJh9s8d"], ["Kc Th 3s"], [(200, (0, 1))]),
    # three-way on the flop, hi-lo, with a side pot the short stack is not in
    spot(True, ["Ac2d5h9s", "AdKc3c4h", "QsQh8c7c"], ["2c 6d Kh"], [(90, (0, 1, 2)), (40, (1, 2))]),
    # five-card Omaha on the turn, three ways
    spot(False, ["AsKsQd7h7c", "JdTd9c8c2s", "6h6d5s4s3h"], ["Ks 7d 8h 2d"], [(300, (0, 1, 2))]),
    # two boards on the turn (every pair of rivers, jointly)
    spot(False, ["AhAs9d8d", "KcQc7h6h"], ["Ad 5c 2h Jc", "9s 9h 3c Tc"], [(120, (0, 1))]),
    # six-card hi-lo, two boards on the turn
    spot(True, ["Ah2h3dKsQs9c", "4c5c6dTdJd8s"], ["7s 8h Kd 2c", "Ac 3s 9h Qh"], [(64, (0, 1))]),
]


@pytest.mark.parametrize("known", KNOWN)
def test_known_spots_equal_an_exact_enumeration(known: AllInSpot) -> None:
    result = equities(known)
    expected = brute_force(known)
    assert result.method == "exact"
    for p, value in expected.items():
        assert result.expected[p] == pytest.approx(value, abs=1e-9)
    assert sum(result.expected.values()) == pytest.approx(result.pot)


def test_a_big_deal_is_a_seeded_monte_carlo() -> None:
    preflop = spot(False, ["AsAhKsKh", "7c6c5d4d"], [""], [(200, (0, 1))])
    assert runout_count(44, 5, 1) > 1_000_000
    first, second = equities(preflop), equities(preflop)
    assert first.method == "monte-carlo" and first.runouts == 20_000
    assert first.expected == second.expected  # seeded: the same figure every time
    assert sum(first.expected.values()) == pytest.approx(200)
    assert 0.55 < first.share(0) < 0.80  # aces double-suited against a rundown
    smaller = equities(preflop, samples=2_000, seed=1)
    assert smaller.runouts == 2_000 and abs(smaller.share(0) - first.share(0)) < 0.05


def test_the_all_in_moment_of_a_played_hand() -> None:
    config = HandConfig(GAMES["omaha"], Betting.POT_LIMIT, small_bet=2)
    deck = stacked_deck(["KsKd7c2h", "QhJh9s8d"], ["Kc Th 3s 4d 5c"])
    state = HandState(HandSetup(config, (100, 100), blinds=(2, 1)), deck)
    state.apply(Action(1, ActionKind.CALL))
    state.apply(Action(0, ActionKind.CHECK))
    state.apply(Action(0, ActionKind.BET, 4))
    state.apply(Action(1, ActionKind.RAISE, 16))
    state.apply(Action(0, ActionKind.RAISE, 52))
    state.apply(Action(1, ActionKind.RAISE, 98))
    state.apply(Action(0, ActionKind.CALL))
    assert state.complete
    found = all_in_spot(state)
    assert found is not None
    assert found.boards == (parse_cards("KcTh3s"),)
    assert found.pots == ((200, (0, 1)),)
    assert dict(found.holes) == {0: parse_cards("KsKd7c2h"), 1: parse_cards("QhJh9s8d")}
    assert equities(found).expected == pytest.approx(brute_force(KNOWN[0]))


def test_no_spot_without_an_all_in_before_the_river() -> None:
    config = HandConfig(GAMES["omaha"], Betting.POT_LIMIT, small_bet=2)
    deck = list(range(52))
    random.Random(3).shuffle(deck)
    state = HandState(HandSetup(config, (100, 100), blinds=(2, 1)), deck)
    state.apply(Action(1, ActionKind.FOLD))
    assert all_in_spot(state) is None


# ------------------------------------------------------------------- street equities
def three_way_to_the_river(deck: list[Card]) -> HandState:
    """p0 folds before the flop; p1 and p2 check to the river, where p2 bets 2 and p1 calls:
    p2's kings are shown first, p1 mucks."""
    config = HandConfig(GAMES["omaha"], Betting.POT_LIMIT, small_bet=2)
    state = HandState(HandSetup(config, (100, 100, 100), blinds=(1, 2, 0)), deck)
    moves: list[tuple[int, str, int | None]] = [
        (2, "call", None),
        (0, "fold", None),
        (1, "check", None),
    ]
    moves += [(1, "check", None), (2, "check", None)] * 2
    moves += [(1, "check", None), (2, "bet", 2), (1, "call", None)]
    for player, kind, amount in moves:
        state.apply(Action(player, ActionKind(kind), amount))
    while not state.complete:
        assert state.actor is not None
        muck = state.legal_actions() is not None and state.legal_actions().muck  # type: ignore[union-attr]
        state.apply(Action(state.actor, ActionKind.MUCK if muck else ActionKind.SHOW))
    return state


HOLES = ["2c3d4h5s", "QhJh9s8d", "KsKd7c2h"]
BOARD = "Kc Th 3s 4d 5c"


def test_street_equities_follow_the_hand_as_the_viewer_saw_it() -> None:
    state = three_way_to_the_river(stacked_deck(HOLES, [BOARD]))
    assert state.shown == [False, False, True] and state.mucked[1]
    # p1 saw its own hand and the shown kings: every street from the pre-flop on.
    spots = street_spots(state, {1, 2})
    assert [s.street for s in spots] == ["preflop", "flop", "turn", "river"]
    assert set(spots[0].known) == {1, 2} and spots[0].unknown == (0,)  # p0 still in
    flop = spots[1]
    assert flop.unknown == () and flop.boards == (parse_cards("KcTh3s"),)
    result = street_equity(flop)
    assert result.method == "exact"
    expected = brute_force(spot(False, HOLES[1:], ["Kc Th 3s"], [(1, (0, 1))]))
    assert result.shares[1] == pytest.approx(expected[0]) and result.shares[2] == pytest.approx(
        expected[1]
    )
    assert street_equity(spots[3]).shares == {1: 0.0, 2: 1.0}  # the river: the result
    # A spectator sees only the kings; the mucked hand is a random hand to it.
    spectator = [street_equity(s) for s in street_spots(state, {2})]
    assert all(set(r.shares) == {2} for r in spectator)
    assert spectator[1].method == "monte-carlo"
    assert spectator == [street_equity(s) for s in street_spots(state, {2})]  # seeded


def test_no_equity_changes_with_a_hand_nobody_saw() -> None:
    """The folded and the mucked hands swapped for other unseen cards: the spectator's and
    the shown player's equities are the same figures."""
    first = three_way_to_the_river(stacked_deck(HOLES, [BOARD]))
    other = ["8c9cTcJc", "AhAd6h6d", HOLES[2]]  # p0 and p1 hold other cards
    second = three_way_to_the_river(stacked_deck(other, [BOARD]))
    assert second.mucked[1]
    a = [street_equity(s) for s in street_spots(first, {2})]
    b = [street_equity(s) for s in street_spots(second, {2})]
    assert a == b and len(a) == 4
