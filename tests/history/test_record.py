"""The hand record: seats, roles, pots and the all-in equity of known and random hands."""

from __future__ import annotations

import random

import pytest

from app.history.record import build, luck
from app.poker import GAMES
from app.poker.equity import all_in_spot
from tests.history.gen import random_hand


def test_the_record_adds_up() -> None:
    rng = random.Random(21)
    for number in range(1, 200):
        stored, hand = random_hand(rng, rng.choice(list(GAMES)), number)
        record = build(stored, None, equity=False)
        state = hand.state
        assert record["number"] == number and "deck" not in record
        assert [s["seat"] for s in record["seats"]] == list(hand.seats)
        assert sum(s["net"] for s in record["seats"]) == 0
        assert sum(p["amount"] for p in record["pots"]) == record["total_pot"]
        assert sum(s["won"] for s in record["seats"]) == record["total_pot"]
        assert record["seats"][-1]["roles"][0] == "button"
        assert record["runs"] == state.runs and len(record["boards"]) == state.runs
        for seat, p in zip(record["seats"], range(state.n), strict=True):
            assert seat["final_stack"] == state.stacks[p]
            assert seat["folded"] == state.folded[p] and seat["shown"] == state.shown[p]


def test_all_in_equity_in_the_record_and_the_luck_it_gives() -> None:
    rng = random.Random(3)
    checked = 0
    for number in range(1, 400):
        stored, hand = random_hand(rng, "omaha", number)
        spot = all_in_spot(hand.state)
        if spot is None or len(spot.boards[0]) < 3:
            continue
        record = build(stored, None)
        equity = record["equity"]
        assert equity is not None and equity["method"] == "exact"
        assert sum(p["expected"] for p in equity["players"]) == pytest.approx(
            equity["pot"], abs=0.05
        )
        by_seat = {s["seat"]: s for s in record["seats"]}
        for p in equity["players"]:
            seat = by_seat[p["seat"]]
            assert p["adjusted_net"] == pytest.approx(
                seat["net"] - seat["won"] + p["expected"], abs=0.01
            )
        luck_of = luck(stored)
        assert sum(luck_of.values()) == pytest.approx(0, abs=0.05)  # zero-sum (to the cent)
        assert set(luck_of) == {
            hand.players[hand.seats.index(p["seat"])] for p in equity["players"]
        }
        checked += 1
        if checked == 15:
            break
    assert checked == 15
