"""Payouts: exact integer splits, presets by field size, shared places."""

from __future__ import annotations

import pytest

from app.tournaments.payouts import WHOLE, BadPayout, check, preset, prizes, split


@pytest.mark.parametrize("field", [2, 4, 5, 7, 8, 10, 11, 20, 21, 30, 31, 50, 51, 500])
def test_presets_add_up_to_the_whole_and_pay_fewer_places_than_players(field: int) -> None:
    points = preset(field)
    check(points, field)
    assert sum(points) == WHOLE
    assert len(points) < field or field <= 4


def test_presets_by_field_size() -> None:
    assert preset(6) == (6_500, 3_500)
    assert preset(10) == (5_000, 3_000, 2_000)
    assert len(preset(30)) == 4 and len(preset(120)) == 15 and len(preset(500)) == 63


def test_presets_scale_with_the_field_up_to_a_thousand_entrants() -> None:
    """Issue 25: presets paid at most 10 places (120 players: 8% paid, 500: 2%). Standard
    structures pay about 10-15% of the field: from 28 players an eighth of it is paid, in
    whole basis points adding up to the whole, never more to a worse place, the last paid
    place over a buy-in (its share of a pool of `field` buy-ins), and whole units of any
    pool that add up to it."""
    for field in range(2, 1001):
        points = preset(field)
        check(points, field)
        if field >= 28:
            assert 0.10 <= len(points) / field <= 0.15, field
            assert points[-1] * field >= WHOLE, field
        amounts = split(1000 * field + 7, points)
        assert sum(amounts) == 1000 * field + 7
        assert amounts == sorted(amounts, reverse=True)
    assert preset(1000)[0] > preset(1000)[1] > preset(1000)[-1] > 0


@pytest.mark.parametrize("pool", [0, 1, 7, 100, 999, 1001, 123_457])
def test_a_split_adds_up_exactly(pool: int) -> None:
    for points in [(5_000, 3_000, 2_000), (3_334, 3_333, 3_333), (10_000,), preset(500)]:
        amounts = split(pool, points)
        assert sum(amounts) == pool
        assert amounts == sorted(amounts, reverse=True)


def test_a_split_known_answer() -> None:
    # 100 by 33.34/33.33/33.33: 33.34, 33.33, 33.33 -> 33, 33, 33 and one left to the first
    assert split(100, (3_334, 3_333, 3_333)) == [34, 33, 33]
    assert split(1000, (5_000, 3_000, 2_000)) == [500, 300, 200]
    assert split(7, (6_500, 3_500)) == [5, 2]  # 4.55 and 2.45: the larger remainder wins


@pytest.mark.parametrize(
    "points",
    [(5_000, 3_000), (6_000, 5_000, -1_000), (3_000, 7_000), (5_000, 2_500, 2_500, 0, 0)],
)
def test_bad_payouts_are_refused(points: tuple[int, ...]) -> None:
    with pytest.raises(BadPayout):
        check(points, 4)


def test_places_only_pays_nothing() -> None:
    check((), 6)
    assert split(1000, ()) == []
    assert prizes({"a": 1, "b": 2}, []) == {"a": 0, "b": 0}


def test_players_sharing_a_place_share_its_prizes() -> None:
    amounts = split(1000, (5_000, 3_000, 2_000))  # 500, 300, 200
    # b and c share second: (300 + 200) / 2 each
    assert prizes({"a": 1, "b": 2, "c": 2, "d": 4}, amounts) == {"a": 500, "b": 250,
                                                                 "c": 250, "d": 0}  # fmt: skip
    # c and d share third: 200 + 0 over two; odd unit to the first of them
    assert prizes({"a": 1, "b": 2, "c": 3, "d": 3}, split(1001, (5_000, 3_000, 2_000))) == {
        "a": 501, "b": 300, "c": 100, "d": 100}  # fmt: skip
    shared = prizes({"x": 3, "y": 3, "z": 3}, [500, 300, 201])
    assert sorted(shared.values()) == [67, 67, 67]
