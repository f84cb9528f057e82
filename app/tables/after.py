"""What players may ask for once a hand is over and stored, before the next is dealt: the
rabbit hunt (the board cards that would have come) and showing some of their hole cards.

Both are notes on the finished hand (`Hand.after`, kept in its stored record by `NoteHand`
before anyone hears of them), never actions of the engine: they change no result, no
stack and no replay of the hand. Both are public once told (board cards that were never
played; cards their owner chose to show), so one record goes to everyone. (A loser's cards
shown at the showdown instead of mucking are the same notes, written during the hand's
show-or-muck turn: app/tables/showing.py, marked `showdown`.)

Bounded by construction: `t.hand` is the last hand only until the next deal replaces it,
a hand's rabbit is hunted once, and a card is shown once. The rabbit is only the boards'
next cards in the deck's order (`app.poker.runout.rabbit`: burns respected), never a burn,
a hole card or any other card of the deck.
"""

from __future__ import annotations

import logging
from typing import Any

from app.poker import ConfigError, parse_card
from app.tables.commands import RabbitHunt, ShowCards
from app.tables.core import Flow, Reply, TableCore
from app.tables.effects import Write
from app.tables.errors import TableError
from app.tables.hand import Hand
from app.tables.notes import RABBIT, SHOW, may_hunt, rabbit_boards, showable, shown_by_choice
from app.tables.ops import NoteHand
from app.tables.views import Record, cards

log = logging.getLogger("omaha.tables")


def last_hand(t: TableCore, hand_id: str | None) -> Hand:
    """The hand just over (and stored: its last action was written before it ended)."""
    hand = t.hand
    if hand is None or hand_id != hand.id:
        raise TableError("stale_hand", "that hand is not the last hand")
    if not hand.state.complete:
        raise TableError("not_over", "the hand is not over yet")
    return hand


def after_hand_record(t: TableCore, hand: Hand) -> Record:
    """Told as a hand ends: whether its rabbit may be hunted (everyone), and to each player
    the cards they may still show (their own only)."""
    private = {
        hand.players[p]: {"show_cards": left}
        for p in range(hand.state.n)
        if (left := showable(hand, p))
    }
    hunt = may_hunt(t.config.rabbit_hunt, hand)
    return Record({"type": "after_hand", "hand": hand.id, "rabbit": hunt}, private)


def note(t: TableCore, hand: Hand, entry: dict[str, Any]) -> Flow[None]:
    """Store the hand's notes with `entry`, then keep it (a refused write changes nothing)."""
    after = (*hand.after, entry)
    try:
        yield Write(NoteHand(hand.id, after))
    except TableError:
        log.error("table %s: cannot store a note of the last hand", t.id)
        raise TableError("unavailable", "that could not be stored; try again") from None
    hand.after = after


def hunt(t: TableCore, c: RabbitHunt) -> Flow[Reply]:
    """A seated player asks for the rabbit: the boards' cards to the river, once a hand,
    shown to everyone as not played."""
    if not t.config.rabbit_hunt:
        raise TableError("no_rabbit_hunt", "this table does not hunt the rabbit")
    seat = t.my_seat(c.sender)
    hand = last_hand(t, c.hand)
    if any(n["kind"] == RABBIT for n in hand.after):
        raise TableError("rabbit_hunted", "the rabbit of that hand was hunted already")
    boards = rabbit_boards(hand)
    if not boards:
        raise TableError("no_rabbit", "that hand reached the river: no card was left to come")
    entry = {"kind": RABBIT, "seat": seat.number, "name": seat.name, "boards": boards}
    yield from note(t, hand, entry)
    t.emit(Record({"type": "rabbit", "hand": hand.id, "number": hand.number,
                   "seat": seat.number, "name": seat.name, "boards": boards}))  # fmt: skip
    return {"boards": boards}


def chosen_cards(hand: Hand, position: int, given: tuple[str, ...] | None) -> list[str]:
    """The cards of `given` the player at `position` has not shown yet, in the order they
    hold them: only their own, named as 'As'."""
    if not given:
        raise TableError("bad_cards", "name the cards to show, as 'As' or 'Td'")
    try:
        chosen = {parse_card(text) for text in given}
    except (ConfigError, ValueError):
        raise TableError("bad_cards", "name the cards to show, as 'As' or 'Td'") from None
    held = hand.state.hole[position]
    if not chosen <= set(held):
        raise TableError("not_your_cards", "you can only show your own cards")
    shown = set(shown_by_choice(hand, hand.seats[position]))
    return [card for card in cards(held) if card in cards(chosen) and card not in shown]


def tell_shown(t: TableCore, hand: Hand, number: int, entry: dict[str, Any]) -> Flow[Reply]:
    """Store the show's note, then tell everyone every card the seat has shown by choice."""
    yield from note(t, hand, entry)
    shown = shown_by_choice(hand, number)
    told = {"type": "cards_shown", "hand": hand.id, "number": hand.number, "seat": number,
            "cards": shown, **({"showdown": True} if entry.get("showdown") else {})}  # fmt: skip
    t.emit(Record(told))
    return {"shown": shown}


def show_cards(t: TableCore, c: ShowCards) -> Flow[Reply]:
    """The winner of a pot nobody called shows some (or all) of their hole cards once the
    hand is over: only their own, only cards not shown yet. Shown to everyone; the hand's
    result is unchanged. (At a showdown, app/tables/showing.py.)"""
    hand = last_hand(t, c.hand)
    position = hand.position_of_player(c.sender or "")
    if position is None:
        raise TableError("not_in_hand", "you were not in that hand")
    new = chosen_cards(hand, position, c.cards)
    if not hand.state.may_show(position):
        raise TableError("no_choice", "only the winner of a pot nobody called chooses what to show")
    if not new or not showable(hand, position):
        raise TableError("already_shown", "those cards are shown already")
    number = hand.seats[position]
    return (yield from tell_shown(t, hand, number, {"kind": SHOW, "seat": number, "cards": new}))
