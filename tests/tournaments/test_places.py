"""Finishing places: busts one at a time, in the same hand by starting stack, ties shared."""

from __future__ import annotations

import pytest

from app.tournaments.places import PlaceError, Standings


def test_one_at_a_time_then_the_winner() -> None:
    s = Standings(4)
    assert s.bust({"d": 100}) == {"d": 4}
    assert s.bust({"c": 50}) == {"c": 3}
    assert s.left == 2
    assert s.bust({"b": 900}) == {"b": 2}
    s.win("a")
    assert s.places == {"d": 4, "c": 3, "b": 2, "a": 1}


def test_two_busting_in_one_hand_with_different_stacks() -> None:
    s = Standings(6)
    # the larger stack at the start of the hand finishes better
    assert s.bust({"small": 100, "big": 300}) == {"small": 6, "big": 5}


def test_two_busting_in_one_hand_with_equal_stacks_share_the_place() -> None:
    s = Standings(6)
    assert s.bust({"x": 200, "y": 200}) == {"x": 5, "y": 5}
    assert s.left == 4
    assert s.bust({"z": 10}) == {"z": 4}  # the next one out is fourth, not fifth


def test_three_in_one_hand_two_of_them_tied() -> None:
    s = Standings(9)
    assert s.bust({"a": 100, "b": 300, "c": 100}) == {"a": 8, "c": 8, "b": 7}


def test_nobody_is_placed_twice_and_someone_is_left() -> None:
    s = Standings(3)
    s.bust({"a": 1})
    with pytest.raises(PlaceError):
        s.bust({"a": 1})
    with pytest.raises(PlaceError):
        s.bust({"b": 1, "c": 2})
    with pytest.raises(PlaceError):
        Standings(3).win("b")  # three left: no winner yet
