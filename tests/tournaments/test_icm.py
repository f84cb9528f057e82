"""ICM (Malmuth–Harville) and chip-chop figures against hand calculations."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache

import pytest

from app.tournaments.icm import DealError, chip_chop, cost, icm, whole


def test_icm_of_three_players_against_a_hand_calculation() -> None:
    # Stacks 50/30/20, prizes 70/30. By hand:
    #   P(first) = .5, .3, .2
    #   P(A second) = .3 * 50/70 + .2 * 50/80 = 19/56, so A = 35 + 30 * 19/56 = 1265/28
    #   P(B second) = .5 * 30/50 + .2 * 30/80 = 3/8,   so B = 21 + 30 * 3/8   = 129/4
    #   P(C second) = .5 * 20/50 + .3 * 20/70 = 2/7,   so C = 14 + 30 * 2/7   = 158/7
    assert icm([50, 30, 20], [70, 30]) == [Fraction(1265, 28), Fraction(129, 4), Fraction(158, 7)]


def test_icm_heads_up_is_the_chip_share_of_the_difference() -> None:
    # two left, 600 and 300 to pay: 300 each for sure, the 300 more in proportion
    assert icm([3000, 1000], [600, 300]) == [Fraction(300 + 225), Fraction(300 + 75)]


def test_icm_equal_stacks_share_equally_and_add_up() -> None:
    figures = icm([100, 100, 100, 100], [50, 30, 20])
    assert figures == [Fraction(25)] * 4
    stacks = [7, 300, 41, 9000, 55]
    uneven = icm(stacks, [500, 300, 150, 50])
    assert sum(uneven) == 1000
    # more chips, more equity; the chip leader's less than their chip share (ICM's point)
    assert sorted(range(5), key=lambda i: stacks[i]) == sorted(range(5), key=lambda i: uneven[i])
    assert uneven[3] < Fraction(1000 * 9000, sum(stacks))


def test_chip_chop_and_whole_amounts() -> None:
    figures = chip_chop([50, 30, 20], [70, 30, 0])
    assert figures == [50, 30, 20]
    assert whole(icm([50, 30, 20], [70, 30])) == [45, 32, 23]  # 45.18, 32.25, 22.57
    assert sum(whole(icm([1, 2, 3, 4], [61, 29, 10]))) == 100


def test_bad_spots_are_refused() -> None:
    with pytest.raises(DealError):
        icm([10, 0], [10])
    with pytest.raises(DealError):
        icm([1] * 11, [10])


def by_orders(stacks: list[int], prizes: list[int]) -> list[Fraction]:
    """Malmuth–Harville as first written (the sum over finishing orders, memoised by the
    players left and the place): the reference for the sum over sets."""
    n, paid = len(stacks), tuple(prizes[: len(stacks)])

    @cache
    def equity(left: frozenset[int], place: int) -> tuple[Fraction, ...]:
        out = [Fraction(0)] * n
        if place >= len(paid) or not left:
            return tuple(out)
        total = sum(stacks[i] for i in left)
        for i in left:
            p = Fraction(stacks[i], total)
            out[i] += p * paid[place]
            rest = equity(left - {i}, place + 1)
            for j in left - {i}:
                out[j] += p * rest[j]
        return tuple(out)

    return list(equity(frozenset(range(n)), 0))


def test_icm_is_exactly_the_sum_over_finishing_orders() -> None:
    rng = random.Random(27)
    for _ in range(60):
        n = rng.randint(2, 7)
        stacks = [rng.choice((1, 7, 100, rng.randint(1, 10**6))) for _ in range(n)]
        prizes = sorted((rng.randint(0, 10**4) for _ in range(rng.randint(1, n + 1))),
                        reverse=True)  # fmt: skip
        assert icm(stacks, prizes) == by_orders(stacks, prizes), (stacks, prizes)


def test_the_cost_counts_the_steps_over_sets() -> None:
    assert cost(10, 10) == 10 * 2**9  # n·2ⁿ⁻¹: every set without one player, once
    assert cost(3, 2) == 3 + 3 * 2
    assert cost(4, 9) == cost(4, 4)
