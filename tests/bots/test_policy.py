"""The one bot policy: its decision for a known share and price, and its share estimates
against answers known by counting."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.bots.policy import Situation, choose, decide, random_action, share

PL: dict[str, Any] = {
    "actions": ["fold", "call", "raise"],
    "call": 10,
    "min_to": 20,
    "max_to": 50,
    "pot_to": 50,
}
FREE: dict[str, Any] = {
    "actions": ["check", "bet"],
    "call": 0,
    "min_to": 2,
    "max_to": 30,
    "pot_to": 30,
}
LIMIT: dict[str, Any] = {
    "actions": ["fold", "call", "raise"],
    "call": 4,
    "min_to": 8,
    "max_to": 8,
    "pot_to": 8,
}


@pytest.mark.parametrize(
    ("share_", "pot", "opponents", "expected"),
    [
        # pot 30, call 10: the price is 10 / 40 = 0.25 of the pot after calling
        (0.20, 30, 1, {"action": "fold"}),  # below the price
        (0.26, 30, 1, {"action": "call"}),  # above the price, not strong
        (0.70, 30, 1, {"action": "raise", "amount": 35}),  # strong heads-up: half-way to pot
        (0.85, 30, 1, {"action": "raise", "amount": 50}),  # very strong: the pot
        (0.50, 30, 5, {"action": "raise", "amount": 35}),  # 0.5 is strong six-handed
        (0.50, 30, 1, {"action": "call"}),  # ... and only a call heads-up
        (0.24, 30, 5, {"action": "fold"}),
        (0.30, 30, 5, {"action": "call"}),
    ],
)
def test_decision_for_a_known_share_and_price(
    share_: float, pot: int, opponents: int, expected: dict[str, object]
) -> None:
    assert decide(PL, share_, pot, opponents) == expected


def test_a_dear_call_is_folded_and_a_cheap_one_called_with_the_same_share() -> None:
    dear = {**PL, "call": 90}  # price 90 / 120 = 0.75
    cheap = {**PL, "call": 5}  # price 5 / 35 = 0.14
    assert decide(dear, 0.4, 30, 1) == {"action": "fold"}
    assert decide(cheap, 0.4, 30, 1) == {"action": "call"}


def test_free_cards_are_checked_and_strong_hands_bet() -> None:
    assert decide(FREE, 0.1, 10, 2) == {"action": "check"}
    assert decide(FREE, 0.9, 10, 2) == {"action": "bet", "amount": 30}


def test_fixed_limit_raises_the_fixed_amount() -> None:
    assert decide(LIMIT, 0.95, 12, 1) == {"action": "raise", "amount": 8}


def test_votes_and_showdown() -> None:
    assert decide({"actions": ["run-twice"]}, 0.3, 10, 1) == {"action": "run-twice", "agree": True}
    assert decide({"actions": ["show", "muck"]}, 0.0, 10, 1) == {"action": "muck"}
    assert decide({"actions": ["show"]}, 0.0, 10, 1) == {"action": "show"}


def test_the_nuts_on_the_river_win_everything() -> None:
    # Royal flush in spades using As Ks from the hand and Qs Js Ts from the board.
    got = share("omaha", ["As", "Ks", "2d", "3c"], [["Qs", "Js", "Ts", "4h", "5h"]], 3,
                random.Random(1))  # fmt: skip
    assert got == 1.0


def test_the_share_falls_with_more_opponents() -> None:
    hole = ["As", "Ad", "Kh", "Kd"]
    board: list[list[str]] = [[]]
    one = share("omaha", hole, board, 1, random.Random(2))
    five = share("omaha", hole, board, 5, random.Random(2))
    assert five < one
    assert 0.25 < five < 0.45  # still about twice its fair sixth


def test_hi_lo_halves_and_double_boards() -> None:
    # The nut low (A2 with 346 on the board) and almost no high: about half the pot.
    low = share("omaha-hi-lo", ["Ac", "2d", "7c", "8d"],
                [["3s", "4s", "6s", "9s", "Js"]], 1, random.Random(4), samples=400)  # fmt: skip
    assert 0.4 < low < 0.65
    # Two boards: the nuts on one board, and a random contest on the other.
    two = share("big-o", ["As", "Ks", "2d", "3c", "9h"],
                [["Qs", "Js", "Ts", "4h", "5h"], ["2h", "7c", "8d", "Jd", "Qd"]], 1,
                random.Random(5))  # fmt: skip
    assert 0.5 < two < 1.0


def test_share_is_reproducible_by_its_seed_and_near_the_known_figure() -> None:
    a = share("omaha", ["As", "Ad", "Kh", "Kd"], [[]], 1, random.Random(7))
    b = share("omaha", ["As", "Ad", "Kh", "Kd"], [[]], 1, random.Random(7))
    assert a == b
    assert 0.62 < a < 0.80  # AAKK double-suited vs a random hand: ~0.72 (known figures)


def test_choose_plays_every_game_legally() -> None:
    rng = random.Random(8)
    for game, hole in [
        ("omaha", ["As", "Kd", "7h", "2c"]),
        ("five-card-omaha", ["As", "Kd", "7h", "2c", "3c"]),
        ("six-card-omaha-hi-lo", ["As", "Kd", "7h", "2c", "3c", "4d"]),
        ("courchevel", ["As", "Kd", "7h", "2c", "3c"]),
    ]:
        situation = Situation(game, tuple(hole), ((),), 5, 3, PL)
        action = choose(situation, rng, samples=50)
        assert action["action"] in PL["actions"]
        if "amount" in action:
            assert PL["min_to"] <= action["amount"] <= PL["max_to"]


def test_random_action_is_always_legal() -> None:
    rng = random.Random(9)
    for _ in range(200):
        for legal in (PL, FREE, LIMIT, {"actions": ["show", "muck"]}, {"actions": ["run-twice"]}):
            action = random_action(legal, rng)
            assert action["action"] in legal["actions"]


def _reference_share(mine: list[int], others: list[list[int]], board: list[int],
                     hi_lo: bool) -> float:  # fmt: skip
    """Every hand evaluated, then the pot divided: what `_board_share` stops early at."""
    from app.poker.evaluation import high_value, low_value

    def part(value: int, rest: list[int]) -> float:
        best = min(rest, default=value + 1)
        if value != best:
            return 1.0 if value < best else 0.0
        return 1.0 / (1 + rest.count(value))

    high = part(high_value(mine, board), [high_value(o, board) for o in others])
    if not hi_lo:
        return high
    my_low = low_value(mine, board)
    lows = [v for o in others if (v := low_value(o, board)) is not None]
    if my_low is None and not lows:
        return high
    return (high + (0.0 if my_low is None else part(my_low, lows))) / 2


def test_a_boards_share_stops_at_the_first_better_hand_and_divides_as_before() -> None:
    from app.bots.policy import _board_share

    rng = random.Random(11)
    for _ in range(20_000):
        deck = list(range(52))
        rng.shuffle(deck)
        holes, opponents = rng.choice((4, 5, 6)), rng.choice((1, 2, 5))
        hands = [deck[i * holes : (i + 1) * holes] for i in range(opponents + 1)]
        board = deck[(opponents + 1) * holes : (opponents + 1) * holes + 5]
        for hi_lo in (False, True):
            got = _board_share(hands[0], hands[1:], board, hi_lo)
            assert got == _reference_share(hands[0], hands[1:], board, hi_lo)


def test_the_stepped_choice_is_the_choice_one_slice_at_a_time() -> None:
    from app.bots.policy import SAMPLES, STEP, choose_steps, share_steps

    situation = Situation("big-o", ("As", "Kd", "7h", "2c", "3c"), ((), ()), 3, 3, PL)
    slices = list(share_steps(situation.game, situation.hole, situation.boards, 3,
                              random.Random(4), SAMPLES, STEP))  # fmt: skip
    assert len(slices) == SAMPLES // STEP
    whole = share(situation.game, situation.hole, situation.boards, 3, random.Random(4))
    assert sum(slices) / SAMPLES == pytest.approx(whole, abs=1e-12)
    steps = choose_steps(situation, random.Random(4))
    count = 0
    with pytest.raises(StopIteration) as done:
        while True:
            next(steps)
            count += 1
    assert count == SAMPLES // STEP
    assert done.value.value == choose(situation, random.Random(4))
