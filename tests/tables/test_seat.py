"""The seat book: each seat's state is one value moved by one transition; the flags the store
keeps and the seat rules read come from it, and back."""

from __future__ import annotations

import itertools

import pytest

from app.tables.seat import MISSED_BIG, Move, Seat, SeatBook, SeatState, moved

S = SeatState


@pytest.mark.parametrize(
    ("state", "move", "post", "owes", "after"),
    [
        (S.WAITING, Move.SIT_OUT, False, False, S.SITTING_OUT_WAITING),
        (S.POSTING, Move.SIT_OUT, False, False, S.SITTING_OUT_WAITING),
        (S.PLAYING, Move.SIT_OUT, False, False, S.SITTING_OUT),
        (S.SITTING_OUT, Move.SIT_OUT, False, False, S.SITTING_OUT),
        # back before a blind passed: plays on; owing one: waits, or posts
        (S.SITTING_OUT, Move.SIT_IN, False, False, S.PLAYING),
        (S.SITTING_OUT, Move.SIT_IN, True, False, S.PLAYING),
        (S.SITTING_OUT, Move.SIT_IN, False, True, S.WAITING),
        (S.SITTING_OUT, Move.SIT_IN, True, True, S.POSTING),
        # never dealt in: still waits for the big blind (or posts)
        (S.SITTING_OUT_WAITING, Move.SIT_IN, False, False, S.WAITING),
        (S.SITTING_OUT_WAITING, Move.SIT_IN, True, False, S.POSTING),
        (S.WAITING, Move.SIT_IN, True, False, S.POSTING),
        (S.POSTING, Move.SIT_IN, False, False, S.WAITING),
        (S.PLAYING, Move.SIT_IN, True, True, S.PLAYING),
        (S.WAITING, Move.DEALT, False, False, S.PLAYING),
        (S.POSTING, Move.DEALT, False, False, S.PLAYING),
        (S.SITTING_OUT, Move.LEAVE, False, False, S.LEAVING),
        (S.LEAVING, Move.REMOVE, False, False, S.REMOVED),
        (S.REMOVED, Move.LEAVE, False, False, S.REMOVED),
    ],
)
def test_the_transitions(state: S, move: Move, post: bool, owes: bool, after: S) -> None:
    assert moved(state, move, post=post, owes=owes) is after


@pytest.mark.parametrize("state", [S.LEAVING, S.REMOVED])
def test_leaving_is_for_good(state: S) -> None:
    for move in (Move.SIT_OUT, Move.SIT_IN, Move.DEALT):
        assert moved(state, move, post=True, owes=True) is state


def test_the_flags_come_from_the_state_and_back() -> None:
    for state in S:
        seat = Seat(0, "p", "p", 10, state)
        flags = {k: getattr(seat, k) for k in ("sitting_out", "waiting", "post", "leaving",
                                                "removed")}  # fmt: skip
        assert SeatState.from_flags(**flags) is state
    statuses = {state: Seat(0, "p", "p", 10, state).status for state in S}
    assert statuses == {S.WAITING: "waiting", S.POSTING: "posting", S.PLAYING: "playing",
                        S.SITTING_OUT: "sitting_out", S.SITTING_OUT_WAITING: "sitting_out",
                        S.LEAVING: "leaving", S.REMOVED: "leaving"}  # fmt: skip


def test_every_stored_combination_reads_as_a_state() -> None:
    for flags in itertools.product((False, True), repeat=5):
        names = ("sitting_out", "waiting", "post", "leaving", "removed")
        state = SeatState.from_flags(**dict(zip(names, flags, strict=True)))
        seat = Seat(0, "p", "p", 10, state)
        assert seat.can_be_dealt() == (not any(flags[:1]) and not any(flags[3:]))


def test_a_seat_owing_a_blind_waits_when_it_comes_back() -> None:
    seat = Seat(0, "p", "p", 10, S.SITTING_OUT, missed_blinds=MISSED_BIG)
    assert seat.move(Move.SIT_IN).state is S.WAITING
    assert Seat(0, "p", "p", 10, S.SITTING_OUT).move(Move.SIT_IN).state is S.PLAYING


def test_seats_and_the_book_are_values() -> None:
    seat = Seat(1, "p", "p", 10)
    with pytest.raises(AttributeError):
        seat.stack = 0  # type: ignore[misc]
    book = SeatBook.empty(3)
    after = book.put(seat)
    assert book[1] is None and after[1] is seat and after.of("p") is seat
    assert list(after.taken()) == [seat] and after.free(1) == book
