"""The notes of a finished hand (`Hand.after`, app/tables/after.py): what they hold and who
may still ask for what. Pure: read from the hand alone, shared by the live views and review.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.poker import card_str
from app.poker.cards import Card
from app.poker.runout import rabbit
from app.tables.hand import Hand

#: a note's kinds in `Hand.after`
RABBIT, SHOW = "rabbit", "show"


def cards(values: Iterable[Card]) -> list[str]:
    return [card_str(c) for c in values]


def rabbit_boards(hand: Hand) -> list[list[str]]:
    """The rabbit of `hand` as written ([] when it reached the river)."""
    boards = rabbit(hand.state)
    return [cards(b) for b in boards] if any(boards) else []


def may_hunt(table_hunts: bool, hand: Hand) -> bool:
    """Is the rabbit of `hand` there to hunt (the table hunts, nobody has asked yet)?"""
    return (
        table_hunts
        and hand.state.complete
        and not any(n["kind"] == RABBIT for n in hand.after)
        and bool(rabbit_boards(hand))
    )


def shown_by_choice(hand: Hand, seat: int) -> list[str]:
    """The cards the player at `seat` has shown by `show_cards`, in the order they hold them."""
    chosen = {c for n in hand.after if n["kind"] == SHOW and n["seat"] == seat for c in n["cards"]}
    position = hand.position_of_seat(seat)
    held = cards(hand.state.hole[position]) if position is not None else []
    return [c for c in held if c in chosen]


def showable(hand: Hand, position: int) -> list[str]:
    """The player's cards still theirs to show by choice: only where the rules leave the
    choice once the hand is over, to the winner of a pot nobody called (a hand that had to
    be shown was shown whole; a folded or mucked hand is dead, never shown), and only the
    cards not shown yet."""
    if not hand.state.may_show(position):
        return []
    shown = set(shown_by_choice(hand, hand.seats[position]))
    return [c for c in cards(hand.state.hole[position]) if c not in shown]


def after_fields(hand: Hand, position: int | None, table_hunts: bool) -> dict[str, object]:
    """A hand's view's notes (public), and once it is over whether its rabbit may be hunted,
    and (to its own player only) the cards the viewer may still show."""
    out: dict[str, object] = {}
    if hand.after:  # during a hand too: cards shown at its showdown (app/tables/showing.py)
        out["after"] = [dict(n) for n in hand.after]
    if not hand.state.complete:
        return out
    if may_hunt(table_hunts, hand):
        out["rabbit"] = True
    if position is not None and (left := showable(hand, position)):
        out["show_cards"] = left
    return out
